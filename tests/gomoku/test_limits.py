"""
A gomoku player who stops reading is cut by the send buffer bound, and
the game goes on as after any drop: grace, then forfeit.
"""

from twisted.internet.error import ConnectionAborted
from twisted.python.failure import Failure
from twisted.trial.unittest import SynchronousTestCase

from hub.wire import gomoku as wire
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
