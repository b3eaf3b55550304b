"""
The hub's thinker: bot moves worked out in a pool of worker processes
(L{hub.thinkers.worker}), never on the reactor thread.

L{BotPool} is the L{hub.ihub.IThinker} and the service: it keeps at most
one question per worker in flight and the rest in a bounded queue, and
gives each question a deadline by its level (L{DEADLINES}), on the hub's
clock.  A worker searches until its part of the deadline is spent and
answers its best move so far (L{hub.bots.base.Bot.expired}); a question
still unanswered L{LATE_AFTER} seconds past its deadline fails
(L{NoThought.LATE}: the caller plays a rule's move), and its worker, if
still silent L{HUNG_AFTER} seconds past the deadline, is killed.  A worker
that dies is replaced (by ampoule) and its question asked again once.
L{WorkerProcesses} is the ampoule pool itself.  docs/bots.md has the
whole story.
"""

from __future__ import annotations

import collections
import functools
import itertools
import json
import os
from typing import (
    Any, Deque, Dict, List, Mapping, Optional, Protocol, Union, cast)

from twisted.application.service import Service
from twisted.internet import defer, error
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import (
    IDelayedCall, IProcessTransport, IReactorCore, IReactorTime)
from twisted.logger import Logger
from twisted.protocols import amp
from twisted.python.failure import Failure
from zope.interface import implementer

from hub.games.codec import actionFromJSON, stateToJSON
from hub.ihub import IGameRules, IThinker, NoThought
from hub.thinkers.commands import ChooseAction, Hello

#: Seconds a question of each level (1, 2, 3) may take, queue included:
#: level 3 searches until its share of it is spent.
DEADLINES = {1: 1.0, 2: 1.0, 3: 2.0}
#: Seconds past its deadline after which a question unanswered fails.
LATE_AFTER = 1.0
#: Seconds past its deadline after which a worker still thinking about
#: it is killed (a healthy one answers at its deadline).
HUNG_AFTER = 10.0
#: The least search time a worker is given, even for a question that
#: waited past its deadline: enough for level 2's move.
MIN_BUDGET = 0.02
#: Questions that may wait for a free worker, by default.
QUEUE_SIZE = 64
#: Seconds the workers have to exit when the hub stops, before they are
#: killed.
STOP_SECONDS = 5.0
#: How often ampoule looks for idle workers beyond the pool's minimum
#: (there are none: the minimum is the size).
IDLE_SECONDS = 3600

#: The failures that say a worker died under a question.
_DEATHS = (error.ProcessTerminated, error.ProcessDone, error.ConnectionDone,
           error.ConnectionLost)


def cpuCount() -> int:
    """
    The CPUs this process may run on: the default number of workers.
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


class _WorkerLink(amp.AMP):
    """
    The hub's end of one worker's AMP connection (ampoule's parent
    protocol), which notes the question it carries so that a silent
    worker can be found and killed.
    """

    def __init__(self, links: Dict[int, _WorkerLink]) -> None:
        amp.AMP.__init__(self)
        self.links = links

    def callRemote(self, commandType: Any, *args: Any,
                   **kwargs: Any) -> Deferred[Dict[str, Any]]:
        if commandType is ChooseAction:
            self.links[kwargs["request"]] = self
        return cast("Deferred[Dict[str, Any]]", amp.AMP.callRemote(
            self, commandType, *args, **kwargs))

    def kill(self) -> None:
        """
        Kill the worker at once.
        """
        try:
            cast(IProcessTransport, self.transport).signalProcess("KILL")
        except (error.ProcessExitedAlready, AttributeError):
            pass


class WorkerProcesses:
    """
    The worker processes: an ampoule L{ampoule.pool.ProcessPool} of
    C{size} workers, started with it (a worker takes a second or so to
    start, which a question's deadline would not leave), and one started
    again when one dies.

    Each worker gets the hub's C{PYTHONPATH} and nothing else of its
    environment.  The pool is made once C{reactor} runs: ampoule spawns
    its workers, and runs its idle check (a timer that finds nothing to
    do: the pool never has more than its minimum; stopped by L{stop}), on
    the global reactor, which is the hub's under twistd; a hub built on
    another reactor (a test's fake, which never runs) starts none.

    @ivar size: the number of workers.
    @ivar clock: the hub's clock, for the time workers have to exit.
    @ivar reactor: the hub's reactor.
    @ivar stopSeconds: that time.
    """

    def __init__(self, size: int, clock: IReactorTime, reactor: IReactorCore,
                 stopSeconds: float = STOP_SECONDS) -> None:
        self.size = size
        self.clock = clock
        self.reactor = reactor
        self.stopSeconds = stopSeconds
        self._pool: Any = None  # ampoule's ProcessPool (untyped)
        self._starting: Optional[Deferred[object]] = None
        self._links: Dict[int, _WorkerLink] = {}

    def start(self) -> Deferred[object]:
        """
        Make the pool and start its workers, once the reactor runs (at
        once if it does).

        @return: a Deferred that fires once each has answered.
        """
        d: Deferred[object] = defer.Deferred()
        self._starting = d
        self.reactor.callWhenRunning(self._spawn, d)
        return d

    def _spawn(self, d: Deferred[object]) -> None:
        if d is not self._starting:
            return  # stopped (or started again) before the reactor ran
        self._starting = None
        defer.maybeDeferred(self._startPool).chainDeferred(d)

    def _startPool(self) -> Deferred[object]:
        from ampoule.main import ProcessStarter
        from ampoule.pool import ProcessPool
        from hub.thinkers.worker import BOOTSTRAP, BotWorker
        env = {}
        if os.environ.get("PYTHONPATH"):
            env["PYTHONPATH"] = os.environ["PYTHONPATH"]
        starter = ProcessStarter(bootstrap=BOOTSTRAP, env=env)
        self._pool = ProcessPool(
            BotWorker, ampParent=functools.partial(_WorkerLink, self._links),
            min=self.size, max=self.size, maxIdle=IDLE_SECONDS,
            recycleAfter=0,
            starter=starter)
        started = self._pool.start()

        def ping(_: object) -> Deferred[List[object]]:
            return defer.gatherResults(
                [link.callRemote(Hello) for link in self._pool.processes],
                consumeErrors=True)
        return started.addCallback(ping)

    def pids(self) -> List[int]:
        """
        The process ids of the workers running now.
        """
        if self._pool is None:
            return []
        return sorted(link.transport.transport.pid
                      for link in self._pool.processes
                      if link.transport is not None
                      and link.transport.transport.pid is not None)

    def ask(self, **arguments: Any) -> Deferred[Dict[str, Any]]:
        """
        Send L{ChooseAction} with C{arguments} to a free worker.

        @return: a Deferred of the answer's fields.
        """
        request = arguments["request"]

        def forget(result: object) -> object:
            self._links.pop(request, None)
            return result
        return self._pool.doWork(ChooseAction, **arguments).addBoth(forget)

    def kill(self, request: int) -> bool:
        """
        Kill the worker thinking about C{request}, if one is.

        @return: True if there was one.
        """
        link = self._links.pop(request, None)
        if link is None:
            return False
        link.kill()
        return True

    def stop(self) -> Deferred[object]:
        """
        Stop every worker: those thinking are killed (nobody waits for
        their answers any more), the others told to stop, and killed if
        they have not within L{stopSeconds}.

        @return: a Deferred that fires once they have all exited.
        """
        self._starting = None
        for request in list(self._links):
            self.kill(request)
        if self._pool is None:
            return defer.succeed(None)
        links = list(self._pool.processes)
        d = self._pool.stop()
        deadline = self.clock.callLater(self.stopSeconds, self._killAll,
                                        links)

        def stopped(result: object) -> object:
            if deadline.active():
                deadline.cancel()
            return result
        return d.addBoth(stopped)

    def _killAll(self, links: List[_WorkerLink]) -> None:
        for link in links:
            link.kill()


class Processes(Protocol):
    """
    What L{BotPool} asks of its workers: L{WorkerProcesses}, or a test's
    stand-in.
    """

    size: int

    def start(self) -> Deferred[object]: ...

    def ask(self, **arguments: Any) -> Deferred[Dict[str, Any]]: ...

    def kill(self, request: int) -> bool: ...

    def stop(self) -> Deferred[object]: ...


class _Question:
    """
    One move asked of the pool.
    """

    def __init__(self, number: int, kind: str, level: int, seed: int,
                 seat: int, position: str, deadline: float) -> None:
        self.number = number
        self.kind = kind
        self.level = level
        self.seed = seed
        self.seat = seat
        self.position = position
        self.deadline = deadline
        self.deferred: Optional[Deferred[Any]] = None
        self.late: Optional[IDelayedCall] = None
        self.hung: Optional[IDelayedCall] = None
        self.tries = 0
        self.done = False


@implementer(IThinker)
class BotPool(Service):
    """
    The hub's L{IThinker}: questions go to C{processes} (a
    L{WorkerProcesses}, or a test's stand-in with the same methods), at
    most one per worker, the rest waiting in a queue of C{queueSize}; the
    timers are on C{clock}, the hub's.

    @ivar outcomes: how many questions ended how, by outcome:
        C{answered} (C{cut} among them: the search's time ran out), and
        the L{NoThought} reasons C{full}, C{late}, C{lost}, C{stopped}.
    @ivar workerDeaths: workers that died under a question, or were
        killed for not answering.
    @ivar ready: True once the workers are up (L{startService}).
    """

    log = Logger()
    ready = False

    def __init__(self, clock: IReactorTime, processes: Processes,
                 queueSize: int = QUEUE_SIZE,
                 deadlines: Optional[Mapping[int, float]] = None,
                 lateAfter: float = LATE_AFTER,
                 hungAfter: float = HUNG_AFTER) -> None:
        self.clock = clock
        self.processes = processes
        self.queueSize = queueSize
        self.deadlines = dict(DEADLINES if deadlines is None else deadlines)
        self.lateAfter = lateAfter
        self.hungAfter = hungAfter
        self.outcomes = dict.fromkeys(
            ("answered", "cut", "full", "late", "lost", "stopped"), 0)
        self.workerDeaths = 0
        self._numbers = itertools.count(1)
        self._waiting: Deque[_Question] = collections.deque()
        self._busy: Dict[int, _Question] = {}
        self._dispatching = False
        self._overloaded = False

    @property
    def waiting(self) -> int:
        """
        Questions waiting for a free worker.
        """
        return len(self._waiting)

    @property
    def busy(self) -> int:
        """
        Workers thinking now.
        """
        return len(self._busy)

    def startService(self) -> Deferred[object]:
        """
        Start the workers.  The questions asked before they are all up
        wait, and their deadlines count from then: a worker's start is
        no thinking time.
        """
        Service.startService(self)
        self.ready = False
        d = defer.maybeDeferred(self.processes.start)

        def started(_: object) -> None:
            if self.running:
                # One line for what ampoule says at debug
                # (hub.logs.CHATTY).
                self.log.info("bot pool: {workers} worker(s) up",
                              workers=self.processes.size,
                              event="bot-pool-up")

        def failed(failure: Failure) -> None:
            self.log.failure("bot pool: the workers did not start", failure)
        d.addCallbacks(started, failed).addCallback(lambda _: self._up())
        return d

    def _up(self) -> None:
        if not self.running:
            return
        self.ready = True
        now = self.clock.seconds()
        for question in self._waiting:
            question.deadline = now + self._seconds(question.level)
            self._startLate(question, now)
        self._dispatch()

    def _seconds(self, level: int) -> float:
        return self.deadlines.get(level, max(self.deadlines.values()))

    def _startLate(self, question: _Question, now: float) -> None:
        question.late = self.clock.callLater(
            question.deadline + self.lateAfter - now, self._late, question)

    def stopService(self) -> Deferred[object]:
        """
        Fail every question (L{NoThought.STOPPED}) and stop the workers.
        """
        Service.stopService(self)
        for question in list(self._waiting) + list(self._busy.values()):
            self._end(question, NoThought(NoThought.STOPPED))
        self._waiting.clear()
        for question in list(self._busy.values()):
            self._cancel(question)
        return self.processes.stop()

    def think(self, kind: str, level: int, seed: int, state: IGameRules,
              seat: int) -> Deferred[Any]:
        if not self.running:
            return defer.fail(NoThought(NoThought.STOPPED))
        if len(self._waiting) >= self.queueSize:
            self.outcomes["full"] += 1
            if not self._overloaded:
                self._overloaded = True
                self.log.warn(
                    "bot pool: {waiting} moves wait for {workers} "
                    "worker(s); more are refused (rules' moves are "
                    "played) until the queue is half as long",
                    waiting=len(self._waiting), workers=self.processes.size,
                    event="bot-pool-full")
            return defer.fail(NoThought(NoThought.FULL))
        position = json.dumps(stateToJSON(kind, state),
                              separators=(",", ":"))
        now = self.clock.seconds()
        question = _Question(next(self._numbers), kind, level, seed, seat,
                             position, now + self._seconds(level))
        question.deferred = defer.Deferred(
            lambda d: self._withdraw(question))
        if self.ready:
            self._startLate(question, now)
        self._waiting.append(question)
        self._dispatch()
        return question.deferred

    def _dispatch(self) -> None:
        """
        Give waiting questions to free workers.
        """
        if self._dispatching or not self.ready:
            return
        self._dispatching = True
        try:
            while self._waiting and len(self._busy) < self.processes.size:
                question = self._waiting.popleft()
                self._ask(question)
        finally:
            self._dispatching = False
        if self._overloaded and len(self._waiting) <= self.queueSize // 2:
            self._overloaded = False

    def _ask(self, question: _Question) -> None:
        question.tries += 1
        budget = max(MIN_BUDGET, question.deadline - self.clock.seconds())
        self._busy[question.number] = question
        try:
            d = self.processes.ask(
                request=question.number, kind=question.kind,
                level=question.level, seed=question.seed,
                seat=question.seat, position=question.position,
                budget=budget)
        except Exception:
            d = defer.fail()
        d.addBoth(self._answered, question)

    def _answered(self, result: Union[Dict[str, Any], Failure],
                  question: _Question) -> None:
        self._busy.pop(question.number, None)
        if question.hung is not None:
            if question.hung.active():
                question.hung.cancel()
            question.hung = None
        if not question.done:
            if isinstance(result, Failure):
                self._failed(result, question)
            else:
                self._chose(result, question)
        elif isinstance(result, Failure) and result.check(*_DEATHS):
            # The worker killed for being silent.
            pass
        self._dispatch()
        return None

    def _chose(self, answer: Dict[str, Any], question: _Question) -> None:
        try:
            action = actionFromJSON(question.kind,
                                    json.loads(answer["action"]))
        except (ValueError, KeyError, TypeError):
            self.log.error("bot pool: a worker answered {answer!r}, which "
                           "is no {kind} action", answer=answer,
                           kind=question.kind)
            self._end(question, NoThought(NoThought.LOST, "bad answer"))
            return
        if answer.get("cut"):
            self.outcomes["cut"] += 1
        self._end(question, action, "answered")

    def _failed(self, failure: Failure, question: _Question) -> None:
        if failure.check(*_DEATHS):
            self.workerDeaths += 1
            again = (question.tries < 2
                     and self.clock.seconds() < question.deadline)
            self.log.warn(
                "bot pool: a worker died thinking of a {kind} move "
                "({why}); {then}", kind=question.kind,
                why=failure.getErrorMessage(),
                then=("asked again" if again
                      else "the seat plays a rules' move"),
                event="bot-worker-died")
            if again:
                self._waiting.appendleft(question)
                return
            self._end(question, NoThought(NoThought.LOST, "worker died"))
            return
        self.log.failure("bot pool: a {kind} move failed", failure,
                         kind=question.kind)
        self._end(question, NoThought(NoThought.LOST,
                                      failure.getErrorMessage()[:200]))

    def _late(self, question: _Question) -> None:
        question.late = None
        if question.done:
            return
        if question in self._waiting:
            self._waiting.remove(question)
        else:
            question.hung = self.clock.callLater(
                self.hungAfter - self.lateAfter, self._hung, question)
        self._end(question, NoThought(NoThought.LATE))

    def _hung(self, question: _Question) -> None:
        question.hung = None
        if question.number in self._busy and self.processes.kill(
                question.number):
            self.workerDeaths += 1
            self.log.warn(
                "bot pool: a worker gave no answer {seconds}s past its "
                "deadline: killed (a new one starts)",
                seconds=self.hungAfter, event="bot-worker-hung")

    def _withdraw(self, question: _Question) -> None:
        """
        The asker cancelled: forget the question (a worker thinking of
        it finishes, and its answer is dropped).
        """
        if question.done:
            return
        question.done = True
        if question in self._waiting:
            self._waiting.remove(question)
        self._cancel(question)
        self._dispatch()

    def _cancel(self, question: _Question) -> None:
        for name in ("late", "hung"):
            call = getattr(question, name)
            if call is not None and call.active():
                call.cancel()
            setattr(question, name, None)

    def _end(self, question: _Question, result: object,
             outcome: Optional[str] = None) -> None:
        if question.done:
            return
        question.done = True
        if question.late is not None and question.late.active():
            question.late.cancel()
        question.late = None
        assert question.deferred is not None  # think made it
        if isinstance(result, NoThought):
            self.outcomes[result.reason] += 1
            question.deferred.errback(result)
        else:
            assert outcome is not None  # an answer comes with "answered"
            self.outcomes[outcome] += 1
            question.deferred.callback(result)
