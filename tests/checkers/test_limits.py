"""
A checkers player who stops reading is cut by the send buffer bound, and
the game goes on as after any drop: the seat is eliminated at its turn.
"""

from twisted.internet.error import ConnectionAborted
from twisted.python.failure import Failure
from twisted.trial.unittest import SynchronousTestCase

from hub.wire import checkers as wire
from tests.checkers.support import Server, message
from tests.checkers.test_protocol import STAMP
from tests.lobby.test_limits import imposeLimits

BOUND = 1000


class NonReadingPlayerTests(SynchronousTestCase):
    """
    The send buffer bound on a checkers game of three.
    """

    def test_cutThenEliminated(self):
        """
        C stops reading but keeps playing; once the hub holds more than
        the bound for C, C is cut.  The others then see C leave, C's seat
        is eliminated at its turn, and they play on.
        """
        server = Server()
        imposeLimits(server.sessions, maxSendBuffer=BOUND)
        clients = server.startGame(["a", "c", "e"])
        a, c, e = clients
        stuck = c.transport
        stuck.clear()
        stuck.unsentBytes = lambda: len(stuck.value())
        table = server.table("r1")
        for _ in range(60):
            seat = table.game.currentSeat
            path = table.game.legalActions(seat)[0]
            clients[seat].move(table.game.regions[seat],
                               wire.formatPath(path))
            a.received()
            e.received()
            if c.closed:
                break
        self.assertTrue(c.closed)
        self.assertLessEqual(len(stuck.value()), BOUND + wire.MAX_LINE_LENGTH)
        self.assertTrue(c.protocol.writer.closed)
        onTurn = table.game.currentSeat == 1
        c.protocol.connectionLost(Failure(ConnectionAborted()))
        seen = a.received()
        self.assertEqual(seen[0], message(wire.LEAVE_ROOM_OP, "c"))
        eliminated = message(wire.MOVE_OP, "C", "-1")
        for _ in range(3):
            if eliminated in seen:
                break
            seat = table.game.currentSeat
            path = table.game.legalActions(seat)[0]
            clients[seat].move(table.game.regions[seat],
                               wire.formatPath(path))
            seen += a.received()
        # Cut on its own turn, C is out at once (as in
        # test_disconnectOnOwnTurn); else when its turn comes.
        before = (message(wire.LEAVE_ROOM_OP, "c") if onTurn
                  else message(wire.START_TURN_OP, "C", STAMP))
        at = seen.index(eliminated)
        self.assertEqual(seen[at - 1:at + 2], [
            before, eliminated, message(wire.START_TURN_OP, "E", STAMP)])
        self.assertTrue(server.room("r1").running)
        self.assertEqual(server.sessions.gate.connections, 2)
