"""
The accounts' SQL: interactions (functions of a L{hub.records.db.Cursor}
run by L{hub.records.db.Database.runInteraction}) over the tables of
migration 0002: C{accounts}, C{address_bans}, C{audit}, C{settings}; and
of migration 0009: C{account_skeletons} (the names' confusable
skeletons) and C{account_changes} (what the name check must see
again); of migration 0011: the display names and C{display_skeletons};
and the end of an account's web sessions (migration 0003's
C{web_sessions}, L{endWebSessions}), which every hub on the database
hears of through the L{SESSIONS_EPOCH} setting.
"""

from __future__ import annotations

import base64
import secrets
import typing
from typing import (
    TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Optional, Sequence,
    Set, Sized, Tuple, Union)

import attr

from hub.accounts import names as namerules
from hub.catalogs import N_, Refusal

if TYPE_CHECKING:
    from twisted.internet.defer import Deferred

SECRET_SETTING = "play_key_secret"
SKELETON_SETTING = "skeleton_version"
#: What changed (C{account_changes.kind}): an account (its key, ban,
#: role, or its making; the target its case-folded name), or the bans of
#: addresses (the target a CIDR).
ACCOUNT_CHANGE = "account"
ADDRESS_CHANGE = "address"
#: The setting changed whenever web sessions are ended in bulk (a value
#: from L{secrets}: a hub that reads another one ends its live sockets
#: whose session is gone, L{hub.accounts.websessions.SessionWatch}).
SESSIONS_EPOCH = "web_sessions_epoch"


class Cursor(typing.Protocol):
    """
    What the interactions use of a L{hub.records.db.Cursor}: SQL with
    C{?} placeholders, and rows of the database's values.
    """

    dialect: Any

    def execute(self, sql: str, parameters: Any = ()) -> Any:
        ...

    def executemany(self, sql: str, rows: Any) -> Any:
        ...

    def fetchone(self) -> Any:
        ...

    def fetchall(self) -> Any:
        ...


class Database(typing.Protocol):
    """
    What the accounts use of a L{hub.records.db.Database}.
    """

    def runInteraction(self, interaction: Callable[..., Any], *args: Any,
                       write: bool = False, **kwargs: Any) -> Deferred[Any]:
        ...


class AccountError(Refusal):
    """
    An account operation that cannot be done (L{hub.catalogs.Refusal}:
    C{str} of it is the English, L{translated} the page's language).
    """


class NoSuchAccount(AccountError):
    """
    No account has that name.
    """

    def __init__(self, name: str) -> None:
        AccountError.__init__(self, N_("no account {0!r}"), name)


class Refused(AccountError):
    """
    An action the rules of roles refuse (a moderator acting on a
    moderator, the last admin losing the role...); audited as
    C{refused-ACTION}.

    @ivar action: the action refused (C{ban}, C{role}, C{kick}...).
    @ivar target: what it was refused on.
    """

    def __init__(self, action: str, target: str, why: str,
                 *arguments: object) -> None:
        AccountError.__init__(self, why, *arguments)
        self.action = action
        self.target = target


class AccountExists(AccountError):
    """
    An account has that name already (in any case).
    """

    def __init__(self, name: str) -> None:
        AccountError.__init__(self, N_("an account {0!r} exists"), name)


@attr.s(frozen=True)
class Account:
    """
    An account as listed (no hashes).

    @ivar name: the name as registered.
    @ivar role: C{player}, C{moderator} or C{admin}.
    @ivar createdAt: seconds since the epoch.
    @ivar lastSeen: when its name was last proven, or it last used the
        web face while logged in (within a minute), or None.
    @ivar bannedUntil: the end of its ban, or None.
    @ivar banReason: why, or None.
    """

    name: str = attr.ib()
    role: str = attr.ib()
    createdAt: float = attr.ib()
    lastSeen: Optional[float] = attr.ib()
    bannedUntil: Optional[float] = attr.ib()
    banReason: Optional[str] = attr.ib()


@attr.s(frozen=True)
class AddressBan:
    """
    A ban of the addresses of C{cidr} until C{until}, for C{reason}.
    """

    cidr: str = attr.ib()
    until: float = attr.ib()
    reason: str = attr.ib()


@attr.s(frozen=True)
class AuditEntry:
    """
    One moderation action: C{actor} did C{action} to C{target} at C{at},
    because of C{reason}, from the client address C{address} (None from
    the command line).
    """

    at: float = attr.ib()
    actor: str = attr.ib()
    action: str = attr.ib()
    target: str = attr.ib()
    reason: str = attr.ib()
    address: Optional[str] = attr.ib(default=None)


def serverSecret(cursor: Cursor) -> bytes:
    """
    The play keys' HMAC secret (bytes), made on first use (a read
    otherwise: the name check reads it every few seconds).
    """
    cursor.execute("SELECT value FROM settings WHERE name = ?",
                   (SECRET_SETTING,))
    row = cursor.fetchone()
    if row is None:
        value = base64.b64encode(secrets.token_bytes(32)).decode("ascii")
        cursor.execute("INSERT INTO settings (name, value) VALUES (?, ?) "
                       "ON CONFLICT (name) DO NOTHING",
                       (SECRET_SETTING, value))
        cursor.execute("SELECT value FROM settings WHERE name = ?",
                       (SECRET_SETTING,))
        row = cursor.fetchone()
    return base64.b64decode(row[0])


@attr.s(frozen=True)
class Actor:
    """
    Who does an action: an account of the web face or the API (with its
    role and its client's address), or the operator (C{cli}, no role:
    the rules of roles do not hold it, the last admin's do).

    @ivar name: the account's name, or C{cli}, C{web}...
    @ivar role: the account's role, or None for the operator.
    @ivar address: the client's address, or None.
    """

    name: str = attr.ib()
    role: Optional[str] = attr.ib(default=None)
    address: Optional[str] = attr.ib(default=None)


#: Who acts: a name (the operator's) or an L{Actor}.
Actorish = Union[str, Actor]


def actorOf(actor: Actorish) -> Actor:
    """
    C{actor} as an L{Actor} (a name alone is the operator's).
    """
    return actor if isinstance(actor, Actor) else Actor(actor)


def audit(cursor: Cursor, at: float, actor: Actorish, action: str,
          target: str, reason: str = "") -> None:
    """
    Write one audit row; C{actor} is a name or an L{Actor} (whose
    address is kept).
    """
    actor = actorOf(actor)
    address = None if actor.address is None else str(actor.address)[:64]
    cursor.execute("INSERT INTO audit (at, actor, action, target, reason, "
                   "address) VALUES (?, ?, ?, ?, ?, ?)",
                   (at, actor.name, action, target, reason, address))


def bumpSessionsEpoch(cursor: Cursor) -> None:
    """
    Tell every hub on the database that web sessions were ended
    (L{SESSIONS_EPOCH}).
    """
    cursor.execute("INSERT INTO settings (name, value) VALUES (?, ?) "
                   "ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                   (SESSIONS_EPOCH, secrets.token_hex(8)))


def sessionsEpoch(cursor: Cursor) -> str:
    """
    The current L{SESSIONS_EPOCH} (C{""} before the first).
    """
    cursor.execute("SELECT value FROM settings WHERE name = ?",
                   (SESSIONS_EPOCH,))
    row = cursor.fetchone()
    return row[0] if row is not None else ""


def endWebSessions(cursor: Cursor, key: str,
                   keep: Optional[str] = None) -> List[str]:
    """
    End every web session of the account C{key} (but the one whose hash
    is C{keep}), and tell every hub.

    @return: the hashes of the sessions ended.
    """
    cursor.execute("SELECT id_hash FROM web_sessions WHERE name_key = ?",
                   (key,))
    ended = [row[0] for row in cursor.fetchall() if row[0] != keep]
    if ended:
        cursor.execute("DELETE FROM web_sessions WHERE name_key = ? AND "
                       "id_hash <> ?", (key, keep or ""))
        bumpSessionsEpoch(cursor)
    return ended


def banWebSessions(cursor: Cursor, key: str) -> None:
    """
    End every web session of the account C{key} by its ban: kept, marked,
    so that its cookie is known as a banned account's
    (L{hub.accounts.websessions.WebSessions.find}), and never valid again;
    tell every hub.
    """
    cursor.execute("UPDATE web_sessions SET banned = 1 WHERE name_key = ?",
                   (key,))
    bumpSessionsEpoch(cursor)


def roleOf(cursor: Cursor, key: str) -> Optional[str]:
    """
    The role of the account C{key}, or None when there is none.
    """
    cursor.execute("SELECT role FROM accounts WHERE name_key = ?", (key,))
    row = cursor.fetchone()
    return row[0] if row is not None else None


def activeAdmins(cursor: Cursor, now: float) -> Set[str]:
    """
    The case-folded names of the admins not banned at C{now}, their rows
    locked until the transaction ends (so that two admins cannot both
    remove the last but one at once).
    """
    cursor.execute("SELECT name_key FROM accounts WHERE role = 'admin' AND "
                   "(banned_until IS NULL OR banned_until <= ?)" +
                   cursor.dialect.forUpdate, (now,))
    return {row[0] for row in cursor.fetchall()}


def noteChange(cursor: Cursor, kind: str, target: str, now: float) -> None:
    """
    Tell the name checks of every hub on the database that C{target} (of
    C{kind}, L{ACCOUNT_CHANGE} or L{ADDRESS_CHANGE}) changed.
    """
    cursor.execute("INSERT INTO account_changes (kind, target, at) "
                   "VALUES (?, ?, ?)", (kind, target, now))


def insertSkeletons(cursor: Cursor, name: str, key: str) -> None:
    """
    Index the confusable skeletons of account C{name} (C{key} its
    case-folded form: L{namerules.accountSkeletons}).
    """
    cursor.executemany(
        "INSERT INTO account_skeletons (skeleton, name_key) VALUES (?, ?)",
        [(skeleton, key) for skeleton in namerules.accountSkeletons(name)])


def insertAccount(cursor: Cursor, name: str, key: str, passwordHash: str,
                  keyHash: str, role: str, now: float) -> None:
    """
    Add the account C{name} (C{key} its case-folded form), with its
    skeletons, and note the change.

    @raise AccountExists: it exists.
    """
    cursor.execute("SELECT name FROM accounts WHERE name_key = ?", (key,))
    if cursor.fetchone() is not None:
        raise AccountExists(name)
    cursor.execute(
        "INSERT INTO accounts (name, name_key, password_hash, key_hash, "
        "role, created_at) VALUES (?, ?, ?, ?, ?, ?)",
        (name, key, passwordHash, keyHash, role, now))
    insertSkeletons(cursor, name, key)
    noteChange(cursor, ACCOUNT_CHANGE, key, now)


def accountName(cursor: Cursor, key: str, shown: str) -> str:
    """
    The registered name of the account whose case-folded name is C{key}.

    @raise NoSuchAccount: there is none (named C{shown}).
    """
    cursor.execute("SELECT name FROM accounts WHERE name_key = ?", (key,))
    row = cursor.fetchone()
    if row is None:
        raise NoSuchAccount(shown)
    return typing.cast(str, row[0])


def passwordHashOf(cursor: Cursor, key: str) -> Optional[str]:
    """
    The password hash of the account C{key}, or None.
    """
    cursor.execute("SELECT password_hash FROM accounts WHERE name_key = ?",
                   (key,))
    row = cursor.fetchone()
    return row[0] if row is not None else None


def rehash(cursor: Cursor, key: str, old: str, new: str) -> None:
    """
    Replace the password hash C{old} of the account C{key} by C{new} (the
    same password, hashed with other parameters), unless it changed in
    between.
    """
    cursor.execute("UPDATE accounts SET password_hash = ? "
                   "WHERE name_key = ? AND password_hash = ?", (new, key, old))


def update(cursor: Cursor, key: str, shown: str, **columns: object) -> str:
    """
    Set C{columns} of the account C{key}.

    @return: its registered name.
    @raise NoSuchAccount: there is none.
    """
    name = accountName(cursor, key, shown)
    names = sorted(columns)
    cursor.execute("UPDATE accounts SET " + ", ".join(
        n + " = ?" for n in names) + " WHERE name_key = ?",
        tuple(columns[n] for n in names) + (key,))
    return name


def banAddress(cursor: Cursor, cidr: str, until: float, reason: str,
               now: float) -> None:
    """
    Ban the addresses of C{cidr} until C{until} (replacing a ban of it).
    """
    cursor.execute("DELETE FROM address_bans WHERE cidr = ?", (cidr,))
    cursor.execute("INSERT INTO address_bans (cidr, banned_until, reason, "
                   "created_at) VALUES (?, ?, ?, ?)",
                   (cidr, until, reason, now))
    noteChange(cursor, ADDRESS_CHANGE, cidr, now)


def unbanAddress(cursor: Cursor, cidr: str, now: float) -> bool:
    """
    Lift the ban of C{cidr}.

    @return: True if there was one.
    """
    cursor.execute("SELECT cidr FROM address_bans WHERE cidr = ?", (cidr,))
    found = cursor.fetchone() is not None
    cursor.execute("DELETE FROM address_bans WHERE cidr = ?", (cidr,))
    if found:
        noteChange(cursor, ADDRESS_CHANGE, cidr, now)
    return found


def accounts(cursor: Cursor) -> List[Account]:
    """
    Every L{Account}, by name.
    """
    cursor.execute("SELECT name, role, created_at, last_seen, banned_until, "
                   "ban_reason FROM accounts ORDER BY name_key")
    return [Account(*row) for row in cursor.fetchall()]


def addressBans(cursor: Cursor, now: float) -> List[AddressBan]:
    """
    The L{AddressBan}s in force at C{now}.
    """
    cursor.execute("SELECT cidr, banned_until, reason FROM address_bans "
                   "WHERE banned_until > ? ORDER BY cidr", (now,))
    return [AddressBan(*row) for row in cursor.fetchall()]


def auditEntries(cursor: Cursor, limit: int) -> List[AuditEntry]:
    """
    The last C{limit} L{AuditEntry}s, oldest first.
    """
    cursor.execute("SELECT at, actor, action, target, reason, address "
                   "FROM audit ORDER BY id DESC LIMIT ?", (limit,))
    return [AuditEntry(*row) for row in reversed(cursor.fetchall())]


#: A change noted: C{(seq, kind, target)}.
Change = Tuple[int, str, str]


class NameEntry(typing.NamedTuple):
    """
    What the name check reads of one account.

    A named tuple of atoms, so that the name check's cache can hold its
    fields as a plain tuple (L{hub.accounts.check.NameCache}).

    @ivar name: the name as registered.
    @ivar keyHash: its play key's HMAC.
    @ivar bannedUntil: the end of its ban (maybe past), or None.
    @ivar role: its role.
    """

    name: str
    keyHash: str
    bannedUntil: typing.Optional[float]
    role: str

    def __repr__(self) -> str:
        return "NameEntry(name={!r}, bannedUntil={!r}, role={!r})".format(
            self.name, self.bannedUntil, self.role)


@attr.s(frozen=True)
class NameSetup:
    """
    What the name check reads when it starts.

    @ivar secret: the play keys' HMAC secret.
    @ivar bannedAccounts: C{{nameKey: until}} of the accounts banned now.
    @ivar bans: the L{AddressBan}s in force now.
    @ivar seq: the last change (C{account_changes.seq}), or 0.
    """

    secret: bytes = attr.ib(repr=False)
    bannedAccounts: Dict[str, float] = attr.ib()
    bans: List[AddressBan] = attr.ib()
    seq: int = attr.ib()


def fillSkeletons(cursor: Cursor) -> bool:
    """
    Make every account's skeletons (its name's, and its display name's)
    again if they were made by another version of the confusables' data
    than this one's (or never: a database migrated to version 9).

    @return: True if they were made again.
    """
    version = namerules.skeletonVersion()
    cursor.execute("SELECT value FROM settings WHERE name = ?",
                   (SKELETON_SETTING,))
    row = cursor.fetchone()
    if row is not None and row[0] == version:
        return False
    cursor.execute("DELETE FROM account_skeletons")
    cursor.execute("SELECT name, name_key FROM accounts")
    rows = cursor.fetchall()
    cursor.executemany(
        "INSERT INTO account_skeletons (skeleton, name_key) VALUES (?, ?)",
        [(skeleton, key) for name, key in rows
         for skeleton in namerules.accountSkeletons(name)])
    cursor.execute("DELETE FROM display_skeletons")
    cursor.execute("SELECT display_name, name_key FROM accounts "
                   "WHERE display_name IS NOT NULL")
    # Two display names that this version finds alike keep their rows
    # (the first one's skeleton): neither is refused after the fact.
    for display, key in cursor.fetchall():
        insertDisplaySkeletons(cursor, display, key, keepOthers=True)
    cursor.execute("DELETE FROM settings WHERE name = ?", (SKELETON_SETTING,))
    cursor.execute("INSERT INTO settings (name, value) VALUES (?, ?)",
                   (SKELETON_SETTING, version))
    return True


def bannedAccounts(cursor: Cursor, now: float) -> Dict[str, float]:
    """
    C{{nameKey: until}} of the accounts banned at C{now} (an indexed
    read: C{accounts_banned}).
    """
    cursor.execute("SELECT name_key, banned_until FROM accounts "
                   "WHERE banned_until > ?", (now,))
    return dict(cursor.fetchall())


def lastChange(cursor: Cursor) -> int:
    """
    The C{seq} of the last change, or 0.
    """
    cursor.execute("SELECT MAX(seq) FROM account_changes")
    row = cursor.fetchone()
    return row[0] or 0


def nameSetup(cursor: Cursor, now: float) -> NameSetup:
    """
    What the name check needs to start (a L{NameSetup}), after making
    the skeletons if they need it (L{fillSkeletons}).
    """
    fillSkeletons(cursor)
    return NameSetup(serverSecret(cursor), bannedAccounts(cursor, now),
                     addressBans(cursor, now), lastChange(cursor))


def nameEntry(cursor: Cursor, key: str) -> Optional[NameEntry]:
    """
    The L{NameEntry} of the account C{key} (case-folded name), or None:
    one indexed read.
    """
    cursor.execute("SELECT name, key_hash, banned_until, role "
                   "FROM accounts WHERE name_key = ?", (key,))
    row = cursor.fetchone()
    return None if row is None else NameEntry(*row)


def guestClash(cursor: Cursor, key: str, skeleton: str) -> bool:
    """
    Whether a guest name whose case-folded form is C{key} and whose
    skeleton is C{skeleton} is an account's, or looks like one: two
    indexed reads.
    """
    cursor.execute("SELECT 1 FROM accounts WHERE name_key = ?", (key,))
    if cursor.fetchone() is not None:
        return True
    cursor.execute("SELECT 1 FROM account_skeletons WHERE skeleton = ?",
                   (skeleton,))
    return cursor.fetchone() is not None


def changesSince(cursor: Cursor, seq: int, limit: int) -> List[Change]:
    """
    The changes after C{seq}, oldest first: at most C{limit} C{(seq, kind,
    target)}.
    """
    cursor.execute("SELECT seq, kind, target FROM account_changes "
                   "WHERE seq > ? ORDER BY seq LIMIT ?", (seq, limit))
    return [tuple(row) for row in cursor.fetchall()]


def pruneChanges(cursor: Cursor, before: float) -> None:
    """
    Forget the changes noted before C{before}.
    """
    cursor.execute("DELETE FROM account_changes WHERE at < ?", (before,))


def keepsSessions(cursor: Cursor, key: str) -> bool:
    """
    Whether the account C{key} keeps its other web sessions when it logs
    in again ("keep me logged in elsewhere").
    """
    cursor.execute("SELECT keep_sessions FROM accounts WHERE name_key = ?",
                   (key,))
    row = cursor.fetchone()
    return bool(row and row[0])


def touch(cursor: Cursor, key: str, now: float) -> None:
    """
    The account C{key} proved its name at C{now}.
    """
    cursor.execute("UPDATE accounts SET last_seen = ? WHERE name_key = ?",
                   (now, key))


def insertDisplaySkeletons(cursor: Cursor, display: str, key: str,
                           keepOthers: bool = False) -> None:
    """
    Index the confusable skeletons of C{display}, the display name of the
    account C{key}.  A skeleton is one account's: another's already there
    is kept if C{keepOthers}, else the insert fails (two display names
    made alike at once: the second's transaction fails).
    """
    cursor.executemany(
        "INSERT INTO display_skeletons (skeleton, name_key) VALUES (?, ?)" +
        (" ON CONFLICT (skeleton) DO NOTHING" if keepOthers else ""),
        [(skeleton, key)
         for skeleton in namerules.accountSkeletons(display)])


def _placeholders(values: Sized) -> str:
    return ", ".join("?" * len(values))


def lookalike(cursor: Cursor, key: str,
              skeletons: Sequence[str]) -> Optional[Tuple[str, str]]:
    """
    The account (not C{key}) whose display name or name has one of
    C{skeletons}: C{(name, "display")} or C{(name, "name")}, or None
    (two indexed reads).
    """
    for table, what in (("display_skeletons", "display"),
                        ("account_skeletons", "name")):
        cursor.execute(
            "SELECT accounts.name FROM " + table + " JOIN accounts ON "
            "accounts.name_key = " + table + ".name_key WHERE " + table +
            ".skeleton IN (" + _placeholders(skeletons) + ") AND " + table +
            ".name_key <> ? ORDER BY accounts.name_key LIMIT 1",
            tuple(skeletons) + (key,))
        row = cursor.fetchone()
        if row is not None:
            return row[0], what
    return None


def setDisplayName(cursor: Cursor, key: str, shown: str,
                   display: Optional[str], now: float) -> str:
    """
    Set (or with None clear) the display name of the account C{key}, its
    skeletons indexed, and note the change (the pages' display names are
    forgotten on every hub).

    @return: the account's name.
    @raise NoSuchAccount: there is none (named C{shown}).
    """
    name = update(cursor, key, shown, display_name=display)
    cursor.execute("DELETE FROM display_skeletons WHERE name_key = ?",
                   (key,))
    if display is not None:
        insertDisplaySkeletons(cursor, display, key)
    noteChange(cursor, ACCOUNT_CHANGE, key, now)
    return name


def displayNameOf(cursor: Cursor, key: str, shown: str) -> Optional[str]:
    """
    The display name of the account C{key}, or None.

    @raise NoSuchAccount: there is none (named C{shown}).
    """
    cursor.execute("SELECT display_name FROM accounts WHERE name_key = ?",
                   (key,))
    row = cursor.fetchone()
    if row is None:
        raise NoSuchAccount(shown)
    return typing.cast(Optional[str], row[0])


#: Names read by one query of L{displayNames}.
DISPLAY_BATCH = 500


def displayNames(cursor: Cursor, keys: Iterable[str]) -> Dict[str, str]:
    """
    C{{key: display name}} of the accounts C{keys} (case-folded names)
    that have one, in indexed reads of L{DISPLAY_BATCH} names.
    """
    keys = sorted(set(keys))
    found: Dict[str, str] = {}
    for at in range(0, len(keys), DISPLAY_BATCH):
        batch = keys[at:at + DISPLAY_BATCH]
        cursor.execute(
            "SELECT name_key, display_name FROM accounts WHERE name_key IN "
            "(" + _placeholders(batch) + ") AND display_name IS NOT NULL",
            tuple(batch))
        found.update(cursor.fetchall())
    return found
