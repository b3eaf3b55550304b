"""
Browser play with the login of the web face's accounts: the WebSocket's
opening request carries the login cookie (L{hub.web.ws}), read through
L{hub.web.auth.WebAuth.cookieVisitor}; over real SQLite, a real HTTP
port and autobahn's client.
"""

from twisted.internet import defer, reactor
from twisted.trial.unittest import SynchronousTestCase, TestCase

from hub.web import play as playing
from hub.web.play import codec
from hub.web.auth import headerCookie

from tests.web.accountsupport import AccountsWebMixin, Browser
from tests.web.wsclient import PlayClient


class HeaderCookieTests(SynchronousTestCase):
    """
    L{headerCookie} reads a C{Cookie} header as Twisted's requests do.
    """

    def test_read(self):
        """
        The value of the named cookie among others; the last of a name
        wins; none, empty or absent is None.
        """
        self.assertEqual(headerCookie("a=1; gamehub_session=xyz; b=2",
                                      "gamehub_session"), "xyz")
        self.assertEqual(headerCookie("gamehub_session=x;gamehub_session=y",
                                      "gamehub_session"), "y")
        self.assertEqual(headerCookie("k=v=w", "k"), "v=w")
        for header in (None, "", "gamehub_session=", "other=1",
                       "gamehub_session", "xgamehub_session=1"):
            self.assertIsNone(headerCookie(header, "gamehub_session"),
                              header)


class LoginPlayTests(AccountsWebMixin, TestCase):
    """
    C{/ws} with and without a login cookie, under C{--names accounts}.
    """

    play = True

    @defer.inlineCallbacks
    def setUp(self):
        yield self.setUpWeb()
        yield self.addAccount("Alice")
        yield self.names.refresh()

    def client(self, cookies=None):
        headers = None
        if cookies:
            headers = {"Cookie": "; ".join(
                "{}={}".format(k, v) for k, v in cookies.items())}
        client = PlayClient(reactor, self.web.url("/ws").replace(
            "http://", "ws://"), headers=headers)
        self.addCleanup(client.close)
        return client

    @defer.inlineCallbacks
    def hello(self, client, name):
        yield client.opened()
        message = {"type": "hello", "version": playing.PROTOCOL_VERSION}
        if name is not None:
            message["name"] = name
        client.send(message)
        answer = yield client.waitFor(
            lambda m: m["type"] in ("welcome", "error"))
        return answer

    @defer.inlineCallbacks
    def test_loggedInPlaysAsTheAccount(self):
        """
        A browser logged in at /login opens /ws with its cookie: the
        welcome names the account, not a guest, and its room's session is
        the account's.
        """
        browser = Browser(self.web)
        yield browser.login("alice")
        client = self.client(browser.cookies)
        welcome = yield self.hello(client, None)
        self.assertEqual((welcome["type"], welcome["name"],
                          welcome["guest"]), ("welcome", "Alice", False))
        client.send({"type": "create", "kind": "checkers", "room": "c",
                     "players": 2})
        yield client.waitFor(lambda m: m["type"] == "room" and m["room"])
        [session] = [s for s in self.hub.sessions if s.name == "Alice"]
        self.assertEqual((session.guest, session.account),
                         (False, "alice"))

    @defer.inlineCallbacks
    def test_guestWithTheAccountsName(self):
        """
        Without the cookie, the account's name is refused (name-taken);
        another name is a guest's.
        """
        refused = yield self.hello(self.client(), "ALICE")
        self.assertEqual((refused["type"], refused["code"]),
                         ("error", playing.NAME_TAKEN))
        welcome = yield self.hello(self.client(), "bob")
        self.assertEqual((welcome["name"], welcome["guest"]), ("bob", True))

    @defer.inlineCallbacks
    def test_unknownCookieIsAGuest(self):
        """
        A cookie that is no session's (ended, forged) is a guest's.
        """
        client = self.client({"gamehub_session": "forged"})
        welcome = yield self.hello(client, "bob")
        self.assertEqual((welcome["name"], welcome["guest"]), ("bob", True))

    @defer.inlineCallbacks
    def test_bannedAccountRefused(self):
        """
        The cookie of an account banned since its login is refused at
        hello (banned), whatever name it gives.
        """
        browser = Browser(self.web)
        yield browser.login("alice")
        yield self.accounts.ban("alice", 3600, "spam", actor="root")
        yield self.names.refresh()
        answer = yield self.hello(self.client(browser.cookies), "bob")
        self.assertEqual((answer["type"], answer["code"]),
                         ("error", playing.BANNED))


class NoCommandTests(AccountsWebMixin, TestCase):
    """
    C{/ws} takes no command line, path or environment: engines are the
    operator's (L{hub.tournaments.catalog}).
    """

    play = True

    @defer.inlineCallbacks
    def setUp(self):
        yield self.setUpWeb()
        yield self.addAccount("root", "admin")
        yield self.names.refresh()

    @defer.inlineCallbacks
    def test_commandLineRefused(self):
        """
        An admin, logged in, sends every message type of the protocol,
        and the types an engine would need, each carrying a command
        line, a path or an environment: each is refused (C{bad-message}
        or C{unknown-type}), and the hub runs no program.
        """
        browser = Browser(self.web)
        code, _, _ = yield browser.login("root")
        self.assertEqual(code, 303)
        client = PlayClient(reactor, self.web.url("/ws").replace(
            "http://", "ws://"), headers={"Cookie": "; ".join(
                "{}={}".format(k, v) for k, v in browser.cookies.items())})
        self.addCleanup(client.close)
        yield client.opened()
        client.send({"type": "hello", "version": playing.PROTOCOL_VERSION})
        yield client.waitType("welcome")
        spawned = []
        self.patch(reactor, "spawnProcess",
                   lambda *a, **k: spawned.append(a))
        types = sorted(codec.REQUESTS) + [
            "engine", "event-engine", "register", "run", "exec"]
        carried = [{"command": "sh -c 'id > /tmp/owned'"},
                   {"argv": ["/bin/sh", "-c", "id"]},
                   {"path": "/bin/sh"}, {"env": {"LD_PRELOAD": "/x.so"}},
                   {"environment": "PYTHONPATH=/tmp"},
                   {"engine": "robot", "folder": "/"}]
        for kind in types:
            for extra in carried:
                client.send(dict(extra, type=kind, kind="gomoku"))
                answer = yield client.waitFor(
                    lambda m: m["type"] == "error", seen=False)
                where = (kind, extra)
                self.assertEqual(answer["request"], kind, where)
                self.assertIn(answer["code"],
                              (playing.BAD_MESSAGE, playing.UNKNOWN_TYPE),
                              where)
        # Nothing done: no room joined or made, no hint given.
        self.assertFalse([m for m in client.messages
                          if m["type"] == "hint" or
                          (m["type"] == "room" and m.get("room"))])
        self.assertEqual(spawned, [])
