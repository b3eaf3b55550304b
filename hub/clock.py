"""
A clock that remembers what it scheduled, so that a stopping service can
cancel every timer it started.
"""

import weakref
from typing import Any, Callable, Iterable, List, Set

from zope.interface import implementer

from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.internet.task import LoopingCall


@implementer(IReactorTime)
class TrackedClock:
    """
    An L{IReactorTime} over another one that keeps every delayed call it
    made until the call runs or is cancelled; L{cancelAll} cancels those
    still pending, and stops the L{LoopingCall}s made by L{loop}.
    Tables, seat pilots, pacing loops, the sessions' grace timers, the
    records and the cluster are all given one, so that the hub leaves
    nothing on the reactor when it stops.

    @ivar clock: the wrapped L{IReactorTime}.
    """

    def __init__(self, clock: IReactorTime) -> None:
        self.clock = clock
        self._calls: Set[IDelayedCall] = set()
        self._loops: "weakref.WeakSet[LoopingCall]" = weakref.WeakSet()
        self._pruneAt = 64

    def seconds(self) -> float:
        """
        The wrapped clock's time.
        """
        return self.clock.seconds()

    def callLater(self, delay: float, callable: Callable[..., Any],
                  *args: object, **kwargs: object) -> IDelayedCall:
        """
        Schedule C{callable(*args, **kwargs)} in C{delay} seconds, and remember
        the call until it runs or is cancelled.
        """
        calls = self._calls
        if len(calls) >= self._pruneAt:
            calls.difference_update([c for c in calls if not c.active()])
            self._pruneAt = max(64, 2 * len(calls))

        # The call is reached through a list the run empties: a closure
        # over the call itself would make a cycle (call, run, call) that
        # keeps f and its arguments, once called, for the collector.
        box: List[IDelayedCall] = []

        def run() -> Any:
            calls.discard(box.pop())
            return callable(*args, **kwargs)

        call = self.clock.callLater(delay, run)
        box.append(call)
        calls.add(call)
        return call

    def loop(self, f: Callable[..., Any], *args: Any,
             **kwargs: Any) -> LoopingCall:
        """
        A L{LoopingCall} of C{f(*args, **kwargs)} on this clock, stopped
        by L{cancelAll} if it still runs then.
        """
        loop = LoopingCall(f, *args, **kwargs)
        loop.clock = self
        self._loops.add(loop)
        return loop

    def getDelayedCalls(self) -> List[IDelayedCall]:
        """
        The calls made through this clock that are still pending.
        """
        return [call for call in self._calls if call.active()]

    def cancel(self, calls: Iterable[IDelayedCall]) -> None:
        """
        Stop the running loops, then cancel those of C{calls} (calls made
        through this clock) still pending.
        """
        self._stopLoops()
        for call in calls:
            if call.active():
                call.cancel()

    def cancelAll(self) -> None:
        """
        Stop the running loops, and cancel every pending call made through
        this clock.
        """
        self._stopLoops()
        calls, self._calls = self._calls, set()
        for call in calls:
            if call.active():
                call.cancel()

    def _stopLoops(self) -> None:
        for loop in list(self._loops):
            if loop.running:
                loop.stop()


def loopingCall(clock: IReactorTime, f: Callable[..., Any], *args: Any,
                **kwargs: Any) -> LoopingCall:
    """
    A L{LoopingCall} of C{f(*args, **kwargs)} on C{clock}: tracked when
    C{clock} is a L{TrackedClock}.
    """
    loop = getattr(clock, "loop", None)
    if loop is not None:
        tracked: LoopingCall = loop(f, *args, **kwargs)
        return tracked
    call = LoopingCall(f, *args, **kwargs)
    call.clock = clock
    return call
