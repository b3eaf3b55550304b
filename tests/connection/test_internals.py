"""
Every private part of Twisted the hub touches (L{hub.twistedinternals}),
checked on the installed Twisted: each test fails naming the attribute a
Twisted release changed.
"""

import importlib

from twisted.application.internet import StreamServerEndpointService
from twisted.internet import abstract, defer, reactor, tcp
from twisted.internet.endpoints import TCP4ClientEndpoint, connectProtocol
from twisted.internet.protocol import Factory, Protocol
from twisted.internet.error import ConnectionDone
from twisted.internet.task import Clock
from twisted.internet.testing import MemoryReactor, StringTransport
from twisted.protocols.basic import LineOnlyReceiver
from twisted.python.failure import Failure
from twisted.trial.unittest import SynchronousTestCase, TestCase
from twisted.web.http import HTTPChannel, Request, toChunk
from twisted.web.server import Request as WebRequest
from twisted.web.test.requesthelper import DummyChannel

from hub import twistedinternals as internals


def resolve(dotted):
    """
    The module and the attribute path of C{dotted}
    (C{package.module.Class.attribute}): the longest importable prefix is
    the module.
    """
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            module = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        return module, parts[cut:]
    raise AssertionError("{}: no module of it imports".format(dotted))


class FakeSocket:
    """
    What L{tcp.Connection} asks of its socket when made.
    """

    def setblocking(self, flag):
        pass

    def fileno(self):
        return -1


class Sink(abstract.FileDescriptor):
    """
    A file descriptor whose socket takes nothing: what is written stays in
    its buffers.
    """

    def writeSomeData(self, data):
        return 0


class ListedTests(SynchronousTestCase):
    """
    Every attribute L{internals.PRIVATE} lists is there.
    """

    # Instance attributes, made in __init__: looked for on an instance.
    INSTANCE = {
        "twisted.internet.abstract.FileDescriptor._tempDataBuffer":
            lambda: abstract.FileDescriptor(reactor=MemoryReactor()),
        "twisted.internet.abstract.FileDescriptor._tempDataLen":
            lambda: abstract.FileDescriptor(reactor=MemoryReactor()),
        "twisted.internet.tcp.Connection.socket":
            lambda: tcp.Connection(FakeSocket(), None, MemoryReactor()),
        "twisted.internet.tcp.Connection.protocol":
            lambda: tcp.Connection(FakeSocket(), Protocol(),
                                   MemoryReactor()),
        "twisted.web.http.Request.chunked":
            lambda: Request(DummyChannel()),
        "twisted.web.http.Request.startedWriting":
            lambda: Request(DummyChannel()),
        "twisted.web.server.Request._encoder":
            lambda: WebRequest(DummyChannel()),
        "twisted.web.http.HTTPChannel._transferDecoder":
            lambda: HTTPChannel(),
    }

    def test_everyAttribute(self):
        """
        Each attribute of L{internals.PRIVATE} exists on the installed
        Twisted (on its class, or on an instance for those made in
        C{__init__}).
        """
        missing = []
        for dotted, why in internals.PRIVATE:
            make = self.INSTANCE.get(dotted)
            if make is not None:
                if not hasattr(make(), dotted.rsplit(".", 1)[1]):
                    missing.append(dotted)
                continue
            module, path = resolve(dotted)
            target = module
            for name in path:
                if not hasattr(target, name):
                    missing.append(dotted)
                    break
                target = getattr(target, name)
        self.assertEqual(missing, [], "Twisted changed: {}".format(
            ", ".join(missing)))

    def test_listedOnce(self):
        """
        No attribute is listed twice, and each says what the hub does.
        """
        names = [dotted for dotted, _ in internals.PRIVATE]
        self.assertEqual(len(names), len(set(names)))
        for dotted, why in internals.PRIVATE:
            self.assertTrue(why, dotted)


class FileDescriptorTests(SynchronousTestCase):
    """
    L{internals.unsentBytes} and L{internals.dropUnsent} on a Twisted
    file descriptor's buffers.
    """

    def test_unsentAndDropped(self):
        """
        Bytes written and not taken are counted, whether still in
        C{_tempDataBuffer} or joined into C{dataBuffer} past C{offset};
        dropping them leaves nothing.
        """
        sink = Sink(reactor=MemoryReactor())
        sink.connected = True
        sink.write(b"abc")
        self.assertEqual(
            internals.unsentBytes(sink), 3,
            "FileDescriptor._tempDataLen no longer counts writes")
        sink.doWrite()
        self.assertEqual(
            (sink.dataBuffer, sink.offset), (b"abc", 0),
            "FileDescriptor.dataBuffer/offset no longer hold what is "
            "unsent")
        sink.write(b"de")
        self.assertEqual(internals.unsentBytes(sink), 5,
                         "FileDescriptor.dataBuffer, offset, _tempDataLen")
        internals.dropUnsent(sink)
        self.assertEqual(internals.unsentBytes(sink), 0)
        sink.write(b"f")
        sink.doWrite()
        self.assertEqual(
            sink.dataBuffer, b"f",
            "FileDescriptor._tempDataBuffer: dropped bytes came back")

    def test_wrapped(self):
        """
        A wrapping transport is asked through its C{transport}; a fake
        that reports C{unsentBytes()} itself is believed.
        """
        sink = Sink(reactor=MemoryReactor())
        sink.connected = True
        sink.write(b"abcd")

        class Wrapper:
            transport = sink
        self.assertEqual(internals.unsentBytes(Wrapper()), 4)

        class Fake:
            def unsentBytes(self):
                return 7
        self.assertEqual(internals.unsentBytes(Fake()), 7)


class Loopback(TestCase):
    """
    A real loopback TCP connection: its socket, and the protocol it reads
    into.
    """

    @defer.inlineCallbacks
    def connect(self):
        accepted = defer.Deferred()

        class Server(Protocol):
            def connectionMade(self):
                accepted.callback(self)

        port = reactor.listenTCP(0, Factory.forProtocol(Server),
                                 interface="127.0.0.1")
        self.addCleanup(port.stopListening)
        client = Protocol()
        yield connectProtocol(TCP4ClientEndpoint(
            reactor, "127.0.0.1", port.getHost().port), client)
        server = yield accepted
        lost = defer.Deferred()
        server.connectionLost = lambda reason: lost.callback(None)

        def close():
            client.transport.abortConnection()
            server.transport.abortConnection()
            return lost
        self.addCleanup(close)
        return server, client

    @defer.inlineCallbacks
    def test_directSocket(self):
        """
        A TCP connection's socket is sent to directly, and its bytes
        arrive.
        """
        server, client = yield self.connect()
        sock = internals.directSocket(server.transport)
        self.assertIsNotNone(sock, "tcp.Connection is not sent to directly")
        self.assertIs(sock, server.transport.socket,
                      "tcp.Connection.socket is not getHandle()")

    @defer.inlineCallbacks
    def test_receiver(self):
        """
        Setting C{tcp.Connection.protocol} makes the transport read into
        the new protocol.
        """
        server, client = yield self.connect()
        self.assertIs(internals.receiverOf(server.transport), server,
                      "tcp.Connection.protocol is not the reading protocol")
        got = defer.Deferred()

        class Other(Protocol):
            def dataReceived(self, data):
                if not got.called:
                    got.callback(data)
        other = Other()
        internals.setReceiver(server.transport, other)
        client.transport.write(b"hello")
        data = yield got.addTimeout(10, reactor)
        self.assertEqual(data, b"hello",
                         "tcp.Connection.protocol is no longer read into")
        internals.setReceiver(server.transport, server)


class WebRequestTests(SynchronousTestCase):
    """
    L{internals.rawBodyAllowed} on twisted.web requests.
    """

    def request(self, clientproto=b"HTTP/1.1"):
        request = WebRequest(DummyChannel())
        request.method = b"GET"
        request.clientproto = clientproto
        return request

    def test_beforeHeaders(self):
        """
        Before the headers are out, the body may not go raw
        (C{Request.startedWriting}).
        """
        self.assertIsNone(internals.rawBodyAllowed(self.request()))

    def test_chunkedAfterHeaders(self):
        """
        After the first write of an HTTP/1.1 response with no length the
        body is chunked (C{Request.chunked}), framed as L{toChunk} frames
        it: what the raw body repeats.
        """
        request = self.request()
        request.write(b"first")
        self.assertTrue(request.startedWriting,
                        "http.Request.startedWriting")
        self.assertIs(internals.rawBodyAllowed(request), True,
                      "http.Request.chunked")
        transport = request.channel.transport
        self.assertTrue(transport.written.getvalue().endswith(
            b"".join(toChunk(b"first"))),
            "twisted.web no longer frames a chunk as toChunk does")

    def test_http10(self):
        """
        An HTTP/1.0 response's body is sent as it is.
        """
        request = self.request(b"HTTP/1.0")
        request.write(b"first")
        self.assertIs(internals.rawBodyAllowed(request), False)

    def test_encoded(self):
        """
        A gzip-encoded body (C{server.Request._encoder}) is never raw.
        """
        request = self.request()
        request._encoder = object()
        request.startedWriting = 1
        self.assertIsNone(internals.rawBodyAllowed(request))


class AbortingCallTests(SynchronousTestCase):
    """
    L{internals.forgetCancelledAbort} on an HTTP channel closed for
    idling (C{HTTPChannel._abortingCall}).
    """

    def channel(self):
        clock = Clock()
        channel = HTTPChannel()
        channel.callLater = clock.callLater
        channel.makeConnection(StringTransport())
        channel.timeoutConnection()
        self.assertIsNotNone(channel._abortingCall)
        return channel

    def test_cancelledForgotten(self):
        """
        A forced close already cancelled is forgotten: the channel's
        C{connectionLost} then does not cancel it again (and raise).
        """
        channel = self.channel()
        channel._abortingCall.cancel()
        internals.forgetCancelledAbort(channel)
        self.assertIsNone(channel._abortingCall)
        channel.connectionLost(Failure(ConnectionDone()))

    def test_pendingKept(self):
        """
        A forced close still pending is kept, for C{connectionLost} to
        cancel.
        """
        channel = self.channel()
        call = channel._abortingCall
        internals.forgetCancelledAbort(channel)
        self.assertIs(channel._abortingCall, call)
        channel.connectionLost(Failure(ConnectionDone()))
        self.assertTrue(call.cancelled)


class ListenerTests(SynchronousTestCase):
    """
    L{internals.SynchronousListener}.
    """

    def test_raises(self):
        """
        A port that cannot listen raises from C{privilegedStartService}
        (C{StreamServerEndpointService._raiseSynchronously}).
        """
        class Refusing:
            def listen(self, factory):
                return defer.fail(OSError("address in use"))
        self.assertIn("_raiseSynchronously",
                      vars(StreamServerEndpointService),
                      "StreamServerEndpointService._raiseSynchronously")
        service = internals.SynchronousListener(Refusing(), Factory())
        self.assertRaises(OSError, service.privilegedStartService)


class TwistdTests(SynchronousTestCase):
    """
    L{internals.twistdObserver}.
    """

    def test_observer(self):
        """
        twistd's logger class makes a log observer for twistd's options
        (C{_SomeApplicationRunner.loggerFactory},
        C{AppLogger._getLogObserver}).
        """
        from twisted.scripts.twistd import ServerOptions
        options = ServerOptions()
        options.parseOptions(["--nodaemon", "--logfile", "-"])
        observer = internals.twistdObserver(options)
        self.assertTrue(callable(observer))


class LineReceiverTests(SynchronousTestCase):
    """
    L{internals.partialLineLength}.
    """

    def test_partial(self):
        """
        What a L{LineOnlyReceiver} holds of an unfinished line is counted
        (C{LineOnlyReceiver._buffer}).
        """
        receiver = LineOnlyReceiver()
        receiver.lineReceived = lambda line: None
        receiver.makeConnection(StringTransport())
        receiver.dataReceived(b"done\r\nhalf")
        self.assertEqual(internals.partialLineLength(receiver), 4,
                         "LineOnlyReceiver._buffer")
