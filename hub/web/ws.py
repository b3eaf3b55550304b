"""
C{/ws}: the WebSocket of browser play, on autobahn's Twisted integration
in the web face's site.  What the messages mean is L{hub.web.play}'s;
here is the connection, under the limits of every connection of the hub
(L{hub.connection.ServerConnection}): every frame counts toward the
request rate, a message may come in at most L{MAX_FRAMES} frames and
within C{--frame-seconds}, and a limit closes the connection at once.
Its client is the opening request's (behind a trusted proxy, the one
the proxy names); it is closed when a ban comes to cover its address or
account (L{hub.web.door}), or its login session ends
(L{hub.accounts.websessions.SessionWatch}).

docs/web.md ("The connection's limits") says what each limit does and
how a move stays cheap; the parts of autobahn used beyond its API are in
L{hub.twistedinternals}.
"""

from __future__ import annotations

from urllib.parse import urlsplit
from typing import Any, Optional, Set, Union

from autobahn.twisted.resource import WebSocketResource
from autobahn.twisted.websocket import (
    WebSocketServerFactory, WebSocketServerProtocol)
from autobahn.websocket.types import ConnectionDeny, ConnectionRequest
from twisted.logger import Logger
from twisted.internet.interfaces import IReactorTime
from twisted.python.failure import Failure

from hub.connection import ServerConnection
from hub.limits import WS_MESSAGE_FRAMES
from hub.twistedinternals import (
    deliverMessage, dropMessage, dropUnparsed, failInvalidPayload,
    frameParser, framedText, joinFrame, producerOf, sendCloseFrame, setLog,
    unparsedBytes)
from hub.web import play as playing

#: Bytes of one message (and one frame) at most: every request of the
#: protocol fits in far less.
MAX_MESSAGE = 8192
#: Frames one message may come in (a browser sends one).
MAX_FRAMES = 16
#: Bytes of a read given to autobahn's parser at a time: it copies what
#: it holds after each frame, so that a read of many tiny frames costs
#: the square of its length unless cut into pieces.
READ_PIECE = 4096
#: Close codes: a connection cut by a limit, a message in too many frames.
POLICY_VIOLATION = 1008
MESSAGE_TOO_BIG = 1009
#: Close code of a connection whose login session ended (logout, a
#: password or role change, another login): one of the application's
#: own (4000-4999), as HTTP's 401.
SESSION_ENDED = 4401

#: The hub's own lines.
_log = Logger()


def sameOrigin(origin: str, host: Any) -> Any:
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


class SocketLog:
    """
    The log autobahn writes to for each socket (L{setLog}): its debug
    lines dropped, the rest (a connection failed or dropped, a handshake
    refused: lines that come once per connection) summarised with the
    game ports' closes (L{hub.limits.SummaryLog}: one line per kind an
    interval, then a count), a traceback logged as it is.

    @param summary: the hub gate's L{hub.limits.SummaryLog}.
    """

    #: The kind of each of autobahn's lines, by its format.
    KINDS = {
        'failing WebSocket connection (code={code}): "{reason}"':
            "WebSocket connections failed",
        "dropping connection to peer {peer} with abort={abort}: {reason}":
            "WebSocket connections dropped",
        "failing WebSocket opening handshake ('{reason}')":
            "WebSocket handshakes refused",
    }

    def __init__(self, summary: Any) -> None:
        self.summary = summary

    def debug(self, *args: Any, **fields: Any) -> None:
        pass

    trace = debug

    def info(self, format: str, *args: Any, **fields: Any) -> None:
        kind = self.KINDS.get(format)
        if kind is None:
            kind = "autobahn lines: " + str(format).split("{", 1)[0].strip()
        self.summary.note(kind, format, **fields)

    warn = error = critical = info

    def failure(self, format: Optional[str] = None,
                failure: Optional[Failure] = None, **fields: Any) -> None:
        _log.failure(format or "in autobahn", failure, **fields)


class PlaySocket(ServerConnection, WebSocketServerProtocol):
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
    _watch = None
    _admission: Any = None
    _open = False
    _gone = False
    # Set once autobahn's own sendData had to queue (never in the hub's
    # use): from then on it sends everything, in order.
    _libraryQueues = False
    # Data frames of the message under way.
    _messageFrames = 0

    _readFrames = frameParser(WebSocketServerProtocol)
    onMessageFrameEnd = joinFrame
    onMessageEnd = deliverMessage

    def onConnect(self, request: ConnectionRequest) -> Any:
        origin = request.headers.get("origin")
        if origin is not None and not sameOrigin(
                origin, request.headers.get("host")):
            self.logClosing("WebSockets refused for their origin",
                            "refused a WebSocket from origin {origin!r}",
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

    def _identified(self, visitor: Any) -> None:
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

    def clientHost(self) -> Any:
        """
        The client's address: the opening request's (behind a trusted
        proxy, the one it names), else the TCP peer's; or None.
        """
        return self.peerAddress()

    def end(self, code: Any, reason: Any) -> None:
        """
        Close the connection now with C{code} and C{reason} (a ban, a
        session that ended): the close frame is sent if the socket takes
        it, nothing more of it is read, and the connection is dropped
        without waiting for an answer.
        """
        if self._gone:
            return
        self._gone = True
        if self._open:
            self._open = False
            sendCloseFrame(self, code, reason)
        dropUnparsed(self)
        self.writer.close()
        transport: Any = self.transport
        getattr(transport, "abortConnection", transport.loseConnection)()

    def _unidentified(self, failure: Failure) -> None:
        _log.failure("the login of a WebSocket was not read", failure)
        raise ConnectionDeny(ConnectionDeny.SERVICE_UNAVAILABLE,
                             "logins cannot be read now")

    def connectionMade(self) -> None:
        WebSocketServerProtocol.connectionMade(self)
        # The HTTP channel this connection was is done with it (autobahn
        # took its transport): its hold on the transport's producer slot
        # goes, and the connection's writer takes the slot whenever the
        # transport has a backlog, as on a game connection.
        transport: Any = self.transport
        if producerOf(transport) is not None:
            transport.unregisterProducer()
        self.prepareConnection()

    def onOpen(self) -> None:
        self._open = True
        self.startLimits(self.peerAddress())

    # What comes in.

    def dataReceived(self, data: Any) -> None:
        """
        Bytes read: to autobahn's frame parser (L{frameParser}: without
        the debug line of its Twisted protocol's C{dataReceived}), in
        pieces of at most L{READ_PIECE} bytes.
        """
        if self._gone:
            return
        self.resetTimeout()
        if len(data) <= READ_PIECE:
            self._readFrames(data)
            return
        for start in range(0, len(data), READ_PIECE):
            if self._gone:
                return
            self._readFrames(data[start:start + READ_PIECE])

    def onMessageFrameBegin(self, length: int) -> None:
        """
        A data frame begins, the first of a message or a continuation, of
        any length: autobahn's size checks, then it counts toward the
        request rate, and toward its message's frames (one past
        L{MAX_FRAMES} closes the connection, 1009, and puts its address in
        flooding debt).
        """
        WebSocketServerProtocol.onMessageFrameBegin(self, length)
        frames = self._messageFrames = self._messageFrames + 1
        if frames > MAX_FRAMES:
            # Only a flood does that: the address is in debt, as a
            # flooder's is (refused at every door until it is paid).
            bucket = self._bucket
            if bucket is not None and self._gate is not None:
                bucket.overdraw()
                self._gate.flooded(self._host, bucket)
            self.cutConnection(
                WS_MESSAGE_FRAMES, "a message in more than {} frames".format(
                    MAX_FRAMES), MESSAGE_TOO_BIG)
        elif self._bucket is not None:
            self.countRequest()

    def onPing(self, payload: Any) -> None:
        """
        A ping counts toward the request rate, then autobahn answers it.
        """
        if self._bucket is not None:
            self.countRequest()
        if not self._gone:
            WebSocketServerProtocol.onPing(self, payload)

    def onPong(self, payload: Any) -> None:
        """
        A pong (none was asked for) counts toward the request rate.
        """
        if self._bucket is not None:
            self.countRequest()

    def onCloseFrame(self, code: Any, reasonRaw: Any) -> Any:
        """
        A close counts toward the request rate, then autobahn answers it.
        """
        if self._bucket is not None:
            self.countRequest()
        self._open = False
        if self._gone:
            return True
        return WebSocketServerProtocol.onCloseFrame(self, code, reasonRaw)

    def onMessage(self, payload: Any, isBinary: bool) -> None:
        """
        One message: a text goes to the play; a binary message is
        answered with an error.  A text that is not UTF-8 fails the
        connection (autobahn's own check of it while reading,
        C{utf8validateIncoming}, is off: Python's strict decoder is the
        same check, once, on the whole message).
        """
        self._messageFrames = 0
        if self._gone:
            return
        if isBinary:
            self.sendText(self.factory.play.error(
                playing.BAD_MESSAGE, "messages are text"))
            return
        try:
            text = payload.decode("utf-8")
        except UnicodeDecodeError:
            failInvalidPayload(self, "a text message that is not UTF-8")
            return
        self.factory.play.received(self, text)

    def framePending(self) -> Any:
        """
        Whether a message, or a frame's header, is begun and not finished
        (timed by C{--frame-seconds}).
        """
        return self._messageFrames > 0 or unparsedBytes(self) > 0

    def dropPartialFrame(self) -> None:
        self._messageFrames = 0
        dropMessage(self)

    # What goes out.

    def sendData(self, data: Any, sync: bool = False,
                 chopsize: Any = None) -> None:
        """
        What autobahn sends (the handshake's answer, frames) goes out
        through the connection's writer: at once while the socket takes
        it, behind what the transport holds otherwise.
        """
        if sync or chopsize or self._libraryQueues:
            self._libraryQueues = True
            WebSocketServerProtocol.sendData(self, data, sync, chopsize)
            return
        self.writer.write(data)

    def sendText(self, text: str) -> None:
        """
        Send one text message (framed by autobahn, once for all who are
        sent the same text: L{PlayFactory.framed}); a connection then
        owed more than C{--max-send-buffer} bytes is cut.  (What the hub
        sends is not held to L{MAX_MESSAGE}, the bound of what a browser
        sends: the lobby, or a Splendor turn's legal actions, may be
        longer.)
        """
        if self._open:
            self.writer.write(self.factory.framed(text))

    def close(self) -> None:
        """
        Close the connection (another took the player over).
        """
        if self._open:
            self._open = False
            self.sendClose(1000, "replaced by another connection")

    def cutConnection(self, limit: Any, why: str,
                      code: Any = POLICY_VIOLATION) -> None:
        """
        Close the connection at once for C{limit}: a close frame with
        C{code} if it is open, nothing more of it read, then what every
        connection does (L{ServerConnection.cutConnection}: what it is
        owed dropped, counted and logged).
        """
        if self._gone:
            return
        self._gone = True
        if self._open:
            self._open = False
            sendCloseFrame(self, code, why)
        dropUnparsed(self)
        ServerConnection.cutConnection(self, limit, why)

    def connectionLost(self, reason):
        self._gone = True
        self._open = False
        self.endConnection()
        self.factory.sockets.discard(self)
        watch, self._watch = self._watch, None
        if watch is not None:
            watch.stop()
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
    @param sessions: the hub's sessions (their limits, gate, clock and
        idle seconds).
    @param clock: the hub's clock (that of the sessions).
    @param auth: the web face's L{hub.web.auth.WebAuth}, whose login
        cookie says who a socket is, or None (every player a guest).
    @ivar sockets: the live L{PlaySocket}s.
    """

    protocol = PlaySocket

    def __init__(self, play: Any, sessions: Any, clock: IReactorTime,
                 auth: Any = None) -> None:
        WebSocketServerFactory.__init__(self)
        self.play = play
        self.sessions = sessions
        self.clock = clock
        self.auth = auth
        self.socketLog = SocketLog(sessions.gate.summary)
        # The request reached the site in full before the upgrade, and a
        # connection that never answers a close is the idle timeout's:
        # autobahn starts no timer of its own (on the global reactor).
        self.setProtocolOptions(
            maxMessagePayloadSize=MAX_MESSAGE,
            maxFramePayloadSize=MAX_MESSAGE,
            openHandshakeTimeout=0, closeHandshakeTimeout=0,
            autoPingInterval=0, allowNullOrigin=False,
            utf8validateIncoming=False)
        self._admission: Any = None
        self.sockets: Set[Any] = set()

    _lastText = _lastFramed = None

    def framed(self, text: str) -> Any:
        """
        The bytes of the text message C{text}, framed by autobahn
        (L{framedText}); the last one made is kept, as the same text
        usually goes to several players in turn.
        """
        if text is self._lastText:
            return self._lastFramed
        framed = framedText(self, text.encode("utf-8", "surrogatepass"))
        self._lastText, self._lastFramed = text, framed
        return framed

    def admitted(self, gate: Any, host: Any, client: Any = None) -> None:
        """
        The next protocol built holds the web gate's place of C{host}, and
        is the client C{client}'s (its address, or None for the peer's).
        """
        self._admission = (gate, host, client)

    def unadmitted(self) -> Any:
        """
        What L{admitted} was told that no protocol took (a refused
        upgrade): C{(gate, host, client)}, or None.
        """
        leftover, self._admission = self._admission, None
        return leftover

    def buildProtocol(self, addr: Any) -> Any:
        protocol: Any = WebSocketServerFactory.buildProtocol(self, addr)
        admission, self._admission = self._admission, None
        if admission is not None:
            gate, host, protocol.forwardedFor = admission
            protocol._admission = (gate, host)
        setLog(protocol, self.socketLog)
        self.sockets.add(protocol)
        return protocol


class PlayResource(WebSocketResource):
    """
    C{/ws}: the site's HTTP connection becomes the WebSocket, and its
    place at the web port's gate goes with it.

    @param factory: the L{PlayFactory}.
    """

    def __init__(self, factory: Any) -> None:
        WebSocketResource.__init__(self, factory)
        self.factory = factory

    def render(self, request: Any) -> Union[bytes, int]:
        channel = request.channel
        gate: Any = getattr(channel, "gate", None)
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
            self.factory.admitted(gate, host, client)
            channel.gate = None
            channel.setTimeout(None)
        try:
            return WebSocketResource.render(self, request)
        finally:
            leftover = self.factory.unadmitted()
            if leftover is not None:
                channel.gate = leftover[0]
                gate.unclaim(claimed)
