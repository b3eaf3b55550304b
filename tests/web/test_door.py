"""
The web face's door (L{hub.web.door}) behind a trusted proxy: every
request's client is the one the proxy names, a banned address is refused
403 before any resource runs (pages, the API, event streams, the
WebSocket upgrade), the streams and sockets a new ban covers are closed
at once, and the health checks answer only C{--health-from}; over real
SQLite, a real HTTP port, autobahn's client.  The test's loopback client
plays the proxy (C{--trusted-proxies 127.0.0.1}).
"""

from twisted.internet import defer, reactor
from twisted.trial.unittest import TestCase

from hub.accounts.store import Actor
from hub.web import play as playing
from hub.web.door import BANNED_CLOSE, WebDoor
from hub.web.proxies import ClientResolver, Networks

from hub.web.auth import LOGIN_ADDRESS_BURST

from tests.web.accountsupport import (
    PASSWORD, AccountsWebMixin, Browser, csrfOf)
from tests.web.support import TIMEOUT
from tests.web.wsclient import PlayClient

BANNED = "192.0.2.5"
OTHER = "198.51.100.20"
ROOT = Actor("root", "admin", "203.0.113.1")


def forwarded(host):
    return {b"x-forwarded-for": host.encode("ascii")}


class DoorMixin(AccountsWebMixin):
    """
    A web face with accounts and browser play behind a trusted proxy on
    loopback.
    """

    play = True
    trusted = "127.0.0.1"

    def door(self):
        return WebDoor(ClientResolver(Networks.fromOption(self.trusted)),
                       Networks.fromOption("127.0.0.0/8,10.0.0.0/8"),
                       self.names)

    @defer.inlineCallbacks
    def setUp(self):
        yield self.setUpWeb()
        yield self.addAccount("alice")

    def get(self, path, host):
        return Browser(self.web).request(b"GET", path,
                                         headers=forwarded(host))

    def socket(self, host, cookies=None):
        headers = {"X-Forwarded-For": host}
        if cookies:
            headers["Cookie"] = "; ".join(
                "{}={}".format(k, v) for k, v in cookies.items())
        client = PlayClient(reactor, self.web.url("/ws").replace(
            "http://", "ws://"), headers=headers)
        self.addCleanup(client.close)
        return client

    @defer.inlineCallbacks
    def hello(self, client, name="bob"):
        yield client.opened()
        client.send({"type": "hello", "version": playing.PROTOCOL_VERSION,
                     "name": name})
        answer = yield client.waitFor(
            lambda m: m["type"] in ("welcome", "error"))
        return answer

    def stream(self, host):
        return self.web.stream("/api/hub/events", self,
                               b"X-Forwarded-For: " + host.encode() +
                               b"\r\n")



class BannedRequestTests(DoorMixin, TestCase):
    """
    A banned address is refused at the door, whatever it asks for.
    """

    @defer.inlineCallbacks
    def test_everyDoor(self):
        """
        Pages, the API, an event stream, the accounts' pages and the
        WebSocket upgrade itself: 403 for the banned client, while another
        client behind the same proxy is served.
        """
        yield self.names.moderation.ban("192.0.2.0/24", 3600, "flood", ROOT)
        for path in ("/", "/api/hub", "/api/hub/events", "/login",
                     "/static/play.js", "/ws", "/nothing"):
            code, _, text = yield self.get(path, BANNED)
            self.assertEqual(code, 403, path)
            self.assertIn("banned", text)
        for path in ("/", "/api/hub", "/login"):
            code, _, _ = yield self.get(path, OTHER)
            self.assertEqual(code, 200, path)
        refused = self.socket(BANNED)
        yield self.assertFailure(refused.opened(), Exception)
        welcome = yield self.hello(self.socket(OTHER))
        self.assertEqual(welcome["type"], "welcome")
        self.assertEqual(self.web.site.door.refusedBanned, 8)

    @defer.inlineCallbacks
    def test_refusalInTheLanguage(self):
        """
        The 403 of a banned address, and of a health check not open to
        it, are said in the request's language (C{Accept-Language}, the
        C{lang} argument), none of the catalogs' English left in
        Chinese.
        """
        from tests.web.test_i18n_pages import englishMessages
        yield self.names.moderation.ban("192.0.2.0/24", 3600, "flood", ROOT)
        said = {}
        for path, language, headers in [
                ("/", "zh", {b"accept-language": b"zh-CN,zh;q=0.9"}),
                ("/?lang=zh", "zh", {}),
                ("/", "en", {b"accept-language": b"en"}),
                ("/healthz", "zh", {b"accept-language": b"zh"})]:
            headers.update(forwarded(BANNED))
            code, answer, text = yield Browser(self.web).request(
                b"GET", path, headers=headers)
            self.assertEqual(code, 403, path)
            self.assertEqual(answer.getRawHeaders(b"content-language"),
                             [language.encode()])
            said[path, language] = text
        self.assertEqual(said["/", "zh"], "禁止访问：此地址已被封禁。\n")
        self.assertEqual(said["/?lang=zh", "zh"], said["/", "zh"])
        self.assertEqual(said["/", "en"],
                         "Forbidden: this address is banned.\n")
        self.assertIn("--health-from", said["/healthz", "zh"])
        for key in (("/", "zh"), ("/healthz", "zh")):
            # The option's name is no English to translate.
            text = said[key].replace("--health-from", "")
            self.assertEqual(
                [m for m, pattern in englishMessages().items()
                 if pattern.search(text)], [], key)

    @defer.inlineCallbacks
    def test_lockoutPerClient(self):
        """
        Logins are limited per client, not per proxy: an attacker past its
        address's limit of failed logins is locked out, and a player
        behind the same proxy logs in.
        """
        attacker = Browser(self.web)
        for n in range(LOGIN_ADDRESS_BURST + 5):
            yield self.login(attacker, BANNED, "x%d" % (n,), "guess")
        self.assertGreater(self.auth.logins["locked"], 0)
        code = yield self.login(Browser(self.web), OTHER, "alice", PASSWORD)
        self.assertEqual(code, 303)
        code = yield self.login(attacker, BANNED, "alice", PASSWORD)
        self.assertEqual(code, 403)

    @defer.inlineCallbacks
    def login(self, browser, host, name, password):
        """
        Log C{browser} in from C{host}: the answer's status.
        """
        _, _, page = yield browser.request(b"GET", "/login",
                                           headers=forwarded(host))
        code, _, _ = yield browser.request(b"POST", "/login", {
            "name": name, "password": password, "csrf": csrfOf(page)},
            headers=forwarded(host))
        return code


class AddressesTests(DoorMixin, TestCase):
    """
    The address the moderation and the logs see is the client's.
    """

    @defer.inlineCallbacks
    def test_liveConnection(self):
        """
        A browser player behind the proxy is listed on C{/admin} (and the
        API) with its own address.
        """
        client = self.socket(OTHER)
        yield self.hello(client, "carol")
        client.send({"type": "create", "kind": "gomoku", "room": "r1"})
        yield client.waitFor(lambda m: m["type"] == "room" and m["room"])
        [connection] = self.names.moderation.connections()
        self.assertEqual((connection.name, connection.address),
                         ("carol", OTHER))


class MetricsPortTests(TestCase):
    """
    The metrics port's health checks are behind the same door.
    """

    @defer.inlineCallbacks
    def test_healthFrom(self):
        """
        Only C{--health-from} gets the metrics port's C{/healthz}; its
        C{/metrics} is for everyone who reaches the port.
        """
        from hub.service import Hub
        from hub.web.site import metricsSite
        from tests.web.accountsupport import Browser as Client
        hub = Hub(reactor)
        site, service = metricsSite(hub, door=WebDoor(
            ClientResolver(Networks.fromOption("127.0.0.1")),
            Networks.fromOption("10.0.0.0/8")))
        port = reactor.listenTCP(0, site, interface="127.0.0.1")
        self.addCleanup(port.stopListening)

        class Where:
            def url(self, path):
                return "http://127.0.0.1:%d%s" % (port.getHost().port,
                                                  path)
        client = Client(Where())
        for host, code in (("10.0.0.1", 200), ("192.0.2.1", 403)):
            answer, _, _ = yield client.request(b"GET", "/healthz",
                                                headers=forwarded(host))
            self.assertEqual(answer, code, host)
        answer, _, _ = yield client.request(b"GET", "/metrics",
                                            headers=forwarded("192.0.2.1"))
        self.assertEqual(answer, 200)


class UntrustedTests(DoorMixin, TestCase):
    """
    Without a trusted proxy, the headers are a client's own words.
    """

    trusted = "none"

    @defer.inlineCallbacks
    def test_headersIgnored(self):
        """
        A client that names a banned address in X-Forwarded-For is still
        itself (served); a banned peer cannot name another to get in.
        """
        yield self.names.moderation.ban(BANNED, 3600, "flood", ROOT)
        code, _, _ = yield self.get("/api/hub", BANNED)
        self.assertEqual(code, 200)
        yield self.names.moderation.ban("127.0.0.0/8", 3600, "x", ROOT)
        code, _, _ = yield self.get("/api/hub", OTHER)
        self.assertEqual(code, 403)


class HealthTests(DoorMixin, TestCase):
    """
    C{/healthz} and C{/readyz} answer C{--health-from} only, banned or
    not.
    """

    def setUpWeb(self, registration=None):
        d = AccountsWebMixin.setUpWeb(self, registration)

        def health(_):
            from hub.health import putHealth
            putHealth(self.web.site.resource, self.hub.health)
        return d.addCallback(health)

    @defer.inlineCallbacks
    def test_healthFrom(self):
        """
        A client of the private ranges asks, even banned; a public one
        gets 403.
        """
        yield self.names.moderation.ban("10.0.0.0/8", 3600, "x", ROOT)
        for path in ("/healthz", "/readyz"):
            code, _, _ = yield self.get(path, "10.1.2.3")
            self.assertEqual(code, 200, path)
            code, _, text = yield self.get(path, "8.8.8.8")
            self.assertEqual(code, 403, path)
            self.assertIn("--health-from", text)
        code, _, _ = yield self.get("/api/hub", "10.1.2.3")
        self.assertEqual(code, 403)


class BanClosesTests(DoorMixin, TestCase):
    """
    A new ban closes the open streams and sockets it covers.
    """

    @defer.inlineCallbacks
    def openAll(self):
        """
        An event stream and a WebSocket (said hello) from the address to
        ban and from another.
        """
        opened = {}
        for host in (BANNED, OTHER):
            stream = yield self.stream(host)
            yield stream.waitFor("hub")
            socket = self.socket(host)
            yield self.hello(socket, "g" + host.split(".")[-1])
            opened[host] = (stream, socket)
        return opened

    @defer.inlineCallbacks
    def assertBannedClosed(self, opened):
        stream, socket = opened[BANNED]
        yield stream.closed.addTimeout(TIMEOUT, reactor)
        yield socket.closed.addTimeout(TIMEOUT, reactor)
        self.assertEqual(socket.closeCode, BANNED_CLOSE)
        stream, socket = opened[OTHER]
        self.assertFalse(stream.closed.called)
        self.assertFalse(socket.closed.called)
        self.assertEqual(self.web.site.door.closedByBan, 2)

    @defer.inlineCallbacks
    def test_moderationBan(self):
        """
        A ban from C{/admin} or the API closes them at once.
        """
        opened = yield self.openAll()
        yield self.names.moderation.ban(BANNED + "/32", 60, "flood", ROOT)
        yield self.assertBannedClosed(opened)

    @defer.inlineCallbacks
    def test_commandLineBan(self):
        """
        A ban from the command line (another process: the database only)
        closes them when the name service next reads the bans (every
        L{hub.accounts.check.REFRESH_SECONDS}, 2 s).
        """
        opened = yield self.openAll()
        yield self.accounts.ban(BANNED, 60, "flood", actor="cli")
        stream, socket = opened[BANNED]
        self.assertFalse(stream.closed.called)
        yield self.names.refresh()
        yield self.assertBannedClosed(opened)

    @defer.inlineCallbacks
    def test_accountBan(self):
        """
        An account's ban closes its logged-in sockets (and only those).
        """
        browser = Browser(self.web)
        yield browser.login("alice")
        mine = self.socket(OTHER, browser.cookies)
        welcome = yield self.hello(mine)
        self.assertEqual(welcome["name"], "alice")
        guest = self.socket(OTHER)
        yield self.hello(guest, "bob")
        yield self.names.moderation.ban("alice", 60, "spam", ROOT)
        yield mine.closed.addTimeout(TIMEOUT, reactor)
        self.assertFalse(guest.closed.called)
