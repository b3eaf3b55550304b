"""
The real pool: L{hub.thinkers.pool.BotPool} over ampoule's worker
processes (L{hub.thinkers.pool.WorkerProcesses}) running
L{hub.thinkers.worker}, on the reactor.  Waits are for events, bounded by
the test's timeout.
"""

import importlib.util
import json
import os
import signal

from twisted.internet import defer, error, reactor, task
from twisted.internet.testing import MemoryReactorClock, StringTransport
from twisted.python.failure import Failure
from twisted.trial.unittest import SynchronousTestCase, TestCase

from hub.clock import TrackedClock
from hub.games.codec import stateToJSON
from hub.games.gomoku import GomokuGame
from hub.ihub import NoThought
from hub.thinkers import worker
from hub.thinkers.commands import BadQuestion
from hub.thinkers.pool import BotPool, WorkerProcesses

from tests.bots.support import reachable


def alive(pid):
    """
    Whether process C{pid} exists and is no zombie.
    """
    try:
        with open("/proc/{}/stat".format(pid)) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@defer.inlineCallbacks
def until(condition, interval=0.05):
    """
    Wait, on the reactor, until C{condition()} is true.
    """
    while not condition():
        yield task.deferLater(reactor, interval, lambda: None)


class ReactorTests(SynchronousTestCase):
    """
    The workers start once the hub's reactor runs: a hub built on a
    reactor that never runs (a test's fake) starts none.
    """

    def test_notRunning(self):
        """
        Started on a reactor that is not running, the pool starts no
        worker and leaves nothing on the global reactor; stopped, it is
        done at once, and starts none when that reactor runs later.
        """
        fake = MemoryReactorClock()
        before = set(reactor.getDelayedCalls())
        processes = WorkerProcesses(2, TrackedClock(fake), fake)
        started = processes.start()
        self.assertNoResult(started)
        self.assertEqual(processes.pids(), [])
        self.assertEqual(set(reactor.getDelayedCalls()), before)
        self.successResultOf(processes.stop())
        for hook, args, kwargs in fake.whenRunningHooks:
            hook(*args, **kwargs)
        self.assertEqual(processes.pids(), [])
        self.assertEqual(set(reactor.getDelayedCalls()), before)
        self.assertNoResult(started)


class RealPoolTests(TestCase):
    """
    Questions answered by real worker processes.
    """

    timeout = 60

    def makePool(self, size=2, **options):
        clock = TrackedClock(reactor)
        processes = WorkerProcesses(size, clock, reactor)
        pool = BotPool(clock, processes, **options)
        pool.startService()

        def stop():
            d = pool.stopService()
            return d.addCallback(lambda _: clock.cancelAll())
        self.addCleanup(stop)
        return pool, processes

    @defer.inlineCallbacks
    def test_movesOfEveryKind(self):
        """
        Workers answer legal moves of every kind and level, from other
        processes than this one; they start with the pool, once the
        reactor runs.
        """
        pool, processes = self.makePool()
        yield until(lambda: pool.ready)
        self.assertEqual(len(processes.pids()), 2)
        for kind in ("gomoku", "checkers", "splendor"):
            game = reachable(kind, 3 if kind != "gomoku" else 2, 4, 10)
            seat = game.currentSeat
            for level in (1, 2, 3):
                action = yield pool.think(kind, level, 5, game, seat)
                self.assertIn(action, game.legalActions(seat))
        pids = processes.pids()
        self.assertEqual(len(pids), 2)
        self.assertNotIn(os.getpid(), pids)
        self.assertEqual(pool.outcomes["answered"], 9)

    @defer.inlineCallbacks
    def test_workerProcess(self):
        """
        A worker runs nicer than the hub, with a ceiling on its memory,
        and with the hub's PYTHONPATH and nothing else of its
        environment.
        """
        pool, processes = self.makePool(size=1)
        yield pool.think("gomoku", 1, 0, GomokuGame(), 0)
        [pid] = processes.pids()
        with open("/proc/{}/stat".format(pid)) as f:
            nice = int(f.read().rsplit(")", 1)[1].split()[16])
        self.assertEqual(nice, os.nice(0) + worker.NICENESS)
        with open("/proc/{}/limits".format(pid)) as f:
            limits = f.read()
        self.assertRegex(limits, r"Max address space\s+{0}\s+{0}".format(
            worker.MEMORY))
        with open("/proc/{}/environ".format(pid), "rb") as f:
            names = {entry.split(b"=", 1)[0]
                     for entry in f.read().split(b"\0") if entry}
        self.assertLessEqual(names, {b"PYTHONPATH"})

    @defer.inlineCallbacks
    def test_workerWithoutTLS(self):
        """
        A worker loads Twisted without TLS (L{hub.withouttls}): nothing
        of cryptography (which pyOpenSSL would bring) is mapped in it,
        though this process could load it.
        """
        self.assertIsNotNone(importlib.util.find_spec("cryptography"))
        pool, processes = self.makePool(size=1)
        yield pool.think("gomoku", 1, 0, GomokuGame(), 0)
        [pid] = processes.pids()
        with open("/proc/{}/maps".format(pid)) as f:
            mapped = {line.split()[-1] for line in f if "/" in line}
        self.assertTrue(any("/hub/" in path or "python" in path
                            for path in mapped), mapped)
        self.assertEqual({path for path in mapped
                          if "/cryptography/" in path}, set())

    @defer.inlineCallbacks
    def test_signals(self):
        """
        A worker lives through SIGINT and SIGTERM (sent to the whole
        group by a terminal or systemd): the hub stops it, after its
        games.
        """
        pool, processes = self.makePool(size=1)
        yield pool.think("gomoku", 1, 0, GomokuGame(), 0)
        [pid] = processes.pids()
        os.kill(pid, signal.SIGINT)
        os.kill(pid, signal.SIGTERM)
        action = yield pool.think("gomoku", 2, 0, GomokuGame(), 0)
        self.assertEqual(action, (7, 7))
        self.assertEqual(processes.pids(), [pid])

    @defer.inlineCallbacks
    def test_deadWorker(self):
        """
        A worker killed while it thinks: the question is asked again and
        answered by a new worker; the game goes on.
        """
        pool, processes = self.makePool(size=1)
        yield pool.think("gomoku", 1, 0, GomokuGame(), 0)
        [pid] = processes.pids()
        # Stopped, it cannot answer before it is killed.
        os.kill(pid, signal.SIGSTOP)
        game = reachable("gomoku", 2, 1, 8)
        d = pool.think("gomoku", 3, 0, game, game.currentSeat)
        os.kill(pid, signal.SIGKILL)
        action = yield d
        self.assertIn(action, game.legalActions(game.currentSeat))
        self.assertEqual(pool.workerDeaths, 1)
        [new] = processes.pids()
        self.assertNotEqual(new, pid)

    @defer.inlineCallbacks
    def test_hungWorker(self):
        """
        A worker that gives no answer: the question fails late, the
        worker is killed a little later, and a new one answers the next
        question.
        """
        pool, processes = self.makePool(size=1)
        # Once the worker is up (it takes a second or so to start), short
        # times.
        yield pool.think("gomoku", 1, 0, GomokuGame(), 0)
        normal = pool.deadlines, pool.lateAfter, pool.hungAfter
        pool.deadlines = {1: 0.2, 2: 0.2, 3: 0.2}
        pool.lateAfter, pool.hungAfter = 0.2, 0.5
        [pid] = processes.pids()
        os.kill(pid, signal.SIGSTOP)
        failure = yield self.assertFailure(
            pool.think("gomoku", 2, 0, GomokuGame(), 0), NoThought)
        self.assertEqual(failure.reason, NoThought.LATE)
        yield until(lambda: not alive(pid))
        self.assertEqual(pool.workerDeaths, 1)
        # The hub's own times again: on a loaded machine the new worker's
        # first answer may take longer than the short ones (its start is
        # no thinking time).
        pool.deadlines, pool.lateAfter, pool.hungAfter = normal
        action = yield pool.think("gomoku", 2, 0, GomokuGame(), 0)
        self.assertEqual(action, (7, 7))
        self.assertNotEqual(processes.pids(), [pid])

    @defer.inlineCallbacks
    def test_badQuestion(self):
        """
        A question the worker cannot answer fails (L{NoThought.LOST});
        the worker lives on.
        """
        pool, processes = self.makePool(size=1)
        game = GomokuGame()
        failure = yield self.assertFailure(
            pool.think("gomoku", 2, 0, game, 1), NoThought)
        self.assertEqual(failure.reason, NoThought.LOST)
        self.flushLoggedErrors()
        [pid] = processes.pids()
        yield pool.think("gomoku", 2, 0, game, 0)
        self.assertEqual(processes.pids(), [pid])

    @defer.inlineCallbacks
    def test_stop(self):
        """
        Stopping the pool ends every worker: the one thinking at once,
        one that does not answer the order to stop after a while.
        """
        clock = TrackedClock(reactor)
        processes = WorkerProcesses(2, clock, reactor, stopSeconds=0.5)
        pool = BotPool(clock, processes)
        pool.startService()
        yield defer.gatherResults([
            pool.think("gomoku", 1, 0, GomokuGame(), 0) for _ in range(2)])
        pids = processes.pids()
        for pid in pids:
            os.kill(pid, signal.SIGSTOP)
        d = pool.think("gomoku", 3, 0, GomokuGame(), 0)
        d.addErrback(lambda f: f.trap(NoThought))
        yield pool.stopService()
        yield d
        self.assertFalse(any(alive(pid) for pid in pids))
        self.assertEqual(clock.getDelayedCalls(), [])


class WorkerTests(SynchronousTestCase):
    """
    What a worker does with a question, in this process.
    """

    def test_choose(self):
        """
        The worker reads the position in the game's JSON form and answers
        the action in it.
        """
        game = GomokuGame()
        game.apply(0, (7, 7))
        text = worker.choose("gomoku", 2, 0, 1, json.dumps(
            stateToJSON("gomoku", game)), lambda: False)
        self.assertIn(tuple(json.loads(text)), game.legalActions(1))

    def test_badQuestions(self):
        """
        An unknown kind or level, a position that is none, a seat with
        nothing to play: L{BadQuestion}.
        """
        position = json.dumps(stateToJSON("gomoku", GomokuGame()))
        for question in (("chess", 2, 0, 0, position),
                         ("gomoku", 4, 0, 0, position),
                         ("gomoku", 2, 0, 0, "{}"),
                         ("gomoku", 2, 0, 0, "not json"),
                         ("gomoku", 2, 0, 1, position)):
            self.assertRaises(BadQuestion, worker.choose, *question,
                              lambda: False)

    def test_deadline(self):
        """
        L{worker.deadline} is true once its budget is spent on its clock.
        """
        now = [10.0]
        expired = worker.deadline(0.5, lambda: now[0])
        self.assertFalse(expired())
        now[0] = 10.49
        self.assertFalse(expired())
        now[0] = 10.5
        self.assertTrue(expired())

    def test_exits(self):
        """
        A worker whose connection is lost exits: with status 1 unless the
        pool told it to stop first; its reactor is stopped.
        """
        class Reactor:
            running = True

            def stop(self):
                self.running = False

        for told in (False, True):
            exits = []
            fake = Reactor()
            child = worker.BotWorker(fake, exits.append)
            child.makeConnection(StringTransport())
            if told:
                self.assertEqual(child.shutdown(), {})
            child.connectionLost(Failure(error.ConnectionDone()))
            self.assertFalse(fake.running)
            self.assertEqual(exits, [] if told else [1])
        self.assertEqual(worker.BotWorker().hello(), {"pid": os.getpid()})
