"""
Links between the nodes of a cluster: a connection handed over by the
node it arrived on, relayed byte for byte to the room's home node.

The arriving node opens a link (L{LinkClient}) and sends one line, the
preface: a JSON object with the game C{kind}, what the home node must
know of the player (gomoku: C{name}, C{token}, C{player}; Splendor: the
C{table} chosen) and C{data}, the bytes the player sent that the home
node must still see (as latin-1 text).  From then on the link carries the
player's bytes both ways, unchanged.  The home node (L{LinkServer}) serves
the link as a client connection of that kind, behind its own gate.
"""

import json
from typing import Any, Callable, Optional

from twisted.internet.address import IPv4Address, IPv6Address
from twisted.internet.interfaces import IAddress, ITransport
from twisted.internet.protocol import Factory, Protocol, connectionDone
from twisted.logger import Logger
from twisted.python.failure import Failure
from twisted.protocols.basic import LineReceiver

from hub.cluster.routes import adopt
from hub.net import setNoDelay
from hub.connection.immediate import relayWriter

# The longest preface accepted (the bytes still to see are small).
MAX_PREFACE = 256 * 1024


class LinkClient(Protocol):
    """
    The arriving node's end of a link: bytes from the home node go to
    the player's connection.
    """

    def __init__(self, gate: Any) -> None:
        self.gate = gate
        self.toPlayer: Optional[Callable[[bytes], object]] = None

    def connectionMade(self) -> None:
        setNoDelay(self.transport)
        self.toPlayer = relayWriter(self.gate.transport)

    def dataReceived(self, data: bytes) -> None:
        assert self.toPlayer is not None  # set when the connection is made
        self.toPlayer(data)

    def connectionLost(self, reason: Failure = connectionDone) -> None:
        self.gate.relayLost()


class LinkClientFactory(Factory):
    """
    Makes the L{LinkClient} of one gate.
    """

    noisy = False

    def __init__(self, gate: Any) -> None:
        self.gate = gate

    def buildProtocol(self, addr: Optional[IAddress]) -> LinkClient:
        protocol = LinkClient(self.gate)
        protocol.factory = self
        return protocol


class LinkServer(LineReceiver):
    """
    The home node's end of a link: after the preface, a client connection
    of the preface's kind.
    """

    delimiter = b"\n"
    MAX_LENGTH = MAX_PREFACE
    log = Logger()
    transport: ITransport

    def __init__(self) -> None:
        self.gate: Any = None

    def connectionMade(self) -> None:
        setNoDelay(self.transport)

    def lineReceived(self, line: bytes) -> None:
        try:
            preface = json.loads(line)
            kind = preface["kind"]
            factory = self.factory.cluster.gatedFactories[kind]
            data = preface.get("data", "").encode("latin-1")
        except Exception:
            self.log.warn("cluster: bad link preface; closing")
            self.transport.loseConnection()
            return
        self.factory.cluster.countServed()
        peer, forwarded = self.transport.getPeer(), preface.get("peer")
        if forwarded is not None:
            # The client's address, which the connection limits count.
            peer = (IPv6Address if ":" in forwarded else IPv4Address)(
                "TCP", forwarded, 0)
        gate = factory.buildProtocol(peer)
        if gate is None:
            # Refused (the client's address flooded).
            self.transport.loseConnection()
            return
        gate.inner.forwardedFor = forwarded
        gate.makeConnection(self.transport)
        if not adopt(self.factory.cluster, kind, gate.inner, preface):
            self.log.warn("cluster: cannot take {kind} player {name!r}",
                          kind=kind, name=preface.get("name"))
            self.transport.loseConnection()
            return
        self.gate = gate
        rest = self.clearLineBuffer()
        self.setRawMode()
        gate.dataReceived(data + rest)

    def rawDataReceived(self, data: bytes) -> None:
        self.gate.dataReceived(data)

    def lineLengthExceeded(self, line: bytes) -> None:
        self.transport.loseConnection()

    def connectionLost(self, reason: Failure = connectionDone) -> None:
        if self.gate is not None:
            self.gate.connectionLost(reason)


class LinkServerFactory(Factory):
    """
    Makes L{LinkServer}s for a node's link listener.
    """

    protocol = LinkServer

    def __init__(self, cluster: Any) -> None:
        self.cluster = cluster
