"""
The C{zeroconf} library bridged to a Twisted reactor, for the hub's
announcer (L{hub.announce}) and the client's browser
(L{hub.client.discovery}).

A L{zeroconf.Zeroconf} runs an asyncio loop on a thread of its own, and
its browsers call back on threads of theirs.  Nothing here runs zeroconf
code on the reactor's thread that could block it: coroutines go to the
zeroconf loop (L{onZeroconfLoop}), blocking calls to the reactor's thread
pool (L{blocking}), and every result comes back to the reactor with
C{callFromThread}.
"""

import asyncio
import concurrent.futures
import ipaddress
from typing import Any, Callable, Coroutine, List

from twisted.internet.defer import CancelledError, Deferred
from twisted.internet.interfaces import IReactorFromThreads
from twisted.internet.threads import deferToThreadPool
from twisted.python.failure import Failure


def onZeroconfLoop(reactor: IReactorFromThreads, zeroconf: Any,
                   coroutine: Coroutine[Any, Any, Any]) -> Deferred[Any]:
    """
    Run C{coroutine} on the asyncio loop of C{zeroconf}.

    @return: a L{Deferred} that fires in the reactor's thread with the
        coroutine's result or failure; cancelling it cancels the
        coroutine.
    """
    future = asyncio.run_coroutine_threadsafe(coroutine, zeroconf.loop)

    def cancel(_: Deferred[Any]) -> None:
        future.cancel()

    result: Deferred[Any] = Deferred(cancel)

    def deliver(done: "concurrent.futures.Future[Any]") -> None:
        if result.called:
            return
        if done.cancelled():
            result.errback(Failure(CancelledError()))
            return
        error = done.exception()
        if error is not None:
            result.errback(Failure(error))
        else:
            result.callback(done.result())

    future.add_done_callback(
        lambda done: reactor.callFromThread(deliver, done))
    return result


def blocking(reactor: Any, function: Callable[..., Any], *args: Any,
             **kwargs: Any) -> Deferred[Any]:
    """
    Call C{function} (a blocking zeroconf call: making or closing a
    L{zeroconf.Zeroconf}) on the reactor's thread pool.

    @return: a L{Deferred} of its result, fired in the reactor's thread.
    """
    return deferToThreadPool(reactor, reactor.getThreadPool(), function,
                             *args, **kwargs)


def newZeroconf() -> Any:
    """
    A L{zeroconf.Zeroconf} on every IPv4 interface (blocking: call it
    through L{blocking}).
    """
    from zeroconf import Zeroconf
    return Zeroconf()


def lanAddresses() -> List[str]:
    """
    The IPv4 addresses of this machine's interfaces, loopback left out,
    as dotted strings.
    """
    import ifaddr
    found: List[str] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if not isinstance(ip.ip, str):
                continue
            address = ipaddress.ip_address(ip.ip)
            if not address.is_loopback and str(address) not in found:
                found.append(str(address))
    return found


def isLoopback(host: str) -> bool:
    """
    Whether the listening address C{host} is only reachable from this
    machine (C{127.0.0.1}, C{::1}); a wildcard address is not.
    """
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


def isWildcard(host: str) -> bool:
    """
    Whether the listening address C{host} is every interface's.
    """
    return host in ("", "0.0.0.0", "::")
