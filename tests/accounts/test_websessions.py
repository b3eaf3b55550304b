"""
L{hub.accounts.websessions} on SQLite and PostgreSQL: sessions kept only
hashed, ended by logout, idleness, age or a ban; API tokens; invite
codes used once.
"""

from twisted.internet import defer
from twisted.internet.task import Clock
from twisted.trial.unittest import TestCase

from hub.accounts.store import AccountError, NoSuchAccount
from hub.accounts.websessions import (
    ABSOLUTE_SECONDS, IDLE_SECONDS, WebSessions, secretHash)

from tests.accounts import support


class WebSessionsTests:
    """
    The store of the web face's secrets.
    """

    @defer.inlineCallbacks
    def setUp(self):
        self.clock = Clock()
        self.clock.advance(1000000)
        self.accounts = support.openAccounts(self, now=self.clock.seconds)
        self.sessions = WebSessions(self.accounts.database, self.clock)
        yield self.accounts.add("alice", "pw", "moderator")

    def column(self, sql):
        return self.accounts.database.runInteraction(
            lambda c: [row[0] for row in c.execute(sql).fetchall()])

    @defer.inlineCallbacks
    def test_openFindClose(self):
        """
        A session is found by its id (kept only as its hash) with its
        account's name and role, until it is closed.
        """
        raw = yield self.sessions.open("ALICE")
        self.assertEqual((yield self.column(
            "SELECT id_hash FROM web_sessions")), [secretHash(raw)])
        visitor = yield self.sessions.find(raw)
        self.assertEqual((visitor.name, visitor.role),
                         ("alice", "moderator"))
        other = yield self.sessions.open("alice")
        self.assertNotEqual(raw, other)
        yield self.sessions.close(raw)
        self.assertIsNone((yield self.sessions.find(raw)))
        self.assertIsNotNone((yield self.sessions.find(other)))
        self.assertIsNone((yield self.sessions.find("made-up")))
        self.assertIsNone((yield self.sessions.find(None)))

    @defer.inlineCallbacks
    def test_noAccount(self):
        """
        No session opens for no account.
        """
        yield self.assertFailure(self.sessions.open("bob"), NoSuchAccount)

    @defer.inlineCallbacks
    def test_expiry(self):
        """
        A session ends after L{IDLE_SECONDS} unused, or
        L{ABSOLUTE_SECONDS} after it opened; ended ones are dropped at the
        next login.
        """
        idle = yield self.sessions.open("alice")
        used = yield self.sessions.open("alice")
        for _ in range(int(ABSOLUTE_SECONDS // (IDLE_SECONDS / 2)) - 1):
            self.clock.advance(IDLE_SECONDS / 2)
            self.assertIsNotNone((yield self.sessions.find(used)))
        self.assertIsNone((yield self.sessions.find(idle)))
        self.clock.advance(IDLE_SECONDS / 2)
        self.assertIsNone((yield self.sessions.find(used)))
        yield self.sessions.open("alice")
        self.assertEqual((yield self.sessions.count()), 1)

    @defer.inlineCallbacks
    def test_roleAndBanEndSessions(self):
        """
        A role change ends the account's sessions, and a token's role is
        read at each use; a ban ends the sessions (for good: not back
        when the ban ends), and the tokens find nobody while it lasts.
        """
        raw = yield self.sessions.open("alice")
        token = yield self.sessions.newToken("alice")
        yield self.accounts.setRole("alice", "player")
        self.assertIsNone((yield self.sessions.find(raw)))
        self.assertEqual((yield self.sessions.tokenVisitor(token)).role,
                         "player")
        raw = yield self.sessions.open("alice")
        yield self.accounts.ban("alice", 60, "spam")
        self.assertIsNone((yield self.sessions.find(raw)))
        self.assertIsNone((yield self.sessions.tokenVisitor(token)))
        self.clock.advance(61)
        self.assertIsNone((yield self.sessions.find(raw)))
        self.assertEqual((yield self.sessions.tokenVisitor(token)).role,
                         "player")

    @defer.inlineCallbacks
    def test_closeAll(self):
        """
        C{closeAll} ends every session of an account.
        """
        first = yield self.sessions.open("alice")
        second = yield self.sessions.open("alice")
        yield self.sessions.closeAll("Alice")
        self.assertIsNone((yield self.sessions.find(first)))
        self.assertIsNone((yield self.sessions.find(second)))

    @defer.inlineCallbacks
    def test_tokens(self):
        """
        A token is kept only as its hash, finds its account, and is
        audited; an unknown one finds nobody.
        """
        token = yield self.sessions.newToken("alice", actor="root")
        self.assertEqual((yield self.column(
            "SELECT token_hash FROM api_tokens")), [secretHash(token)])
        self.assertEqual((yield self.sessions.tokenVisitor(token)).name,
                         "alice")
        self.assertIsNone((yield self.sessions.tokenVisitor("x" * 43)))
        entries = yield self.accounts.audit()
        self.assertEqual([(e.actor, e.action, e.target)
                          for e in entries][-1], ("root", "token", "alice"))

    @defer.inlineCallbacks
    def test_invites(self):
        """
        An invite code registers one account; used, or made up, it
        registers none.
        """
        code = yield self.sessions.newInvite("root")
        self.assertEqual((yield self.column(
            "SELECT code_hash FROM invites")), [secretHash(code)])
        key = yield self.sessions.register(self.accounts, "bob", "pw", code)
        self.assertTrue(key)
        yield self.assertFailure(
            self.sessions.register(self.accounts, "carl", "pw", code),
            AccountError)
        yield self.assertFailure(
            self.sessions.register(self.accounts, "carl", "pw", "made-up"),
            AccountError)
        found, _ = yield self.accounts.list()
        self.assertEqual([a.name for a in found], ["alice", "bob"])


class SQLiteWebSessionsTests(WebSessionsTests, support.SQLiteMixin,
                             TestCase):
    """
    On SQLite.
    """


class PostgreSQLWebSessionsTests(WebSessionsTests, support.PostgreSQLMixin,
                                 TestCase):
    """
    On PostgreSQL.
    """
