"""
Client-side Twisted protocols of the three games, built on L{hub.wire}.

Each protocol only frames and decodes: decoded messages go to a client
state machine (L{hub.client.state.ClientState}) and the state machine's
messages come back through L{sendMessage}.  No pyglet here.  A protocol
also tells the state (L{hub.client.state.ClientState.wrongServer}) when
the peer does not speak the game at all (docs/architecture.md,
C{hub/client/}).

  - gomoku: dicts, framed by L{hub.wire.gomoku.FrameScanner};
  - checkers: L{hub.wire.checkers.Message} C{(op, data1, data2)}, one JSON
    object per line;
  - Splendor: C{(apiId, playerId, body)}, 28-byte header frames read by
    L{hub.wire.splendor.FrameReader}.
"""

from typing import Any, Callable, Dict, Optional, Tuple, Type
from urllib.parse import urlsplit

from hub.client.i18n import _
from twisted.internet import error
from twisted.internet.defer import Deferred
from twisted.internet.endpoints import HostnameEndpoint
from twisted.internet.interfaces import (
    IAddress, IDelayedCall, IProtocol, IReactorTime, ITransport)
from twisted.internet.protocol import Factory, Protocol, connectionDone
from twisted.logger import Logger
from twisted.protocols.basic import LineOnlyReceiver
from twisted.protocols.policies import TimeoutMixin
from twisted.python.failure import Failure

from hub.client.keyed import Hidden
from hub.client.state import ClientState
from hub.net import setNoDelay
from hub.wire import checkers as wireCheckers
from hub.wire import gomoku as wireGomoku
from hub.wire import splendor as wireSplendor

GAME_KINDS = ("checkers", "splendor", "gomoku")
DEFAULT_PORTS = {"checkers": 16666, "splendor": 13204, "gomoku": 11011}
#: Seconds a server has to answer our first request before we say it is
#: not a server of the game.
ANSWER_SECONDS = 5


def parseURL(url: str) -> Tuple[str, str, int]:
    """
    Split C{game://host:port} into C{(game, host, port)}; the host
    defaults to 127.0.0.1 and the port to the game's usual one.

    @raise ValueError: for an unknown game or a malformed URL.
    """
    parts = urlsplit(url)
    game = parts.scheme.lower()
    if game not in GAME_KINDS:
        raise ValueError(
            "unknown game %r: use checkers://, splendor:// or gomoku://"
            % (parts.scheme,))
    try:
        port = parts.port or DEFAULT_PORTS[game]
    except ValueError:
        raise ValueError("bad port in %r" % (url,))
    return game, parts.hostname or "127.0.0.1", port


class _ClientProtocol(Protocol, TimeoutMixin):
    """
    Shared plumbing: attach to the state on connect, detach on loss, and
    find out whether the peer is a server of the game.

    @ivar state: the L{hub.client.state.ClientState} fed by this
        connection.
    @ivar clock: the L{IReactorTime} that times the answer to our first
        request, or None not to time it.
    @ivar answered: a valid message came from the server.
    """

    log = Logger()
    transport: ITransport  # (from connectionMade on)

    def __init__(self, state: ClientState,
                 clock: Optional[IReactorTime] = None) -> None:
        self.state = state
        self.clock = clock
        self.answered = False
        self._asked = False
        self._wrong = False

    def callLater(self, period: float,
                  func: Callable[[], object]) -> IDelayedCall:
        # TimeoutMixin's timer, on the injected clock
        assert self.clock is not None  # (only set with a clock)
        return self.clock.callLater(period, func)

    def connectionMade(self) -> None:
        setNoDelay(self.transport)
        self.state.attach(self)

    def awaitAnswer(self) -> None:
        """
        A request went out (the state calls this on every send); a server
        of the game answers the first one at once.
        """
        self._asked = True
        if (self.clock is not None and not self.answered
                and self.timeOut is None and not self._wrong):
            self.setTimeout(ANSWER_SECONDS)

    def connectionLost(self, reason: Failure = connectionDone) -> None:
        self.setTimeout(None)
        closedByUs = getattr(self.transport, "disconnecting", False)
        if self._asked and not self.answered and not closedByUs:
            self.wrongServer("closed the connection without an answer")
        if self.state.isAttached(self):
            self.state.detach(reason)

    def timeoutConnection(self) -> None:
        self.wrongServer("gave no answer in %d s" % (ANSWER_SECONDS,))
        self.transport.loseConnection()

    def wrongServer(self, reason: str) -> None:
        """
        Tell the state, once, that the peer does not speak the game.
        """
        if not self._wrong:
            self._wrong = True
            self.setTimeout(None)
            self.state.wrongServer(reason)

    def garbled(self, what: str, fatal: bool = False) -> None:
        """
        The server sent C{what} (a readable description) that we cannot
        decode.  Before any valid message it is not a server of the game:
        report it and close.  After, log it, and close if C{fatal}.
        """
        if not self.answered:
            self.wrongServer("sent bytes that are not %s (%s)"
                             % (self.state.game, what))
            self.transport.loseConnection()
            return
        if fatal:
            self.state.error(_("the server sent %s") % (what,))
            self.transport.loseConnection()
        else:
            self.log.warn("bad message from server: {what!r}", what=what)

    def deliver(self, message: object) -> None:
        """
        Give one decoded message to the state, logging its failures.
        """
        if not self.answered:
            self.answered = True
            self.setTimeout(None)
        # (not "message": a legacy log observer takes that key for its own)
        self.log.debug("<- {received!r}", received=self.loggable(message))
        try:
            self.state.messageReceived(message)
        except Exception:
            self.log.failure("client state failed on {received!r}",
                             received=self.loggable(message))

    def loggable(self, message: object) -> object:
        """
        C{message} as the log may show it: never with the play key.
        """
        secret = getattr(self.state, "secret", None)
        return Hidden(message, secret) if secret else message


class GomokuClientProtocol(_ClientProtocol):
    """
    The gomoku-battle protocol, client side.
    """

    def connectionMade(self) -> None:
        self._scanner = wireGomoku.FrameScanner()
        _ClientProtocol.connectionMade(self)

    def dataReceived(self, data: bytes) -> None:
        if not self.answered and not self._scanner.pending() and \
                not data.lstrip().startswith(b"<"):
            # the scanner drops bytes outside frames: a gomoku server
            # never sends any
            self.garbled("%d bytes outside <...> frames" % (len(data),))
            return
        try:
            payloads = self._scanner.feed(data)
        except wireGomoku.FrameTooLong:
            self.garbled("an oversized frame", fatal=True)
            return
        for payload in payloads:
            try:
                message = wireGomoku.decodeMessage(payload)
            except wireGomoku.InvalidMessage as e:
                self.garbled("a bad frame: %s" % (e,))
                if self._wrong:
                    return
                continue
            self.deliver(message)

    def sendMessage(self, message: Dict[str, Any]) -> None:
        """
        Write C{message} (a dict with every field) as one frame.
        """
        self.log.debug("-> {sent!r}", sent=self.loggable(message))
        self.transport.write(wireGomoku.encodeMessage(message))


class CheckersClientProtocol(LineOnlyReceiver, _ClientProtocol):
    """
    The Chinese checkers protocol, client side (JSON lines).
    """

    delimiter = wireCheckers.DELIMITER
    MAX_LENGTH = wireCheckers.MAX_LINE_LENGTH

    def lineReceived(self, line: bytes) -> None:
        if not line.strip():
            return
        try:
            message = wireCheckers.decode(line)
        except wireCheckers.DecodeError as e:
            self.garbled("a bad line: %s" % (e,))
            return
        self.deliver(message)

    def lineLengthExceeded(self, line: bytes) -> None:
        self.garbled("an oversized line", fatal=True)

    def sendMessage(self, message: Tuple[int, str, str]) -> None:
        """
        Write C{message} = C{(op, data1, data2)} as one line.
        """
        op, data1, data2 = message
        self.transport.write(wireCheckers.encode(op, data1, data2))


class SplendorClientProtocol(_ClientProtocol):
    """
    The Splendor protocol, client side (28-byte header + JSON body).
    """

    def connectionMade(self) -> None:
        self._reader = wireSplendor.FrameReader()
        _ClientProtocol.connectionMade(self)

    def dataReceived(self, data: bytes) -> None:
        try:
            frames = self._reader.feed(data)
        except wireSplendor.FrameError as e:
            self.garbled("a bad frame: %s" % (e,), fatal=True)
            return
        for apiId, playerId, raw in frames:
            try:
                body = wireSplendor.decodeBody(raw)
            except wireSplendor.BodyError as e:
                self.garbled("a bad body: %s" % (e,))
                if self._wrong:
                    return
                continue
            self.deliver((apiId, playerId, body))

    def sendMessage(self, message: Tuple[int, int, object]) -> None:
        """
        Write C{message} = C{(apiId, playerId, body)} as one frame.
        """
        apiId, playerId, body = message
        self.transport.write(
            wireSplendor.packClientFrame(apiId, playerId, body))


PROTOCOLS: Dict[str, Type[_ClientProtocol]] = {
    "gomoku": GomokuClientProtocol,
    "checkers": CheckersClientProtocol,
    "splendor": SplendorClientProtocol,
}


class ClientFactory(Factory):
    """
    Builds the protocol of one game for one state machine.

    @ivar clock: handed to each protocol, to time the server's answer
        (None: not timed).
    """

    def __init__(self, game: str, state: ClientState,
                 clock: Optional[IReactorTime] = None) -> None:
        self.protocolClass = PROTOCOLS[game]
        self.state = state
        self.clock = clock

    def buildProtocol(self, addr: Optional[IAddress]) -> _ClientProtocol:
        p = self.protocolClass(self.state, self.clock)
        p.factory = self
        return p


def connectError(failure: Failure) -> str:
    """
    A short reason why a connection attempt failed, for messages.
    """
    if failure.check(error.ConnectionRefusedError):
        return _("connection refused")
    if failure.check(error.TimeoutError):
        return _("no reply (timed out)")
    if failure.check(error.DNSLookupError):
        return _("unknown host")
    return failure.getErrorMessage()


def endpointFor(reactor: Any, host: str, port: int) -> HostnameEndpoint:
    """
    The client endpoint of C{host:port}.
    """
    return HostnameEndpoint(reactor, host, port, timeout=10)


def connect(
        reactor: Any, game: str, host: str, port: int, state: ClientState,
        clock: Optional[IReactorTime] = None) -> "Deferred[IProtocol]":
    """
    Connect C{state} to C{host:port} with C{game}'s protocol, once.

    @param clock: times the server's answer (see L{ANSWER_SECONDS}).
    @return: a Deferred firing with the connected protocol.
    """
    return endpointFor(reactor, host, port).connect(
        ClientFactory(game, state, clock))
