"""
A client of the hub's web API (C{/api}, see L{hub.web.api}), without
pyglet: JSON documents fetched with L{twisted.web.client.Agent} (read whole
but bounded, as C{readBody} would without a bound), and
Server-Sent Events streams read by a small line protocol over the
response body.

    api = WebAPI(reactor, "http://127.0.0.1:8080")
    d = api.getJSON("/api/games")
    stream = api.stream("/api/games/live-1/events", onEvent)
"""

import json
from typing import Any, Callable, Generator, List, Optional, Tuple, cast
from urllib.parse import quote, urlsplit

from twisted.internet import defer
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IConsumer, IPushProducer
from twisted.internet.protocol import Protocol, connectionDone
from twisted.protocols.basic import LineOnlyReceiver
from twisted.web.client import Agent, ResponseDone
from twisted.web.http import PotentialDataLoss
from twisted.web.http_headers import Headers
from twisted.python.failure import Failure
from twisted.web.iweb import IAgent, IBodyProducer, IResponse
from zope.interface import implementer

#: The web port a hub listens on by default (C{--web-port tcp:8080}).
DEFAULT_WEB_PORT = 8080
#: The longest line of an event stream (a snapshot with its move list is
#: one line); a longer one ends the stream.
MAX_LINE = 4 * 1024 * 1024
#: The biggest JSON document read (a long game's replay).
MAX_DOCUMENT = 32 * 1024 * 1024
#: The biggest answer to a POST read.
MAX_ANSWER = 64 * 1024


class WebAPIError(Exception):
    """
    The web API answered with an error, or not as expected.

    @ivar code: the HTTP status, or None.
    """

    def __init__(self, text: str, code: Optional[int] = None) -> None:
        Exception.__init__(self, text)
        self.code = code


def parseWatchURL(url: str) -> Tuple[str, str]:
    """
    The web root and game id of C{http://HOST:PORT/games/ID} (also
    C{/api/games/ID}; the port defaults to L{DEFAULT_WEB_PORT}).

    @return: C{(root, gameId)}, root as C{http://HOST:PORT}.
    @raise ValueError: for anything else.
    """
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("not a game address: %r (give "
                         "http://HOST:PORT/games/ID)" % (url,))
    try:
        port = parts.port or DEFAULT_WEB_PORT
    except ValueError:
        raise ValueError("bad port in %r" % (url,))
    segments = [s for s in parts.path.split("/") if s]
    if segments[:1] == ["api"]:
        segments = segments[1:]
    if len(segments) != 2 or segments[0] != "games":
        raise ValueError("not a game address: %r (give "
                         "http://HOST:PORT/games/ID)" % (url,))
    host = parts.hostname
    if ":" in host:
        host = "[%s]" % (host,)
    return "%s://%s:%d" % (parts.scheme, host, port), segments[1]


def gamePath(gameId: str) -> str:
    """
    The API path of game C{gameId}.
    """
    return "/api/games/" + quote(gameId, safe="")


class EventStreamDecoder:
    """
    Server-Sent Events, line by line: C{onEvent(event, data)} for each
    message, C{data} decoded from JSON (the hub's messages are JSON).
    Comments and C{retry}/C{id} fields are ignored.
    """

    def __init__(self, onEvent: Callable[[str, Any], object]) -> None:
        self.onEvent = onEvent
        self._event: Optional[str] = None
        self._data: List[str] = []

    def lineReceived(self, line: bytes) -> None:
        """
        One line (bytes, without its end).
        """
        if line.endswith(b"\r"):
            line = line[:-1]
        if not line:
            self._dispatch()
            return
        if line.startswith(b":"):
            return
        name, _, value = line.partition(b":")
        if value.startswith(b" "):
            value = value[1:]
        if name == b"event":
            self._event = value.decode("utf-8", "replace")
        elif name == b"data":
            self._data.append(value.decode("utf-8", "replace"))

    def _dispatch(self) -> None:
        event, data = self._event or "message", self._data
        self._event, self._data = None, []
        if not data:
            return
        try:
            value = json.loads("\n".join(data))
        except ValueError:
            value = "\n".join(data)
        self.onEvent(event, value)


class EventStreamProtocol(LineOnlyReceiver):
    """
    The body of an event stream response: lines (at most L{MAX_LINE}
    bytes) to an L{EventStreamDecoder}.

    @ivar done: a Deferred firing with True when the server ended the
        stream, False when it broke or was cut.
    """

    delimiter = b"\n"
    MAX_LENGTH = MAX_LINE

    def __init__(self, onEvent: Callable[[str, Any], object]) -> None:
        self.decoder = EventStreamDecoder(onEvent)
        self.done: Deferred[bool] = defer.Deferred()
        self.tooLong = False

    def lineReceived(self, line: bytes) -> None:
        self.decoder.lineReceived(line)

    def lineLengthExceeded(self, line: bytes) -> None:
        self.tooLong = True
        self.stop()

    def stop(self) -> None:
        """
        Stop reading: the connection is closed.
        """
        if self.transport is not None:
            cast(IPushProducer, self.transport).stopProducing()

    def connectionLost(self, reason: Failure = connectionDone) -> None:
        if not self.done.called:
            self.done.callback(reason.check(ResponseDone) is not None
                               and not self.tooLong)


@implementer(IBodyProducer)
class BytesProducer:
    """
    A request body of a few bytes, written at once (no global
    cooperator, as L{twisted.web.client.FileBodyProducer} would use).
    """

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.length = len(body)

    def startProducing(self, consumer: IConsumer) -> "Deferred[None]":
        consumer.write(self.body)
        return defer.succeed(None)

    def pauseProducing(self) -> None:
        pass

    def resumeProducing(self) -> None:
        pass

    def stopProducing(self) -> None:
        pass


class WebAPI:
    """
    The web API of one hub.

    @ivar root: C{http://HOST:PORT}.
    """

    def __init__(self, reactor: Any, root: str,
                 agent: Optional[IAgent] = None) -> None:
        self.reactor = reactor
        self.root = root.rstrip("/")
        self.agent = agent if agent is not None else Agent(reactor)

    def _request(self, path: str, accept: bytes,
                 body: Optional[bytes] = None) -> "Deferred[IResponse]":
        if body is None:
            return self.agent.request(
                b"GET", (self.root + path).encode("ascii"),
                Headers({b"Accept": [accept]}))
        return self.agent.request(
            b"POST", (self.root + path).encode("ascii"),
            Headers({b"Accept": [accept],
                     b"Content-Type": [b"application/json"]}),
            BytesProducer(body))

    @defer.inlineCallbacks
    def postJSON(self, path: str,
                 data: Any) -> Generator["Deferred[Any]", Any, Any]:
        """
        POST C{data} as JSON to C{path}: a Deferred of the JSON answered.

        @raise WebAPIError: (in the Deferred) for a status other than 200,
            with the answer's C{error} as its text when it has one.
        """
        response = yield self._request(
            path, b"application/json", json.dumps(data).encode("utf-8"))
        reader = _BoundedBody(MAX_ANSWER)
        response.deliverBody(reader)
        body = yield reader.done
        try:
            answer = json.loads((body or b"").decode("utf-8"))
        except ValueError:
            answer = None
        if response.code != 200:
            error = answer.get("error") if isinstance(answer, dict) \
                else None
            raise WebAPIError(error or "%s: HTTP %d" % (path, response.code),
                              response.code)
        if answer is None:
            raise WebAPIError("%s: not JSON" % (path,), response.code)
        return answer

    @defer.inlineCallbacks
    def getJSON(self, path: str) -> Generator["Deferred[Any]", Any, Any]:
        """
        GET C{path}: a Deferred of its JSON.

        @raise WebAPIError: (in the Deferred) for a status other than 200
            or a body that is not JSON.
        """
        response = yield self._request(path, b"application/json")
        if isinstance(response.length, int) and \
                response.length > MAX_DOCUMENT:
            response.deliverBody(_Discard())
            raise WebAPIError("%s is too big" % (path,), response.code)
        reader = _BoundedBody(MAX_DOCUMENT)
        response.deliverBody(reader)
        body = yield reader.done
        if body is None:
            raise WebAPIError("%s is too big" % (path,), response.code)
        if response.code != 200:
            raise WebAPIError("%s: HTTP %d" % (path, response.code),
                              response.code)
        try:
            return json.loads(body.decode("utf-8"))
        except ValueError:
            raise WebAPIError("%s: not JSON" % (path,), response.code)

    @defer.inlineCallbacks
    def stream(
            self, path: str, onEvent: Callable[[str, Any], object]
    ) -> Generator[Any, Any, EventStreamProtocol]:
        """
        Open the event stream at C{path}: C{onEvent(event, data)} for each
        message.

        @return: a Deferred of the L{EventStreamProtocol} reading it once
            the response has begun (its C{done} fires when it ends).
        """
        response = yield self._request(path, b"text/event-stream")
        if response.code != 200:
            response.deliverBody(_Discard())
            raise WebAPIError("%s: HTTP %d" % (path, response.code),
                              response.code)
        reader = EventStreamProtocol(onEvent)
        response.deliverBody(reader)
        return reader


class _BoundedBody(Protocol):
    """
    A response body read whole, up to C{limit} bytes (like C{readBody},
    bounded).

    @ivar done: a Deferred firing with the body, or None when it was
        longer than the limit (the connection is then closed).
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: List[bytes] = []
        self.size = 0
        self.done: Deferred[Optional[bytes]] = defer.Deferred()

    def dataReceived(self, data: bytes) -> None:
        if self.done.called:
            return
        self.size += len(data)
        if self.size > self.limit:
            self.parts = []
            cast(IPushProducer, self.transport).stopProducing()
            self.done.callback(None)
            return
        self.parts.append(data)

    def connectionLost(self, reason: Failure = connectionDone) -> None:
        if self.done.called:
            return
        if reason.check(ResponseDone, PotentialDataLoss):
            self.done.callback(b"".join(self.parts))
        else:
            self.done.errback(reason)


class _Discard(Protocol):
    """
    A body we do not want: the connection is closed at once.
    """

    def connectionMade(self) -> None:
        cast(IPushProducer, self.transport).stopProducing()
