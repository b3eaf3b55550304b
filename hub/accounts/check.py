"""
The name check the protocol adapters call when a player gives a name (at
name time only, never per move), and the enforcement of bans on live
connections.

A L{NameService} keeps in memory a snapshot of the accounts' names, key
hashes and bans, read from the database every L{REFRESH_SECONDS} on the
hub's clock: a ban made with C{python -m hub.accounts} while the hub runs
reaches it, and closes the connections it covers, within that time.

Modes (C{--names}):
  - C{open}: no account is consulted (the hub gives no name service);
  - C{accounts}: a registered name needs its key (C{alice__KEY},
    C{alice#KEY}); any other name is a guest's;
  - C{closed}: guests are refused too.

Failed proofs are limited per name and per address by token buckets
(L{NAME_BURST} then one per L{NAME_REFILL_SECONDS}, L{ADDRESS_BURST} then
one per L{ADDRESS_REFILL_SECONDS}); a proof past either limit is refused
like a wrong key, so that a lockout says nothing about the name.  With
keys of 62 ** 10 (about 8.4e17), one name takes at most about 525,600
guesses a year: about 6e-13 of its keys.

Tournament engines (L{hub.tournaments.engines}) prove their names with
game keys instead: keys are stored hashed, so the director cannot give an
engine its account's key; it mints one for each game of an engine entrant
(L{GameKeys}), held in memory only, and the connections of that game's
private listener are checked by L{GameNameCheck}, which accepts that key
for that entrant once, until the game stops.
"""

import hmac
import ipaddress

import attr
from twisted.application.service import Service
from twisted.internet.task import LoopingCall
from twisted.logger import Logger

from hub.accounts import names
from hub.limits import LOG_BURST, SummaryLog
from hub.metrics import ReadCounters

MODES = ("open", "accounts", "closed")
REFRESH_SECONDS = 2.0
NAME_BURST = 10
NAME_REFILL_SECONDS = 60.0
ADDRESS_BURST = 20
ADDRESS_REFILL_SECONDS = 30.0
MAX_BUCKETS = 100000

# Why a name was refused (the label of the refusals' counter).
TAKEN = "taken"
WRONG_KEY = "wrong_key"
NO_ACCOUNT = "no_account"
LOCKED = "locked"
CLOSED = "closed"
BANNED = "banned"
NOT_READY = "not_ready"
REASONS = (TAKEN, WRONG_KEY, NO_ACCOUNT, LOCKED, CLOSED, BANNED, NOT_READY)


@attr.s(frozen=True)
class Verdict:
    """
    A name accepted.

    @ivar name: the name everybody else sees (an account's as registered).
    @ivar guest: True if it is no account's.
    @ivar account: the account's case-folded name, or None.
    """

    name = attr.ib()
    guest = attr.ib()
    account = attr.ib(default=None)


@attr.s(frozen=True)
class Snapshot:
    """
    What the check knows of the database.

    @ivar secret: the play keys' HMAC secret.
    @ivar accounts: C{{nameKey: (name, keyHash, banned)}}.
    @ivar networks: the banned L{ipaddress} networks.
    """

    secret = attr.ib()
    accounts = attr.ib()
    networks = attr.ib()

    @classmethod
    def fromRows(cls, secret, rows, bans):
        """
        The snapshot of L{hub.accounts.store.nameRows}' answer.
        """
        return cls(secret, {key: (name, keyHash, banned)
                            for key, name, keyHash, banned in rows},
                   tuple(ipaddress.ip_network(b.cidr) for b in bans))

    def bannedAccounts(self):
        """
        The case-folded names of the banned accounts.
        """
        return {key for key, (_, _, banned) in self.accounts.items()
                if banned}

    def addressBanned(self, host):
        """
        Whether C{host} (an address string, or None) is banned.
        """
        if not self.networks or host is None:
            return False
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        if address.version == 6 and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        return any(address in network for network in self.networks)


class GameKeys:
    """
    The one-time keys of the engines of tournament games: a play key of
    L{names.KEY_LENGTH} characters per entrant of a game, made by
    L{mint} when the director launches the entrant's engine, taken back
    by L{redeem} (its first use) or L{revoke} (the game stopped).  Held
    in this process's memory only: never stored, logged or shown.
    """

    def __init__(self):
        self._keys = {}

    def __len__(self):
        return len(self._keys)

    def mint(self, room, name):
        """
        A new key for entrant C{name} in the game of room C{room}
        (replacing any it had).

        @rtype: L{str}
        """
        key = self._keys[(room, names.nameKey(name))] = names.newKey()
        return key

    def redeem(self, room, name, key):
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

    def revoke(self, room, name):
        """
        Forget C{name}'s key in C{room}'s game, if it is not used yet.
        """
        self._keys.pop((room, names.nameKey(name)), None)


class GameNameCheck:
    """
    The name check of the connections of one tournament game's private
    listener (L{hub.tournaments.engines}): L{NameService}'s, which also
    takes the game's one-time keys (L{GameKeys}) for C{room}.  Anything
    else is the service's.
    """

    def __init__(self, service, room):
        self.service = service
        self.room = room

    def check(self, kind, wireName, host):
        """
        L{NameService.check}, with C{room}'s game keys.
        """
        return self.service.check(kind, wireName, host, room=self.room)

    def judge(self, kind, wireName, host):
        """
        L{NameService.judge}, with C{room}'s game keys.
        """
        return self.service.judge(kind, wireName, host, room=self.room)

    def __getattr__(self, name):
        return getattr(self.service, name)


class Buckets:
    """
    Token buckets of failed proofs by key: each holds up to C{burst},
    gains one every C{refill} seconds, and each failure takes one.
    """

    def __init__(self, clock, burst, refill):
        self.clock = clock
        self.burst = burst
        self.refill = refill
        self._buckets = {}

    def _tokens(self, key):
        bucket = self._buckets.get(key)
        if bucket is None:
            return float(self.burst)
        tokens, at = bucket
        return min(self.burst,
                   tokens + (self.clock.seconds() - at) / self.refill)

    def empty(self, key):
        """
        Whether C{key} has no failure left.
        """
        return self._tokens(key) < 1

    def fail(self, key):
        """
        One failure of C{key}.
        """
        if len(self._buckets) >= MAX_BUCKETS:
            self.prune()
        self._buckets[key] = (self._tokens(key) - 1, self.clock.seconds())

    def refund(self, key):
        """
        Give back the try C{key} took with L{fail} before it was known to
        fail (it did not).
        """
        if key in self._buckets:
            self._buckets[key] = (min(self.burst, self._tokens(key) + 1),
                                  self.clock.seconds())

    def prune(self):
        """
        Forget the buckets that are full again.
        """
        for key in [k for k in self._buckets
                    if self._tokens(k) >= self.burst]:
            del self._buckets[key]


def peerHost(peer):
    """
    The client address of a protocol instance, or None.
    """
    forwarded = getattr(peer, "forwardedFor", None)
    if forwarded:
        return forwarded
    transport = getattr(peer, "transport", None)
    if transport is None:
        return None
    return getattr(transport.getPeer(), "host", None)


class NameService(Service):
    """
    The name check of one hub (C{--names accounts} or C{closed}).

    @param accounts: the L{hub.accounts.model.Accounts}.
    @param clock: the hub's (tracked) clock.
    @param sessions: the L{hub.sessions.Sessions} whose live connections
        bans close.
    @param mode: C{accounts} or C{closed}.

    @ivar snapshot: the last L{Snapshot}, or None before the first.
    @ivar refused: refusals so far, by reason.
    @ivar proven: names proven with their key so far.
    @ivar closedByBan: live connections closed by a ban.
    @ivar moderation: the hub's L{hub.accounts.moderation.Moderation}
        (set by L{hub.accounts.service.nameService}), or None.
    @ivar gameKeys: the one-time keys of tournament engines (L{GameKeys}).
    @ivar gameKeysProven: names proven with a game key so far.
    """

    name = "names"
    log = Logger()

    def __init__(self, accounts, clock, sessions, mode="accounts",
                 refreshSeconds=REFRESH_SECONDS):
        if mode not in MODES[1:]:
            raise ValueError("a name service checks accounts or closed")
        self.accounts = accounts
        self.clock = clock
        self.sessions = sessions
        self.mode = mode
        self.refreshSeconds = refreshSeconds
        self.snapshot = None
        self.byName = Buckets(clock, NAME_BURST, NAME_REFILL_SECONDS)
        self.byAddress = Buckets(clock, ADDRESS_BURST,
                                 ADDRESS_REFILL_SECONDS)
        self.refused = dict.fromkeys(REASONS, 0)
        self.proven = 0
        self.closedByBan = 0
        self.summary = SummaryLog(clock, self.log, burst=LOG_BURST)
        self._loop = None
        self._reading = None
        self.moderation = None
        self.gameKeys = GameKeys()
        self.gameKeysProven = 0
        self._banWatchers = []

    def watchBans(self, watcher):
        """
        Call C{watcher()} whenever bans come to cover more (after the
        live connections of the hub's sessions are closed): the web face
        closes the streams and sockets they cover (L{hub.web.door}).
        """
        self._banWatchers.append(watcher)

    def forGame(self, room):
        """
        The name check of the private listener of the tournament game at
        C{room}: this one, with that game's keys (L{GameNameCheck}).
        """
        return GameNameCheck(self, room)

    def startService(self):
        Service.startService(self)
        self._loop = LoopingCall(self.refresh)
        self._loop.clock = self.clock
        self._loop.start(self.refreshSeconds, now=self.snapshot is None)

    def stopService(self):
        Service.stopService(self)
        self.summary.flush()
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        return self._reading

    def load(self, secret, rows, bans):
        """
        Take a new snapshot (L{hub.accounts.store.nameRows}' answer) and,
        if it bans what the last one did not, close the live connections
        its bans cover (the others were checked when they came).
        """
        before = self.snapshot
        self.snapshot = Snapshot.fromRows(secret, rows, bans)
        self.byName.prune()
        self.byAddress.prune()
        banned = self.snapshot.bannedAccounts()
        if before is not None and (
                banned != before.bannedAccounts()
                or set(self.snapshot.networks) != set(before.networks)):
            self.log.info("bans now: {networks} address range(s), "
                          "{accounts} account(s)",
                          networks=len(self.snapshot.networks),
                          accounts=len(banned), event="bans")
        if before is None or not (
                self.snapshot.bannedAccounts() <= before.bannedAccounts()
                and set(self.snapshot.networks) <= set(before.networks)):
            self.enforce()

    def refresh(self):
        """
        Read the snapshot again; a failed read keeps the last one.  Asked
        while a read is under way, it reads once more after it (what
        was just written must be seen).

        @return: a Deferred that fires when done (never fails).
        """
        if self._reading is not None:
            return self._reading.addCallback(lambda _: self.refresh())
        d = self._reading = self.accounts.nameRows()

        def done(result):
            self._reading = None
            if result is not None:
                self.load(*result)

        def failed(failure):
            self.log.warn("accounts unreadable ({error}); names are "
                          "checked against the last snapshot",
                          error=failure.getErrorMessage())

        return d.addErrback(failed).addCallback(done)

    def enforce(self):
        """
        Close every live connection of a banned account or address.
        """
        snapshot = self.snapshot
        banned = snapshot.bannedAccounts()
        if not banned and not snapshot.networks:
            return
        for session in list(self.sessions):
            peer = session.peer
            if peer is None or getattr(peer, "transport", None) is None:
                continue
            account = getattr(session, "account", None)
            if account in banned or snapshot.addressBanned(peerHost(peer)):
                self.closedByBan += 1
                self.summary.note(
                    "connections closed by bans",
                    "closing {kind} connection of {name!r}: banned",
                    kind=session.kind, name=session.label)
                peer.transport.loseConnection()
        for watcher in self._banWatchers:
            watcher()

    def addressBanned(self, host):
        """
        Whether connections from C{host} are refused (before the first
        snapshot nobody is).
        """
        return self.snapshot is not None and \
            self.snapshot.addressBanned(host)

    def plainName(self, kind, wireName):
        """
        The name others see of C{wireName}: without its key, if keyed.
        (For a resume, which the session's token proves.)
        """
        keyed = names.splitKeyed(kind, wireName)
        if keyed is None:
            return wireName
        entry = self.snapshot and self.snapshot.accounts.get(
            names.nameKey(keyed[0]))
        return entry[0] if entry else keyed[0]

    def accountBanned(self, account):
        """
        Whether the account C{account} (case-folded name) is banned.
        """
        entry = self.snapshot and self.snapshot.accounts.get(account)
        return bool(entry and entry[2])

    def check(self, kind, wireName, host, room=None):
        """
        Whether the player at C{host} may use C{wireName} (the name field
        exactly as sent) in game kind C{kind}.

        @param room: the room of the tournament game whose private
            listener the player came through (L{GameNameCheck}), or None:
            a one-time game key of that game (L{GameKeys}) proves its
            entrant's name too.
        @return: a L{Verdict}, or None for the protocol's "name taken".
        """
        verdict = self.judge(kind, wireName, host, room)
        return verdict if isinstance(verdict, Verdict) else None

    def judge(self, kind, wireName, host, room=None):
        """
        L{check}, saying why a name is refused: for a protocol whose
        refusals are typed (the browser's, L{hub.web.play}).

        @param room: as L{check}'s.
        @return: a L{Verdict}, or the reason of the refusal (one of
            L{REASONS}), counted and logged as L{check}'s are.
        """
        snapshot = self.snapshot
        keyed = names.splitKeyed(kind, wireName)
        shown = keyed[0] if keyed else wireName
        if snapshot is None:
            return self._refuse(NOT_READY, kind, shown, host)
        if snapshot.addressBanned(host):
            return self._refuse(BANNED, kind, shown, host)
        if keyed is None:
            if names.nameKey(wireName) in snapshot.accounts:
                return self._refuse(TAKEN, kind, shown, host)
            if self.mode == "closed":
                return self._refuse(CLOSED, kind, shown, host)
            return Verdict(wireName, True)
        name, key = keyed
        account = names.nameKey(name)
        if room is not None and self.gameKeys.redeem(room, name, key):
            # The director's key for this entrant of this game: an
            # account's name as registered (unless banned), or the name
            # the admin gave an engine that is no account's (a guest's,
            # admitted to its game even under --names closed).
            entry = snapshot.accounts.get(account)
            if entry is not None and entry[2]:
                return self._refuse(BANNED, kind, name, host)
            self.gameKeysProven += 1
            if entry is None:
                return Verdict(name, True)
            return Verdict(entry[0], False, account)
        if self.byName.empty(account) or self.byAddress.empty(host):
            return self._refuse(LOCKED, kind, name, host)
        entry = snapshot.accounts.get(account)
        if entry is None:
            # A mistyped name must not show its key to everybody as a
            # guest's name: a keyed form is never a guest's.
            self.byAddress.fail(host)
            return self._refuse(NO_ACCOUNT, kind, name, host)
        registered, keyHash, banned = entry
        if not names.keyMatches(snapshot.secret, key, keyHash):
            self.byName.fail(account)
            self.byAddress.fail(host)
            return self._refuse(WRONG_KEY, kind, name, host)
        if banned:
            return self._refuse(BANNED, kind, name, host)
        self.proven += 1
        self.accounts.touch(account).addErrback(
            lambda f: self.log.debug("last seen of {name!r} not written: "
                                     "{error}", name=registered,
                                     error=f.getErrorMessage()))
        return Verdict(registered, False, account)

    def _refuse(self, reason, kind, name, host):
        self.refused[reason] += 1
        self.summary.note(
            "names refused",
            "refused {kind} name {name!r} from {host}: {reason}",
            kind=kind, name=name, host=host, reason=reason)
        return reason

    def collector(self):
        """
        The Prometheus collector of the refusals and proofs.
        """
        return namesCollector(self)


def namesCollector(service):
    """
    gamehub_names_refused_total{reason}, gamehub_names_proven_total and
    gamehub_names_banned_closed_total, read from C{service} (a
    L{NameService}).
    """
    return ReadCounters(labelled=[(
        "gamehub_names_refused", "Names refused at name time, by reason "
        "(taken, wrong_key, no_account, locked, closed, banned, "
        "not_ready).", "reason", lambda: service.refused)], plain=[
        ("gamehub_names_proven", "Account names proven with their play "
         "key.", lambda: service.proven),
        ("gamehub_names_banned_closed", "Live connections closed because "
         "a ban came to cover them.", lambda: service.closedByBan)])
