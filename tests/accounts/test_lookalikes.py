"""
Guest names that cannot pass for another (docs/accounts.md, "Names"):
normalised (NFKC, trimmed, no zero-width or bidi controls), refused when
they hold either protocol's separator, and checked against the accounts'
names by confusable skeleton (Unicode TR39), through gomoku, checkers and
the browser's C{/ws} C{hello}; on in-memory transports.
"""

import json

from twisted.trial.unittest import SynchronousTestCase

from hub.accounts import check, names
from hub.web import play as playing
from hub.wire import checkers as cwire
from hub.wire import gomoku as gwire

from tests.accounts.support import FakeAccounts
from tests.checkers.support import Client, Server
from tests.gomoku.support import FakeConnection, GomokuHarness
from tests.harness import ServerHarness
from tests.web.playsupport import PlayHub

KEY = "A1b2C3d4E5"

#: Look-alikes of the account C{alice}: Cyrillic а and е, dotless ı, a
#: zero-width space, fullwidth forms, spaces around, capital I and digit
#: one for l, another case.
LOOKALIKES = ["\u0430lice", "alic\u0435", "al\u0131ce", "al\u200bice",
              "\uff41\uff4c\uff49\uff43\uff45", " alice", "alice ",
              "aIice", "a1ice", "AL1CE", "ALICE", "al\u202eice",
              "\u200balice", "alice\ufeff"]


def withAccounts(harness, mode="accounts"):
    accounts = FakeAccounts()
    accounts.add("alice", KEY)
    service = check.NameService(accounts, harness.hub.clock,
                                harness.sessions, mode)
    service.startService()
    harness.factory.names = service
    return service


class SkeletonTests(SynchronousTestCase):
    """
    L{names.guestName} and L{names.skeleton}.
    """

    def test_normalised(self):
        """
        NFKC, runs of white space one space, none at the ends.
        """
        for sent, kept in [(" bob ", "bob"), ("\uff42\uff4f\uff42", "bob"),
                           ("bo\u3000 b", "bo b"), ("\u00c5sa", "\u00c5sa"),
                           ("A\u030asa", "\u00c5sa"),
                           ("\u6e38\u5ba2", "\u6e38\u5ba2")]:
            self.assertEqual(names.guestName(sent), kept, sent)

    def test_refused(self):
        """
        Empty, too long, invisible characters, separators.
        """
        for sent in ["", "   ", "a\u200bb", "a\u200cb", "a\u200db",
                     "a\u2060b", "a\ufeffb", "a\u202eb", "a\u2066b",
                     "a\u200fb", "a\u061cb", "a\u00adb", "a\u034fb",
                     "a\u3164b", "a\ufe0fb", "a\x00b", "a\x07",
                     "bob__x", "bob#", "#", "__", "x" * 36,
                     "\u00e9" * 18]:
            self.assertRaises(names.BadName, names.guestName, sent)

    def test_lookAlikesShareASkeleton(self):
        """
        Every look-alike of C{alice} that survives normalisation has one
        of the account's skeletons; other names do not.
        """
        skeletons = names.accountSkeletons("alice")
        for sent in LOOKALIKES:
            try:
                guest = names.guestName(sent)
            except names.BadName:
                continue
            self.assertIn(names.skeleton(guest), skeletons, sent)
        for other in ("alicia", "bob", "aiice", "\u6e38\u5ba2", "malice"):
            self.assertNotIn(names.skeleton(other), skeletons, other)


class GomokuLookalikeTests(SynchronousTestCase):
    """
    Gomoku guests (up to 35 bytes of anything).
    """

    def setUp(self):
        self.server = GomokuHarness()
        self.names = withAccounts(self.server)

    def register(self, name):
        connection = FakeConnection(*ServerHarness.connect(self.server))
        connection.register(name)
        return connection

    def status(self, connection):
        return [m["status"] for m in connection.messages()
                if m["msg_type"] == gwire.MSG_RESULT]

    def test_lookAlikesRefused(self):
        """
        Every look-alike of C{alice} gets the "taken" status (258).
        """
        for name in LOOKALIKES:
            connection = self.register(name)
            self.assertEqual(self.status(connection),
                             [gwire.S_PLAYER_EXISTS], repr(name))

    def test_separatorsRefused(self):
        """
        The checkers form, and any name holding C{__} or C{#}, is not a
        guest's: C{alice__0123456789}, C{bob__x}, C{bob#}.
        """
        for name in ("alice__0123456789", "alice__" + KEY, "bob__x", "bob#",
                     "#x"):
            connection = self.register(name)
            self.assertEqual(self.status(connection),
                             [gwire.S_PLAYER_EXISTS], name)
        self.assertEqual((self.names.refused[check.WRONG_KEY],
                          self.names.refused[check.NO_ACCOUNT],
                          self.names.proven), (2, 3, 0))

    def test_normalisedName(self):
        """
        A guest asking for C{" ｂｏｂ "} is C{bob} to everybody else, and
        holds that name: a second C{bob} is refused.
        """
        first = self.register(" \uff42\uff4f\uff42 ")
        self.assertEqual(self.status(first), [gwire.S_OK])
        self.assertEqual(first.protocol.session.name, "bob")
        second = self.register("bob")
        self.assertEqual(self.status(second), [gwire.S_PLAYER_EXISTS])


class CheckersLookalikeTests(SynchronousTestCase):
    """
    Checkers guests (C{[A-Za-z0-9_]}: only the ASCII look-alikes).
    """

    def setUp(self):
        self.server = Server()
        self.names = withAccounts(self.server)

    def join(self, name):
        client = Client(self.server, *ServerHarness.connect(self.server))
        client.join("r1", name)
        errors = [m for m in client.received() if m.op == cwire.ERROR_OP]
        return errors[0].data1 if errors else None

    def test_lookAlikes(self):
        """
        C{aIice}, C{a1ice}, C{AL1CE} and a name with C{__} are taken;
        C{bob_1} is not.
        """
        for name in ("aIice", "a1ice", "AL1CE", "ALICE", "bob__x",
                     "alice__0123456789"):
            self.assertEqual(self.join(name), str(cwire.INVALID_JOIN), name)
        self.assertIsNone(self.join("bob_1"))


class WebLookalikeTests(SynchronousTestCase):
    """
    The browser's guests (C{hello}'s C{name}).
    """

    def setUp(self):
        def make(clock, sessions):
            accounts = FakeAccounts()
            accounts.add("alice", KEY)
            service = check.NameService(accounts, clock, sessions)
            accounts.nameSetup().addCallback(service.setUp)
            return service
        self.hub = PlayHub(names=make)
        self.addCleanup(self.hub.stop)

    def test_checkersFormRefused(self):
        """
        C{hello} with C{alice__KEY} (her real key) is refused as taken,
        never echoed: no message the browser gets holds the key.
        """
        browser = self.hub.browser()
        browser.hello("alice__" + KEY)
        self.assertEqual(browser.errors(), [playing.NAME_TAKEN])
        self.assertIsNone(browser.player)
        self.assertNotIn(KEY, json.dumps(browser.messages))
        other = self.hub.browser()
        other.hello("bob__x")
        self.assertEqual(other.errors(), [playing.NAME_TAKEN])

    def test_lookAlikes(self):
        """
        The look-alikes the browser's names allow are refused.
        """
        for name in ("aIice", "a1ice", "AL1CE"):
            browser = self.hub.browser()
            browser.hello(name)
            self.assertEqual(browser.errors(), [playing.NAME_TAKEN], name)
        browser = self.hub.browser()
        self.assertEqual(browser.hello("bob")["name"], "bob")
