"""
The Splendor table: the flow of one game of L{hub.games.splendor},
without transports, and the seating of Splendor players in the lobby.

L{SplendorSeats} seats players and handles departures,
L{SplendorStartPolicy} starts a table of 2 to 4 ready players (shuffled
into turn order, then the deal), and L{SplendorTable} plays the game,
retiring a departed seat (L{hub.games.splendor.SplendorGame.retire}) or
handing it to a bot.  Splendor has no turn clock.  What happens goes out
as the shared events of L{hub.tables.events} and the Splendor ones
defined here (L{DiscardRequired}, L{NobleOffered}, L{NobleAwarded},
L{TurnSkipped}); L{replay} rebuilds the game from the events alone.
The rules of seating, departures and events: docs/architecture.md,
"The layers" (the tables).
"""

from __future__ import annotations

import itertools
import random
from typing import (
    Any, Callable, Dict, Generator, Iterable, List, Mapping, Optional, Tuple)

import attr
from twisted.internet.interfaces import IReactorTime
from zope.interface import implementer

from hub.games import splendor as rules
from hub.games import splendor_moves as moves
from hub.ihub import (
    ILobby, IRoomObserver, ISeating, ISession, IStartPolicy, ITable,
    ITableListener, Room)
from hub.tables import events
from hub.tables.base import (
    IllegalAction, OptionsCopied, Table, TableOptions, replayed, runReplay,
    startIfReady)

KIND = "splendor"
CAPACITY = 4
MIN_PLAYERS = 2


@attr.s(frozen=True, slots=True)
class DiscardRequired:
    """
    C{seat} holds more than 10 tokens and must give back C{count} (only
    that seat's player is told).
    """

    seat: int = attr.ib()
    count: int = attr.ib()
    at: float = attr.ib()


@attr.s(frozen=True, slots=True)
class NobleOffered:
    """
    C{seat} qualifies for several C{nobles} and must choose one (only that
    seat's player is told).
    """

    seat: int = attr.ib()
    nobles: Tuple[int, ...] = attr.ib()
    at: float = attr.ib()


@attr.s(frozen=True, slots=True)
class NobleAwarded:
    """
    C{seat} got C{noble}: C{chosen} from an offer (after the
    L{events.ActionPlayed} of the choice), or by itself.
    """

    seat: int = attr.ib()
    noble: int = attr.ib()
    chosen: bool = attr.ib()
    at: float = attr.ib()


@attr.s(frozen=True, slots=True)
class TurnSkipped:
    """
    C{seat} had no legal action and passed (nobody is told).
    """

    seat: int = attr.ib()
    at: float = attr.ib()


#: What L{playedActions} lists: C{(seat, action, detail)}.
Played = Tuple[int, rules.Action, Optional[moves.OperationDone]]


def seatName(playerId: int) -> str:
    """
    The name of a Splendor player (the protocol has no names).
    """
    return "player {}".format(playerId)


def playedActions(ruled: Iterable[moves.RulesEvent]) -> List[Played]:
    """
    The actions the rules events C{ruled} report as played, in order: one
    C{(seat, action, detail)} per L{moves.OperationDone} and per chosen
    L{moves.NobleAwarded} (detail None).
    """
    played: List[Played] = []
    for event in ruled:
        if type(event) is moves.OperationDone:
            played.append((event.seat, event.action, event))
        elif type(event) is moves.NobleAwarded and event.chosen:
            played.append((event.seat,
                           rules.Action(rules.GET_NOBLE, event.noble), None))
    return played


class SplendorTable(Table):
    """
    One running Splendor game.

    @ivar rng: draws the seeds of takeover bots.
    """

    kind = KIND
    game: rules.SplendorGame

    def __init__(self, name: str, seats: Iterable[events.Seat],
                 game: rules.SplendorGame, clock: IReactorTime,
                 options: Optional[TableOptions] = None,
                 rng: Optional[random.Random] = None) -> None:
        Table.__init__(self, name, seats, game, clock, options)
        self.rng = rng if rng is not None else random.Random()
        self._deal = game.deal()

    def position(self) -> Dict[str, Any]:
        """
        The deal (L{rules.SplendorGame.deal}): nobles, face-up cards and
        the decks in order.
        """
        return self._deal

    def act(self, seat: Optional[int], action: Any) -> None:
        """
        The player of C{seat} plays C{action} (an L{rules.Action}).

        @raise hub.tables.base.TableError: a subclass saying why not.
        """
        self.play(self.checkTurn(seat), action, False)

    def botAct(self, seat: int, action: rules.Action) -> None:
        if not self.over and seat == self.game.currentSeat:
            self.play(seat, action, True)

    def play(self, seat: int, action: rules.Action, byBot: bool) -> None:
        """
        Apply C{action} and announce what it caused.

        @raise IllegalAction: the rules refuse it.
        """
        try:
            ruled = self.game.apply(seat, action)
        except rules.IllegalAction as e:
            raise IllegalAction(str(e))
        self.announce(ruled, byBot)

    def announce(self, ruled: List[moves.RulesEvent], byBot: bool) -> None:
        """
        Turn the rules events C{ruled} into table events, in order; a new
        turn is a L{Table.startTurn}, the game's end a L{Table.end}.
        """
        now = self.now()
        played = iter(playedActions(ruled))
        # Tested with type(event) is ..., which mypy does not narrow on.
        event: Any
        for event in ruled:
            kind = type(event)
            if kind is moves.OperationDone:
                seat, action, detail = next(played)
                self.playedAction(seat, action, byBot, detail, now)
            elif kind is moves.NewCard:
                self.emit(events.CardDealt(event.level, event.card, now))
            elif kind is moves.DiscardRequired:
                self.emit(DiscardRequired(event.seat, event.count, now))
            elif kind is moves.NobleOffered:
                self.emit(NobleOffered(event.seat, event.nobles, now))
            elif kind is moves.NobleAwarded:
                if event.chosen:
                    seat, action, detail = next(played)
                    self.playedAction(seat, action, byBot, detail, now)
                self.emit(NobleAwarded(event.seat, event.noble,
                                       event.chosen, now))
            elif kind is moves.TurnSkipped:
                self.emit(TurnSkipped(event.seat, now))
            elif kind is moves.NewTurn:
                self.startTurn()
            elif kind is moves.GameOver:
                self.finish()
        if not self.over:
            self.takeover.turn()

    def finish(self) -> None:
        """
        The rules ended the game: rank the seats still playing.  The
        reason is L{events.FORFEIT} when the others all left.
        """
        game = self.game
        playing = game.retired.count(False)
        ranking = [s for s in game.ranking() if not game.retired[s]]
        self.end(events.FORFEIT if playing < MIN_PLAYERS else events.NORMAL,
                 ranking, game.winner)

    def drop(self, seat: int) -> None:
        """
        The player of C{seat} left (L{events.SeatDropped}).  The last one
        leaving abandons the game; otherwise a bot takes the seat over
        (C{takeover="bot"}), or the seat retires
        (L{events.SeatEliminated} with L{events.FORFEIT}, then what the
        retirement caused).
        """
        if not self.depart(seat):
            return
        if self.options.takeover == "bot":
            self.takeOver(seat, self.rng.getrandbits(32))
        else:
            self.emit(events.SeatEliminated(seat, events.FORFEIT,
                                            self.now()))
            self.announce(self.game.retire(seat), True)


def restore(position: Mapping[str, Any]) -> rules.SplendorGame:
    """
    The game before its first move, from L{events.GameStarted}'s
    C{position}.
    """
    return rules.SplendorGame.fromDeal(position)


def replay(
        tableEvents: Iterable[object],
        game: Optional[rules.SplendorGame] = None,
        onAction: Optional[
            Callable[[rules.SplendorGame, events.ActionPlayed], object]
        ] = None,
) -> rules.SplendorGame:
    """
    Rebuild the final game from a table's events alone: restore the deal
    (or start from C{game}, the position before the events), apply every
    L{events.ActionPlayed}, retire every seat eliminated.

    @param onAction: called as C{onAction(game, event)} after each
        L{events.ActionPlayed}, played or settled (a replay's steps).
    @raise ValueError: if the events contradict each other (an action
        before any position included).
    """
    return runReplay(replaying(tableEvents, game), onAction)


def replaying(
        tableEvents: Iterable[object],
        game: Optional[rules.SplendorGame] = None,
) -> Generator[Tuple[rules.SplendorGame, events.ActionPlayed], None,
               rules.SplendorGame]:
    """
    L{replay} a step at a time: yields C{(game, event)} after each
    L{events.ActionPlayed}, played or settled, and returns the final
    game.
    """
    settling: List[Tuple[int, rules.Action]] = []
    for event in tableEvents:
        if isinstance(event, events.GameStarted):
            game = restore(event.position)
            settling = []
        elif isinstance(event, events.SeatEliminated):
            # The retirement settles a pending discard or noble choice by
            # itself; the ActionPlayed events that follow report it.
            settling.extend((seat, action) for seat, action, _ in
                            playedActions(replayed(game).retire(event.seat)))
        elif isinstance(event, events.ActionPlayed):
            game = replayed(game)
            if settling:
                if settling.pop(0) != (event.seat, event.action):
                    raise ValueError("a retirement settled otherwise")
            else:
                game.apply(event.seat, event.action)
            yield game, event
    if game is None:
        raise ValueError("no GameStarted event")
    return game


@implementer(IStartPolicy)
class SplendorStartPolicy(OptionsCopied):
    """
    A Splendor table starts by itself once 2 to 4 players are all ready.

    @param lobby: the L{hub.lobby.Lobby} of the rooms.
    @param clock: the tables' clock (the hub's tracked clock).
    @param rng: a L{random.Random} for the seating order, the deal and
        the takeover bots' seeds.
    @param options: the tables' L{TableOptions}.
    @param listenerFor: C{listenerFor(room, table)} returns the adapter's
        L{ITableListener} of a new table, or None.
    """

    autoStart = True
    playerCounts = frozenset(range(MIN_PLAYERS, CAPACITY + 1))
    openTable = True

    def __init__(
            self, lobby: ILobby, clock: IReactorTime, rng: random.Random,
            options: Optional[TableOptions] = None,
            listenerFor: Optional[
                Callable[[Room, SplendorTable], ITableListener]] = None,
    ) -> None:
        self.lobby = lobby
        self.clock = clock
        self.rng = rng
        self.options = options if options is not None else TableOptions()
        self.listenerFor = listenerFor

    def canStart(self, room: Room) -> bool:
        """
        2 to 4 members, every one ready.
        """
        return (MIN_PLAYERS <= len(room.members) <= CAPACITY
                and room.allReady)

    def memberLeft(self, lobby: ILobby, room: Room) -> None:
        """
        The rest may start now, if they are 2 or more, all ready.
        """
        startIfReady(self, lobby, room)

    def newTable(self, room: Room) -> SplendorTable:
        """
        Shuffle the members into turn order (each member's C{seat} is its
        seat number), deal, and make the table with the adapter's
        listener, then the L{RoomCloser} of C{room}.
        """
        members = list(room.members)
        self.rng.shuffle(members)
        seats: List[events.Seat] = []
        for index, member in enumerate(members):
            member.seat = index
            playerId = member.session.id
            seats.append(events.Seat(index, seatName(playerId), playerId))
        game = rules.SplendorGame(
            len(members), random.Random(self.rng.getrandbits(64)))
        table = SplendorTable(room.name, seats, game, self.clock,
                              self.options, self.rng)
        if self.listenerFor is not None:
            table.addListener(self.listenerFor(room, table))
        table.addListener(RoomCloser(self.lobby, room))
        return table


@implementer(ITableListener)
class RoomCloser:
    """
    Dissolves a Splendor room when its game ends (after the adapter told
    the players): the members may INIT again.
    """

    def __init__(self, lobby: ILobby, room: Room) -> None:
        self.lobby = lobby
        self.room = room

    def tableEvent(self, table: ITable, event: object) -> None:
        if isinstance(event, events.GameEnded):
            if self.room.table is table:
                self.lobby.endGame(self.room)
            self.lobby.dissolve(self.room)


#: The L{Room.settings} key of a table L{SplendorSeats.seatApart} made.
APART = "apart"


@implementer(ISeating)
class SplendorSeats:
    """
    Where Splendor players sit in the lobby, and what their departure
    does.

    @param lobby: the shared L{hub.lobby.Lobby}.
    @param policy: the L{SplendorStartPolicy} of every Splendor room.
    """

    # What new tables are called, before their number (the cluster makes
    # it unique across nodes).
    tablePrefix = "table-"

    def __init__(self, lobby: ILobby, policy: SplendorStartPolicy) -> None:
        self.lobby = lobby
        self.policy = policy
        self._tableNumbers = itertools.count(1)

    def openRoom(self) -> Optional[Room]:
        """
        The newest room that has not started and has room, or None.
        A room whose policy says it is no open table (C{openTable}
        false: a tournament pairing's, L{hub.tournaments}) is not one.
        """
        for room in reversed(self.lobby.rooms(KIND)):
            if (not room.running and len(room.members) < CAPACITY
                    and room.policy.openTable
                    and not room.settings.get(APART)):
                return room
        return None

    def seat(self, session: ISession, observer: IRoomObserver,
             preferred: Optional[str] = None) -> None:
        """
        Seat C{session} (told through C{observer}) at the open room, or at
        a new one.

        @param preferred: the name of the room to seat at if it is still
            open (the cluster chose it), else the open room is used.
        """
        room = self.lobby.room(KIND, preferred) if preferred else None
        if (room is None or room.running or len(room.members) >= CAPACITY
                or not room.policy.openTable
                or room.settings.get(APART)):
            room = self.openRoom()
        if room is None:
            self.lobby.createRoom(KIND, self.newName(), session, observer,
                                  self.policy, CAPACITY)
        else:
            self.lobby.join(KIND, room.name, session, observer)

    def seatApart(self, session: ISession, observer: IRoomObserver) -> Room:
        """
        Seat C{session} at a new table of its own, which L{seat} never
        seats anyone at (a game against bots, who join it next).
        """
        room = self.lobby.createRoom(KIND, self.newName(), session,
                                     observer, self.policy, CAPACITY)
        room.settings[APART] = True
        return room

    def newName(self) -> str:
        """
        The name of a new table.
        """
        return "{}{}".format(self.tablePrefix, next(self._tableNumbers))

    def leave(self, session: ISession) -> None:
        """
        C{session} is gone: it leaves its room (the others are told
        nothing).  Before the game the rest may now start (as the room's
        own policy says: any room of the kind, the tournaments' too);
        during it the table drops the seat.
        """
        room = self.lobby.roomOf(session)
        if room is None:
            return
        member = room.memberOf(session)
        table = room.table
        self.lobby.leave(session)
        if table is not None:
            table.drop(member.seat)
        else:
            room.policy.memberLeft(self.lobby, room)
