"""
A closed web connection is freed at once, by reference counting alone:
one that sent part of a request (a large unfinished body), and one that
held an event stream.  Each test closes L{CLOSES} real loopback
connections to the hub's site with the cyclic garbage collector off.
"""

import weakref

from twisted.internet import defer, protocol, reactor
from twisted.internet.endpoints import TCP4ClientEndpoint
from twisted.trial.unittest import TestCase

from tests.connection.test_freed import CLOSES, withoutCollector
from tests.web.support import WebHub, afterCalls

#: Connections open at once (within the listen backlog).
BATCH = 20


class Client(protocol.Protocol):
    """
    Sends C{data}, then closes: at once, or (with C{awaitReply}) once the
    hub has answered something.
    """

    def __init__(self, data, awaitReply):
        self.data = data
        self.awaitReply = awaitReply
        self.lost = defer.Deferred()

    def connectionMade(self):
        self.transport.write(self.data)
        if not self.awaitReply:
            self.transport.loseConnection()

    def dataReceived(self, data):
        if self.awaitReply:
            self.awaitReply = False
            self.transport.abortConnection()

    def connectionLost(self, reason):
        self.lost.callback(None)


class WebFreedTests(TestCase):
    """
    The web face's connections, requests and streams are freed without
    the cyclic collector.
    """

    def setUp(self):
        self.web = WebHub(self)
        self.channels = []
        site = self.web.site
        build = site.buildProtocol

        def buildProtocol(addr):
            channel = build(addr)
            self.channels.append(weakref.ref(channel))
            return channel
        site.buildProtocol = buildProtocol
        # What made each request: the HTTP channel under any wrapper.
        self.requests = []
        makeRequest = site.requestFactory

        def requestFactory(channel, *args, **kwargs):
            request = makeRequest(channel, *args, **kwargs)
            self.requests.append(weakref.ref(request))
            self.requests.append(weakref.ref(channel))
            return request
        site.requestFactory = requestFactory

    @defer.inlineCallbacks
    def closeMany(self, data, awaitReply, *more):
        """
        Open L{CLOSES} connections that send C{data} and close, L{BATCH}
        at a time, with the collector off; wait (a bounded time) until the
        hub saw every one close, then count what is still alive of them
        and of the objects C{more} lists (lists of weak references).

        @return: a Deferred of how many are still alive then.
        """
        withoutCollector(self)
        endpoint = TCP4ClientEndpoint(reactor, "127.0.0.1",
                                      self.web.port.getHost().port)
        factory = protocol.Factory.forProtocol(
            lambda: Client(data, awaitReply))
        # The hub sees the last closes a moment after the clients: each
        # connection it loses releases its place at the gate.
        released = afterCalls(self, self.web.site.gate, "release", CLOSES)
        for _ in range(CLOSES // BATCH):
            clients = yield defer.gatherResults(
                [endpoint.connect(factory) for _ in range(BATCH)])
            yield defer.gatherResults([c.lost for c in clients])
        yield released
        self.assertEqual((len(self.channels), len(self.requests)),
                         (CLOSES, 2 * CLOSES))
        return self.alive(*more)

    def alive(self, *more):
        """
        How many of the connections, their requests, and the objects in
        C{more}, are still alive.
        """
        return sum(1 for refs in (self.channels, self.requests) + more
                   for ref in refs if ref() is not None)

    @defer.inlineCallbacks
    def test_unfinishedRequestBody(self):
        """
        L{CLOSES} connections that each sent headers announcing a large
        body and part of it, then closed, are freed with their requests.
        """
        body = b"x" * 60000
        alive = yield self.closeMany(
            b"POST /api/hub HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Length: 1000000\r\n\r\n" + body, awaitReply=False)
        self.assertEqual(alive, 0)

    @defer.inlineCallbacks
    def test_unfinishedHeaders(self):
        """
        L{CLOSES} connections that each sent a request line and part of a
        long header, then closed, are freed.
        """
        alive = yield self.closeMany(
            b"GET / HTTP/1.1\r\nX-Long: " + b"x" * 10000, awaitReply=False)
        self.assertEqual(alive, 0)

    @defer.inlineCallbacks
    def test_eventStream(self):
        """
        L{CLOSES} event streams of the lobby, each closed by its browser
        once the hub sent its first bytes, are freed with their requests
        and connections, and the lobby's feed forgets them.
        """
        streams, requests = [], []
        feed = self.web.web.lobbyFeed
        addStream = feed.addStream

        def recorded(stream):
            streams.append(weakref.ref(stream))
            requests.append(weakref.ref(stream.request))
            addStream(stream)
        feed.addStream = recorded
        alive = yield self.closeMany(
            b"GET /api/hub/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
            True, streams, requests)
        self.assertEqual((len(streams), len(feed.fanout), alive),
                         (CLOSES, 0, 0))
