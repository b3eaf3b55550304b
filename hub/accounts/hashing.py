"""
Where argon2 runs in a hub: a thread pool of its own, small, whose
threads run at a lower priority than the reactor's (on Linux, where a
thread's scheduling is its own: C{SCHED_IDLE}, else a higher niceness),
so that a flood of logins takes at most C{threads} CPUs and gives them up
at once to the players' moves.
"""

import os
import threading
from typing import Any, Callable, Optional, TypeVar

from twisted.application.service import Service
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IReactorFromThreads
from twisted.internet.threads import deferToThreadPool
from twisted.python.threadpool import ThreadPool

# The threads argon2 may use at once, and how much nicer they are.
THREADS = 1
NICENESS = 10

_lowered = threading.local()
_T = TypeVar("_T")


def lowerThisThread(niceness: int) -> Optional[str]:
    """
    Lower the priority of the calling thread (on Linux, where priorities
    are per thread): C{SCHED_IDLE}, which runs only when no other thread
    wants the CPU and gives it up at once to one that wakes (the reactor
    with a move to send); else C{niceness} more.

    @return: C{"idle"}, C{"nice"}, or None (neither could be set).
    """
    thread = threading.get_native_id()
    try:
        os.sched_setscheduler(thread, os.SCHED_IDLE, os.sched_param(0))
        return "idle"
    except (AttributeError, OSError):
        pass
    try:
        os.setpriority(os.PRIO_PROCESS, thread,
                       os.getpriority(os.PRIO_PROCESS, 0) + niceness)
        return "nice"
    except (AttributeError, OSError):
        return None


def _nicer(niceness: int, f: Callable[..., _T], *args: Any) -> _T:
    if not getattr(_lowered, "done", False):
        _lowered.done = True
        lowerThisThread(niceness)
    return f(*args)


class HashingPool(Service):
    """
    The threads of the password hashes (started and stopped with the
    hub).

    @param reactor: the reactor whose thread the results come back to.
    """

    name = "hashing"

    def __init__(self, reactor: IReactorFromThreads, threads: int = THREADS,
                 niceness: int = NICENESS) -> None:
        self.reactor = reactor
        self.niceness = niceness
        self.pool = ThreadPool(0, threads, name="argon2")

    def startService(self) -> None:
        Service.startService(self)
        self.pool.start()

    def stopService(self) -> None:
        Service.stopService(self)
        self.pool.stop()

    def run(self, f: Callable[..., _T], *args: Any) -> Deferred[_T]:
        """
        C{f(*args)} in the pool, at the lower priority.

        @return: a Deferred of its result.
        """
        return deferToThreadPool(self.reactor, self.pool, _nicer,
                                 self.niceness, f, *args)
