"""
Complete 2-, 3- and 6-player games through the checkers protocol, driven
to END_GAME by clients that keep their own copy of the board from what
they receive, with Clock-driven timeouts.
"""

from twisted.trial.unittest import SynchronousTestCase

from hub.wire import checkers as wire

from .support import Mirror, Server


class Player:
    """
    A scripted client: it mirrors the game and, on its turn, plays a
    greedy move unless told to stop moving after some turn.
    """

    def __init__(self, testCase, client, name, seed, stopAfter=None,
                 finishOrder=None):
        self.testCase = testCase
        self.finishOrder = finishOrder
        self.client = client
        self.name = name
        self.seed = seed
        self.stopAfter = stopAfter
        self.mirror = None
        self.region = None
        self.turns = 0
        self.myTurn = False
        self.endTurn = 0
        self.ranking = None
        self.timedOut = []

    def read(self, server):
        """
        Handle everything received so far.
        """
        for m in self.client.received():
            self.testCase.assertNotEqual(m.op, wire.ERROR_OP, m)
            if m.op == wire.START_GAME_OP:
                names = m.data1.split(" ")
                regions = m.data2.split(" ")
                self.mirror = Mirror(names, regions, self.seed)
                self.region = regions[names.index(self.name)]
            elif m.op == wire.START_TURN_OP:
                self.testCase.assertEqual(
                    m.data2, str(int(server.clock.seconds())))
                self.testCase.assertEqual(
                    m.data1, self.mirror.regions[
                        self.mirror.game.currentSeat])
                self.myTurn = m.data1 == self.region
            elif m.op == wire.MOVE_OP:
                self.testCase.assertNotEqual(
                    (m.data1, m.data2 != "-1"), (self.region, True),
                    "my own move echoed")
                if m.data2 == wire.TIMEOUT_PATH:
                    self.timedOut.append(m.data1)
                self.mirror.onMove(m.data1, m.data2)
            elif m.op == wire.END_TURN_OP:
                self.endTurn += 1
                self.finishOrder.append(self.name)
            elif m.op == wire.END_GAME_OP:
                self.ranking = m.data1.split(" ")

    def act(self, server):
        """
        Play if it is this player's turn; return whether it did.
        """
        if not self.myTurn:
            return False
        self.myTurn = False
        self.turns += 1
        if self.stopAfter is not None and self.turns > self.stopAfter:
            return False
        seat = self.mirror.seatOfRegion(self.region)
        path = self.mirror.choose(seat)
        if path is None:
            return False
        self.mirror.game.apply(seat, path)
        self.client.move(self.region, wire.formatPath(path))
        return True


class CompleteGameTests(SynchronousTestCase):
    """
    Whole games through the protocol.
    """

    def play(self, names, stopAfter=None, seed=1, maxTurns=3000):
        """
        Start a game of C{names} and drive it to END_GAME.  C{stopAfter}
        maps a name to the number of turns after which it stops moving
        (and so times out).
        """
        stopAfter = stopAfter or {}
        server = Server()
        clients = []
        for name in names:
            client = server.connect()
            client.join("game", name)
            clients.append(client)
        for client in clients:
            client.ready()
        finishOrder = []
        players = [Player(self, c, n, seed + i, stopAfter.get(n),
                          finishOrder)
                   for i, (c, n) in enumerate(zip(clients, names))]
        for _ in range(maxTurns):
            for p in players:
                p.read(server)
            if players[0].ranking is not None:
                break
            server.clock.advance(1)
            if not any(p.act(server) for p in players):
                # Nobody moved: let the turn time out.
                server.clock.advance(15)
        else:
            self.fail("the game did not end")
        for p in players:
            p.read(server)
        rankings = {tuple(p.ranking) for p in players}
        self.assertEqual(len(rankings), 1)
        ranking = list(rankings.pop())
        self.assertEqual(sorted(ranking), sorted(names))
        self.assertIsNone(server.room("game"))
        self.assertEqual(server.clock.getDelayedCalls(), [])
        finishers = finishOrder
        self.assertEqual(ranking[:len(finishers)], finishers)
        for p in players:
            self.assertLessEqual(p.endTurn, 1)
            self.assertTrue(p.mirror.game.isOver)
        return server, players, ranking, finishers

    def test_twoPlayers(self):
        """
        Two players race; the winner gets END_TURN and ranks first.
        """
        server, players, ranking, finishers = self.play(["alice", "bob"])
        self.assertEqual(len(finishers), 1)
        self.assertEqual(ranking[0], finishers[0])
        self.assertEqual(players[0].timedOut, [])

    def test_twoPlayersTimeout(self):
        """
        bob stops moving: he times out and alice wins without END_TURN.
        """
        server, players, ranking, finishers = self.play(
            ["alice", "bob"], stopAfter={"bob": 5})
        self.assertEqual(ranking, ["alice", "bob"])
        self.assertEqual(finishers, [])
        self.assertEqual(players[0].timedOut, ["D"])

    def test_threePlayers(self):
        """
        carol (E) times out early; the other two race: the first to
        finish ranks first, the other is the last active, carol last.
        """
        server, players, ranking, finishers = self.play(
            ["alice", "bob", "carol"], stopAfter={"carol": 5})
        self.assertEqual(len(finishers), 1)
        self.assertEqual(ranking[0], finishers[0])
        self.assertEqual(ranking[2], "carol")
        self.assertEqual(players[0].timedOut, ["E"])

    def test_sixPlayers(self):
        """
        Six players; B, D and F time out at different times (most recent
        first in the ranking); the others play until all but one have
        finished.
        """
        names = ["p1", "p2", "p3", "p4", "p5", "p6"]
        server, players, ranking, finishers = self.play(
            names, stopAfter={"p2": 3, "p4": 10, "p6": 20})
        self.assertEqual(players[0].timedOut, ["B", "D", "F"])
        self.assertEqual(ranking[-3:], ["p6", "p4", "p2"])
        self.assertEqual(len(finishers), 2)
        self.assertEqual(set(ranking[:3]), {"p1", "p3", "p5"})
