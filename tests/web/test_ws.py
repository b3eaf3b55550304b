"""
Tests for L{hub.web.ws}: C{/ws} in the web face's site, driven in
process (the HTTP upgrade through the site's own channel on an
in-memory transport, then client frames): the same-origin check, the
limits, and 100,000 random and mutated frames.
"""

import base64
import gc
import json
import os
import random
import resource
import struct

from twisted.internet import defer
from twisted.internet.address import IPv4Address
from twisted.internet.task import Clock
from twisted.python.failure import Failure
from twisted.internet.error import ConnectionDone
from twisted.logger import formatEvent, globalLogPublisher
from twisted.trial.unittest import SynchronousTestCase

from hub.accounts.websessions import Visitor
from hub import limits
from hub.limits import Limits, WebLimits
from hub.protocols.checkers import CheckersFactory
from hub.protocols.gomoku import GomokuFactory
from hub.protocols.splendor import SplendorFactory
from hub.service import Hub
from hub.web import ws
from hub.web.site import webSite
from tests.harness import RecordingTransport
from tests.web.playsupport import playGames

HOST = "hub.example:8080"


def clientFrame(payload, opcode=1, fin=True, mask=None):
    """
    One client frame (masked, as a browser sends them): a test's own
    encoder, to send what a browser would and what it would not.
    """
    if isinstance(payload, str):
        payload = payload.encode("utf-8")
    if mask is None:
        mask = os.urandom(4)
    head = bytes([(0x80 if fin else 0) | opcode])
    length = len(payload)
    if length < 126:
        head += bytes([0x80 | length])
    elif length < 65536:
        head += bytes([0x80 | 126]) + struct.pack("!H", length)
    else:
        head += bytes([0x80 | 127]) + struct.pack("!Q", length)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return head + mask + masked


def serverMessages(data):
    """
    The text messages of the unmasked server frames in C{data}, and
    whether a close frame came.
    """
    messages, closed = [], False
    while len(data) >= 2:
        opcode, length = data[0] & 0x0F, data[1] & 0x7F
        offset = 2
        if length == 126:
            length = struct.unpack("!H", data[2:4])[0]
            offset = 4
        elif length == 127:
            length = struct.unpack("!Q", data[2:10])[0]
            offset = 10
        payload, data = data[offset:offset + length], data[offset + length:]
        if opcode == 1:
            messages.append(json.loads(payload))
        elif opcode == 8:
            closed = True
    return messages, closed


def serverFrames(data):
    """
    The C{(opcode, payload)} of each unmasked server frame in C{data}.
    """
    frames = []
    while len(data) >= 2:
        opcode, length = data[0] & 0x0F, data[1] & 0x7F
        offset = 2
        if length == 126:
            length = struct.unpack("!H", data[2:4])[0]
            offset = 4
        elif length == 127:
            length = struct.unpack("!Q", data[2:10])[0]
            offset = 10
        frames.append((opcode, data[offset:offset + length]))
        data = data[offset + length:]
    return frames


def closeCode(data):
    """
    The status code of the close frame in the server's C{data}, or None.
    """
    for opcode, payload in serverFrames(data):
        if opcode == 8:
            return struct.unpack("!H", payload[:2])[0]
    return None


class Face:
    """
    A hub on a L{Clock}, its three legacy factories and its web face with
    C{/ws}.
    """

    def __init__(self, limits=None, webLimits=None, auth=None):
        self.clock = Clock()
        self.hub = Hub(self.clock, limits=limits)
        self.hub.startService()
        lobby, sessions, clock = (self.hub.lobby, self.hub.sessions,
                                  self.hub.clock)
        factories = {
            "gomoku": GomokuFactory(lobby, sessions, clock),
            "checkers": CheckersFactory(lobby, sessions, clock),
            "splendor": SplendorFactory(lobby, sessions, clock),
        }
        self.site, self.service = webSite(self.hub, limits=webLimits,
                                          games=playGames(factories),
                                          auth=auth)
        self.service.startService()
        self.port = 50000

    def stop(self):
        self.service.stopService()
        return self.hub.stopService()

    def connect(self, origin="http://" + HOST, host=HOST, path=b"/ws",
                address="10.0.0.1", cookie=None, extra=()):
        """
        Open C{path} as a WebSocket: C{(channel, transport)}; the
        transport's protocol is the socket once upgraded.
        """
        self.port += 1
        peer = IPv4Address("TCP", address, self.port)
        channel = self.site.buildProtocol(peer)
        if channel is None:
            return None, None
        transport = RecordingTransport(peerAddress=peer)
        # As a TCP transport says which protocol it feeds.
        transport.protocol = channel
        channel.makeConnection(transport)
        key = base64.b64encode(os.urandom(16))
        headers = [b"GET " + path + b" HTTP/1.1",
                   b"Host: " + host.encode(),
                   b"Upgrade: websocket", b"Connection: Upgrade",
                   b"Sec-WebSocket-Key: " + key,
                   b"Sec-WebSocket-Version: 13"]
        if origin is not None:
            headers.append(b"Origin: " + origin.encode())
        if cookie is not None:
            headers.append(b"Cookie: " + cookie.encode())
        headers.extend(extra)
        channel.dataReceived(b"\r\n".join(headers) + b"\r\n\r\n")
        return channel, transport


def socketOf(transport):
    protocol = getattr(transport, "protocol", None)
    return protocol if isinstance(protocol, ws.PlaySocket) else None


def lose(transport):
    """
    Tell the protocol now reading C{transport} that it is gone.
    """
    protocol = transport.protocol
    protocol.connectionLost(Failure(ConnectionDone()))


class HandshakeTests(SynchronousTestCase):
    """
    The upgrade, and the same-origin rule.
    """

    def setUp(self):
        self.face = Face(webLimits=WebLimits(maxConnectionsPerIP=2))
        self.addCleanup(self.face.stop)

    def test_sameOrigin(self):
        """
        The hub's own origin is upgraded (101) and can say hello.
        """
        channel, transport = self.face.connect()
        self.assertIn(b"101 Switching Protocols", transport.value())
        socket = socketOf(transport)
        self.assertIsNotNone(socket)
        transport.clear()
        socket.dataReceived(clientFrame(json.dumps(
            {"type": "hello", "version": 1, "name": "alice"})))
        messages, closed = serverMessages(transport.value())
        self.assertEqual(messages[0]["type"], "welcome")
        self.assertFalse(closed)

    def test_noCompression(self):
        """
        A browser's offer of permessage-deflate is declined: what the
        socket sends is framed once for every player
        (L{ws.PlayFactory.framed}), uncompressed.
        """
        channel, transport = self.face.connect(extra=[
            b"Sec-WebSocket-Extensions: permessage-deflate; "
            b"client_max_window_bits"])
        answer = transport.value().split(b"\r\n\r\n", 1)[0]
        self.assertIn(b"101 Switching Protocols", answer)
        self.assertNotIn(b"sec-websocket-extensions", answer.lower())
        self.assertIsNone(socketOf(transport)._perMessageCompress)

    def test_noOrigin(self):
        """
        A client without Origin (not a page) is let in.
        """
        channel, transport = self.face.connect(origin=None)
        self.assertIn(b"101 Switching Protocols", transport.value())

    def test_foreignOriginRefused(self):
        """
        A foreign Origin, or null, or another port of the same host, is
        refused with 403 and never reaches the protocol.
        """
        for origin in ("http://evil.example", "http://hub.example:9999",
                       "https://evil.example:8080",
                       "http://hub.example.evil.example:8080"):
            channel, transport = self.face.connect(origin=origin)
            self.assertTrue(transport.value().startswith(
                b"HTTP/1.1 403 "), origin)
            self.assertTrue(transport.disconnecting)
            lose(transport)
        # What is no origin at all autobahn refuses before: 400.
        for origin in ("null", "file://",
                       "http://hub.example:8080.evil.example"):
            channel, transport = self.face.connect(origin=origin)
            self.assertTrue(transport.value().startswith(
                b"HTTP/1.1 400 "), origin)
            lose(transport)
        self.assertEqual(self.face.site.play.players, {})

    def test_sameOriginFunction(self):
        """
        L{ws.sameOrigin} compares scheme-less host and port exactly.
        """
        self.assertTrue(ws.sameOrigin("http://a.b:80", "a.b:80"))
        self.assertTrue(ws.sameOrigin("https://A.b", "a.B"))
        self.assertFalse(ws.sameOrigin("http://a.b", "a.b:80"))
        self.assertFalse(ws.sameOrigin("ftp://a.b", "a.b"))
        self.assertFalse(ws.sameOrigin("http://[::1", "a.b"))
        self.assertFalse(ws.sameOrigin("", "a.b"))

    def test_gatePlaceKept(self):
        """
        The upgraded connection keeps its place at the web gate, freed
        when it closes: two per address here.
        """
        first = self.face.connect()
        second = self.face.connect()
        self.assertEqual(self.face.connect(), (None, None))
        self.assertIsNotNone(socketOf(first[1]))
        lose(first[1])
        third = self.face.connect()
        self.assertIsNotNone(socketOf(third[1]))
        lose(second[1])
        lose(third[1])
        self.assertEqual(self.face.site.gate.connections, 0)


class PendingAuth:
    """
    A L{hub.web.auth.WebAuth} whose session lookups the test answers.

    @ivar asked: C{(header, Deferred)} of each lookup, in order.
    """

    names = moderation = accounts = displays = sessions = None

    def __init__(self):
        self.asked = []

    def cookieVisitor(self, header):
        d = defer.Deferred()
        self.asked.append((header, d))
        return d


class LoginHandshakeTests(SynchronousTestCase):
    """
    The login cookie of the opening request is read before the upgrade
    completes (L{ws.PlaySocket.onConnect}).
    """

    def setUp(self):
        self.auth = PendingAuth()
        self.face = Face(auth=self.auth)
        self.addCleanup(self.face.stop)

    def test_upgradeWaitsForTheLogin(self):
        """
        The 101 comes once the session is read; the hello then names the
        account.
        """
        channel, transport = self.face.connect(
            cookie="theme=dark; gamehub_session=abc")
        [(header, d)] = self.auth.asked
        self.assertEqual(header, "theme=dark; gamehub_session=abc")
        self.assertNotIn(b"101", transport.value())
        d.callback(Visitor("Alice", "player"))
        self.assertIn(b"101 Switching Protocols", transport.value())
        transport.clear()
        socketOf(transport).dataReceived(clientFrame(json.dumps(
            {"type": "hello", "version": 1})))
        messages, closed = serverMessages(transport.value())
        self.assertEqual((messages[0]["name"], messages[0]["guest"]),
                         ("Alice", False))

    def test_noCookieGuest(self):
        """
        Without a cookie (or a session) the socket is a guest's.
        """
        channel, transport = self.face.connect()
        [(header, d)] = self.auth.asked
        self.assertIsNone(header)
        d.callback(None)
        transport.clear()
        socketOf(transport).dataReceived(clientFrame(json.dumps(
            {"type": "hello", "version": 1, "name": "bob"})))
        messages, closed = serverMessages(transport.value())
        self.assertEqual((messages[0]["name"], messages[0]["guest"]),
                         ("bob", True))

    def test_goneBeforeTheLogin(self):
        """
        A connection lost while its login is read is let go: the answer
        that comes after changes nothing.
        """
        channel, transport = self.face.connect(cookie="gamehub_session=a")
        [(header, d)] = self.auth.asked
        socket = transport.protocol
        lose(transport)
        transport.clear()
        d.callback(Visitor("Alice", "player"))
        self.assertNotEqual(socket.state, socket.STATE_OPEN)
        self.assertEqual(transport.value(), b"")
        self.assertEqual(self.face.site.play.players, {})
        self.assertEqual(self.face.site.gate.connections, 0)

    def test_lookupFails(self):
        """
        A session store that cannot be read refuses the upgrade (503).
        """
        channel, transport = self.face.connect(cookie="gamehub_session=a")
        [(header, d)] = self.auth.asked
        d.errback(RuntimeError("database down"))
        self.assertTrue(transport.value().startswith(b"HTTP/1.1 503 "))
        self.assertEqual(len(self.flushLoggedErrors(RuntimeError)), 1)


class LimitTests(SynchronousTestCase):
    """
    The size, rate and slow-consumer limits of a socket.
    """

    def test_tooLarge(self):
        """
        A message over L{ws.MAX_MESSAGE} bytes closes the connection.
        """
        face = Face()
        self.addCleanup(face.stop)
        channel, transport = face.connect()
        socket = socketOf(transport)
        socket.dataReceived(clientFrame("x" * (ws.MAX_MESSAGE + 1)))
        self.assertTrue(transport.disconnecting)

    def test_longAnswer(self):
        """
        What the hub sends is not held to L{ws.MAX_MESSAGE}.
        """
        face = Face()
        self.addCleanup(face.stop)
        channel, transport = face.connect()
        socket = socketOf(transport)
        transport.clear()
        socket.sendText(json.dumps({"type": "x" * (3 * ws.MAX_MESSAGE)}))
        messages, closed = serverMessages(transport.value())
        self.assertEqual(len(messages[0]["type"]), 3 * ws.MAX_MESSAGE)
        self.assertFalse(transport.disconnecting)

    def test_rate(self):
        """
        Past the request rate the socket is not read; past the overdraft
        it is cut.
        """
        face = Face(limits=Limits(requestRate=10, requestBurst=5,
                                  requestOverdraft=20))
        self.addCleanup(face.stop)
        channel, transport = face.connect()
        socket = socketOf(transport)
        lobby = clientFrame('{"type":"lobby"}')
        for _ in range(6):
            socket.dataReceived(lobby)
        self.assertEqual(transport.producerState, "paused")
        face.clock.advance(1)
        self.assertEqual(transport.producerState, "producing")
        for _ in range(40):
            socket.dataReceived(lobby)
        self.assertTrue(transport.disconnecting)

    def test_slowConsumer(self):
        """
        A socket owed more than --max-send-buffer bytes is cut.
        """
        face = Face(limits=Limits(maxSendBuffer=2000))
        self.addCleanup(face.stop)
        channel, transport = face.connect()
        owed = [0]
        transport.unsentBytes = lambda: owed[0]
        socket = socketOf(transport)
        socket.dataReceived(clientFrame(json.dumps(
            {"type": "hello", "version": 1, "name": "alice"})))
        self.assertFalse(transport.disconnecting)
        owed[0] = 5000
        socket.dataReceived(clientFrame('{"type":"leave"}'))
        self.assertTrue(transport.disconnecting)


class FrameTests(SynchronousTestCase):
    """
    What autobahn's framing (all of it: L{ws.PlaySocket} frames nothing
    itself) means for the hub: frames however they come, the same bytes
    out as autobahn's C{sendMessage}, and a connection failed on what
    RFC 6455 forbids.
    """

    def setUp(self):
        self.face = Face()
        self.addCleanup(self.face.stop)
        self.channel, self.transport = self.face.connect()
        self.socket = socketOf(self.transport)
        self.transport.clear()

    def requests(self):
        """
        The C{request} of each error the socket was sent, in order.
        """
        messages, closed = serverMessages(self.transport.value())
        return [m["request"] for m in messages if m["type"] == "error"]

    def assertFailed(self):
        """
        autobahn failed the connection: dropped, without a close frame
        (its C{failByDrop}).
        """
        self.assertTrue(self.socket.failedByMe)
        self.assertTrue(self.transport.disconnecting)
        self.assertIsNone(closeCode(self.transport.value()))

    def test_sentAsSendMessage(self):
        """
        L{ws.PlaySocket.sendText} writes what autobahn's C{sendMessage}
        writes for the same text, at every kind of length.
        """
        socket, transport = self.socket, self.transport
        limit = socket.maxMessagePayloadSize
        for size in (0, 1, 125, 126, 65535, 65536, 70000):
            text = "\u00e9" * (size // 2) + "x" * (size % 2)
            transport.clear()
            socket.maxMessagePayloadSize = 0
            socket.sendMessage(text.encode("utf-8"))
            socket.maxMessagePayloadSize = limit
            theirs = transport.value()
            transport.clear()
            socket.sendText(text)
            self.assertEqual(transport.value(), theirs)
            self.assertEqual(serverFrames(theirs),
                             [(1, text.encode("utf-8"))])

    def test_sameTextFramedOnce(self):
        """
        The text sent to one player and then another is framed once
        (autobahn's C{prepareMessage}); another text is framed anew.
        """
        text = '{"type":"event"}'
        factory = self.socket.factory
        framed = factory.framed(text)
        self.assertIs(factory.framed(text), framed)
        other = factory.framed('{"type":"other"}')
        self.assertIsNot(other, framed)
        self.assertEqual(serverFrames(other), [(1, b'{"type":"other"}')])

    def test_binary(self):
        """
        A binary message is answered with an error, and the connection
        stays open.
        """
        self.socket.dataReceived(clientFrame(b'{"type":"bin"}', opcode=2)
                                 + clientFrame('{"type":"after"}'))
        messages, closed = serverMessages(self.transport.value())
        self.assertEqual([(m["type"], m["code"]) for m in messages],
                         [("error", "bad-message"),
                          ("error", "unknown-type")])
        self.assertEqual(self.requests(), [None, "after"])
        self.assertFalse(self.transport.disconnecting)

    def test_severalFramesInOneRead(self):
        """
        The frames of one read are answered in order, short or long,
        whole or cut across reads (even within their header).
        """
        long = json.dumps({"type": "long", "pad": "x" * 300})
        cut = clientFrame('{"type":"cut"}')
        header = clientFrame('{"type":"header"}')
        self.socket.dataReceived(
            clientFrame('{"type":"one"}') + clientFrame('{"type":"two"}')
            + clientFrame(long) + clientFrame('{"type":"three"}')
            + cut[:5])
        self.socket.dataReceived(cut[5:] + clientFrame('{"type":"four"}')
                                 + header[:1])
        self.socket.dataReceived(header[1:])
        self.assertEqual(self.requests(), ["one", "two", "long", "three",
                                           "cut", "four", "header"])
        self.assertFalse(self.transport.disconnecting)

    def test_fragmented(self):
        """
        A message in two frames (autobahn's) is one message.
        """
        self.socket.dataReceived(
            clientFrame('{"type":', fin=False)
            + clientFrame('"frag"}', opcode=0) + clientFrame('{"type":"x"}'))
        self.assertEqual(self.requests(), ["frag", "x"])

    def test_notUTF8(self):
        """
        A text frame that is not UTF-8 (here a surrogate's bytes, which a
        lenient decoder would take) fails the connection (dropped, as
        autobahn drops a connection it fails), after the frames before it
        are answered; nothing after it is read.
        """
        self.socket.dataReceived(
            clientFrame('{"type":"ok"}')
            + clientFrame(b'{"type":"\xed\xa0\x80"}')
            + clientFrame('{"type":"after"}'))
        self.assertEqual(self.requests(), ["ok"])
        self.assertFailed()

    def test_notUTF8Fragmented(self):
        """
        A message whose frames end inside a character fails the
        connection, as one not UTF-8 does.
        """
        self.socket.dataReceived(
            clientFrame(b'{"type":"\xe6\x97', fin=False)
            + clientFrame(b'"}', opcode=0))
        self.assertEqual(self.requests(), [])
        self.assertFailed()

    def test_characterAcrossFrames(self):
        """
        A character split between two frames of a message is read whole.
        """
        self.socket.dataReceived(
            clientFrame(b'{"type":"\xe6\x97', fin=False)
            + clientFrame(b'\xa5"}', opcode=0))
        self.assertEqual(self.requests(), ["\u65e5"])

    def test_unmasked(self):
        """
        An unmasked client frame fails the connection.
        """
        self.socket.dataReceived(b"\x81\x0e" + b'{"type":"no"}!')
        self.assertEqual(self.requests(), [])
        self.assertFailed()

    def test_extensionBits(self):
        """
        A frame with an RSV bit (no extension was agreed) fails the
        connection.
        """
        frame = clientFrame('{"type":"no"}')
        self.socket.dataReceived(bytes([frame[0] | 0x40]) + frame[1:])
        self.assertEqual(self.requests(), [])
        self.assertFailed()

    def test_sizeLimit(self):
        """
        A frame over the size limit fails the connection, however short:
        the frames before it are answered, none after.
        """
        self.socket.maxFramePayloadSize = 10
        self.socket.dataReceived(clientFrame('{"a":1}')
                                 + clientFrame('{"type":"x"}')
                                 + clientFrame('{"b":2}'))
        self.assertEqual(self.requests(), [None])
        self.assertFailed()

    def test_fragmentedOverLimit(self):
        """
        A message over L{ws.MAX_MESSAGE} in frames each within it fails
        the connection.
        """
        half = "x" * (ws.MAX_MESSAGE // 2 + 1)
        self.socket.dataReceived(
            clientFrame(half, fin=False) + clientFrame(half, opcode=0))
        self.assertEqual(self.requests(), [])
        self.assertFailed()

    def test_pingBetween(self):
        """
        A ping between two text frames of one read is answered with its
        pong between their answers.
        """
        self.socket.dataReceived(
            clientFrame('{"type":"a"}') + clientFrame(b"hi", opcode=9)
            + clientFrame('{"type":"b"}'))
        frames = serverFrames(self.transport.value())
        self.assertEqual([opcode for opcode, _ in frames], [1, 10, 1])
        self.assertEqual(frames[1][1], b"hi")
        self.assertEqual(self.requests(), ["a", "b"])

    def test_closedMidRead(self):
        """
        After a frame that closes the connection (a close frame), the
        frames that follow in the same read are not answered.
        """
        self.socket.dataReceived(
            clientFrame('{"type":"a"}')
            + clientFrame(struct.pack("!H", 1000), opcode=8)
            + clientFrame('{"type":"b"}'))
        self.assertEqual(self.requests(), ["a"])
        self.assertEqual(closeCode(self.transport.value()), 1000)


def limited(limit):
    """
    How many connections L{limits.LIMITED_CONNECTIONS} counts for
    C{limit}.
    """
    return limits.LIMITED_CONNECTIONS.labels(limit)._value.get()


class FrameLimitTests(SynchronousTestCase):
    """
    Every frame counts toward the request rate; a message has a limit on
    its frames and on its time; a limit closes the connection with its
    close code, and nothing more of it is read.
    """

    def open(self, **kwargs):
        """
        A socket of a face with the L{Limits} C{kwargs}: C{(face, socket,
        transport)}.
        """
        face = Face(limits=Limits(**kwargs))
        self.addCleanup(face.stop)
        channel, transport = face.connect()
        transport.clear()
        return face, socketOf(transport), transport

    def assertCut(self, transport, code):
        """
        The connection was closed at once with close code C{code}.
        """
        frames = transport.value()
        if frames.startswith(b"HTTP/"):
            frames = frames.split(b"\r\n\r\n", 1)[1]
        self.assertEqual(closeCode(frames), code)
        self.assertTrue(transport.disconnecting)

    def test_continuationsCount(self):
        """
        Empty continuation frames of a message not yet whole each count
        toward the rate: past it the socket is not read.
        """
        face, socket, transport = self.open(
            requestRate=10, requestBurst=5, requestOverdraft=100)
        socket.dataReceived(clientFrame(b'{"type":', fin=False)
                            + clientFrame(b"", opcode=0, fin=False) * 4)
        self.assertEqual(transport.producerState, "producing")
        socket.dataReceived(clientFrame(b"", opcode=0, fin=False))
        self.assertEqual(transport.producerState, "paused")
        face.clock.advance(1)
        self.assertEqual(transport.producerState, "producing")

    def test_controlFramesCount(self):
        """
        Pings, pongs and closes each count toward the rate.
        """
        face, socket, transport = self.open(
            requestRate=10, requestBurst=2, requestOverdraft=0)
        socket.dataReceived(clientFrame(b"p", opcode=9)
                            + clientFrame(b"q", opcode=10))
        self.assertEqual(transport.producerState, "producing")
        socket.dataReceived(clientFrame(struct.pack("!H", 1000), opcode=8))
        self.assertEqual(transport.producerState, "paused")

    def test_pingFlood(self):
        """
        A flood of pings is answered up to the overdraft, then cut with
        1008 (policy violation); the pings after it in the same read get
        no pong, and the address's next connection is cut as it opens.
        """
        face, socket, transport = self.open(
            requestRate=10, requestBurst=5, requestOverdraft=20)
        before = limited(limits.REQUEST_RATE)
        socket.dataReceived(clientFrame(b"ping", opcode=9) * 1000)
        frames = serverFrames(transport.value())
        self.assertEqual([op for op, _ in frames], [10] * 25 + [8])
        self.assertCut(transport, ws.POLICY_VIOLATION)
        self.assertEqual(limited(limits.REQUEST_RATE), before + 1)
        # The address is refused at the web port, before a protocol, until
        # its debt is paid back (21 frames at 10 a second).
        self.assertEqual(face.connect(), (None, None))
        face.clock.advance(2)
        self.assertEqual(face.connect(), (None, None))
        face.clock.advance(0.2)
        channel, again = face.connect()
        self.assertFalse(again.disconnecting)

    def test_tooManyFrames(self):
        """
        A message may come in L{ws.MAX_FRAMES} frames; one in more closes
        the connection with 1009 (message too big), and nothing after it
        in the read is answered.
        """
        face, socket, transport = self.open()
        fragments = [clientFrame(b'{"type":"frag"}', fin=False)]
        fragments += [clientFrame(b"", opcode=0, fin=False)] * (
            ws.MAX_FRAMES - 2)
        fragments.append(clientFrame(b"", opcode=0))
        socket.dataReceived(b"".join(fragments))
        messages, closed = serverMessages(transport.value())
        self.assertEqual([m["request"] for m in messages], ["frag"])
        self.assertFalse(transport.disconnecting)
        transport.clear()
        before = limited(limits.WS_MESSAGE_FRAMES)
        socket.dataReceived(
            clientFrame(b'{"type":', fin=False)
            + clientFrame(b"", opcode=0, fin=False) * ws.MAX_FRAMES
            + clientFrame(b'"x"}', opcode=0)
            + clientFrame(b'{"type":"after"}'))
        self.assertEqual(serverMessages(transport.value())[0], [])
        self.assertCut(transport, ws.MESSAGE_TOO_BIG)
        self.assertEqual(limited(limits.WS_MESSAGE_FRAMES), before + 1)

    def test_tooManyFramesIsAFlood(self):
        """
        A message in too many frames puts its address in flooding debt:
        refused at the web port until the debt is paid back.
        """
        face, socket, transport = self.open(
            requestRate=10, requestBurst=5, requestOverdraft=20)
        socket.dataReceived(
            clientFrame(b'{"type":', fin=False)
            + clientFrame(b"", opcode=0, fin=False) * ws.MAX_FRAMES)
        self.assertCut(transport, ws.MESSAGE_TOO_BIG)
        self.assertEqual(face.connect(), (None, None))
        face.clock.advance(2.2)
        channel, again = face.connect()
        self.assertFalse(again.disconnecting)

    def test_emptyContinuationFlood(self):
        """
        A message that never ends, 100,000 empty continuations in 60 KB
        reads: the connection is cut at the frame past L{ws.MAX_FRAMES},
        and what the socket held of the message is let go.
        """
        face, socket, transport = self.open(
            requestRate=100, requestBurst=200, requestOverdraft=200)
        socket.dataReceived(clientFrame(b'{"type":', fin=False))
        flood = clientFrame(b"", opcode=0, fin=False, mask=b"abcd") * 10000
        for _ in range(10):
            socket.dataReceived(flood)
        self.assertCut(transport, ws.MESSAGE_TOO_BIG)
        lose(transport)
        self.assertFalse(socket.framePending())
        self.assertIsNone(socket.message_data)

    def test_messageTime(self):
        """
        A message begun must be whole within C{--frame-seconds}, however
        its frames trickle in; past it the connection is closed with 1008.
        """
        face, socket, transport = self.open(frameSeconds=5)
        socket.dataReceived(clientFrame(b'{"type":', fin=False))
        for _ in range(4):
            face.clock.advance(1)
            socket.dataReceived(clientFrame(b" ", opcode=0, fin=False))
        self.assertFalse(transport.disconnecting)
        face.clock.advance(1)
        self.assertCut(transport, ws.POLICY_VIOLATION)

    def test_headerTime(self):
        """
        A frame header begun and not finished is timed as a message is.
        """
        face, socket, transport = self.open(frameSeconds=5)
        socket.dataReceived(clientFrame(b'{"type":"lobby"}')[:3])
        face.clock.advance(4)
        self.assertFalse(transport.disconnecting)
        face.clock.advance(1)
        self.assertCut(transport, ws.POLICY_VIOLATION)

    def test_wholeMessagesUntimed(self):
        """
        Whole messages, however many, leave nothing to time.
        """
        face, socket, transport = self.open(frameSeconds=5)
        for _ in range(20):
            socket.dataReceived(clientFrame(b'{"type":"lobby"}'))
            face.clock.advance(1)
        self.assertFalse(transport.disconnecting)

    def test_partialMessageFreed(self):
        """
        What a socket holds of a message begun (up to L{ws.MAX_MESSAGE}
        bytes) is let go when its connection is lost.
        """
        face, socket, transport = self.open()
        socket.dataReceived(clientFrame(b"x" * 8000, fin=False)
                            + clientFrame(b"y" * 100, opcode=0)[:50])
        self.assertTrue(socket.framePending())
        lose(transport)
        self.assertFalse(socket.framePending())
        self.assertIsNone(socket.message_data)

    def test_longRead(self):
        """
        A read longer than L{ws.READ_PIECE} bytes, its frames cut across
        the pieces it is parsed in, is read whole and in order.
        """
        face, socket, transport = self.open()
        frames = [clientFrame(json.dumps({"type": "t%d" % (n,),
                                          "pad": "x" * (n % 300)}))
                  for n in range(200)]
        data = b"".join(frames)
        self.assertGreater(len(data), 4 * ws.READ_PIECE)
        socket.dataReceived(data)
        messages, closed = serverMessages(transport.value())
        self.assertEqual([m["request"] for m in messages],
                         ["t%d" % (n,) for n in range(200)])


class SocketLogTests(SynchronousTestCase):
    """
    autobahn's lines for each connection go through the hub's summary:
    one line per kind an interval, then a count.
    """

    def test_summarised(self):
        """
        Fifty connections autobahn fails (an unmasked frame) write one
        line of each kind, and a count at the interval's end.
        """
        face = Face()
        self.addCleanup(face.stop)
        lines = []

        def observe(event):
            lines.append(formatEvent(event))
        globalLogPublisher.addObserver(observe)
        self.addCleanup(globalLogPublisher.removeObserver, observe)
        for _ in range(50):
            channel, transport = face.connect()
            socketOf(transport).dataReceived(b"\x81\x01x")
            self.assertTrue(transport.disconnecting)
            lose(transport)
        failed = [line for line in lines if "failing WebSocket" in line]
        dropped = [line for line in lines if "dropping connection" in line]
        self.assertEqual((len(failed), len(dropped)), (1, 1), lines)
        face.clock.advance(limits.LOG_INTERVAL)
        self.assertIn("49 more WebSocket connections failed in the last "
                      "10s", lines)
        self.assertIn("49 more WebSocket connections dropped in the last "
                      "10s", lines)


MESSAGES = [
    {"type": "hello", "version": 1, "name": "fuzz"},
    {"type": "lobby"},
    {"type": "create", "kind": "checkers", "room": "f", "players": 2,
     "bots": True, "level": 1},
    {"type": "create", "kind": "gomoku", "room": "g", "bots": True},
    {"type": "join", "kind": "splendor"},
    {"type": "bots", "count": 3},
    {"type": "ready"},
    {"type": "start"},
    {"type": "act", "action": [7, 7]},
    {"type": "act", "action": [[0, 0], [1, 1]]},
    {"type": "act", "action": {"kind": "get_gems", "gems": [["ruby", 1]]}},
    {"type": "hint"},
    {"type": "resign"},
    {"type": "leave"},
]


def mutate(rng, text):
    """
    C{text} with a few bytes changed, cut, doubled or dropped.
    """
    data = bytearray(text.encode("utf-8"))
    for _ in range(rng.randint(1, 4)):
        choice = rng.random()
        where = rng.randrange(len(data) + 1)
        if choice < 0.3 and data:
            # Mostly ASCII: a text frame that is not UTF-8 closes the
            # connection (autobahn checks), and the fuzzing is for what
            # the hub reads.
            data[min(where, len(data) - 1)] = rng.randrange(
                256 if rng.random() < 0.02 else 128)
        elif choice < 0.5:
            data[where:where] = bytes([rng.choice(b'{}[]",:0123456789')])
        elif choice < 0.7:
            del data[where:where + rng.randint(1, 5)]
        elif choice < 0.85:
            data[where:where] = data[:rng.randint(0, 20)]
        else:
            data = data[:where]
    return bytes(data)


def fuzzedFrames(rng, payload):
    """
    The frames of one message C{payload} as a fuzzer sends them: cut into
    one to L{ws.MAX_FRAMES} + 2 fragments (some empty), with control
    frames between them, and now and then what the protocol forbids: an
    RSV bit, a control frame over 125 bytes or fragmented, a continuation
    or a new message out of place, a close or a cut in the middle.
    """
    count = rng.choice((1, 1, 1, 2, 3, rng.randint(1, ws.MAX_FRAMES + 2)))
    cuts = sorted(rng.randint(0, len(payload)) for _ in range(count - 1))
    pieces = [payload[a:b] for a, b in zip([0] + cuts,
                                           cuts + [len(payload)])]
    frames = []
    for index, piece in enumerate(pieces):
        frame = clientFrame(piece, opcode=0 if index else 1,
                            fin=index == count - 1)
        roll = rng.random()
        if roll < 0.01:
            frame = bytes([frame[0] | rng.choice((0x10, 0x20, 0x40))]) \
                + frame[1:]
        elif roll < 0.02:
            frame = clientFrame(piece, opcode=rng.choice((0, 1, 3)),
                                fin=rng.random() < 0.5)
        frames.append(frame)
        if index < count - 1 or rng.random() < 0.2:
            roll = rng.random()
            if roll < 0.15:
                frames.append(clientFrame(os.urandom(rng.randrange(126)),
                                          opcode=rng.choice((9, 10))))
            elif roll < 0.17:
                frames.append(clientFrame(b"p" * rng.randint(126, 300),
                                          opcode=9))
            elif roll < 0.18:
                frames.append(clientFrame(b"p", opcode=9, fin=False))
            elif roll < 0.19:
                frames.append(clientFrame(
                    struct.pack("!H", rng.choice((1000, 1001, 1008, 999,
                                                  5000))), opcode=8))
            elif roll < 0.20:
                frames.append(clientFrame(b"", opcode=rng.choice((11, 3))))
    if rng.random() < 0.02:
        frames[-1] = frames[-1][:rng.randrange(len(frames[-1]))]
    return frames


def loggedFailures(testCase):
    """
    The list of the failures logged from now to the end of C{testCase}.
    """
    failures = []

    def observe(event):
        if event.get("log_failure") is not None:
            failures.append(event)
    globalLogPublisher.addObserver(observe)
    testCase.addCleanup(globalLogPublisher.removeObserver, observe)
    return failures


class FuzzTests(SynchronousTestCase):
    """
    100,000 random and mutated frames: the hub answers or closes, never
    raises, and holds what it held.
    """

    def test_fuzz(self):
        face = Face(limits=Limits(maxSendBuffer=1 << 20))
        self.addCleanup(face.stop)
        rng = random.Random(2026)
        failures = loggedFailures(self)
        texts = [json.dumps(m) for m in MESSAGES]
        channel = transport = None
        connections = 0
        maxrss = None
        for index in range(100000):
            if transport is None or transport.disconnecting:
                if transport is not None:
                    lose(transport)
                channel, transport = face.connect()
                connections += 1
                socket = socketOf(transport)
            roll = rng.random()
            if roll < 0.45:
                frame = clientFrame(rng.choice(texts))
            elif roll < 0.85:
                frame = clientFrame(mutate(rng, rng.choice(texts)),
                                    opcode=rng.choice((1, 1, 1, 2)))
            elif roll < 0.99:
                frame = clientFrame(bytes(rng.randrange(128) for _ in
                                          range(rng.randrange(40))),
                                    opcode=rng.choice((1, 1, 2, 9, 10)))
            else:
                frame = bytes(rng.randrange(256)
                              for _ in range(rng.randrange(1, 30)))
            socket.dataReceived(frame)
            transport.clear()
            if index % 997 == 0:
                face.clock.advance(1)
            if index == 20000:
                gc.collect()
                maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        lose(transport)
        face.clock.advance(60)
        gc.collect()
        grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - maxrss
        self.assertEqual(failures, [])
        self.assertGreater(connections, 100)
        # Bounded: what the players left behind is gone.
        self.assertEqual(face.site.play.players, {})
        self.assertEqual(face.site.gate.connections, 0)
        self.assertEqual(list(face.hub.sessions), [])
        self.assertLess(grown, 64 * 1024, "max RSS grew by {} KiB".format(
            grown))

    def test_frameFuzz(self):
        """
        20,000 messages cut into random frames, with what RFC 6455 allows
        and forbids between them: empty continuations, pings and pongs
        between fragments, control frames over 125 bytes, RSV bits,
        continuations out of place, closes in the middle of a message,
        too many frames; each read cut anywhere.  The hub answers or
        closes, never raises, and holds nothing of the connections once
        they are gone.
        """
        face = Face(limits=Limits(maxSendBuffer=1 << 20, frameSeconds=20,
                                  requestRate=1000, requestBurst=2000,
                                  requestOverdraft=2000))
        self.addCleanup(face.stop)
        rng = random.Random(33)
        failures = loggedFailures(self)
        texts = [json.dumps(m).encode("utf-8") for m in MESSAGES]
        transport = socket = None
        connections = cut = 0
        for index in range(20000):
            if transport is None or transport.disconnecting:
                if transport is not None:
                    lose(transport)
                channel, transport = face.connect()
                while transport is None:
                    # Refused: its address flooded (too many frames).
                    face.clock.advance(1)
                    channel, transport = face.connect()
                connections += 1
                socket = socketOf(transport)
                transport.clear()
            data = b"".join(fuzzedFrames(rng, rng.choice(texts)))
            while data:
                size = rng.choice((len(data), rng.randrange(1, 40)))
                socket.dataReceived(data[:size])
                data = data[size:]
            if transport.disconnecting:
                cut += closeCode(transport.value()) is not None
            transport.clear()
            if index % 499 == 0:
                face.clock.advance(rng.choice((1, 25)))
        lose(transport)
        face.clock.advance(60)
        self.assertEqual(failures, [])
        self.assertGreater(connections, 100)
        self.assertGreater(cut, 10)
        self.assertEqual(face.site.play.players, {})
        self.assertEqual(face.site.gate.connections, 0)
        self.assertEqual(list(face.hub.sessions), [])
