"""
Splendor against the real C{twistd -n gamehub} over loopback sockets.

The clients know only what the server tells them: each keeps a
L{Mirror} of the table built from the broadcasts and plays random actions
from its own copy of the rules (L{Mirror.toGame}).
"""

import random

from twisted.trial.unittest import SynchronousTestCase

from hub.wire import splendor as wire
from tests.endtoend import BlockingClient, GamehubServer

from .support import Mirror, clientFrame, operationBody

TERMINAL = (wire.NEW_TURN, wire.WINNER)


class SplendorClient(BlockingClient):
    """
    A blocking Splendor client speaking like the Unity client.
    """

    def __init__(self, port):
        BlockingClient.__init__(self, port)
        self.reader = wire.FrameReader()
        self.pending = []
        self.id = None
        self.mirror = None

    def send(self, apiId, playerId=None, body=None, split=False):
        """
        Send one message (one byte per send when C{split}).
        """
        if playerId is None:
            playerId = self.id or 0
        frame = clientFrame(apiId, playerId, body)
        if split:
            for i in range(len(frame)):
                self.sendBytes(frame[i:i + 1])
        else:
            self.sendBytes(frame)

    def receive(self):
        """
        The next message, C{(apiId, playerId, body)}, fed to the mirror.
        """
        while not self.pending:
            data = self.recvSome()
            if not data:
                raise EOFError("server closed the connection")
            self.pending.extend(self.reader.feed(data))
        apiId, playerId, raw = self.pending.pop(0)
        body = wire.decodeBody(raw)
        if apiId == wire.INIT_RESP:
            self.id = body["allocated_player_id"]
        if apiId == wire.GAME_START:
            self.mirror = Mirror(self.id)
        if self.mirror is not None:
            self.mirror.receive(apiId, playerId, body)
        return apiId, playerId, body

    def receiveUntil(self, *apiIds):
        """
        Read messages up to one of C{apiIds}; return them all.
        """
        got = []
        while not got or got[-1][0] not in apiIds:
            got.append(self.receive())
        return got


class SplendorEndToEndTests(SynchronousTestCase):
    """
    Whole games through the installed plugin.
    """

    def setUp(self):
        self.server = GamehubServer(self, games=("splendor",))
        self.port = self.server.port("splendor")

    def client(self):
        c = SplendorClient(self.port)
        self.addCleanup(c.close)
        return c

    def seat(self, n):
        """
        C{n} clients at one table, all ready, the game started.
        """
        clients = []
        for _ in range(n):
            c = self.client()
            c.send(wire.INIT, 0)
            got = c.receiveUntil(wire.NEW_PLAYER)
            self.assertEqual([m[0] for m in got],
                             [wire.INIT_RESP, wire.NEW_PLAYER])
            self.assertEqual(got[0][2]["other_player_id"],
                             [o.id for o in clients])
            for other in clients:
                self.assertEqual(other.receive(),
                                 (wire.NEW_PLAYER, c.id, None))
            clients.append(c)
        for c in clients:
            c.send(wire.PLAYER_READY)
            for o in clients:
                self.assertEqual(o.receive(), (wire.PLAYER_READY, c.id, None))
        for c in clients:
            got = c.receiveUntil(wire.NEW_TURN)
            self.assertEqual([m[0] for m in got],
                             [wire.GAME_START, wire.NEW_TURN])
        return clients

    def play(self, clients, seed, split=False):
        """
        Play random legal actions to WINNER; every client's view must
        stay consistent with the others'.

        @return: the winner's id.
        """
        rng = random.Random(seed)
        byId = {c.id: c for c in clients}
        for step in range(5000):
            actor = byId[clients[0].mirror.turn]
            game = actor.mirror.toGame()
            action = rng.choice(game.legalActions(game.currentSeat))
            apiId, body = operationBody(actor.id, action)
            actor.send(apiId, actor.id, body, split=split and step < 20)
            last = actor.receiveUntil(wire.NEW_TURN, wire.WINNER,
                                      wire.DISCARD_GEMS,
                                      wire.PLAYER_GET_NOBLE,
                                      wire.PLAYER_OPERATION_INVALID)[-1]
            self.assertNotEqual(last[0], wire.PLAYER_OPERATION_INVALID)
            if last[0] == wire.PLAYER_GET_NOBLE and len(
                    last[2]["noble_number"]) == 1:
                last = actor.receiveUntil(*TERMINAL)[-1]
            if last[0] not in TERMINAL:
                continue
            for c in clients:
                if c is not actor:
                    self.assertEqual(c.receiveUntil(*TERMINAL)[-1], last)
            self.assertEqual(
                {repr((c.mirror.bank, c.mirror.board, c.mirror.points,
                       c.mirror.tokens)) for c in clients}.__len__(), 1)
            if last[0] == wire.WINNER:
                return last[1]
        self.fail("the game did not end")

    def test_twoPlayerGame(self):
        """
        A two-player game to WINNER, after a spoofed header and a bad
        operation were refused; the first moves arrive byte by byte.
        """
        a, b = self.seat(2)
        actor = a if a.mirror.turn == a.id else b
        other = b if actor is a else a
        other.send(wire.PLAYER_OPERATION, actor.id, {
            "player_id": actor.id, "operation_type": "get_gems",
            "operation_info": [{"gems_type": "ruby", "gems_number": 2}]})
        self.assertEqual(other.receive(),
                         (wire.PLAYER_OPERATION_INVALID, other.id, None))
        actor.send(wire.PLAYER_OPERATION, actor.id, {
            "player_id": actor.id, "operation_type": "get_gems",
            "operation_info": [{"gems_type": "golden", "gems_number": 1}]})
        self.assertEqual(actor.receive(),
                         (wire.PLAYER_OPERATION_INVALID, actor.id, None))
        winner = self.play([a, b], 1, split=True)
        self.assertIn(winner, (a.id, b.id))
        for c in (a, b):
            best = max(c.mirror.points.values())
            self.assertEqual(c.mirror.points[winner], best)

    def test_threeAndFourPlayers(self):
        """
        A three-player and a four-player game at two tables at once.
        """
        three = self.seat(3)
        four = self.seat(4)
        self.assertEqual(len({c.id for c in three + four}), 7)
        self.play(four, 2)
        self.play(three, 3)

    def test_absurdLength(self):
        """
        A frame length over 64 KiB, or under 28, closes the connection.
        """
        c = self.client()
        c.sendBytes(wire.HEADER.pack(wire.INIT, 0, 2 ** 40, 0))
        self.assertTrue(c.isClosedByPeer())
        c = self.client()
        c.sendBytes(wire.HEADER.pack(wire.INIT, 0, 3, 0))
        self.assertTrue(c.isClosedByPeer())

    def test_dropMidGame(self):
        """
        In a two-player game, the one left wins when the other drops.
        """
        a, b = self.seat(2)
        a.close()
        self.assertEqual(b.receive(), (wire.WINNER, b.id, None))
