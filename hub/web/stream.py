"""
One Server-Sent Events stream to one browser, and the fan-out that feeds
many of them without holding the reactor.

A stream registers itself as the request's push producer: the transport
pauses it once its send buffer fills (the browser reads slower than the
hub writes).  While paused, the bytes still written are counted; past
C{maxBuffered} the connection is cut, so a stalled browser never makes
the hub's memory grow and never slows the players.

Once its headers are out, a stream over plain TCP sends its frames to the
socket at once while the transport holds nothing (through the game
connections' L{hub.connection.immediate.ImmediateWriter}): a fan-out
slice then costs its own sends, instead of leaving a thousand sockets to
be written in one later reactor turn, between two players' moves.
"""

from __future__ import annotations

import collections
import json
import sys
from typing import Any, List, Optional, Set

from twisted.logger import Logger
from zope.interface import implementer
from twisted.internet.interfaces import IPushProducer
from twisted.web.http import toChunk
from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.web.server import Request

from hub.connection.immediate import ImmediateWriter, sendsDirectly
from hub.twistedinternals import rawBodyAllowed

# Bytes a paused (slow) stream may have waiting before it is cut.
MAX_BUFFERED = 256 * 1024
# Streams written per reactor turn by a Fanout.
FANOUT_SLICE = 100
# Seconds between two writes of a Fanout: what comes faster is joined
# into one write per stream (a game moving 200 times a second costs its
# spectators 4 writes a second, not 200; a move after a quiet quarter of
# a second goes at once, so a game played by people is not delayed).
MIN_INTERVAL = 0.25


# One encoder for every frame: json.dumps with options makes a new one
# each call.
_encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=True).encode


def encodeJSON(data: Any) -> Any:
    """
    The JSON text of a frame's data, as the JSON API writes it: compact,
    ASCII only (so one line), with C{<}, C{>} and C{&} escaped so that no
    consumer ever reads markup in it.

    @rtype: L{str}
    """
    text = _encode(data)
    if "<" in text or ">" in text or "&" in text:
        text = (text.replace("<", "\\u003c").replace(">", "\\u003e")
                .replace("&", "\\u0026"))
    return text


def sseFrame(event: Any, data: Any) -> Any:
    """
    One Server-Sent Events message: C{event} names it, C{data} is
    JSON-encoded (one line, so no field splitting is needed).

    @rtype: L{bytes}
    """
    return sseEncoded(event, encodeJSON(data))


def sseEncoded(event: Any, payload: Any) -> Any:
    """
    One Server-Sent Events message whose data is C{payload}, JSON text
    already encoded by L{encodeJSON} (or spliced from such texts).

    @rtype: L{bytes}
    """
    return b"event: %s\ndata: %s\n\n" % (event.encode("ascii"),
                                          payload.encode("ascii"))


@implementer(IPushProducer)
class EventStream:
    """
    The Server-Sent Events response to one request.

    @ivar request: the L{twisted.web.server.Request}.
    @ivar paused: True while the transport asked us to stop producing.
    @ivar waiting: bytes written since the transport paused us.
    @ivar closed: True once the stream ended (the browser left, or it was
        cut).
    @ivar cut: True if the hub cut it for being too slow.
    """

    log = Logger()

    def __init__(self, request: Request, onClose: Any = None,
                 maxBuffered: Any = MAX_BUFFERED) -> None:
        self.request: Any = request
        self.maxBuffered = maxBuffered
        self.onClose = onClose
        self.paused = False
        self.waiting = 0
        self.closed = False
        self.cut = False
        self._writer: Any = None
        self._chunked = False

    def start(self) -> None:
        """
        Send the response's headers and register as its producer.
        """
        request = self.request
        request.setHeader(b"Content-Type",
                          b"text/event-stream; charset=utf-8")
        request.setHeader(b"Cache-Control", b"no-cache")
        request.setHeader(b"X-Accel-Buffering", b"no")
        request.registerProducer(self, True)
        request.notifyFinish().addBoth(self._finished)
        request.write(b"retry: 3000\n\n")
        transport = getattr(getattr(request, "channel", None), "transport",
                            None)
        if transport is not None and sendsDirectly(transport):
            chunked = rawBodyAllowed(request)
        else:
            chunked = None
        if chunked is not None:
            # The headers are out; the body goes as the request would
            # write it (in chunks for HTTP/1.1), straight to the socket
            # while the transport holds nothing.  The request is the
            # transport's producer, so the writer is not one.
            self._writer = ImmediateWriter(transport, producer=False)
            self._chunked = chunked

    def write(self, data: Any) -> None:
        """
        Send C{data} (one or more whole frames), unless closed; cut the
        stream if it is paused and more than C{maxBuffered} bytes wait.
        """
        if self.closed:
            return
        if self.paused:
            self.waiting += len(data)
            if self.waiting > self.maxBuffered:
                self.abort()
                return
        if self._writer is None:
            self.request.write(data)
            return
        if self._chunked:
            # Framed by twisted.web's own toChunk, as request.write would
            # frame it; not written through request.write, which only
            # buffers in the transport: a fan-out slice would then leave
            # its 100 streams to one later reactor turn, between two
            # players' moves, instead of costing its own 100 sends
            # (docs/benchmarks.md, web spectators).
            data = b"".join(toChunk(data))
        self._writer.write(data)

    def finish(self) -> None:
        """
        End the response normally (the game is over).
        """
        if self.closed:
            return
        self._close()
        self.request.unregisterProducer()
        self.request.finish()

    def abort(self) -> None:
        """
        Cut the connection now, dropping whatever it has buffered.
        """
        if self.closed:
            return
        self.cut = True
        self.log.info("cut a slow event stream ({waiting} bytes waiting)",
                      waiting=self.waiting)
        self._close()
        transport = getattr(self.request.channel, "transport", None)
        if transport is None:
            return
        abort = getattr(transport, "abortConnection", None)
        if abort is not None:
            abort()
        else:
            transport.loseConnection()

    def _finished(self, reason: Any) -> None:
        # The request is over (done, or its connection lost): let go of it,
        # since it holds this stream as its producer.
        self._close()
        self.request = self._transport = self._socket = None

    def _close(self) -> None:
        if self.closed:
            return
        self.closed = True
        onClose, self.onClose = self.onClose, None
        if onClose is not None:
            onClose(self)

    # IPushProducer

    def pauseProducing(self) -> None:
        self.paused = True

    def resumeProducing(self) -> None:
        self.paused = False
        self.waiting = 0

    def stopProducing(self) -> None:
        self._close()


class Fanout:
    """
    Writes each message to a set of streams, later in the reactor turn
    that follows and C{FANOUT_SLICE} streams per turn, so that a thousand
    spectators never hold the reactor between two players' moves.
    Messages keep their order per stream.  Messages sent within
    C{minInterval} of the last write are joined into one write per
    stream: sending costs an append, and the bytes are joined once for
    all the streams.

    A source that makes many small messages (a game moving 200 times a
    second) may hold them back: it calls L{wake} instead of L{send}, and
    C{pending}, called before each write, returns the bytes it held back
    (or None), so they are made once per write instead of once each.

    @ivar streams: the L{EventStream}s listening.
    @ivar pending: None, or a callable returning the bytes held back for
        the streams listening now, or None.
    """

    def __init__(self, clock: IReactorTime, sliceSize: Any = FANOUT_SLICE,
                 minInterval: Any = MIN_INTERVAL, pending: Any = None) -> None:
        self.clock = clock
        self.pending = pending
        self.sliceSize = sliceSize
        self.minInterval = minInterval
        self.streams: Set[Any] = set()
        self._queue: Any = collections.deque()
        self._call: Optional[IDelayedCall] = None
        self._targets: Optional[List[Any]] = None
        self._lastWrite: Optional[float] = None
        self.stopped = False

    def __len__(self) -> Any:
        return len(self.streams)

    def add(self, stream: Any) -> None:
        """
        Send later messages to C{stream} too.
        """
        self.streams.add(stream)
        self._targets = None

    def discard(self, stream: Any) -> None:
        """
        Send nothing more to C{stream}.
        """
        self.streams.discard(stream)
        self._targets = None

    def send(self, data: Any) -> None:
        """
        Queue C{data} for every stream listening now.
        """
        if self._enqueue(data):
            self._schedule()

    def wake(self) -> None:
        """
        Write soon what C{pending} holds back (at the next write, no
        sooner than C{minInterval} after the last one).
        """
        if self.streams and not self.stopped:
            self._schedule()

    def _enqueue(self, data: Any) -> bool:
        if not self.streams or self.stopped:
            return False
        targets = self._targets
        if targets is None:
            targets = self._targets = list(self.streams)
        queue = self._queue
        if queue:
            # [frames, targets, streams written]: join data to the last
            # message if it goes to the same streams and none has it yet.
            last = queue[-1]
            if (last[1] is targets and not last[2] and data is not None
                    and type(last[0]) is list):
                last[0].append(data)
                return True
        queue.append([data if data is None else [data], targets, 0])
        return True

    def _schedule(self) -> None:
        if self._call is None:
            delay = 0
            if self._lastWrite is not None:
                delay = max(0, self._lastWrite + self.minInterval
                            - self.clock.seconds())
            self._call = self.clock.callLater(delay, self._writeSome)

    def _pull(self) -> None:
        # What the source held back goes behind what is queued.
        if self.pending is not None:
            data = self.pending()
            if data is not None:
                self._enqueue(data)

    def finish(self) -> None:
        """
        After what is queued (and what C{pending} holds back), end every
        stream listening now.
        """
        self._pull()
        self.send(None)

    def _writeSome(self) -> None:
        self._call = None
        self._lastWrite = self.clock.seconds()
        self._pull()
        budget = self.sliceSize
        queue = self._queue
        while queue and budget > 0:
            entry = queue[0]
            data, targets, start = entry
            if type(data) is list:
                data = entry[0] = b"".join(data)
            end = min(len(targets), start + budget)
            for stream in targets[start:end]:
                if data is None:
                    stream.finish()
                else:
                    stream.write(data)
            budget -= end - start
            if end == len(targets):
                queue.popleft()
            else:
                entry[2] = end
        if queue and self._call is None:
            self._call = self.clock.callLater(0, self._writeSome)

    def flush(self) -> None:
        """
        Write everything queued now (for tests and shutdown).
        """
        if self._call is not None and self._call.active():
            self._call.cancel()
        self._call = None
        self._pull()
        while self._queue:
            self.sliceSize, size = sys.maxsize, self.sliceSize
            try:
                self._writeSome()
            finally:
                self.sliceSize = size

    def stop(self) -> None:
        """
        Forget what is queued, and C{pending} (often a bound method of
        the source: the cycle goes), and cancel the pending write.
        """
        self.stopped = True
        if self._call is not None and self._call.active():
            self._call.cancel()
        self._call = None
        self._queue.clear()
        self.pending = None
