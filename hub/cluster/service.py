"""
A node of a cluster: the directory in Redis, the link listener, and the
gates in front of the game listeners (C{twistd gamehub --cluster ...}).
"""

import socket
from typing import Any, Callable, Dict, List, Optional

from twisted.application.service import Service
from twisted.internet import defer
from twisted.internet.endpoints import (
    clientFromString, serverFromString)
from twisted.internet.interfaces import IListeningPort
from twisted.logger import Logger
from twisted.python.failure import Failure

from hub.accounts.interfaces import IModeration
from hub.cluster.directory import BlockIds, ClusterDirectory, parseRedisURL
from hub.cluster.gate import Gate, GatedFactory, GateKeeper
from hub.cluster.link import LinkClient, LinkClientFactory, LinkServerFactory
from hub.cluster.routes import ROUTES
from hub.ihub import IClusterRoomList

# The seconds a link may take to connect.
LINK_TIMEOUT = 5.0
# The seconds a stopping node waits for Redis to forget it.
STOP_TIMEOUT = 2.0


def linkAddress(host: str, port: int) -> str:
    """
    The client endpoint string other nodes use to reach a link listener
    bound to C{host}:C{port} (an unspecified address means this host's
    name).
    """
    if host in ("0.0.0.0", "::", ""):
        host = socket.gethostname()
    return "tcp:host={}:port={}".format(host.replace(":", "\\:"), port)


class ClusterService(Service):
    """
    One node of a cluster.

    @param reactor: the reactor (links and the link listener); every
        timer runs on the hub's clock.
    @param hub: the L{hub.service.Hub} whose lobby and sessions are
        shared through the directory.
    @param redis: a C{txredisapi} connection handler.
    @param node: this node's name, unique in the cluster.
    @param linkEndpoint: the server endpoint string of the link listener.
    @param channel: the L{ModerationChannel}, or None (no kick or ban
        reaches the other nodes but through the database).

    @ivar gatedFactories: the gated factory of each game kind.
    @ivar forwarded: connections handed over to other nodes.
    @ivar served: links served for other nodes.
    """

    log = Logger()

    def __init__(self, reactor: Any, hub: Any, redis: Any, node: str,
                 linkEndpoint: str, prefix: str = "gamehub:",
                 channel: Any = None, **directoryOptions: Any) -> None:
        self.reactor = reactor
        self.hub = hub
        self.redis = redis
        self.node = node
        self.linkEndpoint = linkEndpoint
        self.channel = channel
        self.directory = ClusterDirectory(
            redis, hub.clock, node, prefix=prefix, **directoryOptions)
        self.gatedFactories: Dict[str, GatedFactory] = {}
        self.forwarded = 0
        self.served = 0
        self._port: Optional[IListeningPort] = None
        hub.lobby.addWatcher(self.directory)
        hub.lobby.addWatcher(GateKeeper())
        hub.sessions.addWatcher(self.directory)
        hub.sessions.ids = BlockIds(self.directory)

    def gate(self, kind: str, factory: Any) -> GatedFactory:
        """
        The factory to listen with for game C{kind}: C{factory} behind
        gates.
        """
        if kind == "splendor":
            factory.seats.tablePrefix = "table-{}-".format(self.node)
        roomList = IClusterRoomList(factory, None)
        if roomList is not None:
            # The room list is the cluster's: each room is published
            # with what the list shows of it.
            self.directory.summaries[kind] = roomList.roomSummary
        gated = GatedFactory(self, factory, ROUTES[kind])
        self.gatedFactories[kind] = gated
        return gated

    def countForwarded(self) -> None:
        """
        A connection was handed over to another node.
        """
        self.forwarded += 1

    def countServed(self) -> None:
        """
        A link from another node was served.
        """
        self.served += 1

    def moderationPublisher(
            self) -> Optional[Callable[[Dict[str, Any]], Any]]:
        """
        What publishes a moderation's kicks and bans to the other nodes
        (the C{publish} of a L{hub.accounts.moderation.Moderation}), or
        None without a channel.
        """
        return None if self.channel is None else self.channel.publish

    def moderate(self, moderation: IModeration) -> None:
        """
        Have C{moderation} (made with L{moderationPublisher}) apply what
        the other nodes publish.
        """
        if self.channel is not None:
            self.channel.listen(moderation.received)

    def startService(self) -> None:
        Service.startService(self)
        if self.channel is not None:
            self.channel.startService()
        self.hub.sessions.ids.fetch()
        endpoint = serverFromString(self.reactor, self.linkEndpoint)
        d = endpoint.listen(LinkServerFactory(self))

        def listening(port: IListeningPort) -> None:
            self._port = port
            address: Any = port.getHost()
            link = linkAddress(address.host, address.port)
            self.log.info("cluster node {node!r} links on {address}",
                          node=self.node, address=link)
            self.directory.start(link)

        def failed(failure: Failure) -> None:
            self.log.failure("cluster: cannot listen for links", failure)
            self.reactor.stop()
        d.addCallbacks(listening, failed)

    def stopService(self) -> "defer.Deferred[Any]":
        Service.stopService(self)
        stopping: List[defer.Deferred[Any]] = [self.directory.stop()]
        if self.channel is not None:
            stopping.append(defer.maybeDeferred(self.channel.stopService))
        if self._port is not None:
            stopping.append(defer.maybeDeferred(self._port.stopListening))
        d = defer.DeferredList(stopping, consumeErrors=True)
        d.addTimeout(STOP_TIMEOUT, self.hub.clock)
        d.addErrback(self._stopTimedOut)
        d.addBoth(lambda _: self.redis.disconnect())
        d.addErrback(lambda f: self.log.failure(
            "cluster: disconnecting from Redis", f))
        return d

    def _stopTimedOut(self, failure: Failure) -> None:
        # The links and the directory get STOP_TIMEOUT to stop.
        failure.trap(defer.TimeoutError)
        self.log.warn("cluster: stopping took over {timeout:g} s",
                      timeout=STOP_TIMEOUT)

    def withdraw(self) -> "defer.Deferred[Any]":
        """
        The hub drains: take no new rooms from the cluster (see
        L{ClusterDirectory.withdraw}).
        """
        self.log.info("cluster node {node!r} withdraws from the room "
                      "directory", node=self.node, event="drain")
        d = self.directory.withdraw()
        d.addCallback(lambda count: self.log.info(
            "cluster node {node!r} withdrew: {count} waiting room(s) out of "
            "the directory", node=self.node, count=count, event="drain"))
        return d

    def registrationProblem(self) -> Optional[str]:
        """
        The readiness check of the node: None once its presence is
        written in Redis, else why not.
        """
        if not self.directory.available:
            return "Redis does not answer"
        if not self.directory.registered:
            return "node {!r} not registered yet".format(self.node)
        return None

    def connectLink(self, node: str,
                    gate: Gate) -> "defer.Deferred[LinkClient]":
        """
        Open a link to C{node} for C{gate}.

        @return: a L{Deferred} firing with the L{LinkClient}.
        """
        d = self.directory.nodeAddress(node)

        def connect(address: Optional[str],
                    ) -> "defer.Deferred[LinkClient]":
            if address is None:
                raise LookupError("node {!r} is not alive".format(node))
            endpoint = clientFromString(self.reactor, address)
            connecting = endpoint.connect(LinkClientFactory(gate))
            connecting.addTimeout(LINK_TIMEOUT, self.hub.clock)
            return connecting
        return d.addCallback(connect)


def makeCluster(reactor: Any, hub: Any, url: str, node: str,
                linkEndpoint: str) -> ClusterService:
    """
    A L{ClusterService} over Redis at C{url}
    (C{redis://HOST:PORT/DB[?prefix=P]}).
    """
    import txredisapi
    from hub.cluster.channel import ModerationChannel
    host, port, db, prefix, ttl = parseRedisURL(url)
    redis = txredisapi.lazyConnection(host, port, dbid=db, reconnect=True,
                                      connectTimeout=2, replyTimeout=2)
    channel = ModerationChannel(reactor, redis, host, port, prefix, node)
    return ClusterService(reactor, hub, redis, node, linkEndpoint,
                          prefix=prefix, channel=channel, ttl=ttl,
                          refreshSeconds=ttl / 3,
                          where="Redis at {}:{}".format(host, port))


__all__ = ["ClusterService", "makeCluster"]
