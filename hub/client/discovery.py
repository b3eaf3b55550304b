"""
The hubs on the LAN: a DNS-SD browser of L{hub.wire.dnssd.SERVICE_TYPE}
for the client's start screen, without pyglet.

    browser = HubBrowser(reactor, lambda hubs: print(hubs))
    browser.start()
    ...
    browser.stop()

C{onChange} is called in the reactor's thread with the current list of
L{FoundHub}s each time a hub appears, changes or goes.  zeroconf's
callbacks come on its own threads; they are handed to the reactor with
C{callFromThread} (see L{hub.mdns}).
"""

from typing import (
    TYPE_CHECKING, Any, Callable, Dict, List, NamedTuple, Optional)

from twisted.internet.defer import Deferred, succeed
from twisted.logger import Logger
from twisted.python.failure import Failure

from hub import mdns
from hub.wire import dnssd

if TYPE_CHECKING:
    from zeroconf import ServiceBrowser, ServiceInfo, ServiceStateChange
    from zeroconf import Zeroconf

#: Seconds to wait for a found hub's records (address, port, TXT).
RESOLVE_SECONDS = 3.0


class FoundHub(NamedTuple):
    """
    One hub on the LAN.

    @ivar name: its instance name (C{gamehub on HOST}).
    @ivar host: an IPv4 address to reach it at.
    @ivar ports: game kind -> port, for each game it serves.
    @ivar webPort: the port of its web pages, or None.
    @ivar server: its mDNS host name (C{HOST.local.}).
    """

    name: str
    host: str
    ports: Dict[str, int]
    webPort: Optional[int]
    server: str


def instanceName(fullName: str) -> str:
    """
    C{gamehub on HOST} of C{gamehub on HOST._gamehub._tcp.local.}.
    """
    suffix = "." + dnssd.SERVICE_TYPE
    if fullName.endswith(suffix):
        return fullName[:-len(suffix)]
    return fullName


def foundHub(info: "ServiceInfo") -> Optional[FoundHub]:
    """
    The L{FoundHub} of a resolved L{zeroconf.ServiceInfo}, or None if it
    has no IPv4 address or serves no game.
    """
    from zeroconf import IPVersion
    addresses = info.parsed_addresses(IPVersion.V4Only)
    record = dnssd.decodeProperties(info.properties or {})
    if not addresses or not record.ports:
        return None
    return FoundHub(instanceName(info.name), addresses[0], record.ports,
                    record.webPort, info.server or "")


class HubBrowser:
    """
    Keep the list of the hubs on the LAN.

    @param reactor: the reactor (an L{IReactorThreads} too).
    @param onChange: called with the list of L{FoundHub}s (sorted by
        name) whenever it changes.
    @param newZeroconf: makes the L{zeroconf.Zeroconf} (blocking).
    @param resolveSeconds: how long to wait for a found hub's records.

    @ivar found: full service name -> L{FoundHub}.
    """

    log = Logger()

    def __init__(self, reactor: Any,
                 onChange: Callable[[List[FoundHub]], object],
                 newZeroconf: Callable[[], "Zeroconf"] = mdns.newZeroconf,
                 resolveSeconds: float = RESOLVE_SECONDS) -> None:
        self.reactor = reactor
        self.onChange = onChange
        self.newZeroconf = newZeroconf
        self.resolveSeconds = resolveSeconds
        self.found: Dict[str, FoundHub] = {}
        self.running = False
        self.zeroconf: Optional[Zeroconf] = None
        self._browser: Optional[ServiceBrowser] = None
        self._starting: Optional[Deferred[Any]] = None
        # full name -> how many times it was seen change, so that a late
        # resolution of an old state is dropped.
        self._generation: Dict[str, int] = {}

    @property
    def hubs(self) -> List[FoundHub]:
        """
        The hubs found, sorted by name.
        """
        return sorted(self.found.values(), key=lambda hub: hub.name)

    def start(self) -> "Deferred[None]":
        """
        Start browsing.

        @return: a L{Deferred} that fires when the browser runs (with
            None; a failure to start is logged and the list stays empty).
        """
        if self.running:
            return succeed(None)
        self.running = True
        self._starting = mdns.blocking(self.reactor, self.newZeroconf)
        self._starting.addCallback(self._browse)
        self._starting.addErrback(self._failed)
        return self._starting

    def _browse(self, zeroconf: "Zeroconf") -> "Optional[Deferred[Any]]":
        from zeroconf import ServiceBrowser
        self._starting = None
        self.zeroconf = zeroconf
        if not self.running:
            return self._close()
        self._browser = ServiceBrowser(zeroconf, dnssd.SERVICE_TYPE,
                                       handlers=[self._zeroconfChanged])
        return None

    def _failed(self, failure: Failure) -> None:
        self._starting = None
        self.log.warn("cannot browse the LAN for hubs: {error}",
                      error=failure.getErrorMessage() or failure.type)

    def _zeroconfChanged(self, zeroconf: "Zeroconf", service_type: str,
                         name: str,
                         state_change: "ServiceStateChange") -> None:
        """
        zeroconf's handler, on zeroconf's thread: hand over to the
        reactor.
        """
        self.reactor.callFromThread(self._changed, name, state_change)

    def _changed(self, name: str, stateChange: "ServiceStateChange") -> None:
        """
        A service C{name} was added, updated or removed.
        """
        from zeroconf import ServiceStateChange
        if not self.running:
            return
        generation = self._generation.get(name, 0) + 1
        self._generation[name] = generation
        if stateChange is ServiceStateChange.Removed:
            self._generation.pop(name, None)
            if self.found.pop(name, None) is not None:
                self.log.info("hub gone: {name!r}", name=name)
                self._notify()
            return
        self._resolve(name, generation)

    def _resolve(self, name: str, generation: int) -> None:
        from zeroconf.asyncio import AsyncServiceInfo
        info = AsyncServiceInfo(dnssd.SERVICE_TYPE, name)
        assert self.zeroconf is not None  # (browsing)
        resolving = mdns.onZeroconfLoop(
            self.reactor, self.zeroconf,
            info.async_request(self.zeroconf, self.resolveSeconds * 1000))
        resolving.addCallback(self._resolved, name, generation, info)
        resolving.addErrback(lambda f: self.log.warn(
            "cannot resolve {name!r}: {error}", name=name,
            error=f.getErrorMessage()))

    def _resolved(self, complete: bool, name: str, generation: int,
                  info: "ServiceInfo") -> None:
        if not self.running or self._generation.get(name) != generation:
            return
        hub = foundHub(info) if complete else None
        if hub is None:
            self.log.info("no usable records for {name!r}", name=name)
            return
        if self.found.get(name) != hub:
            self.found[name] = hub
            self.log.info("hub found: {name!r} at {host} {ports}",
                          name=hub.name, host=hub.host, ports=hub.ports)
            self._notify()

    def _notify(self) -> None:
        try:
            self.onChange(self.hubs)
        except Exception:
            self.log.failure("onChange failed")

    def stop(self) -> "Deferred[Any]":
        """
        Stop browsing; the list is emptied (C{onChange} is not called).

        @return: a L{Deferred} that fires when zeroconf is closed.
        """
        if not self.running:
            return succeed(None)
        self.running = False
        self.found = {}
        self._generation = {}
        if self._starting is not None:
            # _browse closes what is being made once it is made.
            return self._starting
        return self._close()

    def _close(self) -> "Deferred[Any]":
        browser, self._browser = self._browser, None
        zeroconf, self.zeroconf = self.zeroconf, None

        def close() -> None:
            if browser is not None:
                browser.cancel()
            if zeroconf is not None:
                zeroconf.close()

        closed = mdns.blocking(self.reactor, close)
        closed.addErrback(lambda f: self.log.failure("closing zeroconf", f))
        return closed
