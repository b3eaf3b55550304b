"""
Every part of Twisted that gamehub uses without Twisted promising it: the
private attributes (a leading underscore) and the undocumented internals
of its transports, web requests, listening services and C{twistd}.  Each
is read or written here and nowhere else; L{PRIVATE} lists them, and
C{tests/connection/test_internals.py} checks every one on the installed
Twisted, failing with the attribute's name when a release changes it.

The rest of the hub calls the functions below, which say what they need
in Twisted's terms ("what this transport still holds") and fall back to
public behaviour for transports that are not Twisted's file descriptors
(test fakes, TLS wrappers).
"""

from twisted.application.internet import StreamServerEndpointService
from twisted.internet import abstract, tcp
from twisted.internet.interfaces import ISSLTransport, IUNIXTransport

#: C{(dotted attribute, what the hub does with it)} for every private or
#: undocumented attribute of Twisted the hub touches.
PRIVATE = (
    ("twisted.internet.abstract.FileDescriptor.dataBuffer",
     "read and emptied: the bytes a TCP transport holds (unsentBytes, "
     "dropUnsent)"),
    ("twisted.internet.abstract.FileDescriptor.offset",
     "read and reset: how much of dataBuffer is sent"),
    ("twisted.internet.abstract.FileDescriptor._tempDataBuffer",
     "emptied: the writes not yet joined into dataBuffer (dropUnsent)"),
    ("twisted.internet.abstract.FileDescriptor._tempDataLen",
     "read and reset: their length (unsentBytes, dropUnsent)"),
    ("twisted.internet.tcp.Connection.socket",
     "sent to directly (through the public getHandle()) while the "
     "transport holds nothing: directSocket"),
    ("twisted.internet.tcp.Connection.protocol",
     "read and written: the protocol a TCP transport reads into (a "
     "cluster gate steps out of the data path, receiverOf/setReceiver)"),
    ("twisted.web.server.Request._encoder",
     "read: a response that is gzip-encoded is not sent raw "
     "(rawBodyAllowed)"),
    ("twisted.web.http.Request.chunked",
     "read: whether the body goes in HTTP/1.1 chunks (rawBodyAllowed)"),
    ("twisted.web.http.HTTPChannel._transferDecoder",
     "cleared when the connection is lost: the decoder of an unfinished "
     "request body, a cycle back to the channel (dropTransferDecoder)"),
    ("twisted.web.http.HTTPChannel._abortingCall",
     "read and cleared when the connection is lost, if already cancelled "
     "(the hub's clock cancels its timers as it stops): Twisted would "
     "cancel it again, and raise (forgetCancelledAbort)"),
    ("twisted.web.http.Request.startedWriting",
     "read: the headers are out (rawBodyAllowed)"),
    ("twisted.application.internet.StreamServerEndpointService."
     "_raiseSynchronously",
     "set: a port that cannot listen fails twistd at start "
     "(SynchronousListener)"),
    ("twisted.scripts.twistd._SomeApplicationRunner",
     "its loggerFactory makes the observer twistd would (twistdObserver)"),
    ("twisted.application.app.AppLogger._getLogObserver",
     "called: the observer for twistd's --logfile/--syslog options"),
    ("twisted.protocols.basic.LineOnlyReceiver._buffer",
     "read: how long the unfinished line is (partialLineLength)"),
)


# Transports: the socket, the bytes held.

def sendsDirectly(transport):
    """
    Whether the hub may send to C{transport}'s socket itself: only a plain
    TCP connection of the posix reactors.  TLS (a wrapper that would hand
    out the raw socket, or C{startTLS}), UNIX sockets (whose transport may
    queue file descriptors to go with the bytes) and the in-memory
    transports of tests are written through C{write} alone.
    """
    return (isinstance(transport, tcp.Connection)
            and not ISSLTransport.providedBy(transport)
            and not IUNIXTransport.providedBy(transport))


def directSocket(transport):
    """
    The socket to send to directly for C{transport}, or None when
    L{sendsDirectly} says no.
    """
    return transport.getHandle() if sendsDirectly(transport) else None


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


def receiverOf(transport):
    """
    The protocol C{transport} hands what it reads to (None if it does not
    say).
    """
    return getattr(transport, "protocol", None)


def setReceiver(transport, protocol):
    """
    Have C{transport} hand what it reads, and its loss, to C{protocol}
    from now on.
    """
    transport.protocol = protocol


# twisted.web requests.

def rawBodyAllowed(request):
    """
    Whether the rest of C{request}'s body may go to its connection's
    transport past C{request.write}: the headers are out, the body is
    not encoded (gzip) and nothing (a test's fake) replaced C{write}.

    @return: None when not; else whether the body is sent in HTTP/1.1
        chunks (each write framed by L{twisted.web.http.toChunk}).
    """
    if (request.startedWriting and request.method != b"HEAD"
            and not getattr(request, "_encoder", None)
            and "write" not in vars(request)):
        return bool(request.chunked)
    return None


def dropTransferDecoder(channel):
    """
    Let go of the decoder of a request body that C{channel} (an
    L{http.HTTPChannel} whose connection is lost) began but did not
    finish: it calls back into the channel, a cycle that would keep the
    connection, its requests and the unfinished body until the cyclic
    collector runs.
    """
    channel._transferDecoder = None


def forgetCancelledAbort(channel):
    """
    Forget the forced close of C{channel} (an L{http.HTTPChannel} whose
    connection is lost, closed for idling) if its timer is no longer
    pending: the hub's clock cancelled it as the hub stopped, and
    Twisted's C{connectionLost} would cancel it again, and raise.
    """
    call = channel._abortingCall
    if call is not None and not call.active():
        channel._abortingCall = None


# Listening services.

class SynchronousListener(StreamServerEndpointService):
    """
    A L{StreamServerEndpointService} whose port failing to listen raises
    from C{privilegedStartService} (as C{strports.service} has it), so
    that C{twistd} stops at start with the error instead of logging it
    and running without the port.
    """

    _raiseSynchronously = True


# twistd's logging.

def twistdObserver(twistdOptions):
    """
    The log observer C{twistd} makes for its options (C{--logfile},
    C{--nodaemon}, C{--syslog}) when the application sets none.

    @param twistdOptions: C{twistd}'s own options (the parent of the
        plugin's).
    """
    # twistd builds it in its platform's logger class; that is the only
    # place that knows every option, so ask it rather than copy it.
    from twisted.scripts.twistd import _SomeApplicationRunner
    logger = _SomeApplicationRunner.loggerFactory(twistdOptions)
    return logger._getLogObserver()


# Line receivers.

def partialLineLength(receiver):
    """
    How many bytes of an unfinished line the
    L{twisted.protocols.basic.LineOnlyReceiver} C{receiver} holds.
    """
    return len(receiver._buffer)
