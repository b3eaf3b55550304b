"""
Fuzz tests of the accounts layer's name check (docs/accounts.md,
"Names"): names of every length around the key's, with a separator at
every position, and random names holding separators anywhere.  Whatever
comes, a name holding a separator is never a guest's, proves the account
only in its protocol's exact form, and what follows the separator is
never logged.
"""

from hypothesis import given, settings
from hypothesis import strategies as st
from twisted.internet.task import Clock
from twisted.logger import Logger, formatEvent
from twisted.trial.unittest import SynchronousTestCase

from hub.accounts import check, names

from tests.accounts.support import FakeAccounts

KEY = "A1b2C3d4E5"
KINDS = ("checkers", "gomoku", "web")


class Checked:
    """
    A fresh name service over the account C{alice}, its log kept.
    """

    def __init__(self):
        self.events = []
        accounts = FakeAccounts()
        accounts.add("alice", KEY)
        self.service = check.NameService(accounts, Clock(), [])
        self.service.log = Logger(observer=self.events.append)
        self.service.summary.log = self.service.log
        accounts.nameSetup().addCallback(self.service.setUp)

    def judge(self, kind, wireName, host="192.0.2.1"):
        results = []
        self.service.judge(kind, wireName, host).addCallback(results.append)
        return results[0]

    def logged(self):
        return "\n".join(formatEvent(e) for e in self.events)


class FuzzTests(SynchronousTestCase):
    """
    The name check's answers, for names made to break it.
    """

    def assertKeyedRule(self, kind, wireName):
        """
        C{wireName} holds a separator: it is never a guest's; it proves
        alice only as C{alice} (any case), C{kind}'s separator and her
        key exactly; what follows the separator is in no log line.
        """
        checked = Checked()
        verdict = checked.judge(kind, wireName)
        keyed = names.splitKeyed(wireName)
        exact = (names.nameKey(keyed.name) == "alice"
                 and keyed.separator == names.SEPARATORS.get(kind)
                 and keyed.rest == KEY)
        if exact:
            self.assertEqual(verdict, check.Verdict("alice", False, "alice"))
        else:
            self.assertIn(verdict, check.REASONS, wireName)
        if keyed.rest and len(keyed.rest) >= 3:
            logged = checked.logged()
            self.assertNotIn(keyed.separator + keyed.rest, logged)

    def test_everyLengthAndPosition(self):
        """
        C{alice}, a separator and the key cut to every length from 0 to
        its own plus 3; and the separator put at every position of
        C{alice} followed by her key.
        """
        tails = [KEY[:n] for n in range(len(KEY) + 1)] + [
            KEY + "x" * n for n in range(1, 4)] + [
            KEY.swapcase(), KEY.lower(), KEY.upper()]
        joined = "alice" + KEY
        for kind in KINDS:
            for separator in names.ALL_SEPARATORS:
                for tail in tails:
                    for prefix in ("alice", "ALICE", "Alice", "alic",
                                   "alicee", ""):
                        self.assertKeyedRule(kind, prefix + separator + tail)
                for at in range(len(joined) + 1):
                    self.assertKeyedRule(
                        kind, joined[:at] + separator + joined[at:])

    @settings(max_examples=300, deadline=None)
    @given(st.sampled_from(KINDS), st.text(max_size=12),
           st.sampled_from(names.ALL_SEPARATORS), st.text(max_size=14))
    def test_randomKeyed(self, kind, before, separator, after):
        """
        Random text around a separator.
        """
        self.assertKeyedRule(kind, before + separator + after)

    @settings(max_examples=300, deadline=None)
    @given(st.sampled_from(KINDS), st.text(max_size=40))
    def test_randomAnyName(self, kind, wireName):
        """
        Any name: refused with a reason, or a guest's (never alice's,
        never holding a separator, normalised), or alice's exact proof.
        """
        checked = Checked()
        verdict = checked.judge(kind, wireName)
        if isinstance(verdict, check.Verdict):
            if verdict.guest:
                self.assertIsNone(names.splitKeyed(verdict.name))
                self.assertEqual(names.guestName(wireName), verdict.name)
                self.assertNotIn(names.skeleton(verdict.name),
                                 names.accountSkeletons("alice"))
            else:
                self.assertEqual(wireName,
                                 wireName.split(names.SEPARATORS[kind])[0]
                                 + names.SEPARATORS[kind] + KEY)
        else:
            self.assertIn(verdict, check.REASONS)
