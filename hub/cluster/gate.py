"""
The front of every client connection of a cluster node.

A L{Gate} is the protocol the transport talks to; the game's own adapter
protocol (C{inner}) shares the same transport.  While the connection may
still send a request that needs the cluster, the gate asks its route
about each message (C{decide}: None, or a L{Deferred} of a L{Decision}),
holding later bytes (the transport paused) until it is decided, and
relays the connection to the room's home node when told to forward.
While its room plays a game the L{GateKeeper} steps the gate out of the
data path, so that a game on a cluster node reads its moves as a node
alone would.  In full: docs/cluster.md, "How a connection is routed".
"""

import json
from typing import Any, Callable, Dict, Iterable, Optional, Set

import attr
from twisted.internet.error import ConnectionDone
from twisted.internet.interfaces import IAddress, IListeningPort
from twisted.internet.protocol import Factory, Protocol, connectionDone
from twisted.logger import Logger
from twisted.python.failure import Failure
from zope.interface import implementer

from hub.connection.control import RELAY, ROUTING, TransportControl
from hub.connection.immediate import relayWriter
from hub.ihub import IPausableFactory
from hub.twistedinternals import receiverOf, setReceiver

# What a decision does.
PASS = "pass"
REPLY = "reply"
FORWARD = "forward"


@attr.s(frozen=True)
class Decision:
    """
    What to do with a message: L{PASS} it to the adapter (then run
    C{after}, if given), L{REPLY} (the route answered; the message is
    dropped), or L{FORWARD} it with the rest of the stream to C{node},
    opening the link with C{preface}.
    """

    action = attr.ib()
    node = attr.ib(default=None)
    preface = attr.ib(default=None)
    after = attr.ib(default=None)


def passOn(after: Optional[Callable[[], object]] = None) -> Decision:
    return Decision(PASS, after=after)


def replied() -> Decision:
    return Decision(REPLY)


def forward(node: str, preface: Dict[str, Any]) -> Decision:
    return Decision(FORWARD, node, preface)


class Gate(Protocol):
    """
    One client connection of a cluster node: routes requests that need
    the cluster, otherwise feeds the adapter protocol C{inner}.

    @ivar relay: the link connection to the home node once the connection
        was handed over, else None.
    """

    log = Logger()

    transport: Any

    def __init__(self, cluster: Any, inner: Any, route: Any) -> None:
        self.cluster = cluster
        self.inner = inner
        self.route = route
        self.pending = b""
        self.waiting = False
        self.relay: Any = None
        self.lost = False
        self.front: Any = None
        # The transport's TransportControl, once connected.
        self.control: Any = None
        self._undecided: Optional[bytes] = None

    def logPrefix(self) -> str:
        return self.inner.__class__.__name__

    def connectionMade(self) -> None:
        self.control = TransportControl.of(self.transport)
        self.inner.makeConnection(self.transport)

    def dataReceived(self, data: bytes) -> None:
        if self.relay is not None:
            self.toHome(data)
        elif self.waiting or self.pending:
            self.pending += data
            self.drain()
        elif self.route.watching():
            self.pending = data
            self.drain()
        else:
            self.inner.dataReceived(data)

    def drain(self) -> None:
        """
        Hand the adapter what it may see now, stopping at a message that
        waits for the cluster.
        """
        while (self.pending and not self.waiting and self.relay is None
               and not self.lost and not self.transport.disconnecting):
            if not self.route.watching():
                data, self.pending = self.pending, b""
                self.route.reset()
                self.inner.dataReceived(data)
                return
            cut = self.route.cut(self.pending)
            if cut is None:
                return
            length, message = cut
            raw, self.pending = self.pending[:length], self.pending[length:]
            decision = self.route.decide(message)
            if decision is None:
                self.inner.dataReceived(raw)
                continue
            self.waiting = True
            self._undecided = raw
            self.control.pauseReading(ROUTING)
            decision.addCallback(self._decided, raw, message)
            decision.addErrback(self._decisionFailed)

    def _decisionFailed(self, failure: Failure) -> None:
        """
        The route's decision, or acting on it, failed: log it and read
        again.  A message the route failed to decide goes to the adapter,
        as a node alone would handle it.
        """
        self.log.failure("cluster routing failed", failure)
        if self.lost or self.relay is not None:
            return
        raw, self._undecided = self._undecided, None
        self.waiting = False
        self.control.resumeReading(ROUTING)
        if raw is not None:
            self.inner.dataReceived(raw)
        self.drain()

    def _decided(self, decision: Decision, raw: bytes,
                 message: Any) -> None:
        self._undecided = None
        if self.lost:
            return
        self.waiting = False
        if decision.action == FORWARD:
            self.handOver(decision, raw, message)
            return
        self.control.resumeReading(ROUTING)
        if decision.action == PASS:
            self.inner.dataReceived(raw)
            if decision.after is not None:
                decision.after()
        self.drain()

    def handOver(self, decision: Decision, raw: bytes,
                 message: Any) -> None:
        """
        Open a link to the home node C{decision.node} and relay to it
        C{raw} (the message) and everything after it.
        """
        self.waiting = True
        preface = dict(decision.preface,
                       peer=getattr(self.transport.getPeer(), "host", None))
        d = self.cluster.connectLink(decision.node, self)

        def connected(relay: Any) -> None:
            if self.lost:
                relay.transport.loseConnection()
                return
            self.route.handingOver(message)
            self.toHome = relayWriter(relay.transport)
            self.relay = relay
            self.waiting = False
            data = raw + self.pending
            self.pending = b""
            preface["data"] = data.decode("latin-1")
            relay.transport.write(json.dumps(preface).encode() + b"\n")
            self.inner.connectionLost(Failure(ConnectionDone(
                "handed over to node {!r}".format(decision.node))))
            # Each end of the relay is the other's producer: a full send
            # buffer on one pauses reading on the other.
            link = TransportControl.of(relay.transport)
            self.control.registerProducer(link.readingProducer(RELAY), True)
            link.registerProducer(self.control.readingProducer(RELAY), True)
            self.control.resumeReading(ROUTING)
            self.cluster.countForwarded()

        def failed(failure: Failure) -> None:
            self.log.warn("cluster: cannot reach node {node!r}: {error!r}",
                          node=decision.node,
                          error=failure.getErrorMessage())
            self.cluster.directory.countFailure()
            if self.lost:
                return
            self.waiting = False
            self.control.resumeReading(ROUTING)
            if self.route.unreachable(message).action == PASS:
                self.inner.dataReceived(raw)
            self.drain()

        def broken(failure: Failure) -> None:
            # Handing over (or answering its failure) raised: never leave
            # the connection paused with the failure unseen.
            self.log.failure("cluster: handing over to node {node!r} "
                             "failed", failure, node=decision.node)
            if self.lost:
                return
            if self.relay is not None:
                self.relay.transport.loseConnection()
                self.transport.loseConnection()
                return
            self.waiting = False
            self.control.resumeReading(ROUTING)
            self.drain()
        d.addCallbacks(connected, failed)
        d.addErrback(broken)

    def stepOut(self) -> bool:
        """
        Leave the data path: the transport hands its reads (and its loss)
        straight to the adapter, until L{stepIn}.  Only while nothing
        waits in the gate, nothing is relayed and the route watches
        nothing.

        @return: True if the gate stepped out.
        """
        if (self.front is not None or self.relay is not None
                or self.waiting or self.pending or self.lost
                or self.route.watching()):
            return False
        transport = self.transport
        front = receiverOf(transport)
        # The transport reads into this gate, or into the link server
        # that feeds it.
        if front is not self and getattr(front, "gate", None) is not self:
            return False
        self.front = front
        setReceiver(transport, self.inner)
        return True

    def stepIn(self) -> None:
        """
        Take the data path back (the route may need to see what comes).
        """
        front, self.front = self.front, None
        if front is not None and receiverOf(self.transport) is self.inner:
            setReceiver(self.transport, front)

    def relayLost(self) -> None:
        """
        The home node closed the link: close the client's connection.
        """
        self.transport.loseConnection()

    def connectionLost(self, reason: Failure = connectionDone) -> None:
        self.lost = True
        if self.relay is not None:
            self.relay.transport.loseConnection()
            return
        self.inner.connectionLost(reason)


class GateKeeper:
    """
    A lobby watcher that steps the gates of a running room's members out
    of the data path, and back in when the game ends, a member leaves or
    the room closes.

    @ivar out: C{{room: set of gates stepped out}}.
    """

    def __init__(self) -> None:
        self.out: Dict[Any, Set[Gate]] = {}

    def roomChanged(self, room: Any) -> None:
        out: Iterable[Gate] = self.out.pop(room, ())
        if not room.running:
            for gate in out:
                gate.stepIn()
            return
        peers: Dict[Any, Gate] = {}
        for member in room.members:
            found = getattr(member.session.peer, "clusterGate", None)
            if found is not None:
                peers[found.inner] = found
        kept: Set[Gate] = set()
        for gate in out:
            if peers.get(gate.inner) is gate and not gate.route.watching():
                kept.add(gate)
            else:
                gate.stepIn()
        for gate in peers.values():
            if gate not in kept and gate.stepOut():
                kept.add(gate)
        if kept:
            self.out[room] = kept

    def roomClosed(self, room: Any) -> None:
        for gate in self.out.pop(room, ()):
            gate.stepIn()


@implementer(IPausableFactory)
class GatedFactory(Factory):
    """
    Wraps an adapter's factory: each connection gets a L{Gate} in front of
    the adapter's protocol, with a route of C{routeClass}.  Logs as the
    adapter's factory.
    """

    noisy = False

    def __init__(self, cluster: Any, inner: Any,
                 routeClass: Callable[[Any, Any, Any], Any]) -> None:
        self.cluster = cluster
        self.inner = inner
        self.routeClass = routeClass

    def logPrefix(self) -> str:
        return self.inner.logPrefix()

    def startFactory(self) -> None:
        self.inner.doStart()

    def stopFactory(self) -> None:
        self.inner.doStop()

    def listeningOn(self, port: IListeningPort) -> None:
        """
        C{port} listens with this factory: so it does with the adapter's
        (which pauses it under a connection flood).
        """
        if IPausableFactory.providedBy(self.inner):
            self.inner.listeningOn(port)

    def buildProtocol(self, addr: Optional[IAddress]) -> Optional[Gate]:
        inner = self.inner.buildProtocol(addr)
        if inner is None:
            # The adapter refuses the connection.
            return None
        gate = Gate(self.cluster, inner,
                    self.routeClass(self.cluster, self.inner, inner))
        inner.clusterGate = gate
        gate.factory = self
        return gate
