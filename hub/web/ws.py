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
  - its client is the opening request's (L{hub.web.errors.HubRequest}:
    behind a trusted proxy, the one the proxy names): its address is the
    one its limits, bans and logs use (L{PlaySocket.clientHost});
  - the connection was one of the web port's HTTP connections, admitted
    by its L{hub.limits.FaceGate}: it keeps that place until it closes
    (a trusted proxy's connection, admitted without an address, is
    counted toward its client's C{--web-max-connections-per-ip} from
    the upgrade on);
  - it is closed when a ban comes to cover its address or account
    (L{hub.web.door}), or its login session ends (L{hub.accounts.
    websessions.SessionWatch});
  - its messages are metered as a game connection's frames are
    (C{--request-rate}, C{--request-burst}, C{--request-overdraft},
    with the address's debt remembered by the hub's gate): past the
    rate it is not read, past the overdraft it is cut;
  - what it is sent goes through the hub's L{ImmediateWriter} (at once
    while the socket takes it; the writer holds the transport's producer
    slot while the transport has a backlog, the HTTP channel's hold on
    it gone with the upgrade), and a connection owed more than
    C{--max-send-buffer} bytes is cut (the slow-consumer cut of
    L{hub.connection});
  - nothing received for C{--idle-seconds} closes it.

All the framing, reading and writing, is autobahn's.  A move costs the
hub little more than a legacy client's (docs/benchmarks.md,
C{bench/ws_gomoku.py}) through autobahn's own means:

  - a text that goes to several players is framed once (the factory's
    C{prepareMessage}; its frame is what C{sendPreparedMessage} would
    send, autobahn's way to broadcast);
  - messages are read through its advanced API's C{onMessageFrameEnd}
    and C{onMessageEnd}, without the per-frame C{onMessageFrame} call
    and the per-message C{message} signal that no one here uses;
  - a read goes to its parser without the debug line of its Twisted
    protocol's C{dataReceived} (whose arguments cost more than the
    read's frame header);
  - its UTF-8 check while reading (C{utf8validateIncoming}) is off:
    Python's strict decoder checks each whole message once instead,
    and fails the connection as autobahn would;
  - its debug lines are off at txaio's log level (its default, C{info};
    the hub does not change it).
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
#: Close code of a connection whose login session ended (logout, a
#: password or role change, another login): one of the application's
#: own (4000-4999), as HTTP's 401.
SESSION_ENDED = 4401

#: The hub's own lines (a socket's C{log} is autobahn's txaio logger).
_log = Logger()


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


class PlaySocket(WebSocketServerProtocol, TimeoutMixin):
    """
    One browser's WebSocket: its text messages go to the factory's
    L{playing.WebPlay}, whose answers come back through L{sendText}.

    @ivar player: the L{playing.WebPlayer} after C{hello}, else None.
    @ivar visitor: the L{hub.accounts.websessions.Visitor} of the opening
        request's login cookie (read once, as the WebSocket opens), or
        None (a guest).
    """

    player = None
    visitor = None
    host = None
    #: The client's address, from the opening request (given by the
    #: factory, L{PlayResource}); None for the TCP peer's.
    forwardedFor = None
    _watch = None
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
            _log.info("refused a WebSocket from origin {origin!r}",
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
        if visitor is not None and visitor.session is not None and \
                not visitor.banned:
            # Closed when its session ends (logout, password, role...).
            self._watch = self.factory.auth.watchSession(
                visitor, lambda: self.end(SESSION_ENDED, "session ended"))
        return None

    def clientHost(self):
        """
        The client's address: the opening request's (behind a trusted
        proxy, the one it names), else the TCP peer's; or None.
        """
        return self.forwardedFor or getattr(self.transport.getPeer(), "host",
                                            None)

    def end(self, code, reason):
        """
        Close the connection now with C{code} and C{reason} (a ban, a
        session that ended): the close frame is sent if the socket takes
        it, and the connection is dropped without waiting for an answer.
        """
        if self._gone:
            return
        if self.state == self.STATE_OPEN:
            self.sendClose(code, reason)
        self._gone = True
        if self._writer is not None:
            self._writer.close()
        transport = self.transport
        getattr(transport, "abortConnection", transport.loseConnection)()

    def _unidentified(self, failure):
        _log.failure("the login of a WebSocket was not read", failure)
        raise ConnectionDeny(ConnectionDeny.SERVICE_UNAVAILABLE,
                             "logins cannot be read now")

    _writer = None

    def connectionMade(self):
        WebSocketServerProtocol.connectionMade(self)
        # The HTTP channel this connection was is done with it (autobahn
        # took its transport): its hold on the transport's producer slot
        # goes, and the hub's own writer takes the slot whenever the
        # transport has a backlog, as on a game connection.  The writer
        # cuts a connection owed more than --max-send-buffer bytes.
        transport = self.transport
        if getattr(transport, "producer", None) is not None:
            transport.unregisterProducer()
        most = self.factory.sessions.limits.maxSendBuffer
        self._writer = ImmediateWriter(
            transport, most or None, self._sendBufferOverflowed)

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
            self.host = self.clientHost()
            self._bucket = gate.bucketFor(self.host)

    def dataReceived(self, data):
        """
        Bytes read: straight to autobahn's frame parser (the
        C{_dataReceived} its Twisted protocol calls), without the debug
        line that protocol writes first, whose arguments (autobahn's
        C{hltype}, C{hlval}) it computes for every read even when debug
        lines are off.
        """
        self._dataReceived(data)

    def onMessageFrameEnd(self):
        """
        A frame of a message read: its data joins the message's, as
        autobahn's own C{onMessageFrameEnd} has its C{onMessageFrame} do,
        without that call (the frame-based API, which no one here uses).
        """
        if not self.failedByMe:
            self.message_data.extend(self.frame_data)
        self.frame_data = None

    def onMessageEnd(self):
        """
        A whole message: to L{onMessage}, as autobahn's own
        C{onMessageEnd} does, without firing its C{message} signal (a
        Deferred a message, which no one here listens to).
        """
        if not self.failedByMe:
            payload, self.message_data = b"".join(self.message_data), None
            self.onMessage(payload, self.message_is_binary)

    def onMessage(self, payload, isBinary):
        """
        One message: metered, then a text goes to the play; a binary
        message is answered with an error.  A text that is not UTF-8
        fails the connection (autobahn's own check of it while reading,
        C{utf8validateIncoming}, is off: Python's strict decoder here is
        the same check, once, on the whole message).
        """
        self.resetTimeout()
        if self._gone or not self.countMessage():
            return
        if isBinary:
            self.sendText(self.factory.play.error(
                playing.BAD_MESSAGE, "messages are text"))
            return
        try:
            text = payload.decode("utf-8")
        except UnicodeDecodeError:
            # Failed as autobahn fails a connection (its failByDrop).
            self.failedByMe = True
            self.wasNotCleanReason = "a text message that is not UTF-8"
            self.dropConnection(abort=True)
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
        Send one text message (framed by autobahn, once for all who are
        sent the same text: L{PlayFactory.prepared}); a connection then
        owed more than C{--max-send-buffer} bytes is cut.  (What the hub
        sends is not held to C{maxMessagePayloadSize}, the bound of what
        a browser sends: the lobby, or a Splendor turn's legal actions,
        may be longer.)
        """
        if self._gone or self.state != self.STATE_OPEN:
            return
        # sendPreparedMessage, for a connection without permessage-deflate
        # (the factory accepts none): the frame's bytes, to the writer.
        self._writer.write(self.factory.prepared(text).payloadHybi)

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
        self.factory.sessions.gate.limited(limit, self.clientHost(), why)
        transport = self.transport
        transport.loseConnection()
        abort = getattr(transport, "abortConnection", None)
        if abort is not None:
            abort()
            dropUnsent(transport)

    def timeoutConnection(self):
        _log.info("closing a WebSocket idle for {seconds}s",
                  seconds=self.timeOut, event="closed")
        self.transport.loseConnection()

    def connectionLost(self, reason):
        self._gone = True
        self.setTimeout(None)
        self.factory.sockets.discard(self)
        watch, self._watch = self._watch, None
        if watch is not None:
            watch.stop()
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
    @ivar sockets: the live L{PlaySocket}s.
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
            autoPingInterval=0, allowNullOrigin=False,
            utf8validateIncoming=False)
        self._admission = None
        self.sockets = set()

    _lastText = _lastPrepared = None

    def prepared(self, text):
        """
        The text message C{text}, framed by autobahn
        (C{prepareMessage}); the last one made is kept, as the same text
        usually goes to several players in turn.
        """
        if text is self._lastText:
            return self._lastPrepared
        prepared = self.prepareMessage(text.encode("utf-8", "surrogatepass"))
        self._lastText, self._lastPrepared = text, prepared
        return prepared

    def admitted(self, gate, host, client=None):
        """
        The next protocol built holds the web gate's place of C{host}, and
        is the client C{client}'s (its address, or None for the peer's).
        """
        self._admission = (gate, host, client)

    def buildProtocol(self, addr):
        protocol = WebSocketServerFactory.buildProtocol(self, addr)
        admission, self._admission = self._admission, None
        if admission is not None:
            gate, host, protocol.forwardedFor = admission
            protocol._admission = (gate, host)
        self.sockets.add(protocol)
        return protocol


class PlayResource(WebSocketResource):
    """
    C{/ws}: the site's HTTP connection becomes the WebSocket, and its
    place at the web port's gate goes with it.
    """

    def render(self, request):
        channel = request.channel
        gate = getattr(channel, "gate", None)
        client = getattr(request.getClientAddress(), "host", None)
        claimed = None
        if gate is not None and channel.transport is not None:
            host = channel.admittedHost
            if host is None and client is not None:
                # A trusted proxy's connection: from now on its one
                # client's.
                if not gate.claim(client):
                    request.setResponseCode(429, b"Too Many Requests")
                    return b"too many connections\n"
                host = claimed = client
            # The channel will never hear of its connection again: the
            # socket frees the place instead, and the channel's idle
            # timer stops.
            self._factory.admitted(gate, host, client)
            channel.gate = None
            channel.setTimeout(None)
        try:
            return WebSocketResource.render(self, request)
        finally:
            leftover, self._factory._admission = self._factory._admission, \
                None
            if leftover is not None:
                channel.gate = leftover[0]
                gate.unclaim(claimed)
