"""
The hub process's C heap, its freed memory given back to the system.

CPython takes every block over 512 bytes from the C library's allocator
(a large page, a record's text, a replay, a list's items).  glibc keeps
what is freed for later blocks and gives memory back only from the top
of its heap, so one block still in use above many freed ones holds them
all: a hub's RSS stays at the high-water mark of its busiest moment (forty
games ending in one second, their records written together), though it
holds far less.  glibc's C{malloc_trim} gives every whole free page back;
the hub calls it every L{TRIM_SECONDS}, which costs a few milliseconds on
the reactor (docs/benchmarks.md, "Soak").  It does not reach pymalloc's
arenas, which CPython frees itself once they are empty.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from typing import Callable, Optional

from twisted.application.service import Service
from twisted.internet.task import LoopingCall

from hub.clock import TrackedClock

#: Seconds between two trims of the C heap.
TRIM_SECONDS = 60.0


def cHeapTrim() -> Optional[Callable[[], int]]:
    """
    glibc's C{malloc_trim(0)}, as a function of no arguments that returns
    1 when it gave memory back, or None where the C library has none.
    """
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        trim = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return lambda: int(trim(0))


class HeapTrimmer(Service):
    """
    Calls C{trim} every C{seconds} of C{clock} while running.

    @ivar trims: how many times it called C{trim}.
    """

    def __init__(self, clock: TrackedClock, trim: Callable[[], int],
                 seconds: float = TRIM_SECONDS) -> None:
        self.clock = clock
        self.trim = trim
        self.seconds = seconds
        self.trims = 0
        self._loop: Optional[LoopingCall] = None

    def _trimmed(self) -> None:
        self.trims += 1
        self.trim()

    def startService(self) -> None:
        Service.startService(self)
        self._loop = self.clock.loop(self._trimmed)
        self._loop.start(self.seconds, now=False)

    def stopService(self) -> None:
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        self._loop = None
        Service.stopService(self)
