"""
The C{reuseport:} endpoint: two listeners on one port.
"""

import socket

from twisted.internet import reactor
from twisted.internet.endpoints import serverFromString
from twisted.internet.protocol import Factory, Protocol
from twisted.trial.unittest import TestCase

from hub.cluster.reuseport import ReusePortEndpoint


class ReusePortTests(TestCase):

    def test_parsed(self):
        """
        C{reuseport:PORT:interface=HOST} is a L{ReusePortEndpoint}.
        """
        endpoint = serverFromString(
            reactor, "reuseport:1234:interface=127.0.0.1")
        self.assertIsInstance(endpoint, ReusePortEndpoint)
        self.assertEqual((endpoint.port, endpoint.interface),
                         (1234, "127.0.0.1"))

    def test_twoListenersOnePort(self):
        """
        Two endpoints listen on the same port, each with SO_REUSEPORT.
        """
        factory = Factory.forProtocol(Protocol)
        first = ReusePortEndpoint(reactor, 0, interface="127.0.0.1")
        d = first.listen(factory)

        def listening(port):
            self.addCleanup(port.stopListening)
            number = port.getHost().port
            second = ReusePortEndpoint(reactor, number,
                                       interface="127.0.0.1")
            return second.listen(factory).addCallback(
                lambda other: (port, other))

        def both(ports):
            port, other = ports
            self.addCleanup(other.stopListening)
            self.assertEqual(port.getHost().port, other.getHost().port)
            self.assertEqual(other.socket.getsockopt(
                socket.SOL_SOCKET, socket.SO_REUSEPORT), 1)
        return d.addCallback(listening).addCallback(both)
