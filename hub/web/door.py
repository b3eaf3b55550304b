"""
The web face's door: what every request passes before any resource of
the site runs (L{hub.web.site.HubSite.getResourceFor}), on the web port
and on the metrics port.

  - its client is found once (L{hub.web.proxies.ClientResolver}: the
    peer, or behind a C{--trusted-proxies} proxy the client it names);
  - C{/healthz} and C{/readyz} answer only clients that C{--health-from}
    allows (default: loopback and the private ranges), banned or not, so
    that an orchestrator still sees them; others get 403;
  - any other request from a banned address gets 403 (pages, the API,
    event streams, the WebSocket upgrade);
  - when a ban comes to cover addresses or accounts, the open
    connections it covers are closed at once (L{WebDoor.enforce}).
"""

from __future__ import annotations

from typing import Any, Iterable, Union

from twisted.web import resource
from twisted.web.server import Request

from hub.web import i18n
from hub.web.i18n import N_
from hub.web.proxies import PRIVATE_RANGES, ClientResolver, Networks

#: The paths only C{--health-from} may ask for.
HEALTH_PATHS = (b"healthz", b"readyz")
#: The WebSocket close code of a connection closed by a ban (one of the
#: application's own, 4000-4999: 4403, as HTTP's 403).
BANNED_CLOSE = 4403


class Forbidden(resource.Resource):
    """
    A short 403 in plain text, in the request's language
    (L{i18n.chooseLanguage}: nothing is remembered for a refused one).

    @param why: an English text of the catalogs.
    """

    isLeaf = True

    def __init__(self, why: str) -> None:
        resource.Resource.__init__(self)
        self.why = why

    def render(self, request: Request) -> Union[bytes, int]:
        language = i18n.chooseLanguage(request)
        request.setResponseCode(403)
        request.setHeader(b"Content-Type", b"text/plain; charset=utf-8")
        request.setHeader(b"Content-Language", language.encode("ascii"))
        request.setHeader(b"Vary", b"Accept-Language, Cookie")
        request.setHeader(b"Cache-Control", b"no-store")
        return (i18n.translator(language)(self.why) + "\n").encode("utf-8")


BANNED = Forbidden(N_("Forbidden: this address is banned."))
HEALTH_REFUSED = Forbidden(N_("Forbidden: health checks are not open to "
                              "this address (--health-from)."))


def hostOf(address: Any) -> Any:
    """
    The host of an L{IAddress}, or None.
    """
    return getattr(address, "host", None)


class WebDoor:
    """
    The door of the web face and of the metrics port.

    @param resolver: the L{ClientResolver} (C{--trusted-proxies}).
    @param healthFrom: the L{Networks} that may ask for the health
        checks (C{--health-from}).
    @param names: the hub's L{hub.accounts.check.NameService}, whose bans
        the door holds to (and whose summarised log its closes go to), or
        None (no bans).

    @ivar refusedBanned: requests refused for a banned address.
    @ivar closedByBan: connections (HTTP and WebSocket) closed by a ban.
    """

    def __init__(self, resolver: Any = None, healthFrom: Any = None,
                 names: Any = None) -> None:
        self.resolver = resolver if resolver is not None \
            else ClientResolver()
        self.healthFrom = healthFrom if healthFrom is not None \
            else Networks(PRIVATE_RANGES)
        self.names = names
        self.refusedBanned = 0
        self.closedByBan = 0

    def banned(self, host: Any) -> Any:
        """
        Whether the address C{host} is banned now.
        """
        return self.names is not None and self.names.addressBanned(host)

    def refusal(self, request: Request) -> Any:
        """
        The resource that refuses C{request} (whose client is known), or
        None to let it in.
        """
        host = hostOf(request.getClientAddress())
        if request.postpath and request.postpath[0] in HEALTH_PATHS:
            if self.healthFrom.contains(host):
                return None
            return HEALTH_REFUSED
        if self.banned(host):
            self.refusedBanned += 1
            return BANNED
        return None

    def _note(self, format: str, **fields: Any) -> None:
        self.names.summary.note("web connections closed by bans", format,
                                event="closed", **fields)

    def enforce(self, channels: Iterable[Any] = (),
                sockets: Iterable[Any] = ()) -> None:
        """
        Close the HTTP connections (L{hub.web.site.HubChannel}s) whose
        requests, or whose peer when it is no trusted proxy, are of a
        banned address, and the WebSockets (L{hub.web.ws.PlaySocket}s)
        of a banned address or a banned account.
        """
        names = self.names
        if names is None:
            return
        for channel in list(channels):
            transport = channel.transport
            if transport is None or channel.gate is None:
                # Closed, or upgraded to a WebSocket (among C{sockets}).
                continue
            hosts = [hostOf(r.getClientAddress())
                     for r in getattr(channel, "requests", ())]
            peer = hostOf(transport.getPeer())
            if not self.resolver.trusts(peer):
                hosts.append(peer)
            banned = [h for h in hosts if self.banned(h)]
            if banned:
                self.closedByBan += 1
                self._note("closing a web connection of {host}: banned",
                           host=banned[0])
                _abort(transport)
        for socket in list(sockets):
            host = socket.clientHost()
            visitor = socket.visitor
            account = None if visitor is None else visitor.account
            if self.banned(host) or (account is not None and
                                     names.accountBanned(account)):
                self.closedByBan += 1
                self._note("closing a WebSocket of {host}: banned",
                           host=host)
                socket.end(BANNED_CLOSE, "banned")


def _abort(transport: Any) -> None:
    abort = getattr(transport, "abortConnection", None)
    if abort is not None:
        abort()
    else:
        transport.loseConnection()
