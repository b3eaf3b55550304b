"""
The stdio engine protocol (L{hub.tournaments.stdio}): its requests and
answers, the examples of C{examples/engines/} (a random legal player
per game in Python, and one in C built here with C{cc}) playing real
games in the bwrap sandbox through the engine launcher, and hostile
engines (C{stdioengine.py}: late, pondering, illegal, garbled, silent,
exiting, flooding debug) beside fair ones.
"""

import json
import os
import random
import shutil
import subprocess

import attr
from twisted.internet import defer, reactor
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase, TestCase

from hub.games import splendor
from hub.sandbox.confine import Confinement
from hub.sandbox.process import BwrapSandbox
from hub.tables import events
from hub.tournaments import gomocup, stdio
from hub.tournaments.gamelog import GameLog
from hub.tournaments.interfaces import EngineSpec
from hub.wire import gomocup as wire
from tests.sandbox.support import folder, waitFor
from tests.tournaments.test_engines import MB, WAIT, bounded
from tests.tournaments.test_gomocup import (
    Event, HubHarness, MemoryLog, Pairing, treeOf)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EXAMPLES = os.path.join(ROOT, "examples", "engines")
ENGINE = os.path.join(HERE, "stdioengine.py")


class CodecTests(SynchronousTestCase):
    """
    A request's fields and an answer's checks.
    """

    def test_request(self):
        """
        One compact JSON line: the protocol and its version, the kind,
        the seat, the seats, the position, the legal actions in the
        records' JSON form, the time left and the turn's allowance.
        """
        line = stdio.request("gomoku", 1, 2, {"size": 15, "moves": [[7, 7]]},
                             [(0, 0), (1, 0)], 170000, 5000)
        self.assertTrue(line.endswith(b"\n"))
        self.assertNotIn(b" ", line)
        self.assertEqual(json.loads(line), {
            "protocol": "gamehub-stdio", "version": 1, "kind": "gomoku",
            "seat": 1, "seats": 2,
            "position": {"size": 15, "moves": [[7, 7]]},
            "legal": [[0, 0], [1, 0]], "timeLeftMs": 170000,
            "turnMs": 5000})

    def test_answer(self):
        """
        An answer's action, as the records write it, is the canonical
        action if legal; anything else is an illegal action.
        """
        legal = [((0, 0), (1, 1)), ((2, 2), (3, 3))]
        self.assertEqual(stdio.answer("checkers", [[2, 2], [3, 3]], legal),
                         ((2, 2), (3, 3)))
        for wrong in ([[9, 9], [3, 3]], "e4", {"op": 1}, None):
            e = self.assertRaises(gomocup.BrainFailed, stdio.answer,
                                  "checkers", wrong, legal)
            self.assertEqual(e.reason, gomocup.ILLEGAL)
        buy = splendor.Action("get_gems", 0, (("diamond", 1), ("ruby", 1),
                                              ("emerald", 1))).canonical()
        self.assertEqual(stdio.answer(
            "splendor", {"op": "get_gems", "card": 0, "gems": {
                "ruby": 1, "emerald": 1, "diamond": 1}}, [buy]), buy)

    def test_gomokuRequest(self):
        """
        A gomoku request built from each cell's JSON is byte for byte
        json.dumps of the whole request (compact), whatever the
        position: the start, a game under way (either seat asked), a
        game over, with or without limits; and so is one built from the
        cells kept since the game's earlier requests (L{GomokuCells}).
        """
        from hub.games.gomoku import GomokuGame
        from hub.tables.gomoku import GomokuTable

        def full(game, seat, left, turn):
            return json.dumps({
                "protocol": "gamehub-stdio", "version": 1,
                "kind": "gomoku", "seat": seat, "seats": 2,
                "position": {"size": 15, "moves": [
                    [x, y] for x, y in game.moves]},
                "legal": [[x, y] for x, y in game.legalActions(seat)],
                "timeLeftMs": left, "turnMs": turn},
                separators=(",", ":")).encode() + b"\n"
        game = GomokuGame()
        cells = [(x, y) for y in range(15) for x in range(15)]
        random.Random(7).shuffle(cells)
        positions = 0
        kept = stdio.GomokuCells()
        for cell in cells:
            for seat in (0, 1):
                for left, turn in ((None, None), (170000, 5000),
                                   (0, None), (None, 1250)):
                    line = stdio.gomokuRequest(game, seat, 2, left, turn)
                    self.assertEqual(line, full(game, seat, left, turn))
                    self.assertEqual(stdio.gomokuRequest(
                        game, seat, 2, left, turn, kept), line)
                    positions += 1
            if game.isOver:
                break
            game.apply(game.currentSeat, cell)
        self.assertTrue(game.isOver)
        self.assertGreater(positions, 80)
        other = GomokuGame()
        other.apply(0, (3, 4))
        self.assertEqual(stdio.gomokuRequest(other, 1, 2, None, None, kept),
                         full(other, 1, None, None))
        seats = tuple(events.Seat(seat, name, seat + 1, colour, False)
                      for seat, (name, colour) in enumerate(
                          (("b", 1), ("w", 16))))
        table = GomokuTable("r", seats, Clock(), game=game)
        self.assertEqual(
            stdio.gomokuRequest(game, 1, 2, 10, 20),
            stdio.request("gomoku", 1, 2, table.position(),
                          game.legalActions(1), 10, 20))

    def test_gomokuAnswer(self):
        """
        A gomoku answer is the cell if the game may take it now; a cell
        taken, off the board, not whole numbers, or not a cell is an
        illegal action.
        """
        from hub.games.gomoku import GomokuGame
        game = GomokuGame()
        game.apply(0, (7, 7))
        self.assertEqual(stdio.gomokuAnswer(game, [8, 8]), (8, 8))
        for wrong in ([7, 7], [15, 0], [-1, 3], [7.0, 8], ["7", 8],
                      "h8", {"x": 1}, None, [1, 2, 3]):
            e = self.assertRaises(gomocup.BrainFailed, stdio.gomokuAnswer,
                                  game, wrong)
            self.assertEqual(e.reason, gomocup.ILLEGAL)

    def test_splendorPosition(self):
        """
        Splendor's position shows a seat its own reserved cards, and the
        others' as a count only.
        """
        game = splendor.SplendorGame(2)
        card = game.board[0][0]
        game.apply(0, splendor.Action("fold_card", card, ()))
        mine = stdio.splendorPosition(game, 0)
        theirs = stdio.splendorPosition(game, 1)
        self.assertEqual(mine["players"][0]["reserved"], [card])
        self.assertNotIn("reserved", theirs["players"][0])
        self.assertEqual(theirs["players"][0]["reservedCount"], 1)
        self.assertEqual(theirs["decks"], [len(d) for d in game.decks])
        json.dumps(mine)


class Example:
    """
    An engine entrant that is one of the examples.
    """

    key = None

    def __init__(self, name, argv, folder):
        self.name = name
        self.engine = EngineSpec(name, tuple(argv), folder, "stdio", 60,
                                 512 * MB)


class ExampleTests(HubHarness, TestCase):
    """
    The examples play: Python against C, at each game.
    """

    def setUp(self):
        HubHarness.setUp(self)
        self.built = folder(self, 0o755)
        for name in os.listdir(EXAMPLES):
            shutil.copy(os.path.join(EXAMPLES, name), self.built)
        subprocess.run(["cc", "-O2", "-Wall", "-Werror", "-o",
                        os.path.join(self.built, "random_player"),
                        os.path.join(self.built, "random_player.c")],
                       check=True, timeout=120)

    def python(self, name, kind):
        return Example(name, ["python", os.path.join(self.built,
                                                     kind + ".py")],
                       self.built)

    def c(self, name):
        return Example(name, [os.path.join(self.built, "random_player")],
                       self.built)

    def open(self, event, kind, entrants):
        """
        Open a C{kind} pairing's room and launch its engines.

        @return: the pairing.
        """
        pairing = Pairing(event.id, 1, 1, tuple(e.name for e in entrants),
                          kind)
        self.openRoom(pairing, kind)
        bounded(self.launcher.launch(Event(event.id, kind, 5000),
                                     pairing, entrants))
        return pairing

    @defer.inlineCallbacks
    def test_gomoku(self):
        """
        Python's and C's random players play a gomoku game to its end.
        """
        ended = yield self.play(Event(50, turnMs=5000), 1, 1,
                                self.python("py", "gomoku"), self.c("cc"))
        self.assertEqual(ended.reason, events.NORMAL)
        self.assertEqual(self.launcher.endOf(50, "50-1-1"), {})
        log = self.launcher.engineLog(50, "50-1-1", "py").decode()
        self.assertIn("debug: ", log)

    @defer.inlineCallbacks
    def test_splendor(self):
        """
        Two Python players and the C one play a three-seat Splendor game
        to its end; the director's C{entrantOf} knows each seat.
        """
        players = [self.python("py1", "splendor"), self.c("cc"),
                   self.python("py2", "splendor")]
        pairing = self.open(Event(51, "splendor"), "splendor", players)
        ended = yield bounded(self.watcher.whenEnded(pairing.room))
        self.assertEqual(ended.reason, events.NORMAL)
        table = self.watcher.tables[pairing.room]
        self.assertEqual(
            sorted(self.launcher.entrantOf(pairing.room, s.playerId)
                   for s in table.seats), ["cc", "py1", "py2"])
        self.assertEqual(self.launcher.endOf(51, pairing.room), {})
        self.launcher.stop(pairing, ended=True)

    @defer.inlineCallbacks
    def test_checkers(self):
        """
        Python's and C's random players play Chinese checkers: each
        plays 30 legal moves (random players may never finish), and the
        game is cut off.
        """
        pairing = self.open(Event(52, "checkers"), "checkers",
                            [self.python("py", "checkers"), self.c("cc")])
        room = self.hub.lobby.room("checkers", pairing.room)
        players = [p for p in self.launcher.brains.players[pairing.room]]
        yield waitFor(lambda: all(p.moves >= 30 for p in players))
        self.assertIsNotNone(room.table)
        self.assertFalse(room.table.over)
        self.assertEqual([p.failure for p in players], [None, None])
        self.launcher.stop(pairing)


@attr.s(frozen=True)
class Engine:
    """
    An entrant that is the tests' stdio engine (C{stdioengine.py}) in
    one of its modes.
    """

    name = attr.ib()
    mode = attr.ib(default="fair")
    seed = attr.ib(default=1)
    key = None

    @property
    def engine(self):
        return EngineSpec(self.name, ("python", ENGINE, self.mode,
                                      str(self.seed)),
                          HERE, "stdio", 30, 512 * MB)


class StdioProcessTests(TestCase):
    """
    L{stdio.StdioProcess} and the tests' engine in the bwrap sandbox:
    the ways a hostile engine answers one request.
    """

    timeout = 2 * WAIT

    def engine(self, mode, log=None, pondering=False):
        process = stdio.StdioProcess(reactor, log or MemoryLog(), pondering)
        box = BwrapSandbox(reactor, folder(self))
        self.handle = box.spawn(process, Confinement(
            ["python", ENGINE, mode], folder=HERE))

        def kill():
            if process.running:
                process.kill()
                return bounded(process.ended)
        self.addCleanup(kill)
        return process

    def ask(self, process, moves=(), timeoutMs=5000):
        """
        Ask C{process} for black's or white's move after C{moves}.
        """
        taken = set(moves)
        legal = [(x, y) for y in range(15) for x in range(15)
                 if (x, y) not in taken]
        line = stdio.request("gomoku", len(moves) % 2, 2,
                             {"size": 15, "moves": [list(m) for m in moves]},
                             legal, None, timeoutMs)
        return bounded(process.ask(line, "action", timeoutMs))

    @defer.inlineCallbacks
    def secondAnswer(self, mode, timeoutMs=5000):
        """
        C{mode}'s failure at its second answer.
        """
        process = self.engine(mode)
        first, _ = yield self.ask(process, (), timeoutMs)
        move = tuple(first)
        other = (0, 0) if move != (0, 0) else (1, 1)
        d = self.ask(process, (move, other), timeoutMs)
        e = yield self.assertFailure(d, gomocup.BrainFailed)
        return e

    @defer.inlineCallbacks
    def test_late(self):
        """
        An engine that answers after its turn limit and the tolerance
        has lost on time when the limit is over, not when it answers.
        """
        e = yield self.secondAnswer("late", 300)
        self.assertEqual((e.reason, e.detail),
                         (gomocup.TIME, "no answer within 300 ms"))

    @defer.inlineCallbacks
    def test_garbled(self):
        """
        A line that is no JSON object is an unparsable action.
        """
        e = yield self.secondAnswer("garbled")
        self.assertEqual((e.reason, e.detail),
                         (gomocup.ILLEGAL, "not a JSON object: h8"))

    @defer.inlineCallbacks
    def test_exit(self):
        """
        An engine that exits while it is asked: a crash, how it ended.
        """
        e = yield self.secondAnswer("exit")
        self.assertEqual((e.reason, e.detail),
                         (gomocup.CRASH, "exited with status 3"))

    @defer.inlineCallbacks
    def test_stoppedOffTurn(self):
        """
        An engine that thinks all the time (a spinning thread) is stopped
        once it answered (after the grace, L{gomocup.STOP_GRACE}): its
        tree uses no CPU while another, allowed to
        ponder, spins on (0.2 s of its CPU); its next request continues
        it.
        """
        process = self.engine("ponder")
        stopped = self.handle
        pondering = self.engine("ponder", pondering=True)
        spinning = self.handle
        first, _ = yield self.ask(process)
        yield self.ask(pondering)
        yield waitFor(lambda: process.stopped,
                      interval=gomocup.STOP_GRACE)
        self.assertFalse(pondering.stopped)

        def cpu(handle):
            return sum(ticks for _, _, ticks in treeOf(handle.group))
        yield waitFor(lambda: all(
            s == "T" for _, s, _ in treeOf(stopped.group)))
        before, other = cpu(stopped), cpu(spinning)
        yield waitFor(lambda: cpu(spinning) > other + 20)
        self.assertEqual(cpu(stopped), before)
        self.assertTrue(all(s != "T" for _, s, _ in treeOf(spinning.group)))
        move, _ = yield self.ask(process, (tuple(first), (0, 0)
                                           if tuple(first) != (0, 0)
                                           else (1, 1)))
        self.assertEqual(len(move), 2)

    @defer.inlineCallbacks
    def test_debugFlood(self):
        """
        10 MB of C{debug} lines before an answer: the answer is read,
        the log stays within its cap, the splitter's buffer within a
        line.
        """
        path = os.path.join(folder(self), "engine.log")
        log = GameLog(path, cap=256 * 1024)
        process = self.engine("debug", log)
        move, _ = yield self.ask(process)
        self.assertEqual(len(move), 2)
        self.assertGreater(log.dropped, 4 * MB)
        log.close()
        self.assertLess(os.path.getsize(path), 256 * 1024 + 4096)
        self.assertLessEqual(len(process.splitter._buffer), wire.MAX_LINE)


class HostileTests(HubHarness, TestCase):
    """
    Hostile stdio engines in whole games, as the Gomocup brains' (in
    L{tests.tournaments.test_gomocup.GameTests.test_hostile}).
    """

    @defer.inlineCallbacks
    def test_hostile(self):
        """
        Hostile stdio engines, each against a fair one, all games at
        once: each ends as documented (docs/protocols/engines.md), the
        fair pairing's game ends on the board, and an engine that
        crashed plays its next game in a new process.
        """
        # A turn long enough for the 10 MB of debug output on a loaded
        # machine, with every game at once.
        event = Event(61, turnMs=3000)
        modes = {"late": (events.TIMEOUT, gomocup.TIME),
                 "illegal": (events.ILLEGAL, gomocup.ILLEGAL),
                 "garbled": (events.ILLEGAL, gomocup.ILLEGAL),
                 "silent": (events.TIMEOUT, gomocup.TIME),
                 "exit": (events.FORFEIT, gomocup.CRASH),
                 "debug": (events.NORMAL, None),
                 "ponder": (events.NORMAL, None)}
        yield self.playHostile(event, modes, Engine)
        log = self.launcher.engineLog(event, "61-1-3", "garbled").decode()
        self.assertIn("?h8", log)
        crashed = self.launcher.brains.brains[(61, "exit")]
        self.assertEqual(crashed.crashes, 1)
        first = crashed.process
        # The crashed engine's next game: a new process, which plays its
        # first move (and crashes again at its second).
        ended = yield self.play(event, 2, 1, Engine("fairexit", seed=3),
                                Engine("exit", "exit"))
        self.assertEqual((ended.reason, ended.winner), (events.FORFEIT, 0))
        self.assertIsNot(crashed.process, first)
        self.assertEqual(crashed.crashes, 2)
        log = self.launcher.engineLog(event, "61-2-1", "exit").decode()
        self.assertIn("exit answer 1 of 224 legal", log)
