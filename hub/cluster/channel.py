"""
The moderation channel of a cluster: a Redis pub/sub channel on which each
node publishes the kicks and bans its moderators make, and on which every
other node hears them and applies them to the connections it holds, at
once rather than at its next read of the database.

Publishing goes through the node's ordinary Redis connection; listening
needs a connection of its own (a subscribed Redis connection takes no
other command), which reconnects and subscribes again by itself.

A message is the JSON of C{{"node": SENDER, ...}} plus what the sender's
L{hub.accounts.moderation.Moderation} published; a node ignores its own.
"""

import json
from typing import Any, Callable, Dict, Optional

import txredisapi
from twisted.application.service import Service
from twisted.internet import defer
from twisted.internet.endpoints import HostnameEndpoint
from twisted.internet.interfaces import IAddress
from twisted.logger import Logger
from twisted.python.failure import Failure

# The seconds a connection to Redis may take.
CONNECT_TIMEOUT = 2.0


def channelName(prefix: str) -> str:
    """
    The channel of the cluster whose keys start with C{prefix} (channels
    are shared by every database of a Redis server: the prefix keeps
    clusters apart).
    """
    return prefix + "moderation"


class _Listener(txredisapi.SubscriberProtocol):
    """
    The subscribed connection: hands each message to its channel.
    """

    def messageReceived(self, pattern: Optional[str], channel: str,
                        message: str) -> None:
        self.factory.channel.heard(message)


class _ListenerFactory(txredisapi.SubscriberFactory):
    protocol = _Listener

    def __init__(self, channel: "ModerationChannel") -> None:
        txredisapi.SubscriberFactory.__init__(self, isLazy=True)
        self.channel = channel

    def buildProtocol(self, addr: IAddress) -> Any:
        protocol = txredisapi.SubscriberFactory.buildProtocol(self, addr)
        protocol.whenConnected().addCallback(self.channel.subscribe)
        return protocol


class ModerationChannel(Service):
    """
    One node's end of the moderation channel.

    @param reactor: the reactor to connect with.
    @param redis: the node's C{txredisapi} connection handler (to
        publish).
    @param host: Redis's host.
    @param port: Redis's port.
    @param prefix: the cluster's key prefix.
    @param node: this node's name.

    @ivar handler: what applies a message another node published (a
        callable taking its dict; L{listen}), or None to ignore them.
    @ivar subscribed: whether the listening connection is subscribed.
    @ivar heardCount: messages of other nodes heard.
    """

    log = Logger()

    def __init__(self, reactor: Any, redis: Any, host: str, port: int,
                 prefix: str, node: str) -> None:
        self.reactor = reactor
        self.redis = redis
        self.host = host
        self.port = port
        self.channel = channelName(prefix)
        self.node = node
        self.handler: Optional[Callable[[Dict[str, Any]], object]] = None
        self.subscribed = False
        self.heardCount = 0
        self._factory: Optional[_ListenerFactory] = None

    def listen(self, handler: Callable[[Dict[str, Any]], object]) -> None:
        """
        Have C{handler} apply each message another node publishes.
        """
        self.handler = handler

    def startService(self) -> None:
        Service.startService(self)
        factory = self._factory = _ListenerFactory(self)
        factory.startConnecting(HostnameEndpoint(
            self.reactor, self.host, self.port, timeout=CONNECT_TIMEOUT))

    def stopService(self) -> "Optional[defer.Deferred[Any]]":
        Service.stopService(self)
        factory, self._factory = self._factory, None
        if factory is None:
            return None
        d = factory.disconnect()
        d.addErrback(lambda f: self.log.failure(
            "cluster: closing the channel's connection", f))
        return d

    def subscribe(self, protocol: Any) -> "defer.Deferred[Any]":
        """
        Subscribe the (re)connected listening C{protocol}.
        """
        def done(_: object) -> None:
            self.subscribed = True
            self.log.info("cluster node {node!r} listens for moderation",
                          node=self.node)

        def failed(failure: Failure) -> None:
            self.log.warn("cluster: cannot subscribe to moderation "
                          "({error})", error=failure.getErrorMessage())
            protocol.transport.loseConnection()

        return protocol.subscribe(self.channel).addCallbacks(done, failed)

    def publish(self, message: Dict[str, Any]) -> "defer.Deferred[int]":
        """
        Send C{message} (a dict) to the other nodes.

        @return: a Deferred that fires with the number of listeners Redis
            delivered it to.
        """
        data = dict(message, node=self.node)
        return self.redis.publish(self.channel, json.dumps(data))

    def heard(self, raw: Any) -> None:
        """
        A message on the channel: hand another node's to the handler.
        """
        try:
            message = json.loads(raw)
            sender = message.pop("node")
        except (TypeError, ValueError, KeyError, AttributeError):
            self.log.warn("cluster: unreadable moderation message ignored")
            return
        if sender == self.node or self.handler is None:
            return
        self.heardCount += 1
        self.log.info("cluster node {node!r}: {action} from node "
                      "{sender!r}", node=self.node, sender=sender,
                      action=message.get("action"))
        d = defer.maybeDeferred(self.handler, message)
        d.addErrback(lambda f: self.log.failure(
            "cluster: moderation from node {sender!r} failed", f,
            sender=sender))
