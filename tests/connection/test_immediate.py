"""
Tests for L{hub.connection.immediate}, over real loopback TCP connections.
"""

import os
import shutil
import socket
import struct
import tempfile

from zope.interface import directlyProvides

from twisted.internet import defer, reactor
from twisted.internet.interfaces import ITCPTransport
from twisted.internet.endpoints import (
    TCP4ClientEndpoint, UNIXClientEndpoint, connectProtocol)
from twisted.internet.protocol import Factory, Protocol
from twisted.internet.testing import StringTransport
from twisted.protocols.policies import ProtocolWrapper, WrappingFactory
from twisted.trial.unittest import SynchronousTestCase, TestCase

from hub.connection.immediate import (
    ImmediateWriter, WriteBatch, relayWriter, sendsDirectly)

BIG = 32 * 1024 * 1024


class ServerSide(Protocol):
    """
    The accepted end of a connection, with an L{ImmediateWriter}.
    """

    def connectionMade(self):
        self.writer = ImmediateWriter(self.transport)
        self.lost = defer.Deferred()
        self.factory.accepted.callback(self)

    def connectionLost(self, reason):
        self.lost.callback(None)


class ClientSide(Protocol):
    """
    The connecting end: collects what arrives, and can wait for a count.
    """

    def __init__(self):
        self.received = []
        self.size = 0
        self.waiting = None
        self.lost = defer.Deferred()

    def dataReceived(self, data):
        self.received.append(data)
        self.size += len(data)
        if self.waiting is not None and self.size >= self.waiting[0]:
            d = self.waiting[1]
            self.waiting = None
            d.callback(b"".join(self.received))

    def receive(self, size):
        """
        A Deferred firing with all bytes received once there are C{size}.
        """
        d = defer.Deferred()
        self.waiting = (size, d)
        self.dataReceived(b"")
        return d

    def connectionLost(self, reason):
        self.lost.callback(b"".join(self.received))


class RecordingSocket:
    """
    A socket's stand-in that records what is sent through it.
    """

    def __init__(self, socket):
        self.socket = socket
        self.sent = []

    def send(self, data):
        self.sent.append(data)
        return self.socket.send(data)


class LoopbackMixin:
    """
    Connected pairs of a L{ServerSide} and a L{ClientSide} on loopback.
    """

    @defer.inlineCallbacks
    def connect(self):
        """
        A connected (server, client) pair on 127.0.0.1.
        """
        factory = Factory.forProtocol(ServerSide)
        factory.accepted = defer.Deferred()
        port = reactor.listenTCP(0, factory, interface="127.0.0.1")
        self.addCleanup(port.stopListening)
        client = ClientSide()
        yield connectProtocol(TCP4ClientEndpoint(
            reactor, "127.0.0.1", port.getHost().port), client)
        server = yield factory.accepted

        def close():
            client.transport.abortConnection()
            server.transport.abortConnection()
            return defer.DeferredList([client.lost, server.lost])
        self.addCleanup(close)
        return server, client


class ImmediateWriterTests(LoopbackMixin, TestCase):
    """
    L{ImmediateWriter} sends at once, buffers behind a backlog, keeps the
    order of bytes and leaves failures and closes to the transport.
    """

    def fillBacklog(self, server, client):
        """
        Stop the client reading and write more than the sockets hold, so
        the server's transport is left holding the rest.
        """
        client.transport.pauseProducing()
        payload = bytes(range(256)) * (BIG // 256)
        server.writer.write(payload)
        return payload

    @defer.inlineCallbacks
    def test_unixSocket(self):
        """
        A UNIX socket connection is written through its transport alone.
        """
        factory = Factory.forProtocol(ServerSide)
        factory.accepted = defer.Deferred()
        # In the system's temporary folder, not the working directory
        # (the tree's, under pytest).
        folder = tempfile.mkdtemp(prefix="gamehub-unix-")
        self.addCleanup(shutil.rmtree, folder, True)
        path = os.path.join(folder, "socket")
        port = reactor.listenUNIX(path, factory)
        self.addCleanup(port.stopListening)
        client = ClientSide()
        yield connectProtocol(UNIXClientEndpoint(reactor, path), client)
        server = yield factory.accepted
        self.addCleanup(lambda: defer.DeferredList(
            [client.lost, server.lost]))
        self.addCleanup(client.transport.abortConnection)
        self.assertFalse(sendsDirectly(server.transport))
        self.assertIsNone(server.writer.socket)
        server.writer.write(b"<unix>")
        self.assertIn(server.transport, reactor.getWriters())
        received = yield client.receive(6)
        self.assertEqual(received, b"<unix>")

    @defer.inlineCallbacks
    def test_sendsAtOnce(self):
        """
        With nothing buffered, a write goes to the socket in the call: the
        reactor is not asked to watch the connection for writing.
        """
        server, client = yield self.connect()
        self.assertTrue(sendsDirectly(server.transport))
        server.writer.write(b"<hello>")
        self.assertNotIn(server.transport, reactor.getWriters())
        self.assertFalse(server.writer.buffered)
        received = yield client.receive(7)
        self.assertEqual(received, b"<hello>")

    @defer.inlineCallbacks
    def test_backlogKeepsOrder(self):
        """
        What the socket does not take is buffered in the transport, and
        later writes queue behind it until it has been sent.
        """
        server, client = yield self.connect()
        payload = self.fillBacklog(server, client)
        self.assertTrue(server.writer.buffered)
        self.assertIn(server.transport, reactor.getWriters())
        server.writer.socket = RecordingSocket(server.writer.socket)
        server.writer.write(b"<tail>")
        self.assertEqual(server.writer.socket.sent, [])
        client.transport.resumeProducing()
        received = yield client.receive(len(payload) + 6)
        self.assertEqual(received, payload + b"<tail>")

    @defer.inlineCallbacks
    def test_batchJoinsSends(self):
        """
        While its batch is held, a writer keeps what it would send; the
        last release sends it in one call, in order.
        """
        server, client = yield self.connect()
        batch = server.writer.batch = WriteBatch()
        server.writer.socket = RecordingSocket(server.writer.socket)
        batch.hold()
        server.writer.write(b"<one>")
        batch.hold()
        server.writer.write(b"<two>")
        batch.release()
        server.writer.write(b"<three>")
        self.assertEqual(server.writer.socket.sent, [])
        batch.release()
        self.assertEqual(server.writer.socket.sent,
                         [b"<one><two><three>"])
        server.writer.write(b"<four>")
        self.assertEqual(server.writer.socket.sent[1:], [b"<four>"])
        received = yield client.receive(22)
        self.assertEqual(received, b"<one><two><three><four>")

    @defer.inlineCallbacks
    def test_sendsAtOnceAgainAfterBacklog(self):
        """
        Once the transport has sent its backlog, writes go to the socket
        at once again and the writer is no longer its producer.
        """
        server, client = yield self.connect()
        payload = self.fillBacklog(server, client)
        client.transport.resumeProducing()
        yield client.receive(len(payload))
        self.assertFalse(server.writer.buffered)
        self.assertIsNone(server.transport.producer)
        server.writer.write(b"<again>")
        self.assertNotIn(server.transport, reactor.getWriters())
        received = yield client.receive(len(payload) + 7)
        self.assertEqual(received[len(payload):], b"<again>")

    @defer.inlineCallbacks
    def test_loseConnectionAfterBacklog(self):
        """
        Losing the connection with a backlog sends all of it first, then
        closes.
        """
        server, client = yield self.connect()
        payload = self.fillBacklog(server, client)
        server.writer.write(b"<bye>")
        server.transport.loseConnection()
        client.transport.resumeProducing()
        received = yield client.lost
        self.assertEqual(received, payload + b"<bye>")
        yield server.lost

    @defer.inlineCallbacks
    def test_resetConnection(self):
        """
        A write to a connection the peer has reset stops the direct sends
        and leaves the failure to the transport, which reports the loss.
        """
        server, client = yield self.connect()
        # The server does not read, so only its writes can find the reset.
        server.transport.pauseProducing()
        client.transport.getHandle().setsockopt(
            socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        client.transport.abortConnection()
        yield client.lost
        server.writer.write(b"<one>")
        self.assertIsNone(server.writer.socket)
        self.assertTrue(server.transport.connected)
        yield server.lost


class RelayWriterTests(LoopbackMixin, TestCase):
    """
    L{relayWriter} sends at once while nothing is buffered, leaves the
    rest to the transport (whose buffer pauses a streaming producer) and
    keeps the order of bytes, without registering a producer itself.
    """

    @defer.inlineCallbacks
    def test_relaySendsAtOnce(self):
        """
        With nothing buffered, a write goes to the socket in the call.
        """
        server, client = yield self.connect()
        write = relayWriter(server.transport)
        write(b"<hello>")
        self.assertNotIn(server.transport, reactor.getWriters())
        received = yield client.receive(7)
        self.assertEqual(received, b"<hello>")

    @defer.inlineCallbacks
    def test_relayBacklogKeepsOrderAndPauses(self):
        """
        What the socket does not take goes to the transport; later writes
        queue behind it; a streaming producer registered on the transport
        (the relay's other end) is paused while the buffer is full and
        resumed once it drains.
        """
        server, client = yield self.connect()
        producer = StringTransport()
        server.transport.registerProducer(producer, True)
        write = relayWriter(server.transport)
        client.transport.pauseProducing()
        payload = bytes(range(256)) * (BIG // 256)
        write(payload)
        write(b"<tail>")
        self.assertIn(server.transport, reactor.getWriters())
        self.assertEqual(producer.producerState, "paused")
        client.transport.resumeProducing()
        received = yield client.receive(len(payload) + 6)
        self.assertEqual(received, payload + b"<tail>")
        self.assertEqual(producer.producerState, "producing")
        server.transport.unregisterProducer()

    def test_relayMemoryTransport(self):
        """
        An in-memory transport is written through C{write}.
        """
        transport = StringTransport()
        self.assertEqual(relayWriter(transport), transport.write)


class SendsDirectlyTests(SynchronousTestCase):
    """
    Only plain TCP connections are sent to directly.
    """

    def test_memoryTransport(self):
        """
        An in-memory transport gets every byte through C{write}.
        """
        transport = StringTransport()
        writer = ImmediateWriter(transport)
        self.assertIsNone(writer.socket)
        writer.write(b"<a>")
        writer.write(b"<b>")
        self.assertEqual(transport.value(), b"<a><b>")

    def test_memoryTransportBatch(self):
        """
        A held batch does not keep what goes through C{write}: an
        in-memory transport sees each write as it is made.
        """
        transport = StringTransport()
        batch = WriteBatch()
        writer = ImmediateWriter(transport, batch=batch)
        batch.hold()
        writer.write(b"<a>")
        self.assertEqual(transport.value(), b"<a>")
        batch.release()
        self.assertEqual(transport.value(), b"<a>")

    def test_wrapper(self):
        """
        A protocol wrapper (as TLS is) that passes on the interfaces of a
        TCP transport is not a TCP connection.
        """
        transport = StringTransport()
        directlyProvides(transport, ITCPTransport)
        wrapper = ProtocolWrapper(WrappingFactory(Factory()), Protocol())
        wrapper.makeConnection(transport)
        self.assertTrue(ITCPTransport.providedBy(wrapper))
        self.assertFalse(sendsDirectly(wrapper))
