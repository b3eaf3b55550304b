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
from twisted.logger import globalLogPublisher
from twisted.trial.unittest import SynchronousTestCase

from hub.accounts.websessions import Visitor
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
        (L{ws.PlayFactory.prepared}), uncompressed.
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

    names = moderation = accounts = None

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

    def test_sameTextPreparedOnce(self):
        """
        The text sent to one player and then another is framed once
        (autobahn's C{prepareMessage}); another text is framed anew.
        """
        text = '{"type":"event"}'
        factory = self.socket.factory
        prepared = factory.prepared(text)
        self.assertIs(factory.prepared(text), prepared)
        other = factory.prepared('{"type":"other"}')
        self.assertIsNot(other, prepared)
        self.assertEqual(serverFrames(other.payloadHybi),
                         [(1, b'{"type":"other"}')])

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


class FuzzTests(SynchronousTestCase):
    """
    100,000 random and mutated frames: the hub answers or closes, never
    raises, and holds what it held.
    """

    def test_fuzz(self):
        face = Face(limits=Limits(maxSendBuffer=1 << 20))
        self.addCleanup(face.stop)
        rng = random.Random(2026)
        failures = []

        def observe(event):
            if event.get("log_failure") is not None:
                failures.append(event)
        globalLogPublisher.addObserver(observe)
        self.addCleanup(globalLogPublisher.removeObserver, observe)
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
