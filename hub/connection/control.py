"""
The one owner of a transport's reading and of its producer slot.

Several parts of the hub act on one connection's transport: the request
rate limit (L{hub.connection.ServerConnection}) stops reading a flooder
for a while; a cluster gate (L{hub.cluster.gate}) stops reading while the
cluster decides where a request goes, and relays a handed-over connection
with each end as the other's producer; the immediate writer
(L{hub.connection.immediate}) holds the producer slot while the transport
has a backlog.  Each says why it pauses through the connection's
L{TransportControl}, so that one resuming never undoes another's pause,
and takes the producer slot through it, so that two never collide.
"""

from __future__ import annotations

import weakref
from typing import Any, Dict, Optional, Set

from zope.interface import implementer

from twisted.internet.interfaces import IPushProducer

# Why reading may be paused (any hashable will do; these are the hub's).
RATE = "rate"
ROUTING = "routing"
RELAY = "relay"
NAMES = "names"

# The transports are any of the hub's (TCP, TLS, a cluster's relay, a
# test's): no interface declares all they are asked (disconnecting,
# pauseProducing), so to the type checker a transport is Any.
_controls: weakref.WeakKeyDictionary[Any, TransportControl] = (
    weakref.WeakKeyDictionary())


class TransportControl:
    """
    Pauses and resumes reading from one transport, for named reasons: the
    transport reads while no reason holds it.  Registers the one producer
    of the transport's output.

    @ivar transport: the transport.
    @ivar reasons: the reasons reading is paused now.
    @ivar pauses: C{{reason: count}}, how many times each reason paused
        reading.
    @ivar producer: the producer registered through this control, or
        None.
    """

    def __init__(self, transport: Any) -> None:
        # Weakly: the registry of controls is keyed by the transport, which
        # a strong reference here would keep alive forever.
        self._transport = weakref.ref(transport)
        self.reasons: Set[str] = set()
        self.pauses: Dict[str, int] = {}
        self.producer: Optional[object] = None

    @property
    def transport(self) -> Any:
        """
        The transport (None once it is gone).
        """
        return self._transport()

    @classmethod
    def of(cls, transport: Any) -> TransportControl:
        """
        The control of C{transport}: made on first use, then the same for
        every party.
        """
        try:
            return _controls[transport]
        except KeyError:
            control = _controls[transport] = cls(transport)
            return control

    # Reading.

    def pauseReading(self, reason: str) -> None:
        """
        Stop reading for C{reason} (again for the same reason does
        nothing).
        """
        if reason in self.reasons:
            return
        self.pauses[reason] = self.pauses.get(reason, 0) + 1
        self.reasons.add(reason)
        if len(self.reasons) == 1:
            self.transport.pauseProducing()

    def resumeReading(self, reason: str) -> None:
        """
        C{reason} no longer holds reading: read again if no other does.
        """
        if reason not in self.reasons:
            return
        self.reasons.discard(reason)
        if not self.reasons and not self.transport.disconnecting:
            self.transport.resumeProducing()

    def readingPaused(self, reason: Optional[str] = None) -> bool:
        """
        Whether reading is paused (for C{reason}, if given).
        """
        if reason is None:
            return bool(self.reasons)
        return reason in self.reasons

    def readingProducer(self, reason: str = RELAY) -> IPushProducer:
        """
        An L{IPushProducer} whose pauses pause this transport's reading for
        C{reason}: what to register on another transport that this one's
        bytes are relayed to.
        """
        return _ReadingProducer(self, reason)

    # The producer slot.

    def registerProducer(self, producer: object, streaming: bool) -> None:
        """
        Make C{producer} the transport's producer.  One registered before
        through this control is unregistered first: the slot has a new
        owner (an L{hub.connection.immediate.ImmediateWriter} that held
        it keeps writing behind the transport's backlog).
        """
        if self.producer is not None:
            self.producer = None
            self.transport.unregisterProducer()
        self.producer = producer
        self.transport.registerProducer(producer, streaming)

    def unregisterProducer(self, producer: object) -> None:
        """
        C{producer} leaves the slot, if it holds it still.
        """
        if self.producer is producer:
            self.producer = None
            self.transport.unregisterProducer()


@implementer(IPushProducer)
class _ReadingProducer:
    """
    A transport's reading as a push producer of another transport,
    through its L{TransportControl}.
    """

    def __init__(self, control: TransportControl, reason: str) -> None:
        self.control = control
        self.reason = reason

    def pauseProducing(self) -> None:
        self.control.pauseReading(self.reason)

    def resumeProducing(self) -> None:
        self.control.resumeReading(self.reason)

    def stopProducing(self) -> None:
        self.control.transport.stopProducing()
