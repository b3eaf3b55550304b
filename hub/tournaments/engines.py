"""
The engine runner of tournaments: for each game, the registered engines
(L{hub.tournaments.catalog}) of its entrants, each in its sandbox
(L{hub.sandbox}), each reaching one private listener of the hub's with
the hub's protocol factory for the game's kind, so that the director
knows which connection is which entrant (Splendor's protocol carries no
name).  It fills the command's placeholders C{{host} {port} {room}
{name} {key}} argument by argument (no shell), puts the documented
C{GAMEHUB_*} values in its environment (L{hub.tournaments.commands}),
logs its output to a bounded per-game log (L{hub.tournaments.gamelog})
with its key masked, and kills its whole tree when its game stops (after
a short leave when the game ended).

The director's contract is L{hub.tournaments.interfaces.IGameLauncher};
docs/tournaments.md says the rest (keys, limits, start turns).
"""

import os
import time
from typing import (
    Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union,
    cast)

from twisted.application.service import Service
from twisted.internet import defer, error
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import (
    IAddress, IDelayedCall, IReactorProcess, IReactorTime)
from twisted.internet.protocol import Factory, ProcessProtocol
from twisted.logger import Logger
from twisted.python.failure import Failure
from zope.interface import implementer

from hub.accounts.interfaces import INameService
from hub.ihub import IClusterPeer, IGameFactory
from hub.lobby import LobbyError
from hub.sandbox.confine import WORK, Confinement, Limits, NotAllowed
from hub.tournaments import brains as streams, gomocup
from hub.tournaments.entrantnames import EntrantNames
from hub.tournaments.commands import HOST, environment, substitute
from hub.tournaments.gamelog import LOG_CAP, GameLog, fromPathPart, gamePath
from hub.tournaments.interfaces import (
    EngineFailed, EngineSpec, EntrantInfo, EventInfo, IGameLauncher,
    PairingInfo)
from hub.tournaments.policy import FullTablePolicy

#: The port an engine connects to in its sandbox: its game's usual one
#: (under C{--engine-sandbox none}, its private listener's, any).
ENGINE_PORTS = {"gomoku": 11011, "checkers": 16666, "splendor": 13204}

#: Seconds between an engine's SIGTERM and its SIGKILL.
KILL_GRACE = 5.0
#: Seconds the engines of a game that ended have to leave by themselves
#: (they have its last message to read) before their SIGTERM.
LEAVE_SECONDS = 5.0
#: Seconds an engine has to connect after it is spawned.
START_SECONDS = 60.0
#: The game kinds whose protocols carry names (and so keys).
KEYED_KINDS = ("gomoku", "checkers")


class EngineProcess(ProcessProtocol):
    """
    One engine's process: its output to its L{GameLog} (read no more
    past the log's cap), its end to its L{EngineSeat}; its transport is
    its sandbox's (L{hub.sandbox.process.TreeTransport}): a signal
    reaches all it started.

    @ivar ended: a Deferred firing with the text of how it ended.
    @ivar outputSeen: a Deferred firing at its first output.
    @ivar stopping: True once the runner began to kill it.
    """

    #: a sandbox's TreeTransport (L{hub.sandbox} is not typed yet)
    transport: Any

    def __init__(self, seat: "EngineSeat", log: GameLog,
                 clock: IReactorTime, grace: float) -> None:
        self.seat = seat
        self.log = log
        self.clock = clock
        self.grace = grace
        self.running = False
        self.stopping = False
        self.paused = False
        self.ended: Deferred[str] = defer.Deferred()
        self.outputSeen: Deferred[None] = defer.Deferred()
        self._kill: Optional[IDelayedCall] = None
        self._leave: Optional[IDelayedCall] = None

    def connectionMade(self) -> None:
        self.running = True
        self.transport.closeStdin()

    def outReceived(self, data: bytes) -> None:
        self.log.write(data)
        if not self.outputSeen.called:
            self.outputSeen.callback(None)
        if self.log.dropped and not self.paused:
            # Past the cap: no more reading (and no more of the
            # reactor's time) for it.
            self.paused = True
            self.transport.pauseProducing()

    errReceived = outReceived

    def processExited(self, reason: Failure) -> None:
        if self.paused:
            # What is left in its pipes is read (and dropped) to their
            # end.
            self.transport.resumeProducing()

    def processEnded(self, reason: Failure) -> None:
        self.running = False
        for call in (self._kill, self._leave):
            if call is not None and call.active():
                call.cancel()
        self._kill = self._leave = None
        text, failed = self.transport.endText(reason)
        self.log.close("{} ({})".format(
            text, "stopped by the runner" if self.stopping else "by itself"))
        self.seat.processEnded(self, text, failed and not self.stopping)
        self.ended.callback(text)

    def kill(self, leave: float = 0) -> Deferred[str]:
        """
        C{SIGTERM} its tree now, or after C{leave} seconds if it has
        not ended by itself by then, and C{SIGKILL} after the grace.

        @return: L{ended}.
        """
        if not self.running or self.stopping:
            return self.ended
        if leave:
            if self._leave is None:
                self._leave = self.clock.callLater(leave, self._terminate)
        else:
            if self._leave is not None and self._leave.active():
                self._leave.cancel()
            self._terminate()
        return self.ended

    def _terminate(self) -> None:
        self._leave = None
        if not self.running or self.stopping:
            return
        self.stopping = True
        self._signal("TERM")
        self._kill = self.clock.callLater(self.grace, self._signal, "KILL")

    def _signal(self, name: str) -> None:
        self._kill = None
        if not self.running:
            return
        try:
            self.transport.signalProcess(name)
        except error.ProcessExitedAlready:
            pass


class EngineFactory(Factory):
    """
    The factory of one engine's private listener: builds the hub's
    protocol for the game's kind with C{door} (the kind's factory's
    L{IGameFactory.engineDoor}: over the shared lobby and sessions, and
    never refused by address), and tells the L{EngineSeat}.
    """

    def __init__(self, door: IGameFactory, seat: "EngineSeat") -> None:
        self.door = door
        self.seat = seat

    def buildProtocol(self, addr: Optional[IAddress]) -> Any:
        protocol = self.door.buildProtocol(addr)
        self.seat.connected(protocol)
        return protocol


class RoomSeats:
    """
    The seats of a Splendor factory whose players all sit at one room,
    C{room} (created by the first, with a L{FullTablePolicy} of
    C{players}), instead of the open table: a Splendor engine's game.

    @param seats: the hub's L{hub.tables.splendor.SplendorSeats}.
    """

    log = Logger()

    def __init__(self, seats: Any, room: str, players: int) -> None:
        self.seats = seats
        self.lobby = seats.lobby
        self.room = room
        self.players = players

    def seat(self, session: Any, observer: Any,
             preferred: object = None) -> None:
        from hub.tables.splendor import KIND
        room = self.lobby.room(KIND, self.room)
        try:
            if room is None:
                self.lobby.createRoom(
                    KIND, self.room, session, observer,
                    FullTablePolicy(self.seats.policy, self.players),
                    self.players)
            else:
                self.lobby.join(KIND, self.room, session, observer)
        except LobbyError as e:
            self.log.info("engine not seated at {room}: {error!r}",
                          room=self.room, error=e)
            observer.transport.loseConnection()

    def leave(self, session: Any) -> None:
        """
        As the hub's seats: see L{hub.tables.splendor.SplendorSeats.leave}.
        """
        self.seats.leave(session)


class EngineSeat:
    """
    One engine entrant of one game: its private listener, its process,
    its connections.

    @ivar name: the entrant's name.
    @ivar engine: its L{hub.tournaments.interfaces.EngineSpec}.
    @ivar listener: its private listener (L{hub.sandbox.process.
        Listener}), once listening.
    @ivar process: its L{EngineProcess}, once spawned.
    @ivar protocols: the hub protocols of its connections, in order.
    """

    def __init__(self, game: "EngineGame", entrant: EntrantInfo) -> None:
        assert entrant.engine is not None
        self.game = game
        self.entrant = entrant
        self.name = entrant.name
        self.engine: EngineSpec = entrant.engine
        self.listener: Any = None
        self.process: Optional[EngineProcess] = None
        self.protocols: List[IClusterPeer] = []

    @property
    def protocol(self) -> Any:
        """
        The protocol of its latest connection, or None.
        """
        return self.protocols[-1] if self.protocols else None

    def connected(self, protocol: Any) -> None:
        self.protocols.append(protocol)
        self.game.seatConnected(self)

    def processEnded(self, process: EngineProcess, text: str,
                     failed: bool) -> None:
        self.game.seatEnded(self, text, failed)


class EngineGame:
    """
    The engines of one pairing.

    @ivar started: a Deferred firing with this game once every engine
        connected, or failing with L{EngineFailed}.
    @ivar seats: the L{EngineSeat}s by entrant name, in seat order.
    """

    def __init__(self, launcher: "EngineLauncher",
                 event: Union[EventInfo, int], pairing: PairingInfo,
                 kind: str) -> None:
        self.launcher = launcher
        self.event = event
        self.eventId = cast(int, getattr(event, "id", event))
        self.pairing = pairing
        self.room = pairing.room
        self.kind = kind
        self.seats: Dict[str, EngineSeat] = {}
        self.started: Deferred[EngineGame] = defer.Deferred()
        self.stopped = False
        self._timeout: Optional[IDelayedCall] = None
        #: the name check's L{hub.accounts.check.GameKeys}, or None
        self.gameKeys: Any = None
        self._startTurn: Optional[Callable[[], object]] = None

    def holdStartTurn(self, release: Callable[[], object]) -> None:
        """
        This game's engines hold one of the launcher's start turns
        (L{EngineLauncher.starting}); C{release} gives it back, once,
        when they all connected, failed to, or the game stopped.
        """
        self._startTurn = release
        self.started.addBoth(self.releaseStartTurn)

    def releaseStartTurn(self, result: Any = None) -> Any:
        """
        Give the start turn back, if this game holds it; C{result} passes
        through (a callback of L{started}).
        """
        release, self._startTurn = self._startTurn, None
        if release is not None:
            release()
        return result

    def seatConnected(self, seat: EngineSeat) -> None:
        if self.started.called or self.stopped:
            return
        if all(s.protocols for s in self.seats.values()):
            self._cancelTimeout()
            self.started.callback(self)

    def seatEnded(self, seat: EngineSeat, text: str, failed: bool) -> None:
        if self.stopped:
            return
        if not self.started.called:
            if not seat.protocols or failed:
                self.fail(seat, "{} before its game began".format(text))
        elif failed:
            self.launcher.crashed(self, seat, text)

    def fail(self, seat: EngineSeat, reason: str) -> None:
        """
        Fail the launch for C{seat}'s entrant (kill its engine).
        """
        self.launcher.log.info(
            "engine {name} of {room} failed to start: {reason}",
            name=seat.name, room=self.room, reason=reason)
        if seat.process is not None:
            seat.process.kill()
        if not self.started.called:
            self._cancelTimeout()
            self.started.errback(EngineFailed(seat.name, reason))

    def startTimer(self, seconds: float) -> None:
        self._timeout = self.launcher.clock.callLater(seconds,
                                                      self._timedOut,
                                                      seconds)

    def _timedOut(self, seconds: float) -> None:
        self._timeout = None
        for seat in self.seats.values():
            if not seat.protocols:
                self.fail(seat, "not connected within {:g}s".format(
                    seconds))
                return

    def _cancelTimeout(self) -> None:
        if self._timeout is not None and self._timeout.active():
            self._timeout.cancel()
        self._timeout = None

    def stop(self, leave: float = 0) -> Deferred[Any]:
        """
        Close the private listeners and kill the engines (after
        C{leave} seconds, if they are still there).

        @return: a Deferred firing once they are closed and gone.
        """
        self.stopped = True
        self._cancelTimeout()
        self.releaseStartTurn()
        waits: List[Deferred[Any]] = []
        for seat in self.seats.values():
            if self.gameKeys is not None:
                self.gameKeys.revoke(self.room, seat.name)
            if seat.listener is not None:
                waits.append(seat.listener.stopListening())
            if seat.process is not None:
                waits.append(seat.process.kill(leave))
        return defer.DeferredList(waits, consumeErrors=True)


@implementer(IGameLauncher)
class EngineLauncher(Service):
    """
    Starts the engines of tournament games and stops them (see the
    module's docstring; the director's C{IGameLauncher}).  Stopping the
    service stops every game's engines.

    @param clock: an L{IReactorTime} for the kill grace, the leave and
        the start timeout (the hub's clock).
    @param factories: the hub's protocol factories by game kind
        (C{gomoku}, C{checkers}, C{splendor}; L{hub.tap.makeFactories}'
        C{KIND-port} keys are accepted too), over the hub's lobby and
        sessions, not the cluster's gates.
    @param sandbox: what engines run in (L{hub.sandbox.process}'s
        L{BwrapSandbox<hub.sandbox.process.BwrapSandbox>} or
        L{NoSandbox<hub.sandbox.process.NoSandbox>}).
    @param logRoot: the folder of the engines' game logs.
    @param limits: the L{Limits} of every engine, but for the CPU and
        memory its registration gives.
    @param logCap: bytes of one game log.
    @param grace: seconds from C{SIGTERM} to C{SIGKILL}.
    @param leaveSeconds: seconds the engines of a game that ended have
        to exit by themselves.
    @param startSeconds: seconds an engine has to connect.
    @param startingAtOnce: how many games' engines may be starting at
        once (spawned, not yet all connected); the others wait their
        turn, so that a Swiss round or an arena of 64 engines does not
        start 64 interpreters at once on a small machine, where the first
        ones time out before the hub can answer them.  Default: twice
        the CPUs.
    @param onCrash: called as C{onCrash(pairing, name, reason)} when an
        engine dies mid-game by itself (non-zero status, or a signal).
    @param brainRestarts: new processes a Gomocup brain may get after
        crashes in one event.
    @ivar brains: the L{gomocup.BrainRunner} of Gomocup brains (seated
        through the gomoku factory's lobby and sessions), or None with
        no gomoku factory.
    """

    log = Logger()

    def __init__(self, reactor: IReactorProcess, clock: IReactorTime,
                 factories: Mapping[str, Any], sandbox: Any, logRoot: str,
                 limits: Optional[Limits] = None, logCap: int = LOG_CAP,
                 grace: float = KILL_GRACE,
                 leaveSeconds: float = LEAVE_SECONDS,
                 startSeconds: float = START_SECONDS,
                 onCrash: Optional[Callable[[PairingInfo, str, str],
                                            object]] = None,
                 startingAtOnce: Optional[int] = None,
                 brainRestarts: int = gomocup.RESTARTS) -> None:
        self.reactor = reactor
        self.clock = clock
        self.factories = {kind[:-len("-port")] if kind.endswith("-port")
                          else kind: factory
                          for kind, factory in factories.items()}
        self.sandbox = sandbox
        self.logRoot = logRoot
        self.limits = Limits() if limits is None else limits
        self.logCap = logCap
        self.grace = grace
        self.leaveSeconds = leaveSeconds
        self.startSeconds = startSeconds
        self.onCrash = onCrash
        self.games: Dict[str, EngineGame] = {}
        self._probing: Deferred[None] = defer.succeed(None)
        #: The start turns (L{startingAtOnce}).
        self.starting = defer.DeferredSemaphore(
            startingAtOnce or 2 * (os.cpu_count() or 1))
        hubs = list(self.factories.values())
        self.brains: Optional[streams.BrainRunner] = None
        if hubs:
            self.brains = streams.BrainRunner(
                clock, hubs[0].lobby, hubs[0].sessions, self._spawnBrain,
                self._openLog, streams.timeControl, WORK, brainRestarts,
                grace=grace)

    def startService(self) -> None:
        """
        Find out, once, whether the sandbox works here, and say so.
        """
        Service.startService(self)
        d = self.sandbox.probe()

        def said(problem: Optional[str]) -> None:
            if problem is None:
                self.log.info("engine sandbox: {sandbox}",
                              sandbox=self.sandbox.describe())
            else:
                self.log.warn("engine sandbox: {problem}", problem=problem)
        self._probing = d.addCallback(said)

    def problem(self) -> Optional[str]:
        """
        Why no engine can be started now (one line), or None.
        """
        problem: Optional[str] = self.sandbox.problem()
        return problem

    # IGameLauncher

    def launch(self, event: EventInfo, pairing: PairingInfo,
               entrants: Sequence[EntrantInfo]) -> Deferred[EngineGame]:
        """
        Start every engine among C{entrants} for C{pairing}.

        @return: a Deferred firing with the L{EngineGame} once each engine
            connected to its private listener (at once if there is no
            engine), or failing with L{EngineFailed}.
        """
        kind = getattr(pairing, "kind", None) or getattr(event, "kind")
        game = EngineGame(self, event, pairing, kind)
        engines = [e for e in entrants
                   if getattr(e, "engine", None) is not None]
        if not engines:
            return defer.succeed(game)
        brains = [e for e in engines
                  if cast(EngineSpec, e.engine).protocol in streams.PROTOCOLS]
        if brains:
            unseated = self._seatBrains(event, pairing, game, brains)
            if unseated is not None:
                return unseated
            engines = [e for e in engines if e not in brains]
            if not engines:
                game.started.callback(game)
                return game.started
        names = [e.name for e in engines]
        if len(set(names)) != len(names):
            return defer.fail(EngineFailed(
                names[0], "an entrant is seated twice in {}".format(
                    pairing.room)))
        if self.games.get(pairing.room, game) is not game:
            return defer.fail(EngineFailed(
                engines[0].name, "game {} is running already".format(
                    pairing.room)))
        factory = self.factories.get(kind)
        if factory is None:
            return defer.fail(EngineFailed(
                engines[0].name, "no {} port to play on".format(kind)))
        for entrant in engines:
            assert entrant.engine is not None
            refused = self._refusal(entrant.engine)
            if refused is not None:
                return defer.fail(EngineFailed(entrant.name, refused))
        self.games[pairing.room] = game
        replaced: Dict[str, Any] = {}
        if kind == "splendor":
            # No rooms in the protocol: seated at the pairing's.
            replaced["seats"] = RoomSeats(factory.seats, pairing.room,
                                          len(entrants))
        elif kind == "checkers":
            # A room the engines make starts with all the players only.
            replaced["policy"] = FullTablePolicy(factory.policy,
                                                 len(entrants))
        names = gameNames = factory.names
        if kind in KEYED_KINDS and INameService.providedBy(names):
            # This game's one-time keys prove its engines' names, on its
            # private listeners only.
            gameNames = names.forGame(pairing.room)
            game.gameKeys = gameNames.gameKeys
        listening: List[Deferred[Any]] = []
        for entrant in engines:
            seat = game.seats[entrant.name] = EngineSeat(game, entrant)
            if game.gameKeys is not None:
                replaced["names"] = EntrantNames(gameNames, entrant.name)
            door = factory.engineDoor(**replaced)
            d = self.sandbox.listen(EngineFactory(door, seat),
                                    ENGINE_PORTS.get(kind, 0))
            d.addCallback(self._listening, seat)
            listening.append(d)
        d = defer.gatherResults(listening, consumeErrors=True)
        d.addCallbacks(lambda _: self._startInTurn(game),
                       lambda f: self._listenFailed(game, f))
        return game.started

    def _seatBrains(self, event: EventInfo, pairing: PairingInfo,
                    game: EngineGame, brains: Sequence[EntrantInfo]
                    ) -> Optional[Deferred[EngineGame]]:
        """
        Seat the Gomocup brains of C{pairing} at its room (its other
        engines are launched as ever).

        @return: None, or a failed Deferred (L{EngineFailed}).
        """
        if self.brains is None:
            return defer.fail(EngineFailed(
                brains[0].name, "no game port to play on"))
        for entrant in brains:
            assert entrant.engine is not None
            if entrant.engine.protocol == "gomocup" and game.kind != "gomoku":
                return defer.fail(EngineFailed(
                    entrant.name, "a Gomocup brain plays gomoku only"))
        if pairing.room in self.games:
            return defer.fail(EngineFailed(
                brains[0].name, "game {} is running already".format(
                    pairing.room)))
        for entrant in brains:
            assert entrant.engine is not None
            refused = self._refusal(entrant.engine)
            if refused is not None:
                return defer.fail(EngineFailed(entrant.name, refused))
        self.games[pairing.room] = game
        for entrant in brains:
            try:
                self.brains.seat(event, pairing, entrant, game.kind)
            except Exception as e:
                self.stop(pairing)
                return defer.fail(EngineFailed(
                    entrant.name, "not seated: {}".format(e)))
        return None

    def _spawnBrain(self, process: gomocup.BrainProcess,
                    entrant: EntrantInfo, eventId: int) -> None:
        """
        Start the process (a L{gomocup.BrainProcess}) of an engine over
        its standard streams in its sandbox, with no network.
        """
        engine = entrant.engine
        assert engine is not None
        argv = substitute(engine.command, HOST, 0, "", entrant.name)
        limits = self.limitsOf(engine)
        assert process.log is not None
        process.log.note("{} brain {} ({}) of event {}, sandbox {}, {}: {}"
                         .format(time.strftime("%Y-%m-%d %H:%M:%S",
                                               time.gmtime()),
                                 entrant.name, engine.name, eventId,
                                 self.sandbox.name, limits.describe(),
                                 " ".join(argv)))
        if not self.sandbox.confines:
            self.log.warn("brain {name} runs with no sandbox "
                          "(--engine-sandbox none): it has the hub's own "
                          "rights", name=entrant.name)
        self.sandbox.spawn(process, Confinement(
            argv, {"GAMEHUB_NAME": str(entrant.name)},
            limits, engine.folder, None))

    def _openLog(self, eventId: int, room: str, name: str) -> GameLog:
        path = gamePath(self.logRoot, eventId, room, name, ".log")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        return GameLog(path, self.logCap)

    def endOf(self, eventId: int, room: str) -> Mapping[str, Tuple[str, str]]:
        """
        C{{name: (reason, detail)}} of the Gomocup brains that lost the
        game of C{room} by failing (L{gomocup.BrainFailed} reasons).
        """
        if self.brains is None:
            return {}
        return self.brains.endOf(eventId, room)

    def abouts(self, eventId: int) -> Mapping[str, Mapping[str, str]]:
        """
        C{{name: pairs}}: the C{ABOUT} of each Gomocup brain of event
        C{eventId} that played.
        """
        if self.brains is None:
            return {}
        return self.brains.abouts(eventId)

    def _refusal(self, engine: EngineSpec) -> Optional[str]:
        """
        Why C{engine} (an L{EngineSpec}) cannot be launched, or None.
        """
        if not engine.command:
            return ("engine {} is not registered (python -m "
                    "hub.tournaments engine register)".format(engine.name))
        if engine.protocol not in ("tcp",) + streams.PROTOCOLS:
            return "engine {} speaks {}, which this hub does not".format(
                engine.name, engine.protocol)
        return self.problem()

    def entrantOf(self, room: str, playerId: int) -> Optional[str]:
        """
        The entrant whose engine's connection is the session C{playerId}
        at C{room}'s game, or None: how the director knows who sat where
        in a Splendor game, whose protocol carries no names.
        """
        if self.brains is not None:
            name = self.brains.entrantOf(room, playerId)
            if name is not None:
                return name
        game = self.games.get(room)
        if game is None:
            return None
        for name, seat in game.seats.items():
            for protocol in seat.protocols:
                session = protocol.session
                if session is not None and session.id == playerId:
                    return name
        return None

    def stop(self, pairing: PairingInfo, ended: bool = False) -> Deferred[Any]:
        """
        Kill what was launched for C{pairing} and close its listeners
        (when its game C{ended}, its engines first have L{leaveSeconds}
        to exit by themselves).  A launch stopped before its engines all
        connected never fires: the director, which stops it, has moved
        on.

        @return: a Deferred firing once that is done (callers may ignore
            it).
        """
        if self.brains is not None:
            self.brains.stop(pairing.room)
        game = self.games.pop(pairing.room, None)
        if game is None:
            return defer.succeed(None)
        self.log.info("stopping the engines of {room}", room=game.room)
        return game.stop(self.leaveSeconds if ended else 0)

    # More.

    def stopEvent(self, event: Union[EventInfo, int]) -> Deferred[Any]:
        """
        Stop the engines of every game of C{event}.

        @return: a Deferred firing once they are gone.
        """
        eventId = cast(int, getattr(event, "id", event))
        return defer.DeferredList(
            [self.stop(game.pairing) for game in list(self.games.values())
             if game.eventId == eventId]
            + ([self.brains.stopEvent(eventId)] if self.brains else []),
            consumeErrors=True)

    def stopService(self) -> Deferred[Any]:
        Service.stopService(self)
        # A hub stopped during its start-up kills the sandbox's probe.
        self._probing.cancel()
        d = defer.DeferredList(
            [self.stop(game.pairing) for game in list(self.games.values())]
            + [self._probing]
            + ([self.brains.stopAll()] if self.brains else []),
            consumeErrors=True)
        return d.addCallback(lambda _: self.sandbox.cleanUp())

    def engineLog(self, event: Union[EventInfo, int], room: str,
                  name: str) -> bytes:
        """
        The log of entrant C{name}'s engine in game C{room} of C{event}
        (for admins).

        @raise KeyError: there is none.
        """
        try:
            path = gamePath(self.logRoot, getattr(event, "id", event),
                            room, name, ".log")
            with open(path, "rb") as f:
                return f.read()
        except (ValueError, OSError):
            raise KeyError((event, room, name))

    def engineLogs(self, event: Union[EventInfo, int]
                   ) -> List[Tuple[str, str]]:
        """
        The engine logs of C{event} (for admins): the games and entrants
        that have one.

        @return: a sorted L{list} of C{(room, name)}.
        """
        try:
            folder = os.path.dirname(os.path.dirname(gamePath(
                self.logRoot, getattr(event, "id", event), "r", "n")))
            rooms = os.listdir(folder)
        except (ValueError, OSError):
            return []
        found = []
        for room in rooms:
            try:
                files = os.listdir(os.path.join(folder, room))
            except OSError:
                continue
            for file in files:
                try:
                    if not file.endswith(".log"):
                        continue
                    found.append((fromPathPart(room),
                                  fromPathPart(file[:-len(".log")])))
                except ValueError:
                    continue
        return sorted(found)

    def crashed(self, game: EngineGame, seat: EngineSeat, text: str) -> None:
        """
        C{seat}'s engine died mid-game: tell C{onCrash}.
        """
        self.log.info("engine {name} of {room} {how}", name=seat.name,
                      room=game.room, how=text)
        if self.onCrash is not None:
            self.onCrash(game.pairing, seat.name, text)

    # Starting.

    def _listening(self, listener: Any, seat: EngineSeat) -> Any:
        seat.listener = listener
        return listener

    def _listenFailed(self, game: EngineGame, failure: Failure) -> None:
        for seat in game.seats.values():
            if seat.listener is None:
                game.fail(seat, "no private listener: {}".format(
                    failure.getErrorMessage()))
                break
        self.stop(game.pairing)

    def _startInTurn(self, game: EngineGame) -> None:
        """
        Spawn C{game}'s engines once it has a start turn (L{starting}).
        """
        def start(_: object) -> None:
            game.holdStartTurn(self.starting.release)
            if game.stopped:
                game.releaseStartTurn()
                return
            self._spawnAll(game)
        self.starting.acquire().addCallback(start)

    def _spawnAll(self, game: EngineGame) -> None:
        if game.stopped:
            return
        for seat in game.seats.values():
            try:
                self._spawn(game, seat)
            except NotAllowed as e:
                game.fail(seat, "not started: {}".format(e))
                return
            except Exception as e:
                game.fail(seat, "cannot start: {}".format(e))
                return
        game.startTimer(self.startSeconds)

    def _spawn(self, game: EngineGame, seat: EngineSeat) -> None:
        entrant, engine = seat.entrant, seat.engine
        key = getattr(entrant, "key", None)
        if key is None and game.gameKeys is not None:
            key = game.gameKeys.mint(game.room, entrant.name)
        port = seat.listener.port
        argv = substitute(engine.command, HOST, port, game.room,
                          entrant.name, key)
        limits = self.limitsOf(engine)
        logPath = gamePath(self.logRoot, game.eventId, game.room,
                           entrant.name, ".log")
        os.makedirs(os.path.dirname(logPath), exist_ok=True)
        log = GameLog(logPath, self.logCap, [key] if key else [])
        log.note("{} engine {} ({}) in {}, sandbox {}, {}: {}".format(
            time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()),
            entrant.name, engine.name, game.room, self.sandbox.name,
            limits.describe(), " ".join(argv)))
        if not self.sandbox.confines:
            self.log.warn("engine {name} of {room} runs with no sandbox "
                          "(--engine-sandbox none): it has the hub's own "
                          "rights", name=entrant.name, room=game.room)
        process = seat.process = EngineProcess(seat, log, self.clock,
                                               self.grace)
        confinement = Confinement(
            argv, environment(game.kind, port, game.room, entrant.name,
                              key),
            limits, engine.folder, seat.listener.forward)
        try:
            self.sandbox.spawn(process, confinement)
        except Exception as e:
            log.close("could not be started: {}".format(e))
            raise
        self.log.info("engine {name} of {room} started (pid {pid})",
                      name=entrant.name, room=game.room,
                      pid=process.transport.pid)

    def limitsOf(self, engine: EngineSpec) -> Limits:
        """
        The L{Limits} of C{engine}: the launcher's, with its CPU and
        memory.
        """
        return Limits(engine.cpuSeconds, engine.memoryBytes,
                      self.limits.processes, self.limits.files,
                      self.limits.fileBytes, self.limits.workBytes)

