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

from zope.interface import implementer

from twisted.internet import abstract, tcp
from twisted.internet.interfaces import (
    IPullProducer, ISSLTransport, IUNIXTransport)


def sendsDirectly(transport):
    """
    Whether L{ImmediateWriter} may send to C{transport}'s socket: only a
    plain TCP connection of the posix reactors.  TLS (a wrapper that
    would hand out the raw socket, or C{startTLS}), UNIX sockets (whose
    transport may queue file descriptors to go with the bytes) and the
    in-memory transports of tests are written through C{write} alone.
    """
    return (isinstance(transport, tcp.Connection)
            and not ISSLTransport.providedBy(transport)
            and not IUNIXTransport.providedBy(transport))


def unsentBytes(transport):
    """
    How many bytes written to C{transport} it still holds, not yet taken
    by its socket: what a Twisted file descriptor (a TCP connection, or
    the one under a TLS or other wrapping transport) buffers.  A
    transport may also say so itself with an C{unsentBytes()} method (test
    fakes do); other transports hold nothing as far as this knows.
    """
    for _ in range(4):
        report = getattr(transport, "unsentBytes", None)
        if report is not None:
            return report()
        if isinstance(transport, abstract.FileDescriptor):
            return (len(transport.dataBuffer) - transport.offset
                    + transport._tempDataLen)
        transport = getattr(transport, "transport", None)
        if transport is None:
            break
    return 0


def dropUnsent(transport):
    """
    Free what an aborted C{transport} (a Twisted file descriptor, or one
    wrapped) still holds for its peer; the bytes would never be sent.
    Without this they stay until the transport reports its loss, on the
    reactor's next turn, and one turn may abort many connections.
    """
    for _ in range(4):
        if isinstance(transport, abstract.FileDescriptor):
            transport.dataBuffer = b""
            transport.offset = 0
            transport._tempDataBuffer = []
            transport._tempDataLen = 0
            return
        transport = getattr(transport, "transport", None)
        if transport is None:
            return


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

    def __init__(self):
        self.depth = 0
        self._writers = []

    def hold(self):
        """
        Keep direct sends until the matching L{release}.
        """
        self.depth += 1

    def release(self):
        """
        End one L{hold}; the last one sends what every writer kept.
        """
        self.depth -= 1
        if self.depth:
            return
        writers, self._writers = self._writers, []
        for writer in writers:
            writer.flush()

    def add(self, writer):
        """
        C{writer} keeps bytes for the last L{release}.
        """
        self._writers.append(writer)


@implementer(IPullProducer)
class ImmediateWriter:
    """
    Writes to a transport, sending straight to its TCP socket while the
    transport has nothing buffered.

    What the socket does not take at once goes to C{transport.write}.
    From then on every write is buffered behind it, so bytes keep their
    order, until the transport has sent all it holds.  The transport says
    so by calling C{resumeProducing} on its registered pull producer,
    which is this writer for that time.

    Every write to the transport must go through its writer.

    With C{maxUnsent}, a write that leaves the transport holding more
    than C{maxUnsent} bytes calls C{overflowed()} (which should close the
    connection); from then on, and after L{close}, writes are dropped.

    With a C{batch} (a L{WriteBatch}), the direct sends made while it is
    held are kept and sent in one call when it is released.

    @ivar transport: the transport written to.
    @ivar socket: its socket while sending directly is allowed, else
        L{None}.
    @ivar buffered: whether the transport may hold bytes not yet sent.
    @ivar closed: whether writes are dropped.
    """

    def __init__(self, transport, maxUnsent=None, overflowed=None,
                 batch=None):
        self.transport = transport
        self.socket = transport.getHandle() if sendsDirectly(
            transport) else None
        self.buffered = False
        self.closed = False
        self.maxUnsent = maxUnsent
        self.overflowed = overflowed
        self.batch = batch
        self._kept = None

    def write(self, data):
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

    def flush(self):
        """
        Send what was kept while the batch was held.
        """
        kept, self._kept = self._kept, None
        if kept and not self.closed:
            self._send(b"".join(kept))

    def _send(self, data):
        transport = self.transport
        if (self.socket is None or self.buffered
                or transport.disconnecting or not transport.connected):
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
            # Registering a pull producer asks it for data at once; that
            # call finds nothing buffered yet and does nothing.
            transport.registerProducer(self, False)
            self.buffered = True
            self._buffer(data[sent:])

    def _buffer(self, data):
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

    def close(self):
        """
        Drop every write from now on.
        """
        self.closed = True

    def resumeProducing(self):
        """
        The transport has sent everything it held: send directly again.
        """
        if self.buffered:
            self.buffered = False
            self.transport.unregisterProducer()

    def stopProducing(self):
        """
        The connection is gone: never send directly again.
        """
        self.socket = None


def relayWriter(transport):
    """
    A C{write} for relayed bytes: sent to C{transport}'s socket at once
    while it holds nothing unsent, else left to C{transport.write}, so
    that bytes keep their order and the transport's buffer still pauses
    its producer (the other end of the relay) when it fills.  Unlike
    L{ImmediateWriter} it registers no producer: a relay's transports
    (a cluster's node links, L{hub.cluster.link}) are each other's
    streaming producers.
    """
    if not sendsDirectly(transport):
        return transport.write
    sock = transport.getHandle()
    write = transport.write

    def relay(data):
        if (unsentBytes(transport) or transport.disconnecting
                or not transport.connected):
            write(data)
            return
        try:
            sent = sock.send(data)
        except BlockingIOError:
            sent = 0
        except OSError:
            # Failing: let the transport find out and report it.
            write(data)
            return
        if sent < len(data):
            write(data[sent:])
    return relay
