"""
L{hub.accounts.model.Accounts} against SQLite and PostgreSQL.
"""

import threading

from argon2 import PasswordHasher
from twisted.internet import defer
from twisted.trial.unittest import TestCase

from hub.accounts import model, names, store
from hub.accounts.store import AccountError, AccountExists, NoSuchAccount
from hub.catalogs import Word

from tests.accounts import support


class AccountsTests:
    """
    Accounts, keys, passwords, roles, bans and the audit.
    """

    def setUp(self):
        self.clock = [1000.0]
        self.accounts = support.openAccounts(self, now=lambda: self.clock[0])

    @defer.inlineCallbacks
    def test_add(self):
        """
        An account is listed with its role; its name is unique regardless
        of case; its password checks; only hashes are stored.
        """
        key = yield self.accounts.add("Alice", "pw one", "admin")
        self.assertEqual(len(key), names.KEY_LENGTH)
        found, bans = yield self.accounts.list()
        self.assertEqual([(a.name, a.role, a.createdAt) for a in found],
                         [("Alice", "admin", 1000.0)])
        self.assertEqual(bans, [])
        yield self.assertFailure(self.accounts.add("aLiCe", "x"),
                                 AccountExists)
        self.assertTrue((yield self.accounts.checkPassword("alice",
                                                           "pw one")))
        self.assertFalse((yield self.accounts.checkPassword("alice", "pw")))
        self.assertFalse((yield self.accounts.checkPassword("nobody", "x")))

        def stored(cursor):
            cursor.execute("SELECT password_hash, key_hash FROM accounts")
            return cursor.fetchone()

        passwordHash, keyHash = yield self.accounts.database.runInteraction(
            stored)
        self.assertTrue(passwordHash.startswith("$argon2id$"))
        self.assertNotIn("pw one", passwordHash)
        self.assertNotIn(key, keyHash)
        self.assertEqual(len(keyHash), 64)

    @defer.inlineCallbacks
    def test_argon2OffTheReactorThread(self):
        """
        Passwords are hashed and verified in another thread than the
        reactor's.
        """
        threads = []
        hasher = self.accounts.hasher

        class Recording:
            def hash(self, password):
                threads.append(threading.current_thread())
                return hasher.hash(password)

            def verify(self, stored, password):
                threads.append(threading.current_thread())
                return hasher.verify(stored, password)

            def check_needs_rehash(self, stored):
                return hasher.check_needs_rehash(stored)

        self.accounts.hasher = Recording()
        yield self.accounts.add("erin", "pw")
        self.assertTrue((yield self.accounts.checkPassword("erin", "pw")))
        self.assertEqual(len(threads), 2)
        self.assertNotIn(threading.main_thread(), threads)

    @defer.inlineCallbacks
    def test_refusals(self):
        """
        Bad names, roles and unknown accounts are refused with one line.
        """
        for name in ("a__b", "toolongname", "", "ab_"):
            yield self.assertFailure(self.accounts.add(name, "pw"),
                                     AccountError)
        yield self.assertFailure(self.accounts.add("bob", "pw", "king"),
                                 AccountError)
        yield self.assertFailure(self.accounts.add("bob", ""), AccountError)
        yield self.assertFailure(self.accounts.newKey("bob"), NoSuchAccount)
        yield self.assertFailure(self.accounts.setRole("bob", "admin"),
                                 NoSuchAccount)

    @defer.inlineCallbacks
    def test_newKeyAndPassword(self):
        """
        A new key replaces the old one in the account's name entry (and
        the change is noted); a new password replaces the old one.
        """
        old = yield self.accounts.add("bob", "first")
        secret = (yield self.accounts.nameSetup()).secret
        entry = yield self.accounts.nameEntry("bob")
        self.assertTrue(names.keyMatches(secret, old, entry.keyHash))
        seq = (yield self.accounts.nameSetup()).seq
        new = yield self.accounts.newKey("BOB")
        self.assertNotEqual(old, new)
        self.assertEqual((yield self.accounts.changesSince(seq)),
                         [(seq + 1, "account", "bob")])
        entry = yield self.accounts.nameEntry("bob")
        self.assertEqual((entry.name, entry.role), ("bob", "player"))
        self.assertFalse(names.keyMatches(secret, old, entry.keyHash))
        self.assertTrue(names.keyMatches(secret, new, entry.keyHash))
        yield self.accounts.setPassword("bob", "second")
        self.assertFalse((yield self.accounts.checkPassword("bob", "first")))
        self.assertTrue((yield self.accounts.checkPassword("bob", "second")))

    @defer.inlineCallbacks
    def test_bans(self):
        """
        Accounts and CIDRs are banned until their end, and unbanned; every
        action is audited.
        """
        yield self.accounts.add("carl", "pw")
        yield self.accounts.ban("carl", 60, "spam", actor="mod")
        yield self.accounts.ban("192.0.2.7/24", 30, "flood", actor="mod")
        setup = yield self.accounts.nameSetup()
        self.assertEqual(setup.bannedAccounts, {"carl": 1060.0})
        self.assertEqual([(b.cidr, b.until, b.reason) for b in setup.bans],
                         [("192.0.2.0/24", 1030.0, "flood")])
        self.assertEqual(
            [(kind, target) for _, kind, target in
             (yield self.accounts.changesSince(0))],
            [("account", "carl"), ("account", "carl"),
             ("address", "192.0.2.0/24")])
        self.clock[0] = 1031.0
        setup = yield self.accounts.nameSetup()
        self.assertEqual((setup.bannedAccounts, setup.bans),
                         ({"carl": 1060.0}, []))
        self.clock[0] = 1061.0
        setup = yield self.accounts.nameSetup()
        self.assertEqual(setup.bannedAccounts, {})
        yield self.accounts.ban("2001:db8::1", 30, "v6")
        yield self.accounts.unban("2001:db8::1/128")
        yield self.assertFailure(self.accounts.unban("10.0.0.0/8"),
                                 AccountError)
        yield self.assertFailure(self.accounts.ban("a__b", 1, "x"),
                                 AccountError)
        entries = yield self.accounts.audit()
        self.assertEqual([(e.actor, e.action, e.target) for e in entries],
                         [("cli", "add", "carl"), ("mod", "ban", "carl"),
                          ("mod", "ban", "192.0.2.0/24"),
                          ("cli", "ban", "2001:db8::1/128"),
                          ("cli", "unban", "2001:db8::1/128")])
        self.assertEqual(entries[1].reason, "60s: spam")

    @defer.inlineCallbacks
    def test_roles(self):
        """
        Roles are set and listed.
        """
        yield self.accounts.add("dora", "pw")
        yield self.accounts.setRole("Dora", "moderator")
        found, _ = yield self.accounts.list()
        self.assertEqual(found[0].role, "moderator")

    @defer.inlineCallbacks
    def test_secretKept(self):
        """
        The server secret is made once and kept.
        """
        first = (yield self.accounts.nameSetup()).secret
        second = (yield self.accounts.nameSetup()).secret
        self.assertEqual(first, second)
        self.assertEqual(len(first), 32)

    @defer.inlineCallbacks
    def test_oldHashMadeAgain(self):
        """
        A password hashed with other argon2 parameters than the hasher's
        still logs in, and its hash is made again with the hasher's; a
        wrong password leaves it as it was.
        """
        old = PasswordHasher(time_cost=1, memory_cost=128, parallelism=2)
        yield self.accounts.add("frank", "pw")
        yield self.accounts.database.runInteraction(
            lambda c: c.execute("UPDATE accounts SET password_hash = ?",
                                (old.hash("pw"),)), write=True)

        def stored():
            return self.accounts.database.runInteraction(
                store.passwordHashOf, names.nameKey("frank"))

        before = yield stored()
        self.assertIn("m=128,t=1,p=2", before)
        self.assertFalse((yield self.accounts.checkPassword("frank", "no")))
        self.assertEqual((yield stored()), before)
        self.assertTrue((yield self.accounts.checkPassword("frank", "pw")))
        after = yield stored()
        self.assertNotEqual(after, before)
        self.assertFalse(self.accounts.hasher.check_needs_rehash(after))
        self.assertTrue((yield self.accounts.checkPassword("frank", "pw")))


class HasherTests(TestCase):
    """
    The accounts' argon2 parameters.
    """

    def test_parameters(self):
        """
        Passwords are hashed with argon2id, one lane, 19 MiB and 2 passes
        (OWASP's first choice), not argon2-cffi's 4-lane 64 MiB default.
        """
        made = model.passwordHasher().hash("pw")
        self.assertTrue(made.startswith("$argon2id$v=19$m=19456,t=2,p=1$"),
                        made)
        self.assertTrue(model.Accounts(None, None).hasher.check_needs_rehash(
            PasswordHasher().hash("pw")))


class SQLiteAccountsTests(AccountsTests, support.SQLiteMixin, TestCase):
    """
    On SQLite.
    """


class PostgreSQLAccountsTests(AccountsTests, support.PostgreSQLMixin,
                              TestCase):
    """
    On PostgreSQL.
    """


class AccountErrorTests(TestCase):
    """
    L{AccountError}: an English template of the web's catalogs and its
    arguments, said in English by C{str} (the CLI, the logs, the API)
    and in a page's language by C{translated}.
    """

    def test_english(self):
        """
        C{str} fills the template; a text without arguments is kept as
        it is (braces included, as a name may hold).
        """
        error = store.Refused("ban", "mod", "a {0} may not {1} a {2}",
                              *map(Word, ("moderator", "ban", "admin")))
        self.assertEqual(str(error), "a moderator may not ban a admin")
        self.assertEqual(str(NoSuchAccount("bob")), "no account 'bob'")
        self.assertEqual(str(AccountError("{0} {x}")), "{0} {x}")

    def test_translated(self):
        """
        The template and its L{Word}s are translated, a name is not (the
        catalogs hold every template the accounts raise).
        """
        from hub.web.i18n import translator
        zh = translator("zh")
        error = store.Refused("ban", "mod", "a {0} may not {1} a {2}",
                              *map(Word, ("moderator", "ban", "admin")))
        self.assertEqual(error.translated(zh),
                         "\u7248\u4e3b\u4e0d\u80fd\u5bf9\u7ba1\u7406"
                         "\u6267\u884c\u201c\u5c01\u7981\u201d\u3002")
        self.assertEqual(NoSuchAccount("admin").translated(zh),
                         "\u6ca1\u6709\u8d26\u6237 'admin'\u3002")
        self.assertEqual(error.translated(lambda text: text), str(error))
