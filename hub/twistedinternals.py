"""
Every part of Twisted and autobahn that gamehub uses without the library
promising it: private attributes (a leading underscore) and undocumented
internals of Twisted's transports, web requests, listening services,
C{twistd} and line receivers, and of autobahn's WebSocket protocol.  Each
is read or written here and nowhere else; L{PRIVATE} lists them, L{COPIED}
the library methods copied here for speed (with the release copied), and
C{tests/connection/test_internals.py} checks every one on the installed
releases, failing with the attribute's name when a release changes it.

The rest of the hub calls the functions below, which say what they need
in the library's terms ("what this transport still holds").  Nothing here
imports autobahn: its functions take the protocol or factory.
"""

import socket
from typing import Any, Callable, Dict, Optional, cast

from twisted.application.internet import StreamServerEndpointService
from twisted.internet import abstract, tcp
from twisted.internet.interfaces import (
    IDelayedCall, IProtocol, ISSLTransport, IUNIXTransport)
from twisted.logger import ILogObserver
from twisted.protocols.basic import LineOnlyReceiver
from twisted.web.http import HTTPChannel, Request

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
    ("twisted.internet.abstract.FileDescriptor.producer",
     "read: the producer registered with a transport (producerOf)"),
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
    ("twisted.internet.process.Process.pipes",
     "read: the writer of a child's standard input, written to directly "
     "while it holds nothing (childStdinWriter)"),
    ("twisted.protocols.basic.LineOnlyReceiver._buffer",
     "read and emptied: the unfinished line (partialLineLength, "
     "dropPartialLine)"),
    ("autobahn.websocket.protocol.WebSocketProtocol._dataReceived",
     "called: a read goes straight to the frame parser (frameParser)"),
    ("autobahn.websocket.protocol.WebSocketProtocol.data",
     "read and emptied: the bytes read and not yet parsed; empty, the "
     "parser's loop (consumeData) ends (unparsedBytes, dropUnparsed, "
     "dropMessage)"),
    ("autobahn.websocket.protocol.WebSocketProtocol.message_data",
     "extended, joined and emptied: the message's frames (joinFrame, "
     "deliverMessage, dropMessage)"),
    ("autobahn.websocket.protocol.WebSocketProtocol.frame_data",
     "read and emptied: the frame's data (joinFrame, dropMessage)"),
    ("autobahn.websocket.protocol.WebSocketProtocol.message_is_binary",
     "read: the message's kind (deliverMessage)"),
    ("autobahn.websocket.protocol.WebSocketProtocol.failedByMe",
     "read: a failed connection delivers nothing (joinFrame, "
     "deliverMessage)"),
    ("autobahn.websocket.protocol.WebSocketProtocol._invalid_payload",
     "called: a text that is not UTF-8 fails the connection as autobahn "
     "fails it (failInvalidPayload)"),
    ("autobahn.websocket.protocol.WebSocketProtocol.sendCloseFrame",
     "called (autobahn's 'internal method'): a close with a protocol "
     "code, which sendClose refuses (sendCloseFrame)"),
    ("autobahn.twisted.websocket.WebSocketAdapterProtocol.log",
     "replaced per connection: the lines autobahn writes for each "
     "connection go to the hub's summary (setLog)"),
    ("autobahn.websocket.protocol.PreparedMessage.payloadHybi",
     "read: the frame prepareMessage made (framedText)"),
    ("autobahn.websocket.protocol.create_xor_masker",
     "replaced in its module: the masker made for each masked frame "
     "read, another for a short frame (maskShortFrames)"),
)

#: C{(module, name)} for each private name (one leading underscore) that
#: a module under C{hub/} or C{client_pyglet/} uses though another module
#: defines it: C{tests/test_private_attributes.py} refuses any other (the
#: rule: C{docs/development.md}).  This list only shrinks.  Left:
#: C{os._exit} in the sandbox's relay, which the standard library
#: documents as public (a forked child's exit, skipping the cleanup that
#: belongs to its parent); no other name does that.
PRIVATE_USES = frozenset({
    ("hub/sandbox/inside.py", "_exit"),
})

#: C{{dotted method: digest}} for every library method the functions
#: below copy for speed: the digest (L{codeDigest} in the tests: its
#: code's syntax tree without docstrings and annotations) of the method
#: the copy was made from, autobahn 26.11.1's (the same in 23.1.2, the
#: oldest release supported).  A release that changes one fails its test.
COPIED = {
    "autobahn.websocket.protocol.WebSocketProtocol.onMessageFrameEnd":
        "5a3334eb86d2d1f2",
    "autobahn.websocket.protocol.WebSocketProtocol.onMessageEnd":
        "632a8d0be9f9b7b2",
}


# Transports: the socket, the bytes held.

def sendsDirectly(transport: object) -> bool:
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


def directSocket(transport: Any) -> Optional[socket.socket]:
    """
    The socket to send to directly for C{transport}, or None when
    L{sendsDirectly} says no.
    """
    return transport.getHandle() if sendsDirectly(transport) else None


def childStdinWriter(transport: Any) -> Optional[abstract.FileDescriptor]:
    """
    The writer of the standard input of the child process C{transport}
    (a posix reactor's C{Process}), while it is open, or None (another
    reactor's process, or a closed input).  What it holds is in
    L{unsentBytes}.
    """
    writer = getattr(transport, "pipes", {}).get(0)
    if writer is None or not writer.connected or writer.disconnecting:
        return None
    return cast(abstract.FileDescriptor, writer)


def unsentBytes(transport: object) -> int:
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


def dropUnsent(transport: object) -> None:
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


def producerOf(transport: object) -> Any:
    """
    The producer registered with C{transport} (a Twisted file descriptor),
    or None.
    """
    return getattr(transport, "producer", None)


def receiverOf(transport: object) -> Optional[IProtocol]:
    """
    The protocol C{transport} hands what it reads to (None if it does not
    say).
    """
    return getattr(transport, "protocol", None)


def setReceiver(transport: Any, protocol: IProtocol) -> None:
    """
    Have C{transport} hand what it reads, and its loss, to C{protocol}
    from now on.
    """
    transport.protocol = protocol


# twisted.web requests.

def rawBodyAllowed(request: Request) -> Optional[bool]:
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


def dropTransferDecoder(channel: HTTPChannel) -> None:
    """
    Let go of the decoder of a request body that C{channel} (an
    L{http.HTTPChannel} whose connection is lost) began but did not
    finish: it calls back into the channel, a cycle that would keep the
    connection, its requests and the unfinished body until the cyclic
    collector runs.
    """
    channel._transferDecoder = None


def forgetCancelledAbort(channel: HTTPChannel) -> None:
    """
    Forget the forced close of C{channel} (an L{http.HTTPChannel} whose
    connection is lost, closed for idling) if its timer is no longer
    pending: the hub's clock cancelled it as the hub stopped, and
    Twisted's C{connectionLost} would cancel it again, and raise.
    """
    call: Optional[IDelayedCall] = channel._abortingCall
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

def twistdObserver(twistdOptions: Dict[str, Any]) -> ILogObserver:
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

def partialLineLength(receiver: LineOnlyReceiver) -> int:
    """
    How many bytes of an unfinished line the
    L{twisted.protocols.basic.LineOnlyReceiver} C{receiver} holds.
    """
    return len(receiver._buffer)


def dropPartialLine(receiver: LineOnlyReceiver) -> None:
    """
    Forget the unfinished line a L{LineOnlyReceiver} holds (its connection
    is gone).
    """
    receiver._buffer = b""


# autobahn's WebSocket protocol (hub.web.ws).

def frameParser(protocolClass: Any) -> Callable[[Any, bytes], None]:
    """
    The method of autobahn's WebSocket C{protocolClass} that parses the
    bytes of a read (C{_dataReceived}, what the Twisted adapter's
    C{dataReceived} calls after a debug line whose arguments it computes
    even when debug lines are off), for a subclass's C{dataReceived}.
    """
    return protocolClass._dataReceived


def joinFrame(protocol: Any) -> None:
    """
    A frame of a message is read: its data joins the message's.  A copy
    of autobahn's C{WebSocketProtocol.onMessageFrameEnd} (L{COPIED})
    without its call of C{onMessageFrame}, the frame-based API no one here
    uses; a protocol class takes it as its C{onMessageFrameEnd}.
    """
    if not protocol.failedByMe:
        protocol.message_data.extend(protocol.frame_data)
    protocol.frame_data = None


def deliverMessage(protocol: Any) -> None:
    """
    A whole message is read: to the protocol's C{onMessage}.  A copy of
    autobahn's C{WebSocketProtocol.onMessageEnd} (L{COPIED}) without its
    timings and its C{message} signal (a Deferred a message, which no
    one here listens to); a protocol class takes it as its
    C{onMessageEnd}.
    """
    if not protocol.failedByMe:
        payload, protocol.message_data = b"".join(protocol.message_data), None
        protocol.onMessage(payload, protocol.message_is_binary)


def failInvalidPayload(protocol: Any, reason: str) -> None:
    """
    Fail C{protocol}'s connection for a payload that is not valid (close
    code 1007), as autobahn fails it for invalid UTF-8: by its options
    (the server's C{failByDrop}: dropped at once).
    """
    protocol._invalid_payload(reason)


def unparsedBytes(protocol: Any) -> int:
    """
    How many bytes read by C{protocol} its parser holds, not yet parsed (a
    frame header begun).
    """
    return len(protocol.data)


def dropUnparsed(protocol: Any) -> None:
    """
    Parse nothing more of what C{protocol} was sent: the bytes its parser
    holds are dropped, and its loop (C{consumeData}, which runs while it
    holds some) ends with the frame under way.  For a connection being
    cut.
    """
    protocol.data = b""


def sendCloseFrame(protocol: Any, code: int, reason: str) -> None:
    """
    Send C{protocol}'s peer a close frame with C{code} (any code: autobahn's
    public C{sendClose} takes only 1000 and 3000-4999, not the protocol's
    own, such as 1008) and C{reason} (ASCII, cut to 123 bytes).
    """
    protocol.sendCloseFrame(code=code,
                            reasonUtf8=reason.encode("ascii")[:123],
                            isReply=False)


def dropMessage(protocol: Any) -> None:
    """
    Let go of what C{protocol} holds of a message, a frame or a header
    not yet whole (its connection is gone).
    """
    protocol.data = b""
    protocol.message_data = None
    protocol.frame_data = None


def framedText(factory: Any, payload: bytes) -> bytes:
    """
    The bytes of one text frame of C{payload} (UTF-8), framed by the
    WebSocket C{factory}'s C{prepareMessage}: what C{sendPreparedMessage}
    writes on a connection without permessage-deflate.
    """
    return factory.prepareMessage(payload).payloadHybi


class ShortFramesFirst:
    """
    autobahn's C{create_xor_masker(mask, length)}, with C{makeShort(mask)}
    for a frame of fewer than C{below} bytes.
    """

    def __init__(self, library: Callable[..., Any],
                 makeShort: Callable[[bytes], Any], below: int) -> None:
        self.library = library
        self.makeShort = makeShort
        self.below = below

    def __call__(self, mask: bytes, length: Optional[int] = None) -> Any:
        if length is not None and length < self.below:
            return self.makeShort(mask)
        return self.library(mask, length)


def maskShortFrames(protocolClass: Any, makeShort: Callable[[bytes], Any],
                    below: int) -> None:
    """
    Have autobahn's WebSocket C{protocolClass} unmask each frame of fewer
    than C{below} bytes with C{makeShort(mask)}, a masker as autobahn's
    (C{process}, C{pointer}, C{reset}), and the others with its own.  The
    function replaced is its module's C{create_xor_masker}, which
    C{processData} calls for each masked frame read: every protocol of
    that module uses the masker (it masks or unmasks as autobahn's does).
    Once done, done: called again, it changes nothing.
    """
    namespace = protocolClass.processData.__globals__
    library = namespace["create_xor_masker"]
    if not isinstance(library, ShortFramesFirst):
        namespace["create_xor_masker"] = ShortFramesFirst(
            library, makeShort, below)


def setLog(protocol: Any, log: Any) -> None:
    """
    Have autobahn write C{protocol}'s log lines (C{self.log.warn(...)} and
    so on, txaio's logger methods) to C{log}.
    """
    protocol.log = log
