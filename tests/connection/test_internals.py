"""
Every private part of Twisted and autobahn the hub touches
(L{hub.twistedinternals}), checked on the installed releases: each test
fails naming the attribute a release changed.
"""

import ast
import hashlib
import importlib
import inspect
import os
import sys
import textwrap

from autobahn.twisted.websocket import (
    WebSocketServerFactory, WebSocketServerProtocol)
from autobahn.websocket import xormasker
from autobahn.websocket.protocol import PreparedMessage
from twisted.application.internet import StreamServerEndpointService
from twisted.internet import abstract, defer, reactor, tcp
from twisted.internet.endpoints import TCP4ClientEndpoint, connectProtocol
from twisted.internet.protocol import Factory, ProcessProtocol, Protocol
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
from tests.harness import RecordingTransport
from tests.web.test_ws import clientFrame


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
    Every attribute L{internals.PRIVATE} lists is there (the autobahn
    helpers it uses are defined below).
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
        # autobahn's, made per connection: on one in a message's middle.
        "autobahn.websocket.protocol.WebSocketProtocol.data":
            lambda: begunMessage(),
        "autobahn.websocket.protocol.WebSocketProtocol.message_data":
            lambda: begunMessage(),
        "autobahn.websocket.protocol.WebSocketProtocol.frame_data":
            lambda: begunMessage(),
        "autobahn.websocket.protocol.WebSocketProtocol.message_is_binary":
            lambda: begunMessage(),
        "autobahn.websocket.protocol.WebSocketProtocol.failedByMe":
            lambda: begunMessage(),
        "autobahn.websocket.protocol.PreparedMessage.payloadHybi":
            lambda: PreparedMessage(b"x", False, False, True),
    }

    # Instance attributes of objects that only a running reactor makes:
    # the test that looks for each on a real one.
    ELSEWHERE = {
        "twisted.internet.process.Process.pipes":
            "ProcessTests.test_childStdinWriter",
    }

    def test_everyAttribute(self):
        """
        Each attribute of L{internals.PRIVATE} exists on the installed
        Twisted (on its class, or on an instance for those made in
        C{__init__}), or has a test of its own in L{ELSEWHERE}.
        """
        missing = []
        for dotted, why in internals.PRIVATE:
            if dotted in self.ELSEWHERE:
                continue
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
        self.assertEqual(missing, [], "the library changed: {}".format(
            ", ".join(missing)))

    def test_elsewhereTested(self):
        """
        Each test L{ELSEWHERE} names is in this module.
        """
        for dotted, test in self.ELSEWHERE.items():
            testCase, method = test.split(".")
            self.assertTrue(callable(getattr(globals()[testCase], method)))

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


class LineDropTests(SynchronousTestCase):
    """
    L{internals.dropPartialLine}.
    """

    def test_dropped(self):
        """
        The unfinished line a L{LineOnlyReceiver} holds is forgotten
        (C{LineOnlyReceiver._buffer}); the next line starts afresh.
        """
        lines = []
        receiver = LineOnlyReceiver()
        receiver.lineReceived = lines.append
        receiver.makeConnection(StringTransport())
        receiver.dataReceived(b"half")
        internals.dropPartialLine(receiver)
        self.assertEqual(internals.partialLineLength(receiver), 0,
                         "LineOnlyReceiver._buffer")
        receiver.dataReceived(b"next\r\n")
        self.assertEqual(lines, [b"next"])


class ProducerTests(SynchronousTestCase):
    """
    L{internals.producerOf}.
    """

    def test_registered(self):
        """
        The producer registered with a file descriptor is read from it
        (C{FileDescriptor.producer}); None once unregistered.
        """
        descriptor = abstract.FileDescriptor(reactor=MemoryReactor())
        descriptor.connected = True
        self.assertIsNone(internals.producerOf(descriptor))
        producer = Protocol()
        producer.pauseProducing = producer.resumeProducing = \
            producer.stopProducing = lambda: None
        descriptor.registerProducer(producer, True)
        self.assertIs(internals.producerOf(descriptor), producer,
                      "FileDescriptor.producer")
        descriptor.unregisterProducer()
        self.assertIsNone(internals.producerOf(descriptor))


class Echoed(ProcessProtocol):
    """
    What a child process wrote, and when it ended.
    """

    def __init__(self):
        self.out = b""
        self.ended = defer.Deferred()

    def outReceived(self, data):
        self.out += data

    def processEnded(self, reason):
        self.ended.callback(self.out)


class ProcessTests(TestCase):
    """
    L{internals.childStdinWriter} on a real child of the reactor's.
    """

    def test_childStdinWriter(self):
        """
        The writer of a child's standard input (C{Process.pipes[0]}) is
        written to directly; once the input is closed, there is none.
        """
        echoed = Echoed()
        transport = reactor.spawnProcess(
            echoed, sys.executable,
            [sys.executable, "-c",
             "import sys; sys.stdout.write(sys.stdin.read())"],
            env=None)
        writer = internals.childStdinWriter(transport)
        self.assertIsNotNone(writer, "Process.pipes")
        self.assertEqual(os.write(writer.fileno(), b"direct"), 6)
        transport.closeStdin()
        self.assertIsNone(internals.childStdinWriter(transport))
        self.assertIsNone(internals.childStdinWriter(StringTransport()))
        return echoed.ended.addCallback(self.assertEqual, b"direct")


# autobahn

HANDSHAKE = (b"GET /ws HTTP/1.1\r\nHost: hub\r\nUpgrade: websocket\r\n"
             b"Connection: Upgrade\r\n"
             b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
             b"Sec-WebSocket-Version: 13\r\n\r\n")


def codeDigest(function):
    """
    The digest L{internals.COPIED} records of a library method: of its
    code's syntax tree, without its docstring and annotations (so that a
    release that only reformats it or annotates it keeps the digest).
    """
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.returns = None
            body = node.body
            if (body and isinstance(body[0], ast.Expr)
                    and isinstance(body[0].value, ast.Constant)
                    and isinstance(body[0].value.value, str)):
                node.body = body[1:]
        elif isinstance(node, ast.arg):
            node.annotation = None
    return hashlib.sha256(ast.dump(tree).encode("utf-8")).hexdigest()[:16]


class Recording(WebSocketServerProtocol):
    """
    autobahn's server protocol, recording the messages it reads.
    """

    def onConnect(self, request):
        self.messages = []

    def onMessage(self, payload, isBinary):
        self.messages.append((payload, isBinary))


class Joined(Recording):
    """
    L{Recording} with the fence's copies in place of autobahn's
    C{onMessageFrameEnd} and C{onMessageEnd}.
    """

    onMessageFrameEnd = internals.joinFrame
    onMessageEnd = internals.deliverMessage


def openSocket(protocolClass=Recording):
    """
    An autobahn server protocol of C{protocolClass} after its opening
    handshake, on a L{StringTransport}: C{(protocol, transport)}.
    """
    factory = WebSocketServerFactory()
    factory.protocol = protocolClass
    factory.setProtocolOptions(openHandshakeTimeout=0,
                               closeHandshakeTimeout=0, autoPingInterval=0)
    protocol = factory.buildProtocol(None)
    transport = RecordingTransport()
    protocol.makeConnection(transport)
    protocol.dataReceived(HANDSHAKE)
    transport.clear()
    return protocol, transport


def begunMessage():
    """
    An L{openSocket} in the middle of a message: its first frame's header
    read, the payload not yet.
    """
    protocol, transport = openSocket()
    protocol.dataReceived(clientFrame(b"unfinished", fin=False)[:6])
    return protocol


class CopiedTests(SynchronousTestCase):
    """
    The library methods copied (L{internals.COPIED}), as they were copied.
    """

    def test_copiedAsCopied(self):
        """
        Every method the fence copies is the same on the installed
        autobahn as when it was copied: its digest is the one recorded
        (else the copy in L{internals} must be compared with the new
        release's, and the digest updated).
        """
        changed = []
        for dotted, digest in sorted(internals.COPIED.items()):
            module, path = resolve(dotted)
            target = module
            for name in path:
                target = getattr(target, name)
            if codeDigest(target) != digest:
                changed.append(dotted)
        self.assertEqual(changed, [], "autobahn changed: {}".format(
            ", ".join(changed)))


class AutobahnTests(SynchronousTestCase):
    """
    The functions of L{internals} on autobahn's WebSocket protocol, each
    failing with the attribute it relies on when a release changes it.
    """

    def test_frameParser(self):
        """
        A read given to the parser (C{WebSocketProtocol._dataReceived})
        is read as the Twisted adapter's C{dataReceived} reads it.
        """
        protocol, transport = openSocket()
        parse = internals.frameParser(Recording)
        two = clientFrame(b"two")
        parse(protocol, clientFrame(b"one") + two[:3])
        parse(protocol, two[3:])
        self.assertEqual(protocol.messages, [(b"one", False),
                                             (b"two", False)],
                         "WebSocketProtocol._dataReceived")

    def test_joinedAndDelivered(self):
        """
        With L{internals.joinFrame} and L{internals.deliverMessage} in
        place of autobahn's own, messages whole or in frames, text or
        binary, are read as autobahn reads them (C{message_data},
        C{frame_data}, C{message_is_binary}).
        """
        data = (clientFrame(b"whole") + clientFrame(b"in ", fin=False)
                + clientFrame(b"", opcode=0, fin=False)
                + clientFrame(b"frames", opcode=0)
                + clientFrame(b"\x00\x01", opcode=2))
        theirs, _ = openSocket(Recording)
        ours, _ = openSocket(Joined)
        theirs.dataReceived(data)
        ours.dataReceived(data)
        self.assertEqual(ours.messages, theirs.messages)
        self.assertEqual(ours.messages, [
            (b"whole", False), (b"in frames", False), (b"\x00\x01", True)])

    def test_failedDeliversNothing(self):
        """
        A connection autobahn failed (C{failedByMe}) delivers nothing
        more, through the copies as through autobahn's own.
        """
        protocol, transport = openSocket(Joined)
        protocol.dataReceived(clientFrame(b"in ", fin=False))
        internals.failInvalidPayload(protocol, "not valid")
        self.assertTrue(protocol.failedByMe, "WebSocketProtocol.failedByMe")
        internals.joinFrame(protocol)
        self.assertEqual(protocol.messages, [])

    def test_failInvalidPayload(self):
        """
        A connection failed for an invalid payload
        (C{WebSocketProtocol._invalid_payload}) is dropped at once, as a
        server's is (C{failByDrop}), without a close frame.
        """
        protocol, transport = openSocket()
        internals.failInvalidPayload(protocol, "not UTF-8")
        self.assertTrue(protocol.failedByMe,
                        "WebSocketProtocol._invalid_payload")
        self.assertTrue(transport.disconnecting)
        self.assertEqual(transport.value(), b"")

    def test_unparsedAndDropped(self):
        """
        A frame header begun is held unparsed (C{WebSocketProtocol.data});
        dropped in a frame's callback, the rest of the read is not parsed.
        """
        protocol, transport = openSocket()
        protocol.dataReceived(clientFrame(b"x")[:1])
        self.assertEqual(internals.unparsedBytes(protocol), 1,
                         "WebSocketProtocol.data")
        protocol.dataReceived(clientFrame(b"x")[1:])
        self.assertEqual(internals.unparsedBytes(protocol), 0)

        class Dropping(Recording):
            def onMessage(self, payload, isBinary):
                Recording.onMessage(self, payload, isBinary)
                internals.dropUnparsed(self)
        protocol, transport = openSocket(Dropping)
        protocol.dataReceived(clientFrame(b"a") + clientFrame(b"b"))
        self.assertEqual(protocol.messages, [(b"a", False)],
                         "WebSocketProtocol.data: emptied, consumeData "
                         "goes on")

    def test_sendCloseFrame(self):
        """
        A close frame with any code and a reason
        (C{WebSocketProtocol.sendCloseFrame}).
        """
        protocol, transport = openSocket()
        internals.sendCloseFrame(protocol, 1008, "over the rate")
        self.assertEqual(transport.value(),
                         b"\x88\x0f\x03\xf0over the rate",
                         "WebSocketProtocol.sendCloseFrame")

    def test_dropMessage(self):
        """
        What a connection holds of a message begun is let go
        (C{message_data}, C{frame_data}, C{data}).
        """
        protocol = begunMessage()
        protocol.dataReceived(b"unf")
        internals.dropMessage(protocol)
        self.assertEqual((protocol.data, protocol.message_data,
                          protocol.frame_data), (b"", None, None))

    def test_framedText(self):
        """
        The frame of a prepared message (C{PreparedMessage.payloadHybi})
        is what C{sendMessage} writes.
        """
        protocol, transport = openSocket()
        protocol.sendMessage("caf\u00e9".encode("utf-8"))
        self.assertEqual(
            internals.framedText(protocol.factory,
                                 "caf\u00e9".encode("utf-8")),
            transport.value(), "PreparedMessage.payloadHybi")

    def test_setLog(self):
        """
        The lines autobahn writes for a connection go to the log set
        (C{WebSocketAdapterProtocol.log}): here, failing one.
        """
        lines = []

        class Lines:
            def __getattr__(self, level):
                return lambda format=None, **fields: lines.append(
                    (level, format))
        protocol, transport = openSocket()
        internals.setLog(protocol, Lines())
        protocol.dataReceived(b"\x81\x01x")   # unmasked: a violation
        self.assertIn(
            "warn", [level for level, _ in lines],
            "WebSocketAdapterProtocol.log: autobahn's warnings go "
            "elsewhere")

    def test_maskShortFrames(self):
        """
        With L{internals.maskShortFrames}, autobahn's protocols unmask a
        frame shorter than the bound with the masker given and a longer
        one with their own (C{create_xor_masker}, which C{processData}
        calls), and read both as before; done again, nothing changes.
        """
        namespace = Recording.processData.__globals__
        library = xormasker.create_xor_masker
        self.patch(sys.modules[Recording.processData.__module__],
                   "create_xor_masker", library)
        made = []

        class Short:
            def __init__(self, mask):
                self.masker = library(mask, None)
                made.append(self)

            def __getattr__(self, name):
                return getattr(self.masker, name)
        internals.maskShortFrames(Recording, Short, 100)
        replaced = namespace["create_xor_masker"]
        internals.maskShortFrames(Recording, Short, 50)
        self.assertIs(namespace["create_xor_masker"], replaced)
        protocol, transport = openSocket()
        protocol.dataReceived(clientFrame(b"s" * 99))
        self.assertEqual(len(made), 1, "create_xor_masker")
        protocol.dataReceived(clientFrame(b"l" * 100))
        self.assertEqual(len(made), 1)
        self.assertEqual(protocol.messages, [(b"s" * 99, False),
                                             (b"l" * 100, False)])
