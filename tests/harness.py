"""
The one server harness of the protocol suites: a L{Hub} (lobby, sessions,
tracked clock) over a L{Clock}, one protocol factory, and connections on
in-memory transports that keep each write apart.

    harness = ServerHarness(GomokuFactory, maxIllegal=3)
    protocol, transport = harness.connect()
    harness.clock.advance(15)
    harness.stop()          # stops the hub: no delayed call is left
"""

import itertools
import secrets

from twisted.internet.address import IPv4Address
from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport

from hub.service import Hub


class RecordingTransport(StringTransport):
    """
    A L{StringTransport} that keeps each C{write} call apart and records
    C{setTcpNoDelay}.

    @ivar writes: every C{write} call's bytes, in order.
    @ivar noDelay: the last value given to C{setTcpNoDelay}.
    """

    def __init__(self, *args, **kwargs):
        StringTransport.__init__(self, *args, **kwargs)
        self.writes = []
        self.noDelay = False

    def write(self, data):
        self.writes.append(data)
        StringTransport.write(self, data)

    def setTcpNoDelay(self, enabled):
        self.noDelay = enabled

    def unregisterProducer(self):
        """
        As a TCP transport's: no producer registered is no error (autobahn
        unregisters one as it drops a connection, whether or not there
        is one).
        """
        self.producer = None
        self.streaming = None


class ServerHarness:
    """
    One protocol factory over a fresh L{Hub} whose reactor is a L{Clock}.

    @param factoryClass: the protocol factory, called as
        C{factoryClass(lobby, sessions, clock, **factoryOptions)}.
    @param startTime: the clock's time to begin with.
    @param graceSeconds: the sessions' reconnect grace.
    @param idleSeconds: the sessions' idle timeout (0 for none).
    @param randomBits: the sessions' token source (random by default).

    @ivar clock: the L{Clock} to advance.
    @ivar hub: the L{Hub}; C{hub.clock} is the tracked clock the factory
        and tables use.
    """

    def __init__(self, factoryClass, startTime=0, graceSeconds=30,
                 idleSeconds=0, randomBits=secrets.randbits,
                 **factoryOptions):
        self.clock = Clock()
        self.clock.advance(startTime)
        self.hub = Hub(self.clock, graceSeconds=graceSeconds,
                       idleSeconds=idleSeconds, randomBits=randomBits)
        self.hub.startService()
        self.lobby = self.hub.lobby
        self.sessions = self.hub.sessions
        self.factory = factoryClass(self.lobby, self.sessions,
                                    self.hub.clock, **factoryOptions)
        self._ports = itertools.count(40000)

    def connect(self, transport=None):
        """
        A new connection from a new loopback port.

        @return: C{(protocol, transport)}; the transport is a
            L{RecordingTransport} unless one is given.
        """
        protocol = self.factory.buildProtocol(
            IPv4Address("TCP", "127.0.0.1", next(self._ports)))
        if transport is None:
            transport = RecordingTransport()
        protocol.makeConnection(transport)
        return protocol, transport

    def connectTo(self, factory):
        """
        A new connection to another C{factory} on the same hub.

        @return: C{(protocol, transport)}.
        """
        protocol = factory.buildProtocol(
            IPv4Address("TCP", "127.0.0.1", next(self._ports)))
        transport = RecordingTransport()
        protocol.makeConnection(transport)
        return protocol, transport

    def stop(self):
        """
        Stop the hub, as C{twistd} does on shutdown.
        """
        return self.hub.stopService()

    def pendingCalls(self):
        """
        The delayed calls still on the clock.
        """
        return self.clock.getDelayedCalls()
