"""
The display names the web face shows (L{hub.accounts.display}), read by
name a batch at a time and held: at most L{CACHE_SIZE} names, the least
lately used forgotten first, names of no account or without a display
name held too.  A name is forgotten as soon as the hub's name check
reads that its account changed (within a second of a change made
anywhere: L{hub.accounts.check.NameService.watchChanges}), so no page
shows a display name for longer than that after it changed.

    displays = DisplayNames(accounts, clock)
    names.watchChanges(displays.changed)
    d = displays.lookup(["alice", "bob"])     # {"alice": "李雷"}
    displays.known("alice")                   # "李雷", or None if not held

Only a name an account could have (L{names.isLegacyName}) is read: a
guest's other names are none.
"""

from __future__ import annotations

import collections
from typing import (
    TYPE_CHECKING, Collection, Dict, Iterable, List, Optional, Set)

from twisted.internet import defer
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.logger import Logger
from zope.interface import implementer

from hub.accounts import names
from hub.accounts.interfaces import IDisplayNames

if TYPE_CHECKING:
    from hub.accounts.model import Accounts

#: The most names held.
CACHE_SIZE = 20000


@implementer(IDisplayNames)
class DisplayNames:
    """
    The accounts' display names, by name, for the pages.

    @param accounts: the L{hub.accounts.model.Accounts} (its
        C{displayNames}).
    @param clock: the L{IReactorTime} that reads the names L{known} did
        not hold, in the next reactor turn.
    @ivar reads: how many batches were read.
    """

    log = Logger()

    def __init__(self, accounts: Accounts, clock: IReactorTime,
                 size: int = CACHE_SIZE) -> None:
        self.accounts = accounts
        self.clock = clock
        self.size = size
        self.reads = 0
        self._held: collections.OrderedDict[str, Optional[str]] = (
            collections.OrderedDict())
        self._wanted: Set[str] = set()
        self._call: Optional[IDelayedCall] = None
        self._changes = 0

    def __len__(self) -> int:
        return len(self._held)

    def changed(self, keys: Optional[Iterable[str]]) -> None:
        """
        Forget the accounts C{keys} (case-folded names), or every one for
        None: they changed.
        """
        self._changes += 1
        if keys is None:
            self._held.clear()
            return
        for key in keys:
            self._held.pop(key, None)

    def _hold(self, key: str, value: Optional[str]) -> None:
        self._held[key] = value
        self._held.move_to_end(key)
        while len(self._held) > self.size:
            self._held.popitem(last=False)

    def known(self, name: Optional[str]) -> Optional[str]:
        """
        The display name of the account C{name} if held (None: it has
        none, or it is not held yet: then it is read in the next reactor
        turn, for the next to ask).
        """
        if name is None or not names.isLegacyName(name):
            return None
        key = names.nameKey(name)
        if key in self._held:
            self._held.move_to_end(key)
            return self._held[key]
        self._wanted.add(key)
        if self._call is None:
            self._call = self.clock.callLater(0, self._readWanted)
        return None

    def _readWanted(self) -> None:
        self._call = None
        wanted, self._wanted = self._wanted, set()
        self._read(wanted).addErrback(lambda f: self.log.warn(
            "display names unreadable: {error}",
            error=f.getErrorMessage()))

    def _read(self, keys: Collection[str]) -> Deferred[Dict[str, str]]:
        # Held unless an account changed while they were read.
        changes = self._changes
        self.reads += 1

        def read(found: Dict[str, str]) -> Dict[str, str]:
            if self._changes == changes:
                for key in keys:
                    self._hold(key, found.get(key))
            return found

        return self.accounts.displayNames(sorted(keys)).addCallback(read)

    def lookup(self, accountNames: Iterable[Optional[str]]
               ) -> Deferred[Dict[str, str]]:
        """
        A Deferred of C{{name: display name}} of those of C{accountNames} whose
        account has one: what is held, and the others read in one batch.
        """
        byKey: Dict[str, List[str]] = {}
        for name in accountNames:
            if name is not None and names.isLegacyName(name):
                byKey.setdefault(names.nameKey(name), []).append(name)
        missing = [key for key in byKey if key not in self._held]
        d = self._read(missing) if missing else defer.succeed({})

        def answer(found: Dict[str, str]) -> Dict[str, str]:
            shown: Dict[str, str] = {}
            for key, those in byKey.items():
                value = found[key] if key in found else self._held.get(key)
                if value is not None:
                    for name in those:
                        shown[name] = value
            return shown

        return d.addCallback(answer)

    def stop(self) -> None:
        """
        Read no more.
        """
        if self._call is not None and self._call.active():
            self._call.cancel()
        self._call = None
