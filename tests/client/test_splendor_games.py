"""
Whole Splendor games between the real L{SplendorFactory} and client state
machines (L{SplendorState}, the mirror that the desktop client and the
bot client share), all over L{StringTransport}: after every action each
client's mirror must agree with the server's game, blind reserves
(C{fold_card_unknown}) on both sides included.
"""

import random
from collections import Counter

from twisted.internet.testing import StringTransport
from twisted.trial.unittest import SynchronousTestCase

from hub.client import state as S
from hub.client.state_splendor import SplendorState
from hub.games import splendor as G
from tests.client.support import connect
from tests.splendor.support import Harness

#: Games per test; each has its own deal and its own choice of actions.
GAMES = 12
#: No game needs more actions than this.
MAX_ACTIONS = 600


class Table:
    """
    C{players} client state machines at one table of a real
    L{SplendorFactory}, joined by pumping bytes both ways.
    """

    def __init__(self, players, seed):
        self.harness = Harness(seed=seed)
        self.links = []
        for number in range(players):
            server = self.harness.factory.buildProtocol(None)
            serverTransport = StringTransport()
            server.makeConnection(serverTransport)
            state = SplendorState("p%d" % (number,))
            client, clientTransport = connect("splendor", state)
            self.links.append((state, client, clientTransport, server,
                               serverTransport))
            self.pump()
        for state, *_ in self.links:
            state.setReady(True)
            self.pump()

    def pump(self):
        """
        Carry bytes both ways until nobody has anything to say.
        """
        moved = True
        while moved:
            moved = False
            for (state, client, clientTransport, server,
                 serverTransport) in self.links:
                data = clientTransport.value()
                if data:
                    clientTransport.clear()
                    server.dataReceived(data)
                    moved = True
                data = serverTransport.value()
                if data:
                    serverTransport.clear()
                    client.dataReceived(data)
                    moved = True

    @property
    def states(self):
        return [link[0] for link in self.links]

    def room(self):
        server = self.links[0][3]
        return self.harness.lobby.roomOf(server.session)

    def stateOf(self, playerId):
        for state in self.states:
            if state.myId == playerId:
                return state
        raise KeyError(playerId)


class MirrorChecker:
    """
    Compares one client's mirror with the server's game.

    The client cannot know which cards another player reserved blind;
    for those, only the pool of unseen cards (the decks plus the others'
    blind reserves) must be the same on both sides.
    """

    def __init__(self, testCase, state):
        self.testCase = testCase
        self.state = state
        self.blind = Counter()

    def sawBlindReserve(self, seat, card):
        """
        The server dealt C{card} to C{seat}, face down for the others.
        """
        if seat != self.state.mySeat():
            self.blind[card] += 1

    def sawBuy(self, card):
        self.blind[card] -= 1
        if self.blind[card] <= 0:
            del self.blind[card]

    def check(self, game, when):
        mirror = self.state.table
        me = self.state.mySeat()
        eq = self.testCase.assertEqual
        label = "player %s after %s" % (self.state.myId, when)
        eq(mirror.board, game.board, label + ": board")
        eq(mirror.bank, game.bank, label + ": bank")
        eq(mirror.nobles, game.nobles, label + ": nobles")
        eq(mirror.isOver, game.isOver, label + ": over")
        if not game.isOver:
            eq(mirror.currentSeat, game.currentSeat, label + ": seat")
            eq(mirror.phase, game.phase, label + ": phase")
        for level in (1, 2, 3):
            eq(len(mirror.decks[level - 1]), len(game.decks[level - 1]),
               label + ": deck %d size" % (level,))
        unseenMirror = Counter()
        unseenServer = Counter()
        for level in (1, 2, 3):
            unseenMirror.update(mirror.decks[level - 1])
            unseenServer.update(game.decks[level - 1])
        for seat, (mine, theirs) in enumerate(zip(mirror.players,
                                                   game.players)):
            who = "%s: seat %d " % (label, seat)
            eq(mine.tokens, theirs.tokens, who + "tokens")
            eq(mine.bonuses, theirs.bonuses, who + "bonuses")
            eq(mine.points, theirs.points, who + "points")
            eq(mine.purchased, theirs.purchased, who + "purchased")
            eq(mine.nobles, theirs.nobles, who + "nobles")
            eq(len(mine.reserved), len(theirs.reserved), who + "reserves")
            if seat == me:
                eq(mine.reserved, theirs.reserved, who + "reserved")
                continue
            hidden = Counter(c for c in theirs.reserved
                             if self.blind[c])
            known = Counter(theirs.reserved) - hidden
            guessed = Counter(mine.reserved) - known
            eq(Counter(mine.reserved) - guessed, known,
               who + "known reserves")
            unseenMirror.update(guessed)
            unseenServer.update(hidden)
        eq(unseenMirror, unseenServer, label + ": unseen cards")
        everyCard = Counter(c for row in mirror.board for c in row if c)
        for level in (1, 2, 3):
            everyCard.update(mirror.decks[level - 1])
        for player in mirror.players:
            everyCard.update(player.reserved)
            everyCard.update(player.purchased)
        eq(sorted(everyCard), sorted(G.CARDS), label + ": every card once")
        if (not game.isOver and game.currentSeat == me
                and self.state.isMyTurn()):
            eq(sorted(mirror.legalActions(me)),
               sorted(game.legalActions(me)), label + ": legal actions")


class SplendorGamesTests(SynchronousTestCase):
    """
    Two-player games with plenty of blind reserves on both sides.
    """

    def choose(self, rng, game, seat):
        """
        A legal action for C{seat}: a blind reserve whenever one is
        allowed (half of the time), else a purchase (which reveals a
        reserve when it buys one), else anything legal.
        """
        legal = game.legalActions(seat)
        blind = [a for a in legal if a.kind == G.FOLD_CARD_UNKNOWN]
        if blind and rng.random() < 0.5:
            return rng.choice(blind)
        buys = [a for a in legal if a.kind == G.BUY_CARD]
        reservedBuys = [a for a in buys
                        if a.card in game.players[seat].reserved]
        if reservedBuys:
            return rng.choice(reservedBuys)
        if buys and rng.random() < 0.7:
            return rng.choice(buys)
        return rng.choice(legal)

    def playGame(self, seed, players=2):
        """
        Play one game to its end, comparing after every action.

        @return: how many blind reserves were played.
        """
        rng = random.Random(seed)
        table = Table(players, seed)
        room = table.room()
        game = room.game
        sequence = [seat.playerId for seat in room.table.seats]
        checkers = [MirrorChecker(self, st) for st in table.states]
        for st in table.states:
            self.assertEqual(st.phase, S.GAME)
        blindReserves = 0
        for number in range(MAX_ACTIONS):
            if game.isOver:
                break
            seat = game.currentSeat
            state = table.stateOf(sequence[seat])
            action = self.choose(rng, game, seat)
            deckTops = [d[-1] if d else None for d in game.decks]
            state.playAction(action)
            table.pump()
            if action.kind == G.FOLD_CARD_UNKNOWN:
                blindReserves += 1
                card = deckTops[action.card - G.UNKNOWN_CARD_BASE - 1]
                for checker in checkers:
                    checker.sawBlindReserve(seat, card)
            elif action.kind == G.BUY_CARD:
                for checker in checkers:
                    checker.sawBuy(action.card)
            for st in table.states:
                self.assertFalse(
                    [m for m in st.messages if m[0] == "error"],
                    "seed %d action %d: %r" % (seed, number, st.messages))
            for checker in checkers:
                checker.check(game, "seed %d action %d %r" % (
                    seed, number, action))
        self.assertTrue(game.isOver, "seed %d: no end" % (seed,))
        for st in table.states:
            self.assertEqual(st.phase, S.OVER)
            self.assertEqual(st.winnerId, sequence[game.winner])
        return blindReserves

    def test_blindReservesBothSides(self):
        """
        In whole two-player games with blind reserves by both players,
        every client's mirror stays equal to the server's game.
        """
        total = 0
        for seed in range(GAMES):
            total += self.playGame(seed)
        self.assertGreater(total, GAMES * 4)

    def test_threePlayers(self):
        """
        The same with three players.
        """
        for seed in range(100, 100 + GAMES // 3):
            self.playGame(seed, players=3)
