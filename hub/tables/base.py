"""
What the tables of every game kind share: options, refusals, the
listeners, the turn clock and the takeover of departed seats.

A table is the running game of one room.  It is given the room's seats,
the rules object (L{hub.games}), a clock and its L{TableOptions}; players'
actions come in through L{Table.act}, and everything that happens goes
out as L{hub.tables.events} to the table's L{ITableListener}s.  Nothing
here knows a wire format or a transport.
"""

import functools

import attr
from twisted.logger import Logger
from zope.interface import implementer

from hub.tables.seatpilot import SeatPilot
from hub.ihub import ITable, ITableListener
from hub.tables import events


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


def _defaultBots(kind, level, seed):
    from hub.bots import botFor
    return botFor(kind, level, seed=seed)


@attr.s(frozen=True)
class TableOptions:
    """
    How a table runs.

    @ivar turnSeconds: a turn's time limit, or None for no turn clock.
    @ivar turnGrace: seconds allowed past C{turnSeconds} for latency.
    @ivar takeover: C{"bot"} to have a bot play a departed seat, or None.
    @ivar botLevel: the strength of takeover bots (1 to 3).
    @ivar botDelay: seconds a takeover bot waits before each action.
    @ivar botFactory: C{botFactory(kind, level, seed)} returns an
        L{hub.ihub.IBot}; L{hub.bots.botFor} by default.
    @ivar maxIllegal: illegal actions a seat may make before it loses
        (where the game has such a limit), or None.
    """

    turnSeconds = attr.ib(default=None)
    turnGrace = attr.ib(default=0.0)
    takeover = attr.ib(default=None)
    botLevel = attr.ib(default=2)
    botDelay = attr.ib(default=0.5)
    botFactory = attr.ib(default=_defaultBots, repr=False)
    maxIllegal = attr.ib(default=None)


class Takeover:
    """
    The bots playing departed seats of one table, one L{SeatPilot} each:
    written once for every game kind.

    @ivar pilots: the pilot of each seat a bot plays.
    """

    def __init__(self, table):
        self.table = table
        self.pilots = {}

    def __contains__(self, seat):
        return seat in self.pilots

    def take(self, seat, seed):
        """
        From now on a bot plays C{seat}; C{seed} makes it deterministic.
        """
        table = self.table
        options = table.options
        bot = options.botFactory(table.kind, options.botLevel, seed)
        self.pilots[seat] = SeatPilot(table.clock, bot, options.botDelay)
        table.emit(events.SeatTakenOver(seat, options.botLevel,
                                        table.clock.seconds()))

    def release(self, seat):
        """
        C{seat} is back in human hands.
        """
        pilot = self.pilots.pop(seat, None)
        if pilot is not None:
            pilot.stop()

    def turn(self):
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

    def stopAll(self):
        """
        The game is over: no bot acts any more.
        """
        for pilot in self.pilots.values():
            pilot.stop()


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
    @ivar takeover: the L{Takeover} of departed seats.
    @ivar departed: the seats whose players left for good (L{depart}).
    """

    kind = None
    log = Logger()

    def __init__(self, name, seats, game, clock, options=None):
        self.name = name
        self.seats = tuple(seats)
        self.game = game
        self.clock = clock
        self.options = options if options is not None else TableOptions()
        self.listeners = []
        self.over = False
        self.ended = None
        self.takeover = Takeover(self)
        self.departed = set()
        self._turnCall = None

    def __repr__(self):
        return "<{} {!r}>".format(type(self).__name__, self.name)

    # Listeners

    def addListener(self, listener):
        """
        Tell C{listener} of every later event.
        """
        self.listeners.append(listener)

    def removeListener(self, listener):
        """
        Tell C{listener} nothing more.
        """
        if listener in self.listeners:
            self.listeners.remove(listener)

    def emit(self, event):
        """
        Tell every listener of C{event}; a failing listener is logged and
        the others still hear it.
        """
        for listener in list(self.listeners):
            try:
                listener.tableEvent(self, event)
            except Exception:
                self.log.failure(
                    "{kind} table {table!r}: listener {listener!r} failed "
                    "on {event}", kind=self.kind, table=self.name,
                    listener=listener, event=events.eventName(event))

    def now(self):
        """
        The clock's time.
        """
        return self.clock.seconds()

    # The game

    def position(self):
        """
        The initial position for L{events.GameStarted}, JSON-able.
        """
        raise NotImplementedError()

    def start(self):
        """
        Announce the game, then its first turn.
        """
        self.emit(events.GameStarted(self.kind, self.name, self.seats,
                                     self.position(), self.now()))
        self.startTurn()

    def startTurn(self):
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
        self.emit(events.TurnStarted(seat, deadline, self.now()))
        if deadline is not None:
            self.startClock(deadline - self.now(), self.timedOut)
        self.takeover.turn()

    def startClock(self, delay, f):
        """
        Run C{f} in C{delay} seconds, replacing the running turn clock;
        an error in C{f} is logged and never reaches the reactor.
        """
        self.stopClock()
        self._turnCall = self.clock.callLater(delay, self._ring, f)

    def _ring(self, f):
        self._turnCall = None
        try:
            f()
        except Exception:
            self.log.failure("{kind} table {table!r}: {f} failed",
                             kind=self.kind, table=self.name,
                             f=getattr(f, "__name__", f))

    def stopClock(self):
        """
        Cancel the turn clock, if running.
        """
        if self._turnCall is not None:
            if self._turnCall.active():
                self._turnCall.cancel()
            self._turnCall = None

    def timedOut(self):
        """
        The seat to act ran out of time (games with a turn clock
        override this).
        """

    def checkTurn(self, seat):
        """
        Refuse an action of C{seat} unless the game runs and C{seat} is to
        act.

        @raise GameIsOver: the game has ended.
        @raise NotSeated: C{seat} is not a seat of this table.
        @raise NotYourTurn: another seat is to act.
        """
        if self.over or self.game.isOver:
            raise GameIsOver()
        if seat is None or not 0 <= seat < len(self.seats):
            raise NotSeated(seat)
        if seat != self.game.currentSeat:
            raise NotYourTurn(self.game.currentSeat)

    def act(self, seat, action):
        """
        C{seat} plays C{action}.

        @raise TableError: a subclass saying why not.
        """
        raise NotImplementedError()

    def botAct(self, seat, action):
        """
        The bot of C{seat} chose the legal C{action}: play it as the
        player's own would have been.
        """
        raise NotImplementedError()

    def drop(self, seat):
        """
        The player of C{seat} is gone for good.
        """
        raise NotImplementedError()

    def depart(self, seat):
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

    def takeOver(self, seat, seed=None):
        """
        Have a bot play C{seat} from now on (L{events.SeatTakenOver}),
        acting at once if it is that seat's turn.
        """
        self.takeover.take(seat, seat if seed is None else seed)
        self.takeover.turn()

    def end(self, reason, ranking=(), winner=None):
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

    def abandon(self):
        """
        Everyone left: the game ends unfinished.
        """
        self.end(events.ABANDONED)

    def stop(self):
        """
        The server is stopping: cancel the turn clock and the bots; tell
        nobody.
        """
        self.stopClock()
        self.takeover.stopAll()


@implementer(ITableListener)
class EventRecorder:
    """
    An L{hub.ihub.ITableListener} that keeps every event it hears, for
    tests and replays.

    @ivar events: the events, in order.
    """

    def __init__(self):
        self.events = []

    def tableEvent(self, table, event):
        self.events.append(event)

    def ofType(self, eventType):
        """
        The events of type C{eventType}, in order.
        """
        return [e for e in self.events if isinstance(e, eventType)]
