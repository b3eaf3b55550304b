"""
A fake table for the web's tests: a L{hub.tables.base.Table} over the
real rules objects of L{hub.games}, emitting the real events, with no
adapter behind it.
"""

import random

from hub.games.checkers import CheckersGame
from hub.games.gomoku import GomokuGame
from hub.games.splendor import SplendorGame
from hub.games.splendor_moves import NewCard
from hub.tables import events
from hub.tables.base import Table, TableOptions


def newGame(kind, seats=2, seed=1):
    """
    A fresh rules object of C{kind}.
    """
    if kind == "gomoku":
        return GomokuGame()
    if kind == "checkers":
        return CheckersGame(seats)
    return SplendorGame(seats, random.Random(seed))


def seatsFor(kind, names, bots=()):
    """
    The L{events.Seat}s of C{names}.
    """
    roles = {"gomoku": ("black", "white"), "checkers": "ABCDEF"}
    seats = []
    for index, name in enumerate(names):
        role = None
        if kind == "gomoku":
            role = roles["gomoku"][index]
        seats.append(events.Seat(index, name, 100 + index, role,
                                 name in bots))
    return seats


class FakeTable(Table):
    """
    A table of any kind: checks the turn, applies the action to the rules
    object and emits what the real tables emit.
    """

    def __init__(self, kind, name, names, clock, seed=1, options=None,
                 bots=()):
        game = newGame(kind, len(names), seed)
        Table.__init__(self, name, seatsFor(kind, names, bots), game, clock,
                       options or TableOptions())
        self.kind = kind

    def position(self):
        """
        The position as the real table of the kind tells it (the feed
        rebuilds its replays from it).
        """
        if self.kind == "gomoku":
            return {"size": 15, "moves": [list(m) for m in self.game.moves]}
        if self.kind == "checkers":
            from hub.tables.checkers import positionOf
            return positionOf(self.game)
        return self.game.deal()

    def act(self, seat, action):
        self.checkTurn(seat)
        detail = self.game.apply(seat, action)
        self.playedAction(seat, action, False, None, self.now())
        if self.kind == "splendor":
            for ruled in detail:
                if isinstance(ruled, NewCard):
                    self.emit(events.CardDealt(ruled.level, ruled.card,
                                               self.now()))
        if self.game.isOver:
            ranking = list(self.game.ranking()) if hasattr(
                self.game, "ranking") else []
            winner = getattr(self.game, "winnerSeat", None)
            if self.kind == "splendor":
                winner = self.game.winner
            elif self.kind == "checkers":
                winner = ranking[0] if ranking else None
            self.end(events.NORMAL, ranking, winner)
        elif self.game.currentSeat != seat or self.kind != "splendor":
            self.startTurn()

    def playOne(self, rng):
        """
        The seat to act plays a random legal action.
        """
        seat = self.game.currentSeat
        action = rng.choice(self.game.legalActions(seat))
        self.act(seat, action)
        return action

    def drop(self, seat):
        self.emit(events.SeatDropped(seat, self.now()))
