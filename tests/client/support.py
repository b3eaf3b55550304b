"""
Helpers of the client tests: a state machine on a protocol on a
L{StringTransport}, and a recorder of state events.
"""

from twisted.internet.testing import StringTransport

from hub.client import net


class Recorder:
    """
    Collects the events of a state machine.
    """

    def __init__(self, state):
        self.events = []
        state.subscribe(self)

    def __call__(self, event, **details):
        self.events.append((event, details))

    def names(self):
        return [e for e, _ in self.events]

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
