"""
C{reuseport:PORT[:interface=HOST][:backlog=N]}: a TCP server endpoint
whose socket has C{SO_REUSEPORT}, so that several processes (the nodes of
a cluster on one machine) listen on one port and the kernel spreads new
connections over them.
"""

import socket

from zope.interface import implementer

from twisted.internet import tcp
from twisted.internet.interfaces import IStreamServerEndpoint
from twisted.internet import defer


class ReusePort(tcp.Port):
    """
    A TCP port that sets C{SO_REUSEPORT} before binding.
    """

    def createInternetSocket(self):
        sock = tcp.Port.createInternetSocket(self)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        return sock


@implementer(IStreamServerEndpoint)
class ReusePortEndpoint:
    """
    Listens on C{port} with C{SO_REUSEPORT}.
    """

    def __init__(self, reactor, port, backlog=50, interface=""):
        self.reactor = reactor
        self.port = port
        self.backlog = backlog
        self.interface = interface

    def listen(self, factory):
        return defer.execute(self._listen, factory)

    def _listen(self, factory):
        port = ReusePort(self.port, factory, self.backlog, self.interface,
                         self.reactor)
        port.startListening()
        return port


def parse(reactor, port, backlog=50, interface=""):
    """
    The endpoint of C{reuseport:PORT:...}.
    """
    return ReusePortEndpoint(reactor, int(port), int(backlog), interface)
