"""
One finished game as the records keep it (L{GameRecord}), built from a
table's events by a L{RecordBuilder}.
"""

from __future__ import annotations

import importlib
import json
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union, cast

import attr

from hub.records import codec
from hub.tables import events
from hub.tables.actionlog import ActionLog
from hub.tables.events import ActionPlayed

# The kinds whose games are rated: Splendor's protocol carries no names.
RATED_KINDS = ("gomoku", "checkers")
# The end reasons of rated games: an abandoned game is not rated.
RATED_REASONS = (events.NORMAL, events.TIMEOUT, events.FORFEIT,
                 events.ILLEGAL)


@attr.s(frozen=True)
class SeatRecord:
    """
    One seat of a recorded game.

    @ivar seat: the seat number, from 0.
    @ivar name: the player's name (Splendor: C{"player 12"}).
    @ivar playerId: the player's session id in the hub that played it.
    @ivar role: the colour or region (JSON-able), or None.
    @ivar botClient: True if the player was a bot client.
    @ivar takeoverPly: how many actions had been played when a server-side
        bot took the seat over, or None.
    @ivar takeoverLevel: that bot's level, or None.
    @ivar place: 1 for the first, 2 for the next...; equal places tie;
        None when the game has no outcome (abandoned).
    @ivar rating: C{(muBefore, sigmaBefore, muAfter, sigmaAfter)} once
        the game was rated, else None.
    @ivar guest: True if the name was no account's (L{hub.accounts}).
    """

    seat: int = attr.ib()
    name: str = attr.ib()
    playerId: Optional[int] = attr.ib(default=None)
    role: Any = attr.ib(default=None)
    botClient: bool = attr.ib(default=False)
    takeoverPly: Optional[int] = attr.ib(default=None)
    takeoverLevel: Optional[int] = attr.ib(default=None)
    place: Optional[int] = attr.ib(default=None)
    rating: Optional[Tuple[float, float, float, float]] = attr.ib(
        default=None)
    guest: bool = attr.ib(default=False)


@attr.s(frozen=True)
class GameRecord:
    """
    One game, start to end.

    @ivar gameId: the record's number once stored, else None.
    @ivar kind: the game kind.
    @ivar table: the room's or table's name.
    @ivar startedAt: the start, in seconds since the epoch (UTC).
    @ivar endedAt: the end, likewise.
    @ivar reason: why it ended (L{hub.tables.events.END_REASONS}).
    @ivar winner: the winning seat, or None (a draw, no outcome).
    @ivar ranking: the seats from first to last (may be partial or empty).
    @ivar seats: the L{SeatRecord}s in seat order.
    @ivar position: the initial position (L{events.GameStarted.position}).
    @ivar events: the kept events in the JSON form of L{codec} (decoded
        from L{eventsText} when first read, if the record was made with
        that only).
    @ivar rated: True once the game changed ratings.
    @ivar actions: how many actions were played, when known (else
        L{actionCount} counts them).
    @ivar eventsText: L{events} in their stored form
        (L{codec.eventsText}), when the record was made with it, else
        None.
    @ivar event: the id of the tournament event (L{hub.tournaments}) the
        game was played for, or None.
    """

    gameId: Optional[int] = attr.ib()
    kind: str = attr.ib()
    table: str = attr.ib()
    startedAt: float = attr.ib()
    endedAt: float = attr.ib()
    reason: str = attr.ib()
    winner: Optional[int] = attr.ib()
    ranking: Sequence[int] = attr.ib()
    seats: Tuple[SeatRecord, ...] = attr.ib()
    position: Any = attr.ib()
    _events: Optional[List[Dict[str, Any]]] = attr.ib(repr=False)
    rated: bool = attr.ib(default=False)
    actions: Optional[int] = attr.ib(default=None, repr=False, eq=False)
    eventsText: Optional[str] = attr.ib(default=None, repr=False, eq=False)
    event: Optional[int] = attr.ib(default=None)

    @property
    def events(self) -> Optional[List[Dict[str, Any]]]:
        """
        The kept events in the JSON form of L{codec} (None in a history's
        records, which are read without them).
        """
        if self._events is None and self.eventsText is not None:
            # Frozen, but this only caches what eventsText says.
            object.__setattr__(self, "_events",
                               codec.eventsFromText(self.eventsText))
        return self._events

    def storedEvents(self) -> str:
        """
        L{events} as the text the database keeps: L{codec.eventsText},
        or for a record made with L{events} only, their JSON list (which
        L{codec.eventsFromText} reads as well).
        """
        if self.eventsText is not None:
            return self.eventsText
        return json.dumps(self._events, separators=(",", ":"))

    @property
    def actionCount(self) -> int:
        """
        How many actions were played.
        """
        if self.actions is not None:
            return self.actions
        kept = self.events
        assert kept is not None, "a record read without its events"
        return sum(1 for e in kept if e["type"] == "ActionPlayed")

    def tableEvents(self) -> List[object]:
        """
        The game as L{hub.tables.events}: the L{events.GameStarted} and
        every kept event, in order (actions without their C{detail}).
        """
        kept = self.events
        assert kept is not None, "a record read without its events"
        # A record's seat may lack the player's id (None), a table's not.
        seats = tuple(events.Seat(s.seat, s.name, cast(int, s.playerId),
                                  s.role, s.botClient, s.guest)
                      for s in self.seats)
        started = events.GameStarted(self.kind, self.table, seats,
                                     self.position, self.startedAt)
        return [started] + [codec.eventFromJSON(self.kind, e, self.startedAt)
                            for e in kept]

    def replay(self) -> Any:
        """
        The final rules state, rebuilt by the C{replay(events)} of the
        kind's table module (L{hub.tables}).
        """
        module = importlib.import_module("hub.tables." + self.kind)
        return module.replay(self.tableEvents())

    def isRateable(self) -> bool:
        """
        Whether storing this game updates ratings: a rated kind, a rated
        end reason, an outcome, two or more seats and no name twice.
        """
        names = [s.name for s in self.seats]
        return (self.kind in RATED_KINDS and self.reason in RATED_REASONS
                and len(names) >= 2 and len(set(names)) == len(names)
                and all(s.place is not None for s in self.seats))


def places(seatCount: int, reason: str, ranking: Sequence[int],
           winner: Optional[int]) -> List[Optional[int]]:
    """
    Each seat's place (1 first; ties share a place) from a game's outcome:
    the ranking if there is one (seats it leaves out share the last
    place), else the winner first and the others second, else (a draw)
    everyone first.  An abandoned game has no places (all None).
    """
    if reason == events.ABANDONED:
        return [None] * seatCount
    if ranking:
        result: List[Optional[int]] = [len(ranking) + 1] * seatCount
        for place, seat in enumerate(ranking, 1):
            result[seat] = place
        return result
    if winner is not None:
        return [1 if seat == winner else 2 for seat in range(seatCount)]
    return [1] * seatCount


class RecordBuilder:
    """
    Collects the events of one table from its L{events.GameStarted} and
    makes its L{GameRecord} when it ends.

    @ivar actions: the table's list of its actions (L{ITable.actions}),
        read at the end: the record keeps no copy of a move.
    @ivar others: the other events a record keeps, each with the number
        of actions before it.
    """

    def __init__(self, started: events.GameStarted,
                 actions: ActionLog) -> None:
        self.started = started
        self.actions = actions
        self.others: List[Tuple[int, object]] = []
        self.takeovers: Dict[int, Tuple[int, int]] = {}

    @property
    def kept(self) -> List[Union[codec.KeptAction, object]]:
        """
        The kept events in order, each action as its L{codec.KeptAction}.
        """
        actions = self.actions
        kept: List[Union[codec.KeptAction, object]] = []
        done = 0
        for count, event in self.others:
            kept.extend(actions[ply] for ply in range(done, count))
            done = count
            kept.append(event)
        kept.extend(actions[ply] for ply in range(done, len(actions)))
        return kept

    def add(self, event: object) -> None:
        """
        Keep C{event} if a record keeps its type, and it is not an action
        (the table keeps those); they are put in their JSON form at the
        end (L{finish}).
        """
        if type(event) is ActionPlayed or not codec.isKept(event):
            return
        played = len(self.actions)
        if isinstance(event, events.SeatTakenOver):
            self.takeovers.setdefault(event.seat, (played, event.level))
        self.others.append((played, event))

    def finish(self, ended: events.GameEnded) -> GameRecord:
        """
        The L{GameRecord} of the game that C{ended} (an
        L{events.GameEnded}, also kept as the last event).
        """
        self.add(ended)
        started = self.started
        seatPlaces = places(len(started.seats), ended.reason, ended.ranking,
                            ended.winner)
        offender = self.illegalOffender(ended)
        if offender is not None:
            seatPlaces = [2 if seat == offender else 1
                          for seat in range(len(started.seats))]
        seats = []
        for seat in started.seats:
            ply, level = self.takeovers.get(seat.index, (None, None))
            seats.append(SeatRecord(
                seat.index, seat.name, seat.playerId, seat.role,
                bool(seat.bot), ply, level, seatPlaces[seat.index],
                guest=bool(seat.guest)))
        return GameRecord(None, started.kind, started.table, started.at,
                          ended.at, ended.reason, ended.winner,
                          tuple(ended.ranking), tuple(seats),
                          started.position, None,
                          actions=len(self.actions),
                          eventsText=codec.columnsText(
                              started.kind, self.actions, self.others,
                              started.at))

    def illegalOffender(self, ended: events.GameEnded) -> Optional[int]:
        """
        The seat whose illegal moves ended the game (a gomoku game that
        C{ended} on the illegal-move limit, which has no winner), or None.
        Its rating counts the game as lost, the other seat's as won.
        """
        if (self.started.kind == "gomoku" and ended.reason == events.ILLEGAL
                and ended.winner is None and not ended.ranking):
            # Gomoku's seats alternate, black (seat 0) first: the seat to
            # move, which played the illegal moves, follows from the count.
            return len(self.actions) & 1
        return None

    def abandon(self, at: float) -> GameRecord:
        """
        The L{GameRecord} of a game cut short (the hub is stopping): ended
        at C{at}, abandoned.
        """
        return self.finish(events.GameEnded(events.ABANDONED, (), None, at))
