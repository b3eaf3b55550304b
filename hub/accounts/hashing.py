"""
Where argon2 runs in a hub: a thread pool of its own, small, whose
threads run at a lower priority than the reactor's (on Linux, where a
thread's niceness is its own), so that a flood of logins takes at most
C{threads} CPUs and yields them to the players' moves.
"""

import os
import threading

from twisted.application.service import Service
from twisted.internet.threads import deferToThreadPool
from twisted.python.threadpool import ThreadPool

# The threads argon2 may use at once, and how much nicer they are.
THREADS = 1
NICENESS = 10

_lowered = threading.local()


def _nicer(niceness, f, *args):
    if not getattr(_lowered, "done", False):
        _lowered.done = True
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(),
                           os.getpriority(os.PRIO_PROCESS, 0) + niceness)
        except (AttributeError, OSError):
            pass
    return f(*args)


class HashingPool(Service):
    """
    The threads of the password hashes (started and stopped with the
    hub).

    @param reactor: the reactor whose thread the results come back to.
    """

    name = "hashing"

    def __init__(self, reactor, threads=THREADS, niceness=NICENESS):
        self.reactor = reactor
        self.niceness = niceness
        self.pool = ThreadPool(0, threads, name="argon2")

    def startService(self):
        Service.startService(self)
        self.pool.start()

    def stopService(self):
        Service.stopService(self)
        self.pool.stop()

    def run(self, f, *args):
        """
        C{f(*args)} in the pool, at the lower priority.

        @return: a Deferred of its result.
        """
        return deferToThreadPool(self.reactor, self.pool, _nicer,
                                 self.niceness, f, *args)
