"""
C{/ws}: the WebSocket of browser play, built on autobahn's Twisted
integration and mounted in the web face's site.  What the messages mean
is L{hub.web.play}'s; here is the connection and what it may cost:

  - who it is: with accounts, the login cookie of the opening request is
    read (L{hub.web.auth.WebAuth.cookieVisitor}) before the upgrade
    completes, once; a store that cannot be read refuses it with 503;

  - only the hub's own origin: a browser's C{Origin} must name the host
    the page came from (the request's C{Host}), else the handshake is
    refused with 403 (cross-site WebSocket hijacking); a client that
    sends no C{Origin} is not a browser page and is let in;
  - autobahn's C{maxMessagePayloadSize} and C{maxFramePayloadSize}
    (L{MAX_MESSAGE}): a longer message closes the connection;
  - the connection was one of the web port's HTTP connections, admitted
    by its L{hub.limits.FaceGate}: it keeps that place until it closes;
  - its messages are metered as a game connection's frames are
    (C{--request-rate}, C{--request-burst}, C{--request-overdraft},
    with the address's debt remembered by the hub's gate): past the
    rate it is not read, past the overdraft it is cut;
  - what it is sent goes through the hub's L{ImmediateWriter} (at once
    while the socket takes it), and a connection owed more than
    C{--max-send-buffer} bytes is cut (the slow-consumer cut of
    L{hub.connection});
  - nothing received for C{--idle-seconds} closes it.

A move costs the hub little more than a legacy client's
(docs/benchmarks.md, C{bench/ws_gomoku.py}): what nearly every message
is, a short text frame in one piece, is read and written here without
autobahn's general machinery (L{PlaySocket.dataReceived},
L{PlaySocket.sendText}), with the same checks; anything else (longer,
fragmented, binary or control frames, a frame cut across reads, a
message that is not UTF-8) is autobahn's, as are the handshake and the
close.
"""

from urllib.parse import urlsplit

from autobahn.twisted.resource import WebSocketResource
from autobahn.twisted.websocket import (
    WebSocketServerFactory, WebSocketServerProtocol)
from autobahn.websocket.types import ConnectionDeny
from twisted.logger import Logger
from twisted.protocols.policies import TimeoutMixin

from hub.connection.control import RATE, TransportControl
from hub.limits import (
    REQUEST_RATE, SEND_BUFFER, THROTTLED_CONNECTIONS)
from hub.connection.immediate import ImmediateWriter
from hub.twistedinternals import dropUnsent
from hub.web import play as playing

#: Bytes of one message (and one frame) at most: every request of the
#: protocol fits in far less.
MAX_MESSAGE = 8192
#: Close code of a connection cut by a limit (policy violation).
POLICY_VIOLATION = 1008
#: The first byte of a whole (FIN) text frame without extension bits.
_TEXT_FIN = 0x81
#: The longest payload whose length fits the frame's second byte.
_SHORT = 125


def unmask(payload, mask):
    """
    The payload of a client frame, unmasked: XOR with its 4-byte C{mask}
    repeated (RFC 6455, 5.3), as one integer operation.
    """
    size = len(payload)
    key = (mask * (size // 4 + 1))[:size]
    return (int.from_bytes(payload, "little")
            ^ int.from_bytes(key, "little")).to_bytes(size, "little")


def textFrame(data):
    """
    The unmasked server frame of one whole text message whose UTF-8 is
    C{data} (RFC 6455, 5.2: what autobahn's C{sendMessage} writes).
    """
    size = len(data)
    if size <= _SHORT:
        return bytes((_TEXT_FIN, size)) + data
    if size < 65536:
        return bytes((_TEXT_FIN, 126)) + size.to_bytes(2, "big") + data
    return bytes((_TEXT_FIN, 127)) + size.to_bytes(8, "big") + data


def sameOrigin(origin, host):
    """
    Whether the C{Origin} header C{origin} names the host and port of the
    C{Host} header C{host} (over HTTP or HTTPS).
    """
    if not origin or not host:
        return False
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    return (parts.scheme in ("http", "https")
            and parts.netloc.lower() == host.strip().lower())


class QuietLogger(Logger):
    """
    A L{Logger} without its debug and trace lines: autobahn writes two
    debug lines per message, which cost a browser's move more than the
    rest of its path through the hub (and are dropped by the hub's log
    level anyway).
    """

    def debug(self, format=None, **kwargs):
        pass

    def trace(self, format=None, **kwargs):
        pass


class PlaySocket(WebSocketServerProtocol, TimeoutMixin):
    """
    One browser's WebSocket: its text messages go to the factory's
    L{playing.WebPlay}, whose answers come back through L{sendText}.

    @ivar player: the L{playing.WebPlayer} after C{hello}, else None.
    @ivar visitor: the L{hub.accounts.websessions.Visitor} of the opening
        request's login cookie (read once, as the WebSocket opens), or
        None (a guest).
    """

    log = QuietLogger()
    player = None
    visitor = None
    host = None
    _admission = None
    _bucket = None
    _resume = None
    _gone = False

    def callLater(self, period, func):
        return self.factory.clock.callLater(period, func)

    def onConnect(self, request):
        origin = request.headers.get("origin")
        if origin is not None and not sameOrigin(
                origin, request.headers.get("host")):
            self.log.info("refused a WebSocket from origin {origin!r}",
                          origin=origin[:100], event="refused")
            raise ConnectionDeny(ConnectionDeny.FORBIDDEN,
                                 "cross-origin WebSocket refused")
        auth = self.factory.auth
        if auth is None:
            return None
        # The handshake completes once the login is read.
        d = auth.cookieVisitor(request.headers.get("cookie"))
        d.addCallbacks(self._identified, self._unidentified)
        return d

    def _identified(self, visitor):
        if self._gone:
            # Lost while the login was read: no upgrade to complete.
            raise ConnectionDeny(ConnectionDeny.BAD_REQUEST, "gone")
        self.visitor = visitor
        return None

    def _unidentified(self, failure):
        self.log.failure("the login of a WebSocket was not read",
                         failure)
        raise ConnectionDeny(ConnectionDeny.SERVICE_UNAVAILABLE,
                             "logins cannot be read now")

    _writer = None

    def connectionMade(self):
        WebSocketServerProtocol.connectionMade(self)
        # The hub's own writer (as the event streams use it: the HTTP
        # channel keeps the transport's producer slot), which cuts a
        # connection owed more than --max-send-buffer bytes.
        most = self.factory.sessions.limits.maxSendBuffer
        self._writer = ImmediateWriter(
            self.transport, most or None, self._sendBufferOverflowed,
            producer=False)

    def sendData(self, data, sync=False, chopsize=None):
        """
        What autobahn sends (the handshake's answer, frames) goes out
        through the hub's L{ImmediateWriter}: at once while the socket
        takes it, behind what the transport holds otherwise.
        """
        if (sync or chopsize or self.send_queue or self._writer is None):
            WebSocketServerProtocol.sendData(self, data, sync, chopsize)
            return
        self._writer.write(data)

    def _sendBufferOverflowed(self):
        self.cut(SEND_BUFFER, "more than {} bytes unsent".format(
            self.factory.sessions.limits.maxSendBuffer))

    def onOpen(self):
        factory = self.factory
        sessions = factory.sessions
        self.setTimeout(sessions.idleSeconds or None)
        limits = sessions.limits
        if limits.requestRate:
            gate = sessions.gate
            self.host = getattr(self.transport.getPeer(), "host", None)
            self._bucket = gate.bucketFor(self.host)

    def dataReceived(self, data):
        """
        Read the whole short text frames that C{data} starts with here,
        and leave the rest to autobahn.

        A frame is read here only while the connection is open and
        between messages (nothing of an earlier frame is held), and only
        if it is whole in C{data}, final, a text frame without extension
        bits, masked (as a client's must be), at most 125 bytes (and
        within the size limits), and UTF-8 (Python's strict decoder: no
        surrogates, no overlong forms, RFC 3629); otherwise that frame
        and all after it go to autobahn, which reads them or fails the
        connection as it always does.  (autobahn's traffic counters,
        unused here, do not count these frames.)
        """
        if (self.state == self.STATE_OPEN and not self.data
                and self.current_frame is None and not self.inside_message
                and self._perMessageCompress is None
                and self.applyMask and not self.logOctets
                and not self.logFrames and self.autoPingTimeoutCall is None):
            # (The limits are far longer than a short frame.)
            short = min(_SHORT, self.maxFramePayloadSize or _SHORT,
                        self.maxMessagePayloadSize or _SHORT)
            end = len(data)
            offset = 0
            while end - offset >= 6:
                second = data[offset + 1]
                size = second & 0x7F
                start = offset + 6
                if (data[offset] != _TEXT_FIN or not second & 0x80
                        or size > short or start + size > end):
                    break
                try:
                    text = unmask(data[start:start + size],
                                  data[offset + 2:start]).decode("utf-8")
                except UnicodeDecodeError:
                    break
                offset = start + size
                self.textReceived(text)
                if self.state != self.STATE_OPEN:
                    break
            if offset == end:
                return
            if offset:
                data = data[offset:]
        # autobahn's own dataReceived only adds a debug line.
        self._dataReceived(data)

    def onMessage(self, payload, isBinary):
        if isBinary:
            self.resetTimeout()
            if self._gone or not self.countMessage():
                return
            self.sendText(self.factory.play.error(
                playing.BAD_MESSAGE, "messages are text"))
            return
        self.textReceived(payload.decode("utf-8"))

    def textReceived(self, text):
        """
        One text message, as a C{str}: metered, then handed to the play.
        """
        self.resetTimeout()
        if self._gone or not self.countMessage():
            return
        self.factory.play.received(self, text)

    def countMessage(self):
        """
        Take a token for one message: a connection out of tokens is not
        read until it has them back, one past its overdraft is cut.

        @return: False if the connection was cut.
        """
        bucket = self._bucket
        if bucket is None:
            return True
        if bucket.take():
            self.factory.sessions.gate.flooded(self.host, bucket)
            self.cut(REQUEST_RATE, "over {:g} messages a second".format(
                bucket.rate))
            return False
        if bucket.tokens < 0 and self._resume is None:
            THROTTLED_CONNECTIONS.inc()
            TransportControl.of(self.transport).pauseReading(RATE)
            self._resume = self.callLater(bucket.wait(), self._resumeReading)
        return True

    def _resumeReading(self):
        self._resume = None
        if self._gone:
            return
        wait = self._bucket.wait()
        if wait > 0:
            self._resume = self.callLater(wait, self._resumeReading)
            return
        TransportControl.of(self.transport).resumeReading(RATE)

    def sendText(self, text):
        """
        Send one text message; a connection then owed more than
        C{--max-send-buffer} bytes is cut.
        """
        if self._gone or self.state != self.STATE_OPEN:
            return
        if (self._perMessageCompress is None and not self.logFrames
                and not self.maskServerFrames
                and self.send_state == self.SEND_STATE_GROUND
                and not self.autoFragmentSize and self._writer is not None):
            # One frame, as autobahn's sendMessage would make it; every
            # player at a table is sent the same text, framed once.
            self.sendData(self.factory.textFrame(text))
            return
        # autobahn holds what it sends to maxMessagePayloadSize too; that
        # bound is for what the browser sends (the lobby, or a Splendor
        # turn's legal actions, may be longer).
        limit, self.maxMessagePayloadSize = self.maxMessagePayloadSize, 0
        try:
            self.sendMessage(text.encode("utf-8", "surrogatepass"))
        finally:
            self.maxMessagePayloadSize = limit

    def close(self):
        """
        Close the connection (another took the player over).
        """
        if not self._gone and self.state == self.STATE_OPEN:
            self.sendClose(1000, "replaced by another connection")

    def cut(self, limit, why):
        """
        Close the connection at once for C{limit}: drop what it is owed,
        count and log it.
        """
        if self._gone:
            return
        self._gone = True
        if self._writer is not None:
            self._writer.close()
        self.factory.sessions.gate.limited(limit, self.transport.getPeer(),
                                           why)
        transport = self.transport
        transport.loseConnection()
        abort = getattr(transport, "abortConnection", None)
        if abort is not None:
            abort()
            dropUnsent(transport)

    def timeoutConnection(self):
        self.log.info("closing a WebSocket idle for {seconds}s",
                      seconds=self.timeOut, event="closed")
        self.transport.loseConnection()

    def connectionLost(self, reason):
        self._gone = True
        self.setTimeout(None)
        if self._writer is not None:
            self._writer.close()
            self._writer.overflowed = None
        if self._resume is not None:
            if self._resume.active():
                self._resume.cancel()
            self._resume = None
        try:
            WebSocketServerProtocol.connectionLost(self, reason)
        finally:
            self.factory.play.connectionLost(self)
            admission, self._admission = self._admission, None
            if admission is not None:
                gate, host = admission
                gate.release(host)


class PlayFactory(WebSocketServerFactory):
    """
    Makes L{PlaySocket}s for a L{playing.WebPlay}.

    @param play: the L{playing.WebPlay}.
    @param sessions: the hub's sessions (their limits, gate, idle
        seconds).
    @param clock: the hub's clock (the sockets' timers).
    @param auth: the web face's L{hub.web.auth.WebAuth}, whose login
        cookie says who a socket is, or None (every player a guest).
    """

    protocol = PlaySocket

    def __init__(self, play, sessions, clock, auth=None):
        WebSocketServerFactory.__init__(self)
        self.play = play
        self.sessions = sessions
        self.clock = clock
        self.auth = auth
        # The request reached the site in full before the upgrade, and a
        # connection that never answers a close is the idle timeout's:
        # autobahn starts no timer of its own (on the global reactor).
        self.setProtocolOptions(
            maxMessagePayloadSize=MAX_MESSAGE,
            maxFramePayloadSize=MAX_MESSAGE,
            openHandshakeTimeout=0, closeHandshakeTimeout=0,
            autoPingInterval=0, allowNullOrigin=False)
        self._admission = None

    _lastText = _lastFrame = None

    def textFrame(self, text):
        """
        The frame (L{textFrame}) of the text message C{text}; the last one
        made is kept, as the same text usually goes to several players in
        turn.
        """
        if text is self._lastText:
            return self._lastFrame
        frame = textFrame(text.encode("utf-8", "surrogatepass"))
        self._lastText, self._lastFrame = text, frame
        return frame

    def admitted(self, gate, host):
        """
        The next protocol built holds the web gate's place of C{host}.
        """
        self._admission = (gate, host)

    def buildProtocol(self, addr):
        protocol = WebSocketServerFactory.buildProtocol(self, addr)
        protocol._admission, self._admission = self._admission, None
        return protocol


class PlayResource(WebSocketResource):
    """
    C{/ws}: the site's HTTP connection becomes the WebSocket, and its
    place at the web port's gate goes with it.
    """

    def render(self, request):
        channel = request.channel
        gate = getattr(channel, "gate", None)
        if gate is not None and channel.transport is not None:
            # The channel will never hear of its connection again: the
            # socket frees the place instead, and the channel's idle
            # timer stops.
            self._factory.admitted(gate, channel.admittedHost)
            channel.gate = None
            channel.setTimeout(None)
        try:
            return WebSocketResource.render(self, request)
        finally:
            leftover, self._factory._admission = self._factory._admission, \
                None
            if leftover is not None:
                channel.gate = leftover[0]
