"""
The web face's resource tree and site:

    /                       the hub now (lobby)
    /games/ID               a live game, or a finished game's replay
    /players/KIND/NAME      a player's rating and recent games
    /leaderboard/KIND       the leaderboard of a game kind
    /api/...                the JSON API and event streams (L{hub.web.api})
    /static/...             the pages' JavaScript and CSS
    /metrics                the Prometheus metrics of L{hub.metrics}
"""

import os

from twisted.application.service import Service
from twisted.web import http, resource, server, static

from hub.metrics import MetricsResource, metricsRegistry
from hub.web import api, pages
from hub.web.errors import HubRequest, WebErrors
from hub.web.live import Spectating
from hub.web.now import LobbyFeed

STATIC = os.path.join(os.path.dirname(__file__), "static")
SECURITY_HEADERS = (
    (b"Content-Security-Policy",
     b"default-src 'self'; img-src 'self' data:; object-src 'none'; "
     b"base-uri 'none'; frame-ancestors 'none'"),
    (b"X-Content-Type-Options", b"nosniff"),
    (b"Referrer-Policy", b"no-referrer"),
)


class Root(resource.Resource):
    """
    The top of the tree: the lobby at C{/}, the rest by first segment.
    """

    def __init__(self, web, metrics):
        resource.Resource.__init__(self)
        self.lobbyPage = pages.LobbyPage(web)
        self.putChild(b"games", pages.GamePage(web))
        self.putChild(b"players", pages.PlayerPage(web))
        self.putChild(b"leaderboard", pages.LeaderboardPage(web))
        self.putChild(b"api", api.apiResource(web))
        self.putChild(b"static", StaticFiles(STATIC))
        self.putChild(b"metrics", metrics)

    def getChild(self, name, request):
        if name == b"":
            return self.lobbyPage
        return NotFoundPage()

    def render_GET(self, request):
        return self.lobbyPage.render_GET(request)


class NotFoundPage(resource.Resource):
    """
    A 404 page for anything unknown.
    """

    isLeaf = True

    def render(self, request):
        return pages.notFound(request)


class StaticFiles(resource.Resource):
    """
    C{/static/NAME}: the files of C{folder} (not its subfolders), each by
    its exact name; anything else, the folder itself included (no
    listing), is a 404.
    """

    def __init__(self, folder):
        resource.Resource.__init__(self)
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if os.path.isfile(path) and not name.startswith("."):
                self.putChild(name.encode("utf-8"), static.File(path))

    def getChild(self, name, request):
        return NotFoundPage()

    def render(self, request):
        return pages.notFound(request)


class HubChannel(http.HTTPChannel):
    """
    An HTTP connection of the web face, freed as soon as it is lost.
    """

    def connectionLost(self, reason):
        """
        Let go of what the connection held: the decoder of a request body
        begun but not finished (Twisted keeps it, and it calls back into
        the channel: a cycle holding the connection, its requests and
        the unfinished line until the cyclic collector runs) and the
        unfinished line.
        """
        http.HTTPChannel.connectionLost(self, reason)
        self._transferDecoder = None
        self.clearLineBuffer()


class HubSite(server.Site):
    """
    The web face's site: the security headers on every response, and no
    access log line per request (spectators' streams are many).  Its
    connections are L{HubChannel}s (plain HTTP/1.x).
    """

    protocol = HubChannel
    requestFactory = HubRequest
    #: The L{WebErrors} of this site (given by L{webSite}).
    errors = None

    def getResourceFor(self, request):
        for name, value in SECURITY_HEADERS:
            request.setHeader(name, value)
        return server.Site.getResourceFor(self, request)

    def log(self, request):
        pass


class WebService(Service):
    """
    Stops the feeds' timers with the hub.
    """

    name = "web"

    def __init__(self, spectating, lobbyFeed, errors=None):
        self.spectating = spectating
        self.lobbyFeed = lobbyFeed
        self.errors = errors

    def stopService(self):
        Service.stopService(self)
        self.spectating.stop()
        self.lobbyFeed.stop()
        if self.errors is not None:
            self.errors.flush()


def metricsResource(lobby, sessions, collectors=()):
    """
    The Prometheus metrics of the hub, as at C{--metrics-port}.
    """
    return MetricsResource(metricsRegistry(lobby, sessions, collectors))


def webSite(hub, records=None, collectors=()):
    """
    The web face of C{hub} (a L{hub.service.Hub}): a L{HubSite}, and the
    L{WebService} to parent under the hub.  The spectators' feed is given
    to the lobby as a table listener.

    @param records: the records' query API (L{hub.records.query.Records})
        or None.
    @return: C{(site, service)}.
    """
    spectating = Spectating(hub.clock)
    hub.lobby.addTableListener(spectating)
    lobbyFeed = LobbyFeed(hub.lobby, hub.sessions, spectating, hub.clock)
    web = api.Web(hub.lobby, hub.sessions, spectating, lobbyFeed, records)
    root = Root(web, metricsResource(hub.lobby, hub.sessions, collectors))
    site = HubSite(root)
    site.web = web
    site.errors = WebErrors(hub.clock)
    return site, WebService(spectating, lobbyFeed, site.errors)
