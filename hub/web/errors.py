"""
The web face's bad requests and failures, answered without a traceback
and logged summarised (L{hub.limits.SummaryLog}), as the game ports log
their refusals: a client sending thousands of malformed requests, or a
fault hit by every request, costs a line per L{LOG_INTERVAL}, not a
traceback each.

Also what a path segment and an id of the web face may be: a game id is
C{live-N} or a record id, ASCII decimal digits within the records' 63-bit
range; a segment is UTF-8 without control characters and of a sane
length.  Anything else is malformed, and answered 404 before it reaches
the records.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any

from twisted.internet.address import IPv4Address, IPv6Address
from twisted.logger import Logger, LogLevel
from twisted.web import server
from twisted.internet.interfaces import IReactorTime
from twisted.python.failure import Failure
from twisted.web.server import Request

from hub.limits import LOG_INTERVAL, SummaryLog

#: The largest record id: the records' ids are 63-bit signed integers.
MAX_RECORD_ID = 2 ** 63 - 1

#: The longest path segment (a player's name, in characters) looked up.
MAX_SEGMENT = 256

#: Characters of a malformed path shown in the log.
LOGGED_PATH = 120

_RECORD_ID = re.compile(r"[0-9]{1,19}\Z", re.ASCII)
_LIVE_ID = re.compile(r"live-[0-9]{1,19}\Z", re.ASCII)
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")

#: The summaries' kinds.
MALFORMED = "malformed web requests"
FAILED = "failed web requests"


def recordId(text: str) -> Any:
    """
    The record id C{text} names: ASCII decimal digits (no sign, no
    space), from 1 to L{MAX_RECORD_ID}.

    @return: the id, or None if C{text} is no record id.
    """
    if not _RECORD_ID.match(text):
        return None
    value = int(text)
    return value if 0 < value <= MAX_RECORD_ID else None


def wellFormedGameId(text: str) -> Any:
    """
    Whether C{text} may be a game's id on the web: C{live-N}, or a record
    id (L{recordId}).
    """
    return bool(_LIVE_ID.match(text)) or recordId(text) is not None


def pathSegment(raw: bytes) -> Any:
    """
    A path segment as text: valid UTF-8, at most L{MAX_SEGMENT}
    characters, without control characters.

    @param raw: the segment (L{bytes}, unquoted).
    @return: the text, or None if malformed.
    """
    if len(raw) > 4 * MAX_SEGMENT:
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if len(text) > MAX_SEGMENT or _CONTROL.search(text):
        return None
    return text


class WebErrors:
    """
    The summarised log of a site's malformed requests (answered 404 or
    400, at info level) and failed ones (answered 500 or 503, at error
    level, the first of each interval with its traceback).

    @param clock: an L{IReactorTime} for the summaries' intervals.
    """

    log = Logger()

    def __init__(self, clock: IReactorTime,
                 interval: float = LOG_INTERVAL) -> None:
        self.malformedLog = SummaryLog(clock, self.log, interval)
        self.failedLog = SummaryLog(clock, self.log, interval,
                                    level=LogLevel.error)

    def malformed(self, request: Request, why: str) -> None:
        """
        C{request} was refused as malformed (C{why} says how).
        """
        self.malformedLog.note(
            MALFORMED, "refused a web request from {peer} for {path}: {why}",
            peer=_peer(request), path=_path(request), why=why)

    def failed(self, request: Request, failure: Failure) -> None:
        """
        C{request} failed with C{failure}.
        """
        self.failedLog.note(
            FAILED, "a web request from {peer} for {path} failed",
            peer=_peer(request), path=_path(request), log_failure=failure)

    def flush(self) -> None:
        """
        Write the summaries under way (the hub is stopping).
        """
        self.malformedLog.flush()
        self.failedLog.flush()


def _peer(request: Request) -> Any:
    peer = request.getClientAddress()
    return getattr(peer, "host", None) or str(peer)


def _path(request: Request) -> Any:
    # Escaped and cut, so that no path forges or floods a log line.
    more = "..." if len(request.uri) > LOGGED_PATH else ""
    return repr(request.uri[:LOGGED_PATH]) + more


def errorsOf(request: Request) -> Any:
    """
    The L{WebErrors} of C{request}'s site, or None.
    """
    return getattr(getattr(request, "site", None), "errors", None)


def refuse(request: Request, why: str, page: Any) -> Any:
    """
    Log C{request} as malformed (summarised) and answer it with C{page}
    (a resource answering 404 or 400).

    @return: what C{page} renders.
    """
    errors = errorsOf(request)
    if errors is not None:
        errors.malformed(request, why)
    return page.render(request)


def clientAddress(host: Any, peer: Any) -> Any:
    """
    The L{IAddress} of the client C{host} (text), or C{peer} (the TCP
    peer's address) when it is that one.
    """
    if host is None or host == getattr(peer, "host", None):
        return peer
    if ipaddress.ip_address(host).version == 6:
        return IPv6Address("TCP", host, 0)
    return IPv4Address("TCP", host, 0)


class HubRequest(server.Request):
    """
    A request of the web face: a resource that fails is answered 500
    with a short page, and logged summarised (L{WebErrors}) instead of a
    traceback each time.

    Its client is found once, as it is processed, by its site's
    C{resolver} (L{hub.web.proxies.ClientResolver}): behind a trusted
    proxy, L{getClientAddress} is the client's address the proxy gives,
    and L{isSecure} says whether the client used HTTPS.  Everything that
    uses a request's address (limits, bans, logins, logs) asks
    L{getClientAddress}.
    """

    _client = None
    _secure = None
    #: The header's links to the accounts' pages: its site's (none
    #: without accounts), or its visitor's (L{hub.web.accountpages}).
    accountLinks = ()

    def process(self) -> None:
        self.accountLinks = getattr(getattr(self.channel, "site", None),
                                    "accountLinks", ())
        self.findClient()
        server.Request.process(self)

    def findClient(self) -> None:
        """
        Ask the site's resolver who the client is (its headers read).
        """
        resolver = getattr(getattr(self.channel, "site", None), "resolver",
                           None)
        if resolver is not None:
            client = resolver.client(getattr(self.client, "host", None),
                                     self.requestHeaders)
            self._client = clientAddress(client.host, self.client)
            self._secure = client.secure

    def getClientAddress(self) -> Any:
        """
        The client's address: the peer's, or the one a trusted proxy
        gives.
        """
        return self._client if self._client is not None else self.client

    def isSecure(self) -> Any:
        """
        Whether the client's request came over TLS: to the web face
        itself, or to a trusted proxy that says so.
        """
        if self._secure is not None:
            return self._secure
        return server.Request.isSecure(self)

    def processingFailed(self, reason: Failure) -> Any:
        errors = errorsOf(self)
        if errors is None:
            return server.Request.processingFailed(self, reason)
        errors.failed(self, reason)
        if self.finished or self.channel is None:
            return reason
        if self.startedWriting:
            # Too late for an error page: end what was begun.
            self.finish()
            return reason
        body = b"Internal error\n"
        self.setResponseCode(500)
        self.setHeader(b"Content-Type", b"text/plain; charset=utf-8")
        self.setHeader(b"Content-Length", b"%d" % (len(body),))
        self.write(body)
        self.finish()
        return reason
