"""
A clock that remembers what it scheduled, so that a stopping service can
cancel every timer it started.
"""

from zope.interface import implementer

from twisted.internet.interfaces import IReactorTime


@implementer(IReactorTime)
class TrackedClock:
    """
    An L{IReactorTime} over another one that keeps every delayed call it
    made until the call runs or is cancelled; L{cancelAll} cancels those
    still pending.  Tables, seat pilots, pacing loops and the sessions'
    grace timers are all given one, so that the hub leaves nothing on the
    reactor when it stops.

    @ivar clock: the wrapped L{IReactorTime}.
    """

    def __init__(self, clock):
        self.clock = clock
        self._calls = set()
        self._pruneAt = 64

    def seconds(self):
        """
        The wrapped clock's time.
        """
        return self.clock.seconds()

    def callLater(self, delay, f, *args, **kwargs):
        """
        Schedule C{f(*args, **kwargs)} in C{delay} seconds, and remember
        the call until it runs or is cancelled.
        """
        calls = self._calls
        if len(calls) >= self._pruneAt:
            calls.difference_update([c for c in calls if not c.active()])
            self._pruneAt = max(64, 2 * len(calls))

        # The call is reached through a list the run empties: a closure
        # over the call itself would make a cycle (call, run, call) that
        # keeps f and its arguments, once called, for the collector.
        box = []

        def run():
            calls.discard(box.pop())
            return f(*args, **kwargs)

        call = self.clock.callLater(delay, run)
        box.append(call)
        calls.add(call)
        return call

    def getDelayedCalls(self):
        """
        The calls made through this clock that are still pending.
        """
        return [call for call in self._calls if call.active()]

    def cancelAll(self):
        """
        Cancel every pending call made through this clock.
        """
        calls, self._calls = self._calls, set()
        for call in calls:
            if call.active():
                call.cancel()
