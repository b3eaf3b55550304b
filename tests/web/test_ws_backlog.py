"""
Tests for L{hub.web.ws} over real loopback TCP connections: what a
socket owes a browser that reads slowly, or not at all.  Once upgraded,
the HTTP channel's hold on the transport's producer slot is gone and the
socket's L{hub.connection.immediate.ImmediateWriter} takes the slot
while the transport holds a backlog, as on a game connection.
"""

import json

from twisted.internet import defer, protocol, reactor
from twisted.internet.endpoints import TCP4ClientEndpoint
from twisted.logger import globalLogPublisher
from twisted.trial.unittest import TestCase

from hub.connection.control import TransportControl
from hub.limits import Limits
from hub.protocols.checkers import CheckersFactory
from hub.protocols.gomoku import GomokuFactory
from hub.protocols.splendor import SplendorFactory
from hub.service import Hub
from hub.web.play import dumps
from tests.web.support import TIMEOUT, WebHub
from tests.web.test_ws import clientFrame
from tests.web.wsclient import PlayClient

#: Far more than a loopback socket takes at once.
LARGE = 8 << 20


def webHub(testCase, maxSendBuffer):
    """
    A L{WebHub} on the reactor with C{/ws}, its sockets owed at most
    C{maxSendBuffer} bytes.
    """
    hub = Hub(reactor, limits=Limits(maxSendBuffer=maxSendBuffer))
    lobby, sessions = hub.lobby, hub.sessions
    factories = {
        "gomoku": GomokuFactory(lobby, sessions, hub.clock),
        "checkers": CheckersFactory(lobby, sessions, hub.clock),
        "splendor": SplendorFactory(lobby, sessions, hub.clock),
    }
    return WebHub(testCase, hub=hub, factories=factories)


class StalledReader(protocol.Protocol):
    """
    Opens C{/ws}, says hello, and once welcomed reads nothing more.

    @ivar welcomed: a Deferred firing once the welcome was read.
    """

    def __init__(self):
        self.received = b""
        self.helloSent = False
        self.welcomed = defer.Deferred()

    def dataReceived(self, data):
        self.received += data
        if b"\r\n\r\n" in self.received and not self.helloSent:
            # Upgraded: a browser speaks once the answer came.
            self.helloSent = True
            self.transport.write(clientFrame(json.dumps(
                {"type": "hello", "version": 1, "name": "stalled"})))
        if b'"welcome"' in self.received and not self.welcomed.called:
            self.transport.pauseProducing()
            self.welcomed.callback(None)

    def connectionMade(self):
        self.transport.write(
            b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Upgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            b"Sec-WebSocket-Version: 13\r\n\r\n")


class BacklogTests(TestCase):
    """
    A socket's sends past what its TCP socket takes at once.
    """

    def setUp(self):
        self.failures = []

        def observe(event):
            if event.get("log_failure") is not None:
                self.failures.append(event)
        globalLogPublisher.addObserver(observe)
        self.addCleanup(globalLogPublisher.removeObserver, observe)

    @defer.inlineCallbacks
    def welcomed(self, web, name):
        """
        A L{PlayClient} said hello to C{web} as C{name} and welcomed.
        """
        client = PlayClient(reactor, web.url("/ws").replace("http", "ws"))
        yield client.opened()
        self.addCleanup(client.close)
        client.send({"type": "hello", "version": 1, "name": name})
        yield client.waitType("welcome")
        return client

    def socketNamed(self, web, name):
        for player in web.site.play.players.values():
            if player.name == name:
                return player.connection
        raise AssertionError("no player {!r}".format(name))

    @defer.inlineCallbacks
    def test_backlogSentInOrder(self):
        """
        What the socket does not take at once is held by the transport,
        with the writer in the producer slot; it reaches the browser
        whole and in order, the messages sent behind it after it, and
        then the writer sends directly again.
        """
        web = webHub(self, 64 << 20)
        client = yield self.welcomed(web, "reader")
        socket = self.socketNamed(web, "reader")
        writer = socket.writer
        large = dumps({"type": "padding", "text": "x" * LARGE})
        socket.sendText(large)
        self.assertTrue(writer.buffered)
        self.assertIs(TransportControl.of(socket.transport).producer,
                      writer)
        socket.sendText(dumps({"type": "after"}))
        yield client.waitType("after")
        types = [m["type"] for m in client.messages]
        self.assertEqual(types[types.index("padding"):],
                         ["padding", "after"])
        self.assertEqual(len(client.messages[types.index("padding")]["text"]),
                         LARGE)
        self.assertFalse(writer.buffered)
        self.assertIsNone(TransportControl.of(socket.transport).producer)
        self.assertEqual(self.failures, [])

    @defer.inlineCallbacks
    def test_stalledReaderCut(self):
        """
        A browser that reads nothing is cut once the transport holds
        more than C{--max-send-buffer} bytes for it; the hub goes on.
        """
        web = webHub(self, 256 << 10)
        endpoint = TCP4ClientEndpoint(reactor, "127.0.0.1",
                                      web.port.getHost().port)
        stalled = yield endpoint.connect(
            protocol.Factory.forProtocol(StalledReader))
        self.addCleanup(stalled.transport.abortConnection)
        yield stalled.welcomed.addTimeout(TIMEOUT, reactor)
        client = yield self.welcomed(web, "reader")
        socket = self.socketNamed(web, "stalled")
        closed = defer.Deferred()
        socket.is_closed.addCallback(closed.callback)
        socket.sendText(dumps({"type": "padding", "text": "x" * LARGE}))
        yield closed.addTimeout(TIMEOUT, reactor)
        self.assertTrue(socket.writer.closed)
        # The hub still answers the other browser.
        answered = client.waitType("lobby", seen=False)
        client.send({"type": "lobby"})
        yield answered
        self.assertEqual(self.failures, [])
