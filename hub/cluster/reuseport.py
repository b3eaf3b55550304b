"""
C{reuseport:PORT[:interface=HOST][:backlog=N]}: a TCP server endpoint
whose socket has C{SO_REUSEPORT}, so that several processes (the nodes of
a cluster on one machine) listen on one port and the kernel spreads new
connections over them.
"""

import socket
from typing import Any

from zope.interface import implementer

from twisted.internet import tcp
from twisted.internet.interfaces import (
    IListeningPort, IProtocolFactory, IStreamServerEndpoint)
from twisted.internet import defer


class ReusePort(tcp.Port):
    """
    A TCP port that sets C{SO_REUSEPORT} before binding.
    """

    def createInternetSocket(self) -> socket.socket:
        sock = tcp.Port.createInternetSocket(self)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        return sock


@implementer(IStreamServerEndpoint)
class ReusePortEndpoint:
    """
    Listens on C{port} with C{SO_REUSEPORT}.
    """

    def __init__(self, reactor: Any, port: int, backlog: int = 50,
                 interface: str = "") -> None:
        self.reactor = reactor
        self.port = port
        self.backlog = backlog
        self.interface = interface

    def listen(self, factory: IProtocolFactory,
               ) -> "defer.Deferred[IListeningPort]":
        return defer.execute(self._listen, factory)

    def _listen(self, factory: IProtocolFactory) -> ReusePort:
        port = ReusePort(self.port, factory, self.backlog, self.interface,
                         self.reactor)
        port.startListening()
        return port


def parse(reactor: Any, port: str, backlog: str = "50",
          interface: str = "") -> ReusePortEndpoint:
    """
    The endpoint of C{reuseport:PORT:...}.
    """
    return ReusePortEndpoint(reactor, int(port), int(backlog), interface)
