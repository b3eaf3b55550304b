"""
A gomoku player who stops reading is cut by the send buffer bound, and
the game goes on as after any drop: grace, then forfeit.
"""

from twisted.internet.error import ConnectionAborted
from twisted.python.failure import Failure
from twisted.trial.unittest import SynchronousTestCase

from tests.gomoku.support import GomokuHarness
from tests.gomoku.test_protocol import BOB, game, roomInfo
from tests.lobby.test_limits import imposeLimits


class NonReadingPlayerTests(SynchronousTestCase):
    """
    The send buffer bound on a gomoku game.
    """

    def setUp(self):
        self.hub = GomokuHarness()
        imposeLimits(self.hub.sessions, maxSendBuffer=1000)

    def test_cutThenForfeit(self):
        """
        White stops reading but keeps playing; once the hub holds more
        than the bound for white, white is cut.  Black then wins by
        forfeit when white's grace runs out, as after a drop.
        """
        black, white, owner, guest = self.hub.playing()
        stuck = white.transport
        stuck.unsentBytes = lambda: len(stuck.value())
        moves = iter((x, y) for y in range(15) for x in range(0, 15, 3))
        for _ in range(20):
            black.move(*next(moves))
            if stuck.disconnecting:
                break
            white.move(*next(moves))
            black.raw()
        self.assertTrue(stuck.disconnecting)
        self.assertLessEqual(len(stuck.value()), 1200)
        white.protocol.connectionLost(Failure(ConnectionAborted()))
        black.raw()
        self.hub.clock.advance(29)
        self.assertEqual(black.raw(), b"")
        self.hub.clock.advance(1)
        self.assertEqual(black.raw(), game(3, 1, black.session, BOB)
                         + roomInfo(2, black.session, BOB, owner="bob",
                                    state=0))
        self.assertIsNone(self.hub.sessions.byName("gomoku", "alice"))
        self.assertEqual(self.hub.sessions.gate.connections, 1)


class ForgedLogLineTests(SynchronousTestCase):
    """
    A player string with control characters stays one escaped log line.
    """

    def test_escaped(self):
        """
        A name carrying a newline, ESC and BEL is logged escaped, by the
        sessions and by the lobby.
        """
        from twisted.logger import formatEvent, globalLogPublisher
        events = []
        globalLogPublisher.addObserver(events.append)
        self.addCleanup(globalLogPublisher.removeObserver, events.append)
        hub = GomokuHarness()
        forger = hub.connect()
        forger.register("x\nFAKE [admin] pw\x1b[2J\x07")
        forger.create("r")
        other = hub.connect()
        other.register("y")
        other.join("r")
        forger.drop()
        lines = [formatEvent(e) for e in events]
        forged = [line for line in lines if "FAKE" in line]
        self.assertGreaterEqual(len(forged), 3)
        for line in lines:
            self.assertNotIn("\n", line)
            self.assertNotIn("\x1b", line)
            self.assertNotIn("\x07", line)
        self.assertIn("'x\\nFAKE [admin] pw\\x1b[2J\\x07'", forged[0])
