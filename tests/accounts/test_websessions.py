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
    ABSOLUTE_SECONDS, FLUSH_SECONDS, IDLE_SECONDS, POLL_SECONDS,
    TOKEN_ID_LENGTH, TOKEN_SECONDS, TOUCH_SECONDS, WebSessions, secretHash)

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
    def test_endAll(self):
        """
        C{endAll} ends every session of an account.
        """
        yield self.accounts.setKeepSessions("alice", True)
        first = yield self.sessions.open("alice")
        second = yield self.sessions.open("alice")
        self.assertIsNotNone((yield self.sessions.find(first)))
        yield self.sessions.endAll("Alice")
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

    def countWrites(self):
        """
        The write transactions of the database from now on, counted in a
        list of one.
        """
        database = self.accounts.database
        original = database.runInteraction
        writes = [0]

        def counted(interaction, *args, write=False, **kwargs):
            writes[0] += write
            return original(interaction, *args, write=write, **kwargs)
        self.patch(database, "runInteraction", counted)
        return writes

    @defer.inlineCallbacks
    def test_findIsARead(self):
        """
        Finding a session writes nothing; its use is written at most once
        per L{TOUCH_SECONDS} per session, in one batch for every session
        L{FLUSH_SECONDS} later, with the accounts' last seen.
        """
        yield self.accounts.add("bob", "pw")
        alice = yield self.sessions.open("alice")
        bob = yield self.sessions.open("bob")
        opened = self.clock.seconds()
        writes = self.countWrites()
        for _ in range(50):
            self.assertIsNotNone((yield self.sessions.find(alice)))
            self.assertIsNotNone((yield self.sessions.find(bob)))
        self.assertEqual(writes[0], 0)
        self.clock.advance(TOUCH_SECONDS)
        for _ in range(50):
            yield self.sessions.find(alice)
            yield self.sessions.find(bob)
        self.assertEqual(writes[0], 0)
        self.clock.advance(FLUSH_SECONDS)
        yield self.sessions.flush()
        self.assertEqual(writes[0], 1)
        self.assertEqual(self.sessions.writes, 1)
        self.assertEqual(sorted((yield self.column(
            "SELECT seen_at FROM web_sessions"))),
            [opened + TOUCH_SECONDS] * 2)
        found, _ = yield self.accounts.list()
        self.assertEqual([a.lastSeen for a in found],
                         [opened + TOUCH_SECONDS] * 2)
        for _ in range(10):
            yield self.sessions.find(alice)
        self.clock.advance(FLUSH_SECONDS)
        self.assertEqual(writes[0], 1)

    @defer.inlineCallbacks
    def test_newLoginEndsOthers(self):
        """
        A new session of an account ends its others, unless the account
        keeps them.
        """
        first = yield self.sessions.open("alice")
        second = yield self.sessions.open("alice")
        self.assertIsNone((yield self.sessions.find(first)))
        yield self.accounts.setKeepSessions("alice", True)
        self.assertTrue((yield self.accounts.keepsSessions("ALICE")))
        third = yield self.sessions.open("alice")
        self.assertIsNotNone((yield self.sessions.find(second)))
        self.assertIsNotNone((yield self.sessions.find(third)))

    @defer.inlineCallbacks
    def test_watchOtherHub(self):
        """
        A watched session ended by this hub ends its watch at once; one
        ended through the database (another hub, the command line) at the
        next look, L{POLL_SECONDS} later; one that goes on is not ended.
        """
        other = WebSessions(self.accounts.database, self.clock)
        yield self.accounts.add("bob", "pw")
        ended = []
        raws = {}
        for name in ("alice", "bob"):
            raws[name] = yield self.sessions.open(name)
            visitor = yield self.sessions.find(raws[name])
            self.sessions.watch(visitor, lambda name=name: ended.append(name))
        yield other.endAll("alice")
        self.assertEqual(ended, [])
        self.clock.advance(POLL_SECONDS)
        yield self.sessions.flush()
        yield self.waitUntil(lambda: ended)
        self.assertEqual(ended, ["alice"])
        yield self.sessions.endAll("bob")
        self.assertEqual(ended, ["alice", "bob"])
        yield self.sessions.stop()

    def waitUntil(self, condition):
        """
        A Deferred that fires once C{condition()} holds (the look's read
        done in the database's thread), within 10 seconds.
        """
        from twisted.internet import reactor, task
        deadline = reactor.seconds() + 10

        def look():
            if condition() or reactor.seconds() > deadline:
                return condition()
            return task.deferLater(reactor, 0.01, look)
        return task.deferLater(reactor, 0, look)

    @defer.inlineCallbacks
    def test_tokensExpire(self):
        """
        A token lasts L{TOKEN_SECONDS} by default, or what it was given;
        expired, it finds nobody.
        """
        default = yield self.sessions.newToken("alice")
        short = yield self.sessions.newToken("alice", seconds=60,
                                             label="ci")
        self.clock.advance(60)
        self.assertIsNone((yield self.sessions.tokenVisitor(short)))
        self.assertIsNotNone((yield self.sessions.tokenVisitor(default)))
        self.clock.advance(TOKEN_SECONDS - 60)
        self.assertIsNone((yield self.sessions.tokenVisitor(default)))

    @defer.inlineCallbacks
    def test_tokensListedAndRevoked(self):
        """
        Tokens are listed by id (never the token) with their account,
        name, times and last use (noted at each use, written in batches,
        listed at once); revoking one by its id ends it; making and
        revoking are audited.
        """
        token = yield self.sessions.newToken("alice", actor="root",
                                             seconds=86400, label="ci")
        made = self.clock.seconds()
        [info] = yield self.sessions.tokens()
        self.assertEqual(
            (info.tokenId, info.name, info.label, info.createdAt,
             info.lastUsed, info.expiresAt),
            (secretHash(token)[:TOKEN_ID_LENGTH], "alice", "ci", made,
             None, made + 86400))
        self.assertNotIn(token, repr(info))
        self.clock.advance(5)
        yield self.sessions.tokenVisitor(token)
        [info] = yield self.sessions.tokens()
        self.assertEqual(info.lastUsed, made + 5)
        yield self.sessions.flush()
        self.assertEqual((yield self.column(
            "SELECT last_used_at FROM api_tokens")), [made + 5])
        yield self.assertFailure(self.sessions.revokeToken("0" * 12),
                                 AccountError)
        yield self.assertFailure(self.sessions.revokeToken("xyz"),
                                 AccountError)
        name = yield self.sessions.revokeToken(info.tokenId.upper(),
                                               actor="root")
        self.assertEqual(name, "alice")
        self.assertIsNone((yield self.sessions.tokenVisitor(token)))
        self.assertEqual((yield self.sessions.tokens()), [])
        entries = yield self.accounts.audit()
        self.assertEqual([(e.actor, e.action, e.target, e.reason)
                          for e in entries][-2:], [
            ("root", "token", "alice", info.tokenId + " ci, 1.0 days"),
            ("root", "revoke-token", "alice", info.tokenId)])

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
