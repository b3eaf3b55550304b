"""
The web port's limits (L{hub.limits.WebLimits}): its connections count
toward the hub's, with their own cap per address; event streams per
address; a reserve of file descriptors for the game ports; requests per
address; and what a name costs the lobby's lists and document.
"""

import resource

from twisted.internet import defer, protocol, reactor
from twisted.internet.endpoints import TCP4ClientEndpoint
from twisted.internet.task import Clock
from twisted.internet.address import IPv4Address
from twisted.internet.error import ConnectionDone
from twisted.internet.testing import StringTransport
from twisted.logger import Logger, LogLevel
from twisted.python.failure import Failure
from twisted.trial.unittest import SynchronousTestCase, TestCase
from twisted.web.resource import Resource

from hub import limits
from hub.clock import TrackedClock
from hub.limits import (
    DESCRIPTOR_OVERHEAD, ConnectionGate, DescriptorBudget, FaceGate, Limits,
    WebLimits)
from hub.service import Hub
from hub.web import now, pages, site
from hub.web.now import ELLIPSIS, MAX_LISTED_NAME, LobbyFeed, listedName
from hub.web.live import HEARS, Spectating
from tests.web.support import TIMEOUT, WebHub, afterCalls, openRoom


def limitedCount(limit):
    """
    The samples of C{gamehub_limited_connections_total} for C{limit}.
    """
    return limits.LIMITED_CONNECTIONS.labels(limit)._value.get()


def faceGate(clock, webLimits, hubLimits=Limits(), budget=None):
    """
    A L{FaceGate} of C{webLimits} over a hub gate of C{hubLimits}.
    """
    hubGate = ConnectionGate(hubLimits, clock)
    return FaceGate(webLimits, clock, hubGate,
                    budget or DescriptorBudget(0)), hubGate


class FaceGateTests(SynchronousTestCase):
    """
    L{FaceGate} counts the web port's connections, streams and requests.
    """

    def test_connectionsPerAddress(self):
        """
        An address has at most C{maxConnectionsPerIP} web connections; the
        others are not affected, and a released place is free again.
        """
        gate, hubGate = faceGate(Clock(), WebLimits(maxConnectionsPerIP=2))
        self.assertIsNone(gate.admit("10.0.0.1"))
        self.assertIsNone(gate.admit("10.0.0.1"))
        self.assertEqual(gate.admit("10.0.0.1"),
                         limits.WEB_MAX_CONNECTIONS_PER_IP)
        self.assertIsNone(gate.admit("10.0.0.2"))
        gate.release("10.0.0.1")
        self.assertIsNone(gate.admit("10.0.0.1"))
        self.assertEqual((gate.connections, hubGate.connections), (3, 3))

    def test_countsTowardMaxConnections(self):
        """
        Web connections count toward the hub's C{maxConnections}, not
        toward the game ports' cap per address.
        """
        gate, hubGate = faceGate(
            Clock(), WebLimits(),
            Limits(maxConnections=3, maxConnectionsPerIP=1))
        self.assertIsNone(hubGate.admit("10.0.0.1"))
        self.assertIsNone(gate.admit("10.0.0.1"))
        self.assertIsNone(gate.admit("10.0.0.1"))
        self.assertEqual(gate.admit("10.0.0.2"), limits.MAX_CONNECTIONS)
        self.assertEqual(hubGate.admit("10.0.0.3"), limits.MAX_CONNECTIONS)
        gate.release("10.0.0.1")
        self.assertEqual(hubGate.connections, 2)
        self.assertIsNone(hubGate.admit("10.0.0.3"))

    def test_descriptorReserve(self):
        """
        The web port admits nothing once the hub's connections and the
        overhead reach the soft limit less the reserve; the game ports
        still do.
        """
        budget = DescriptorBudget(10, softLimit=100, overhead=20)
        gate, hubGate = faceGate(Clock(), WebLimits(), budget=budget)
        for n in range(60):
            hubGate.admit("10.0.0.%d" % (n,))
        for n in range(10):
            self.assertIsNone(gate.admit("10.0.1.1"))
        self.assertEqual(gate.admit("10.0.1.1"), limits.WEB_FD_RESERVE)
        self.assertIsNone(hubGate.admit("10.0.0.99"))
        gate.release("10.0.1.1")
        hubGate.release("10.0.0.99")
        self.assertIsNone(gate.admit("10.0.1.2"))

    def test_budgetReadsTheSoftLimit(self):
        """
        A budget reads the process's soft C{RLIMIT_NOFILE}; no reserve, or
        no limit, allows everything.
        """
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        budget = DescriptorBudget(5)
        self.assertEqual(budget.softLimit,
                         None if soft == resource.RLIM_INFINITY else soft)
        self.assertEqual(DescriptorBudget(
            100, softLimit=1024).connections(), 1024 - 100 - 64)
        self.assertEqual(DescriptorBudget(
            100, softLimit=128).connections(), 0)
        self.assertIsNone(DescriptorBudget(0, softLimit=10).connections())
        self.assertTrue(DescriptorBudget(0, softLimit=10).allows(10 ** 6))
        self.assertTrue(DescriptorBudget(
            5, softLimit=resource.RLIM_INFINITY).allows(10 ** 6))

    def test_streamsPerAddress(self):
        """
        An address has at most C{maxStreamsPerIP} streams open; a refusal
        is counted.
        """
        gate, _ = faceGate(Clock(), WebLimits(maxStreamsPerIP=2))
        before = limitedCount(limits.WEB_MAX_STREAMS_PER_IP)
        self.assertTrue(gate.openStream("10.0.0.1"))
        self.assertTrue(gate.openStream("10.0.0.1"))
        self.assertFalse(gate.openStream("10.0.0.1"))
        self.assertTrue(gate.openStream("10.0.0.2"))
        gate.closeStream("10.0.0.1")
        self.assertTrue(gate.openStream("10.0.0.1"))
        self.assertEqual(limitedCount(limits.WEB_MAX_STREAMS_PER_IP),
                         before + 1)

    def test_requestRate(self):
        """
        An address gets C{requestBurst} requests at once, then
        C{requestRate} a second; past its overdraft it is told so, and
        its new connections are refused until the debt is back within it.
        """
        clock = Clock()
        gate, _ = faceGate(clock, WebLimits(
            requestRate=2, requestBurst=3, requestOverdraft=2))
        before = limits.THROTTLED_REQUESTS._value.get()
        for _ in range(3):
            self.assertIsNone(gate.request("10.0.0.1"))
        self.assertEqual(gate.request("10.0.0.1"), (0.5, False))
        self.assertIsNone(gate.request("10.0.0.2"))
        self.assertEqual(gate.request("10.0.0.1"), (1.0, False))
        self.assertEqual(gate.request("10.0.0.1"), (1.5, True))
        self.assertTrue(gate.refuses("10.0.0.1"))
        self.assertFalse(gate.refuses("10.0.0.2"))
        self.assertEqual(limits.THROTTLED_REQUESTS._value.get(), before + 3)
        clock.advance(0.5)
        self.assertFalse(gate.refuses("10.0.0.1"))
        clock.advance(1.5)
        self.assertIsNone(gate.request("10.0.0.1"))

    def test_charged(self):
        """
        A request charged more tokens (a large document) makes the
        address's next requests wait, and past the overdraft refuses it.
        """
        clock = Clock()
        gate, _ = faceGate(clock, WebLimits(requestRate=2, requestBurst=5,
                                            requestOverdraft=10))
        self.assertIsNone(gate.request("10.0.0.1"))
        gate.charge("10.0.0.1", 4)
        self.assertEqual(gate.request("10.0.0.1"), (0.5, False))
        self.assertIsNone(gate.request("10.0.0.2"))
        gate.charge("10.0.0.1", 10)
        self.assertTrue(gate.refuses("10.0.0.1"))
        gate.charge(None, 100)
        gate.charge("10.0.0.2", 0)
        self.assertFalse(gate.refuses("10.0.0.2"))

    def test_hubDebtRefused(self):
        """
        An address in flooding debt at the hub's gate (a game port or
        C{/ws}) is refused by the web port too, until the debt is paid
        back in full.
        """
        clock = Clock()
        gate, hubGate = faceGate(clock, WebLimits(), Limits(
            requestRate=10, requestBurst=1, requestOverdraft=5))
        bucket = hubGate.bucketFor("10.0.0.1")
        bucket.overdraw()
        hubGate.flooded("10.0.0.1", bucket)
        self.assertTrue(gate.refuses("10.0.0.1"))
        self.assertFalse(gate.refuses("10.0.0.2"))
        # Past the overdraft no longer, but still owing: refused.
        clock.advance(0.2)
        self.assertFalse(hubGate.refuses("10.0.0.1"))
        self.assertTrue(gate.refuses("10.0.0.1"))
        clock.advance(0.5)
        self.assertFalse(gate.refuses("10.0.0.1"))

    def test_bucketsBounded(self):
        """
        At most L{limits.MAX_DEBTORS} addresses' buckets are remembered.
        """
        self.patch(limits, "MAX_DEBTORS", 3)
        gate, _ = faceGate(Clock(), WebLimits(requestRate=1))
        for n in range(10):
            gate.request("10.0.0.%d" % (n,))
        self.assertEqual(len(gate._debts), 3)


class StartTests(SynchronousTestCase):
    """
    The web site warns at start when its descriptor budget is small.
    """

    def test_fewDescriptors(self):
        """
        A reserve leaving the web port fewer than
        L{site.FEW_CONNECTIONS} connections is logged as a warning; a
        larger budget is not.
        """
        events = []
        self.patch(site, "log", Logger(observer=events.append))
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        if soft == resource.RLIM_INFINITY:
            soft = 10 ** 6
        site.webSite(Hub(Clock()), limits=WebLimits(
            descriptorReserve=soft - DESCRIPTOR_OVERHEAD - 10))
        [warning] = events
        self.assertEqual((warning["log_level"], warning["most"]),
                         (LogLevel.warn, 10))
        site.webSite(Hub(Clock()), limits=WebLimits(descriptorReserve=1))
        small = soft - 1 - DESCRIPTOR_OVERHEAD < site.FEW_CONNECTIONS
        self.assertEqual(len(events), 2 if small else 1)


class IdleTests(SynchronousTestCase):
    """
    A web connection idle for L{site.IDLE_SECONDS} is closed, and frees
    its place.
    """

    def test_idleClosed(self):
        """
        A connection that sent half a request's headers is closed after
        the idle time, and its address may connect again.
        """
        clock = Clock()
        gate, hubGate = faceGate(clock, WebLimits(maxConnectionsPerIP=1))
        hubSite = site.HubSite(Resource(), gate, reactor=clock)
        address = IPv4Address("TCP", "10.0.0.1", 4321)
        channel = hubSite.buildProtocol(address)
        transport = StringTransport(peerAddress=address)
        channel.makeConnection(transport)
        channel.dataReceived(b"GET / HTTP/1.1\r\n")
        self.assertIsNone(hubSite.buildProtocol(address))
        clock.advance(site.IDLE_SECONDS - 1)
        self.assertFalse(transport.disconnecting)
        clock.advance(1)
        self.assertTrue(transport.disconnecting)
        channel.connectionLost(Failure(ConnectionDone()))
        self.assertEqual(hubGate.connections, 0)
        self.assertIsNotNone(hubSite.buildProtocol(address))


class MetricsPortTests(SynchronousTestCase):
    """
    C{--metrics-port} holds to the web port's limits, with a gate of its
    own over the hub's: no port of the hub is unlimited.
    """

    def connect(self, metrics, host="10.0.0.1"):
        address = IPv4Address("TCP", host, 4321)
        channel = metrics.buildProtocol(address)
        if channel is None:
            return None, None
        transport = StringTransport(peerAddress=address)
        channel.makeConnection(transport)
        return channel, transport

    def test_connections(self):
        """
        Past C{maxConnectionsPerIP} a connection from the same address is
        refused and counted; the metrics port's connections count toward
        the hub's.
        """
        hub = Hub(Clock())
        metrics, _ = site.metricsSite(
            hub, limits=WebLimits(maxConnectionsPerIP=1))
        before = limitedCount(limits.WEB_MAX_CONNECTIONS_PER_IP)
        channel, _ = self.connect(metrics)
        self.assertIsNotNone(channel)
        self.assertEqual(hub.sessions.gate.connections, 1)
        self.assertEqual(self.connect(metrics), (None, None))
        self.assertEqual(limitedCount(limits.WEB_MAX_CONNECTIONS_PER_IP),
                         before + 1)
        self.assertIsNotNone(self.connect(metrics, "10.0.0.2")[0])

    def test_requestRate(self):
        """
        A scrape over the address's rate is answered 429 with a
        Retry-After.
        """
        metrics, _ = site.metricsSite(Hub(Clock()), limits=WebLimits(
            requestRate=0.01, requestBurst=1, requestOverdraft=5))
        channel, transport = self.connect(metrics)
        scrape = b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
        channel.dataReceived(scrape)
        self.assertTrue(transport.value().startswith(b"HTTP/1.1 200 "))
        self.assertIn(b"gamehub_sessions", transport.value())
        transport.clear()
        channel.dataReceived(scrape)
        answer = transport.value()
        self.assertTrue(answer.startswith(b"HTTP/1.1 429 "))
        self.assertIn(b"Retry-After: 100\r\n", answer)

    def test_idleClosed(self):
        """
        An idle metrics connection is closed after L{site.IDLE_SECONDS} of
        the hub's clock, and frees its place.
        """
        clock = Clock()
        hub = Hub(clock)
        metrics, _ = site.metricsSite(hub)
        channel, transport = self.connect(metrics)
        clock.advance(site.IDLE_SECONDS)
        self.assertTrue(transport.disconnecting)
        channel.connectionLost(Failure(ConnectionDone()))
        self.assertEqual(hub.sessions.gate.connections, 0)

    def test_errorsSummarised(self):
        """
        A failing resource on the metrics port is answered 500 and logged
        through the site's summarised L{WebErrors}, not a traceback each.
        """
        hub = Hub(Clock())
        metrics, service = site.metricsSite(hub)
        self.assertEqual(service.name, "metrics")
        self.assertIs(service.errors, metrics.errors)

        def broken(request):
            raise RuntimeError("scrape broke")
        metrics.resource.children[b"metrics"].render_GET = broken
        channel, transport = self.connect(metrics)
        for _ in range(3):
            channel.dataReceived(
                b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        self.assertEqual(transport.value().count(b"HTTP/1.1 500 "), 3)
        self.assertEqual(len(self.flushLoggedErrors(RuntimeError)), 1)


class StopTests(SynchronousTestCase):
    """
    A site that stops listening (the hub stops, and cancels its clock's
    timers) closes its connections rather than leave them without an
    idle timeout.
    """

    def test_closedAtStop(self):
        """
        The open connections are closed when the site's last port stops;
        those gone before are not touched.
        """
        clock = Clock()
        gate, hubGate = faceGate(clock, WebLimits())
        hubSite = site.HubSite(Resource(), gate, reactor=clock)
        hubSite.doStart()
        transports = []
        for n in range(3):
            address = IPv4Address("TCP", "10.0.0.1", 4321 + n)
            channel = hubSite.buildProtocol(address)
            transport = StringTransport(peerAddress=address)
            channel.makeConnection(transport)
            transports.append((channel, transport))
        gone, goneTransport = transports.pop()
        gone.connectionLost(Failure(ConnectionDone()))
        self.assertEqual(len(hubSite.channels), 2)
        hubSite.doStop()
        self.assertEqual([t.disconnecting for _, t in transports],
                         [True, True])
        self.assertFalse(goneTransport.disconnecting)


class StoppedClockTests(SynchronousTestCase):
    """
    The hub's clock cancels every timer when the hub stops, a web
    connection's forced close among them.
    """

    def test_lostAfterHubStopped(self):
        """
        A connection closed for idling, whose forced close (Twisted's
        C{abortTimeout}) the stopping hub cancelled, is lost without an
        error, and frees its place.
        """
        clock = TrackedClock(Clock())
        gate, hubGate = faceGate(clock, WebLimits())
        hubSite = site.HubSite(Resource(), gate, reactor=clock)
        address = IPv4Address("TCP", "10.0.0.1", 4321)
        channel = hubSite.buildProtocol(address)
        transport = StringTransport(peerAddress=address)
        channel.makeConnection(transport)
        clock.clock.advance(site.IDLE_SECONDS)
        self.assertTrue(transport.disconnecting)
        self.assertEqual(len(clock.getDelayedCalls()), 1)
        clock.cancelAll()
        channel.connectionLost(Failure(ConnectionDone()))
        self.assertEqual(hubGate.connections, 0)


class RawClient(protocol.Protocol):
    """
    A connection that sends C{request} and keeps what it gets.
    """

    def __init__(self, request):
        self.request = request
        self.received = b""
        self.closed = defer.Deferred()

    def connectionMade(self):
        self.transport.write(self.request)

    def dataReceived(self, data):
        self.received += data

    def connectionLost(self, reason):
        self.closed.callback(self.received)


def connectRaw(web, testCase, request=b""):
    """
    A L{RawClient} connected to C{web}'s port, closed at cleanup.
    """
    endpoint = TCP4ClientEndpoint(reactor, "127.0.0.1",
                                  web.port.getHost().port)
    d = endpoint.connect(protocol.Factory.forProtocol(
        lambda: RawClient(request)))

    def connected(client):
        testCase.addCleanup(client.transport.abortConnection)
        return client
    return d.addCallback(connected)


class SiteLimitTests(TestCase):
    """
    The web site over real loopback connections holds to its limits.
    """

    @defer.inlineCallbacks
    def test_connectionsPerAddress(self):
        """
        Past C{maxConnectionsPerIP}, a connection from the same address is
        closed before anything is read, and counted; once one goes, a new
        one is served.
        """
        web = WebHub(self, limits=WebLimits(maxConnectionsPerIP=3))
        held = []
        for _ in range(3):
            held.append((yield connectRaw(web, self)))
        before = limitedCount(limits.WEB_MAX_CONNECTIONS_PER_IP)
        refused = yield connectRaw(web, self, b"GET /api/hub HTTP/1.0\r\n\r\n")
        received = yield refused.closed.addTimeout(TIMEOUT, reactor)
        self.assertEqual(received, b"")
        self.assertEqual(limitedCount(limits.WEB_MAX_CONNECTIONS_PER_IP),
                         before + 1)
        self.assertEqual(web.hub.sessions.gate.connections, 3)
        released = afterCalls(self, web.site.gate, "release")
        held[0].transport.loseConnection()
        yield released
        self.assertEqual(web.hub.sessions.gate.connections, 2)
        code, _, _ = yield web.get("/api/hub")
        self.assertEqual(code, 200)

    @defer.inlineCallbacks
    def test_streamsPerAddress(self):
        """
        Past C{maxStreamsPerIP}, a stream request is answered 429; once a
        stream ends, a new one opens.
        """
        web = WebHub(self, limits=WebLimits(maxStreamsPerIP=2))
        first = yield web.stream("/api/hub/events", self)
        yield first.waitFor("hub")
        second = yield web.stream("/api/hub/events", self)
        yield second.waitFor("hub")
        code, headers, body = yield web.get("/api/hub/events")
        self.assertEqual(code, 429)
        self.assertEqual(headers.getRawHeaders(b"retry-after"), [b"10"])
        closed = afterCalls(self, web.site.gate, "closeStream")
        first.transport.loseConnection()
        yield closed
        self.assertEqual(len(web.web.lobbyFeed.fanout), 1)
        third = yield web.stream("/api/hub/events", self)
        yield third.waitFor("hub")

    @defer.inlineCallbacks
    def test_idleClosed(self):
        """
        The site's idle timeout runs on the hub's clock: a connection that
        sent half a request's headers is closed once that clock has gone
        L{site.IDLE_SECONDS} on, and not before.
        """
        clock = Clock()
        web = WebHub(self, clock=clock)
        client = yield connectRaw(web, self, b"GET / HTTP/1.1\r\n")
        released = afterCalls(self, web.site.gate, "release")
        clock.advance(site.IDLE_SECONDS - 1)
        self.assertFalse(released.called)
        clock.advance(1)
        yield released
        received = yield client.closed.addTimeout(TIMEOUT, reactor)
        self.assertEqual(received, b"")

    @defer.inlineCallbacks
    def test_streamNeverIdle(self):
        """
        An event stream outlives the site's idle time (on the hub's
        clock): it is a request being answered.
        """
        clock = Clock()
        web = WebHub(self, clock=clock)
        client = yield web.stream("/api/hub/events", self)
        yield client.waitFor("hub")
        clock.advance(site.IDLE_SECONDS * 2)
        openRoom(web.hub, "gomoku", "den", ["ann"])
        clock.advance(web.web.lobbyFeed.interval)
        later = yield client.waitFor("hub", 2)
        self.assertEqual(later["kinds"]["gomoku"]["rooms"][0]["name"], "den")
        self.assertFalse(client.closed.called)

    @defer.inlineCallbacks
    def test_requestRate(self):
        """
        Requests over the address's rate are answered 429 with a
        Retry-After, whatever the path; past the overdraft the connection
        closes after its answer and a new one is refused.
        """
        web = WebHub(self, limits=WebLimits(
            requestRate=0.01, requestBurst=3, requestOverdraft=2))
        for _ in range(3):
            code, _, _ = yield web.get("/api/hub")
            self.assertEqual(code, 200)
        for path in ("/api/hub", "/"):
            code, headers, body = yield web.get(path)
            self.assertEqual(code, 429)
            self.assertEqual(headers.getRawHeaders(b"retry-after"),
                             [b"100"] if path == "/api/hub" else [b"200"])
        before = limitedCount(limits.WEB_REQUEST_RATE)
        client = yield connectRaw(
            web, self, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        received = yield client.closed.addTimeout(TIMEOUT, reactor)
        self.assertTrue(received.startswith(b"HTTP/1.1 429 "))
        refused = yield connectRaw(web, self, b"GET / HTTP/1.0\r\n\r\n")
        received = yield refused.closed.addTimeout(TIMEOUT, reactor)
        self.assertEqual(received, b"")
        self.assertEqual(limitedCount(limits.WEB_REQUEST_RATE), before + 2)


class NameCostTests(TestCase):
    """
    A long name costs the lobby's lists a bounded size.
    """

    def test_listedName(self):
        """
        A name over L{MAX_LISTED_NAME} characters is cut to that length,
        its last character an ellipsis; shorter ones are kept.
        """
        self.assertEqual(listedName("x" * MAX_LISTED_NAME),
                         "x" * MAX_LISTED_NAME)
        cut = listedName("<" * 8000)
        self.assertEqual(len(cut), MAX_LISTED_NAME)
        self.assertEqual(cut, "<" * (MAX_LISTED_NAME - 1) + ELLIPSIS)
        self.assertIsNone(listedName(None))

    @defer.inlineCallbacks
    def test_lobbyCutsNames(self):
        """
        100 rooms named with 8,000 C{<} each, and a member's long name,
        are listed cut short in C{/api/hub} and on the lobby page.
        """
        web = WebHub(self)
        for n in range(100):
            openRoom(web.hub, "checkers", str(n) + "<" * 8000,
                     ["p%d" % (n,) + "m" * 100], ready=False)
        code, now = yield web.getJSON("/api/hub")
        rooms = now["kinds"]["checkers"]["rooms"]
        self.assertEqual(len(rooms), 100)
        for room in rooms:
            self.assertEqual(len(room["name"]), MAX_LISTED_NAME)
            self.assertTrue(room["name"].endswith(ELLIPSIS))
            self.assertEqual(len(room["members"][0]["name"]),
                             MAX_LISTED_NAME)
            self.assertEqual(room["owner"], room["members"][0]["name"])
        self.assertTrue(all(len(p) == MAX_LISTED_NAME for p in
                            now["kinds"]["checkers"]["players"]))
        code, headers, body = yield web.get("/api/hub")
        self.assertLess(len(body), 100 * 1000)
        code, headers, page = yield web.get("/")
        self.assertLess(len(page), 200 * 1000)
        self.assertNotIn(b"&lt;" * 40, page)

    @defer.inlineCallbacks
    def test_gamesListCutsNames(self):
        """
        C{/api/games} lists a game's table and players cut short too.
        """
        web = WebHub(self)
        room, _ = openRoom(web.hub, "gomoku", "t" * 500,
                           ["a" * 300, "b" * 300])
        web.hub.lobby.start(room)
        code, data = yield web.getJSON("/api/games")
        [game] = data["games"]
        self.assertEqual(len(game["table"]), MAX_LISTED_NAME)
        self.assertEqual([len(p) for p in game["players"]],
                         [MAX_LISTED_NAME] * 2)
        code, now = yield web.getJSON("/api/hub")
        [listed] = now["kinds"]["gomoku"]["games"]
        self.assertEqual(listed["table"], game["table"])


class LobbyDocumentTests(SynchronousTestCase):
    """
    L{LobbyFeed} builds the hub now at most once per interval, however
    many ask.
    """

    def setUp(self):
        self.clock = Clock()
        self.hub = Hub(self.clock)
        spectating = Spectating(self.clock)
        self.hub.lobby.addTableListener(spectating, hears=HEARS)
        self.feed = LobbyFeed(self.hub.lobby, self.hub.sessions,
                              spectating, self.clock)

    def test_builtOncePerInterval(self):
        """
        Many reads and encodings within an interval build the document
        once and encode it once per form; a change shows after the
        interval.
        """
        encodes = []

        def encode(now):
            encodes.append(now)
            return repr(now).encode()
        first = self.feed.now()
        for _ in range(100):
            self.assertIs(self.feed.now(), first)
            body = self.feed.encoded(encode)
        self.assertEqual((self.feed.builds, len(encodes)), (1, 1))
        openRoom(self.hub, "gomoku", "den", ["ann"])
        self.clock.advance(0.5)
        self.assertEqual(self.feed.now()["kinds"]["gomoku"]["rooms"], [])
        self.clock.advance(0.5)
        [den] = self.feed.now()["kinds"]["gomoku"]["rooms"]
        self.assertEqual(den["name"], "den")
        self.assertNotEqual(self.feed.encoded(encode), body)
        self.assertEqual((self.feed.builds, len(encodes)), (2, 2))


    def test_listsBounded(self):
        """
        Past C{MAX_ROOMS} rooms or C{MAX_GAMES} games of a kind, the
        newest are listed, with the exact counts.
        """
        self.patch(now, "MAX_ROOMS", 3)
        self.patch(now, "MAX_GAMES", 2)
        for n in range(5):
            room, _ = openRoom(self.hub, "gomoku", "r%d" % (n,),
                               ["a%d" % (n,), "b%d" % (n,)])
            self.hub.lobby.start(room)
        openRoom(self.hub, "gomoku", "r5", ["c"])
        gomoku = self.feed.now()["kinds"]["gomoku"]
        self.assertEqual([r["name"] for r in gomoku["rooms"]],
                         ["r3", "r4", "r5"])
        self.assertEqual(gomoku["roomCount"], 6)
        self.assertEqual([g["table"] for g in gomoku["games"]],
                         ["r3", "r4"])
        self.assertEqual(gomoku["gameCount"], 5)


    def test_pageFlattenedInTurns(self):
        """
        The lobby page is flattened C{ROWS_PER_TURN} rooms at a time, each
        chunk asked for only once the one before is written, and comes
        out whole, as it does made at once.
        """
        for n in range(3 * pages.ROWS_PER_TURN + 1):
            openRoom(self.hub, "checkers", "room %d" % (n,), ["p%d" % (n,)],
                     ready=False)
        pending = []

        def later(rows):
            d = defer.Deferred()
            pending.append((d, rows))
            return d
        page = pages.lobbyPage(self.feed.now(), later)
        bodies = []
        page.addCallback(bodies.append)
        turns = 0
        while pending:
            self.assertEqual(len(pending), 1)
            d, rows = pending.pop()
            d.callback(rows())
            turns += 1
        self.assertEqual(turns, 4)
        whole = []
        pages.lobbyPage(self.feed.now()).addCallback(whole.append)
        self.assertEqual(bodies, whole)
        self.assertEqual(bodies[0].count(b'class="room"'),
                         3 * pages.ROWS_PER_TURN + 1)


class LobbyCacheOverHTTPTests(TestCase):
    """
    C{/api/hub}, the lobby page and the lobby's stream share one build.
    """

    @defer.inlineCallbacks
    def test_manyRequestsOneBuild(self):
        """
        Thirty requests of C{/api/hub}, five lobby pages and a stream
        within one interval build the document once; the API serves the
        same bytes each time, and the page is rendered once.
        """
        renders = []
        render = pages.lobbyPage

        def countedRender(*args):
            renders.append(args)
            return render(*args)
        self.patch(pages, "lobbyPage", countedRender)
        web = WebHub(self)
        feed = web.web.lobbyFeed
        feed.interval = 3600
        openRoom(web.hub, "gomoku", "den", ["ann"])
        bodies = set()
        for _ in range(30):
            code, headers, body = yield web.get("/api/hub")
            bodies.add(body)
        seen = set()
        for _ in range(5):
            code, headers, page = yield web.get("/")
            self.assertIn(b"den", page)
            seen.add(page)
        self.assertEqual((len(seen), len(renders)), (1, 1))
        self.assertTrue(page.startswith(b"<!DOCTYPE html>\n<html"))
        self.assertEqual(headers.getRawHeaders(b"content-type"),
                         [b"text/html; charset=utf-8"])
        client = yield web.stream("/api/hub/events", self)
        now = yield client.waitFor("hub")
        self.assertEqual(now["kinds"]["gomoku"]["rooms"][0]["name"], "den")
        self.assertEqual(len(bodies), 1)
        self.assertEqual(feed.builds, 1)
