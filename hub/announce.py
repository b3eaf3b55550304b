"""
The hub on the LAN: an announcer service that publishes the hub with
DNS-SD (multicast DNS) as a L{hub.wire.dnssd.SERVICE_TYPE} instance whose
TXT record gives its games, their ports and its web port.

The ports are the ones the listeners really got (a C{tcp:0} endpoint
included), read from the listeners once they listen.  A game listening on
loopback only is left out; with nothing reachable from the LAN, nothing is
announced.  Failing to announce is logged and never stops the hub.
"""

import socket
from typing import Any, Callable, List, Mapping, Optional, Tuple

from twisted.application.service import Service
from twisted.internet.defer import (
    CancelledError, Deferred, FirstError, gatherResults, succeed)
from twisted.internet.interfaces import IListeningPort
from twisted.logger import Logger
from twisted.python.failure import Failure

from hub import mdns
from hub.wire import dnssd


def defaultName() -> str:
    """
    The instance name a hub announces by default: C{gamehub on HOST}.
    """
    return "gamehub on {}".format(socket.gethostname().split(".")[0])


class Announcer(Service):
    """
    Announce the hub while running; withdraw it (DNS-SD goodbye) on stop.

    @param reactor: the reactor (an L{IReactorThreads} too).
    @param listeners: game kind -> a listener service with
        C{whenListening()} (a L{Deferred} of its listening port, or of
        None if it failed); see L{hub.tap.Listener}.
    @param webListener: the same for the web pages, or None.
    @param name: the instance name (default L{defaultName}); zeroconf
        renames it C{NAME (2)} if another hub has it.
    @param newZeroconf: makes the L{zeroconf.Zeroconf} (blocking).
    @param lanAddresses: returns the addresses to announce for
        listeners on every interface.

    @ivar hubName: the instance name asked for.
    @ivar info: the announced L{zeroconf.ServiceInfo}, once registered.
    """

    log = Logger()

    def __init__(self, reactor: Any, listeners: Mapping[str, Any],
                 webListener: Any = None, name: Optional[str] = None,
                 newZeroconf: Callable[[], Any] = mdns.newZeroconf,
                 lanAddresses: Callable[[], List[str]] = mdns.lanAddresses,
                 ) -> None:
        self.reactor = reactor
        self.listeners = dict(listeners)
        self.webListener = webListener
        self.hubName = name if name is not None else defaultName()
        self.newZeroconf = newZeroconf
        self.lanAddresses = lanAddresses
        self.zeroconf: Any = None
        self.info: Any = None
        self._work: Optional[Deferred[Any]] = None
        self._cancellable: Optional[Deferred[Any]] = None

    def startService(self) -> None:
        """
        Wait for the listeners to listen, then announce their ports.
        """
        Service.startService(self)
        kinds = sorted(self.listeners)
        waiting = [self.listeners[kind].whenListening() for kind in kinds]
        if self.webListener is not None:
            waiting.append(self.webListener.whenListening())
        else:
            waiting.append(succeed(None))
        listening = gatherResults(waiting, consumeErrors=True)
        self._cancellable = listening
        self._work = listening
        listening.addCallback(
            lambda ports: self._announce(dict(zip(kinds, ports[:-1])),
                                         ports[-1]))
        listening.addErrback(self._failed)

    def _reachable(self, port: Optional[IListeningPort],
                   ) -> Optional[Tuple[str, int]]:
        """
        The address and port number of the listening port C{port}, or
        None if it is not reachable from the LAN.
        """
        if port is None:
            return None
        address: Any = port.getHost()
        host = getattr(address, "host", None)
        if host is None or mdns.isLoopback(host):
            return None
        return host, address.port

    def serviceInfo(self, ports: Mapping[str, Optional[IListeningPort]],
                    webPort: Optional[IListeningPort]) -> Any:
        """
        The L{zeroconf.ServiceInfo} announcing the listening C{ports}
        (game kind -> L{IListeningPort} or None) and C{webPort}, or None
        when none of the games is reachable from the LAN.
        """
        each = {kind: self._reachable(port) for kind, port in ports.items()}
        reachable = {kind: found for kind, found in each.items()
                     if found is not None}
        if not reachable:
            return None
        web = self._reachable(webPort)
        hosts = {host for host, _ in reachable.values()}
        if any(mdns.isWildcard(host) for host in hosts):
            addresses = self.lanAddresses()
        else:
            addresses = sorted(hosts)
        gamePorts = {kind: number for kind, (_, number) in reachable.items()}
        properties = dnssd.encodeProperties(
            gamePorts, None if web is None else web[1])
        servicePort = (web[1] if web is not None
                       else gamePorts[sorted(gamePorts)[0]])
        from zeroconf import ServiceInfo
        return ServiceInfo(
            dnssd.SERVICE_TYPE,
            "{}.{}".format(self.hubName, dnssd.SERVICE_TYPE),
            port=servicePort, properties=properties,
            server="{}.local.".format(
                socket.gethostname().split(".")[0] or "gamehub"),
            parsed_addresses=addresses)

    def _announce(self, ports: Mapping[str, Optional[IListeningPort]],
                  webPort: Optional[IListeningPort],
                  ) -> Optional[Deferred[Any]]:
        """
        Make zeroconf (on a thread) and register the service record of
        the listening C{ports}.
        """
        self._cancellable = None
        if not self.running:
            return None
        info = self.serviceInfo(ports, webPort)
        if info is None:
            self.log.info("not announced on the LAN: no game is reachable "
                          "beyond loopback")
            return None
        making = mdns.blocking(self.reactor, self.newZeroconf)
        making.addCallback(self._register, info)
        return making

    def _register(self, zeroconf: Any, info: Any) -> Optional[Deferred[Any]]:
        self.zeroconf = zeroconf
        if not self.running:
            return None

        async def register() -> Any:
            broadcast = await zeroconf.async_register_service(
                info, allow_name_change=True)
            await broadcast
            return info

        registering = mdns.onZeroconfLoop(self.reactor, zeroconf,
                                          register())
        self._cancellable = registering
        registering.addCallback(self._registered)
        return registering

    def _registered(self, info: Any) -> None:
        self._cancellable = None
        self.info = info
        self.log.info("announced on the LAN as {name!r}: {properties}",
                      name=info.name, properties=" ".join(
                          "{}={}".format(k.decode(), v.decode())
                          for k, v in sorted(info.properties.items())))

    def _failed(self, failure: Failure) -> None:
        self._cancellable = None
        if failure.check(FirstError):
            failure = failure.value.subFailure
        if failure.check(CancelledError):
            return None
        self.log.warn("not announced on the LAN: {error}",
                      error=failure.getErrorMessage() or failure.type)
        return None

    def stopService(self) -> Deferred[Any]:
        """
        Stop waiting for listeners or registering, withdraw the
        announcement (zeroconf sends goodbyes) and close zeroconf.

        @return: a L{Deferred} that fires when that is done.
        """
        Service.stopService(self)
        cancellable, self._cancellable = self._cancellable, None
        if cancellable is not None:
            cancellable.cancel()
        work, self._work = self._work, None
        if work is None:
            return succeed(None)
        work.addCallback(lambda _: self._close())
        return work

    def _close(self) -> Optional[Deferred[Any]]:
        zeroconf, self.zeroconf = self.zeroconf, None
        self.info = None
        if zeroconf is None:
            return None
        closed = mdns.blocking(self.reactor, zeroconf.close)
        closed.addErrback(lambda f: self.log.failure(
            "closing zeroconf", f))
        return closed
