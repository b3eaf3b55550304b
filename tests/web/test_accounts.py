"""
The web face's accounts (L{hub.web.auth}, L{hub.web.accountpages},
L{hub.accounts.websessions}): registration, login sessions in a cookie,
CSRF tokens, expiry on a L{Clock}, the limits on guessing, and no secret
in the pages, the logs or the metrics; over real SQLite and a real HTTP
port.
"""

from twisted.internet import defer, reactor
from twisted.internet.task import deferLater
from twisted.trial.unittest import SynchronousTestCase, TestCase
from twisted.web import server
from twisted.web.test.requesthelper import DummyChannel

from hub.accounts import names
from hub.accounts.websessions import (
    ABSOLUTE_SECONDS, IDLE_SECONDS, csrfMatches, csrfToken, secretHash)
from hub.web.auth import (
    LOGIN_ADDRESS_BURST, LOGIN_NAME_BURST, SESSION_COOKIE, setCookie)
from hub.web.errors import HubRequest
from hub.web.proxies import ClientResolver, Networks

from tests.web.accountsupport import (
    PASSWORD, AccountsWebMixin, Browser, LogRecorder, csrfOf, keyOf)
from tests.web.support import WebHub

WRONG = "Wrong name or password"


class CookieTests(SynchronousTestCase):
    """
    The session cookie's flags.
    """

    def cookieOver(self, transport, proto=None, trusted="none"):
        channel = DummyChannel()
        channel.transport = transport()
        channel.site.resolver = ClientResolver(Networks.fromOption(trusted))
        request = HubRequest(channel)
        if proto is not None:
            request.requestHeaders.addRawHeader(b"X-Forwarded-Proto", proto)
        request.findClient()
        setCookie(request, SESSION_COOKIE, "abc")
        [cookie] = request.cookies
        return cookie.decode("ascii")

    def test_behindTLSProxy(self):
        """
        Behind a trusted proxy that ends TLS and says so
        (C{X-Forwarded-Proto: https}, as docs/deploy.md's nginx does) the
        cookie is Secure; a proxy that says C{http} leaves it as over
        plain HTTP; from a peer that is no trusted proxy, the header is
        not believed.
        """
        peer = DummyChannel.TCP().getPeer().host
        for proto in (b"https", b"HTTPS", b"http, https"):
            cookie = self.cookieOver(DummyChannel.TCP, proto, peer)
            self.assertIn("Secure", cookie, proto)
            self.assertIn("HttpOnly", cookie)
        self.assertNotIn("Secure", self.cookieOver(DummyChannel.TCP,
                                                   b"http", peer))
        self.assertNotIn("Secure", self.cookieOver(DummyChannel.TCP,
                                                   b"https"))

    def test_plainHTTP(self):
        """
        Over plain HTTP the cookie is HttpOnly and SameSite=Lax, not
        Secure (a browser would not send it back).
        """
        cookie = self.cookieOver(DummyChannel.TCP)
        self.assertIn("HttpOnly", cookie)
        self.assertIn("SameSite=lax", cookie)
        self.assertNotIn("Secure", cookie)

    def test_overTLS(self):
        """
        Over TLS it is Secure too.
        """
        cookie = self.cookieOver(DummyChannel.SSL)
        self.assertIn("Secure", cookie)
        self.assertIn("HttpOnly", cookie)
        self.assertIn("SameSite=lax", cookie)

    def test_csrfToken(self):
        """
        The CSRF token is not the cookie, matches only its own cookie, and
        nothing matches an absent one.
        """
        token = csrfToken("session-a")
        self.assertNotIn("session-a", token)
        self.assertTrue(csrfMatches("session-a", token))
        self.assertFalse(csrfMatches("session-b", token))
        self.assertFalse(csrfMatches(None, token))
        self.assertFalse(csrfMatches("session-a", ""))


class RegistrationTests(AccountsWebMixin, TestCase):
    """
    C{/register} and the play key shown once.
    """

    def setUp(self):
        return self.setUpWeb()

    @defer.inlineCallbacks
    def test_registerShowsKeyThatProves(self):
        """
        Registering logs in and shows a play key once; the key proves the
        name to the game servers.
        """
        browser = Browser(self.web)
        for path in ("/", "/leaderboard/gomoku"):
            code, _, page = yield browser.get(path)
            self.assertIn('href="/account"', page, path)
        code, _, page = yield browser.submit(
            "/register", "/register",
            {"name": "alice", "password": PASSWORD, "again": PASSWORD})
        self.assertEqual(code, 200)
        key = keyOf(page)
        self.assertIsNotNone(key)
        self.assertIn("alice__" + key, page)
        self.assertIn("alice#" + key, page)
        self.assertIn("gamehub_session", browser.cookies)
        yield self.names.refresh()
        verdict = yield self.names.check("checkers", "alice__" + key,
                                         "192.0.2.1")
        self.assertEqual((verdict.name, verdict.guest), ("alice", False))
        code, _, page = yield browser.get("/account")
        self.assertEqual(code, 200)
        self.assertIn("alice", page)
        self.assertNotIn(key, page)
        self.assertIn("Make a new key", page)

    @defer.inlineCallbacks
    def test_newKey(self):
        """
        "Make a new key" shows a new key once; the old one stops working.
        """
        old = yield self.addAccount("alice")
        browser = Browser(self.web)
        yield browser.login("alice")
        code, _, page = yield browser.submit("/account", "/account/key", {})
        self.assertEqual(code, 200)
        key = keyOf(page)
        self.assertNotEqual(key, old)
        yield self.names.refresh()
        self.assertIsNotNone(
            (yield self.names.check("gomoku", "alice#" + key, "192.0.2.1")))
        self.assertIsNone(
            (yield self.names.check("gomoku", "alice#" + old, "192.0.2.1")))

    @defer.inlineCallbacks
    def test_badRegistrations(self):
        """
        A bad name, differing passwords and a name taken are refused with
        the reason, and no session.
        """
        yield self.addAccount("alice")
        for fields, words in [
                ({"name": "a__b", "password": "x", "again": "x"}, "no '__'"),
                ({"name": "bob", "password": "x", "again": "y"}, "differ"),
                ({"name": "ALICE", "password": "x", "again": "x"},
                 "exists")]:
            browser = Browser(self.web)
            code, _, page = yield browser.submit("/register", "/register",
                                                 fields)
            self.assertEqual(code, 400, words)
            self.assertIn(words, page)
            self.assertNotIn("gamehub_session", browser.cookies)

    @defer.inlineCallbacks
    def test_changePassword(self):
        """
        The password changes with the current one; the other sessions
        end; this one goes on with a new id.
        """
        yield self.addAccount("alice")
        other = Browser(self.web)
        yield other.login("alice")
        browser = Browser(self.web)
        yield browser.login("alice")
        before = browser.cookies["gamehub_session"]
        code, _, page = yield browser.submit(
            "/account", "/account/password",
            {"current": "wrong", "password": "new-one", "again": "new-one"})
        self.assertEqual(code, 403)
        code, _, page = yield browser.submit(
            "/account", "/account/password",
            {"current": PASSWORD, "password": "new-one",
             "again": "new-one"})
        self.assertEqual(code, 200)
        self.assertIn("Password changed", page)
        self.assertNotEqual(browser.cookies["gamehub_session"], before)
        code, _, _ = yield browser.get("/account")
        self.assertEqual(code, 200)
        code, headers, _ = yield other.get("/account")
        self.assertEqual(code, 303)
        ok = yield self.accounts.checkPassword("alice", "new-one")
        self.assertTrue(ok)


class InviteTests(AccountsWebMixin, TestCase):
    """
    C{--registration invite} and C{closed}.
    """

    registration = "invite"

    def setUp(self):
        return self.setUpWeb()

    @defer.inlineCallbacks
    def test_inviteOnce(self):
        """
        With an invite code one account registers; the code is then used
        up, and a made-up one is refused.
        """
        code = yield self.sessions.newInvite("root")
        fields = {"name": "alice", "password": PASSWORD, "again": PASSWORD,
                  "invite": "made-up"}
        status, _, page = yield Browser(self.web).submit(
            "/register", "/register", fields)
        self.assertEqual(status, 400)
        self.assertIn("invite code is not valid", page)
        fields["invite"] = code
        status, _, page = yield Browser(self.web).submit(
            "/register", "/register", fields)
        self.assertEqual(status, 200)
        self.assertIsNotNone(keyOf(page))
        fields["name"] = "bob"
        status, _, page = yield Browser(self.web).submit(
            "/register", "/register", fields)
        self.assertEqual(status, 400)
        self.assertIn("invite code is not valid", page)

    @defer.inlineCallbacks
    def test_inviteFreedWhenNameTaken(self):
        """
        A registration refused for its name does not use up the code.
        """
        yield self.addAccount("alice")
        code = yield self.sessions.newInvite("root")
        fields = {"name": "alice", "password": PASSWORD, "again": PASSWORD,
                  "invite": code}
        status, _, _ = yield Browser(self.web).submit(
            "/register", "/register", fields)
        self.assertEqual(status, 400)
        fields["name"] = "bob"
        status, _, _ = yield Browser(self.web).submit(
            "/register", "/register", fields)
        self.assertEqual(status, 200)

    @defer.inlineCallbacks
    def test_closed(self):
        """
        C{--registration closed}: the page says so and a POST is refused.
        """
        self.auth.registration = "closed"
        browser = Browser(self.web)
        status, _, page = yield browser.get("/register")
        self.assertIn("Registration is closed", page)
        self.assertNotIn('name="password"', page)
        status, _, page = yield browser.request(
            b"POST", "/register", {"csrf": csrfOf(
                (yield browser.get("/login"))[2]), "name": "alice",
                "password": PASSWORD, "again": PASSWORD})
        self.assertEqual(status, 403)
        found, _ = yield self.accounts.list()
        self.assertEqual(found, [])


class SessionTests(AccountsWebMixin, TestCase):
    """
    Login sessions: a new id at each login, cleared at logout, CSRF
    tokens on every POST, expiry.
    """

    @defer.inlineCallbacks
    def setUp(self):
        yield self.setUpWeb()
        yield self.addAccount("alice")

    @defer.inlineCallbacks
    def test_loginLogout(self):
        """
        A login sets a new session id each time (HttpOnly, SameSite=Lax,
        not Secure over plain HTTP), stored only hashed; a logout clears
        the cookie and ends the session.
        """
        browser = Browser(self.web)
        code, headers, _ = yield browser.login("alice")
        self.assertEqual(code, 303)
        self.assertEqual(headers.getRawHeaders(b"location"), [b"/account"])
        first = browser.cookies["gamehub_session"]
        [setSession] = [c for c in browser.setCookies
                        if c.startswith("gamehub_session=")]
        self.assertIn("HttpOnly", setSession)
        self.assertIn("SameSite=lax", setSession)
        self.assertNotIn("Secure", setSession)
        yield browser.login("alice")
        second = browser.cookies["gamehub_session"]
        self.assertNotEqual(first, second)
        rows = yield self.accounts.database.runInteraction(
            lambda c: c.execute("SELECT id_hash FROM web_sessions")
            .fetchall())
        stored = {row[0] for row in rows}
        self.assertIn(secretHash(second), stored)
        self.assertNotIn(second, stored)
        code, _, _ = yield browser.submit("/account", "/logout", {})
        self.assertEqual(code, 303)
        self.assertNotIn("gamehub_session", browser.cookies)
        visitor = yield self.sessions.find(second)
        self.assertIsNone(visitor)
        code, headers, _ = yield browser.get("/account")
        self.assertEqual(code, 303)
        self.assertEqual(headers.getRawHeaders(b"location"),
                         [b"/login?next=/account"])

    @defer.inlineCallbacks
    def test_csrfRefused(self):
        """
        A POST without a CSRF token, or with another browser's, is
        refused (403) and counted; with its own it goes through.
        """
        browser = Browser(self.web)
        yield browser.login("alice")
        code, _, _ = yield browser.request(b"POST", "/account/key", {})
        self.assertEqual(code, 403)
        # (Two browsers logged in at once.)
        yield self.accounts.setKeepSessions("alice", True)
        other = Browser(self.web)
        yield other.login("alice")
        _, _, page = yield other.get("/account")
        code, _, _ = yield browser.request(b"POST", "/account/key",
                                           {"csrf": csrfOf(page)})
        self.assertEqual(code, 403)
        code, _, _ = yield browser.request(b"POST", "/logout",
                                           {"csrf": "0" * 64})
        self.assertEqual(code, 403)
        code, _, _ = yield Browser(self.web).request(
            b"POST", "/login", {"name": "alice", "password": PASSWORD})
        self.assertEqual(code, 403)
        # Logged in, the form cookie's token no longer does (a cookie set
        # by someone else cannot stand in for the session's).
        anonymous = Browser(self.web)
        _, _, page = yield anonymous.get("/login")
        browser.cookies["gamehub_form"] = anonymous.cookies["gamehub_form"]
        code, _, _ = yield browser.request(b"POST", "/account/key",
                                           {"csrf": csrfOf(page)})
        self.assertEqual(code, 403)
        self.assertEqual(self.auth.csrfRefused, 5)
        self.assertIn("gamehub_web_csrf_refused_total 5.0",
                      self.metricsText())
        code, _, page = yield browser.submit("/account", "/account/key", {})
        self.assertEqual(code, 200)
        self.assertIsNotNone(keyOf(page))

    @defer.inlineCallbacks
    def test_idleExpiry(self):
        """
        A session unused for L{IDLE_SECONDS} has ended; one used within
        that goes on.
        """
        browser = Browser(self.web)
        yield browser.login("alice")
        self.clock.advance(IDLE_SECONDS - 10)
        code, _, _ = yield browser.get("/account")
        self.assertEqual(code, 200)
        self.clock.advance(IDLE_SECONDS - 10)
        code, _, _ = yield browser.get("/account")
        self.assertEqual(code, 200)
        self.clock.advance(IDLE_SECONDS + 1)
        code, _, _ = yield browser.get("/account")
        self.assertEqual(code, 303)

    @defer.inlineCallbacks
    def test_absoluteExpiry(self):
        """
        A session used all the time still ends L{ABSOLUTE_SECONDS} after
        its login.
        """
        browser = Browser(self.web)
        yield browser.login("alice")
        step = IDLE_SECONDS / 2
        used = 0
        while used + step < ABSOLUTE_SECONDS:
            self.clock.advance(step)
            used += step
            code, _, _ = yield browser.get("/account")
            self.assertEqual(code, 200, used)
        self.clock.advance(step)
        code, _, _ = yield browser.get("/account")
        self.assertEqual(code, 303)

    @defer.inlineCallbacks
    def test_bannedSessionEnds(self):
        """
        A ban ends the account's sessions at their next request, and a
        banned account cannot log in.
        """
        browser = Browser(self.web)
        yield browser.login("alice")
        yield self.accounts.ban("alice", 3600, "spam", actor="root")
        code, _, _ = yield browser.get("/account")
        self.assertEqual(code, 303)
        code, _, page = yield browser.login("alice")
        self.assertEqual(code, 403)
        self.assertIn("banned", page)


class LockoutTests(AccountsWebMixin, TestCase):
    """
    Failed logins are limited per name and per address; a lockout
    reveals nothing, and is counted.
    """

    @defer.inlineCallbacks
    def setUp(self):
        yield self.setUpWeb()
        yield self.addAccount("alice")

    @defer.inlineCallbacks
    def failures(self, name, count):
        for _ in range(count):
            code, _, page = yield Browser(self.web).login(name, "wrong")
            self.assertEqual(code, 403)
            self.assertIn(WRONG, page)

    @defer.inlineCallbacks
    def loginAt(self, host, name, password=PASSWORD):
        """
        Log in as C{name} from C{host}, the clock run to the end of the
        name's delay when the login waits for it, and no further (argon2,
        in its thread, takes real time only: the limits do not refill
        meanwhile, however slow the machine).
        """
        d = Browser(self.web, host).login(name, password)
        while not d.called:
            yield deferLater(reactor, 0.005, lambda: None)
            pending = self.clock.getDelayedCalls()
            if pending:
                self.clock.advance(max(0, min(
                    call.getTime() for call in pending) - self.clock.seconds()))
        return (yield d)

    @defer.inlineCallbacks
    def test_perName(self):
        """
        Past L{LOGIN_NAME_BURST} failures of a name from one address, even
        the right password from there gets the same answer as a name that
        does not exist; from another address it logs in; a minute later
        one more try is allowed from the first; the results are counted.
        """
        yield self.failures("alice", LOGIN_NAME_BURST)
        code, _, locked = yield self.loginAt("127.0.0.1", "alice")
        self.assertEqual(code, 403)
        code, _, missing = yield self.loginAt("127.0.0.3", "nobody")
        self.assertEqual(code, 403)
        self.assertEqual(locked.replace("alice", "NAME"),
                         missing.replace("nobody", "NAME").replace(
                             csrfOf(missing), csrfOf(locked)))
        code, _, _ = yield self.loginAt("127.0.0.2", "alice")
        self.assertEqual(code, 303)
        self.clock.advance(60)
        code, _, _ = yield self.loginAt("127.0.0.1", "alice")
        self.assertEqual(code, 303)
        metrics = self.metricsText()
        self.assertIn('gamehub_web_logins_total{result="failed"} 11.0',
                      metrics)
        self.assertIn('gamehub_web_logins_total{result="locked"} 1.0',
                      metrics)
        self.assertIn('gamehub_web_logins_total{result="ok"} 2.0', metrics)

    @defer.inlineCallbacks
    def test_attackerCannotLockTheOwner(self):
        """
        An attacker sending ten wrong passwords for alice from one
        address, then one a minute for half an hour (at its limit: even
        the right password would be refused from there), does not keep
        alice, from another, from logging in, every five minutes.
        """
        for _ in range(LOGIN_NAME_BURST - 1):
            yield self.loginAt("127.0.0.5", "alice", "wrong")
        for minute in range(30):
            code, _, page = yield self.loginAt("127.0.0.5", "alice",
                                               "wrong")
            self.assertEqual(code, 403)
            self.assertIn(WRONG, page)
            self.assertTrue(self.auth.limits.locked("alice", "127.0.0.5"))
            if minute % 5 == 4:
                code, _, _ = yield self.loginAt("127.0.0.6", "alice")
                self.assertEqual(code, 303)
            self.clock.advance(60)
        self.assertEqual(self.auth.logins["ok"], 6)

    @defer.inlineCallbacks
    def test_perAddress(self):
        """
        Past L{LOGIN_ADDRESS_BURST} failures from one address, over many
        names, its logins are refused whatever the name.
        """
        for i in range(LOGIN_ADDRESS_BURST):
            yield self.failures("n%d" % (i,), 1)
        code, _, page = yield Browser(self.web).login("alice")
        self.assertEqual(code, 403)
        self.assertIn(WRONG, page)
        self.assertEqual(self.auth.logins["locked"], 1)

    def test_floodRefusedBeforeHashing(self):
        """
        Logins in flight at once from one address take their tries before
        argon2 runs: past L{LOGIN_ADDRESS_BURST} of them the rest are
        locked without a password check; right passwords give their tries
        back.
        """
        pending = []

        def checkPassword(name, password):
            pending.append(defer.Deferred())
            return pending[-1]

        self.patch(self.auth.accounts, "checkPassword", checkPassword)
        request = server.Request(DummyChannel())
        results = [self.auth.checkPassword(request, "n%d" % (i,), "pw")
                   for i in range(LOGIN_ADDRESS_BURST + 5)]
        self.assertEqual(len(pending), LOGIN_ADDRESS_BURST)
        for d in results[LOGIN_ADDRESS_BURST:]:
            self.assertEqual(self.successResultOf(d), "locked")
        for d in pending:
            d.callback(True)
        for d in results[:LOGIN_ADDRESS_BURST]:
            self.assertEqual(self.successResultOf(d), "ok")
        again = self.auth.checkPassword(request, "n0", "pw")
        self.assertEqual(len(pending), LOGIN_ADDRESS_BURST + 1)
        pending[-1].callback(False)
        self.assertEqual(self.successResultOf(again), "failed")


class NoLeakTests(AccountsWebMixin, TestCase):
    """
    No password, key, hash, session id or token in the pages, the JSON
    API, the logs or the metrics.
    """

    @defer.inlineCallbacks
    def setUp(self):
        yield self.setUpWeb()

    @defer.inlineCallbacks
    def test_noSecrets(self):
        logs = LogRecorder(self)
        yield self.addAccount("root", "admin")
        token = yield self.sessions.newToken("root")
        browser = Browser(self.web)
        pages = []
        answer = yield browser.submit(
            "/register", "/register",
            {"name": "alice", "password": PASSWORD, "again": PASSWORD})
        key = keyOf(answer[2])
        session = browser.cookies["gamehub_session"]
        yield Browser(self.web).login("alice", "wrong")
        admin = Browser(self.web)
        yield admin.login("root")
        for path in ("/", "/account", "/admin", "/admin/audit", "/login",
                     "/register"):
            for who in (browser, admin):
                pages.append((yield who.get(path))[2])
        for path in ("connections", "rooms", "audit"):
            pages.append((yield admin.request(
                b"GET", "/api/admin/" + path,
                headers={b"authorization": b"Bearer " +
                         token.encode()}))[2])
        rows = yield self.accounts.database.runInteraction(
            lambda c: c.execute("SELECT password_hash, key_hash FROM "
                                "accounts").fetchall())
        secrets = [PASSWORD, session, secretHash(session), token,
                   secretHash(token), admin.cookies["gamehub_session"]]
        for passwordHash, keyHash in rows:
            secrets.extend([passwordHash, keyHash])
        everything = "\n".join(pages + [logs.text(), self.metricsText()])
        for secret in secrets:
            self.assertNotIn(secret, everything)
        # The key is shown once, on the page that made it, and nowhere
        # else.
        self.assertNotIn(key, everything)
        self.assertTrue(names.splitKeyed("alice__" + key))


class WithoutAccountsTests(TestCase):
    """
    C{--names open} or C{--db none}: no accounts pages, no links.
    """

    @defer.inlineCallbacks
    def test_noPages(self):
        web = WebHub(self)
        for path in ("/register", "/login", "/logout", "/account",
                     "/admin", "/admin/audit", "/api/admin/connections"):
            code, _, _ = yield web.get(path)
            self.assertEqual(code, 404, path)
        code, _, body = yield web.get("/")
        self.assertEqual(code, 200)
        for word in (b"/login", b"/account", b"/register", b"/admin"):
            self.assertNotIn(word, body)
