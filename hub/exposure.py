"""
What a starting hub exposes, said once every listener listens (after
twistd's and the listeners' own start lines): each listener's address
(every interface, or loopback only), that the web face's pages and the
metrics need no login, whether the hub announces itself on the LAN, and
how to restrict each.

The defaults suit LAN play (every interface, the web face open, the hub
announced); these lines make them visible instead of surprising.
"""

from typing import Any, Iterable, List, Optional, Sequence, Tuple

from twisted.application.service import Service
from twisted.internet.defer import FirstError, gatherResults
from twisted.internet.interfaces import IListeningPort
from twisted.logger import Logger
from twisted.python.failure import Failure

#: What each listener serves, in the log's words, and what to know of it.
WHAT = {
    "gomoku-port": ("gomoku", ""),
    "checkers-port": ("Chinese checkers", ""),
    "splendor-port": ("Splendor", ""),
    "web-port": ("the web face", ", without authentication (lobby, "
                 "spectating, replays, leaderboards, JSON API, /metrics)"),
    "metrics-port": ("Prometheus metrics", ", without authentication"),
}

EVERY_INTERFACE = ("0.0.0.0", "::", "")


def reach(host: str) -> str:
    """
    Who can reach a listener bound to C{host}, in words.
    """
    if host in EVERY_INTERFACE:
        return "every interface"
    if host == "::1" or host.startswith("127."):
        return "loopback only"
    return "this interface only"


def exposureLines(listening: Iterable[Tuple[str, Any]],
                  announce: bool) -> List[str]:
    """
    The lines that say what the hub exposes.

    @param listening: C{[(option, address)]}: each listener's option name
        (C{"gomoku-port"}) and the address it listens on (an
        L{IAddress}; one with C{host} and C{port} for TCP).
    @param announce: whether the hub announces itself on the LAN.
    @return: a L{list} of L{str}.
    """
    lines: List[str] = []
    open_: List[Tuple[str, Any]] = []
    for option, address in listening:
        host = getattr(address, "host", None)
        port = getattr(address, "port", None)
        what, note = WHAT.get(option, (option, ""))
        if host is None or port is None:
            lines.append("{} on {}{}".format(what, address, note))
            continue
        shown = "[{}]".format(host) if ":" in host else host or "0.0.0.0"
        lines.append("{} on {}:{} ({}){}".format(what, shown, port,
                                                 reach(host), note))
        if host in EVERY_INTERFACE:
            open_.append((option, port))
    if announce:
        lines.append("this hub is announced on the LAN with DNS-SD as "
                     "_gamehub._tcp (--announce no turns it off)")
    if open_:
        option, port = open_[0]
        others = ", ".join("--" + o for o, _ in open_[1:])
        lines.append(
            "to listen on loopback (or one interface) only: --{option} "
            "tcp:{port}:interface=127.0.0.1{others}; 'none' turns a "
            "listener off".format(
                option=option, port=port,
                others=" (the same for {})".format(others) if others
                else ""))
    return lines


class Exposure(Service):
    """
    Logs L{exposureLines} once every listener listens.

    @param listeners: C{[(option, listener)]}, each listener a service with
        C{whenListening()} (see L{hub.tap.Listener}).
    @param announce: whether the hub announces itself on the LAN.
    """

    log = Logger()

    def __init__(self, listeners: Iterable[Tuple[str, Any]],
                 announce: bool) -> None:
        self.listeners = list(listeners)
        self.announce = announce

    def startService(self) -> None:
        Service.startService(self)
        waiting = [listener.whenListening()
                   for _, listener in self.listeners]
        d = gatherResults(waiting, consumeErrors=True)
        d.addCallbacks(self._say, self._notListening)
        d.addErrback(lambda f: self.log.failure("exposure lines", f))

    def _notListening(self, failure: Failure) -> None:
        # A listener that failed says so itself (tap's start error).
        failure.trap(FirstError)

    def _say(self, ports: Sequence[Optional[IListeningPort]]) -> None:
        listening = [(option, port.getHost())
                     for (option, _), port in zip(self.listeners, ports)
                     if port is not None]
        for line in exposureLines(listening, self.announce):
            self.log.info("exposed: {line}", line=line)
