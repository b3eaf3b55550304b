"""
Login sessions end when they should (L{hub.accounts.websessions}): a
logout, a password change, a role change and a ban end every web session
of the account and close every live WebSocket of it; a new login ends
the previous session unless the account keeps them ("keep me logged in
elsewhere").  Changes made by this hub close the sockets at once; those
made elsewhere (the command line, another hub) at the next look, one
L{POLL_SECONDS} later on the sessions' L{Clock}; over real SQLite, a
real HTTP port and autobahn's client.
"""

from twisted.internet import defer, reactor
from twisted.trial.unittest import TestCase

from hub.accounts.store import Actor
from hub.accounts.websessions import POLL_SECONDS
from hub.web import play as playing
from hub.web.ws import SESSION_ENDED

from tests.web.accountsupport import PASSWORD, AccountsWebMixin, Browser
from tests.web.support import TIMEOUT
from tests.web.wsclient import PlayClient

ADMIN = Actor("root", "admin", "203.0.113.1")


class SessionEndTests(AccountsWebMixin, TestCase):
    """
    Two browsers of alice's, each with a live WebSocket.
    """

    play = True

    @defer.inlineCallbacks
    def setUp(self):
        yield self.setUpWeb()
        yield self.addAccount("alice")
        yield self.addAccount("root", "admin")
        yield self.names.refresh()

    @defer.inlineCallbacks
    def browser(self):
        """
        A browser logged in as alice, and its WebSocket (said hello).
        """
        browser = Browser(self.web)
        code, _, _ = yield browser.login("alice")
        self.assertEqual(code, 303)
        client = PlayClient(reactor, self.web.url("/ws").replace(
            "http://", "ws://"), headers={"Cookie": "; ".join(
                "{}={}".format(k, v) for k, v in browser.cookies.items())})
        self.addCleanup(client.close)
        yield client.opened()
        client.send({"type": "hello", "version": playing.PROTOCOL_VERSION})
        welcome = yield client.waitFor(lambda m: m["type"] == "welcome")
        self.assertEqual(welcome["name"], "alice")
        return browser, client

    @defer.inlineCallbacks
    def keep(self, browser, keep=True):
        """
        Tick (or untick) "keep me logged in elsewhere" on the account
        page.
        """
        fields = {"keep": "on"} if keep else {}
        code, _, page = yield browser.submit("/account", "/account/sessions",
                                             fields)
        self.assertEqual(code, 200)
        self.assertIn("keeps" if keep else "ends", page)

    @defer.inlineCallbacks
    def loggedIn(self, browser):
        code, _, _ = yield browser.get("/account")
        return code == 200

    def closed(self, client):
        return client.closed.addTimeout(TIMEOUT, reactor).addCallback(
            lambda _: client.closeCode)

    @defer.inlineCallbacks
    def assertEnded(self, *pairs):
        for browser, client in pairs:
            self.assertFalse((yield self.loggedIn(browser)))
            self.assertEqual((yield self.closed(client)), SESSION_ENDED)

    @defer.inlineCallbacks
    def test_newLoginEndsThePrevious(self):
        """
        By default, a login ends the account's other session and closes
        its socket at once.
        """
        first = yield self.browser()
        second = yield self.browser()
        yield self.assertEnded(first)
        self.assertTrue((yield self.loggedIn(second[0])))
        self.assertFalse(second[1].closed.called)

    @defer.inlineCallbacks
    def test_keepLoggedInElsewhere(self):
        """
        An account that keeps its sessions stays logged in where it was;
        unticked again, the next login ends the others.
        """
        first = yield self.browser()
        yield self.keep(first[0])
        second = yield self.browser()
        self.assertTrue((yield self.loggedIn(first[0])))
        self.assertFalse(first[1].closed.called)
        yield self.keep(second[0], False)
        third = yield self.browser()
        yield self.assertEnded(first, second)
        self.assertTrue((yield self.loggedIn(third[0])))

    @defer.inlineCallbacks
    def test_logoutEndsAll(self):
        """
        A logout in one browser ends every session of the account and
        closes every socket of it.
        """
        first = yield self.browser()
        yield self.keep(first[0])
        second = yield self.browser()
        code, _, _ = yield second[0].submit("/account", "/logout", {})
        self.assertEqual(code, 303)
        yield self.assertEnded(first, second)

    @defer.inlineCallbacks
    def test_passwordChange(self):
        """
        A password change ends every session and socket of the account;
        the browser that changed it is logged in again, with a new one.
        """
        first = yield self.browser()
        yield self.keep(first[0])
        second = yield self.browser()
        old = second[0].cookies["gamehub_session"]
        code, _, _ = yield second[0].submit(
            "/account", "/account/password", {
                "current": PASSWORD, "password": "new-pass-word-1",
                "again": "new-pass-word-1"})
        self.assertEqual(code, 200)
        self.assertFalse((yield self.loggedIn(first[0])))
        self.assertEqual((yield self.closed(first[1])), SESSION_ENDED)
        self.assertEqual((yield self.closed(second[1])), SESSION_ENDED)
        self.assertNotEqual(second[0].cookies["gamehub_session"], old)
        self.assertTrue((yield self.loggedIn(second[0])))

    @defer.inlineCallbacks
    def test_roleChange(self):
        """
        A role given by an admin ends the account's sessions and sockets
        at the next look (within L{POLL_SECONDS}).
        """
        first = yield self.browser()
        yield self.names.moderation.setRole("alice", "moderator", ADMIN)
        self.assertFalse((yield self.loggedIn(first[0])))
        self.assertFalse(first[1].closed.called)
        self.clock.advance(POLL_SECONDS)
        self.assertEqual((yield self.closed(first[1])), SESSION_ENDED)

    @defer.inlineCallbacks
    def test_commandLine(self):
        """
        A password set from the command line (the database alone) closes
        the sockets at the next look.
        """
        first = yield self.browser()
        yield self.accounts.setPassword("alice", "other-pass-9", actor="cli")
        self.clock.advance(POLL_SECONDS / 2)
        self.assertFalse(first[1].closed.called)
        self.clock.advance(POLL_SECONDS / 2)
        yield self.assertEnded(first)

    @defer.inlineCallbacks
    def test_ban(self):
        """
        A ban ends the sessions, and closes the sockets at once.
        """
        first = yield self.browser()
        yield self.names.moderation.ban("alice", 60, "spam", ADMIN)
        yield self.closed(first[1])
        self.assertFalse((yield self.loggedIn(first[0])))
        self.clock.advance(61)
        self.assertFalse((yield self.loggedIn(first[0])))

    @defer.inlineCallbacks
    def test_lastSeen(self):
        """
        A web login and the pages a session reads set the account's last
        seen (in batches: at most once a minute per session), which
        C{hub.accounts list} shows.
        """
        browser, _ = yield self.browser()
        found, _ = yield self.accounts.list()
        [alice] = [a for a in found if a.name == "alice"]
        self.assertEqual(alice.lastSeen, self.clock.seconds())
        login = self.clock.seconds()
        self.clock.advance(90)
        yield browser.get("/account")
        found, _ = yield self.accounts.list()
        self.assertEqual([a.lastSeen for a in found if a.name == "alice"],
                         [login])
        yield self.sessions.flush()
        found, _ = yield self.accounts.list()
        self.assertEqual([a.lastSeen for a in found if a.name == "alice"],
                         [login + 90])

