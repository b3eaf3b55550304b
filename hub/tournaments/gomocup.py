"""
Gomocup brains in tournaments: the hub as their Piskvork manager.

L{BrainProcess} drives one brain's process over its stdin and stdout
(the codec is L{hub.wire.gomocup}): one command waiting at a time, its
chatter to the log escaped and bounded, its tree stopped (C{SIGSTOP})
between its turns unless the event allows pondering.  L{Brain} keeps
one entrant's brain for a whole event (C{RESTART} between games, a new
process after a crash, up to a limit), and L{GomocupPlayer} is its
member of a pairing's room, playing the table's turns through it
(L{EnginePlayer}, which stdio engines share).  docs/tournaments.md and
docs/protocols/engines.md say the rest.
"""

from typing import (
    Any, Callable, Dict, Generator, Optional, Tuple, Union, cast)

from twisted.internet import defer, error
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.internet.protocol import ProcessProtocol
from twisted.logger import Logger
from twisted.python.failure import Failure

from hub.ihub import IGameRules, ITable, Room
from hub.lobby import HubRunPeer, RoomObserver
from hub.tables import events
from hub.tables.base import TableError
from hub.tournaments.gamelog import GameLog
from hub.wire import gomocup

#: What a brain answers (L{BrainProcess.ask}) and the milliseconds it
#: took: None for OK, the C{(x, y)} of a move, the pairs of ABOUT.
Answer = Tuple[Any, float]

#: How a brain's game may end, besides the board's own ends (a five, a
#: full board): the values of L{BrainFailed.reason}.
TIME, ILLEGAL, ERROR, CRASH, START = (
    "time", "illegal", "error", "crash", "start")
#: The table's end reason of each (the records know these).
TABLE_REASONS = {TIME: events.TIMEOUT, ILLEGAL: events.ILLEGAL,
                 ERROR: events.ILLEGAL, CRASH: events.FORFEIT,
                 START: events.FORFEIT}
#: Milliseconds a brain has to answer C{START}, C{RESTART} and C{ABOUT}.
START_MS = 30000
#: New processes a brain may get after crashes in one event.
RESTARTS = 3
#: Seconds between C{END} and C{SIGKILL}.
END_GRACE = 5.0
#: Seconds a brain that answered runs on before its tree is stopped (its
#: next turn, if it comes first, finds it running: no SIGSTOP and
#: SIGCONT for a quick back-and-forth).
STOP_GRACE = 0.010


class BrainFailed(Exception):
    """
    A brain did not answer as it must.

    @ivar reason: one of L{TIME}, L{ILLEGAL} (an unparsable or illegal
        move), L{ERROR} (it answered C{ERROR} or C{UNKNOWN}), L{CRASH}
        (its process ended), L{START}.
    @ivar detail: a short text for its log and the event's page.
    """

    def __init__(self, reason: str, detail: str = "") -> None:
        Exception.__init__(self, reason, detail)
        self.reason = reason
        self.detail = detail

    def __str__(self) -> str:
        return "{}: {}".format(self.reason, self.detail)


class _Wait:
    def __init__(self, deferred: Deferred[Answer], expect: str,
                 timer: Optional[IDelayedCall], startedAt: float) -> None:
        self.deferred = deferred
        self.expect = expect
        self.timer = timer
        self.startedAt = startedAt


class BrainProcess(ProcessProtocol):
    """
    One brain's process (its transport a sandbox's
    L{hub.sandbox.process.TreeTransport}: signals reach its tree).

    @param clock: an L{IReactorTime}: the answer's deadline and the
        time each answer took (the brain's own turn's wall time).
    @param log: where its lines go (a L{hub.tournaments.engines.
        GameLog}, or anything with C{write(bytes)} and C{note(text)});
        L{setLog} changes it between games.
    @param pondering: False (the default) to stop its tree between
        answers.
    @param stopGrace: seconds after an answer before its tree is stopped
        (L{STOP_GRACE}; 0: at once).
    @ivar ended: a Deferred firing with the text of how it ended.
    @ivar stopped: its tree is stopped now.
    """

    #: a sandbox's TreeTransport (L{hub.sandbox} is not typed yet)
    transport: Any

    def __init__(self, clock: IReactorTime, log: Optional[GameLog],
                 pondering: bool = False,
                 maxLine: int = gomocup.MAX_LINE,
                 stopGrace: float = STOP_GRACE) -> None:
        self.clock = clock
        self.log = log
        self.pondering = pondering
        self.stopGrace = stopGrace
        self._stopCall: Optional[IDelayedCall] = None
        self.splitter = gomocup.LineSplitter(maxLine)
        self.running = False
        self.stopped = False
        self.endText: Optional[str] = None
        self.ended: Deferred[str] = defer.Deferred()
        self._wait: Optional[_Wait] = None

    def setLog(self, log: GameLog) -> None:
        self.log = log

    # The process.

    def connectionMade(self) -> None:
        self.running = True

    def outReceived(self, data: bytes) -> None:
        for line in self.splitter.feed(data):
            self.lineReceived(line)
            if not self.running:
                return

    def errReceived(self, data: bytes) -> None:
        assert self.log is not None
        self.log.write(data)

    def processEnded(self, reason: Failure) -> None:
        self.running = False
        self.stopped = False
        self._cancelStop()
        text, _ = self.transport.endText(reason)
        self.endText = text
        assert self.log is not None
        self.log.note("brain " + text)
        self._fail(BrainFailed(CRASH, text))
        self.ended.callback(text)

    def signal(self, name: str) -> None:
        """
        Send C{SIG<name>} to its tree; nothing if it is gone.
        """
        if not self.running:
            return
        try:
            self.transport.signalProcess(name)
        except (error.ProcessExitedAlready, OSError):
            pass

    def pause(self) -> None:
        """
        Stop its tree, unless it may ponder (or is stopped already).
        """
        self._cancelStop()
        if not self.pondering and not self.stopped and self.running:
            self.signal("STOP")
            self.stopped = True

    def pauseSoon(self) -> None:
        """
        Stop its tree after L{stopGrace} (L{pause}), unless it is asked
        again first.
        """
        if self.pondering or self.stopped or not self.running:
            return
        if self.stopGrace <= 0:
            self.pause()
        elif self._stopCall is None:
            self._stopCall = self.clock.callLater(self.stopGrace,
                                                  self._graceOver)

    def _graceOver(self) -> None:
        self._stopCall = None
        self.pause()

    def _cancelStop(self) -> None:
        call, self._stopCall = self._stopCall, None
        if call is not None and call.active():
            call.cancel()

    def resume(self) -> None:
        """
        Let its tree run (its turn).
        """
        self._cancelStop()
        if self.stopped:
            self.stopped = False
            self.signal("CONT")

    def kill(self) -> Deferred[str]:
        """
        C{SIGKILL} its tree.

        @return: L{ended}.
        """
        self._cancelStop()
        if self.running:
            self.signal("KILL")
            self.signal("CONT")
        return self.ended

    # Commands.

    def tell(self, data: bytes) -> None:
        """
        Write C{data} (commands with no answer: C{INFO}, C{END}).
        """
        if self.running:
            self.transport.write(data)

    def ask(self, data: bytes, expect: str,
            timeoutMs: Optional[int] = None) -> Deferred[Answer]:
        """
        Write C{data}, let the brain run, and wait for its answer.

        @param expect: L{gomocup.OK}, L{gomocup.MOVE} or L{gomocup.ABOUT}.
        @param timeoutMs: milliseconds after which it has lost on time,
            or None for no limit.
        @return: a Deferred firing with C{(value, elapsedMs)} (value:
            None for OK, the C{(x, y)} of a move, the pairs of ABOUT), or
            failing with L{BrainFailed}; the brain is stopped again
            L{stopGrace} after it has answered.
        """
        if self._wait is not None:
            raise RuntimeError("a brain is asked one thing at a time")
        if not self.running:
            return defer.fail(BrainFailed(CRASH, self.endText or "gone"))
        d: Deferred[Answer] = defer.Deferred()
        timer = None
        if timeoutMs is not None:
            timer = self.clock.callLater(timeoutMs / 1000.0, self._late,
                                         timeoutMs)
        self._wait = _Wait(d, expect, timer, self.clock.seconds())
        self.transport.write(data)
        self.resume()
        return d

    def _late(self, timeoutMs: int) -> None:
        wait = self._wait
        if wait is not None:
            wait.timer = None
        self._fail(BrainFailed(TIME, "no answer within {} ms".format(
            timeoutMs)))

    def _finish(self, answered: bool) -> Optional[_Wait]:
        wait, self._wait = self._wait, None
        if wait is not None and wait.timer is not None \
                and wait.timer.active():
            wait.timer.cancel()
        if answered:
            self.pauseSoon()
        else:
            self.pause()
        return wait

    def _fail(self, failure: BrainFailed) -> None:
        wait = self._finish(False)
        if wait is not None:
            wait.deferred.errback(failure)

    def _answer(self, value: Any) -> None:
        wait = self._finish(True)
        assert wait is not None
        elapsedMs = (self.clock.seconds() - wait.startedAt) * 1000.0
        wait.deferred.callback((value, elapsedMs))

    def lineReceived(self, line: str) -> None:
        """
        One line of the brain's: chatter is logged, an answer ends the
        wait.
        """
        wait = self._wait
        askedAbout = wait is not None and wait.expect == gomocup.ABOUT
        if line.startswith("DEBUG") and not askedAbout:
            # The cheap way for floods.
            self._logLine(line)
            return
        reply = gomocup.parse(line, askedAbout)
        if reply.kind in gomocup.CHATTER or reply.kind == gomocup.SUGGEST:
            self._logLine(line)
            return
        self._logLine(line, "<")
        if wait is None:
            return
        if reply.kind in gomocup.FAILURES:
            self._fail(BrainFailed(ERROR, "{} {}".format(
                reply.kind.upper(), gomocup.escape(reply.text, 200))))
        elif wait.expect == gomocup.ABOUT:
            self._answer(gomocup.parseAbout(reply.text))
        elif wait.expect == reply.kind == gomocup.OK:
            self._answer(None)
        elif wait.expect == reply.kind == gomocup.MOVE:
            self._answer(reply.move)
        elif wait.expect == gomocup.MOVE:
            self._fail(BrainFailed(ILLEGAL, "not a move: {}".format(
                gomocup.escape(line, 200))))
        else:
            self._fail(BrainFailed(ERROR, "not OK: {}".format(
                gomocup.escape(line, 200))))

    def _logLine(self, line: str, mark: str = "") -> None:
        assert self.log is not None
        self.log.write((mark + gomocup.escape(line)).encode("ascii")
                       + b"\n")


class Brain:
    """
    One entrant's brain for a whole event: one process at a time, a
    new one after a crash (or a lost game that leaves it mid-thought),
    at most C{restarts} new ones after crashes.

    @param spawn: C{spawn(brainProcess)}: start its process in its
        sandbox (the launcher's); may raise.
    @param makeProcess: C{makeProcess()}: a fresh L{BrainProcess}.
    @ivar about: the pairs of its latest C{ABOUT} answer.
    @ivar crashes: processes of it that ended by themselves.
    @ivar games: games it began in its current process.
    """

    log = Logger()

    def __init__(self, name: str, spawn: Callable[[BrainProcess], object],
                 makeProcess: Callable[[], BrainProcess],
                 restarts: int = RESTARTS, startMs: int = START_MS) -> None:
        self.name = name
        self.spawn = spawn
        self.makeProcess = makeProcess
        self.restarts = restarts
        self.startMs = startMs
        self.process: Optional[BrainProcess] = None
        self.about: Dict[str, str] = {}
        self.crashes = 0
        self.games = 0
        self.lock = defer.DeferredLock()
        self.closed = False

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.running

    @defer.inlineCallbacks
    def newGame(self, log: GameLog
                ) -> Generator[Deferred[Any], Any, BrainProcess]:
        """
        Get the brain ready for a game, its lines to C{log}: C{RESTART}
        (a live process that played), or a new process (C{START 15},
        C{ABOUT}).

        @return: a Deferred firing with this brain's L{BrainProcess},
            or failing with L{BrainFailed} (L{START} once it may not
            start again).
        """
        if self.closed:
            raise BrainFailed(START, "the event's brains are closed")
        if self.alive and self.games:
            assert self.process is not None
            self.process.setLog(log)
            try:
                yield self.restart(self.process)
            except BrainFailed as e:
                log.note("RESTART failed ({}): a new process".format(e))
                self.retire(crashed=e.reason == CRASH)
        if not self.alive:
            yield self._start(log)
        self.games += 1
        assert self.process is not None
        return self.process

    @defer.inlineCallbacks
    def _start(self, log: GameLog) -> Generator[Deferred[Any], Any, None]:
        if self.process is not None and self.crashes > self.restarts:
            raise BrainFailed(START, "crashed {} times".format(
                self.crashes))
        process = self.process = self.makeProcess()
        process.setLog(log)
        self.games = 0
        try:
            self.spawn(process)
        except Exception as e:
            raise BrainFailed(START, "cannot start: {}".format(e))
        try:
            yield self.handshake(process)
        except BrainFailed as e:
            process.kill()
            raise BrainFailed(START, "START: {}".format(e))

    @defer.inlineCallbacks
    def handshake(self, process: BrainProcess
                  ) -> Generator[Deferred[Any], Any, None]:
        """
        What a new process is asked first: C{START 15}, C{ABOUT}.
        """
        yield process.ask(gomocup.start(), gomocup.OK, self.startMs)
        about, _ = yield process.ask(gomocup.about(), gomocup.ABOUT,
                                     self.startMs)
        self.about = about
        assert process.log is not None
        process.log.note("ABOUT {}".format(gomocup.escape(repr(about),
                                                          400)))

    def restart(self, process: BrainProcess) -> Deferred[Any]:
        """
        What a live process is asked before a new game: C{RESTART}.
        """
        return process.ask(gomocup.restart(), gomocup.OK, self.startMs)

    def retire(self, crashed: bool = False) -> None:
        """
        Kill its process (a lost game left it mid-thought, or it
        crashed: then it counts toward the limit); the next game starts
        a new one.
        """
        if crashed:
            self.crashes += 1
        if self.process is not None:
            self.process.kill()
        self.games = 0

    def close(self, clock: IReactorTime,
              grace: float = END_GRACE
              ) -> Union[Deferred[None], Deferred[str]]:
        """
        C{END}, then C{SIGKILL} after C{grace} seconds if it is still
        there.

        @return: a Deferred firing once it is gone.
        """
        self.closed = True
        process = self.process
        if process is None or not process.running:
            return defer.succeed(None)
        process.tell(gomocup.end())
        process.resume()
        call = clock.callLater(grace, process.kill)
        process.ended.addBoth(
            lambda r: call.cancel() if call.active() else None)
        return process.ended


class TimeControl:
    """
    An event's Gomocup time control: C{turnMs} a turn, C{matchMs} a
    game's bank (None: no limit), with a tolerance; and whether its
    brains may ponder.
    """

    def __init__(self, turnMs: Optional[int] = None,
                 matchMs: Optional[int] = None,
                 toleranceMs: int = gomocup.TOLERANCE_MS,
                 pondering: bool = False) -> None:
        self.turnMs = turnMs
        self.matchMs = matchMs
        self.toleranceMs = toleranceMs
        self.pondering = pondering

    def clock(self) -> gomocup.MatchClock:
        return gomocup.MatchClock(self.turnMs, self.matchMs,
                                  self.toleranceMs)


class EnginePlayer(RoomObserver, HubRunPeer):
    """
    An engine's member of its pairing's room, for any game kind: ready
    at once; at the game's start it gets its brain ready
    (L{Brain.newGame}, then L{prepare}), plays each of its turns
    (L{command}, the answer through L{accept}) and makes its seat lose
    when the engine fails (L{TABLE_REASONS}).  Subclasses say what is
    sent.

    @param onEnd: C{onEnd(player, reason, detail)} once its game is
        over: C{reason} None when the board ended it, else a
        L{BrainFailed} reason.
    """

    log = Logger()
    #: What L{BrainProcess.ask} expects of a turn's answer.
    expect = gomocup.MOVE

    def __init__(self, brain: Brain, clock: IReactorTime,
                 control: TimeControl, gameLog: GameLog,
                 onEnd: Callable[["EnginePlayer", Optional[str], str],
                                 object]) -> None:
        self.brain = brain
        self.clock = clock
        self.control = control
        self.gameLog = gameLog
        self.onEnd = onEnd
        #: its lobby session, and the room's table (Any: hub.lobby is
        #: not typed yet)
        self.session: Any = None
        self.table: Any = None
        self.seat: Optional[int] = None
        self.process: Optional[BrainProcess] = None
        self.matchClock = control.clock()
        self.thinking = False
        self.done = False
        self.failure: Optional[BrainFailed] = None
        self.moves = 0
        self._locked = False
        self._preparing = False

    # The room.

    def gameStarted(self, room: Room) -> None:
        member = room.memberOf(self.session)
        if member is None or room.table is None:
            return
        self.table = room.table
        self.seat = member.seat
        self.table.addListener(self)
        # After the table's start (a brain failing at once ends a game
        # that has begun).
        self.clock.callLater(0, self._begin)

    def _begin(self) -> None:
        d = self.brain.lock.acquire()
        d.addCallback(lambda _: self._ready())
        d.addErrback(self._failed)

    @defer.inlineCallbacks
    def _ready(self) -> Generator[Deferred[Any], Any, None]:
        if self.done:
            # Over before its brain's turn came.
            self.brain.lock.release()
            return
        self._locked = self._preparing = True
        try:
            process = yield self.brain.newGame(self.gameLog)
        finally:
            self._preparing = False
            # mypy keeps self.done narrowed to False across the yield,
            # while the game may end meanwhile: hence the ignores.
            if self.done and self._locked:  # type: ignore[unreachable]
                self._locked = False  # type: ignore[unreachable]
                self.brain.lock.release()
        if self.done:
            return  # type: ignore[unreachable]
        self.process = process
        self.prepare(process)
        self._maybeTurn()

    def prepare(self, process: BrainProcess) -> None:
        """
        A game begins with C{process}: tell it what it needs to know.
        """

    def command(self) -> bytes:
        """
        The bytes that ask for this turn's action.
        """
        raise NotImplementedError()

    def accept(self, answer: Any) -> Any:
        """
        The canonical action C{answer} (what L{BrainProcess.ask} gave)
        is.

        @raise BrainFailed: it is none, or not a legal one (L{ILLEGAL}).
        """
        raise NotImplementedError()

    def played(self, action: Any) -> None:
        """
        C{action}, this engine's, was played.
        """

    def tableEvent(self, table: ITable, event: object) -> None:
        if isinstance(event, events.GameEnded):
            self.finish()
        elif (not self.done and not self.thinking
                and table.game.currentSeat == self.seat
                and not isinstance(event, events.TurnStarted)):
            # After the table's other listeners heard of it.
            self.clock.callLater(0, self._maybeTurn)

    def _maybeTurn(self) -> None:
        table = self.table
        if (self.done or self.thinking or self.process is None
                or table is None or table.over
                or table.game.currentSeat != self.seat):
            return
        command = self.command()
        self.thinking = True
        d = self.process.ask(command, self.expect,
                             self.matchClock.deadlineMs())
        d.addCallback(self._moved)
        d.addErrback(self._failed)

    def _moved(self, answer: Answer) -> None:
        self.thinking = False
        value, elapsedMs = answer
        if self.done:
            return
        if self.matchClock.charge(elapsedMs):
            raise BrainFailed(TIME, "answered after {:.0f} ms".format(
                elapsedMs))
        action = self.accept(value)
        self.moves += 1
        try:
            self.table.act(self.seat, action)
        except TableError as e:
            raise BrainFailed(ILLEGAL, "refused: {!r}".format(e))
        self.played(action)

    def _failed(self, failure: Failure) -> None:
        self.thinking = False
        if not failure.check(BrainFailed):
            self.log.failure("gomocup player {name}", failure,
                             name=self.brain.name)
            e = BrainFailed(ERROR, failure.getErrorMessage())
        else:
            e = cast(BrainFailed, failure.value)
        if self.done:
            return
        self.failure = e
        self.gameLog.note("{} loses: {}".format(self.brain.name, e))
        # Mid-thought, or gone: the next game gets a new process.
        self.brain.retire(crashed=e.reason == CRASH)
        table = self.table
        # Told before the table ends the game (and its listeners, the
        # director among them, ask why).
        self.finish(e.reason, e.detail)
        if table is not None and not table.over:
            table.lose(self.seat, TABLE_REASONS[e.reason])

    def finish(self, reason: Optional[str] = None,
               detail: str = "") -> None:
        """
        This player's game is over, once: it stops listening to the
        table, lets go of its brain and tells C{onEnd}.

        @param reason: None when the board ended the game (or the game
            is cut off), else a L{BrainFailed} reason.
        """
        if self.done:
            return
        self.done = True
        if self.failure is not None:
            reason, detail = self.failure.reason, self.failure.detail
        if self.table is not None:
            self.table.removeListener(self)
        if self.thinking and self.failure is None:
            # Mid-thought when the game ended: a new process next game.
            self.brain.retire()
        if self._locked and not self._preparing:
            self._locked = False
            self.brain.lock.release()
        self.onEnd(self, reason, detail)

    def gameEnded(self, room: Room, game: IGameRules) -> None:
        self.finish()


class GomocupPlayer(EnginePlayer):
    """
    A Gomocup brain's member of its room: C{INFO} lines at the game's
    start, then each turn C{time_left} and C{BEGIN}, C{TURN x,y} or
    C{BOARD}.

    @param memoryBytes: its C{INFO max_memory}.
    @param folder: its C{INFO folder}.
    """

    def __init__(self, brain: Brain, clock: IReactorTime,
                 control: TimeControl, memoryBytes: int,
                 folder: str, gameLog: GameLog,
                 onEnd: Callable[["EnginePlayer", Optional[str], str],
                                 object]) -> None:
        EnginePlayer.__init__(self, brain, clock, control, gameLog, onEnd)
        self.memoryBytes = memoryBytes
        self.folder = folder
        #: stones the brain knows of (0 after RESTART or START)
        self.known = 0
        #: whether the brain's board is the game's but for the last
        #: stone (not so when the game began from an opening)
        self.synced = True

    def gameStarted(self, room: Room) -> None:
        if room.table is not None:
            self.synced = not room.table.game.moves
        EnginePlayer.gameStarted(self, room)

    def prepare(self, process: BrainProcess) -> None:
        c = self.matchClock
        process.tell(gomocup.infos(c.turnMs, c.matchMs, c.leftMs,
                                   self.memoryBytes, self.folder))

    def command(self) -> bytes:
        moves = list(self.table.game.moves)
        if not moves:
            command = gomocup.begin()
        elif self.synced and len(moves) == self.known + 1:
            command = gomocup.turn(*moves[-1])
        else:
            command = gomocup.board(moves, len(moves) % 2)
        self.known = len(moves)
        self.synced = True
        left = self.matchClock.leftMs
        if left is not None:
            command = gomocup.info("time_left", left) + command
        return command

    def accept(self, move: Tuple[int, int]) -> Tuple[int, int]:
        if not gomocup.moveOnBoard(move):
            raise BrainFailed(ILLEGAL, "{},{} is off the board".format(
                *move))
        if self.table.game.at(*move) != 0:
            raise BrainFailed(ILLEGAL, "{},{} is taken".format(*move))
        return move

    def played(self, move: Tuple[int, int]) -> None:
        self.known += 1
