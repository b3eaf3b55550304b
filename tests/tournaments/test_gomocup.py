"""
Gomocup brains (L{hub.tournaments.gomocup}): a real brain written for
the tests (C{gomocupbrain.py}, speaking the Piskvork protocol exactly)
in the real bwrap sandbox, driven by L{BrainProcess}, and playing whole
games at an in-process hub through the engine launcher, beside hostile
brains (late, pondering, illegal, silent, exiting, flooding DEBUG).
"""

import os

import attr
from twisted.internet import defer, reactor
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase, TestCase

from hub.lobby import RoomObserver
from hub.sandbox.confine import Confinement
from hub.sandbox.process import BwrapSandbox
from hub.tables import events
from hub.tables.gomoku import OWNER_SEAT
from hub.tournaments import gomocup
from hub.tournaments.policy import TournamentPolicy
from hub.tournaments.engines import EngineLauncher
from hub.tournaments.gamelog import GameLog
from hub.tournaments.interfaces import EngineSpec
from hub.wire import gomocup as wire
from tests.sandbox.support import folder, waitFor
from tests.tournaments.test_engines import (
    MB, WAIT, bounded, inProcessHub, tempPath)

HERE = os.path.dirname(os.path.abspath(__file__))
BRAIN = os.path.join(HERE, "gomocupbrain.py")


def command(mode, seed=1):
    return ["python", BRAIN, mode, str(seed)]


class MemoryLog:
    """
    A brain's log in memory (what L{GameLog} is given).
    """

    def __init__(self):
        self.data = b""

    def write(self, data):
        self.data += data

    def note(self, text):
        self.data += b"# " + text.encode() + b"\n"


def treeOf(group):
    """
    The host's processes of process group C{group}.
    """
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/%s/stat" % (name,)) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == group:
                found.append((int(name), fields[0],
                              int(fields[11]) + int(fields[12])))
    return found


class BrainProcessTests(TestCase):
    """
    L{gomocup.BrainProcess} and a real brain in the bwrap sandbox: each
    command it sends, against the protocol's text, and each way a brain
    may answer.
    """

    timeout = 2 * WAIT

    def brain(self, mode, log=None, pondering=False):
        process = gomocup.BrainProcess(reactor, log or MemoryLog(),
                                       pondering)
        box = BwrapSandbox(reactor, folder(self))
        handle = box.spawn(process, Confinement(command(mode),
                                                folder=HERE))
        self.handle = handle

        def kill():
            if process.running:
                process.kill()
                return bounded(process.ended)
        self.addCleanup(kill)
        return process

    @defer.inlineCallbacks
    def start(self, process, infos=(1000, None, None)):
        yield bounded(process.ask(wire.start(), wire.OK, 30000))
        about, _ = yield bounded(process.ask(wire.about(), wire.ABOUT,
                                             30000))
        process.tell(wire.infos(infos[0], infos[1], infos[2], 0, "/tmp"))
        return about

    @defer.inlineCallbacks
    def test_session(self):
        """
        START 15 is answered OK, ABOUT with its pairs, BEGIN, TURN and
        BOARD with moves (the brain saw the INFO values); RESTART with
        OK; END makes it exit by itself.  Its MESSAGE lines (one before
        any command) are in the log, its answers marked C{<}.
        """
        log = MemoryLog()
        process = self.brain("fair", log)
        about = yield self.start(process, (5000, 180000, 170000))
        self.assertEqual(about, {"name": "testbrain-fair", "version": "1.0",
                                 "author": "gamehub tests",
                                 "country": "CZ"})
        first, elapsed = yield bounded(process.ask(wire.begin(), wire.MOVE,
                                                   5000))
        self.assertTrue(wire.moveOnBoard(first))
        self.assertGreaterEqual(elapsed, 0)
        other = (0, 0) if first != (0, 0) else (1, 1)
        second, _ = yield bounded(process.ask(wire.turn(*other), wire.MOVE))
        self.assertNotIn(second, (first, other))
        third, _ = yield bounded(process.ask(
            wire.board([first, other, second, (2, 2)], 0), wire.MOVE))
        self.assertNotIn(third, (first, other, second, (2, 2)))
        yield bounded(process.ask(wire.restart(), wire.OK))
        process.tell(wire.end())
        process.resume()
        how = yield bounded(process.ended)
        self.assertEqual(how, "exited with status 0")
        text = log.data.decode()
        self.assertTrue(text.startswith("MESSAGE testbrain fair ready\n"),
                        text[:200])
        self.assertIn("MESSAGE move 1 of game 0 after BEGIN, info [("
                      "'folder', '/tmp'),"
                      " ('game_type', '1'), ('max_memory', '0'), "
                      "('rule', '0'), ('time_left', '170000'), "
                      "('timeout_match', '180000'), ('timeout_turn', "
                      "'5000')]", text)
        self.assertIn("<%d,%d\n" % first, text)
        self.assertIn("<OK\n", text)

    @defer.inlineCallbacks
    def test_crlf(self):
        """
        A brain ending its lines with CRLF is understood as well.
        """
        log = MemoryLog()
        process = self.brain("crlf", log)
        yield self.start(process)
        move, _ = yield bounded(process.ask(wire.begin(), wire.MOVE))
        self.assertTrue(wire.moveOnBoard(move))
        self.assertNotIn(b"\r", log.data)

    @defer.inlineCallbacks
    def test_unknown(self):
        """
        A command the brain does not know ends the wait at once
        (C{UNKNOWN}), as an error.
        """
        process = self.brain("fair")
        yield self.start(process)
        d = process.ask(b"SWAP2BOARD\n", wire.MOVE)
        e = yield self.assertFailure(bounded(d), gomocup.BrainFailed)
        self.assertEqual((e.reason, e.detail),
                         (gomocup.ERROR, "UNKNOWN SWAP2BOARD"))

    @defer.inlineCallbacks
    def test_stoppedOffTurn(self):
        """
        A brain that thinks all the time (a spinning thread) is stopped
        once it answered (after the grace, L{gomocup.STOP_GRACE}): its
        whole tree is stopped and uses no CPU
        while another brain, allowed to ponder, spins on (0.2 s of its
        CPU); its next command continues it.
        """
        process = self.brain("ponder")
        stoppedGroup = self.handle
        pondering = self.brain("ponder", pondering=True)
        ponderingGroup = self.handle
        yield self.start(process)
        yield self.start(pondering)
        yield bounded(process.ask(wire.begin(), wire.MOVE))
        yield bounded(pondering.ask(wire.begin(), wire.MOVE))
        yield waitFor(lambda: process.stopped,
                      interval=gomocup.STOP_GRACE)
        self.assertFalse(pondering.stopped)

        def cpu(handle):
            return sum(ticks for _, _, ticks in treeOf(handle.group))
        yield waitFor(lambda: all(
            s == "T" for _, s, _ in treeOf(stoppedGroup.group)))
        before, other = cpu(stoppedGroup), cpu(ponderingGroup)
        yield waitFor(lambda: cpu(ponderingGroup) > other + 20)
        self.assertEqual(cpu(stoppedGroup), before)
        self.assertTrue(all(s != "T" for _, s, _
                            in treeOf(ponderingGroup.group)))
        move, _ = yield bounded(process.ask(wire.turn(0, 0), wire.MOVE))
        self.assertTrue(wire.moveOnBoard(move))

    @defer.inlineCallbacks
    def secondMove(self, mode, timeoutMs=5000, log=None):
        """
        C{mode}'s failure at its second move.
        """
        process = self.brain(mode, log)
        yield self.start(process, (timeoutMs, None, None))
        yield bounded(process.ask(wire.begin(), wire.MOVE, timeoutMs))
        d = process.ask(wire.turn(0, 0), wire.MOVE, timeoutMs)
        e = yield self.assertFailure(bounded(d), gomocup.BrainFailed)
        return e

    @defer.inlineCallbacks
    def test_late(self):
        """
        A brain that answers after its turn limit and the tolerance has
        lost on time when the limit is over, not when it answers.
        """
        e = yield self.secondMove("late", 300)
        self.assertEqual((e.reason, e.detail),
                         (gomocup.TIME, "no answer within 300 ms"))

    @defer.inlineCallbacks
    def test_garbled(self):
        """
        A line that is no move is an unparsable move.
        """
        e = yield self.secondMove("garbled")
        self.assertEqual((e.reason, e.detail),
                         (gomocup.ILLEGAL, "not a move: h8"))

    @defer.inlineCallbacks
    def test_error(self):
        """
        C{ERROR} instead of a move ends the wait at once.
        """
        e = yield self.secondMove("error")
        self.assertEqual((e.reason, e.detail),
                         (gomocup.ERROR, "ERROR I give up"))

    @defer.inlineCallbacks
    def test_exit(self):
        """
        A brain that exits while it is asked: a crash, how it ended.
        """
        e = yield self.secondMove("exit")
        self.assertEqual((e.reason, e.detail),
                         (gomocup.CRASH, "exited with status 3"))

    @defer.inlineCallbacks
    def test_debugFlood(self):
        """
        10 MB of DEBUG before a move: the move is read, the log stays
        within its cap, the splitter's buffer within a line.
        """
        path = os.path.join(folder(self), "brain.log")
        log = GameLog(path, cap=256 * 1024)
        process = self.brain("debug", log)
        yield self.start(process)
        move, _ = yield bounded(process.ask(wire.begin(), wire.MOVE))
        self.assertTrue(wire.moveOnBoard(move))
        # Each 1,006-byte line logged as its first 500 characters.
        self.assertGreater(log.dropped, 4 * MB)
        log.close()
        self.assertLess(os.path.getsize(path), 256 * 1024 + 1024)
        self.assertLessEqual(len(process.splitter._buffer), wire.MAX_LINE)


class SignalledTransport:
    """
    A brain's transport that keeps what is written and the signals its
    tree gets.
    """

    def __init__(self):
        self.written = b""
        self.signals = []

    def write(self, data):
        self.written += data

    def signalProcess(self, name):
        self.signals.append(name)


class StopGraceTests(SynchronousTestCase):
    """
    L{gomocup.BrainProcess} stops a brain's tree L{gomocup.STOP_GRACE}
    after it answered, on the hub's clock, unless it is asked again
    first.
    """

    def brain(self, pondering=False):
        self.clock = Clock()
        process = gomocup.BrainProcess(self.clock, MemoryLog(), pondering)
        self.transport = SignalledTransport()
        process.makeConnection(self.transport)
        return process

    def answered(self, process):
        d = process.ask(wire.turn(7, 7), wire.MOVE, 1000)
        process.outReceived(b"8,8\n")
        self.assertEqual(self.successResultOf(d)[0], (8, 8))

    def test_stoppedAfterGrace(self):
        """
        The tree runs on for the grace after an answer, then is stopped;
        the next command continues it.
        """
        process = self.brain()
        self.answered(process)
        self.assertEqual((process.stopped, self.transport.signals),
                         (False, []))
        self.clock.advance(gomocup.STOP_GRACE * 0.99)
        self.assertEqual(self.transport.signals, [])
        self.clock.advance(gomocup.STOP_GRACE * 0.01)
        self.assertEqual((process.stopped, self.transport.signals),
                         (True, ["STOP"]))
        self.assertEqual(self.clock.getDelayedCalls(), [])
        process.ask(wire.turn(0, 0), wire.MOVE, 1000)
        self.assertEqual(self.transport.signals, ["STOP", "CONT"])

    def test_askedWithinGrace(self):
        """
        A brain asked again within the grace is never stopped: no
        signal, and no timer left but the new turn's limit.
        """
        process = self.brain()
        self.answered(process)
        self.clock.advance(gomocup.STOP_GRACE / 2)
        self.answered(process)
        self.clock.advance(gomocup.STOP_GRACE / 2)
        self.assertEqual(self.transport.signals, [])
        self.clock.advance(gomocup.STOP_GRACE / 2)
        self.assertEqual(self.transport.signals, ["STOP"])

    def test_failureStopsAtOnce(self):
        """
        A brain that failed (no answer in time) is stopped at once.
        """
        process = self.brain()
        d = process.ask(wire.turn(7, 7), wire.MOVE, 100)
        self.clock.advance(0.1)
        self.failureResultOf(d, gomocup.BrainFailed)
        self.assertEqual((process.stopped, self.transport.signals),
                         (True, ["STOP"]))

    def test_killCancels(self):
        """
        A brain killed within the grace is not stopped after it.
        """
        process = self.brain()
        self.answered(process)
        process.kill()
        self.assertEqual(self.clock.getDelayedCalls(), [])
        self.assertEqual(self.transport.signals, ["KILL", "CONT"])

    def test_pondering(self):
        """
        A brain that may ponder is never stopped.
        """
        process = self.brain(pondering=True)
        self.answered(process)
        self.clock.advance(1)
        self.assertEqual(self.transport.signals, [])


@attr.s(frozen=True)
class Event:
    id = attr.ib()
    kind = attr.ib(default="gomoku")
    turnMs = attr.ib(default=None)
    matchMs = attr.ib(default=None)
    pondering = attr.ib(default=False)
    turnSeconds = attr.ib(default=None)


@attr.s(frozen=True)
class Pairing:
    event = attr.ib()
    round = attr.ib()
    board = attr.ib()
    seats = attr.ib()
    kind = attr.ib(default="gomoku")

    @property
    def room(self):
        return "%d-%d-%d" % (self.event, self.round, self.board)


@attr.s(frozen=True)
class Brain:
    name = attr.ib()
    mode = attr.ib(default="fair")
    seed = attr.ib(default=1)
    key = None

    @property
    def engine(self):
        return EngineSpec(self.name, tuple(command(self.mode, self.seed)),
                          HERE, "gomocup", 30, 512 * MB)


class Starter(RoomObserver):
    """
    Starts a pairing's room once its players are all in (the director's
    part, here).
    """

    def __init__(self, lobby):
        self.lobby = lobby

    def roomChanged(self, room):
        if (not room.running and room.policy.canStart(room)
                and room.allReady):
            reactor.callLater(0, self._start, room)

    def roomClosed(self, room):
        pass

    def _start(self, room):
        if not room.running and room.policy.canStart(room):
            self.lobby.start(room)


class HubHarness:
    """
    An in-process hub with its engine launcher (bwrap), whose pairings'
    rooms a test opens as the director does.
    """

    timeout = 4 * WAIT

    def setUp(self):
        self.hub, self.watcher, self.factories = inProcessHub(self)
        self.hub.lobby.addWatcher(Starter(self.hub.lobby))
        self.root = os.path.abspath(tempPath(self))
        self.launcher = self.makeLauncher()

    def makeLauncher(self, **kwargs):
        launcher = EngineLauncher(
            reactor, reactor, self.factories,
            BwrapSandbox(reactor, closed=[self.root]),
            os.path.join(self.root, "logs"), **kwargs)
        launcher.startService()
        self.addCleanup(launcher.stopService)
        return launcher

    def play(self, event, round, board, black, white, opening=()):
        """
        Open the pairing's room as the director does, launch its brains.

        @return: a Deferred of its L{events.GameEnded}.
        """
        pairing = Pairing(event.id, round, board, (black.name, white.name))
        self.openRoom(pairing, "gomoku", opening)
        d = self.launcher.launch(event, pairing, [black, white])
        d.addCallback(lambda _: self.watcher.whenEnded(pairing.room))

        def stop(ended):
            self.launcher.stop(pairing, ended=True)
            return ended
        return bounded(d.addCallback(stop))

    @defer.inlineCallbacks
    def playHostile(self, event, modes, engine):
        """
        Play, all at once, a game for each mode of C{modes} (C{{mode:
        (table reason, engine reason or None)}}): C{engine(mode, mode)}
        as black against the fair C{engine("fair" + mode, seed=board)},
        board by board in the modes' order; and a fair pairing on board
        99.  Each ends as C{modes} says (the hostile side losing when its
        engine is blamed), the fair pairing's on the board.
        """
        games = {}
        for board, mode in enumerate(sorted(modes), 1):
            games[mode] = self.play(event, 1, board, engine(mode, mode),
                                    engine("fair" + mode, seed=board))
        games["fair"] = self.play(event, 1, 99, engine("one", seed=5),
                                  engine("two", seed=6))
        results = {}
        for mode, d in games.items():
            results[mode] = yield d
        self.assertEqual(results["fair"].reason, events.NORMAL)
        for board, mode in enumerate(sorted(modes), 1):
            reason, engineReason = modes[mode]
            ended = results[mode]
            self.assertEqual(ended.reason, reason, mode)
            ends = self.launcher.endOf(event.id,
                                       "%d-1-%d" % (event.id, board))
            if engineReason is None:
                self.assertEqual(ends, {}, mode)
            else:
                self.assertEqual(ended.winner, 1, mode)
                self.assertEqual(list(ends), [mode])
                self.assertEqual(ends[mode][0], engineReason, mode)

    def openRoom(self, pairing, kind, opening=()):
        policy = TournamentPolicy(self.launcher.factories[kind].policy,
                                  pairing.seats, None, opening)
        self.hub.lobby.openRoom(
            kind, pairing.room, policy, len(pairing.seats),
            settings={OWNER_SEAT: 0} if kind == "gomoku" else {})


class GameTests(HubHarness, TestCase):
    """
    Brains playing whole games at an in-process hub, seated by the
    engine launcher: one process for all their games (RESTART between
    them), each failure its own end.
    """

    @defer.inlineCallbacks
    def test_wholeEvent(self):
        """
        Two brains play three games with colours swapped in between: each
        game ends on the board (a five or a full board), with no failure;
        each brain is one process for them all (RESTART between games),
        its ABOUT kept; the event's end sends END and they exit by
        themselves.
        """
        event = Event(40, turnMs=5000)
        a, b = Brain("alpha", seed=1), Brain("beta", seed=2)
        ended = yield self.play(event, 1, 1, a, b)
        self.assertEqual(ended.reason, events.NORMAL)
        runner = self.launcher.brains
        pids = {n: runner.brains[(40, n)].process.transport.pid
                for n in ("alpha", "beta")}
        ended = yield self.play(event, 2, 1, b, a)
        self.assertEqual(ended.reason, events.NORMAL)
        ended = yield self.play(event, 3, 1, a, b)
        self.assertEqual(ended.reason, events.NORMAL)
        for name in ("alpha", "beta"):
            brain = runner.brains[(40, name)]
            self.assertEqual(brain.process.transport.pid, pids[name])
            self.assertEqual(brain.crashes, 0)
        self.assertEqual(self.launcher.abouts(event.id)["alpha"]["name"],
                         "testbrain-fair")
        processes = [runner.brains[(40, n)].process
                     for n in ("alpha", "beta")]
        yield bounded(self.launcher.stopEvent(event))
        self.assertEqual([p.endText for p in processes],
                         ["exited with status 0"] * 2)
        log = self.launcher.engineLog(event, "40-2-1", "alpha").decode()
        self.assertIn("<OK", log)    # RESTART's answer
        # White in its second game: told black's first stone.
        self.assertIn("MESSAGE move 1 of game 1 after TURN", log)
        self.assertNotIn("after BOARD", log)
        log = self.launcher.engineLog(event, "40-2-1", "beta").decode()
        self.assertIn("MESSAGE move 1 of game 1 after BEGIN", log)
        self.assertEqual(self.launcher.endOf(event.id, "40-1-1"), {})

    @defer.inlineCallbacks
    def test_hostile(self):
        """
        Hostile brains, each against a fair one, all games at once: each
        ends as documented (docs/tournaments.md), the fair pairing's
        game ends on the board, and a brain that failed plays its next
        game in a new process.
        """
        # A turn long enough for the 10 MB of debug output on a loaded
        # machine, with every game at once.
        event = Event(41, turnMs=3000)
        modes = {"late": (events.TIMEOUT, gomocup.TIME),
                 "illegal": (events.ILLEGAL, gomocup.ILLEGAL),
                 "garbled": (events.ILLEGAL, gomocup.ILLEGAL),
                 "error": (events.ILLEGAL, gomocup.ERROR),
                 "silent": (events.TIMEOUT, gomocup.TIME),
                 "exit": (events.FORFEIT, gomocup.CRASH),
                 "debug": (events.NORMAL, None),
                 "ponder": (events.NORMAL, None)}
        yield self.playHostile(event, modes, Brain)
        crashed = self.launcher.brains.brains[(41, "exit")]
        self.assertEqual(crashed.crashes, 1)
        # The crashed brain's next game: a new process, which plays.
        ended = yield self.play(event, 2, 1, Brain("fairexit", seed=3),
                                Brain("one", seed=5))
        self.assertIn(ended.reason, (events.NORMAL,))

    @defer.inlineCallbacks
    def test_fromOpening(self):
        """
        A game that starts from an opening: the brain to move is sent
        the stones with BOARD (1 its own, 2 its opponent's), then TURN.
        """
        event = Event(43, turnMs=5000)
        opening = [(7, 7), (8, 6), (6, 8)]
        ended = yield self.play(event, 1, 1, Brain("black", seed=1),
                                Brain("white", seed=2), opening)
        self.assertEqual(ended.reason, events.NORMAL)
        table = self.watcher.tables["43-1-1"]
        self.assertEqual(list(table.game.moves[:3]), opening)
        log = self.launcher.engineLog(event, "43-1-1", "white").decode()
        self.assertIn("MESSAGE move 1 of game 0 after BOARD", log)
        self.assertIn("MESSAGE move 2 of game 0 after TURN", log)
        log = self.launcher.engineLog(event, "43-1-1", "black").decode()
        self.assertIn("MESSAGE move 1 of game 0 after BOARD", log)

    @defer.inlineCallbacks
    def test_restartLimit(self):
        """
        A brain that crashed more times than the launcher's limit is not
        started again: its next game is lost as a start failure.
        """
        self.launcher = self.makeLauncher(brainRestarts=0)
        event = Event(42, turnMs=5000)
        crasher, fair = Brain("crasher", "exit"), Brain("fair", seed=4)
        ended = yield self.play(event, 1, 1, crasher, fair)
        self.assertEqual(ended.reason, events.FORFEIT)
        self.assertEqual(self.launcher.endOf(event.id, "42-1-1")["crasher"],
                         (gomocup.CRASH, "exited with status 3"))
        ended = yield self.play(event, 2, 1, fair, crasher)
        self.assertEqual((ended.reason, ended.winner),
                         (events.FORFEIT, 0))
        self.assertEqual(self.launcher.endOf(event.id, "42-2-1")["crasher"],
                         (gomocup.START, "crashed 1 times"))


class OpeningTests(SynchronousTestCase):
    """
    L{policy.openingFor}: which opening a pairing starts from, and
    L{TournamentPolicy} placing it before the table starts.
    """

    def running(self, protocols, games, openings=(((7, 7),),)):
        from hub.tournaments import store
        from hub.tournaments.director import RunningEvent
        event = store.Event(7, "Brains", "gomoku", "round-robin", None, None,
                            2, None, store.RUNNING, 1, 0.0,
                            openings=openings)
        entrants = [store.Entrant(name, i, EngineSpec(name, ("x",), None,
                                                      protocol)
                                  if protocol else None, False)
                    for i, (name, protocol) in enumerate(protocols.items())]
        return RunningEvent(event, entrants,
                            {(g.round, g.board): g for g in games})

    def test_pairsInTurn(self):
        """
        A round robin of three brains: each pair's two games (colours
        swapped) share one opening, the pairs take them in the order
        they first meet, round the list; a bye has none.
        """
        from hub.tournaments.policy import openingFor
        from hub.tournaments.standings import Game
        games = [Game(1, 1, ("a", "b")), Game(1, -1, ("c",)),
                 Game(2, 1, ("c", "a")), Game(3, 1, ("b", "c")),
                 Game(4, 1, ("b", "a")), Game(5, 1, ("a", "c")),
                 Game(6, 1, ("c", "b"))]
        run = self.running({"a": "gomocup", "b": "stdio", "c": "gomocup"},
                       games, ((1,), (2,)))
        self.assertEqual([openingFor(run, g) for g in games],
                         [(1,), (), (2,), (1,), (1,), (2,), (1,)])

    def test_notForTcp(self):
        """
        A pairing with a TCP engine or a person starts from the empty
        board: its protocol cannot be told a position.
        """
        from hub.tournaments.policy import openingFor
        from hub.tournaments.standings import Game
        game = Game(1, 1, ("a", "b"))
        for other in ("tcp", None):
            run = self.running({"a": "gomocup", "b": other}, [game])
            self.assertEqual(openingFor(run, game), ())

    def test_placed(self):
        """
        The policy puts the opening's stones on the new table before it
        starts: its GameStarted's position holds them, and the seat
        after the last stone's is to move.
        """
        from hub.lobby import Lobby
        from hub.sessions import Sessions
        from hub.tables.gomoku import GomokuStartPolicy
        from hub.tables.base import EventRecorder
        from twisted.internet.task import Clock
        clock = Clock()
        lobby, sessions = Lobby(clock), Sessions(clock)
        policy = TournamentPolicy(GomokuStartPolicy(clock), ("a", "b"),
                                  None, [(7, 7), (8, 6), (6, 8)])
        lobby.openRoom("gomoku", "7-1-1", policy, 2,
                       settings={OWNER_SEAT: 0})
        recorder = EventRecorder()
        lobby.addTableListener(recorder)
        for name in ("a", "b"):
            session = sessions.connect("gomoku", RoomObserver())
            sessions.claimName(session, name)
            lobby.join("gomoku", "7-1-1", session, RoomObserver())
            lobby.setReady(session, True)
        room = lobby.room("gomoku", "7-1-1")
        lobby.start(room)
        [started] = recorder.ofType(events.GameStarted)
        self.assertEqual(started.position["moves"],
                         [[7, 7], [8, 6], [6, 8]])
        self.assertEqual(room.table.game.currentSeat, 1)
