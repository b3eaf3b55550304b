"""
Display names (docs/accounts.md, "Display names"): the rules
(L{hub.accounts.display}), setting them on SQLite and PostgreSQL
(L{hub.accounts.model.Accounts.setDisplayName}), the pages' cache of
them (L{hub.accounts.displays}) and the command line's C{display-name}.
"""

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st
from twisted.internet import defer
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase, TestCase

from hub.accounts import check, display, names, store
from hub.accounts.display import (
    DisplayNameHidden, DisplayNameLookalike, DisplayNameMarks,
    DisplayNameParenthesis, DisplayNameRefused, DisplayNameTooLong)
from hub.accounts.displays import DisplayNames
from hub.accounts.model import Accounts

from tests.accounts import support
from tests.accounts import test_cli


class RuleTests(SynchronousTestCase):
    """
    L{display.displayName}: normalised, any script, length-limited, no
    hidden character, no parenthesis; an empty one clears.
    """

    def test_anyScript(self):
        """
        Chinese, Arabic, Cyrillic, accents and emoji are display names.
        """
        for text in ("李雷", "韩梅梅", "محمد", "Ольга", "José Ñúñez",
                     "Zoë ☕", "a", "王" * display.MAX_DISPLAY):
            self.assertEqual(display.displayName(text), text)

    def test_normalised(self):
        """
        NFKC, runs of white space one space, none at either end.
        """
        self.assertEqual(display.displayName("  李\u3000\t雷  "), "李 雷")
        self.assertEqual(display.displayName("ｌｉｌｅｉ"), "lilei")
        self.assertEqual(display.displayName("e\u0301"), "\u00e9")

    def test_emptyClears(self):
        """
        Nothing, or only white space, is no display name (it clears).
        """
        for text in ("", "   ", "\u3000\t\n"):
            self.assertIsNone(display.displayName(text))

    def test_tooLong(self):
        """
        At most L{display.MAX_DISPLAY} characters, counted normalised.
        """
        error = self.assertRaises(DisplayNameTooLong, display.displayName,
                                  "王" * (display.MAX_DISPLAY + 1))
        self.assertEqual(error.length, display.MAX_DISPLAY + 1)
        self.assertIn(str(display.MAX_DISPLAY), str(error))
        # U+FDFA is one character that NFKC makes 18.
        self.assertRaises(DisplayNameTooLong, display.displayName,
                          "\ufdfa\ufdfa")

    def test_hidden(self):
        """
        No control, zero-width, bidi control or other invisible
        character; the refusal names the first.
        """
        for c in ("\x00", "\x1b", "\x1f", "\x7f", "\x85", "\u200b", "\u200c",
                  "\u200d", "\u200e", "\u200f", "\u202a", "\u202e",
                  "\u2066", "\u2069", "\u061c", "\ufeff", "\u2060",
                  "\u00ad", "\u034f", "\u115f", "\u3164", "\ufe0f",
                  "\U000e0041", "\ue000", "\ud800"):
            error = self.assertRaises(DisplayNameHidden, display.displayName,
                                      "li" + c + "lei")
            # (NFKC makes U+3164 U+1160, another filler.)
            shown = unicodedata.normalize("NFKC", c)
            self.assertEqual(error.character, shown)
            self.assertIn("U+%04X" % (ord(shown),), str(error))

    def test_marks(self):
        """
        At most L{display.MAX_MARKS} combining marks in a row.
        """
        display.displayName("x" + "\u0301\u0302\u0303\u0304")
        self.assertRaises(DisplayNameMarks, display.displayName,
                          "x" + "\u0301\u0302\u0303\u0304\u0305")

    def test_parenthesis(self):
        """
        Nothing that reads as a parenthesis: the protocol name is shown
        after the display name in them.
        """
        for text in ("bob (alice)", "（alice）", "a)", "\u2474"):
            self.assertRaises(DisplayNameParenthesis, display.displayName,
                              text)

    def test_typed(self):
        """
        Every refusal is a L{DisplayNameRefused}, an L{store.AccountError}
        (the command line says it in one line).
        """
        for refusal in (DisplayNameTooLong, DisplayNameHidden,
                        DisplayNameMarks, DisplayNameParenthesis,
                        DisplayNameLookalike):
            self.assertTrue(issubclass(refusal, DisplayNameRefused))
        self.assertTrue(issubclass(DisplayNameRefused, store.AccountError))

    @settings(max_examples=400, deadline=None)
    @given(st.text(max_size=40))
    def test_anyText(self, text):
        """
        Any text is refused with a L{DisplayNameRefused}, or made a
        display name that keeps every rule, and is its own normal form.
        """
        try:
            shown = display.displayName(text)
        except DisplayNameRefused:
            return
        if shown is None:
            self.assertEqual(text.split(), [])
            return
        self.assertTrue(1 <= len(shown) <= display.MAX_DISPLAY)
        self.assertEqual(shown, unicodedata.normalize("NFKC", shown))
        self.assertEqual(shown, " ".join(shown.split()))
        self.assertIsNone(names.hiddenCharacter(shown))
        self.assertEqual(display.displayName(shown), shown)

    @settings(max_examples=200, deadline=None)
    @given(st.text(st.characters(whitelist_categories=(
        "Lo", "Lu", "Ll", "Nd")), min_size=1, max_size=display.MAX_DISPLAY))
    def test_lettersAreNames(self, text):
        """
        Letters and digits of any script, up to the limit, are a display
        name (unless NFKC makes them longer, or they read as a
        parenthesis).
        """
        normal = unicodedata.normalize("NFKC", text)
        if len(normal) > display.MAX_DISPLAY or any(
                "(" in s or ")" in s
                for s in display.displaySkeletons(normal)):
            return
        self.assertEqual(display.displayName(text), normal)


class SettingTests:
    """
    L{hub.accounts.model.Accounts.setDisplayName} and C{displayNames}.
    """

    @defer.inlineCallbacks
    def setUp(self):
        self.accounts = support.openAccounts(self, now=lambda: 1000.0)
        for name in ("alice", "lilei", "bob"):
            yield self.accounts.add(name, "pw")

    @defer.inlineCallbacks
    def test_setAndClear(self):
        """
        A display name is set normalised, read back, audited and noted as
        a change of the account; an empty one clears it.
        """
        before = yield self.accounts.changesSince(0)
        shown = yield self.accounts.setDisplayName("LiLei", " 李\u3000雷 ")
        self.assertEqual(shown, "李 雷")
        self.assertEqual((yield self.accounts.displayName("lilei")), "李 雷")
        found = yield self.accounts.displayNames(["lilei", "alice", "nobody"])
        self.assertEqual(found, {"lilei": "李 雷"})
        after = yield self.accounts.changesSince(0)
        self.assertEqual(after[len(before):][-1][1:], ("account", "lilei"))
        self.assertIsNone((yield self.accounts.setDisplayName("lilei", "")))
        self.assertIsNone((yield self.accounts.displayName("lilei")))
        entries = yield self.accounts.audit()
        self.assertEqual(
            [(e.action, e.target, e.reason) for e in entries[-2:]],
            [("display-name", "lilei", "李 雷"), ("display-name", "lilei", "")])

    @defer.inlineCallbacks
    def test_noAccount(self):
        """
        The display name of no account is neither set nor read.
        """
        yield self.assertFailure(
            self.accounts.setDisplayName("nobody", "x"), store.NoSuchAccount)
        yield self.assertFailure(self.accounts.displayName("nobody"),
                                 store.NoSuchAccount)

    @defer.inlineCallbacks
    def test_rulesRefused(self):
        """
        A display name breaking a rule is refused with its type, and the
        one before is kept.
        """
        yield self.accounts.setDisplayName("lilei", "李雷")
        yield self.assertFailure(
            self.accounts.setDisplayName("lilei", "李\u200b雷"),
            DisplayNameHidden)
        self.assertEqual((yield self.accounts.displayName("lilei")), "李雷")

    @defer.inlineCallbacks
    def test_notAnotherAccountsName(self):
        """
        A display name that looks like another account's name is refused,
        in any case or disguise; one's own name is anyone's to show.
        """
        for text in ("alice", "ALICE", "AL1CE", "аlice", "ａｌｉｃｅ", "Bob",
                     "b0b"):
            error = yield self.assertFailure(
                self.accounts.setDisplayName("lilei", text),
                DisplayNameLookalike)
            self.assertEqual(error.what, "name")
            self.assertIn(error.other, ("alice", "bob"))
        self.assertEqual((yield self.accounts.setDisplayName(
            "lilei", "LiLei")), "LiLei")

    @defer.inlineCallbacks
    def test_notAnotherAccountsDisplayName(self):
        """
        A display name that looks like another account's display name is
        refused; freed when that one changes; one's own may be set again.
        """
        yield self.accounts.setDisplayName("alice", "Wang Li")
        for text in ("Wang Li", "wang li", "WANG LI", "Wang Ll", "Wаng Li"):
            error = yield self.assertFailure(
                self.accounts.setDisplayName("bob", text),
                DisplayNameLookalike)
            self.assertEqual((error.other, error.what), ("alice", "display"))
        yield self.accounts.setDisplayName("alice", "WANG LI")
        yield self.accounts.setDisplayName("alice", "Alice W")
        self.assertEqual((yield self.accounts.setDisplayName(
            "bob", "Wang Li")), "Wang Li")

    @defer.inlineCallbacks
    def test_madeAgainWithTheSkeletons(self):
        """
        When the confusables' data changes, the display names' skeletons
        are made again with the names'.
        """
        yield self.accounts.setDisplayName("alice", "Wang Li")

        def forget(cursor):
            cursor.execute("DELETE FROM display_skeletons")
            cursor.execute("UPDATE settings SET value = 'old' WHERE name = ?",
                           (store.SKELETON_SETTING,))

        yield self.accounts._write(forget)
        yield self.accounts.nameSetup()
        yield self.assertFailure(
            self.accounts.setDisplayName("bob", "wang li"),
            DisplayNameLookalike)


    @defer.inlineCallbacks
    def test_changeSeenByThePages(self):
        """
        A display name set anywhere (here, another L{Accounts} on the same
        database: another hub or the command line) is forgotten by the
        pages' L{DisplayNames} at the name check's next read of the
        changes, and read again.
        """
        clock = Clock()
        service = check.NameService(self.accounts, clock, [])
        displays = DisplayNames(self.accounts, clock)
        service.watchChanges(displays.changed)
        yield service.refresh()
        yield self.accounts.setDisplayName("lilei", "李雷")
        self.assertEqual((yield displays.lookup(["lilei"])),
                         {"lilei": "李雷"})
        other = Accounts(self.accounts.database, None, now=lambda: 1001.0)
        yield other.setDisplayName("lilei", "韩梅梅")
        self.assertEqual(displays.known("lilei"), "李雷")
        yield service.refresh()
        self.assertIsNone(displays.known("lilei"))
        self.assertEqual((yield displays.lookup(["lilei"])),
                         {"lilei": "韩梅梅"})


class SQLiteSettingTests(SettingTests, support.SQLiteMixin, TestCase):
    """
    On SQLite.
    """


class PostgreSQLSettingTests(SettingTests, support.PostgreSQLMixin,
                             TestCase):
    """
    On PostgreSQL.
    """


class FakeDisplays:
    """
    What L{DisplayNames} reads: C{displayNames}, answered when told.
    """

    def __init__(self, shown):
        self.shown = shown
        self.asked = []

    def displayNames(self, keys):
        self.asked.append(list(keys))
        d = defer.Deferred()
        self.pending = lambda: d.callback(
            {k: v for k, v in self.shown.items() if k in keys})
        return d


class DisplayNamesTests(SynchronousTestCase):
    """
    L{DisplayNames}: read in batches, held, forgotten on a change.
    """

    def setUp(self):
        self.clock = Clock()
        self.fake = FakeDisplays({"lilei": "李雷"})
        self.displays = DisplayNames(self.fake, self.clock, size=3)

    def test_knownReadsNextTurn(self):
        """
        L{DisplayNames.known} answers what it holds; what it does not
        hold is read in one batch in the next reactor turn; a guest's
        name is never read.
        """
        self.assertIsNone(self.displays.known("LiLei"))
        self.assertIsNone(self.displays.known("bob"))
        self.assertIsNone(self.displays.known("游客一"))
        self.assertIsNone(self.displays.known(None))
        self.assertEqual(self.fake.asked, [])
        self.clock.advance(0)
        self.assertEqual(self.fake.asked, [["bob", "lilei"]])
        self.fake.pending()
        self.assertEqual(self.displays.known("LiLei"), "李雷")
        self.assertIsNone(self.displays.known("bob"))
        self.clock.advance(0)
        self.assertEqual(len(self.fake.asked), 1)

    def test_lookup(self):
        """
        L{DisplayNames.lookup} reads only what it does not hold, and
        answers by the names asked.
        """
        d = self.displays.lookup(["LiLei", "lilei", "bob", "游客"])
        self.assertEqual(self.fake.asked, [["bob", "lilei"]])
        self.fake.pending()
        self.assertEqual(self.successResultOf(d),
                         {"LiLei": "李雷", "lilei": "李雷"})
        d = self.displays.lookup(["lilei"])
        self.assertEqual(self.successResultOf(d), {"lilei": "李雷"})
        self.assertEqual(len(self.fake.asked), 1)

    def test_changed(self):
        """
        A change forgets the account (every one for None); a read under
        way when a change comes is not held.
        """
        self.displays.lookup(["lilei"])
        self.fake.pending()
        self.displays.changed(["lilei"])
        self.assertEqual(len(self.displays), 0)
        d = self.displays.lookup(["lilei"])
        self.fake.shown["lilei"] = "韩梅梅"
        self.displays.changed(["bob"])
        self.fake.pending()
        self.assertEqual(self.successResultOf(d), {"lilei": "韩梅梅"})
        self.assertEqual(len(self.displays), 0)
        self.displays.lookup(["lilei", "bob"])
        self.fake.pending()
        self.assertEqual(len(self.displays), 2)
        self.displays.changed(None)
        self.assertEqual(len(self.displays), 0)

    def test_bounded(self):
        """
        At most C{size} names are held, the least lately used forgotten.
        """
        self.displays.lookup(["a", "b", "c"])
        self.fake.pending()
        self.displays.known("a")
        self.displays.lookup(["d"])
        self.fake.pending()
        self.assertEqual(len(self.displays), 3)
        self.displays.known("b")
        self.clock.advance(0)
        self.assertEqual(self.fake.asked[-1], ["b"])


class DisplayNameCommandTests(support.SQLiteMixin, TestCase):
    """
    C{display-name NAME [TEXT]}, run as a real process.
    """

    setUp = test_cli.CommandLineTests.setUp
    run_ = test_cli.CommandLineTests.run_
    assertOneLineError = test_cli.CommandLineTests.assertOneLineError

    def test_displayName(self):
        """
        Set, printed, refused in one line, cleared.
        """
        self.run_("add", "lilei", stdin="pw\n")
        self.run_("add", "alice", stdin="pw\n")
        code, out, err = self.run_("display-name", "lilei", "李雷")
        self.assertEqual((code, err), (0, ""))
        self.assertEqual(out, "display name of lilei is now 李雷\n")
        self.assertEqual(self.run_("display-name", "LILEI")[1],
                         "LILEI: 李雷\n")
        self.assertOneLineError(self.run_("display-name", "lilei", "ALICE"),
                                "alice")
        self.assertOneLineError(self.run_("display-name", "lilei",
                                          "a\u200bb"), "U+200B")
        self.assertOneLineError(self.run_("display-name", "nobody", "x"),
                                "nobody")
        self.assertEqual(self.run_("display-name", "lilei", "")[1],
                         "display name of lilei cleared\n")
        self.assertEqual(self.run_("display-name", "lilei")[1],
                         "lilei: no display name\n")
        self.assertIn("display-name", self.run_("audit")[1])
