"""
L{hub.accounts.hashing.HashingPool}: argon2 off the reactor thread, in a
thread of its own at a lower priority, and the accounts of a hub use it.
"""

import os
import threading

from twisted.internet import defer, reactor
from twisted.trial.unittest import TestCase

from hub.accounts.hashing import NICENESS, HashingPool, lowerThisThread
from hub.accounts.model import Accounts

from tests.accounts import support


def where():
    """
    The thread this runs in, its scheduling policy and its niceness.
    """
    tid = threading.get_native_id()
    return (tid, os.sched_getscheduler(tid),
            os.getpriority(os.PRIO_PROCESS, tid))


class HashingPoolTests(support.SQLiteMixin, TestCase):

    def setUp(self):
        self.pool = HashingPool(reactor)
        self.pool.startService()
        self.addCleanup(self.pool.stopService)

    @defer.inlineCallbacks
    def test_lowerPriorityThread(self):
        """
        The work runs in another thread than the reactor's, under
        C{SCHED_IDLE} (it runs only when nothing else wants the CPU), or
        where that cannot be set at a niceness L{NICENESS} above the
        process's; the reactor's thread keeps its own.
        """
        before = os.sched_getscheduler(0), os.getpriority(os.PRIO_PROCESS, 0)
        tid, policy, niceness = yield self.pool.run(where)
        self.assertNotEqual(tid, threading.get_native_id())
        if policy != os.SCHED_IDLE:
            self.assertEqual(niceness, min(19, before[1] + NICENESS))
        self.assertEqual(
            (os.sched_getscheduler(0), os.getpriority(os.PRIO_PROCESS, 0)),
            before)

    def test_lowered(self):
        """
        On Linux an unprivileged thread may lower itself to
        C{SCHED_IDLE}.
        """
        done = []
        thread = threading.Thread(
            target=lambda: done.append((lowerThisThread(NICENESS),
                                        os.sched_getscheduler(0))))
        thread.start()
        thread.join()
        self.assertEqual(done, [("idle", os.SCHED_IDLE)])

    @defer.inlineCallbacks
    def test_accountsHashThere(self):
        """
        Accounts given the pool hash and check passwords in it.
        """
        ran = []
        run = self.pool.run

        def counted(f, *args):
            ran.append(f)
            return run(f, *args)
        self.pool.run = counted
        accounts = support.openAccounts(self)
        accounts = Accounts(accounts.database, reactor,
                            hasher=accounts.hasher, hashing=self.pool)
        yield accounts.add("alice", "pw")
        self.assertTrue((yield accounts.checkPassword("alice", "pw")))
        self.assertFalse((yield accounts.checkPassword("alice", "no")))
        self.assertEqual(len(ran), 3)
