"""
The web face's secrets, in the records database (migration 0003): login
sessions, the admin API's tokens and the invite codes of C{--registration
invite}.  Each comes from L{secrets} and is kept only as its SHA-256 (a
session id or a token stolen from the database's rows would be of no
use); every call answers with a Deferred.

A session ends at logout, after L{IDLE_SECONDS} without a request, and
L{ABSOLUTE_SECONDS} after its login whatever happens.  The caller's role
and ban are read with the session on every request, so a role removed or
a ban takes effect at the next request.

    sessions = WebSessions(database, clock.seconds)
    raw = yield sessions.open("alice")          # the cookie's value
    visitor = yield sessions.find(raw)          # Visitor or None
    yield sessions.close(raw)
    token = yield sessions.newToken("root", actor="cli")
    visitor = yield sessions.tokenVisitor(token)
    code = yield sessions.newInvite(actor="root")
"""

import hashlib
import hmac
import secrets

import attr
from twisted.internet import defer

from hub.accounts import names, store
from hub.accounts.store import AccountError

#: A session unused this long (seconds) has ended.
IDLE_SECONDS = 2 * 3600
#: A session ends this long (seconds) after its login, used or not.
ABSOLUTE_SECONDS = 24 * 3600
#: A session's last use is written at most this often (seconds).
TOUCH_SECONDS = 60
#: Bytes of randomness of a session id, a token or an invite code.
SECRET_BYTES = 32


def newSecret():
    """
    A fresh session id, token or invite code: text from L{secrets}.
    """
    return secrets.token_urlsafe(SECRET_BYTES)


def secretHash(raw):
    """
    The stored form of a session id, token or invite code: its SHA-256,
    in hex.
    """
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def csrfToken(raw):
    """
    The CSRF token of the browser whose cookie holds C{raw}: its HMAC
    under C{raw}, so that it can be put in a page without showing the
    cookie, and checked without being stored.
    """
    return hmac.new(raw.encode("utf-8"), b"gamehub csrf",
                    hashlib.sha256).hexdigest()


def csrfMatches(raw, given):
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
    """

    name = attr.ib()
    role = attr.ib()


def _visitor(cursor, table, column, digest, now):
    cursor.execute(
        "SELECT a.name, a.role, a.banned_until FROM " + table + " t JOIN "
        "accounts a ON a.name_key = t.name_key WHERE t." + column + " = ?",
        (digest,))
    row = cursor.fetchone()
    if row is None or (row[2] is not None and row[2] > now):
        return None
    return Visitor(row[0], row[1])


class WebSessions:
    """
    The sessions, tokens and invites of one records database.

    @param database: the L{hub.records.db.Database}.
    @param now: a function of the time now (the hub's clock's
        C{seconds}).
    """

    def __init__(self, database, now, idleSeconds=IDLE_SECONDS,
                 absoluteSeconds=ABSOLUTE_SECONDS):
        self.database = database
        self.now = now
        self.idleSeconds = idleSeconds
        self.absoluteSeconds = absoluteSeconds

    def _write(self, interaction, *args):
        return self.database.runInteraction(interaction, *args, write=True)

    def open(self, name):
        """
        A new session of the account C{name}, the sessions that ended
        dropped.

        @return: a Deferred of the session's id (for the cookie only).
        """
        raw = newSecret()
        now = self.now()

        def interaction(cursor):
            store.accountName(cursor, names.nameKey(name), name)
            cursor.execute(
                "DELETE FROM web_sessions WHERE seen_at < ? OR "
                "created_at < ?", (now - self.idleSeconds,
                                   now - self.absoluteSeconds))
            cursor.execute(
                "INSERT INTO web_sessions (id_hash, name_key, created_at, "
                "seen_at) VALUES (?, ?, ?, ?)",
                (secretHash(raw), names.nameKey(name), now, now))
            return raw

        return self._write(interaction)

    def find(self, raw):
        """
        The L{Visitor} of the session C{raw}, or None when it is unknown,
        has ended, or its account is banned.  Its last use is noted.
        """
        if not raw:
            return defer.succeed(None)
        digest = secretHash(raw)
        now = self.now()

        def interaction(cursor):
            cursor.execute("SELECT created_at, seen_at FROM web_sessions "
                           "WHERE id_hash = ?", (digest,))
            row = cursor.fetchone()
            if row is None:
                return None
            createdAt, seenAt = row
            if (now - seenAt >= self.idleSeconds
                    or now - createdAt >= self.absoluteSeconds):
                cursor.execute("DELETE FROM web_sessions WHERE id_hash = ?",
                               (digest,))
                return None
            if now - seenAt >= TOUCH_SECONDS:
                cursor.execute("UPDATE web_sessions SET seen_at = ? WHERE "
                               "id_hash = ?", (now, digest))
            return _visitor(cursor, "web_sessions", "id_hash", digest, now)

        return self._write(interaction)

    def close(self, raw):
        """
        End the session C{raw} (logout).
        """
        if not raw:
            return defer.succeed(None)
        return self._write(
            lambda cursor: cursor.execute(
                "DELETE FROM web_sessions WHERE id_hash = ?",
                (secretHash(raw),)) and None)

    def closeAll(self, name):
        """
        End every session of the account C{name} (its password changed).
        """
        return self._write(
            lambda cursor: cursor.execute(
                "DELETE FROM web_sessions WHERE name_key = ?",
                (names.nameKey(name),)) and None)

    def count(self):
        """
        A Deferred of how many sessions are kept (ended ones included
        until the next login drops them).
        """
        def interaction(cursor):
            cursor.execute("SELECT COUNT(*) FROM web_sessions")
            return cursor.fetchone()[0]
        return self.database.runInteraction(interaction)

    def newToken(self, name, actor="cli"):
        """
        A new admin API token of the account C{name} (its role is checked
        at each use), audited.

        @return: a Deferred of the token (shown once, stored as a hash).
        """
        raw = newSecret()
        now = self.now()

        def interaction(cursor):
            shown = store.accountName(cursor, names.nameKey(name), name)
            cursor.execute(
                "INSERT INTO api_tokens (token_hash, name_key, created_at) "
                "VALUES (?, ?, ?)", (secretHash(raw), names.nameKey(name),
                                     now))
            store.audit(cursor, now, actor, "token", shown)
            return raw

        return self._write(interaction)

    def tokenVisitor(self, raw):
        """
        A Deferred of the L{Visitor} of the API token C{raw}, or None.
        """
        if not raw:
            return defer.succeed(None)
        return self.database.runInteraction(
            _visitor, "api_tokens", "token_hash", secretHash(raw),
            self.now())

    def newInvite(self, actor="cli"):
        """
        A new invite code (one registration), audited.

        @return: a Deferred of the code (shown once, stored as a hash).
        """
        raw = newSecret()
        now = self.now()

        def interaction(cursor):
            cursor.execute(
                "INSERT INTO invites (code_hash, created_by, created_at) "
                "VALUES (?, ?, ?)", (secretHash(raw), actor, now))
            store.audit(cursor, now, actor, "invite", "-")
            return raw

        return self._write(interaction)

    @defer.inlineCallbacks
    def register(self, accounts, name, password, invite=None):
        """
        Register C{name} through L{hub.accounts.model.Accounts.add}, using
        up the invite code C{invite} unless it is None.

        @return: a Deferred of the new play key.
        @raise AccountError: the invite is unknown or used, or the account
            cannot be added.
        """
        if invite is None:
            key = yield accounts.add(name, password, actor="web")
            return key
        digest = secretHash(invite)
        now = self.now()

        def use(cursor):
            cursor.execute("UPDATE invites SET used_by = ?, used_at = ? "
                           "WHERE code_hash = ? AND used_at IS NULL",
                           (name[:20], now, digest))
            cursor.execute("SELECT used_by, used_at FROM invites WHERE "
                           "code_hash = ?", (digest,))
            row = cursor.fetchone()
            return row is not None and row == (name[:20], now)

        if not (yield self._write(use)):
            raise AccountError("that invite code is not valid")
        try:
            key = yield accounts.add(name, password, actor="web")
        except Exception:
            yield self._write(lambda cursor: cursor.execute(
                "UPDATE invites SET used_by = NULL, used_at = NULL WHERE "
                "code_hash = ?", (digest,)) and None)
            raise
        return key
