"""
The web face's resource tree and site (L{HubSite}), and the metrics
port's site (L{metricsSite}).

The routes (docs/web.md, its opening section) are mounted here: the
pages, the JSON API (L{hub.web.api}), tournaments (L{hub.web.tournaments}),
C{/ws} (L{hub.web.ws}), C{/healthz} and C{/readyz} (L{hub.health}), and,
only with accounts (a L{hub.web.auth.WebAuth}), the account pages,
C{/admin} and C{/api/admin/} (404s without, and no page links to them).

Every request passes the site's door first (L{hub.web.door}); the site
holds to the web port's limits (L{hub.limits.WebLimits}) through a
L{hub.limits.FaceGate}, as the game ports do through the hub's gate, and
the metrics port's site does too, with a gate of its own: no port of the
hub is unlimited (docs/operations.md, "The web port").
"""

from __future__ import annotations

import math
import os
import weakref
from typing import Any, Iterable, Optional, Sequence, Tuple, Type, Union

from twisted.application.service import Service
from twisted.logger import Logger
from twisted.internet.interfaces import IReactorTime
from twisted.web import http, resource, server, static
from twisted.web.server import Request

from hub.connection import ServerFactory
from hub.health import putHealth
from hub.limits import WEB_REQUEST_RATE, FaceGate, WebLimits
from hub.metrics import MetricsResource, MetricsRoot, metricsRegistry
from hub.web import api, pages
from hub.web.door import WebDoor
from hub.web.errors import HubRequest, WebErrors
from hub.web.interfaces import ITournamentsWeb
from hub.twistedinternals import (
    dropTransferDecoder, forgetCancelledAbort, maskShortFrames)
from hub.web.live import (
    HEARS, RECORDED_FINISHED, RECORDED_FINISHED_ACTIONS, Spectating)
from hub.web.now import LobbyFeed

STATIC = os.path.join(os.path.dirname(__file__), "static")
SECURITY_HEADERS = (
    (b"Content-Security-Policy",
     b"default-src 'self'; img-src 'self' data:; object-src 'none'; "
     b"base-uri 'none'; frame-ancestors 'none'"),
    (b"X-Content-Type-Options", b"nosniff"),
    (b"Referrer-Policy", b"no-referrer"),
)
#: Seconds a web connection may be idle (kept alive between requests, or
#: sending a request's headers) before it is closed; a request being
#: answered (an event stream) is never idle.  Twisted's default is 12
#: hours, which lets a client hold its connections (and the hub's
#: descriptors) for nothing.
IDLE_SECONDS = 60
#: Fewer connections than this for the web port, and the hub warns at
#: start (its descriptor limit is low for the reserve).
FEW_CONNECTIONS = 64
log = Logger()
#: The header's link on the pages of a web face with accounts.
ACCOUNT_LINKS = pages.ACCOUNT_LINKS


class Root(resource.Resource):
    """
    The top of the tree: the lobby at C{/}, the rest by first segment.
    """

    def __init__(self, web: Any, metrics: Any, health: Any = None,
                 auth: Any = None, play: Any = None,
                 tournaments: Any = None) -> None:
        resource.Resource.__init__(self)
        if play is not None:
            self.putChild(b"ws", play)
            self.putChild(b"play", pages.PlayPage())
        self.lobbyPage = pages.LobbyPage(web)
        self.putChild(b"games", pages.GamePage(web))
        self.putChild(b"players", pages.PlayerPage(web))
        self.putChild(b"leaderboard", pages.LeaderboardPage(web))
        apiRoot = api.apiResource(web)
        self.putChild(b"api", apiRoot)
        if auth is not None:
            from hub.web import accountpages, admin, adminapi
            self.putChild(b"register", accountpages.RegisterPage(auth))
            self.putChild(b"login", accountpages.LoginPage(auth))
            self.putChild(b"logout", accountpages.LogoutPage(auth))
            self.putChild(b"account", accountpages.AccountPage(auth))
            self.putChild(b"admin", admin.AdminPage(auth, tournaments))
            apiRoot.putChild(b"admin", adminapi.AdminAPI(auth, tournaments))
        if tournaments is not None:
            from hub.web.tournaments import TournamentsAPI, TournamentsPage
            self.putChild(b"tournaments", TournamentsPage(tournaments))
            apiRoot.putChild(b"tournaments", TournamentsAPI(tournaments))
        else:
            # The header links here on every page.
            self.putChild(b"tournaments", pages.NoTournamentsPage())
        self.putChild(b"static", StaticFiles(STATIC))
        self.putChild(b"metrics", metrics)
        if health is not None:
            putHealth(self, health)

    def getChild(self, name: bytes, request: Request) -> resource.IResource:
        if name == b"":
            return self.lobbyPage
        return NotFoundPage()

    def render_GET(self, request: Request) -> Union[bytes, int]:
        return self.lobbyPage.render_GET(request)


class NotFoundPage(resource.Resource):
    """
    A 404 page for anything unknown.
    """

    isLeaf = True

    def render(self, request: Request) -> Union[bytes, int]:
        return pages.notFound(request)


class TooManyRequests(resource.Resource):
    """
    A 429 for a request over its address's rate, saying when to come back
    (C{Retry-After}, whole seconds).
    """

    isLeaf = True

    def __init__(self, wait: Any) -> None:
        resource.Resource.__init__(self)
        self.wait = wait

    def render(self, request: Request) -> Union[bytes, int]:
        return api.sendTooMany(request, "too many requests",
                               max(1, math.ceil(self.wait)))


class StaticFiles(resource.Resource):
    """
    C{/static/NAME}: the files of C{folder} (not its subfolders), each by
    its exact name; anything else, the folder itself included (no
    listing), is a 404.
    """

    def __init__(self, folder: Any) -> None:
        resource.Resource.__init__(self)
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if os.path.isfile(path) and not name.startswith("."):
                self.putChild(name.encode("utf-8"), static.File(path))

    def getChild(self, name: bytes, request: Request) -> resource.IResource:
        return NotFoundPage()

    def render(self, request: Request) -> Union[bytes, int]:
        return pages.notFound(request)


class HubChannel(http.HTTPChannel):
    """
    An HTTP connection of the web face, admitted by the site's
    L{FaceGate}: it frees its place when it is gone, and lets go of what
    it held at once (see L{connectionLost}).

    @ivar admittedHost: the address it was admitted for, or None.
    """

    gate = None
    admittedHost = None

    def admitted(self, gate: Any, host: Any) -> None:
        """
        The site's C{gate} admitted this connection for C{host} (None for
        a trusted proxy's): it frees that place when it is gone.
        """
        self.gate, self.admittedHost = gate, host

    def connectionLost(self, reason):
        """
        Free the connection's place at the gate, then let go of what the
        connection held: the decoder of a request body begun but not
        finished (Twisted keeps it, and it calls back into the channel: a
        cycle holding the connection, its requests and the unfinished
        line until the cyclic collector runs) and the unfinished line.
        A forced close the stopping hub's clock cancelled is forgotten
        first (Twisted would cancel it again).
        """
        gate, self.gate = self.gate, None
        if gate is not None:
            gate.release(self.admittedHost)
            self.site.channels.discard(self)
        forgetCancelledAbort(self)
        http.HTTPChannel.connectionLost(self, reason)
        dropTransferDecoder(self)
        self.clearLineBuffer()


class HubSite(ServerFactory, server.Site):
    """
    The web face's site: the security headers on every response, no
    access log line per request (spectators' streams are many), and the
    web port's limits: a connection is refused (closed before it has a
    protocol) when its address is past its request overdraft, has its
    C{maxConnectionsPerIP}, the hub has its C{--max-connections}, or the
    descriptors left are the game ports' reserve; a request over its
    address's rate is answered 429 (and past the overdraft its
    connection closes after the answer).  A connection idle for
    L{IDLE_SECONDS} is closed.  When the site stops listening (the hub
    stops), its connections are closed.

    @param reactor: the L{IReactorTime} of the idle timeouts (the hub's
        tracked clock, given by L{faceSite}).
    @param door: the L{WebDoor} every request passes first (default: no
        trusted proxy, no bans, health checks from the private ranges).
    @ivar gate: the L{FaceGate}.
    @ivar resolver: the door's L{hub.web.proxies.ClientResolver}, which
        the requests (L{HubRequest}) ask who their client is.
    @param errors: the site's L{WebErrors}, or None.
    @param auth: the L{hub.web.auth.WebAuth} of a site with accounts, or
        None; with one, every page's header links to the accounts'.
    @param web: what the pages read (L{hub.web.api.Web}), or None.
    @param play: the browser play (L{hub.web.play.WebPlay}), or None.
    @param tournaments: the events of C{/tournaments} and C{/admin}
        (L{hub.web.interfaces.ITournamentsWeb}), or None.
    @ivar channels: the open HTTP connections (L{HubChannel}s).
    @ivar accountLinks: the header's account links of every request.
    """

    protocol = HubChannel
    requestFactory = HubRequest

    def __init__(self, root: resource.IResource, gate: FaceGate,
                 reactor: Optional[IReactorTime] = None,
                 door: Optional[WebDoor] = None,
                 errors: Optional[WebErrors] = None, auth: Any = None,
                 web: Optional[api.Web] = None, play: Any = None,
                 tournaments: Optional[ITournamentsWeb] = None) -> None:
        server.Site.__init__(self, root, timeout=IDLE_SECONDS,
                             reactor=reactor)
        self.gate = gate
        self.errors = errors
        self.auth = auth
        self.web = web
        self.play = play
        self.tournaments = tournaments
        self.accountLinks = ACCOUNT_LINKS if auth is not None else ()
        self.door = door if door is not None else WebDoor()
        self.resolver = self.door.resolver
        # Weak: a channel upgraded to a WebSocket (hub.web.ws) never
        # hears of its connection again, and is forgotten when freed.
        self.channels: Any = weakref.WeakSet()

    def connectionGate(self) -> FaceGate:
        return self.gate

    def startFactory(self) -> None:
        """
        Nothing to start: with no access log (L{log}), Twisted's loop that
        keeps the log's date fresh, once a second on the clock, is not
        needed.
        """

    def stopFactory(self) -> None:
        """
        The site no longer listens: the hub is stopping, and about to
        cancel every timer of its clock, the connections' idle timeouts
        among them.  Close the connections now (the reactor would cut
        them as it stops) rather than leave them open with no timeout.
        """
        server.Site.stopFactory(self)
        for channel in list(self.channels):
            # An upgraded channel has handed its transport (and its
            # place at the gate) to its WebSocket.
            if channel.gate is not None and channel.transport is not None:
                channel.transport.loseConnection()

    def buildProtocol(self, addr: Any) -> Any:
        host = getattr(addr, "host", None)
        if self.resolver.trusts(host):
            # A proxy's connection carries many clients' requests, each
            # held to its own client's limits.
            host = None
        refused = self.gate.admit(host)
        if refused is not None:
            self.gate.limited(refused, addr, "too many connections")
            self.refused()
            return None
        channel = ServerFactory.buildProtocol(self, addr)
        if channel is None:
            self.gate.release(host)
            return None
        channel.admitted(self.gate, host)
        self.channels.add(channel)
        return channel

    def getResourceFor(self, request: Request) -> Any:
        for name, value in SECURITY_HEADERS:
            request.setHeader(name, value)
        address = request.getClientAddress()
        refused = self.door.refusal(request)
        limited = self.gate.request(getattr(address, "host", None))
        if limited is not None:
            wait, overdrawn = limited
            if overdrawn:
                self.gate.limited(WEB_REQUEST_RATE, address, "over {:g} "
                                  "requests a second".format(
                                      self.gate.limits.requestRate))
                channel = request.channel
                request.notifyFinish().addBoth(
                    lambda _: channel.loseConnection())
            if refused is None:
                refused = TooManyRequests(wait)
        if refused is not None:
            return refused
        return server.Site.getResourceFor(self, request)

    def log(self, request: http.Request) -> None:
        pass


class MetricsSite(HubSite):
    """
    The site of C{--metrics-port} (L{metricsSite}): a L{HubSite}, named
    apart in the log (C{MetricsSite starting on PORT}).
    """


class WebService(Service):
    """
    Stops the feeds' timers with the hub, and writes the summaries of the
    site's errors under way.

    @param spectating: the L{Spectating}, or None (the metrics port).
    @param lobbyFeed: the L{LobbyFeed}, or None.
    @param errors: the site's L{WebErrors}, or None.
    @param play: the browser play (L{hub.web.play.WebPlay}), or None.
    @param name: the service's name (default C{"web"}).
    @param sessions: the login sessions
        (L{hub.accounts.websessions.WebSessions}) whose last uses are
        written as the hub stops, or None.
    @param displays: the pages' L{hub.accounts.displays.DisplayNames},
        stopped with the service, or None.
    """

    name = "web"

    def __init__(self, spectating: Any, lobbyFeed: Any, errors: Any = None,
                 play: Any = None, name: Optional[str] = None,
                 tournamentFeeds: Any = None, sessions: Any = None,
                 displays: Any = None) -> None:
        self.spectating = spectating
        self.displays = displays
        self.lobbyFeed = lobbyFeed
        self.errors = errors
        self.play = play
        self.tournamentFeeds = tournamentFeeds
        self.sessions = sessions
        if name is not None:
            self.name = name

    def stopService(self) -> Any:
        Service.stopService(self)
        for feed in (self.play, self.spectating, self.lobbyFeed,
                     self.tournamentFeeds, self.displays):
            if feed is not None:
                feed.stop()
        if self.errors is not None:
            self.errors.flush()
        if self.sessions is not None:
            return self.sessions.stop()


def metricsResource(lobby: Any, sessions: Any,
                    collectors: Sequence[Any] = ()) -> Any:
    """
    The Prometheus metrics of the hub, as at C{--metrics-port}.
    """
    return MetricsResource(metricsRegistry(lobby, sessions, collectors))


def faceGate(hub: Any, limits: Optional[WebLimits] = None,
             port: str = "web port") -> FaceGate:
    """
    The L{FaceGate} of a port of C{hub} (a L{hub.service.Hub}) under
    C{limits}, over the hub's gate; warns when the descriptor limit
    leaves the port few connections.

    @param limits: the port's L{WebLimits} (default: none).
    @param port: the port's name in the warning.
    """
    gate = FaceGate(limits if limits is not None else WebLimits(),
                    hub.clock, hub.sessions.gate)
    budget = gate.budget
    most = budget.connections()
    if most is not None and most < FEW_CONNECTIONS:
        log.warn("the {port} accepts only while the hub holds fewer than "
                 "{most} connections: 'ulimit -n' is {soft}, "
                 "--web-fd-reserve {reserve}; raise the one or lower the "
                 "other", port=port, most=most, soft=budget.softLimit,
                 reserve=budget.reserve)
    return gate


def faceSite(hub: Any, root: resource.IResource, gate: FaceGate,
             siteClass: Type[HubSite] = HubSite,
             door: Optional[WebDoor] = None, sockets: Iterable[Any] = (),
             **parts: Any) -> HubSite:
    """
    A L{HubSite} serving C{root} for C{hub} through C{gate} (a
    L{faceGate}) and C{door} (a L{WebDoor}): its errors are summarised
    and its idle timeouts run on the hub's clock (so that they are
    tracked, and a test drives them with a L{Clock}).  When the door's
    bans come to cover more, the site's connections and C{sockets} (the
    live WebSockets, a set that changes) that they cover are closed.

    @param siteClass: L{HubSite} or a subclass.
    @param parts: the site's C{auth}, C{web}, C{play} and C{tournaments}
        (L{HubSite}).
    """
    site = siteClass(root, gate, reactor=hub.clock, door=door,
                     errors=WebErrors(hub.clock), **parts)
    names = site.door.names
    if names is not None:
        names.watchBans(lambda: site.door.enforce(site.channels, sockets))
    return site


def webDoor(hub: Any, auth: Any = None,
            door: Optional[WebDoor] = None) -> WebDoor:
    """
    C{door}, or the L{WebDoor} of a hub without a proxy in front, holding
    to the bans of C{auth}'s name service (if any).
    """
    if door is not None:
        return door
    return WebDoor(names=auth.names if auth is not None else None)


def webSite(hub: Any, records: Any = None, collectors: Sequence[Any] = (),
            limits: Optional[WebLimits] = None, auth: Any = None,
            games: Any = None, director: Any = None, directory: Any = None,
            thinker: Any = None, shares: Any = None,
            door: Optional[WebDoor] = None) -> Tuple[HubSite, WebService]:
    """
    The web face of C{hub} (a L{hub.service.Hub}): a L{HubSite}, and the
    L{WebService} to parent under the hub.  The spectators' feed is given
    to the lobby as a table listener.

    @param records: the records' query API (L{hub.records.query.Records})
        or None.
    @param limits: the web port's L{WebLimits} (default: none).
    @param auth: the L{hub.web.auth.WebAuth} of a hub with accounts, or
        None (no accounts pages).
    @param games: the module of each game kind whose rooms browser
        players join at C{/ws} (L{hub.web.play.games.makeGames}, over the
        kinds' start policies and Splendor's seating); None for no
        C{/ws}.
    @param director: the tournament director
        (L{hub.tournaments.director.Director}) whose events the
        C{/tournaments} pages and API show, or None for none.
    @param directory: with C{--cluster}, the node's room directory, which
        the browser players' rooms are claimed in and whose other nodes'
        rooms their lobby shows (L{hub.web.play.WebPlay}); None.
    @param thinker: the L{hub.ihub.IThinker} of C{/ws}'s hints (the hub's
        pool of bot workers).
    @param shares: the L{hub.thinkers.shares.BotShares} of C{/ws}'s room
        bots, or None for no limit.
    @param door: the L{WebDoor} (C{--trusted-proxies}, C{--health-from},
        the bans), or None for L{webDoor}'s.
    @return: C{(site, service)}.
    """
    displays = auth.displays if auth is not None else None
    names = auth.names if auth is not None else None
    if records is None:
        spectating = Spectating(hub.clock, displays=displays)
    else:
        # The finished games are read from their records: a short tail.
        spectating = Spectating(
            hub.clock, maxFinished=RECORDED_FINISHED,
            maxFinishedActions=RECORDED_FINISHED_ACTIONS,
            displays=displays)
    hub.lobby.addTableListener(spectating, hears=HEARS)
    lobbyFeed = LobbyFeed(hub.lobby, hub.sessions, spectating, hub.clock,
                          displays=displays)
    gate = faceGate(hub, limits)
    tournaments = feeds = None
    if director is not None:
        from hub.web.tournaments import TournamentsWeb
        tournaments = TournamentsWeb(director.database, director, hub.lobby,
                                     spectating, gate, names, hub.clock,
                                     auth, displays)
        feeds = tournaments.feeds
        director.addListener(feeds)
    web = api.Web(hub.lobby, hub.sessions, spectating, lobbyFeed, records,
                  displays=displays,
                  # An engine's ABOUT on its player page.
                  abouts=tournaments.latestAbout if tournaments else None,
                  gate=gate,
                  accountLinks=ACCOUNT_LINKS if auth is not None else ())
    play = socket = None
    sockets: Any = ()
    if games is not None:
        from hub.web.play import WebPlay
        from hub.web.masker import SHORT_FRAME, ShortMasker
        from hub.web.ws import PlayFactory, PlayResource, PlaySocket
        # A move's frame is unmasked in Python: autobahn's C masker costs
        # more to make than to use (hub.web.masker).  Every autobahn
        # protocol of the process reads so (a module global of its).
        maskShortFrames(PlaySocket, ShortMasker, SHORT_FRAME)
        play = WebPlay(hub.lobby, hub.sessions, hub.clock, games,
                       lobbyFeed, names,
                       directory=directory, spectating=spectating,
                       pairings=director, thinker=thinker,
                       shares=shares, displays=displays)
        socketFactory = PlayFactory(play, hub.sessions, hub.clock, auth)
        sockets = socketFactory.sockets
        socket = PlayResource(socketFactory)
        if director is not None:
            # "Your game is ready" over /ws, and the pairings' rooms.
            director.addListener(play)
    root = Root(web, metricsResource(hub.lobby, hub.sessions, collectors),
                hub.health, auth, socket, tournaments)
    site = faceSite(hub, root, gate, door=webDoor(hub, auth, door),
                    sockets=sockets, auth=auth, web=web, play=play,
                    tournaments=tournaments)
    service = WebService(spectating, lobbyFeed, site.errors, play,
                         tournamentFeeds=feeds,
                         sessions=None if auth is None else auth.sessions,
                         displays=displays)
    return site, service


def metricsSite(hub: Any, collectors: Sequence[Any] = (),
                limits: Optional[WebLimits] = None,
                door: Optional[WebDoor] = None) -> Tuple[HubSite, WebService]:
    """
    The site of C{--metrics-port}: the hub's metrics (and the process
    metrics of C{prometheus_client}, and those of C{collectors}, e.g. the
    records') at C{/metrics}, the hub's C{/healthz} and C{/readyz}, 404
    elsewhere; a L{HubSite} under the web port's C{limits}, with a gate
    of its own, behind C{door} (L{webDoor}'s by default).

    @return: C{(site, service)}: the site, and the L{WebService} (named
        C{"metrics"}) that writes its error summaries when the hub stops.
    """
    root = MetricsRoot(metricsRegistry(hub.lobby, hub.sessions, collectors),
                       hub.health)
    site = faceSite(hub, root, faceGate(hub, limits, "metrics port"),
                    MetricsSite, webDoor(hub, door=door))
    return site, WebService(None, None, site.errors, name="metrics")
