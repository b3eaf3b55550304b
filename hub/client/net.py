"""
Client-side Twisted protocols of the three games, built on L{hub.wire}.

Each protocol only frames and decodes: decoded messages go to a client
state machine (L{hub.client.state.ClientState}) and the state machine's
messages come back through L{sendMessage}.  No pyglet here.

  - gomoku: dicts, framed by L{hub.wire.gomoku.FrameScanner};
  - checkers: L{hub.wire.checkers.Message} C{(op, data1, data2)}, one JSON
    object per line;
  - Splendor: C{(apiId, playerId, body)}, 28-byte header frames read by
    L{hub.wire.splendor.FrameReader}.
"""

from urllib.parse import urlsplit

from twisted.internet.endpoints import HostnameEndpoint
from twisted.internet.protocol import Factory, Protocol
from twisted.logger import Logger
from twisted.protocols.basic import LineOnlyReceiver

from hub.net import setNoDelay
from hub.wire import checkers as wireCheckers
from hub.wire import gomoku as wireGomoku
from hub.wire import splendor as wireSplendor

GAME_KINDS = ("checkers", "splendor", "gomoku")
DEFAULT_PORTS = {"checkers": 16666, "splendor": 13204, "gomoku": 11011}


def parseURL(url):
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


class _ClientProtocol(Protocol):
    """
    Shared plumbing: attach to the state on connect, detach on loss.

    @ivar state: the L{hub.client.state.ClientState} fed by this
        connection.
    """

    log = Logger()

    def __init__(self, state):
        self.state = state

    def connectionMade(self):
        setNoDelay(self.transport)
        self.state.attach(self)

    def connectionLost(self, reason):
        if self.state._protocol is self:
            self.state.detach(reason)

    def deliver(self, message):
        """
        Give one decoded message to the state, logging its failures.
        """
        self.log.debug("<- {message!r}", message=message)
        try:
            self.state.messageReceived(message)
        except Exception:
            self.log.failure("client state failed on {message!r}",
                             message=message)


class GomokuClientProtocol(_ClientProtocol):
    """
    The gomoku-battle protocol, client side.
    """

    def connectionMade(self):
        self._scanner = wireGomoku.FrameScanner()
        _ClientProtocol.connectionMade(self)

    def dataReceived(self, data):
        try:
            payloads = self._scanner.feed(data)
        except wireGomoku.FrameTooLong:
            self.state.error("the server sent an oversized frame")
            self.transport.loseConnection()
            return
        for payload in payloads:
            try:
                message = wireGomoku.decodeMessage(payload)
            except wireGomoku.InvalidMessage as e:
                self.log.warn("bad frame from server: {e}", e=e)
                continue
            self.deliver(message)

    def sendMessage(self, message):
        """
        Write C{message} (a dict with every field) as one frame.
        """
        self.log.debug("-> {message!r}", message=message)
        self.transport.write(wireGomoku.encodeMessage(message))


class CheckersClientProtocol(LineOnlyReceiver, _ClientProtocol):
    """
    The Chinese checkers protocol, client side (JSON lines).
    """

    delimiter = wireCheckers.DELIMITER
    MAX_LENGTH = wireCheckers.MAX_LINE_LENGTH

    def lineReceived(self, line):
        if not line.strip():
            return
        try:
            message = wireCheckers.decode(line)
        except wireCheckers.DecodeError as e:
            self.log.warn("bad line from server: {e}", e=e)
            return
        self.deliver(message)

    def lineLengthExceeded(self, line):
        self.state.error("the server sent an oversized line")
        self.transport.loseConnection()

    def sendMessage(self, message):
        """
        Write C{message} = C{(op, data1, data2)} as one line.
        """
        op, data1, data2 = message
        self.transport.write(wireCheckers.encode(op, data1, data2))


class SplendorClientProtocol(_ClientProtocol):
    """
    The Splendor protocol, client side (28-byte header + JSON body).
    """

    def connectionMade(self):
        self._reader = wireSplendor.FrameReader()
        _ClientProtocol.connectionMade(self)

    def dataReceived(self, data):
        try:
            frames = self._reader.feed(data)
        except wireSplendor.FrameError as e:
            self.state.error("bad frame from the server: %s" % (e,))
            self.transport.loseConnection()
            return
        for apiId, playerId, raw in frames:
            try:
                body = wireSplendor.decodeBody(raw)
            except wireSplendor.BodyError as e:
                self.log.warn("bad body from server: {e}", e=e)
                continue
            self.deliver((apiId, playerId, body))

    def sendMessage(self, message):
        """
        Write C{message} = C{(apiId, playerId, body)} as one frame.
        """
        apiId, playerId, body = message
        self.transport.write(
            wireSplendor.packClientFrame(apiId, playerId, body))


PROTOCOLS = {
    "gomoku": GomokuClientProtocol,
    "checkers": CheckersClientProtocol,
    "splendor": SplendorClientProtocol,
}


class ClientFactory(Factory):
    """
    Builds the protocol of one game for one state machine.
    """

    def __init__(self, game, state):
        self.protocolClass = PROTOCOLS[game]
        self.state = state

    def buildProtocol(self, addr):
        p = self.protocolClass(self.state)
        p.factory = self
        return p


def connect(reactor, game, host, port, state):
    """
    Connect C{state} to C{host:port} with C{game}'s protocol.

    @return: a Deferred firing with the connected protocol.
    """
    endpoint = HostnameEndpoint(reactor, host, port, timeout=10)
    return endpoint.connect(ClientFactory(game, state))
