"""
The tournament director: runs the events of the database on one hub's
lobby and tables, transport-free, on an injected clock.

Every C{pollSeconds} (2 s) it reads the running and paused events
(L{store.activeEvents}), so a start, pause or resume written by the CLI
is picked up then.  It pairs each running event (L{formats}), stores the
pairings and opens one room per pairing
(L{hub.tournaments.interfaces.roomName}), whose policy starts the game
only with exactly the pairing's players; engines are started by the
L{IGameLauncher}.  As an L{ITableListener} it hears every table: no-show
deadlines, results (L{standings}) stored at once, and a restarted hub's
unfinished pairings played again: docs/tournaments.md, "How it runs".
"""

from __future__ import annotations

from collections import Counter
from typing import (
    Any, Callable, Dict, Generator, List, Optional, Sequence, Set, Tuple, cast)

import attr
from twisted.internet import defer
from twisted.internet.interfaces import IReactorTime
from twisted.internet.task import LoopingCall
from twisted.logger import Logger
from twisted.python.failure import Failure
from zope.interface import implementer

from hub.clock import loopingCall
from hub.ihub import ILobby, IStartPolicy, ITableListener
from hub.lobby import LobbyError
from hub.records import db
from hub.records.interfaces import IDatabase
from hub.tables import events as tableEvents
from hub.tournaments import formats, store
from hub.tournaments.interfaces import (
    EngineFailed, EngineSpec, EntrantInfo, EventInfo, IGameLauncher,
    IGameReadyListener, IPairings, ITournamentListener, PairingInfo, roomName)
from hub.tournaments.policy import POSITIONED, TournamentPolicy, openingFor
from hub.tournaments.standings import (
    Game, forfeitPoints, placementPoints, standings)

_Work = Generator[defer.Deferred[Any], Any, None]
POLL_SECONDS = 2.0
#: How long the players of a pairing have to start its game.
SHOW_SECONDS = 120.0
#: How long a room whose owner starts the game (gomoku) may wait, once
#: everyone is there and ready, before the director starts it.
START_GRACE = 5.0

#: Reasons stored with a result besides the tables' end reasons.
NO_SHOW = "no-show"
ENGINE_FAILED = "engine-failed"
WITHDRAWN = "withdrawn"


@attr.s(eq=False)
class LivePairing:
    """
    A pairing whose room is open.

    @ivar game: The pairing (no points yet).
    @ivar room: The lobby's room.
    @ivar deadline: The no-show call, until the game starts.
    @ivar table: The table once the game started.
    """

    eventId: int = attr.ib()
    game: Game = attr.ib()
    room: Any = attr.ib(default=None)
    deadline: Any = attr.ib(default=None)
    table: Any = attr.ib(default=None)
    seats: Optional[Tuple[str, ...]] = attr.ib(default=None)
    engines: bool = attr.ib(default=False)
    #: The seats' engines over standard streams (they never start a game).
    streams: Tuple[str, ...] = attr.ib(default=())
    starting: Any = attr.ib(default=None)
    toMove: Optional[int] = attr.ib(default=None)
    #: Session id -> entrant, of the browser players seated (Splendor).
    claims: Dict[int, str] = attr.ib(factory=dict)


@attr.s(eq=False)
class RunningEvent:
    """
    What the director keeps of an event it runs: the stored snapshot,
    kept up to date as it writes, and its live pairings.
    """

    event: store.Event = attr.ib()
    entrants: List[store.Entrant] = attr.ib()
    games: Dict[Tuple[int, int], Game] = attr.ib()
    live: Dict[Tuple[int, int], LivePairing] = attr.ib(factory=dict)
    lock: defer.DeferredLock = attr.ib(factory=defer.DeferredLock)
    #: An arena's tally of its games, once it paired.
    tally: Optional[formats.ArenaTally] = attr.ib(default=None)

    @property
    def info(self) -> EventInfo:
        return EventInfo(self.event.id, self.event.name, self.event.kind,
                         self.event.turnSeconds, self.event.turnMs,
                         self.event.matchMs, self.event.pondering)

    def active(self) -> List[str]:
        return [e.name for e in self.entrants if not e.withdrawn]

    def names(self) -> List[str]:
        return [e.name for e in self.entrants]

    def entrant(self, name: str) -> Optional[store.Entrant]:
        for entrant in self.entrants:
            if entrant.name == name:
                return entrant
        return None

    def finished(self) -> List[Game]:
        return [g for g in self.games.values() if g.points is not None]

    def roundGames(self, round: int) -> List[Game]:
        return sorted((g for g in self.games.values() if g.round == round),
                      key=lambda g: g.board)


@implementer(ITableListener, IPairings)
class Director:
    """
    Runs the database's tournament events on a lobby.

    @param database: The records' L{hub.records.db.Database}.
    @param lobby: The hub's L{hub.lobby.Lobby}.
    @param clock: The hub's L{hub.clock.TrackedClock}.
    @param policyFor: C{policyFor(kind)} gives the start policy of the
        kind's protocol (the adapter's; it makes tables).
    @param launcher: The L{IGameLauncher} of engine entrants, or None
        (an engine's games are then forfeited as failed starts).
    @param showSeconds: How long a pairing's players have to start.
    @param pollSeconds: How often the database is read.

    @ivar rooms: C{(kind, room name)} -> L{LivePairing}.
    @ivar tables: a pairing's table, while it plays -> L{LivePairing}.
    @ivar listeners: The L{ITournamentListener}s (L{addListener}).
    """

    log = Logger()

    def __init__(self, database: IDatabase, lobby: ILobby,
                 clock: IReactorTime,
                 policyFor: Callable[[str], IStartPolicy],
                 launcher: Optional[IGameLauncher] = None,
                 showSeconds: float = SHOW_SECONDS,
                 pollSeconds: float = POLL_SECONDS) -> None:
        self.database = database
        self.lobby = lobby
        self.clock = clock
        self.policyFor = policyFor
        self.launcher = launcher
        self.showSeconds = showSeconds
        self.pollSeconds = pollSeconds
        self.running: Dict[int, RunningEvent] = {}
        self.rooms: Dict[Tuple[str, str], LivePairing] = {}
        self.tables: Dict[Any, LivePairing] = {}
        self.listeners: List[ITournamentListener] = []
        self._loop: Optional[LoopingCall] = None
        self._stopped = False
        self._busy: Set[defer.Deferred[Any]] = set()
        # The pairings' games only: another game's move costs it nothing.
        lobby.addTableListener(
            self, follows=lambda room: (room.kind, room.name) in self.rooms)
        lobby.addWatcher(self)

    def addListener(self, listener: ITournamentListener) -> None:
        """
        Tell C{listener} of every change from now on; an
        L{IGameReadyListener} of every pairing's room opening too.
        """
        self.listeners.append(listener)

    # Running

    def start(self) -> None:
        """
        Poll the database now and every L{pollSeconds}.
        """
        self._stopped = False
        self._loop = loopingCall(self.clock, self._pollLogged)
        self._loop.start(self.pollSeconds, now=True)

    def stop(self) -> None:
        """
        Stop polling, cancel the deadlines and stop the engines (the
        games under way are cut off: a restarted hub plays them again).
        """
        self._stopped = True
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        for live in list(self.rooms.values()):
            self._close(live)
        self.rooms.clear()
        self.running.clear()

    def _pollLogged(self) -> defer.Deferred[Any]:
        d = self.poll()
        d.addCallbacks(self._polled, self._pollFailed)
        return d

    _unreachable = False

    def _polled(self, result: object) -> object:
        if self._unreachable:
            self._unreachable = False
            self.log.info("tournaments: the database answers again")
        return result

    def _pollFailed(self, failure: Failure) -> None:
        """
        A database that cannot be reached is said once (a warning), and
        the events wait for it; any other failure is logged as one.
        """
        if not failure.check(*db.unavailableErrors()):
            self.log.failure("tournaments: polling the database failed",
                             failure)
            return None
        if not self._unreachable:
            self._unreachable = True
            self.log.warn("tournaments: the database is unreachable "
                          "({error}); the events wait until it answers",
                          error=db.firstLine(failure.value))
        return None

    @defer.inlineCallbacks
    def poll(self) -> _Work:
        """
        Read the active events, follow their state, and advance each.
        """
        active = yield self.database.runInteraction(store.activeEvents)
        for event in active:
            if self._stopped:
                return
            run = self.running.get(event.id)
            if run is None:
                snap = yield self.database.runInteraction(
                    store.snapshot, event.id)
                run = RunningEvent(
                    snap.event, list(snap.entrants),
                    {(g.round, g.board): g for g in snap.games})
                self.running[event.id] = run
                self.log.info("tournament {id} ({name!r}) loaded at round "
                              "{round}", id=event.id, name=event.name,
                              round=event.currentRound)
            else:
                yield run.lock.run(self._refresh, run, event)
            yield self.advance(run)
        ids = {event.id for event in active}
        for eventId in list(self.running):
            if eventId not in ids and not self.running[eventId].live:
                del self.running[eventId]

    @defer.inlineCallbacks
    def _refresh(self, run: RunningEvent, event: store.Event) -> _Work:
        """
        Take the stored state (a pause, a resume) and entrants (entries,
        withdrawals) of C{run}'s event.
        """
        run.entrants = yield self.database.runInteraction(
            store.entrants, event.id)
        run.event = attr.evolve(event, currentRound=max(
            event.currentRound, run.event.currentRound))

    def advance(self, run: RunningEvent) -> defer.Deferred[Any]:
        """
        Do what is due for C{run}, one step at a time per event.
        """
        return run.lock.run(self._advance, run)

    @defer.inlineCallbacks
    def _advance(self, run: RunningEvent) -> _Work:
        if self._stopped or run.event.state == store.FINISHED:
            return
        if run.event.startedAt is None:
            problem = self._engineProblem(run)
            if problem is not None:
                if run.event.state != store.RUNNING:
                    return
                # Not begun: paused, until the operator fixes it and
                # resumes.
                self.log.warn("tournament {id} ({name!r}) cannot start: "
                              "{problem}", id=run.event.id,
                              name=run.event.name, problem=problem)
                run.event = yield self._write(store.requestState,
                                              run.event.id, "pause")
                self._changed(run)
                return
            run.event = yield self._write(store.begin, run.event.id)
        yield self._forfeitWithdrawn(run)
        fmt = run.event.format
        if fmt == formats.ARENA:
            yield self._advanceArena(run)
        else:
            yield self._advanceRounds(run)

    def _engineProblem(self, run: RunningEvent) -> Optional[str]:
        """
        Why the engines of C{run} cannot be started here (one line, the
        launcher's: its sandbox is missing), or None.
        """
        if not any(e.engine is not None and not e.withdrawn
                   for e in run.entrants):
            return None
        if self.launcher is None:
            return None
        return self.launcher.problem()

    @defer.inlineCallbacks
    def _advanceRounds(self, run: RunningEvent) -> _Work:
        event = run.event
        current = event.currentRound
        if current and any(g.points is None for g in run.roundGames(current)):
            # The round is under way (paused or not): (re)open what is
            # not open, the games a restart cut off included.
            self._openRound(run, current)
            return
        if current:
            yield self._write(store.finishRound, event.id, current)
        if event.state != store.RUNNING:
            return
        if event.format == formats.ROUND_ROBIN:
            if not run.games:
                schedule = formats.roundRobin(run.active(), event.tableSize)
                yield self._write(store.addPairings, event.id, schedule)
                for game in schedule:
                    run.games[(game.round, game.board)] = game
            last = max((g.round for g in run.games.values()), default=0)
        else:
            last = event.rounds or 0
        if current >= last:
            yield self._finish(run)
            return
        following = current + 1
        if event.format == formats.SWISS:
            pairings = formats.swissRound(run.active(), run.finished(),
                                          following, event.tableSize)
        else:
            pairings = []
        yield self._write(store.startRound, event.id, following, pairings)
        for game in pairings:
            run.games[(game.round, game.board)] = game
        run.event = attr.evolve(event, currentRound=following)
        self.log.info("tournament {id}: round {round} begins", id=event.id,
                      round=following)
        self._changed(run)
        self._openRound(run, following)
        if all(g.points is not None for g in run.roundGames(following)):
            yield self._advanceRounds(run)

    def _openRound(self, run: RunningEvent, round: int) -> None:
        out = {e.name for e in run.entrants if e.withdrawn}
        for game in run.roundGames(round):
            if game.points is not None or (round, game.board) in run.live:
                continue
            gone = [i for i, n in enumerate(game.seats) if n in out]
            if gone:
                # A withdrawn entrant's game is forfeited, not played.
                self._background(
                    self._result(run, game, game.seats,
                                 forfeitPoints(len(game.seats), gone),
                                 WITHDRAWN), run, "storing a forfeit")
            else:
                self._open(run, game)

    @defer.inlineCallbacks
    def _advanceArena(self, run: RunningEvent) -> _Work:
        event = run.event
        now = self.clock.seconds()
        if run.tally is None:
            run.tally = formats.ArenaTally(run.games.values())
        tally = run.tally
        # Cut-off games of a restart first.
        for key in sorted(tally.pending.difference(run.live)):
            self._open(run, run.games[key])
        if event.endsAt is not None and now >= event.endsAt:
            if not run.live:
                yield self._finish(run)
            return
        if event.state != store.RUNNING:
            return
        busy: Set[str] = set()
        for live in run.live.values():
            busy.update(live.game.seats)
        free = [n for n in run.active() if n not in busy]
        tables = formats.arenaPairings(free, tally.score,
                                       tally.lastOpponents, event.tableSize)
        if not tables:
            return
        following = event.currentRound + 1
        games = [Game(following, board, seats)
                 for board, seats in enumerate(tables, 1)]
        yield self._write(store.startRound, event.id, following, games)
        run.event = attr.evolve(event, currentRound=following)
        for game in games:
            run.games[(game.round, game.board)] = game
            tally.add(game)
            self._open(run, game)
        self._changed(run)

    @defer.inlineCallbacks
    def _forfeitWithdrawn(self, run: RunningEvent) -> _Work:
        out = {e.name for e in run.entrants if e.withdrawn}
        if not out:
            return
        for game in list(run.games.values()):
            key = (game.round, game.board)
            if (game.points is None and key not in run.live
                    and out.intersection(game.seats)
                    and game.round <= max(run.event.currentRound, 1)):
                seats = [i for i, n in enumerate(game.seats) if n in out]
                yield self._result(run, game, game.seats,
                                   forfeitPoints(len(game.seats), seats),
                                   WITHDRAWN)

    @defer.inlineCallbacks
    def _finish(self, run: RunningEvent) -> _Work:
        yield self._write(store.finish, run.event.id)
        run.event = attr.evolve(run.event, state=store.FINISHED)
        if self.launcher is not None:
            # Its Gomocup brains lived for the event: END.
            self.launcher.stopEvent(run.info)
        table = self.standings(run)
        self.log.info("tournament {id} ({name!r}) finished: {top!r}",
                      id=run.event.id, name=run.event.name,
                      top=[(s.name, s.points) for s in table[:3]])
        self._changed(run)

    def standings(self, run: RunningEvent) -> List[Any]:
        """
        The current standings of C{run}.
        """
        return standings(run.names(), list(run.games.values()),
                         run.event.tableSize)

    # Pairings

    def _open(self, run: RunningEvent, game: Game) -> None:
        """
        Open the room of C{game}, start its engines, and set its no-show
        deadline.
        """
        kind = run.event.kind
        name = roomName(run.event.id, game.round, game.board)
        live = LivePairing(run.event.id, game)
        run.live[(game.round, game.board)] = live
        self.rooms[(kind, name)] = live
        room = self.lobby.room(kind, name)
        if room is None:
            policy = TournamentPolicy(self.policyFor(kind), game.seats,
                                      run.event.turnSeconds,
                                      openingFor(run, game))
            settings = self._roomSettings(kind)
            try:
                room = self.lobby.openRoom(kind, name, policy,
                                           len(game.seats),
                                           settings=settings)
            except LobbyError as e:
                if self.lobby.draining:
                    # The hub is stopping: the game is played after the
                    # restart, not forfeited now.
                    del run.live[(game.round, game.board)]
                    del self.rooms[(kind, name)]
                    return
                self.log.warn("tournament {id}: cannot open room {room}: "
                              "{error!r}", id=run.event.id, room=name,
                              error=e)
        live.room = room
        live.deadline = self.clock.callLater(self.showSeconds, self._noShow,
                                             run, live)
        entrants = [EntrantInfo(n, (cast(store.Entrant,
                                         run.entrant(n)).engine
                                    if run.entrant(n) else None))
                    for n in game.seats]
        if any(e.isEngine for e in entrants):
            live.engines = True
            live.streams = tuple(
                e.name for e in entrants if e.isEngine
                and cast(EngineSpec, e.engine).protocol in POSITIONED)
            pairing = PairingInfo(run.event.id, game.round, game.board,
                                  game.seats)
            if self.launcher is None:
                failed = [i for i, e in enumerate(entrants) if e.isEngine]
                self._forfeitLater(run, live, failed, ENGINE_FAILED)
            else:
                d = defer.maybeDeferred(self.launcher.launch, run.info,
                                        pairing, entrants)
                d.addErrback(self._engineFailed, run, live)
        self.log.info("tournament {id}: room {room} opened for {seats!r}",
                      id=run.event.id, room=name, seats=list(game.seats))
        self._changed(run)
        self._ready(run, kind, name, game.seats)

    def _ready(self, run: RunningEvent, kind: str, room: str,
               seats: Sequence[str]) -> None:
        """
        Tell the L{IGameReadyListener}s (the browser players,
        L{hub.web.play}) that C{room} waits for its C{seats}.
        """
        for listener in list(self.listeners):
            if not IGameReadyListener.providedBy(listener):
                continue
            try:
                listener.gameReady(run.event.id, kind, room, tuple(seats))
            except Exception:
                self.log.failure("tournament game-ready listener failed")

    def _roomSettings(self, kind: str) -> Dict[str, Any]:
        if kind == "gomoku":
            from hub.tables.gomoku import OWNER_SEAT
            from hub.games import gomoku
            return {OWNER_SEAT: gomoku.SEAT_BLACK}
        return {}

    def _engineFailed(self, failure: Any, run: RunningEvent,
                      live: LivePairing) -> None:
        if failure.check(EngineFailed):
            names = {failure.value.name}
            why = failure.value.reason
        else:
            names = {n for n in live.game.seats
                     if (run.entrant(n)
                         and cast(store.Entrant, run.entrant(n)).engine)}
            why = failure.getErrorMessage()
        self.log.warn("tournament {id}: engine of {names!r} failed to "
                      "start for room {room}: {why}", id=run.event.id,
                      names=sorted(names), room=self._roomOf(run, live),
                      why=why)
        seats = [i for i, n in enumerate(live.game.seats) if n in names]
        self._forfeitLater(run, live, seats, ENGINE_FAILED)

    def _forfeitLater(self, run: RunningEvent, live: LivePairing,
                      seats: Sequence[int], reason: str) -> None:
        self._background(self._forfeit(run, live, seats, reason), run,
                         "storing a forfeit")

    def _forfeit(self, run: RunningEvent, live: LivePairing,
                 seats: Sequence[int], reason: str) -> defer.Deferred[Any]:
        if live.table is not None or not self._isLive(run, live):
            return defer.succeed(None)
        game = live.game
        self._close(live)
        return self._result(run, game, game.seats,
                            forfeitPoints(len(game.seats), seats), reason)

    def _noShow(self, run: RunningEvent, live: LivePairing) -> None:
        """
        The deadline passed without a game: whoever is not in the room
        forfeits.  If everyone is there (nobody started), the game is
        started now if the room allows, else nobody scores.
        """
        live.deadline = None
        if live.table is not None or not self._isLive(run, live):
            return
        present = set(live.room.names()) if live.room is not None else set()
        absent = [i for i, n in enumerate(live.game.seats)
                  if n not in present]
        if not absent and live.room is not None:
            try:
                self.lobby.start(live.room)
                return
            except LobbyError:
                absent = list(range(len(live.game.seats)))
        self._forfeitLater(run, live, absent, NO_SHOW)

    def _isLive(self, run: RunningEvent, live: LivePairing) -> bool:
        key = (live.game.round, live.game.board)
        return run.live.get(key) is live

    def _roomOf(self, run: RunningEvent, live: LivePairing) -> str:
        return roomName(run.event.id, live.game.round, live.game.board)

    def _close(self, live: LivePairing, ended: bool = False) -> None:
        """
        Forget C{live}: its deadline, its engines (which may leave by
        themselves first when its game C{ended}).
        """
        if live.deadline is not None and live.deadline.active():
            live.deadline.cancel()
        live.deadline = None
        if live.starting is not None and live.starting.active():
            live.starting.cancel()
        live.starting = None
        if self.tables.get(live.table) is live:
            del self.tables[live.table]
        run = self.running.get(live.eventId)
        if run is not None:
            key = (live.game.round, live.game.board)
            if run.live.get(key) is live:
                del run.live[key]
            kind = run.event.kind
            name = roomName(live.eventId, live.game.round, live.game.board)
            if self.rooms.get((kind, name)) is live:
                del self.rooms[(kind, name)]
        if live.engines and self.launcher is not None:
            pairing = PairingInfo(live.eventId, live.game.round,
                                  live.game.board, live.game.seats)
            try:
                if ended:
                    self.launcher.stop(pairing, ended=True)
                else:
                    self.launcher.stop(pairing)
            except Exception:
                self.log.failure("tournament {id}: stopping engines failed",
                                 id=live.eventId)

    @defer.inlineCallbacks
    def _result(self, run: RunningEvent, game: Game,
                seats: Sequence[str], gamePoints: Sequence[float],
                reason: str) -> _Work:
        done = Game(game.round, game.board, tuple(seats), tuple(gamePoints))
        old = run.games.get((game.round, game.board))
        run.games[(game.round, game.board)] = done
        if run.tally is not None:
            if old is None or old.points is None:
                run.tally.add(done)
            else:
                run.tally = None   # counted again at the next pairing
        yield self._write(store.saveResult, run.event.id, done, reason)
        self.log.info("tournament {id}: room {room} result {points!r} "
                      "({reason})", id=run.event.id,
                      room=roomName(run.event.id, game.round, game.board),
                      points=dict(zip(done.seats, done.points or ())),
                      reason=reason)
        self._changed(run)
        if not self._stopped and self.running.get(run.event.id) is run:
            # Queued behind the event's lock when this result was stored
            # from within an advance (a withdrawal's forfeit).
            self._background(self.advance(run), run, "advancing")

    def _background(self, d: defer.Deferred[Any], run: RunningEvent,
                    what: str) -> None:
        """
        Keep C{d} (work nobody waits for) until it is done, for
        L{whenIdle}; log its failure.
        """
        self._busy.add(d)

        def done(result: Any) -> None:
            self._busy.discard(d)
            if isinstance(result, Failure):
                self.log.failure("tournament {id}: {what} failed", result,
                                 id=run.event.id, what=what)

        d.addBoth(done)

    @defer.inlineCallbacks
    def whenIdle(self) -> _Work:
        """
        Wait until the results and advances under way are stored (for
        tests and for a stopping hub).
        """
        while self._busy:
            yield defer.DeferredList(list(self._busy))

    def _write(self, interaction: Any, *args: Any) -> defer.Deferred[Any]:
        return self.database.runInteraction(
            interaction, *args, self.clock.seconds(), write=True)

    def _changed(self, run: RunningEvent) -> None:
        for listener in list(self.listeners):
            try:
                listener.eventChanged(run.event.id)
            except Exception:
                self.log.failure("tournament listener failed")

    # The lobby's watcher

    def roomChanged(self, room: Any) -> None:
        """
        A gomoku pairing's first player to join owns the room: give the
        owner the colour the pairing planned.  A room whose owner starts
        the game (gomoku) and could start is started by the director after
        L{START_GRACE} if its owner has not (at once when the owner is an
        engine over standard streams, which never starts a game).
        """
        live = self.rooms.get((room.kind, room.name))
        if live is None or live.room is not room or room.running:
            return
        if (not room.policy.autoStart and live.starting is None
                and room.policy.canStart(room)):
            owner = room.owner
            wait = 0 if owner and owner.name in live.streams else START_GRACE
            live.starting = self.clock.callLater(wait, self._startRoom, live)
        if (room.kind != "gomoku" or room.owner is None
                or len(room.members) != 1):
            return
        from hub.tables.gomoku import OWNER_SEAT
        if room.owner.name in live.game.seats:
            room.settings[OWNER_SEAT] = live.game.seats.index(
                room.owner.name)

    def _startRoom(self, live: LivePairing) -> None:
        live.starting = None
        room = live.room
        if (room is None or room.running or live.table is not None
                or self.rooms.get((room.kind, room.name)) is not live):
            return
        if room.policy.canStart(room) and not self.lobby.draining:
            self.log.info("tournament {id}: room {room} started by the "
                          "director", id=live.eventId, room=room.name)
            try:
                self.lobby.start(room)
            except LobbyError:
                pass

    def roomClosed(self, room: Any) -> None:
        """
        A pairing's room closed before its game began (its players came
        and went): open it again while the deadline runs.
        """
        live = self.rooms.get((room.kind, room.name))
        if live is None or live.room is not room or live.table is not None:
            return
        if self._stopped:
            return
        try:
            live.room = self.lobby.openRoom(
                room.kind, room.name, room.policy, room.capacity,
                settings=self._roomSettings(room.kind))
        except LobbyError:
            live.room = None

    # ITableListener

    def tableEvent(self, table: Any, event: Any) -> None:
        """
        Follow the games of the pairings' rooms.
        """
        kind = type(event)
        if kind is tableEvents.ActionPlayed or kind is tableEvents.TurnStarted:
            # Who is to move, for a game of illegal moves that ends with
            # no winner (two seats: the other one moves next).
            live = self.tables.get(table)
            if live is not None and live.table is table:
                if kind is tableEvents.TurnStarted:
                    live.toMove = event.seat
                elif len(live.game.seats) == 2:
                    live.toMove = 1 - event.seat
        elif isinstance(event, tableEvents.GameStarted):
            self._started(table, event)
        elif isinstance(event, tableEvents.GameEnded):
            self._ended(table, event)

    def _started(self, table: Any, event: Any) -> None:
        live = self.rooms.get((event.kind, event.table))
        if live is None:
            return
        names = tuple(seat.name for seat in event.seats)
        launcher = self.launcher
        if Counter(names) != Counter(live.game.seats) and (
                launcher is not None or live.claims):
            # Splendor's seats are "player N": the launcher knows which
            # engine's connection each one is, the browser play which
            # logged-in entrant's.
            names = tuple(
                live.claims.get(seat.playerId)
                or (launcher is not None
                    and launcher.entrantOf(event.table, seat.playerId))
                or seat.name for seat in event.seats)
        if Counter(names) != Counter(live.game.seats):
            self.log.warn("tournament {id}: a game in room {room} seats "
                          "{names!r}, not the pairing's {seats!r}: not "
                          "counted", id=live.eventId, room=event.table,
                          names=list(names), seats=list(live.game.seats))
            return
        if live.deadline is not None and live.deadline.active():
            live.deadline.cancel()
        live.deadline = None
        live.table, self.tables[table] = table, live
        live.seats = names
        run = self.running.get(live.eventId)
        if run is not None:
            # Its page shows the live game.
            self._changed(run)

    def _ended(self, table: Any, event: Any) -> None:
        live = self.tables.pop(table, None)
        if live is None or live.table is not table:
            return
        run = self.running.get(live.eventId)
        if run is None:
            return
        seats = live.seats or live.game.seats
        if event.reason == tableEvents.ABANDONED:
            # Nobody finished it: play it again.
            self._close(live)
            self._open(run, live.game)
            return
        count = len(seats)
        if (count == 2 and event.reason == tableEvents.ILLEGAL
                and event.winner is None and live.toMove is not None):
            # Gomoku ends a game of illegal moves with no winner; in an
            # event the seat that made them (the one to move) forfeits.
            gamePoints: Tuple[float, ...] = forfeitPoints(2, [live.toMove])
        elif count == 2:
            if event.winner is None:
                gamePoints = (0.5, 0.5)
            else:
                gamePoints = placementPoints(
                    2, (event.winner, 1 - event.winner))
        else:
            gamePoints = placementPoints(count, event.ranking)
        reason = self._engineEnd(run, live, event.reason)
        self._close(live, ended=True)
        self._background(
            self._result(run, live.game, seats, gamePoints, reason),
            run, "storing a result")

    def _engineEnd(self, run: RunningEvent, live: LivePairing,
                   reason: str) -> str:
        """
        The result's reason of C{live}'s game that ended for C{reason}:
        a Gomocup brain's failure (C{time}, C{illegal}, C{error},
        C{crash}, C{start}) in place of the table's when one lost so;
        and the brains' C{ABOUT} kept with their entries.
        """
        if not live.engines or self.launcher is None:
            return reason
        room = self._roomOf(run, live)
        ends = self.launcher.endOf(run.event.id, room)
        for name, about in self.launcher.abouts(run.event.id).items():
            entrant = run.entrant(name)
            if about and entrant is not None and entrant.about != about:
                run.entrants[run.entrants.index(entrant)] = attr.evolve(
                    entrant, about=about)
                self._background(self._write(store.setAbout, run.event.id,
                                             name, about), run,
                                 "storing an ABOUT")
        if ends:
            return sorted(why for why, _ in ends.values())[0]
        return reason

    # Queries

    def eventOfRoom(self, kind: str, name: str) -> Optional[int]:
        """
        The id of the event whose pairing's room that is, or None (the
        recorder's C{eventOf}).
        """
        live = self.rooms.get((kind, name))
        return live.eventId if live is not None else None

    def waitingFor(self, name: str) -> List[Tuple[int, str, str, int]]:
        """
        The games of every running event whose rooms are open and wait
        for entrant C{name} (compared without case, as accounts are):
        C{(event id, kind, room, seat)}, by event and room.
        """
        from hub.accounts.names import nameKey
        key = nameKey(name)
        found = []
        for eventId, run in sorted(self.running.items()):
            for live in run.live.values():
                if live.table is not None:
                    continue
                for seat, entrant in enumerate(live.game.seats):
                    if nameKey(entrant) == key:
                        found.append((eventId, run.event.kind,
                                      self._roomOf(run, live), seat))
        return sorted(found)

    def pairingOf(self, kind: str, room: str) -> Optional[Tuple[str, ...]]:
        """
        The seats (entrants' names) of the pairing whose room C{room} of
        C{kind} is open and not yet playing, or None.
        """
        live = self.rooms.get((kind, room))
        if live is None or live.table is not None:
            return None
        return tuple(live.game.seats)

    def claim(self, kind: str, room: str, playerId: int, name: str) -> None:
        """
        Session C{playerId} at C{room} plays entrant C{name}: what a
        Splendor table (whose protocol carries no names) is told by the
        browser play of a logged-in entrant (L{hub.web.play}).
        """
        live = self.rooms.get((kind, room))
        if live is not None:
            live.claims[playerId] = name

    def roomFor(self, eventId: int, name: str) -> Optional[str]:
        """
        The room entrant C{name} should join now in event C{eventId}, or
        None.
        """
        run = self.running.get(eventId)
        if run is None:
            return None
        for live in run.live.values():
            if name in live.game.seats and live.table is None:
                return roomName(eventId, live.game.round, live.game.board)
        return None
