"""
What the accounts tests share: a cheap argon2id hasher, an L{Accounts}
over a fresh database of the records tests' kinds, and the accounts in
memory as the name check reads them (L{FakeAccounts}).
"""

from argon2 import PasswordHasher
from twisted.internet import defer, reactor

from hub.accounts import names, store
from hub.accounts.model import Accounts

from tests.records import support

SQLiteMixin = support.SQLiteMixin
PostgreSQLMixin = support.PostgreSQLMixin


def cheapHasher():
    """
    An argon2id hasher fast enough for tests.
    """
    return PasswordHasher(time_cost=1, memory_cost=64, parallelism=1)


def openAccounts(testCase, url=None, now=None):
    """
    An L{Accounts} over the test case's fresh database (migrated).
    """
    url = testCase.databaseURL() if url is None else url
    database = support.openDatabase(testCase, url)
    options = {"hasher": cheapHasher()}
    if now is not None:
        options["now"] = now
    return Accounts(database, reactor, **options)


def settled(accounts):
    """
    A Deferred that fires once the reads (and writes) asked of
    C{accounts}' database so far are answered: the name checks under way
    have decided (SQLite has one connection, served in order).
    """
    return accounts.database.runInteraction(lambda cursor: None)


class FakeAccounts:
    """
    The accounts as the name check reads them (what
    L{hub.accounts.check.NameService} asks of L{Accounts}), in memory:
    each change is noted in a change log as the database's is.

    @ivar reads: the case-folded names read one by one (C{nameEntry}).
    @ivar touched: the accounts whose name was proven.
    @ivar added: the accounts added (L{add}), as L{Accounts.added}.
    """

    added = 0

    def __init__(self, secret=b"k" * 32, now=lambda: 1000.0):
        self.secret = secret
        self.now = now
        self.entries = {}
        self.addressBans = []
        self.changes = []
        self.touched = []
        self.reads = []
        self.clashes = []

    def note(self, kind, target):
        self.changes.append((len(self.changes) + 1, kind, target))

    def add(self, name, key, role="player"):
        """
        Register C{name} with play key C{key}.
        """
        self.entries[names.nameKey(name)] = store.NameEntry(
            name, names.keyHash(self.secret, key), None, role)
        self.note(store.ACCOUNT_CHANGE, names.nameKey(name))
        self.added += 1

    def setKey(self, name, key):
        entry = self.entries[names.nameKey(name)]
        self.entries[names.nameKey(name)] = entry._replace(
            keyHash=names.keyHash(self.secret, key))
        self.note(store.ACCOUNT_CHANGE, names.nameKey(name))

    def ban(self, name, until=9e9):
        """
        Ban account C{name} until C{until} (None: lift its ban).
        """
        entry = self.entries[names.nameKey(name)]
        self.entries[names.nameKey(name)] = entry._replace(
            bannedUntil=until)
        self.note(store.ACCOUNT_CHANGE, names.nameKey(name))

    def banAddress(self, cidr, until=9e9):
        self.addressBans.append(store.AddressBan(cidr, until, "test"))
        self.note(store.ADDRESS_CHANGE, cidr)

    def nameSetup(self):
        now = self.now()
        return defer.succeed(store.NameSetup(
            self.secret,
            {k: e.bannedUntil for k, e in self.entries.items()
             if e.bannedUntil is not None and e.bannedUntil > now},
            [b for b in self.addressBans if b.until > now],
            len(self.changes)))

    def nameEntry(self, key):
        self.reads.append(key)
        return defer.succeed(self.entries.get(key))

    def guestClash(self, key, skeleton):
        self.clashes.append((key, skeleton))
        return defer.succeed(key in self.entries or any(
            skeleton in names.accountSkeletons(e.name)
            for e in self.entries.values()))

    def bans(self):
        now = self.now()
        return defer.succeed([b for b in self.addressBans if b.until > now])

    def changesSince(self, seq, limit=1000):
        return defer.succeed([c for c in self.changes if c[0] > seq][:limit])

    def pruneChanges(self, age):
        return defer.succeed(None)

    def touch(self, key):
        self.touched.append(key)
        return defer.succeed(None)
