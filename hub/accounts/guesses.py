"""
Limits on guessing a secret of a name (a play key, a password) that can
lock out neither its owner nor the site: failed guesses are limited per
(name, address) and per address, past which that address is refused (as
a wrong guess is: a lockout says nothing about the name); a name's own
failures, from everywhere, only slow it down, with a delay that grows
with them and waits in line for addresses that have failed, so that an
owner coming from an address that has not failed is never refused.
docs/accounts.md, "Guessing", gives the figures.
"""

from typing import Dict, Hashable, Optional, Tuple

from twisted.internet import defer, task
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IReactorTime
from zope.interface import implementer

from hub.accounts.interfaces import IGuessLimits

#: Failed guesses of one name from one address, then one more every
#: C{PAIR_REFILL_SECONDS}.
PAIR_BURST = 10
PAIR_REFILL_SECONDS = 60.0
#: Failed guesses from one address across names, then one more every
#: C{ADDRESS_REFILL_SECONDS}.
ADDRESS_BURST = 20
ADDRESS_REFILL_SECONDS = 30.0
#: A name's failures (from every address, one forgotten every
#: C{NAME_DECAY_SECONDS}) before its guesses are slowed; the delay then:
#: C{DELAY_BASE} seconds, doubled every C{DELAY_DOUBLING} failures more,
#: at most C{MAX_DELAY}.
NAME_FREE = 10
NAME_DECAY_SECONDS = 60.0
NAME_MEMORY = 1000
DELAY_BASE = 1.0
DELAY_DOUBLING = 10
MAX_DELAY = 10.0
#: The longest a guess from an address that failed waits in its name's
#: line; past it, it is refused at once.
MAX_LINE_SECONDS = 120.0
#: The most buckets of one kind held (full ones are forgotten first).
MAX_BUCKETS = 100000


class Buckets:
    """
    Token buckets of failed guesses by key: each holds up to C{burst},
    gains one every C{refill} seconds, and each failure takes one.
    """

    def __init__(self, clock: IReactorTime, burst: int, refill: float) -> None:
        self.clock = clock
        self.burst = burst
        self.refill = refill
        self._buckets: Dict[Hashable, Tuple[float, float]] = {}

    def __len__(self) -> int:
        return len(self._buckets)

    def _tokens(self, key: Hashable) -> float:
        bucket = self._buckets.get(key)
        if bucket is None:
            return float(self.burst)
        tokens, at = bucket
        return min(self.burst,
                   tokens + (self.clock.seconds() - at) / self.refill)

    def used(self, key: Hashable) -> float:
        """
        How many tokens C{key} lacks (0 for a full bucket).
        """
        return self.burst - self._tokens(key)

    def empty(self, key: Hashable) -> bool:
        """
        Whether C{key} has no failure left.
        """
        return self._tokens(key) < 1

    def full(self, key: Hashable) -> bool:
        """
        Whether C{key} has failed no guess it has not been given back.
        """
        return self._tokens(key) >= self.burst

    def fail(self, key: Hashable) -> None:
        """
        One failure of C{key}.
        """
        if len(self._buckets) >= MAX_BUCKETS:
            self.prune()
        self._buckets[key] = (max(0.0, self._tokens(key) - 1),
                              self.clock.seconds())

    def refund(self, key: Hashable) -> None:
        """
        Give back the try C{key} took with L{fail} before it was known to
        fail (it did not).
        """
        if key in self._buckets:
            self._buckets[key] = (min(self.burst, self._tokens(key) + 1),
                                  self.clock.seconds())

    def prune(self) -> None:
        """
        Forget the buckets that are full again; if none is, the emptiest
        half (a flood of distinct keys must not grow memory).
        """
        for key in [k for k in self._buckets if self.full(k)]:
            del self._buckets[key]
        if len(self._buckets) >= MAX_BUCKETS:
            ordered = sorted(self._buckets, key=self._tokens, reverse=True)
            for key in ordered[:len(ordered) // 2]:
                del self._buckets[key]


@implementer(IGuessLimits)
class GuessLimits:
    """
    The limits on guessing the secrets of names, on C{clock}.

    A guess asks L{wait} first (its name's delay, in line if its address
    failed on that name), then L{locked} (past its address's or its
    (name, address) limit: refuse it as a wrong guess); a guess made
    takes its try with L{fail} before the secret is checked, and gets it
    back with L{refund} if it was right.
    """

    def __init__(self, clock: IReactorTime, pairBurst: int = PAIR_BURST,
                 pairRefill: float = PAIR_REFILL_SECONDS,
                 addressBurst: int = ADDRESS_BURST,
                 addressRefill: float = ADDRESS_REFILL_SECONDS) -> None:
        self.clock = clock
        self.byPair = Buckets(clock, pairBurst, pairRefill)
        self.byAddress = Buckets(clock, addressBurst, addressRefill)
        self.byName = Buckets(clock, NAME_MEMORY, NAME_DECAY_SECONDS)
        self._line: Dict[str, float] = {}

    def delay(self, name: str) -> float:
        """
        The seconds a guess of C{name} waits now (0 until it failed
        L{NAME_FREE} times lately).
        """
        failures = self.byName.used(name)
        if failures < NAME_FREE:
            return 0.0
        return min(MAX_DELAY, DELAY_BASE * 2 ** (
            (failures - NAME_FREE) / DELAY_DOUBLING))

    def wait(self, name: str, host: Optional[str]) -> Deferred[bool]:
        """
        Wait for C{name}'s delay: at once from an address that has not
        failed on C{name}; else in the name's line, one guess per delay.

        @return: a Deferred firing True when the guess may go on, or False
            (the line is longer than L{MAX_LINE_SECONDS}: refuse it).
        """
        delay = self.delay(name)
        if delay <= 0:
            return defer.succeed(True)
        if self.byPair.full((name, host)):
            return task.deferLater(self.clock, delay, lambda: True)
        now = self.clock.seconds()
        if len(self._line) >= MAX_BUCKETS:
            self._line = {k: at for k, at in self._line.items() if at > now}
        start = max(now, self._line.get(name, now))
        if start - now > MAX_LINE_SECONDS:
            return defer.succeed(False)
        self._line[name] = start + delay
        return task.deferLater(self.clock, start + delay - now, lambda: True)

    def locked(self, name: str, host: Optional[str]) -> bool:
        """
        Whether C{host} is past its limit, or its limit for C{name}.
        """
        return self.byPair.empty((name, host)) or self.byAddress.empty(host)

    def fail(self, name: str, host: Optional[str]) -> None:
        """
        One failed guess of C{name} from C{host}.
        """
        self.byPair.fail((name, host))
        self.byAddress.fail(host)
        self.byName.fail(name)

    def refund(self, name: str, host: Optional[str]) -> None:
        """
        The guess L{fail} counted was right.
        """
        self.byPair.refund((name, host))
        self.byAddress.refund(host)
        self.byName.refund(name)

    def addressLocked(self, host: str) -> bool:
        """
        Whether C{host} is past its limit.
        """
        return self.byAddress.empty(host)

    def failAddress(self, host: str) -> None:
        """
        Count something as costly as a guess against C{host} alone (a
        registration).
        """
        self.byAddress.fail(host)

    def prune(self) -> None:
        """
        Forget what is back to nothing.
        """
        self.byPair.prune()
        self.byAddress.prune()
        self.byName.prune()
        now = self.clock.seconds()
        self._line = {k: at for k, at in self._line.items() if at > now}
