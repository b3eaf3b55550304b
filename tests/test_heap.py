"""
Tests for L{hub.heap}: the C heap's free pages given back now and then.
"""

from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from hub import tap
from hub.clock import TrackedClock
from hub.heap import TRIM_SECONDS, HeapTrimmer, cHeapTrim
from hub.service import Hub


class HeapTrimTests(SynchronousTestCase):
    """
    L{cHeapTrim} and L{HeapTrimmer}.
    """

    def test_glibc(self):
        """
        On glibc (Debian, where the hub runs), C{malloc_trim} is found and
        called: it says whether it gave memory back.
        """
        trim = cHeapTrim()
        self.assertIsNotNone(trim)
        self.assertIn(trim(), (0, 1))

    def test_everyInterval(self):
        """
        The trimmer trims once every interval while it runs, and leaves
        no timer behind when it stops.
        """
        clock = Clock()
        tracked = TrackedClock(clock)
        trims = []
        trimmer = HeapTrimmer(tracked, lambda: trims.append(1) or 1,
                              seconds=60)
        trimmer.startService()
        self.assertEqual(trims, [])
        clock.advance(59)
        self.assertEqual(trims, [])
        clock.advance(1)
        clock.advance(60)
        self.assertEqual((len(trims), trimmer.trims), (2, 2))
        trimmer.stopService()
        clock.advance(600)
        self.assertEqual(len(trims), 2)
        self.assertEqual(clock.getDelayedCalls(), [])

    def test_twistdHub(self):
        """
        C{twistd}'s hub has a trimmer, every L{TRIM_SECONDS} on the hub's
        clock.
        """
        hub = Hub(Clock())
        tap.trimHeap(hub)
        trimmer = hub.getServiceNamed("heap")
        self.assertIsInstance(trimmer, HeapTrimmer)
        self.assertIs(trimmer.clock, hub.clock)
        self.assertEqual(trimmer.seconds, TRIM_SECONDS)
