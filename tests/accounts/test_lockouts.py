"""
Lockouts that cannot lock out the owner or the site (docs/accounts.md,
"Guessing"): the limits of L{hub.accounts.guesses.GuessLimits}, and an
attacker guessing alice's key from one address, or from many, while
alice proves it from another, in gomoku and checkers; on a L{Clock}.
(The web face's logins: tests/web/test_accounts.py, LockoutTests.)
"""

from twisted.internet.address import IPv4Address
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from hub.accounts import check, guesses
from hub.wire import checkers as cwire
from hub.wire import gomoku as gwire

from tests.accounts.support import FakeAccounts
from tests.checkers.support import Client, Server
from tests.gomoku.support import FakeConnection, GomokuHarness
from tests.harness import RecordingTransport, ServerHarness

KEY = "A1b2C3d4E5"
ATTACKER = "198.51.100.7"
OWNER = "203.0.113.9"


class GuessLimitsTests(SynchronousTestCase):
    """
    L{guesses.GuessLimits} alone.
    """

    def setUp(self):
        self.clock = Clock()
        self.limits = guesses.GuessLimits(self.clock)

    def waited(self, name, host):
        """
        How long a guess of C{name} from C{host} waits, and whether it
        may go on.
        """
        d = self.limits.wait(name, host)
        start = self.clock.seconds()
        while not d.called:
            self.clock.advance(0.25)
        return self.clock.seconds() - start, self.successResultOf(d)

    def test_pairAndAddress(self):
        """
        10 failures of a name from an address lock that pair only; 20
        across names lock the address; each refills with time.
        """
        for _ in range(guesses.PAIR_BURST):
            self.limits.fail("alice", ATTACKER)
        self.assertTrue(self.limits.locked("alice", ATTACKER))
        self.assertFalse(self.limits.locked("alice", OWNER))
        self.assertFalse(self.limits.locked("bob", ATTACKER))
        for i in range(guesses.ADDRESS_BURST - guesses.PAIR_BURST):
            self.limits.fail("n%d" % (i,), ATTACKER)
        self.assertTrue(self.limits.locked("bob", ATTACKER))
        self.clock.advance(guesses.ADDRESS_REFILL_SECONDS)
        self.assertFalse(self.limits.locked("bob", ATTACKER))
        self.assertTrue(self.limits.locked("alice", ATTACKER))
        self.clock.advance(guesses.PAIR_REFILL_SECONDS)
        self.assertFalse(self.limits.locked("alice", ATTACKER))

    def test_refund(self):
        """
        A right guess gives its try back.
        """
        for _ in range(guesses.PAIR_BURST * 3):
            self.limits.fail("alice", OWNER)
            self.limits.refund("alice", OWNER)
        self.assertFalse(self.limits.locked("alice", OWNER))
        self.assertEqual(self.limits.delay("alice"), 0)

    def test_delayGrows(self):
        """
        A name's failures from everywhere give no delay up to
        L{guesses.NAME_FREE}, then one that doubles every
        L{guesses.DELAY_DOUBLING}, up to L{guesses.MAX_DELAY}.
        """
        delays = []
        for i in range(60):
            delays.append(self.limits.delay("alice"))
            self.limits.fail("alice", "10.0.%d.%d" % (i // 200, i % 200))
        self.assertEqual(delays[:guesses.NAME_FREE],
                         [0.0] * guesses.NAME_FREE)
        self.assertEqual(delays[guesses.NAME_FREE], guesses.DELAY_BASE)
        self.assertEqual(delays[guesses.NAME_FREE + guesses.DELAY_DOUBLING],
                         2 * guesses.DELAY_BASE)
        self.assertEqual(delays[-1], guesses.MAX_DELAY)
        self.assertEqual(delays, sorted(delays))

    def test_ownerWaitsOnlyTheDelay(self):
        """
        Under a flood from many addresses, a guess from an address that
        has not failed waits the delay (at most L{guesses.MAX_DELAY}) and
        goes on; ones from failed addresses wait in line, one per delay,
        and past L{guesses.MAX_LINE_SECONDS} of line are refused.
        """
        for i in range(200):
            self.limits.fail("alice", "10.1.%d.%d" % (i // 200, i % 200))
        waited, go = self.waited("alice", OWNER)
        self.assertTrue(go)
        self.assertLessEqual(waited, guesses.MAX_DELAY)
        lined = [self.limits.wait("alice", "10.1.0.%d" % (i,))
                 for i in range(30)]
        inLine = int(guesses.MAX_LINE_SECONDS // guesses.MAX_DELAY) + 1
        self.assertEqual([self.successResultOf(d) for d in lined[inLine:]],
                         [False] * (30 - inLine))
        self.assertFalse(any(d.called for d in lined[:inLine]))
        self.clock.advance(guesses.MAX_DELAY)
        self.assertEqual([d.called for d in lined[:inLine]],
                         [True] + [False] * (inLine - 1))
        self.assertTrue(self.successResultOf(lined[0]))
        self.limits.wait("alice", "10.1.0.1")
        late = self.limits.wait("alice", "10.1.0.2")
        self.assertFalse(self.successResultOf(late))
        waited, go = self.waited("alice", OWNER)
        self.assertTrue(go)
        self.assertLessEqual(waited, guesses.MAX_DELAY)

    def test_pruneBounded(self):
        """
        A flood of distinct keys keeps at most L{guesses.MAX_BUCKETS}
        buckets.
        """
        self.patch(guesses, "MAX_BUCKETS", 100)
        for i in range(1000):
            self.limits.fail("n%d" % (i,), "10.2.%d.%d" % (i // 250, i % 250))
        self.assertLessEqual(len(self.limits.byPair), 100)
        self.assertLessEqual(len(self.limits.byName), 100)


def transportFrom(host):
    return RecordingTransport(peerAddress=IPv4Address("TCP", host, 5000))


class AttackTests(SynchronousTestCase):
    """
    An attacker sends one wrong proof a minute for alice from one
    address while she proves her key from another, in gomoku and
    checkers.
    """

    def setUp(self):
        self.gomoku = GomokuHarness()
        self.checkers = Server()
        self.clock = self.gomoku.clock
        accounts = FakeAccounts()
        accounts.add("alice", KEY)
        self.names = check.NameService(accounts, self.clock,
                                       self.gomoku.sessions)
        self.names.startService()
        self.addCleanup(self.names.stopService)
        self.gomoku.factory.names = self.names
        self.checkers.factory.names = self.names

    def settle(self, d_called):
        """
        Run the clock until C{d_called()}, at most L{guesses.MAX_DELAY}
        seconds (more would be a lockout).
        """
        for _ in range(int(guesses.MAX_DELAY * 4) + 1):
            if d_called():
                return
            self.gomoku.clock.advance(0.25)
            self.checkers.clock.advance(0.25)

    def gomokuProof(self, host, key):
        connection = FakeConnection(*ServerHarness.connect(
            self.gomoku, transportFrom(host)))
        connection.register("alice#" + key)
        statuses = []

        def answered():
            statuses.extend(m["status"] for m in connection.messages()
                            if m["msg_type"] == gwire.MSG_RESULT)
            return bool(statuses)
        self.settle(answered)
        connection.drop()
        return statuses

    def checkersProof(self, host, key, room):
        client = Client(self.checkers, *ServerHarness.connect(
            self.checkers, transportFrom(host)))
        client.join(room, "alice__" + key)
        replies = []

        def answered():
            replies.extend(m.op for m in client.received())
            return bool(replies)
        self.settle(answered)
        client.disconnect()
        return replies

    def test_oneAMinuteFromOneAddress(self):
        """
        After ten wrong proofs at once, for two hours, the attacker's
        wrong proof every minute is refused (and, at its limit, so would
        be the right key from there); alice, from her address, is let in
        every time, in both games.
        """
        for i in range(guesses.PAIR_BURST - 2):
            self.assertEqual(self.gomokuProof(ATTACKER, "1" * 9 + str(i)),
                             [gwire.S_PLAYER_EXISTS])
        for minute in range(120):
            wrong = "0000000%03d" % (minute,)
            self.assertEqual(self.gomokuProof(ATTACKER, wrong),
                             [gwire.S_PLAYER_EXISTS])
            self.assertEqual(self.checkersProof(ATTACKER, wrong, "a%d" % (
                minute,)), [cwire.ERROR_OP])
            self.assertTrue(self.names.limits.locked("alice", ATTACKER))
            self.assertEqual(self.gomokuProof(OWNER, KEY), [gwire.S_OK])
            self.assertEqual(self.checkersProof(OWNER, KEY, "o%d" % (
                minute,)), [cwire.JOIN_ROOM_REPLY_OP])
            self.clock.advance(60)
            self.checkers.clock.advance(60)
        self.assertEqual(self.names.proven, 240)

    def test_manyAddresses(self):
        """
        From a thousand addresses, ten wrong proofs each: alice, from an
        address that has not failed, is slowed by at most
        L{guesses.MAX_DELAY}, never refused.
        """
        for i in range(1000):
            host = "10.9.%d.%d" % (i // 250, i % 250)
            for _ in range(2):
                self.names.limits.fail("alice", host)
        self.assertEqual(self.names.limits.delay("alice"),
                         guesses.MAX_DELAY)
        self.assertEqual(self.gomokuProof(OWNER, KEY), [gwire.S_OK])
        self.assertEqual(self.checkersProof(OWNER, KEY, "o"),
                         [cwire.JOIN_ROOM_REPLY_OP])
