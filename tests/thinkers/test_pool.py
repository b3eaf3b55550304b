"""
L{hub.thinkers.pool.BotPool}: questions, the queue, deadlines, dead and
silent workers, on a L{Clock}, with stand-in worker processes.
"""

import json

from twisted.internet import defer, error
from twisted.internet.task import Clock
from twisted.logger import globalLogPublisher
from twisted.python.failure import Failure
from twisted.trial.unittest import SynchronousTestCase
from zope.interface.verify import verifyObject

from hub.games.codec import stateFromJSON
from hub.games.gomoku import GomokuGame
from hub.ihub import IThinker, NoThought
from hub.tables.seatpilot import SeatPilot
from hub.thinkers import pool as P
from hub.thinkers.commands import BadQuestion
from hub.thinkers.worker import choose


class FakeProcesses:
    """
    Worker processes that keep each question for the test to answer.

    @ivar asked: the arguments of each question sent, in order.
    @ivar killed: the requests whose worker was killed.
    """

    def __init__(self, size=2, started=None):
        self.size = size
        self.starting = started
        self.asked = []
        self.pending = {}
        self.killed = []
        self.started = self.stopped = 0

    def start(self):
        self.started += 1
        if self.starting is not None:
            return self.starting
        return defer.succeed(None)

    def stop(self):
        self.stopped += 1
        for request in list(self.pending):
            self.kill(request)
        return defer.succeed(None)

    def ask(self, **arguments):
        self.asked.append(arguments)
        d = self.pending[arguments["request"]] = defer.Deferred()
        return d

    def kill(self, request):
        d = self.pending.pop(request, None)
        if d is None:
            return False
        self.killed.append(request)
        d.errback(Failure(error.ProcessTerminated(signal=9)))
        return True

    def answer(self, request, action, cut=False):
        """
        The worker answers C{request} with C{action} (a JSON value).
        """
        self.pending.pop(request).callback(
            {"action": json.dumps(action), "cut": cut})

    def think(self, request):
        """
        The worker answers C{request} as a real one would (level 2 on the
        position sent, without a clock).
        """
        arguments = [a for a in self.asked if a["request"] == request][-1]
        text = choose(arguments["kind"], 2, 0, arguments["seat"],
                      arguments["position"], lambda: False)
        self.pending.pop(request).callback({"action": text, "cut": False})

    def die(self, request):
        """
        The worker thinking of C{request} dies.
        """
        self.pending.pop(request).errback(
            Failure(error.ProcessTerminated(exitCode=1)))


class BotPoolTests(SynchronousTestCase):

    def setUp(self):
        self.clock = Clock()
        self.processes = FakeProcesses()
        self.pool = P.BotPool(self.clock, self.processes, queueSize=2,
                              deadlines={1: 1.0, 2: 1.0, 3: 2.0})
        self.pool.startService()
        self.addCleanup(self.stopPool)

    def stopPool(self):
        if self.pool.running:
            self.pool.stopService()

    def ask(self, level=2, game=None, seat=0):
        results = []
        d = self.pool.think("gomoku", level, 7, game or GomokuGame(), seat)
        d.addBoth(results.append)
        return d, results

    def test_interface(self):
        """
        The pool is an L{IThinker}; starting it starts its workers'
        pool, which no question has yet.
        """
        verifyObject(IThinker, self.pool)
        self.assertEqual(self.processes.started, 1)
        self.assertEqual(self.processes.asked, [])

    def test_question(self):
        """
        A question goes to a worker at once: the kind, level, seed and
        seat, the position in the game's JSON form and the budget (the
        level's deadline); the answer comes back as the game's action.
        """
        game = GomokuGame()
        game.apply(0, (7, 7))
        d, results = self.ask(level=3, game=game, seat=1)
        [asked] = self.processes.asked
        self.assertEqual(
            {k: asked[k] for k in ("kind", "level", "seed", "seat",
                                   "budget")},
            {"kind": "gomoku", "level": 3, "seed": 7, "seat": 1,
             "budget": 2.0})
        self.assertEqual(stateFromJSON(
            "gomoku", json.loads(asked["position"])).moves, [(7, 7)])
        game.apply(1, (0, 0))
        # The position is the one asked about, not today's.
        self.assertEqual(stateFromJSON(
            "gomoku", json.loads(asked["position"])).moves, [(7, 7)])
        self.processes.answer(asked["request"], [8, 8])
        self.assertEqual(results, [(8, 8)])
        self.assertEqual(self.pool.outcomes["answered"], 1)
        self.assertEqual(self.clock.getDelayedCalls(), [])

    def test_workersStarting(self):
        """
        Questions asked while the workers start wait, and their deadlines
        count from when the workers are up: a worker's start is no
        thinking time.
        """
        self.pool.stopService()
        starting = defer.Deferred()
        self.processes = FakeProcesses(started=starting)
        self.pool = P.BotPool(self.clock, self.processes, queueSize=2)
        self.pool.startService()
        d, results = self.ask(level=2)
        self.clock.advance(5)
        self.assertEqual((results, self.processes.asked), ([], []))
        self.assertFalse(self.pool.ready)
        starting.callback(None)
        self.assertTrue(self.pool.ready)
        [asked] = self.processes.asked
        self.assertEqual(asked["budget"], P.DEADLINES[2])
        self.clock.advance(P.DEADLINES[2] + P.LATE_AFTER)
        self.assertEqual(results[0].value.reason, NoThought.LATE)

    def observeUp(self):
        """
        The pool's C{bot-pool-up} lines from now on.
        """
        lines = []

        def observe(event):
            if event.get("event") == "bot-pool-up":
                lines.append(event["workers"])
        globalLogPublisher.addObserver(observe)
        self.addCleanup(globalLogPublisher.removeObserver, observe)
        return lines

    def test_workersUpLogged(self):
        """
        The workers up: one line says how many (ampoule's own lines are
        debug, L{hub.logs.CHATTY}).
        """
        self.pool.stopService()
        starting = defer.Deferred()
        self.processes = FakeProcesses(size=3, started=starting)
        self.pool = P.BotPool(self.clock, self.processes)
        lines = self.observeUp()
        self.pool.startService()
        self.assertEqual(lines, [])
        starting.callback(None)
        self.assertEqual(lines, [3])

    def test_workersDoNotStart(self):
        """
        Workers that cannot start: logged (and not said to be up); the
        questions go out anyway (and fail as their workers do).
        """
        self.pool.stopService()
        self.processes = FakeProcesses(started=defer.fail(OSError("no")))
        self.pool = P.BotPool(self.clock, self.processes)
        lines = self.observeUp()
        self.pool.startService()
        self.assertEqual(len(self.flushLoggedErrors(OSError)), 1)
        self.assertEqual(lines, [])
        self.ask()
        self.assertEqual(len(self.processes.asked), 1)

    def test_cut(self):
        """
        An answer whose search ran out of time is counted as cut.
        """
        d, results = self.ask(level=3)
        self.processes.answer(self.processes.asked[0]["request"], [1, 1],
                              cut=True)
        self.assertEqual(results, [(1, 1)])
        self.assertEqual(self.pool.outcomes["cut"], 1)

    def test_queue(self):
        """
        One question per worker is in flight; the others wait, in order,
        and go to the first worker free, with what is left of their
        deadline as budget.
        """
        asks = [self.ask()[1] for _ in range(4)]
        self.assertEqual([a["request"] for a in self.processes.asked],
                         [1, 2])
        self.assertEqual((self.pool.busy, self.pool.waiting), (2, 2))
        self.clock.advance(0.25)
        self.processes.answer(2, [0, 0])
        self.assertEqual(asks[1], [(0, 0)])
        self.assertEqual([a["request"] for a in self.processes.asked],
                         [1, 2, 3])
        self.assertEqual(self.processes.asked[2]["budget"], 0.75)

    def test_queueFull(self):
        """
        Past the queue's bound a question fails at once (the pilot then
        plays a rules' move), and the pool warns once, not per question.
        """
        for _ in range(4):
            self.ask()
        results = [self.ask()[1] for _ in range(3)]
        for result in results:
            self.assertEqual(result[0].value.reason, NoThought.FULL)
        self.assertEqual(self.pool.outcomes["full"], 3)
        self.assertEqual(len(self.processes.asked), 2)

    def test_queueFullWarnsOnce(self):
        """
        The pool warns once per overload: again only after the queue was
        down to half its bound.
        """
        warnings = []

        def observe(event):
            if event.get("event") == "bot-pool-full":
                warnings.append(event["event"])
        globalLogPublisher.addObserver(observe)
        self.addCleanup(globalLogPublisher.removeObserver, observe)
        for _ in range(4):
            self.ask()
        for _ in range(3):
            self.ask()
        self.assertEqual(warnings, ["bot-pool-full"])
        self.processes.answer(1, [0, 0])
        self.processes.answer(2, [0, 0])
        self.assertEqual(self.pool.waiting, 0)
        for _ in range(4):
            self.ask()
        self.assertEqual(warnings, ["bot-pool-full", "bot-pool-full"])

    def test_late(self):
        """
        A question still unanswered one second past its deadline fails
        (L{NoThought.LATE}); its worker, silent ten seconds past it, is
        killed, and its slot goes to the next question.
        """
        d, results = self.ask(level=2)
        waiting = [self.ask()[1] for _ in range(2)]
        self.clock.advance(1.99)
        self.assertEqual(results, [])
        self.clock.advance(0.01)
        self.assertEqual(results[0].value.reason, NoThought.LATE)
        self.assertEqual(self.processes.killed, [])
        # The questions that waited were late too: they never went out.
        self.assertEqual(waiting[1][0].value.reason, NoThought.LATE)
        self.assertEqual(self.pool.outcomes["late"], 4 - 1)
        self.clock.advance(9)
        self.assertEqual(self.processes.killed, [1, 2])
        self.assertEqual(self.pool.workerDeaths, 2)
        self.assertEqual(self.pool.busy, 0)
        self.assertEqual(self.clock.getDelayedCalls(), [])

    def test_lateAnswerDropped(self):
        """
        An answer that comes after the question failed late is dropped,
        and its worker is not killed.
        """
        d, results = self.ask()
        self.clock.advance(2)
        self.processes.answer(1, [3, 3])
        self.assertEqual(len(results), 1)
        self.clock.advance(20)
        self.assertEqual(self.processes.killed, [])
        self.assertEqual(self.clock.getDelayedCalls(), [])

    def test_waitedPastDeadline(self):
        """
        A question that waited until past its deadline (but not its
        lateness) still goes out, with the least budget: a worker's
        level-2 move beats a rules' move.
        """
        self.ask()
        self.ask()
        d, results = self.ask()
        self.clock.advance(1.5)
        self.processes.answer(1, [0, 0])
        self.assertEqual(self.processes.asked[2]["budget"], P.MIN_BUDGET)
        self.processes.answer(3, [4, 4])
        self.assertEqual(results, [(4, 4)])

    def test_workerDies(self):
        """
        A worker that dies under a question: the question is asked again
        of another (once), the death logged once.
        """
        d, results = self.ask()
        self.processes.die(1)
        self.assertEqual([a["request"] for a in self.processes.asked],
                         [1, 1])
        self.processes.think(1)
        self.assertEqual(results, [(7, 7)])
        self.assertEqual(self.pool.workerDeaths, 1)
        self.assertEqual(len(self.flushLoggedErrors()), 0)

    def test_workerDiesTwice(self):
        """
        A question whose second worker dies too fails
        (L{NoThought.LOST}).
        """
        d, results = self.ask()
        self.processes.die(1)
        self.processes.die(1)
        self.assertEqual(results[0].value.reason, NoThought.LOST)
        self.assertEqual(self.pool.workerDeaths, 2)

    def test_badQuestion(self):
        """
        A worker that cannot answer (the seat has nothing to play, say)
        fails the question (L{NoThought.LOST}), logged.
        """
        d, results = self.ask()
        self.processes.pending.pop(1).errback(BadQuestion("no"))
        self.assertEqual(results[0].value.reason, NoThought.LOST)
        self.assertEqual(len(self.flushLoggedErrors(BadQuestion)), 1)

    def test_badAnswer(self):
        """
        An answer that is no action of the game fails the question.
        """
        d, results = self.ask()
        self.processes.answer(1, {"op": "x"})
        self.assertEqual(results[0].value.reason, NoThought.LOST)

    def test_withdraw(self):
        """
        Cancelling a question withdraws it: waiting, it never goes out;
        in flight, its answer is dropped; its timers are gone.
        """
        first, _ = self.ask()
        self.ask()
        third, results = self.ask()
        third.cancel()
        first.cancel()
        self.assertEqual(self.pool.waiting, 0)
        self.processes.answer(1, [0, 0])
        self.assertEqual([a["request"] for a in self.processes.asked],
                         [1, 2])
        self.assertEqual(len(self.clock.getDelayedCalls()), 1)

    def test_stop(self):
        """
        Stopping the pool fails every question (L{NoThought.STOPPED}),
        stops the workers, leaves no timer, and refuses new questions.
        """
        asks = [self.ask()[1] for _ in range(3)]
        self.pool.stopService()
        for result in asks:
            self.assertEqual(result[0].value.reason, NoThought.STOPPED)
        self.assertEqual(self.processes.stopped, 1)
        self.assertEqual(self.clock.getDelayedCalls(), [])
        d, results = self.ask()
        self.assertEqual(results[0].value.reason, NoThought.STOPPED)


class PilotAndPoolTests(SynchronousTestCase):
    """
    A seat pilot asking the pool: what the seat plays in each case.
    """

    def setUp(self):
        self.clock = Clock()
        self.processes = FakeProcesses(size=1)
        self.pool = P.BotPool(self.clock, self.processes, queueSize=1,
                              deadlines={1: 1.0, 2: 1.0, 3: 2.0})
        self.pool.startService()
        self.played = []

    def turn(self, level=3, delay=0.5):
        game = GomokuGame()
        pilot = SeatPilot(self.clock, self.pool, "gomoku", level, 0, delay)

        def play(action):
            self.played.append(action)
            game.apply(0, action)
        pilot.turn(game, 0, play)
        return pilot

    def test_answered(self):
        """
        The worker's answer is played once the delay is over.
        """
        self.turn()
        self.processes.think(1)
        self.clock.advance(0.5)
        self.assertEqual(self.played, [(7, 7)])

    def test_deadline(self):
        """
        No answer by the deadline and its grace: the seat's first legal
        action is played, and the silent worker is killed later.
        """
        self.turn(level=3)
        self.clock.advance(2.99)
        self.assertEqual(self.played, [])
        self.clock.advance(0.01)
        self.assertEqual(self.played, [(0, 0)])
        self.clock.advance(9)
        self.assertEqual(self.processes.killed, [1])
        self.assertEqual(self.clock.getDelayedCalls(), [])

    def test_workerCrash(self):
        """
        The worker dies: the move is asked again, and the new worker's
        answer is played; the game goes on.
        """
        self.turn()
        self.processes.die(1)
        self.processes.think(1)
        self.clock.advance(0.5)
        self.assertEqual(self.played, [(7, 7)])

    def test_queueFull(self):
        """
        The queue full: the seat plays its first legal action after the
        delay, without waiting.
        """
        self.turn()
        self.turn()
        self.turn()
        self.clock.advance(0.5)
        self.assertEqual(self.played, [(0, 0)])

    def test_stop(self):
        """
        The pool stops under a turn: nothing is played, no timer stays.
        """
        pilot = self.turn()
        self.pool.stopService()
        self.clock.advance(5)
        self.assertEqual(self.played, [])
        self.assertFalse(pilot.pending)
        self.assertEqual(self.clock.getDelayedCalls(), [])


class CpuCountTests(SynchronousTestCase):

    def test_cpuCount(self):
        """
        The default number of workers is the CPUs this process may use.
        """
        import os
        self.assertEqual(P.cpuCount(), len(os.sched_getaffinity(0)))
