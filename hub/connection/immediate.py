"""
Sending a server's small messages to its TCP socket at once.

C{transport.write} on a Twisted TCP transport only buffers: the bytes go
out when the reactor next finds the socket writable.  For each message
that costs a registration for write events, one more event through the
reactor and a deregistration.  A game server writes one small frame per
message, nearly always in answer to a read, to sockets that nearly always
have room, so that cost buys nothing; in gomoku, where a move is answered
on two connections, it was about 40 % of the server's time per move
(docs/benchmarks.md).

L{ImmediateWriter} sends to the socket at once while the transport has
nothing buffered, and leaves everything else to the transport.  It also
bounds what the transport may hold: a peer that stops reading would
otherwise make the hub buffer everything sent to it.
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional, cast

from zope.interface import implementer

from twisted.internet.interfaces import IPullProducer

from hub.connection.control import TransportControl
# The transports' internals are read in one module; these names are
# theirs, re-exported for the hub's callers.
from hub.twistedinternals import (
    directSocket, dropUnsent, sendsDirectly, unsentBytes)

__all__ = ["ImmediateWriter", "WriteBatch", "relayWriter", "sendsDirectly",
           "unsentBytes", "dropUnsent"]


class WriteBatch:
    """
    Joins the direct sends of many L{ImmediateWriter}s while a request
    is handled: between L{hold} and the matching L{release}, what a writer
    would send to its socket at once is kept, and on the last release
    each writer sends what it kept in one call.  A move answered with two
    messages to one player then costs one send, not two; the bytes, and
    their order on each connection, are the same.

    Writers that would not send directly (a transport with a backlog, or
    one that is not a plain TCP connection, as in tests) write as ever.

    @ivar depth: how many L{hold}s are not yet released.
    """

    def __init__(self) -> None:
        self.depth = 0
        self._writers: List[ImmediateWriter] = []

    def hold(self) -> None:
        """
        Keep direct sends until the matching L{release}.
        """
        self.depth += 1

    def release(self) -> None:
        """
        End one L{hold}; the last one sends what every writer kept.
        """
        self.depth -= 1
        if self.depth:
            return
        writers, self._writers = self._writers, []
        for writer in writers:
            writer.flush()

    def add(self, writer: ImmediateWriter) -> None:
        """
        C{writer} keeps bytes for the last L{release}.
        """
        self._writers.append(writer)


@implementer(IPullProducer)
class ImmediateWriter:
    """
    Writes to a transport, sending straight to its TCP socket while the
    transport has nothing buffered: the one place the hub sends to a
    socket itself (game connections, relayed connections, event streams).

    What the socket does not take at once goes to C{transport.write}.
    From then on every write is buffered behind it, so bytes keep their
    order, until the transport has sent all it holds.  How the writer
    knows:

      - as a producer (C{producer=True}, for a connection whose writes
        all go through this writer) it takes the transport's producer
        slot (through the connection's L{TransportControl}) while the
        transport holds bytes; the transport calls C{resumeProducing} on
        it once it has sent them;
      - otherwise (the transport's slot belongs to another producer, as
        a relay's or a web request's does) it asks the transport how much
        it holds before each direct send.

    With C{maxUnsent}, a write that leaves the transport holding more
    than C{maxUnsent} bytes calls C{overflowed()} (which should close the
    connection); from then on, and after L{close}, writes are dropped.

    With a C{batch} (a L{WriteBatch}), the direct sends made while it is
    held are kept and sent in one call when it is released.

    @ivar transport: the transport written to.
    @ivar socket: its socket while sending directly is allowed, else
        L{None}.
    @ivar control: the transport's L{TransportControl} when a producer,
        else None.
    @ivar buffered: whether the transport may hold bytes not yet sent
        (a producer's knowledge).
    @ivar closed: whether writes are dropped.
    """

    def __init__(self, transport: Any, maxUnsent: Optional[int] = None,
                 overflowed: Optional[Callable[[], object]] = None,
                 batch: Optional[WriteBatch] = None,
                 producer: bool = True) -> None:
        self.transport = transport
        self.socket = directSocket(transport)
        self.control = TransportControl.of(transport) if producer else None
        self.buffered = False
        self.closed = False
        self.maxUnsent = maxUnsent
        self.overflowed = overflowed
        self.batch = batch
        self._kept: Optional[List[bytes]] = None

    def write(self, data: bytes) -> None:
        """
        Send C{data} now if the socket takes it, else buffer (the rest of)
        it in the transport; while the batch is held, keep it for its
        release.
        """
        if self.closed:
            return
        if self._kept is not None:
            # Behind bytes already kept, whatever the state now.
            self._kept.append(data)
            return
        batch = self.batch
        if (batch is not None and batch.depth and self.socket is not None
                and not self.buffered):
            self._kept = [data]
            batch.add(self)
            return
        self._send(data)

    def flush(self) -> None:
        """
        Send what was kept while the batch was held.
        """
        kept, self._kept = self._kept, None
        if kept and not self.closed:
            self._send(b"".join(kept))

    def _send(self, data: bytes) -> None:
        transport = self.transport
        if (self.socket is None or self.buffered
                or transport.disconnecting or not transport.connected
                or (self.control is None and unsentBytes(transport))):
            self._buffer(data)
            return
        try:
            sent = self.socket.send(data)
        except BlockingIOError:
            sent = 0
        except OSError:
            # The connection is failing: let the transport find out and
            # report it the usual way.
            self.socket = None
            self._buffer(data)
            return
        if sent < len(data):
            if self.control is not None:
                # Registering a pull producer asks it for data at once;
                # that call finds nothing buffered yet and does nothing.
                self.control.registerProducer(self, False)
                self.buffered = True
            self._buffer(data[sent:])

    def _buffer(self, data: bytes) -> None:
        """
        Leave C{data} to the transport, and call C{overflowed} if it now
        holds more than C{maxUnsent} bytes.
        """
        self.transport.write(data)
        if (self.maxUnsent is not None
                and unsentBytes(self.transport) > self.maxUnsent):
            self.close()
            if self.overflowed is not None:
                self.overflowed()

    def close(self) -> None:
        """
        Drop every write from now on.
        """
        self.closed = True

    def resumeProducing(self) -> None:
        """
        The transport has sent everything it held: send directly again.
        """
        if self.buffered:
            # Only a producer (with a control) is ever buffered.
            assert self.control is not None
            self.buffered = False
            self.control.unregisterProducer(self)

    def stopProducing(self) -> None:
        """
        The connection is gone: never send directly again.
        """
        self.socket = None


def relayWriter(transport: Any) -> Callable[[bytes], None]:
    """
    A C{write} for relayed bytes: an L{ImmediateWriter} that is not a
    producer, so that C{transport}'s buffer still pauses its own producer
    (the other end of the relay) when it fills: a relay's transports (a
    cluster's node links, L{hub.cluster.link}) are each other's streaming
    producers.  Transports not sent to directly are written as they are.
    """
    if not sendsDirectly(transport):
        return cast("Callable[[bytes], None]", transport.write)
    return ImmediateWriter(transport, producer=False).write
