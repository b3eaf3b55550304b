"""
The accounts' Python API, over the records database: every method that
touches the database answers with a Deferred, and argon2 runs off the
reactor thread (docs/accounts.md, "The name check at scale").

    accounts = Accounts(database, reactor)
    key = yield accounts.add("alice", "password", actor="cli")
    yield accounts.ban("192.0.2.0/24", 600, "flood", actor="cli")

An C{actor} is a name (the operator's command line) or a
L{store.Actor}.  The rules of roles (L{mayActOn}, the last admin) are
checked inside the transaction that would break them; a refusal raises
L{store.Refused}, audited as C{refused-ACTION}.  A password, a role and
a ban end the account's web sessions (L{store.endWebSessions}).
"""

from __future__ import annotations

import ipaddress
import time
from typing import (
    TYPE_CHECKING, Any, Callable, Dict, Generator, Iterable, List, NoReturn,
    Optional, Tuple, TypeVar, cast)

from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError
from twisted.internet import defer, threads
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IReactorThreads
from twisted.python.failure import Failure
from zope.interface import implementer

from hub.accounts import display, names, store
from hub.accounts.interfaces import IAccounts
from hub.accounts.store import AccountError, Actorish
from hub.catalogs import N_, Word

if TYPE_CHECKING:
    from hub.accounts.hashing import HashingPool

_T = TypeVar("_T")
#: What L{Accounts.list} gives: the accounts and the address bans.
Listing = Tuple[List[store.Account], List[store.AddressBan]]

AUDIT_LIMIT = 100
#: The argon2id parameters of the passwords (OWASP's first choice for
#: argon2id: 19 MiB, 2 passes, one lane).  argon2-cffi's default profile
#: (RFC 9106's low-memory one: 64 MiB, 3 passes, 4 lanes in 4 threads)
#: costs 6 times the CPU and 3 times the memory traffic per hash, and its
#: 4 threads take every core from the reactor while a flood of logins
#: lasts (docs/benchmarks.md, the login flood).  A hash made with other
#: parameters still verifies, and is made again with these at its
#: owner's next login.
HASH_PARAMETERS: Dict[str, Any] = {"time_cost": 2, "memory_cost": 19 * 1024,
                   "parallelism": 1, "type": Type.ID}


def passwordHasher() -> PasswordHasher:
    """
    The argon2id L{PasswordHasher} of the accounts (L{HASH_PARAMETERS}).
    """
    return PasswordHasher(**HASH_PARAMETERS)


def parseTarget(target: str) -> Tuple[str, str]:
    """
    A ban's target: a network (for an address or CIDR) or an account
    name.

    @return: C{("address", "192.0.2.0/24")} or C{("account", name)}.
    @raise AccountError: neither.
    """
    try:
        network = ipaddress.ip_network(target, strict=False)
    except ValueError:
        try:
            names.checkName(target)
        except names.BadName:
            raise AccountError(N_("{0!r} is neither an account name nor "
                                  "an address or CIDR"), target[:40])
        return "account", target
    return "address", str(network)


def checkRole(role: str) -> None:
    """
    Raise L{AccountError} unless C{role} is one of L{names.ROLES}.
    """
    if role not in names.ROLES:
        raise AccountError(N_("a role is one of {0}"),
                           ", ".join(names.ROLES))


#: The actions of the rules of roles, as a refusal says them (translated
#: with it: L{store.AccountError}).
ACTION_WORDS = (N_("kick"), N_("ban"), N_("unban"), N_("role"))


def mayActOn(actorRole: Optional[str], targetRole: Optional[str]) -> bool:
    """
    Whether an actor of role C{actorRole} (None: the operator) may kick,
    ban, unban or give a role to an account of role C{targetRole} (None:
    a guest, no account): an admin on anyone, a moderator on players and
    guests only, a player on nobody.
    """
    if actorRole is None or actorRole == "admin":
        return True
    if actorRole == "moderator":
        return targetRole in (None, "player")
    return False


def checkActOn(cursor: store.Cursor, actor: store.Actor, action: str,
               target: str, key: str) -> Optional[str]:
    """
    Raise L{store.Refused} unless C{actor} (an L{store.Actor}) may do
    C{action} to the account C{key} (shown as C{target}).

    @return: the account's role (None: no account).
    """
    role = store.roleOf(cursor, key)
    if not mayActOn(actor.role, role):
        raise store.Refused(action, target, N_("a {0} may not {1} a {2}"),
                            Word(actor.role), Word(action),
                            Word(role or "guest"))
    return role


def checkNotLastAdmin(cursor: store.Cursor, now: float, action: str,
                      target: str, key: str) -> None:
    """
    Raise L{store.Refused} if the account C{key} is the last admin not
    banned (the hub would have no admin).
    """
    admins = store.activeAdmins(cursor, now)
    if admins == {key}:
        raise store.Refused(action, target, N_("{0} is the last admin"),
                            target)


@implementer(IAccounts)
class Accounts:
    """
    The accounts of one records database.

    @ivar database: the L{hub.records.db.Database}.
    @ivar hasher: the argon2id L{PasswordHasher}.
    @ivar hashing: the L{hub.accounts.hashing.HashingPool} argon2 runs
        in, or None for the reactor's thread pool.
    @ivar added: how many accounts were added through this object, each
        counted once its write is done (or failed): the name check, which
        remembers the guests' names it found free, forgets them when this
        changes (L{hub.accounts.check.NameService}).
    """

    added = 0

    def __init__(self, database: store.Database, reactor: IReactorThreads,
                 hasher: Optional[PasswordHasher] = None,
                 now: Callable[[], float] = time.time,
                 hashing: Optional[HashingPool] = None) -> None:
        self.database = database
        self.reactor = reactor
        self.hasher = hasher if hasher is not None else passwordHasher()
        self.now = now
        self.hashing = hashing

    def _inThread(self, f: Callable[..., _T], *args: Any) -> Deferred[_T]:
        if self.hashing is not None:
            return self.hashing.run(f, *args)
        return threads.deferToThreadPool(
            self.reactor, self.reactor.getThreadPool(), f, *args)

    def _write(self, interaction: Callable[..., _T],
               *args: Any) -> Deferred[_T]:
        return self.database.runInteraction(interaction, *args, write=True)

    def _refusable(self, interaction: Callable[[store.Cursor], _T],
                   actor: Actorish) -> Deferred[_T]:
        """
        Run the write C{interaction}; if the rules refuse it
        (L{store.Refused}), audit the refusal, then fail with it.
        """
        def refused(failure: Failure) -> Deferred[_T]:
            failure.trap(store.Refused)
            error = cast(store.Refused, failure.value)
            d = self._write(store.audit, self.now(), actor,
                            "refused-" + error.action, error.target,
                            str(error))
            return d.addCallback(lambda _: failure)

        return self._write(interaction).addErrback(refused)

    def hashPassword(self, password: str) -> Deferred[str]:
        """
        The argon2id hash of C{password}, made off the reactor thread.
        """
        if not password:
            return defer.fail(AccountError(N_("the password is empty")))
        return self._inThread(self.hasher.hash, password)

    @defer.inlineCallbacks
    def add(self, name: str, password: str, role: str = "player",
            actor: Actorish = "cli") -> Generator[Deferred[Any], Any, str]:
        """
        Register C{name} with C{password}.

        @return: a Deferred of its new play key (shown once, stored only
            as its HMAC).
        """
        try:
            names.checkName(name)
        except names.BadName as e:
            raise AccountError(str(e))
        checkRole(role)
        passwordHash = yield self.hashPassword(password)
        key = names.newKey()
        now = self.now()

        def interaction(cursor: store.Cursor) -> None:
            secret = store.serverSecret(cursor)
            store.insertAccount(cursor, name, names.nameKey(name),
                                passwordHash, names.keyHash(secret, key),
                                role, now)
            store.audit(cursor, now, actor, "add", name, role)

        try:
            yield self._write(interaction)
        finally:
            self.added += 1
        return key

    def newKey(self, name: str, actor: Actorish = "cli") -> Deferred[str]:
        """
        Give C{name} a new play key (the old one stops working).

        @return: a Deferred of the key.
        """
        key = names.newKey()
        now = self.now()

        def interaction(cursor: store.Cursor) -> str:
            secret = store.serverSecret(cursor)
            shown = store.update(cursor, names.nameKey(name), name,
                                 key_hash=names.keyHash(secret, key))
            store.noteChange(cursor, store.ACCOUNT_CHANGE,
                             names.nameKey(name), now)
            store.audit(cursor, now, actor, "key", shown)
            return key

        return self._write(interaction)

    @defer.inlineCallbacks
    def setPassword(self, name: str, password: str, actor: Actorish = "cli"
                    ) -> Generator[Deferred[Any], Any, None]:
        """
        Change the password of C{name}.
        """
        passwordHash = yield self.hashPassword(password)
        now = self.now()

        def interaction(cursor: store.Cursor) -> None:
            key = names.nameKey(name)
            shown = store.update(cursor, key, name,
                                 password_hash=passwordHash)
            store.endWebSessions(cursor, key)
            store.audit(cursor, now, actor, "passwd", shown)

        yield self._write(interaction)

    @defer.inlineCallbacks
    def checkPassword(self, name: str,
                      password: str) -> Generator[Deferred[Any], Any, bool]:
        """
        Whether C{password} is the password of C{name} (False when there is
        no such account; argon2 runs either way, off the reactor thread).
        A right password whose hash has other parameters than the
        hasher's (L{HASH_PARAMETERS}) is hashed again, in the same
        thread, and the new hash stored.

        @return: a Deferred of a L{bool}.
        """
        stored = yield self.database.runInteraction(
            store.passwordHashOf, names.nameKey(name))

        def verify() -> Tuple[bool, Optional[str]]:
            try:
                if stored is None:
                    self.hasher.hash(password)
                    return False, None
                right = self.hasher.verify(stored, password)
            except (VerificationError, InvalidHashError):
                return False, None
            if right and self.hasher.check_needs_rehash(stored):
                return True, self.hasher.hash(password)
            return right, None

        right: bool
        rehashed: Optional[str]
        right, rehashed = yield self._inThread(verify)
        if rehashed is not None:
            yield self._write(store.rehash, names.nameKey(name), stored,
                              rehashed)
        return right

    def setRole(self, name: str, role: str,
                actor: Actorish = "cli") -> Deferred[None]:
        """
        Give C{name} the role C{role}, unless C{actor} may not act on it
        (L{mayActOn}) or it is the last admin and would lose the role;
        its web sessions end.
        """
        try:
            checkRole(role)
        except AccountError as e:
            return defer.fail(e)
        actor = store.actorOf(actor)
        now = self.now()

        def interaction(cursor: store.Cursor) -> None:
            key = names.nameKey(name)
            shown = store.accountName(cursor, key, name)
            current = checkActOn(cursor, actor, "role", shown, key)
            if current == "admin" and role != "admin":
                checkNotLastAdmin(cursor, now, "role", shown, key)
            store.update(cursor, key, name, role=role)
            store.endWebSessions(cursor, key)
            store.noteChange(cursor, store.ACCOUNT_CHANGE, key, now)
            store.audit(cursor, now, actor, "role", shown, role)

        return self._refusable(interaction, actor)

    def ban(self, target: str, seconds: float, reason: str,
            actor: Actorish = "cli") -> Deferred[None]:
        """
        Ban an account or the addresses of a CIDR for C{seconds}, unless
        C{actor} may not act on the account (L{mayActOn}) or it is the
        last admin not banned.  The account's web sessions end (and their
        live sockets close).
        """
        try:
            what, target = parseTarget(target)
        except AccountError as e:
            return defer.fail(e)
        actor = store.actorOf(actor)
        now = self.now()
        until = now + seconds

        def interaction(cursor: store.Cursor) -> None:
            if what == "address":
                store.banAddress(cursor, target, until, reason, now)
                shown = target
            else:
                key = names.nameKey(target)
                shown = store.accountName(cursor, key, target)
                if checkActOn(cursor, actor, "ban", shown, key) == "admin":
                    checkNotLastAdmin(cursor, now, "ban", shown, key)
                store.update(cursor, key, target, banned_until=until,
                             ban_reason=reason)
                store.banWebSessions(cursor, key)
                store.noteChange(cursor, store.ACCOUNT_CHANGE, key, now)
            store.audit(cursor, now, actor, "ban", shown,
                        "{}s: {}".format(int(seconds), reason))

        return self._refusable(interaction, actor)

    def unban(self, target: str, actor: Actorish = "cli") -> Deferred[None]:
        """
        Lift the ban of an account (unless C{actor} may not act on it,
        L{mayActOn}) or a CIDR.
        """
        try:
            what, target = parseTarget(target)
        except AccountError as e:
            return defer.fail(e)
        actor = store.actorOf(actor)
        now = self.now()

        def interaction(cursor: store.Cursor) -> None:
            if what == "address":
                if not store.unbanAddress(cursor, target, now):
                    raise AccountError(N_("no ban of {0}"), target)
                shown = target
            else:
                key = names.nameKey(target)
                shown = store.accountName(cursor, key, target)
                checkActOn(cursor, actor, "unban", shown, key)
                store.update(cursor, key, target, banned_until=None,
                             ban_reason=None)
                store.noteChange(cursor, store.ACCOUNT_CHANGE, key, now)
            store.audit(cursor, now, actor, "unban", shown)

        return self._refusable(interaction, actor)

    def checkActor(self, actor: Actorish, action: str, target: str,
                   account: Optional[str]) -> Deferred[None]:
        """
        Whether C{actor} (a name or an L{store.Actor}) may do C{action}
        (shown on C{target}) to the account C{account} (case-folded, or
        None for a guest) by the rules of roles (L{mayActOn}); a refusal
        is audited.

        @return: a Deferred that fails with L{store.Refused} if not.
        """
        actor = store.actorOf(actor)
        if account is None or actor.role is None:
            return defer.succeed(None)

        def interaction(cursor: store.Cursor) -> None:
            checkActOn(cursor, actor, action, target, account)

        return self._refusable(interaction, actor)

    def refuse(self, actor: Actorish, action: str, target: str,
               why: str, *arguments: object) -> Deferred[NoReturn]:
        """
        Refuse C{action} on C{target} to C{actor} because of C{why} (a
        template of the catalogs filled with C{arguments}, as
        L{store.AccountError}'s): the refusal audited.

        @return: a Deferred that fails with L{store.Refused}.
        """
        def interaction(cursor: store.Cursor) -> NoReturn:
            raise store.Refused(action, target, why, *arguments)
        return self._refusable(interaction, store.actorOf(actor))

    def note(self, action: str, target: str, reason: str = "",
             actor: Actorish = "cli") -> Deferred[None]:
        """
        Write an audit row for an action done elsewhere (a kick, a table
        ended: L{hub.accounts.moderation}).
        """
        return self._write(store.audit, self.now(), actor, action, target,
                           reason)

    def setKeepSessions(self, name: str, keep: bool) -> Deferred[None]:
        """
        Whether the account C{name} keeps its other web sessions when it
        logs in again ("keep me logged in elsewhere").
        """
        def interaction(cursor: store.Cursor) -> None:
            store.update(cursor, names.nameKey(name), name,
                         keep_sessions=1 if keep else 0)
        return self._write(interaction)

    def keepsSessions(self, name: str) -> Deferred[bool]:
        """
        A Deferred of whether the account C{name} keeps its other web
        sessions when it logs in again.
        """
        return self.database.runInteraction(store.keepsSessions,
                                            names.nameKey(name))

    def setDisplayName(self, name: str, text: str,
                       actor: Actorish = "cli") -> Deferred[Optional[str]]:
        """
        Give the account C{name} the display name C{text}
        (L{display.displayName}; an empty one clears it), unless it looks
        like another account's name or display name; audited.

        @return: a Deferred of the display name set (None: cleared).
        @raise display.DisplayNameRefused: (in the Deferred) why not.
        """
        try:
            shown = display.displayName(text)
        except display.DisplayNameRefused as e:
            return defer.fail(e)
        now = self.now()

        def interaction(cursor: store.Cursor) -> Optional[str]:
            key = names.nameKey(name)
            if shown is not None:
                found = store.lookalike(cursor, key,
                                        display.displaySkeletons(shown))
                if found is not None:
                    raise display.DisplayNameLookalike(*found)
            registered = store.setDisplayName(cursor, key, name, shown, now)
            store.audit(cursor, now, actor, "display-name", registered,
                        shown or "")
            return shown

        return self._write(interaction)

    def displayName(self, name: str) -> Deferred[Optional[str]]:
        """
        A Deferred of the display name of the account C{name}, or None;
        it fails with L{store.NoSuchAccount} if there is no account.
        """
        return self.database.runInteraction(store.displayNameOf,
                                            names.nameKey(name), name)

    def displayNames(self, keys: Iterable[str]) -> Deferred[Dict[str, str]]:
        """
        A Deferred of C{{key: display name}} of the accounts C{keys}
        (case-folded names) that have one (L{store.displayNames}).
        """
        return self.database.runInteraction(store.displayNames, keys)

    def list(self) -> Deferred[Listing]:
        """
        A Deferred of every L{store.Account} and the address bans in force:
        C{(accounts, bans)}.
        """
        now = self.now()

        def interaction(cursor: store.Cursor) -> Listing:
            return store.accounts(cursor), store.addressBans(cursor, now)

        return self.database.runInteraction(interaction)

    def audit(self,
              limit: int = AUDIT_LIMIT) -> Deferred[List[store.AuditEntry]]:
        """
        A Deferred of the last C{limit} L{store.AuditEntry}s, oldest first.
        """
        return self.database.runInteraction(store.auditEntries, limit)

    def nameSetup(self) -> Deferred[store.NameSetup]:
        """
        A Deferred of what the name check reads when it starts
        (L{store.nameSetup}); the skeletons are made first if they need
        it (a write).
        """
        return self._write(store.nameSetup, self.now())

    def nameEntry(self, key: str) -> Deferred[Optional[store.NameEntry]]:
        """
        A Deferred of the L{store.NameEntry} of account C{key} (case-folded
        name), or None.
        """
        return self.database.runInteraction(store.nameEntry, key)

    def guestClash(self, key: str, skeleton: str) -> Deferred[bool]:
        """
        A Deferred of whether a guest's name (case-folded C{key}, confusable
        C{skeleton}) is or looks like an account's (L{store.guestClash}).
        """
        return self.database.runInteraction(store.guestClash, key, skeleton)

    def bans(self) -> Deferred[List[store.AddressBan]]:
        """
        A Deferred of the L{store.AddressBan}s in force now.
        """
        return self.database.runInteraction(store.addressBans, self.now())

    def changesSince(self, seq: int,
                     limit: int = 1000) -> Deferred[List[store.Change]]:
        """
        A Deferred of the changes noted after C{seq} (L{store.changesSince}).
        """
        return self.database.runInteraction(store.changesSince, seq, limit)

    def pruneChanges(self, age: float) -> Deferred[None]:
        """
        Forget the changes noted more than C{age} seconds ago.
        """
        return self._write(store.pruneChanges, self.now() - age)

    def touch(self, key: str) -> Deferred[None]:
        """
        Note that the account C{key} (case-folded name) proved its name
        now.
        """
        return self._write(store.touch, key, self.now())
