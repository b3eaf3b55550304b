"""
Spacing a connection's messages of one kind in time: a property of the
connection's output (the Unity Splendor client throws when two messages of
one kind arrive within one of its frames), not of any game.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

from twisted.internet.interfaces import IDelayedCall, IReactorTime

from hub.connection.immediate import ImmediateWriter

PACING_SLACK = 1e-6
MAX_PACED = 256


class PacedWriter:
    """
    Writes whole frames so that two frames of one kind leave at least
    C{minGap} seconds apart: a frame that would come too soon waits, and
    every frame after it, to keep the order.  The timer runs on C{clock}
    (the hub's tracked clock, so stopping the hub cancels it).

    @param clock: an L{IReactorTime}.
    @param writer: has C{write(frame)} (the connection's writer).
    @param transport: the connection's transport (nothing is written once
        it is disconnecting).
    @param minGap: seconds; 0 writes every frame at once.
    @param kindOf: C{kindOf(frame)} is the frame's message kind.
    @param maxPending: the most frames that may wait.
    """

    def __init__(self, clock: IReactorTime, writer: ImmediateWriter,
                 transport: Any, minGap: float,
                 kindOf: Callable[[bytes], Any],
                 maxPending: int = MAX_PACED) -> None:
        self.clock = clock
        self.writer = writer
        self.transport = transport
        self.minGap = minGap
        self.kindOf = kindOf
        self.maxPending = maxPending
        self._waiting: List[bytes] = []
        self._call: Optional[IDelayedCall] = None
        self._lastSent: Dict[Any, float] = {}

    @property
    def pending(self) -> bool:
        """
        True while frames wait for their time.
        """
        return self._call is not None

    def write(self, frame: bytes) -> bool:
        """
        Write C{frame} now or when its kind's gap has passed.

        @return: False (and nothing kept) when more than C{maxPending}
            frames would wait: the connection is too far behind.
        """
        if not self.minGap:
            self.writer.write(frame)
            return True
        self._waiting.append(frame)
        if len(self._waiting) > self.maxPending:
            self.stop()
            return False
        if self._call is None:
            self._flush()
        return True

    def _flush(self) -> None:
        self._call = None
        clock = self.clock
        while self._waiting and not self.transport.disconnecting:
            frame = self._waiting[0]
            kind = self.kindOf(frame)
            now = clock.seconds()
            last = self._lastSent.get(kind)
            wait = last + self.minGap - now if last is not None else 0
            if wait > PACING_SLACK:
                self._call = clock.callLater(wait, self._flush)
                return
            self._waiting.pop(0)
            self._lastSent[kind] = now
            self.writer.write(frame)

    def stop(self) -> None:
        """
        Drop the waiting frames and cancel the timer.
        """
        self._waiting = []
        if self._call is not None:
            if self._call.active():
                self._call.cancel()
            self._call = None
