"""
Helpers of the client tests: a state machine on a protocol on a
L{StringTransport}, and a recorder of state events.
"""

from twisted.internet.address import IPv4Address
from twisted.internet.defer import fail, succeed
from twisted.internet.error import ConnectionRefusedError
from twisted.internet.interfaces import IStreamClientEndpoint
from twisted.internet.testing import StringTransport
from zope.interface import implementer

from hub.client import net


class Recorder:
    """
    Collects the events (L{hub.client.events}) of a state machine.
    """

    def __init__(self, state):
        self.events = []
        state.subscribe(self)

    def __call__(self, event):
        self.events.append(event)

    def types(self):
        """
        The class of each event, in order.
        """
        return [type(e) for e in self.events]

    def clear(self):
        del self.events[:]


def connect(game, state):
    """
    Attach C{state} to a new client protocol of C{game} on a
    L{StringTransport}.

    @return: C{(protocol, transport)}.
    """
    proto = net.PROTOCOLS[game](state)
    transport = StringTransport()
    proto.makeConnection(transport)
    return proto, transport


def take(transport):
    """
    What the client wrote since the last call.
    """
    data = transport.value()
    transport.clear()
    return data


@implementer(IStreamClientEndpoint)
class FakeEndpoint:
    """
    A client endpoint whose connections are L{StringTransport}s, made at
    once, or refused while C{refuse} is set.

    @ivar attempts: how many times C{connect} was called.
    @ivar links: C{(protocol, transport)} of every connection made.
    """

    def __init__(self, refuse=False):
        self.refuse = refuse
        self.attempts = 0
        self.links = []

    def connect(self, factory):
        self.attempts += 1
        if self.refuse:
            return fail(ConnectionRefusedError("Connection refused"))
        proto = factory.buildProtocol(IPv4Address("TCP", "127.0.0.1", 1))
        transport = StringTransport()
        proto.makeConnection(transport)
        self.links.append((proto, transport))
        return succeed(proto)
