"""
The name check the protocol adapters call when a player gives a name (at
name time only, never per move), and the enforcement of bans on live
connections.  docs/accounts.md states the rules ("Names", "The name check
at scale"); this module is where they are kept.

A L{NameService} holds the accounts it was asked about in a bounded
L{NameCache} and the bans in force whole (the addresses' in a
L{BanIndex}); every L{POLL_SECONDS} it reads the rows of
C{account_changes} written since its last read, by any hub or the CLI,
and forgets or reads again just those names, so a ban closes the live
connections it covers within that time.  C{--names} chooses the mode
(C{open}, C{accounts}, C{closed}); guesses of a key are limited by
L{hub.accounts.guesses}; tournament engines prove their names with
one-time L{GameKeys} on their game's own listener (L{GameNameCheck}).
"""

from __future__ import annotations

import bisect
import collections
import hmac
import ipaddress
from typing import (
    TYPE_CHECKING, Any, Callable, Collection, Dict, Generator, Iterable, List,
    Optional, Set, Tuple, Union, cast)

import attr
from twisted.application.service import Service
from twisted.internet import defer
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IReactorTime
from twisted.internet.task import LoopingCall
from twisted.logger import Logger
from twisted.python.failure import Failure
from zope.interface import implementer

from hub.accounts import guesses, names, store
from hub.accounts.interfaces import INameCheck, INameService
from hub.ihub import IPeer, ISession
from hub.limits import LOG_BURST, SummaryLog
from hub.metrics import ReadCounters

if TYPE_CHECKING:
    from hub.accounts.model import Accounts
    from hub.sessions import Sessions

MODES = ("open", "accounts", "closed")
#: How often the changes are read.
POLL_SECONDS = 1.0
#: How far back each read looks again, for changes committed out of
#: order (PostgreSQL numbers a row when it is written, not committed).
LOOKBACK = 50
#: The most changes one read takes (more: it reads again at once).
CHANGES_PER_READ = 1000
#: How long the changes are kept, and how often the old are forgotten.
CHANGES_KEPT_SECONDS = 3600.0
PRUNE_SECONDS = 600.0
#: The most accounts the cache holds.
CACHE_SIZE = 20000
#: The most guests' names found free that are remembered (then all are
#: forgotten).
GUESTS_KEPT = 10000
# Kept for the callers that count guesses in these terms.
NAME_BURST = guesses.PAIR_BURST
NAME_REFILL_SECONDS = guesses.PAIR_REFILL_SECONDS
ADDRESS_BURST = guesses.ADDRESS_BURST
ADDRESS_REFILL_SECONDS = guesses.ADDRESS_REFILL_SECONDS

# Why a name was refused (the label of the refusals' counter).
TAKEN = "taken"
WRONG_KEY = "wrong_key"
NO_ACCOUNT = "no_account"
LOCKED = "locked"
CLOSED = "closed"
BANNED = "banned"
NOT_READY = "not_ready"
INVALID = "invalid"
REASONS = (TAKEN, WRONG_KEY, NO_ACCOUNT, LOCKED, CLOSED, BANNED, NOT_READY,
           INVALID)


@attr.s(frozen=True)
class Verdict:
    """
    A name accepted.

    @ivar name: the name everybody else sees (an account's as registered,
        or the guest's normalised name).
    @ivar guest: True if it is no account's.
    @ivar account: the account's case-folded name, or None.
    """

    name: str = attr.ib()
    guest: bool = attr.ib()
    account: Optional[str] = attr.ib(default=None)


#: What L{NameService.judge} gives: a L{Verdict}, or why not (L{REASONS}).
Judged = Union[Verdict, str]
#: An address, as L{ipaddress} parses it.
Address = Union[ipaddress.IPv4Address, ipaddress.IPv6Address]


def parseAddress(host: Optional[str]) -> Optional[Address]:
    """
    The L{ipaddress} address of C{host} (an IPv4-mapped IPv6 address as
    IPv4), or None.
    """
    if host is None:
        return None
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None
    if address.version == 6 and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address


class BanIndex:
    """
    The bans of addresses in force, indexed by prefix length: whether an
    address is banned is at most 33 (IPv4) or 129 (IPv6) dictionary
    reads, however many bans there are.
    """

    def __init__(self, bans: Iterable[store.AddressBan] = ()) -> None:
        self._byLength: Dict[Tuple[int, int], Dict[Address, float]] = {}
        self.networks: Dict[
            Union[ipaddress.IPv4Network, ipaddress.IPv6Network], float] = {}
        for ban in bans:
            network = ipaddress.ip_network(ban.cidr, strict=False)
            self.networks[network] = ban.until
            self._byLength.setdefault(
                (network.version, network.prefixlen), {})[
                    network.network_address] = ban.until
        self._lengths = sorted(self._byLength)

    def __len__(self) -> int:
        return len(self.networks)

    def until(self, address: Address) -> Optional[float]:
        """
        The latest end of a ban covering C{address} (an L{ipaddress}
        address), or None.
        """
        found = None
        start = bisect.bisect_left(self._lengths, (address.version, -1))
        for version, length in self._lengths[start:]:
            if version != address.version:
                break
            network = ipaddress.ip_network((address, length), strict=False)
            until = self._byLength[version, length].get(
                network.network_address)
            if until is not None and (found is None or until > found):
                found = until
        return found


class NameCache:
    """
    The accounts the name check read lately, by case-folded name, the
    least lately used forgotten past C{size}; an account known to be
    none is held too (as None).

    An entry is held as a plain tuple of atoms, which the cyclic
    collector stops tracking: a full collection then does not walk the
    cache (at 20,000 L{store.NameEntry}s it took 15-30 ms, a stall).
    """

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._entries: collections.OrderedDict[
            str, Optional[Tuple[Any, ...]]] = collections.OrderedDict()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def get(self, key: str) -> Optional[store.NameEntry]:
        """
        The entry of C{key} (a L{hub.accounts.store.NameEntry} or None);
        raise L{KeyError} if it is not held.
        """
        try:
            fields = self._entries[key]
        except KeyError:
            self.misses += 1
            raise
        self._entries.move_to_end(key)
        self.hits += 1
        return None if fields is None else store.NameEntry(*fields)

    def peek(self, key: str) -> Optional[store.NameEntry]:
        """
        The entry of C{key} if held (not counted as a use), else None.
        """
        fields = self._entries.get(key)
        return None if fields is None else store.NameEntry(*fields)

    def put(self, key: str, entry: Optional[store.NameEntry]) -> None:
        self._entries[key] = None if entry is None else tuple(entry)
        self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def drop(self, key: str) -> None:
        self._entries.pop(key, None)

    def clear(self) -> None:
        self._entries.clear()


class GameKeys:
    """
    The one-time keys of the engines of tournament games: a play key of
    L{names.KEY_LENGTH} characters per entrant of a game, made by
    L{mint} when the director launches the entrant's engine, taken back
    by L{redeem} (its first use) or L{revoke} (the game stopped).  Held
    in this process's memory only: never stored, logged or shown.
    """

    def __init__(self) -> None:
        self._keys: Dict[Tuple[str, str], str] = {}

    def __len__(self) -> int:
        return len(self._keys)

    def mint(self, room: str, name: str) -> str:
        """
        A new key for entrant C{name} in the game of room C{room}
        (replacing any it had).

        @rtype: L{str}
        """
        key = self._keys[(room, names.nameKey(name))] = names.newKey()
        return key

    def redeem(self, room: str, name: str, key: str) -> bool:
        """
        Whether C{key} is the key of C{name} in C{room}'s game (compared
        in constant time); if it is, it is used up.
        """
        held = self._keys.get((room, names.nameKey(name)))
        if held is None or not hmac.compare_digest(
                held.encode("ascii"), key.encode("ascii", "replace")):
            return False
        del self._keys[(room, names.nameKey(name))]
        return True

    def revoke(self, room: str, name: str) -> None:
        """
        Forget C{name}'s key in C{room}'s game, if it is not used yet.
        """
        self._keys.pop((room, names.nameKey(name)), None)


@implementer(INameCheck)
class GameNameCheck:
    """
    The name check of the connections of one tournament game's private
    listener (L{hub.tournaments.engines}): L{NameService}'s, which also
    takes the game's one-time keys (L{GameKeys}) for C{room}; the bans
    are the service's.
    """

    def __init__(self, service: NameService, room: str) -> None:
        self.service = service
        self.room = room
        self.gameKeys = service.gameKeys

    def check(self, kind: str, wireName: str,
              host: Optional[str]) -> Deferred[Optional[Verdict]]:
        """
        L{NameService.check}, with C{room}'s game keys (a Deferred).
        """
        return self.service.check(kind, wireName, host, room=self.room)

    def judge(self, kind: str, wireName: str,
              host: Optional[str]) -> Deferred[Judged]:
        """
        L{NameService.judge}, with C{room}'s game keys.
        """
        return self.service.judge(kind, wireName, host, room=self.room)

    def plainName(self, kind: str, wireName: str) -> str:
        """
        L{NameService.plainName}.
        """
        return self.service.plainName(kind, wireName)

    def accountBanned(self, account: str) -> bool:
        """
        L{NameService.accountBanned}.
        """
        return self.service.accountBanned(account)

    def addressBanned(self, host: Optional[str]) -> bool:
        """
        L{NameService.addressBanned}.
        """
        return self.service.addressBanned(host)


def openPeer(session: ISession) -> Optional[IPeer]:
    """
    The peer of C{session} if it has a client connection not being
    closed, else None.
    """
    peer = IPeer(session.peer, None)
    return peer if peer is not None and peer.connectionOpen() else None


def peerHost(peer: object) -> Optional[str]:
    """
    The client address of a session's peer (an L{IPeer}), or None.
    """
    adapted = IPeer(peer, None)
    return None if adapted is None else adapted.peerAddress()


@implementer(INameService)
class NameService(Service):
    """
    The name check of one hub (C{--names accounts} or C{closed}).

    @param accounts: the L{hub.accounts.model.Accounts} (what it reads:
        C{nameSetup}, C{nameEntry}, C{guestClash}, C{bans},
        C{changesSince}, C{pruneChanges}, C{touch} and C{now}).
    @param clock: the hub's (tracked) clock.
    @param sessions: the L{hub.sessions.Sessions} whose live connections
        bans close.
    @param mode: C{accounts} or C{closed}.

    @ivar secret: the play keys' HMAC secret, None until first read.
    @ivar cache: the L{NameCache}.
    @ivar bannedAccounts: C{{nameKey: until}} of the banned accounts.
    @ivar bans: the L{BanIndex} of the addresses banned.
    @ivar limits: the L{guesses.GuessLimits} of the keys' proofs.
    @ivar refused: refusals so far, by reason.
    @ivar proven: names proven with their key so far.
    @ivar closedByBan: live connections closed by a ban.
    @param moderate: None, or called with this service to make its
        C{moderation} (L{hub.accounts.service.nameService} passes one
        making the hub's L{hub.accounts.moderation.Moderation}).
    @ivar moderation: what C{moderate} made, or None.
    @ivar gameKeys: the one-time keys of tournament engines (L{GameKeys}).
    @ivar gameKeysProven: names proven with a game key so far.
    """

    name = "names"
    log = Logger()

    def __init__(self, accounts: Accounts, clock: IReactorTime,
                 sessions: Sessions, mode: str = "accounts",
                 pollSeconds: float = POLL_SECONDS,
                 cacheSize: int = CACHE_SIZE,
                 moderate: Optional[Callable[[NameService], Any]] = None
                 ) -> None:
        if mode not in MODES[1:]:
            raise ValueError("a name service checks accounts or closed")
        self.accounts = accounts
        self.clock = clock
        self.sessions = sessions
        self.mode = mode
        self.pollSeconds = pollSeconds
        self.secret: Optional[bytes] = None
        self.seq = self._floor = 0
        self._seen: Set[int] = set()
        self.cache = NameCache(cacheSize)
        # The guests' names found free: (case-folded name, skeleton) ->
        # (seq, accounts added) when the database said so.
        self._freeGuests: Dict[Tuple[str, str], Tuple[int, int]] = {}
        self._reads: Dict[str, List[Deferred[Optional[store.NameEntry]]]] = {}
        self.bannedAccounts: Dict[str, float] = {}
        self.bans = BanIndex()
        self.limits = guesses.GuessLimits(clock)
        self.refused = dict.fromkeys(REASONS, 0)
        self.proven = 0
        self.closedByBan = 0
        self.summary = SummaryLog(clock, self.log, burst=LOG_BURST)
        self._loop: Optional[LoopingCall] = None
        self._prune: Optional[LoopingCall] = None
        self._reading: Optional[Deferred[Any]] = None
        self.gameKeys = GameKeys()
        self.gameKeysProven = 0
        self._banWatchers: List[Callable[[], object]] = []
        self._changeWatchers: List[
            Callable[[Optional[List[str]]], object]] = []
        # (A hub.accounts.moderation.Moderation, which imports this.)
        self.moderation: Any = None if moderate is None else moderate(self)

    def watchBans(self, watcher: Callable[[], object]) -> None:
        """
        Call C{watcher()} whenever bans come to cover more (after the
        live connections of the hub's sessions are closed): the web face
        closes the streams and sockets they cover (L{hub.web.door}).
        """
        self._banWatchers.append(watcher)

    def watchChanges(self,
                     watcher: Callable[[Optional[List[str]]], object]) -> None:
        """
        Call C{watcher(keys)} with the case-folded names of the accounts
        that changed, as the check reads of them (C{keys} None: any may
        have, the check read everything again).  What the pages show of
        an account is forgotten so (L{hub.accounts.displays}).
        """
        self._changeWatchers.append(watcher)

    def forGame(self, room: str) -> GameNameCheck:
        """
        The name check of the private listener of the tournament game at
        C{room}: this one, with that game's keys (L{GameNameCheck}).
        """
        return GameNameCheck(self, room)

    def startService(self) -> None:
        Service.startService(self)
        self._loop = LoopingCall(self.refresh)
        self._loop.clock = self.clock
        self._loop.start(self.pollSeconds, now=self.secret is None)
        self._prune = LoopingCall(self.pruneChanges)
        self._prune.clock = self.clock
        self._prune.start(PRUNE_SECONDS, now=False)

    def stopService(self) -> Optional[Deferred[Any]]:
        Service.stopService(self)
        self.summary.flush()
        for loop in (self._loop, self._prune):
            if loop is not None and loop.running:
                loop.stop()
        return self._reading

    # What is read.

    def ready(self) -> bool:
        """
        Whether the check has read what it needs to start.
        """
        return self.secret is not None

    def setUp(self, setup: store.NameSetup) -> None:
        """
        Start from C{setup} (a L{hub.accounts.store.NameSetup}), and close
        the live connections its bans cover.
        """
        self.secret = setup.secret
        # (What was written before is read already.)
        self.seq = self._floor = setup.seq
        self._seen = set()
        self.cache.clear()
        self._freeGuests.clear()
        self.bannedAccounts = dict(setup.bannedAccounts)
        self.bans = BanIndex(setup.bans)
        for watcher in self._changeWatchers:
            watcher(None)
        self.enforce()

    def refresh(self) -> Deferred[None]:
        """
        Read now: what the check starts from if it has not read it yet,
        else the changes since the last read.  Asked while a read is under
        way, it reads once more after it (what was just written must be
        seen).

        @return: a Deferred that fires when done (never fails).
        """
        if self._reading is not None:
            return self._reading.addCallback(lambda _: self.refresh())
        # The setup's None, or whether more changes wait.
        d: Deferred[Any]
        if self.secret is None:
            d = self.accounts.nameSetup().addCallback(self.setUp)
        else:
            d = self.accounts.changesSince(
                max(0, self.seq - LOOKBACK), CHANGES_PER_READ
            ).addCallback(self.changed)
        self._reading = d

        def done(result: Optional[bool]) -> Optional[bool]:
            self._reading = None
            return result

        def failed(failure: Failure) -> None:
            self.log.warn("accounts unreadable ({error}); names are "
                          "checked against what was read before",
                          error=failure.getErrorMessage())

        d.addErrback(failed).addBoth(done)
        return d.addCallback(self._again)

    def _again(self, more: Optional[bool]) -> Optional[Deferred[None]]:
        if more:
            return self.refresh()
        return None

    @defer.inlineCallbacks
    def changed(self, rows: List[store.Change]
                ) -> Generator[Deferred[Any], Any, bool]:
        """
        Forget, or read again, what the changes C{rows} (C{(seq, kind,
        target)}, oldest first) touched.

        @return: a Deferred of whether more may wait to be read.
        """
        addresses = False
        accounts: List[str] = []
        for seq, kind, target in rows:
            if seq <= self._floor or seq in self._seen:
                continue
            self._seen.add(seq)
            self.seq = max(self.seq, seq)
            if kind == "address":
                addresses = True
            else:
                self.cache.drop(target)
                self._reads.pop(target, None)
                accounts.append(target)
        self._seen = {s for s in self._seen if s > self.seq - LOOKBACK}
        if accounts:
            for watcher in self._changeWatchers:
                watcher(accounts)
        now = self.accounts.now()
        self.bannedAccounts = {k: until for k, until in
                               self.bannedAccounts.items() if until > now}
        newly: Set[str] = set()
        for key in accounts:
            entry = yield self.entry(key)
            until = entry.bannedUntil if entry is not None else None
            if until is not None and until > now:
                if key not in self.bannedAccounts:
                    newly.add(key)
                self.bannedAccounts[key] = until
            else:
                self.bannedAccounts.pop(key, None)
        if newly:
            self.log.info("bans now: {networks} address range(s), "
                          "{accounts} account(s)", networks=len(self.bans),
                          accounts=len(self.bannedAccounts), event="bans")
            self.enforce(accounts=newly, networks=False)
        if addresses:
            before = set(self.bans.networks)
            self.bans = BanIndex((yield self.accounts.bans()))
            after = set(self.bans.networks)
            if after != before:
                self.log.info("bans now: {networks} address range(s), "
                              "{accounts} account(s)", networks=len(after),
                              accounts=len(self.bannedAccounts),
                              event="bans")
            if after - before:
                self.enforce(accounts=set())
        return len(rows) >= CHANGES_PER_READ

    def pruneChanges(self) -> Deferred[None]:
        """
        Forget the changes older than L{CHANGES_KEPT_SECONDS}, and the
        guess limits back to nothing.
        """
        self.limits.prune()
        d = self.accounts.pruneChanges(CHANGES_KEPT_SECONDS)
        return d.addErrback(lambda f: self.log.debug(
            "old account changes not pruned: {error}",
            error=f.getErrorMessage()))

    def entry(self, key: str) -> Deferred[Optional[store.NameEntry]]:
        """
        A Deferred of the L{hub.accounts.store.NameEntry} of account
        C{key} (case-folded name), or None: from the cache, else read
        (once, however many ask at the same time) and cached.
        """
        try:
            return defer.succeed(self.cache.get(key))
        except KeyError:
            pass
        answer: Deferred[Optional[store.NameEntry]] = defer.Deferred()
        waiters = self._reads.get(key)
        if waiters is not None:
            waiters.append(answer)
            return answer
        waiters = self._reads[key] = [answer]
        self.accounts.nameEntry(key).addBoth(self._read, key, waiters)
        return answer

    def _read(self, result: Union[Optional[store.NameEntry], Failure],
              key: str,
              waiters: List[Deferred[Optional[store.NameEntry]]]) -> None:
        # Cached unless forgotten while it was read (a change came).
        if self._reads.get(key) is waiters:
            del self._reads[key]
            if not isinstance(result, Failure):
                self.cache.put(key, result)
        for answer in waiters:
            answer.callback(result)

    def enforce(self, accounts: Optional[Collection[str]] = None,
                networks: bool = True) -> None:
        """
        Close every live connection of a banned account (of C{accounts}
        only, if given) or address (unless not C{networks}).
        """
        now = self.accounts.now()
        banned = {k for k, until in self.bannedAccounts.items()
                  if until > now and (accounts is None or k in accounts)}
        if not banned and not (networks and len(self.bans)):
            return
        for session in list(self.sessions):
            peer = openPeer(session)
            if peer is None:
                continue
            if session.account in banned or (
                    networks and self.addressBanned(peer.peerAddress())):
                self.closedByBan += 1
                self.summary.note(
                    "connections closed by bans",
                    "closing {kind} connection of {name!r}: banned",
                    kind=session.kind, name=session.label)
                peer.closeConnection()
        for watcher in self._banWatchers:
            watcher()

    def addressBanned(self, host: Optional[str]) -> bool:
        """
        Whether connections from C{host} are refused (before the first
        read nobody is).
        """
        address = parseAddress(host)
        if address is None or not len(self.bans):
            return False
        until = self.bans.until(address)
        return until is not None and until > self.accounts.now()

    def accountBanned(self, account: str) -> bool:
        """
        Whether the account C{account} (case-folded name) is banned.
        """
        until = self.bannedAccounts.get(account)
        return until is not None and until > self.accounts.now()

    def plainName(self, kind: str, wireName: str) -> str:
        """
        The name others see of C{wireName}: without its key, if keyed, as
        the account spells it if it was read.  (For a resume, which the
        session's token proves.)
        """
        keyed = names.splitKeyed(wireName)
        if keyed is None:
            return wireName
        entry = self.cache.peek(names.nameKey(keyed.name))
        return entry.name if entry is not None else keyed.name

    # The check.

    def check(self, kind: str, wireName: str, host: Optional[str],
              room: Optional[str] = None) -> Deferred[Optional[Verdict]]:
        """
        Whether the player at C{host} may use C{wireName} (the name field
        exactly as sent) in game kind C{kind}.

        @param room: the room of the tournament game whose private
            listener the player came through (L{GameNameCheck}), or None:
            a one-time game key of that game (L{GameKeys}) proves its
            entrant's name too.
        @return: a Deferred of a L{Verdict}, or of None for the
            protocol's "name taken" (it never fails).
        """
        d = self.judge(kind, wireName, host, room)
        return d.addCallback(
            lambda verdict: verdict if isinstance(verdict, Verdict) else None)

    def judge(self, kind: str, wireName: str, host: Optional[str],
              room: Optional[str] = None) -> Deferred[Judged]:
        """
        L{check}, saying why a name is refused: for a protocol whose
        refusals are typed (the browser's, L{hub.web.play}).

        @param room: as L{check}'s.
        @return: a Deferred of a L{Verdict}, or of the reason of the
            refusal (one of L{REASONS}), counted and logged as L{check}'s
            are (it never fails).
        """
        shown = names.shownName(wireName)
        # (maybeDeferred waits for the Deferred _judge may give.)
        d = cast(Deferred[Judged], defer.maybeDeferred(
            self._judge, kind, wireName, host, room))

        def failed(failure: Failure) -> str:
            self.log.failure("name check of {name!r} failed", failure,
                             name=shown)
            return self._refuse(NOT_READY, kind, shown, host)
        return d.addErrback(failed)

    def _judge(self, kind: str, wireName: str, host: Optional[str],
               room: Optional[str]) -> Union[str, Deferred[Judged]]:
        keyed = names.splitKeyed(wireName)
        shown = wireName if keyed is None else keyed.name
        if self.secret is None:
            return self._refuse(NOT_READY, kind, shown, host)
        if self.addressBanned(host):
            return self._refuse(BANNED, kind, shown, host)
        if keyed is None:
            return self._judgeGuest(kind, wireName, host)
        return self._judgeKeyed(kind, keyed, host, room)

    @defer.inlineCallbacks
    def _judgeGuest(self, kind: str, wireName: str, host: Optional[str]
                    ) -> Generator[Deferred[Any], Any, Judged]:
        """
        A name without a separator: a guest's, normalised, if it is no
        account's and does not look like one.
        """
        try:
            name = names.guestName(wireName)
        except names.BadName:
            return self._refuse(INVALID, kind, wireName, host)
        key = names.nameKey(name)
        if self.cache.peek(key) is not None:
            return self._refuse(TAKEN, kind, name, host)
        if self.mode == "closed":
            return self._refuse(CLOSED, kind, name, host)
        # A name found free stays free while no account is added here
        # and no change is read (one added elsewhere is read within
        # POLL_SECONDS): a player who joins a room for every game is read
        # once.
        found = (key, names.skeleton(name))
        stamp = (self.seq, self.accounts.added)
        if self._freeGuests.get(found) == stamp:
            return Verdict(name, True)
        clash = yield self.accounts.guestClash(*found)
        if clash:
            return self._refuse(TAKEN, kind, name, host)
        if stamp == (self.seq, self.accounts.added):
            if len(self._freeGuests) >= GUESTS_KEPT:
                self._freeGuests.clear()
            self._freeGuests[found] = stamp
        return Verdict(name, True)

    @defer.inlineCallbacks
    def _judgeKeyed(self, kind: str, keyed: names.Keyed, host: Optional[str],
                    room: Optional[str]
                    ) -> Generator[Deferred[Any], Any, Judged]:
        """
        A name with a separator: a proof of the name before it, whatever
        follows (never a guest's: a mistyped key is not shown).
        """
        name = keyed.name
        account = names.nameKey(name)
        key = keyed.keyFor(kind)
        if room is not None and key is not None and \
                self.gameKeys.redeem(room, name, key):
            # The director's key for this entrant of this game: an
            # account's name as registered (unless banned), or the name
            # the admin gave an engine that is no account's (a guest's,
            # admitted to its game even under --names closed).
            entry = yield self.entry(account)
            if self.accountBanned(account):
                return self._refuse(BANNED, kind, name, host)
            self.gameKeysProven += 1
            if entry is None:
                return Verdict(name, True)
            return Verdict(entry.name, False, account)
        go = yield self.limits.wait(account, host)
        if not go or self.limits.locked(account, host):
            return self._refuse(LOCKED, kind, name, host)
        # The try is taken before the key is checked, and given back if
        # it was right: proofs in flight at once count as one after the
        # other would.
        self.limits.fail(account, host)
        entry = yield self.entry(account)
        if entry is None:
            return self._refuse(NO_ACCOUNT, kind, name, host)
        assert self.secret is not None  # (_judge refused it before)
        if key is None or not names.keyMatches(self.secret, key,
                                               entry.keyHash):
            return self._refuse(WRONG_KEY, kind, name, host)
        self.limits.refund(account, host)
        if self.accountBanned(account):
            return self._refuse(BANNED, kind, name, host)
        self.proven += 1
        self.accounts.touch(account).addErrback(
            lambda f: self.log.debug("last seen of {name!r} not written: "
                                     "{error}", name=entry.name,
                                     error=f.getErrorMessage()))
        return Verdict(entry.name, False, account)

    def _refuse(self, reason: str, kind: str, name: str,
                host: Optional[str]) -> str:
        self.refused[reason] += 1
        self.summary.note(
            "names refused",
            "refused {kind} name {name!r} from {host}: {reason}",
            kind=kind, name=names.shownName(name)[:40], host=host,
            reason=reason)
        return reason

    def collector(self) -> ReadCounters:
        """
        The Prometheus collector of the refusals and proofs.
        """
        return namesCollector(self)


def namesCollector(service: NameService) -> ReadCounters:
    """
    gamehub_names_refused_total{reason}, gamehub_names_proven_total and
    gamehub_names_banned_closed_total, read from C{service} (a
    L{NameService}).
    """
    return ReadCounters(labelled=[(
        "gamehub_names_refused", "Names refused at name time, by reason "
        "(taken, wrong_key, no_account, locked, closed, banned, "
        "not_ready, invalid).", "reason", lambda: service.refused)], plain=[
        ("gamehub_names_proven", "Account names proven with their play "
         "key.", lambda: service.proven),
        ("gamehub_names_banned_closed", "Live connections closed because "
         "a ban came to cover them.", lambda: service.closedByBan)])
