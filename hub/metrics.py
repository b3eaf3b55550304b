"""
Prometheus metrics of a running gamehub, read at scrape time from the
shared lobby and sessions (nothing is counted on the hot paths).

    gamehub_sessions{game="gomoku"}         connected or reconnecting players
    gamehub_rooms{game="checkers"}          rooms (tables) open
    gamehub_games_running{game="splendor"}  rooms with a game under way

and the counters of L{hub.limits} (connections closed or refused by a
limit, connections slowed for their request rate, web requests answered
429 for their address's rate), and the bot pool's (L{BotsCollector}).
Served at C{/metrics} only.
"""

from typing import Any, Callable, Dict, Iterable, Iterator, Optional, Tuple

from prometheus_client import (
    CONTENT_TYPE_LATEST, GC_COLLECTOR, PLATFORM_COLLECTOR, PROCESS_COLLECTOR,
    CollectorRegistry, generate_latest)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from hub.health import Health, putHealth
from hub.ihub import ILobby
from hub.limits import (
    ACCEPT_PAUSES, LIMITED_CONNECTIONS, THROTTLED_CONNECTIONS,
    THROTTLED_REQUESTS)
from twisted.web.pages import notFound
from twisted.web.resource import IResource, Resource
from twisted.web.server import Request

GAME_KINDS = ("gomoku", "checkers", "splendor")


class HubCollector(Collector):
    """
    A Prometheus collector over a L{hub.lobby.Lobby} and a
    L{hub.sessions.Sessions}.
    """

    def __init__(self, lobby: ILobby, sessions: Iterable[Any]) -> None:
        self.lobby = lobby
        self.sessions = sessions

    def collect(self) -> Iterator[GaugeMetricFamily]:
        """
        Yield the current gauges, one sample per game kind.
        """
        players = GaugeMetricFamily(
            "gamehub_sessions", "Players connected or within their "
            "reconnect grace.", labels=["game"])
        rooms = GaugeMetricFamily(
            "gamehub_rooms", "Rooms (tables) open.", labels=["game"])
        running = GaugeMetricFamily(
            "gamehub_games_running", "Rooms with a game under way.",
            labels=["game"])
        counts = dict.fromkeys(GAME_KINDS, 0)
        for session in self.sessions:
            counts[session.kind] = counts.get(session.kind, 0) + 1
        for kind in GAME_KINDS:
            kindRooms = self.lobby.rooms(kind)
            players.add_metric([kind], counts[kind])
            rooms.add_metric([kind], len(kindRooms))
            running.add_metric([kind], sum(1 for r in kindRooms
                                           if r.running))
        yield players
        yield rooms
        yield running


class ReadCounters(Collector):
    """
    Counters of a service whose values are read at scrape time from its
    attributes (nothing is counted twice on its paths).

    @param labelled: C{(name, documentation, label, read)} for each
        counter by one label: C{read()} gives its counts by label value,
        in the order they are shown.
    @param plain: C{(name, documentation, read)} for each counter
        without labels: C{read()} gives its count.
    """

    def __init__(
            self,
            labelled: Iterable[Tuple[str, str, str,
                                     Callable[[], Dict[str, float]]]] = (),
            plain: Iterable[Tuple[str, str, Callable[[], float]]] = (),
    ) -> None:
        self.labelled = labelled
        self.plain = plain

    def collect(self) -> Iterator[CounterMetricFamily]:
        for name, documentation, label, read in self.labelled:
            family = CounterMetricFamily(name, documentation,
                                         labels=[label])
            for value, count in read().items():
                family.add_metric([value], count)
            yield family
        for name, documentation, readCount in self.plain:
            yield CounterMetricFamily(name, documentation, value=readCount())


class MetricsResource(Resource):
    """
    Renders a Prometheus registry in the text exposition format, on the
    reactor thread (scrapes are cheap: the hub's gauges are a few counts).
    """

    isLeaf = True

    def __init__(self, registry: CollectorRegistry) -> None:
        Resource.__init__(self)
        self.registry = registry

    def render_GET(self, request: Request) -> bytes:
        if request.postpath not in ([], [b""]):
            return notFound().render(request)
        request.setHeader(b"Content-Type", CONTENT_TYPE_LATEST.encode())
        return generate_latest(self.registry)


class MetricsRoot(Resource):
    """
    The metrics site's root: C{/metrics}, the health checks when given a
    L{hub.health.Health}, and 404 everywhere else.
    """

    def __init__(self, registry: CollectorRegistry,
                 health: Optional[Health] = None) -> None:
        Resource.__init__(self)
        self.putChild(b"metrics", MetricsResource(registry))
        if health is not None:
            putHealth(self, health)

    def getChild(self, path: bytes, request: Request) -> IResource:
        return notFound()

    def render(self, request: Request) -> bytes:
        return notFound().render(request)


def metricsRegistry(lobby: ILobby, sessions: Iterable[Any],
                    collectors: Iterable[Collector] = ()) -> CollectorRegistry:
    """
    The registry of the hub's metrics, the process metrics of
    C{prometheus_client} and those of C{collectors}: what C{/metrics}
    serves at C{--metrics-port} and at C{--web-port}.
    """
    registry = CollectorRegistry()
    for collector in (PROCESS_COLLECTOR, PLATFORM_COLLECTOR, GC_COLLECTOR,
                      HubCollector(lobby, sessions), LIMITED_CONNECTIONS,
                      THROTTLED_CONNECTIONS, ACCEPT_PAUSES,
                      THROTTLED_REQUESTS, *collectors):
        registry.register(collector)
    return registry


class BotsCollector(Collector):
    """
    The bot pool's figures (a L{hub.thinkers.pool.BotPool}), read at
    scrape time:

        gamehub_bot_moves_total{outcome}   moves asked, by how they ended
        gamehub_bot_worker_deaths_total    workers died or killed mid-move
        gamehub_bot_moves_waiting          moves waiting for a worker
        gamehub_bot_workers_busy           workers thinking now
    """

    def __init__(self, pool: Any) -> None:
        self.pool = pool

    def collect(self) -> Iterator[Any]:
        pool = self.pool
        moves = CounterMetricFamily(
            "gamehub_bot_moves", "Bot moves asked of the worker pool, by "
            "outcome (answered; cut: answered when the search's time ran "
            "out; full, late, lost, stopped: a rules' move was played).",
            labels=["outcome"])
        for outcome, count in pool.outcomes.items():
            moves.add_metric([outcome], count)
        yield moves
        yield CounterMetricFamily(
            "gamehub_bot_worker_deaths", "Bot workers that died or were "
            "killed during a move.", value=pool.workerDeaths)
        yield GaugeMetricFamily(
            "gamehub_bot_moves_waiting", "Bot moves waiting for a free "
            "worker.", value=pool.waiting)
        yield GaugeMetricFamily(
            "gamehub_bot_workers_busy", "Bot workers thinking now.",
            value=pool.busy)
