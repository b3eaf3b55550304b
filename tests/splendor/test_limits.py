"""
A Splendor player who stops reading is cut by the send buffer bound, and
the game goes on as after any drop: the seat is skipped and the others
play on to WINNER.
"""

import random

from hub.wire import splendor as wire
from tests.lobby.test_limits import imposeLimits
from tests.splendor.support import Harness, sequenceOf
from tests.splendor.test_protocol import ProtocolTestCase, pumpAll, roomOf

BOUND = 2000


class NonReadingPlayerTests(ProtocolTestCase):
    """
    The send buffer bound on a Splendor game of three.
    """

    def test_cutThenSkipped(self):
        """
        One player stops reading but keeps playing; once the hub holds
        more than the bound for it, it is cut.  Its seat is then retired
        as after a drop, and the two others play on to WINNER.
        """
        h = Harness(seed=2)
        imposeLimits(h.sessions, maxSendBuffer=BOUND)
        conns = h.table(3)
        room = roomOf(h, conns[0])
        game = room.game
        sequence = sequenceOf(room)
        byId = {c.id: c for c in conns}
        stuck = byId[sequence[1]]
        rest = [c for c in conns if c is not stuck]
        stuck.transport.clear()
        stuck.transport.unsentBytes = lambda: len(stuck.transport.value())
        rng = random.Random(5)
        for _ in range(100):
            seat = game.currentSeat
            byId[sequence[seat]].act(rng.choice(game.legalActions(seat)))
            pumpAll(rest)
            if stuck.closed:
                break
        self.assertTrue(stuck.closed)
        self.assertTrue(stuck.protocol.writer.closed)
        self.assertLessEqual(len(stuck.transport.value()), 2 * BOUND)
        stuck.drop()
        pumpAll(rest)
        self.assertTrue(game.retired[1])
        self.playRandom(h, rest, 8)
        self.assertNotEqual(game.winner, 1)
        self.assertEqual(h.sessions.gate.connections, 2)
        for c in rest:
            self.assertEqual(c.received[-1][0], wire.WINNER)
