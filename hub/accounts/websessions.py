"""
The web face's secrets, in the records database (migrations 0003 and
0008): login sessions, the admin API's tokens and the invite codes of
C{--registration invite}.  Each comes from L{secrets} and is kept only as
its SHA-256 (a session id or a token stolen from the database's rows
would be of no use); every call answers with a Deferred.

When a session ends (L{IDLE_SECONDS}, L{ABSOLUTE_SECONDS}, a login
elsewhere, a password, a role, a ban), why finding one writes nothing
(its last use is written per L{TOUCH_SECONDS}, in batches every
L{FLUSH_SECONDS}), how its live WebSockets close within L{POLL_SECONDS}
(L{hub.accounts.store.SESSIONS_EPOCH}), and the tokens' expiry and ids:
docs/accounts.md, "Web" and "The JSON admin API".
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import (
    Any, Callable, Dict, Generator, Iterable, List, Optional,
    Set, Tuple, TypeVar, cast)

import attr
from twisted.internet import defer
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.logger import Logger
from twisted.python.failure import Failure
from zope.interface import implementer

from hub.accounts import names, store
from hub.accounts.interfaces import IAccounts, IWebSessions
from hub.accounts.store import AccountError, Actorish
from hub.catalogs import N_

_T = TypeVar("_T")
#: What L{WebSessions._poll} reads of the sessions watched:
#: C{{hash: (createdAt, seenAt, banned)}}.
Alive = Dict[str, Tuple[float, float, Any]]

#: A session unused this long (seconds) has ended.
IDLE_SECONDS = 2 * 3600
#: A session ends this long (seconds) after its login, used or not.
ABSOLUTE_SECONDS = 24 * 3600
#: A session's last use is written at most this often (seconds).
TOUCH_SECONDS = 60
#: Seconds between a use and the batch that writes it.
FLUSH_SECONDS = 10.0
#: Uses waiting for their batch at most: more write it at once.
MAX_PENDING = 10000
#: Seconds between two looks for ended sessions while sockets live.
POLL_SECONDS = 1.0
#: Seconds between two full checks of the live sockets' sessions (their
#: age, and their use noted).
CHECK_SECONDS = 60.0
#: Session hashes asked about in one query.
CHUNK = 500
#: Seconds an admin API token lasts by default.
TOKEN_SECONDS = 30 * 86400
#: Hex characters of a token's hash that name it (its id).
TOKEN_ID_LENGTH = 12
#: Bytes of randomness of a session id, a token or an invite code.
SECRET_BYTES = 32


def newSecret() -> str:
    """
    A fresh session id, token or invite code: text from L{secrets}.
    """
    return secrets.token_urlsafe(SECRET_BYTES)


def secretHash(raw: str) -> str:
    """
    The stored form of a session id, token or invite code: its SHA-256,
    in hex.
    """
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def csrfToken(raw: str) -> str:
    """
    The CSRF token of the browser whose cookie holds C{raw}: its HMAC
    under C{raw}, so that it can be put in a page without showing the
    cookie, and checked without being stored.
    """
    return hmac.new(raw.encode("utf-8"), b"gamehub csrf",
                    hashlib.sha256).hexdigest()


def csrfMatches(raw: Optional[str], given: Optional[str]) -> bool:
    """
    Whether C{given} is the L{csrfToken} of C{raw}, compared in constant
    time.
    """
    if not raw or not given:
        return False
    return hmac.compare_digest(csrfToken(raw).encode("ascii"),
                               given.encode("utf-8", "replace"))


@attr.s(frozen=True)
class Visitor:
    """
    Who a session or a token is (as read with it, at this request).

    @ivar name: the account's name as registered.
    @ivar role: C{player}, C{moderator} or C{admin}.
    @ivar banned: whether the account is banned now (only asked for by
        L{WebSessions.find}'s C{banned}: otherwise a banned account's
        session is nobody's).
    @ivar session: the hash of its session (what L{WebSessions.watch}
        watches), or None for a token's.
    @ivar keepSessions: whether the account keeps its other sessions at
        a login ("keep me logged in elsewhere").
    @ivar display: the account's display name (L{hub.accounts.display}),
        or None (none, or a token's visitor).
    """

    name: str = attr.ib()
    role: str = attr.ib()
    banned: bool = attr.ib(default=False)
    session: Optional[str] = attr.ib(default=None, repr=False, eq=False)
    keepSessions: bool = attr.ib(default=False)
    display: Optional[str] = attr.ib(default=None)

    @property
    def account(self) -> str:
        """
        The account's case-folded name.
        """
        return names.nameKey(self.name)


@attr.s(frozen=True)
class TokenInfo:
    """
    An admin API token as listed (never the token).

    @ivar tokenId: its id, the start of its hash (what revoking takes).
    @ivar name: its account's name.
    @ivar label: the name it was given, or C{""}.
    @ivar createdAt: when it was made.
    @ivar lastUsed: when it was last used, or None.
    @ivar expiresAt: when it expires.
    """

    tokenId: str = attr.ib()
    name: str = attr.ib()
    label: str = attr.ib()
    createdAt: float = attr.ib()
    lastUsed: Optional[float] = attr.ib()
    expiresAt: float = attr.ib()


def _sessionRow(cursor: store.Cursor, digest: str) -> Any:
    cursor.execute(
        "SELECT s.created_at, s.seen_at, s.banned, a.name, a.role, "
        "a.banned_until, a.keep_sessions, a.display_name FROM "
        "web_sessions s JOIN "
        "accounts a ON a.name_key = s.name_key WHERE s.id_hash = ?",
        (digest,))
    return cursor.fetchone()


def _tokenRow(cursor: store.Cursor, digest: str) -> Any:
    cursor.execute(
        "SELECT t.expires_at, a.name, a.role, a.banned_until "
        "FROM api_tokens t JOIN accounts a ON a.name_key = t.name_key "
        "WHERE t.token_hash = ?", (digest,))
    return cursor.fetchone()


class SessionWatch:
    """
    A live socket watching its login session (L{WebSessions.watch}).
    """

    def __init__(self, sessions: WebSessions, digest: str, account: str,
                 ended: Callable[[], object]) -> None:
        self.sessions = sessions
        self.digest = digest
        self.account = account
        self.ended = ended

    def stop(self) -> None:
        """
        The socket is gone: watch no more.
        """
        self.sessions._unwatch(self)


@implementer(IWebSessions)
class WebSessions:
    """
    The sessions, tokens and invites of one records database.

    @param database: the L{hub.records.db.Database}.
    @param clock: the hub's clock (an L{IReactorTime}: its C{seconds}, and
        the timers of the batches and the watch).

    @ivar writes: the write transactions of the sessions' batches so far.
    """

    log = Logger()

    def __init__(self, database: store.Database, clock: IReactorTime,
                 idleSeconds: float = IDLE_SECONDS,
                 absoluteSeconds: float = ABSOLUTE_SECONDS) -> None:
        self.database = database
        self.clock = clock
        self.now = clock.seconds
        self.idleSeconds = idleSeconds
        self.absoluteSeconds = absoluteSeconds
        self.writes = 0
        # {session hash: (when used, account)}
        self._seen: Dict[str, Tuple[float, str]] = {}
        self._writing: Dict[str, Tuple[float, str]] = {}
        # The last batch written: a read begun before it was committed
        # (PostgreSQL reads beside the write) may end after it.
        self._written: Dict[str, Tuple[float, str]] = {}
        self._tokenUses: Dict[str, float] = {}
        self._flushCall: Optional[IDelayedCall] = None
        self._flushing: Optional[Deferred[None]] = None
        self._watches: Dict[str, Set[SessionWatch]] = {}
        self._pollCall: Optional[IDelayedCall] = None
        self._epoch: Optional[str] = None
        self._checkedAt: Optional[float] = None

    def _write(self, interaction: Callable[..., _T],
               *args: Any) -> Deferred[_T]:
        return self.database.runInteraction(interaction, *args, write=True)

    def _read(self, interaction: Callable[..., _T],
              *args: Any) -> Deferred[_T]:
        return self.database.runInteraction(interaction, *args)

    # Sessions.

    def open(self, name: str) -> Deferred[str]:
        """
        A new session of the account C{name}; its other sessions end,
        unless it keeps them ("keep me logged in elsewhere"), and the
        sessions that ended are dropped.

        @return: a Deferred of the session's id (for the cookie only).
        """
        raw = newSecret()
        digest = secretHash(raw)
        now = self.now()
        key = names.nameKey(name)

        def interaction(cursor: store.Cursor) -> List[str]:
            store.accountName(cursor, key, name)
            self._dropEnded(cursor, now)
            ended: List[str] = []
            if not store.keepsSessions(cursor, key):
                ended = store.endWebSessions(cursor, key)
            cursor.execute(
                "INSERT INTO web_sessions (id_hash, name_key, created_at, "
                "seen_at) VALUES (?, ?, ?, ?)", (digest, key, now, now))
            store.touch(cursor, key, now)
            return ended

        d = self._write(interaction)
        d.addCallback(self._endedHere)
        return d.addCallback(lambda _: raw)

    def _dropEnded(self, cursor: store.Cursor, now: float) -> None:
        cursor.execute(
            "DELETE FROM web_sessions WHERE seen_at < ? OR created_at < ?",
            (now - self.idleSeconds, now - self.absoluteSeconds))

    def _lastSeen(self, digest: str, seenAt: float) -> float:
        """
        When the session C{digest} was last used: C{seenAt} as read, or
        later if a batch holds a later use.
        """
        for pending in (self._seen.get(digest), self._writing.get(digest),
                        self._written.get(digest)):
            if pending is not None:
                seenAt = max(seenAt, pending[0])
        return seenAt

    def find(self, raw: Optional[str],
             banned: bool = False) -> Deferred[Optional[Visitor]]:
        """
        The L{Visitor} of the session C{raw}, or None when it is unknown,
        has ended, or its account is banned (unless C{banned}: then a
        banned account's visitor, so marked).  A read: its use is noted
        for the next batch (L{FLUSH_SECONDS}) when its last was
        L{TOUCH_SECONDS} ago or more.
        """
        if not raw:
            return defer.succeed(None)
        digest = secretHash(raw)
        now = self.now()

        def found(row: Any) -> Optional[Visitor]:
            if row is None:
                return None
            (createdAt, seenAt, endedByBan, name, role, bannedUntil,
             keep, display) = row
            seenAt = self._lastSeen(digest, seenAt)
            if now - seenAt >= self.idleSeconds or \
                    now - createdAt >= self.absoluteSeconds:
                return None
            isBanned = bannedUntil is not None and bannedUntil > now
            if (isBanned or endedByBan) and not (banned and isBanned):
                return None
            if now - seenAt >= TOUCH_SECONDS:
                self._noteSeen(digest, names.nameKey(name), now)
            return Visitor(name, role, isBanned, digest, bool(keep),
                           display)

        return self._read(_sessionRow, digest).addCallback(found)

    def close(self, raw: Optional[str]) -> Deferred[None]:
        """
        End the session C{raw} alone (a cookie of no account's, or one
        that ended).
        """
        if not raw:
            return defer.succeed(None)
        digest = secretHash(raw)
        d = self._write(
            lambda cursor: cursor.execute(
                "DELETE FROM web_sessions WHERE id_hash = ?",
                (digest,)) and None)
        return d.addCallback(lambda _: self._endedHere([digest]))

    def endAll(self, name: str, keep: Optional[str] = None) -> Deferred[None]:
        """
        End every session of the account C{name} (logout; but the session
        C{keep}, a raw id, if given), and close their live sockets; other
        hubs on the database close theirs within L{POLL_SECONDS}.
        """
        key = names.nameKey(name)
        keepHash = secretHash(keep) if keep else None
        d = self._write(store.endWebSessions, key, keepHash)
        return d.addCallback(self._endedHere)

    def ended(self, name: str) -> None:
        """
        The sessions of the account C{name} were ended by another call
        (L{hub.accounts.model.Accounts}' password or role change): close
        its live sockets here now, rather than at the next look.
        """
        key = names.nameKey(name)
        self._endedHere([w.digest for watches in list(self._watches.values())
                         for w in watches if w.account == key])

    def count(self) -> Deferred[int]:
        """
        A Deferred of how many sessions are kept (ended ones included
        until the next login or batch drops them).
        """
        def interaction(cursor: store.Cursor) -> int:
            cursor.execute("SELECT COUNT(*) FROM web_sessions")
            return cast(int, cursor.fetchone()[0])
        return self._read(interaction)

    # The batch of uses.

    def _noteSeen(self, digest: str, key: str, at: float) -> None:
        self._seen[digest] = (at, key)
        self._scheduleFlush()

    def _scheduleFlush(self) -> None:
        if len(self._seen) + len(self._tokenUses) >= MAX_PENDING:
            self.flush()
        elif self._flushCall is None and self._flushing is None:
            self._flushCall = self.clock.callLater(FLUSH_SECONDS, self.flush)

    def flush(self) -> Deferred[None]:
        """
        Write the uses noted so far (sessions' and accounts' last seen,
        tokens' last use) in one transaction, and drop the sessions that
        ended.  A failed write is logged and its uses kept for the next.

        @return: a Deferred that fires when written (never fails).
        """
        if self._flushCall is not None:
            if self._flushCall.active():
                self._flushCall.cancel()
            self._flushCall = None
        if self._flushing is not None:
            return self._flushing.addCallback(lambda _: self.flush())
        seen, self._seen = self._seen, {}
        uses, self._tokenUses = self._tokenUses, {}
        if not (seen or uses):
            return defer.succeed(None)
        # Still the sessions' last uses until written (L{_lastSeen}).
        self._writing = seen
        now = self.now()

        def interaction(cursor: store.Cursor) -> None:
            cursor.executemany(
                "UPDATE web_sessions SET seen_at = ? WHERE id_hash = ? AND "
                "seen_at < ?", [(at, digest, at)
                                for digest, (at, _) in seen.items()])
            latest: Dict[str, float] = {}
            for at, key in seen.values():
                latest[key] = max(at, latest.get(key, at))
            cursor.executemany(
                "UPDATE accounts SET last_seen = ? WHERE name_key = ?",
                sorted((at, key) for key, at in latest.items()))
            cursor.executemany(
                "UPDATE api_tokens SET last_used_at = ? WHERE "
                "token_hash = ?", [(at, digest)
                                   for digest, at in uses.items()])
            self._dropEnded(cursor, now)

        def failed(failure: Failure) -> None:
            self.log.warn("the last uses of web sessions were not written "
                          "({error}); they are kept for the next batch",
                          error=failure.getErrorMessage())
            for digest, value in seen.items():
                self._seen.setdefault(digest, value)
            for digest, at in uses.items():
                self._tokenUses.setdefault(digest, at)

        def done(_: object) -> None:
            self._flushing = None
            self._written, self._writing = self._writing, {}
            if self._seen or self._tokenUses:
                self._scheduleFlush()

        self.writes += 1
        d = self._flushing = self._write(interaction)
        d.addErrback(failed)
        d.addCallback(done)
        return d

    def stop(self) -> Deferred[None]:
        """
        The hub stops: stop watching, and write the uses noted.

        @return: a Deferred that fires when written.
        """
        if self._pollCall is not None:
            if self._pollCall.active():
                self._pollCall.cancel()
            self._pollCall = None
        return self.flush()

    # Live sockets.

    def watch(self, visitor: Visitor,
              ended: Callable[[], object]) -> SessionWatch:
        """
        Call C{ended()} once the session of C{visitor} (a L{Visitor} of
        L{find}) has ended: by this hub at once (L{endAll}, L{open}), by
        another on the database or by the command line within
        L{POLL_SECONDS} (L{store.SESSIONS_EPOCH}), by its age or its
        account's ban within L{CHECK_SECONDS}.  While watched, the
        session counts as used.

        @return: a L{SessionWatch} (its C{stop} ends the watch).
        """
        # (A Visitor of find has its session's hash.)
        watch = SessionWatch(self, cast(str, visitor.session),
                             visitor.account, ended)
        self._watches.setdefault(watch.digest, set()).add(watch)
        if self._pollCall is None:
            self._checkedAt = self.now()
            self._pollCall = self.clock.callLater(POLL_SECONDS, self._poll)
        return watch

    def _unwatch(self, watch: SessionWatch) -> None:
        watches = self._watches.get(watch.digest)
        if watches is not None:
            watches.discard(watch)
            if not watches:
                del self._watches[watch.digest]

    def _endedHere(self, digests: Optional[Iterable[str]]) -> None:
        for digest in digests or ():
            for watch in list(self._watches.pop(digest, ())):
                watch.ended()

    def _poll(self) -> None:
        self._pollCall = None
        if not self._watches:
            self._epoch = None
            return
        now = self.now()
        assert self._checkedAt is not None  # (set by watch)
        full = now - self._checkedAt >= CHECK_SECONDS
        asked = list(self._watches)
        epoch = self._epoch

        def interaction(cursor: store.Cursor) -> Tuple[str, Optional[Alive]]:
            current = store.sessionsEpoch(cursor)
            if current == epoch and not full:
                return current, None
            alive: Alive = {}
            for start in range(0, len(asked), CHUNK):
                chunk = asked[start:start + CHUNK]
                cursor.execute(
                    "SELECT id_hash, created_at, seen_at, banned FROM "
                    "web_sessions WHERE id_hash IN (" +
                    ", ".join("?" * len(chunk)) + ")", tuple(chunk))
                for digest, createdAt, seenAt, banned in cursor.fetchall():
                    alive[digest] = (createdAt, seenAt, banned)
            return current, alive

        def looked(result: Tuple[str, Optional[Alive]]) -> None:
            self._epoch, alive = result
            if alive is None:
                return
            if full:
                self._checkedAt = now
            ended: List[str] = []
            for digest in asked:
                row = alive.get(digest)
                if row is None or row[2] or \
                        now - row[0] >= self.absoluteSeconds:
                    ended.append(digest)
                elif full and \
                        now - self._lastSeen(digest, row[1]) >= TOUCH_SECONDS:
                    watches = self._watches.get(digest)
                    if watches:
                        self._noteSeen(digest, next(iter(watches)).account,
                                       now)
            self._endedHere(ended)

        def failed(failure: Failure) -> None:
            self.log.warn("ended web sessions not looked for ({error})",
                          error=failure.getErrorMessage())

        def again(_: object) -> None:
            if self._watches and self._pollCall is None:
                self._pollCall = self.clock.callLater(POLL_SECONDS,
                                                      self._poll)

        d = self._read(interaction)
        d.addCallbacks(looked, failed)
        d.addCallback(again)

    # Tokens.

    def newToken(self, name: str, actor: Actorish = "cli",
                 seconds: float = TOKEN_SECONDS,
                 label: Optional[str] = "") -> Deferred[str]:
        """
        A new admin API token of the account C{name} (its role is checked
        at each use), expiring in C{seconds}, named C{label}, audited.

        @return: a Deferred of the token (shown once, stored as a hash).
        """
        if seconds <= 0:
            return defer.fail(AccountError(N_("a token lasts more than "
                                              "0s")))
        raw = newSecret()
        digest = secretHash(raw)
        now = self.now()
        label = (label or "")[:40]

        def interaction(cursor: store.Cursor) -> str:
            key = names.nameKey(name)
            shown = store.accountName(cursor, key, name)
            cursor.execute(
                "INSERT INTO api_tokens (token_hash, name_key, created_at, "
                "label, expires_at) VALUES (?, ?, ?, ?, ?)",
                (digest, key, now, label, now + seconds))
            store.audit(cursor, now, actor, "token", shown,
                        "{} {}, {} days".format(
                            digest[:TOKEN_ID_LENGTH], label or "-",
                            round(seconds / 86400.0, 2)))
            return raw

        return self._write(interaction)

    def tokenVisitor(self, raw: Optional[str]) -> Deferred[Optional[Visitor]]:
        """
        A Deferred of the L{Visitor} of the API token C{raw}, or None (no
        such token, expired, or its account banned); its use is noted for
        the next batch.
        """
        if not raw:
            return defer.succeed(None)
        digest = secretHash(raw)
        now = self.now()

        def found(row: Any) -> Optional[Visitor]:
            if row is None:
                return None
            expiresAt, name, role, bannedUntil = row
            if expiresAt is None or expiresAt <= now:
                return None
            if bannedUntil is not None and bannedUntil > now:
                return None
            self._tokenUses[digest] = now
            self._scheduleFlush()
            return Visitor(name, role)

        return self._read(_tokenRow, digest).addCallback(found)

    def tokens(self) -> Deferred[List[TokenInfo]]:
        """
        A Deferred of every admin API token as a L{TokenInfo}, expired
        ones included, by account then age; uses not yet written count.
        """
        pending = dict(self._tokenUses)

        def interaction(cursor: store.Cursor) -> List[TokenInfo]:
            cursor.execute(
                "SELECT t.token_hash, a.name, t.label, t.created_at, "
                "t.last_used_at, t.expires_at FROM api_tokens t JOIN "
                "accounts a ON a.name_key = t.name_key "
                "ORDER BY t.name_key, t.created_at")
            return [TokenInfo(
                digest[:TOKEN_ID_LENGTH], name, label, createdAt,
                max(filter(None, (lastUsed, pending.get(digest))),
                    default=None), expiresAt)
                for digest, name, label, createdAt, lastUsed, expiresAt
                in cursor.fetchall()]

        return self._read(interaction)

    def revokeToken(self, tokenId: Optional[str],
                    actor: Actorish = "cli") -> Deferred[str]:
        """
        Revoke the token whose id (L{TokenInfo.tokenId}) is C{tokenId},
        audited.

        @return: a Deferred of its account's name.
        @raise AccountError: no token has that id.
        """
        tokenId = (tokenId or "").strip().lower()
        if len(tokenId) != TOKEN_ID_LENGTH or not all(
                c in "0123456789abcdef" for c in tokenId):
            return defer.fail(AccountError(
                N_("a token's id is {0} hex digits (as listed)"),
                TOKEN_ID_LENGTH))
        now = self.now()

        def interaction(cursor: store.Cursor) -> str:
            cursor.execute(
                "SELECT t.token_hash, a.name FROM api_tokens t JOIN "
                "accounts a ON a.name_key = t.name_key WHERE "
                "t.token_hash LIKE ?", (tokenId + "%",))
            rows = cursor.fetchall()
            if len(rows) != 1:
                raise AccountError(N_("no token {0}"), tokenId)
            digest: str
            name: str
            digest, name = rows[0]
            cursor.execute("DELETE FROM api_tokens WHERE token_hash = ?",
                           (digest,))
            store.audit(cursor, now, actor, "revoke-token", name, tokenId)
            return name

        def revoked(name: str) -> str:
            self._tokenUses = {digest: at for digest, at
                               in self._tokenUses.items()
                               if not digest.startswith(tokenId)}
            return name

        return self._write(interaction).addCallback(revoked)

    # Invites.

    def newInvite(self, actor: Actorish = "cli") -> Deferred[str]:
        """
        A new invite code (one registration), audited.

        @return: a Deferred of the code (shown once, stored as a hash).
        """
        raw = newSecret()
        now = self.now()

        def interaction(cursor: store.Cursor) -> str:
            cursor.execute(
                "INSERT INTO invites (code_hash, created_by, created_at) "
                "VALUES (?, ?, ?)", (secretHash(raw),
                                     store.actorOf(actor).name, now))
            store.audit(cursor, now, actor, "invite", "-")
            return raw

        return self._write(interaction)

    @defer.inlineCallbacks
    def register(self, accounts: IAccounts, name: str, password: str,
                 invite: Optional[str] = None
                 ) -> Generator[Deferred[Any], Any, str]:
        """
        Register C{name} through L{hub.accounts.model.Accounts.add}, using
        up the invite code C{invite} unless it is None.

        @return: a Deferred of the new play key.
        @raise AccountError: the invite is unknown or used, or the account
            cannot be added.
        """
        key: str
        if invite is None:
            key = yield accounts.add(name, password, actor="web")
            return key
        digest = secretHash(invite)
        now = self.now()

        def use(cursor: store.Cursor) -> bool:
            cursor.execute("UPDATE invites SET used_by = ?, used_at = ? "
                           "WHERE code_hash = ? AND used_at IS NULL",
                           (name[:20], now, digest))
            cursor.execute("SELECT used_by, used_at FROM invites WHERE "
                           "code_hash = ?", (digest,))
            row = cursor.fetchone()
            return row is not None and row == (name[:20], now)

        if not (yield self._write(use)):
            raise AccountError(N_("that invite code is not valid"))
        try:
            key = yield accounts.add(name, password, actor="web")
        except Exception:
            yield self._write(lambda cursor: cursor.execute(
                "UPDATE invites SET used_by = NULL, used_at = NULL WHERE "
                "code_hash = ?", (digest,)) and None)
            raise
        return key
