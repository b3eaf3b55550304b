"""
What the tables of every game kind share: options, refusals, the
listeners, the turn clock and the takeover of departed seats.

A table is the running game of one room.  It is given the room's seats,
the rules object (L{hub.games}), a clock and its L{TableOptions}; players'
actions come in through L{Table.act}, and everything that happens goes
out as L{hub.tables.events} to the table's L{ITableListener}s.  Nothing
here knows a wire format or a transport.
"""

from __future__ import annotations

import copy
import functools
import math
from typing import (
    Any, Callable, Dict, FrozenSet, Generator, Iterable, List, Optional,
    Set, Tuple, Type, TypeVar)

import attr
from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.logger import Logger
from zope.interface import implementer

from hub.tables.seatpilot import SeatPilot
from hub.ihub import (
    IGameRules, ILobby, IStartPolicy, ITable, ITableListener, IThinker, Room)
from hub.tables import events
from hub.tables.actionlog import ActionLog

_E = TypeVar("_E")
_G = TypeVar("_G")
_R = TypeVar("_R")
_P = TypeVar("_P", bound="OptionsCopied")


class TableError(Exception):
    """
    An action was refused; the subclass says why.  Adapters map each to
    their protocol's error reply.
    """


class GameIsOver(TableError):
    """
    The game has ended.
    """


class NotSeated(TableError):
    """
    The player has no seat at this table.
    """


class NotYourTurn(TableError):
    """
    Another seat is to act.
    """


class IllegalAction(TableError):
    """
    The rules refuse the action; the state is unchanged.
    """


def _inlineThinker() -> IThinker:
    from hub.thinkers.inline import InlineThinker
    thinker: IThinker = InlineThinker()
    return thinker


@attr.s(frozen=True)
class TableOptions:
    """
    How a table runs.

    @ivar turnSeconds: a turn's time limit, or None for no turn clock.
    @ivar turnGrace: seconds allowed past C{turnSeconds} for latency.
    @ivar takeover: C{"bot"} to have a bot play a departed seat, or None.
    @ivar botLevel: the strength of takeover bots (1 to 3).
    @ivar botDelay: seconds a takeover bot waits before each action.
    @ivar thinker: the L{hub.ihub.IThinker} the bots ask for their moves:
        the hub's pool of bot workers (L{hub.thinkers.pool.BotPool}),
        which C{hub.tap} passes; by default one that thinks in the
        caller's thread (L{hub.thinkers.inline.InlineThinker}), for tests
        and one-user programs.
    @ivar maxIllegal: illegal actions a seat may make before it loses
        (where the game has such a limit), or None.
    """

    turnSeconds: Optional[float] = attr.ib(default=None)
    turnGrace: float = attr.ib(default=0.0)
    takeover: Optional[str] = attr.ib(default=None)
    botLevel: int = attr.ib(default=2)
    botDelay: float = attr.ib(default=0.5)
    thinker: IThinker = attr.ib(factory=_inlineThinker, repr=False)
    maxIllegal: Optional[int] = attr.ib(default=None)


class Takeover:
    """
    The bots playing departed seats of one table, one L{SeatPilot} each:
    written once for every game kind.

    @ivar pilots: the pilot of each seat a bot plays.
    """

    def __init__(self, table: Table) -> None:
        self.table = table
        self.pilots: Dict[int, SeatPilot] = {}

    def __contains__(self, seat: int) -> bool:
        return seat in self.pilots

    def take(self, seat: int, seed: int,
             level: Optional[int] = None) -> None:
        """
        From now on a bot plays C{seat}; C{seed} makes it deterministic.

        @param level: the bot's strength (1 to 3), or None for the
            table's C{botLevel}.
        """
        table = self.table
        options = table.options
        if level is None:
            level = options.botLevel
        self.pilots[seat] = SeatPilot(table.clock, options.thinker,
                                      table.kind, level, seed,
                                      options.botDelay)
        table.emit(events.SeatTakenOver(seat, level, table.clock.seconds()))

    def release(self, seat: int) -> None:
        """
        C{seat} is back in human hands.
        """
        pilot = self.pilots.pop(seat, None)
        if pilot is not None:
            pilot.stop()

    def turn(self) -> None:
        """
        If a bot plays the seat to act, have it act after its delay
        (unless an action of that seat is already scheduled).
        """
        table = self.table
        game = table.game
        if table.over or game.isOver:
            return
        seat = game.currentSeat
        pilot = self.pilots.get(seat)
        if pilot is not None and not pilot.pending:
            pilot.turn(game, seat, functools.partial(table.botAct, seat))

    def stopAll(self) -> None:
        """
        The game is over: no bot acts any more.
        """
        for pilot in self.pilots.values():
            pilot.stop()


class OptionsCopied:
    """
    L{IStartPolicy.withOptions} of a game's own policy: a copy of it
    making its tables with other options.
    """

    options: TableOptions

    def withOptions(self: _P, options: TableOptions) -> _P:
        policy = copy.copy(self)
        policy.options = options
        return policy


def startIfReady(policy: IStartPolicy, lobby: ILobby, room: Room) -> None:
    """
    What a policy that starts by itself does when a member left C{room}
    before its game (L{IStartPolicy.memberLeft}): start the game if the
    members left may play it now.
    """
    if (policy.autoStart and room.members and not room.running
            and not lobby.draining
            and lobby.room(room.kind, room.name) is room
            and policy.canStart(room)):
        lobby.start(room)


@implementer(ITable)
class Table:
    """
    The base of every game kind's table.  Subclasses set C{kind}, and
    implement L{act}, L{drop}, L{position} and what starting a turn means.

    @ivar name: the table's (room's) name.
    @ivar seats: the L{events.Seat}s in seat order.
    @ivar game: the rules object.
    @ivar clock: an L{IReactorTime} (a L{hub.clock.TrackedClock} in the
        hub, so that stopping the hub cancels the table's timers).
    @ivar options: the L{TableOptions}.
    @ivar over: True once L{end} was called.
    @ivar ended: the L{events.GameEnded} once over.
    @ivar actions: the game's actions so far (L{ActionLog}, appended by
        L{playedAction}): the one copy of the moves, which listeners keep
        rather than copy.  An action's C{detail}, which the players heard
        when it was played, is not kept.
    @ivar takeover: the L{Takeover} of departed seats.
    @ivar departed: the seats whose players left for good (L{depart}).
    """

    # Every subclass names its game kind.
    kind: str = None  # type: ignore[assignment]
    log = Logger()

    def __init__(self, name: str, seats: Iterable[events.Seat],
                 game: IGameRules, clock: IReactorTime,
                 options: Optional[TableOptions] = None) -> None:
        self.name = name
        self.seats = tuple(seats)
        self.game = game
        self.clock = clock
        self.options = options if options is not None else TableOptions()
        self.listeners: List[ITableListener] = []
        # What each listener that hears only some events hears (by id),
        # and who is told each type of event, made at its first emit.
        self._hears: Dict[int, FrozenSet[type]] = {}
        self._told: Dict[type, Tuple[ITableListener, ...]] = {}
        self.over = False
        self.ended: Optional[events.GameEnded] = None
        self.actions = ActionLog()
        self.turnStarted: Optional[events.TurnStarted] = None
        self.turnStartedAt = 0
        self.takeover = Takeover(self)
        self.departed: Set[int] = set()
        self._turnCall: Optional[IDelayedCall] = None
        self._turnRings: Optional[Callable[[], object]] = None
        self._turnDeadline = 0.0

    def __repr__(self) -> str:
        return "<{} {!r}>".format(type(self).__name__, self.name)

    # Listeners

    def addListener(self, listener: ITableListener,
                    hears: Optional[Iterable[type]] = None) -> None:
        """
        Tell C{listener} of every later event, or with C{hears} of those
        of these types only: an event it does not hear costs it not even
        a call.  A listener already here keeps its place, and hears from
        now on what C{hears} says.
        """
        if listener not in self.listeners:
            self.listeners.append(listener)
        if hears is None:
            self._hears.pop(id(listener), None)
        else:
            self._hears[id(listener)] = frozenset(hears)
        self._told = {}

    def removeListener(self, listener: ITableListener) -> None:
        """
        Tell C{listener} nothing more.
        """
        if listener in self.listeners:
            self.listeners.remove(listener)
            self._hears.pop(id(listener), None)
            self._told = {}

    def _toldOf(self, kind: type) -> Tuple[ITableListener, ...]:
        """
        The listeners that hear events of type C{kind}, in their order.
        """
        hears = self._hears
        told = self._told[kind] = tuple(
            listener for listener in self.listeners
            if kind in hears.get(id(listener), (kind,)))
        return told

    def emit(self, event: object) -> None:
        """
        Tell every listener that hears it of C{event}; a failing listener
        is logged and the others still hear it.
        """
        told = self._told.get(type(event))
        if told is None:
            told = self._toldOf(type(event))
        for listener in told:
            try:
                listener.tableEvent(self, event)
            except Exception:
                self.log.failure(
                    "{kind} table {table!r}: listener {listener!r} failed "
                    "on {event}", kind=self.kind, table=self.name,
                    listener=listener, event=events.eventName(event))

    def now(self) -> float:
        """
        The clock's time.
        """
        return self.clock.seconds()

    def playedAction(self, seat: int, action: Any, byBot: bool,
                     detail: object, at: float) -> None:
        """
        Add an action to L{actions}, then tell of it (L{events.ActionPlayed}).
        """
        self.actions.append(seat, action, byBot, at)
        self.emit(events.ActionPlayed(seat, action, byBot, detail, at))

    # The game

    def position(self) -> Dict[str, Any]:
        """
        The initial position for L{events.GameStarted}, JSON-able.
        """
        raise NotImplementedError()

    def start(self) -> None:
        """
        Announce the game, then its first turn.
        """
        self.emit(events.GameStarted(self.kind, self.name, self.seats,
                                     self.position(), self.now()))
        self.startTurn()

    def startTurn(self) -> None:
        """
        Announce the turn of the seat to act (L{events.TurnStarted}),
        start its clock when the game has one, and let its bot act if a
        bot plays it.
        """
        seat = self.game.currentSeat
        deadline = None
        if self.options.turnSeconds is not None:
            deadline = (self.now() + self.options.turnSeconds
                        + self.options.turnGrace)
        self.announceTurn(events.TurnStarted(seat, deadline, self.now()))
        if deadline is not None:
            self.startClock(deadline - self.now(), self.timedOut)
        self.takeover.turn()

    def announceTurn(self, turn: events.TurnStarted) -> None:
        """
        Keep C{turn} as L{turnStarted}, with the number of actions before
        it, then tell of it.
        """
        self.turnStarted, self.turnStartedAt = turn, len(self.actions)
        self.emit(turn)

    def startClock(self, delay: float, f: Callable[[], object]) -> None:
        """
        Run C{f} in C{delay} seconds, replacing the running turn clock;
        an error in C{f} is logged and never reaches the reactor.

        A running clock that rings no later is kept, with the new
        deadline and C{f}: when it rings before the deadline it is set
        again for what is left.  So a move of a timed game makes no
        delayed call (0.26 µs, against 1.55 to cancel one and make
        another: C{bench/game_end.py}); a clock rings early at most once
        a turn's length.
        """
        now = self.clock.seconds()
        self._turnDeadline = now + delay
        self._turnRings = f
        call = self._turnCall
        if call is not None and call.active() and \
                call.getTime() <= self._turnDeadline:
            return
        self.stopClock()
        self._turnCall = self.clock.callLater(delay, self._ring)

    def _ring(self) -> None:
        self._turnCall = None
        now = self.clock.seconds()
        deadline = self._turnDeadline
        if now < deadline:
            # Rung for an earlier turn: set again, to ring at the deadline
            # or a hair before it (then again at once), never after.
            left = deadline - now
            while now + left > deadline:
                left = math.nextafter(left, 0.0)
            self._turnCall = self.clock.callLater(left, self._ring)
            return
        f = self._turnRings
        assert f is not None
        try:
            f()
        except Exception:
            self.log.failure("{kind} table {table!r}: {f} failed",
                             kind=self.kind, table=self.name,
                             f=getattr(f, "__name__", f))

    def stopClock(self) -> None:
        """
        Cancel the turn clock, if running.
        """
        if self._turnCall is not None:
            if self._turnCall.active():
                self._turnCall.cancel()
            self._turnCall = None

    def timedOut(self) -> None:
        """
        The seat to act ran out of time (games with a turn clock
        override this).
        """

    def checkTurn(self, seat: Optional[int]) -> int:
        """
        Refuse an action of C{seat} unless the game runs and C{seat} is to
        act.

        @raise GameIsOver: the game has ended.
        @raise NotSeated: C{seat} is not a seat of this table.
        @raise NotYourTurn: another seat is to act.
        @return: C{seat}, which is then an L{int}.
        """
        if self.over or self.game.isOver:
            raise GameIsOver()
        if seat is None or not 0 <= seat < len(self.seats):
            raise NotSeated(seat)
        if seat != self.game.currentSeat:
            raise NotYourTurn(self.game.currentSeat)
        return seat

    def act(self, seat: Optional[int], action: Any) -> None:
        """
        C{seat} plays C{action}.

        @raise TableError: a subclass saying why not.
        """
        raise NotImplementedError()

    def botAct(self, seat: int, action: Any) -> None:
        """
        The bot of C{seat} chose the legal C{action}: play it as the
        player's own would have been.
        """
        raise NotImplementedError()

    def drop(self, seat: int) -> None:
        """
        The player of C{seat} is gone for good.
        """
        raise NotImplementedError()

    def depart(self, seat: int) -> bool:
        """
        The player of C{seat} left for good: note it and tell the
        listeners (L{events.SeatDropped}); the game is abandoned once
        every seat has left.

        @return: True when the game goes on without that player, False
            when there is nothing more to do (the game is over, or the
            seat had left already).
        """
        if self.over or seat in self.departed:
            return False
        self.departed.add(seat)
        self.emit(events.SeatDropped(seat, self.now()))
        if len(self.departed) == len(self.seats):
            self.abandon()
            return False
        return True

    def takeOver(self, seat: int, seed: Optional[int] = None,
                 level: Optional[int] = None) -> None:
        """
        Have a bot play C{seat} from now on (L{events.SeatTakenOver}),
        acting at once if it is that seat's turn.

        @param level: the bot's strength (1 to 3), or None for the
            table's C{botLevel} (C{--bot-level}): a bot a player asked
            for plays at the level asked.
        """
        self.takeover.take(seat, seat if seed is None else seed, level)
        self.takeover.turn()

    def end(self, reason: str, ranking: Iterable[int] = (),
            winner: Optional[int] = None) -> None:
        """
        The game is over: stop the clock and the bots, and tell the
        listeners (L{events.GameEnded}).  Only the first call counts.
        """
        if self.over:
            return
        self.over = True
        self.stopClock()
        self.takeover.stopAll()
        self.ended = events.GameEnded(reason, tuple(ranking), winner,
                                      self.now())
        self.emit(self.ended)

    def abandon(self) -> None:
        """
        Everyone left: the game ends unfinished.
        """
        self.end(events.ABANDONED)

    def stop(self) -> None:
        """
        The server is stopping: cancel the turn clock and the bots; tell
        nobody.
        """
        self.stopClock()
        self.takeover.stopAll()


def runReplay(
        steps: Generator[Tuple[_G, events.ActionPlayed], None, _R],
        onAction: Optional[Callable[[_G, events.ActionPlayed], object]],
) -> _R:
    """
    Run a replay to its end: C{steps} is a table module's C{replaying}
    (which yields the game and the event after each action, and returns
    the final game), C{onAction(game, event)} is called at each step.
    """
    while True:
        try:
            game, event = next(steps)
        except StopIteration as stop:
            result: _R = stop.value
            return result
        if onAction is not None:
            onAction(game, event)


def replayed(game: Optional[_G]) -> _G:
    """
    The rules object a replay (the C{replay} of each table module) plays
    the next event on.

    @raise ValueError: when C{game} is None: no L{events.GameStarted} came
        first, and no position was given.
    """
    if game is None:
        raise ValueError("an event before the game's position")
    return game


@implementer(ITableListener)
class EventRecorder:
    """
    An L{hub.ihub.ITableListener} that keeps every event it hears, for
    tests and replays.

    @ivar events: the events, in order.
    """

    def __init__(self) -> None:
        self.events: List[object] = []

    def tableEvent(self, table: ITable, event: object) -> None:
        self.events.append(event)

    def ofType(self, eventType: Type[_E]) -> List[_E]:
        """
        The events of type C{eventType}, in order.
        """
        return [e for e in self.events if isinstance(e, eventType)]
