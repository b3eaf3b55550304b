"""
Names at scale (docs/accounts.md, "The name check at scale"): the name
check reads one name, holds it in a bounded cache, and forgets it when
the change log (C{account_changes}) says its key, ban or role changed;
address bans are indexed by prefix; guests' names are checked against
the indexed skeletons.  On real SQLite and PostgreSQL.
"""

import ipaddress

from twisted.internet import defer, reactor
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase, TestCase

from hub.accounts import check, names, store
from hub.accounts.model import Accounts
from hub.records import db

from tests.accounts import support


class CountingAccounts:
    """
    An L{hub.accounts.model.Accounts}, with the names it reads one by one
    counted.
    """

    def __init__(self, accounts):
        self._accounts = accounts
        self.reads = []

    def nameEntry(self, key):
        self.reads.append(key)
        return self._accounts.nameEntry(key)

    def guestClash(self, key, skeleton):
        self.reads.append(("guest", key))
        return self._accounts.guestClash(key, skeleton)

    def __getattr__(self, name):
        return getattr(self._accounts, name)


class NameCacheTests:
    """
    The name check over a real database.
    """

    @defer.inlineCallbacks
    def setUp(self):
        self.now = [1000.0]
        self.accounts = support.openAccounts(self, now=lambda: self.now[0])
        self.keys = {}
        for name in ("alice", "Bob", "carl"):
            self.keys[name] = yield self.accounts.add(name, "pw")
        self.clock = Clock()
        self.counted = CountingAccounts(self.accounts)
        self.names = check.NameService(self.counted, self.clock, [],
                                       cacheSize=2)
        yield self.names.refresh()

    def check(self, name, key, host="192.0.2.1"):
        return self.names.check("gomoku", name + "#" + key, host)

    @defer.inlineCallbacks
    def test_readsOneName(self):
        """
        A proof reads its name once (the cache answers after), never the
        other accounts; past the cache's size the least used is
        forgotten.
        """
        for _ in range(3):
            verdict = yield self.check("alice", self.keys["alice"])
            self.assertEqual(verdict.name, "alice")
        self.assertEqual(self.counted.reads, ["alice"])
        verdict = yield self.check("BOB", self.keys["Bob"])
        self.assertEqual((verdict.name, verdict.account), ("Bob", "bob"))
        yield self.check("carl", self.keys["carl"])
        self.assertEqual(len(self.names.cache), 2)
        self.assertNotIn("alice", self.names.cache)
        self.assertEqual(self.counted.reads, ["alice", "bob", "carl"])

    @defer.inlineCallbacks
    def test_keyChangeSeenAtOnce(self):
        """
        A new key, made elsewhere (another hub, the CLI), is read at the
        next poll: the old key stops working, the new one works; only the
        changed name is read again (at once, for its ban).
        """
        old = self.keys["alice"]
        self.assertIsNotNone((yield self.check("alice", old)))
        yield self.check("carl", self.keys["carl"])
        new = yield self.accounts.newKey("alice")
        yield self.names.refresh()
        self.assertEqual(self.counted.reads, ["alice", "carl", "alice"])
        self.assertIn("carl", self.names.cache)
        self.assertIsNone((yield self.check("alice", old)))
        self.assertIsNotNone((yield self.check("alice", new)))

    @defer.inlineCallbacks
    def test_banAndRole(self):
        """
        A ban of an account is seen at the next poll (its proof is then
        refused) and its lifting too; a role change forgets the cached
        entry, read again with the new role.
        """
        yield self.check("alice", self.keys["alice"])
        yield self.accounts.ban("alice", 600, "spam", actor="mod")
        yield self.names.refresh()
        self.assertTrue(self.names.accountBanned("alice"))
        self.assertIsNone((yield self.check("alice", self.keys["alice"])))
        self.assertEqual(self.names.refused[check.BANNED], 1)
        yield self.accounts.unban("alice", actor="mod")
        yield self.names.refresh()
        self.assertFalse(self.names.accountBanned("alice"))
        yield self.accounts.setRole("alice", "moderator")
        yield self.names.refresh()
        entry = yield self.names.entry("alice")
        self.assertEqual(entry.role, "moderator")
        self.now[0] += 10000
        yield self.accounts.ban("carl", 60, "x", actor="mod")
        yield self.names.refresh()
        self.assertTrue(self.names.accountBanned("carl"))
        self.now[0] += 61
        self.assertFalse(self.names.accountBanned("carl"))

    @defer.inlineCallbacks
    def test_addressBans(self):
        """
        Bans of CIDRs, IPv4 and IPv6, cover their addresses (an IPv4
        address mapped in IPv6 too) until they end.
        """
        yield self.accounts.ban("192.0.2.0/24", 600, "flood")
        yield self.accounts.ban("2001:db8::/32", 60, "flood")
        yield self.names.refresh()
        for host, banned in [("192.0.2.7", True), ("::ffff:192.0.2.7", True),
                             ("192.0.3.7", False), ("2001:db8::1", True),
                             ("2001:db9::1", False), (None, False),
                             ("not an address", False)]:
            self.assertEqual(self.names.addressBanned(host), banned, host)
        self.now[0] += 61
        self.assertFalse(self.names.addressBanned("2001:db8::1"))
        yield self.accounts.unban("192.0.2.0/24")
        yield self.names.refresh()
        self.assertFalse(self.names.addressBanned("192.0.2.7"))

    @defer.inlineCallbacks
    def test_guests(self):
        """
        A guest's name is refused if it is an account's or looks like one
        (its skeleton is indexed), accepted otherwise; a new account's
        look-alikes are refused at once.
        """
        for name in ("alice", "ALICE", "\u0430lice", "b0b", "BOB",
                     "\uff43arl"):
            self.assertIsNone((yield self.names.check("gomoku", name,
                                                      "192.0.2.1")), name)
        verdict = yield self.names.check("gomoku", "dora", "192.0.2.1")
        self.assertTrue(verdict.guest)
        yield self.accounts.add("dora", "pw")
        self.assertIsNone((yield self.names.check("gomoku", "d\u043era",
                                                  "192.0.2.1")))

    @defer.inlineCallbacks
    def test_freeGuestReadOnce(self):
        """
        A guest's name found free is read once: the same name again is
        not read, another is.
        """
        for name in ("dora", "dora", "Dora", "emil"):
            verdict = yield self.names.check("gomoku", name, "192.0.2.1")
            self.assertTrue(verdict.guest, name)
        self.assertEqual(self.counted.reads,
                         [("guest", "dora"), ("guest", "emil")])

    @defer.inlineCallbacks
    def test_freeGuestAccountAddedHere(self):
        """
        A guest's name found free is refused at once when an account of
        that name, or one it looks like, is added through the hub's
        accounts.
        """
        for name in ("dora", "d\u043era"):
            verdict = yield self.names.check("gomoku", name, "192.0.2.1")
            self.assertTrue(verdict.guest, name)
        yield self.accounts.add("dora", "pw")
        for name in ("dora", "d\u043era"):
            self.assertIsNone(
                (yield self.names.check("gomoku", name, "192.0.2.1")), name)

    @defer.inlineCallbacks
    def test_freeGuestAccountAddedElsewhere(self):
        """
        An account added elsewhere (the command line, another hub: other
        L{Accounts} on the same database) is seen by the guests' names
        once the changes are read, as its key or ban would be.
        """
        verdict = yield self.names.check("gomoku", "dora", "192.0.2.1")
        self.assertTrue(verdict.guest)
        elsewhere = Accounts(self.accounts.database, reactor,
                             hasher=self.accounts.hasher,
                             now=lambda: self.now[0])
        yield elsewhere.add("dora", "pw")
        yield self.names.refresh()
        self.assertIsNone(
            (yield self.names.check("gomoku", "dora", "192.0.2.1")))

    @defer.inlineCallbacks
    def test_freeGuestAddedWhileReading(self):
        """
        An account added while a guest's name is read from the database is
        not hidden by what that read found: the name is not remembered.
        """
        reading = defer.Deferred()
        clash = self.counted.guestClash
        self.counted.guestClash = lambda key, skeleton: reading
        checked = self.names.check("gomoku", "dora", "192.0.2.1")
        self.accounts.added += 1
        reading.callback(False)
        verdict = yield checked
        self.assertTrue(verdict.guest)
        self.counted.guestClash = clash
        yield self.names.check("gomoku", "dora", "192.0.2.1")
        self.assertEqual(self.counted.reads, [("guest", "dora")])

    @defer.inlineCallbacks
    def test_skeletonsMadeAgain(self):
        """
        Skeletons made by another version of the confusables' data (or
        never made) are made again when the check starts.
        """
        def forget(cursor):
            cursor.execute("DELETE FROM account_skeletons")
            cursor.execute("UPDATE settings SET value = 'old' WHERE name = ?",
                           (store.SKELETON_SETTING,))
        yield self.accounts.database.runInteraction(forget, write=True)
        self.assertFalse((yield self.accounts.guestClash(
            "x", names.skeleton("alice"))))
        yield self.accounts.nameSetup()
        self.assertTrue((yield self.accounts.guestClash(
            "x", names.skeleton("al\u0131ce"))))


class SQLiteNameCacheTests(NameCacheTests, support.SQLiteMixin, TestCase):
    """
    On SQLite.
    """


class PostgreSQLNameCacheTests(NameCacheTests, support.PostgreSQLMixin,
                               TestCase):
    """
    On PostgreSQL.
    """


class IndexedQueriesTests(support.SQLiteMixin, SynchronousTestCase):
    """
    The name check's reads use indexes, never a scan of the accounts
    (SQLite's query plans).
    """

    def test_plans(self):
        url = db.parseURL(self.databaseURL())
        db.prepare(url)
        connection = db.connect(url)
        self.addCleanup(connection.close)
        for sql, args in [
                ("SELECT name, key_hash, banned_until, role FROM accounts "
                 "WHERE name_key = ?", ("a",)),
                ("SELECT 1 FROM account_skeletons WHERE skeleton = ?",
                 ("a",)),
                ("SELECT name_key, banned_until FROM accounts "
                 "WHERE banned_until > ?", (0,)),
                ("SELECT seq, kind, target FROM account_changes "
                 "WHERE seq > ? ORDER BY seq LIMIT ?", (0, 10)),
                ("SELECT cidr, banned_until, reason FROM address_bans "
                 "WHERE banned_until > ? ORDER BY cidr", (0,))]:
            plan = " ".join(str(row[-1]) for row in connection.execute(
                "EXPLAIN QUERY PLAN " + sql, args))
            self.assertTrue("USING" in plan or "PRIMARY KEY" in plan,
                            (sql, plan))
            self.assertNotRegex(plan, r"SCAN (accounts|account_skeletons)"
                                r"\b(?! USING)", sql)


class BanIndexTests(SynchronousTestCase):
    """
    L{check.BanIndex}.
    """

    def test_manyBans(self):
        """
        With 10,000 bans, an address is looked up by its prefixes only,
        and the latest end of the bans covering it is found.
        """
        bans = [store.AddressBan("10.%d.%d.0/24" % (i // 250, i % 250),
                                 1000.0 + i, "x") for i in range(10000)]
        bans.append(store.AddressBan("10.0.0.0/8", 5.0, "x"))
        bans.append(store.AddressBan("2001:db8::/48", 7.0, "x"))
        index = check.BanIndex(bans)
        self.assertEqual(len(index), 10002)
        self.assertEqual(index.until(ipaddress.ip_address("10.0.3.9")),
                         1003.0)
        self.assertEqual(index.until(ipaddress.ip_address("10.200.0.1")),
                         5.0)
        self.assertIsNone(index.until(ipaddress.ip_address("11.0.0.1")))
        self.assertEqual(index.until(ipaddress.ip_address("2001:db8::9")),
                         7.0)
        self.assertIsNone(index.until(ipaddress.ip_address("2001:db9::9")))
