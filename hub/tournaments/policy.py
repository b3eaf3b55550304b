"""
The start policy of a tournament pairing's room (L{TournamentPolicy}):
the game kind's own, held to exactly the pairing's players and the
event's turn clock; an engine game's room held to its full table
(L{FullTablePolicy}); the opening a gomoku pairing of engines over
standard streams starts from (L{openingFor}).
"""

from __future__ import annotations

from typing import Any, FrozenSet, List, Optional, Sequence, Tuple

import attr
from zope.interface import implementer

from hub.ihub import ILobby, IStartPolicy, ITable, Room
from hub.tables.base import startIfReady
from hub.tournaments.standings import Game


@implementer(IStartPolicy)
class TournamentPolicy:
    """
    The start policy of a pairing's room: the game kind's own policy
    (C{inner}), but only with exactly the pairing's players in the room,
    and with the event's turn clock (and a gomoku pairing's opening).
    """

    #: Splendor's open seating (L{hub.tables.splendor.SplendorSeats})
    #: never seats a stranger here.
    openTable = False

    def __init__(self, inner: IStartPolicy, names: Sequence[str],
                 turnSeconds: Optional[float] = None,
                 opening: Sequence[Tuple[int, int]] = ()) -> None:
        self.inner = inner
        self.names = frozenset(names)
        self.turnSeconds = turnSeconds
        self.opening = tuple(opening)

    @property
    def autoStart(self) -> bool:
        return bool(self.inner.autoStart)

    @property
    def options(self) -> Any:
        # The kind's, with the event's turn clock if it has one.
        options = self.inner.options
        if self.turnSeconds is not None:
            options = attr.evolve(options, turnSeconds=self.turnSeconds)
        return options

    @property
    def playerCounts(self) -> FrozenSet[int]:
        # The pairing's players, all of them.
        return frozenset([len(self.names)])

    def withOptions(self, options: Any) -> TournamentPolicy:
        return TournamentPolicy(self.inner.withOptions(options),
                                tuple(self.names), self.turnSeconds,
                                self.opening)

    def canStart(self, room: Room) -> bool:
        """
        The pairing's players, all of them and nobody else, are in the
        room, and the kind's policy agrees.  Members without names
        (Splendor's) are counted only: the engine runner's private
        listeners say who they are.
        """
        names = room.names()
        if len(names) != len(self.names):
            return False
        if None not in names and frozenset(names) != self.names:
            return False
        return bool(self.inner.canStart(room))

    def newTable(self, room: Room) -> ITable:
        """
        The kind's table, with the event's turn clock if it has one, and
        the stones of the pairing's opening (gomoku's) placed.
        """
        inner = self.inner
        if self.turnSeconds is not None:
            inner = inner.withOptions(self.options)
        table: ITable = inner.newTable(room)
        for stone in self.opening:
            # Before its start: its GameStarted's position has them.
            table.game.apply(table.game.currentSeat, stone)
        return table

    def memberLeft(self, lobby: ILobby, room: Room) -> None:
        # As the kind's policy would, with this one's canStart.
        startIfReady(self, lobby, room)


@implementer(IStartPolicy)
class FullTablePolicy:
    """
    A start policy that starts only once C{players} members are all
    ready, and is C{policy} otherwise (a tournament's Splendor or
    checkers table is played by the players paired, not by the first
    two or three ready).
    """

    #: Its players are paired: nobody else is seated at its rooms.
    openTable = False

    def __init__(self, policy: IStartPolicy, players: int) -> None:
        self.policy = policy
        self.players = players

    @property
    def autoStart(self) -> bool:
        return bool(self.policy.autoStart)

    @property
    def options(self) -> Any:
        return self.policy.options

    @property
    def playerCounts(self) -> FrozenSet[int]:
        counts: FrozenSet[int] = self.policy.playerCounts
        return counts

    def withOptions(self, options: Any) -> FullTablePolicy:
        return FullTablePolicy(self.policy.withOptions(options), self.players)

    def newTable(self, room: Room) -> ITable:
        table: ITable = self.policy.newTable(room)
        return table

    def canStart(self, room: Room) -> bool:
        return (len(room.members) == self.players
                and bool(self.policy.canStart(room)))

    def memberLeft(self, lobby: ILobby, room: Room) -> None:
        """
        A member left before the game: start if the rest are all the
        players, all ready (never, unless the room had one too many).
        """
        if (room.members and not room.running and not lobby.draining
                and lobby.room(room.kind, room.name) is room
                and self.canStart(room)):
            lobby.start(room)


#: The engines that are told a position (an opening): over standard
#: streams (a TCP engine's protocol, gomoku-battle's, cannot say one).
POSITIONED = ("gomocup", "stdio")


def openingFor(run: Any, game: Game) -> Tuple[Tuple[int, int], ...]:
    """
    The opening C{game} (a L{hub.tournaments.standings.Game}) of C{run}'s
    event (C{run} a L{hub.tournaments.director.RunningEvent}) starts
    from: none unless the event has openings and every seat is an engine
    over standard streams.  The pairs of entrants take the openings in
    turn, in the order they first meet; a pair's first and second game (a
    round robin's, colours swapped) share one, its third and fourth the
    next.
    """
    openings = run.event.openings
    if not openings or game.bye:
        return ()
    for name in game.seats:
        entrant = run.entrant(name)
        if (entrant is None or entrant.engine is None
                or entrant.engine.protocol not in POSITIONED):
            return ()
    pair = frozenset(game.seats)
    pairs: List[FrozenSet[str]] = []
    met = 0
    for key in sorted(run.games):
        other = run.games[key]
        if other.bye:
            continue
        seats = frozenset(other.seats)
        if seats not in pairs:
            pairs.append(seats)
        if key == (game.round, game.board):
            break
        if seats == pair:
            met += 1
    if pair not in pairs:
        pairs.append(pair)
    return tuple(openings[(pairs.index(pair) + met // 2) % len(openings)])
