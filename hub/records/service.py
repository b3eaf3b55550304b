"""
The records as a service of the hub: the database, the recorder that
listens to every table, and the query API.

    records = recordsService("sqlite:gamehub.sqlite", reactor)
    records.setServiceParent(hub)
    hub.lobby.addTableListener(records.recorder)
"""

from typing import Any, List, Mapping, Optional, Type, cast

from twisted.application.service import Service
from twisted.internet import defer
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger
from twisted.python.failure import Failure

from hub.records import db
from hub.records.metrics import RecordsCollector
from hub.records.query import DEFAULT_MIN_GAMES, Records
from hub.records.recorder import FLUSH_SECONDS, GATHER_SECONDS, Recorder


class RecordsService(Service):
    """
    The records of one hub.  Stopping it records the games still under way
    as abandoned and writes what is queued (for at most C{flushSeconds}).

    @param reactor: the reactor of the database's threads.
    @param clock: the hub's tracked clock, for the recorder's retries,
        its gathering of finished games and its stop deadline (the
        reactor if not given).
    @param recorderOptions: the L{Recorder}'s own; its C{gatherSeconds}
        is L{GATHER_SECONDS} unless given.

    @ivar database: the L{db.Database}.
    @ivar recorder: the L{Recorder} to give the lobby as a table listener.
    @ivar records: the L{Records} query API.
    """

    name = "records"
    log = Logger()

    def __init__(self, url: db.DatabaseURL, reactor: Any,
                 leaderboardMinGames: int = DEFAULT_MIN_GAMES,
                 flushSeconds: float = FLUSH_SECONDS,
                 leaderboardGuests: bool = True,
                 clock: Optional[IReactorTime] = None,
                 **recorderOptions: Any) -> None:
        self.reactor = reactor
        self.database = db.Database(url, reactor)
        recorderOptions.setdefault("gatherSeconds", GATHER_SECONDS)
        self.recorder = Recorder(self.database,
                                 reactor if clock is None else clock,
                                 **recorderOptions)
        self.records = Records(self.database, leaderboardMinGames,
                               leaderboardGuests)
        self.flushSeconds = flushSeconds
        self._probe: Optional[List[defer.Deferred[Optional[str]]]] = None
        self.unreachable: Optional[str] = None

    def collector(self) -> RecordsCollector:
        """
        The Prometheus collector of the recorder's queue.
        """
        return RecordsCollector(self.recorder)

    def databaseProblem(self) -> defer.Deferred[Optional[str]]:
        """
        The readiness check of the database: run C{SELECT 1} on it (one
        probe at a time: a check asked while one runs shares its answer).

        @return: a Deferred firing with None when it answers, else with
            why not.
        """
        answer: defer.Deferred[Optional[str]] = defer.Deferred()
        if self._probe is not None:
            self._probe.append(answer)
            return answer
        self._probe = [answer]
        probe = self.database.runInteraction(_ping)
        probe.addCallbacks(lambda _: None, self._unreachable)
        probe.addCallback(self._probed)
        return answer

    def _unreachable(self, failure: Failure) -> str:
        message = failure.getErrorMessage().strip()
        return "{} unreachable: {}".format(
            self.database.url.describe(),
            message.splitlines()[0] if message
            else cast(Type[BaseException], failure.type).__name__)

    def _probed(self, problem: Optional[str]) -> None:
        waiters, self._probe = self._probe, None
        assert waiters is not None, "a probe is under way"
        for waiter in waiters:
            if not waiter.called:
                # (One the health check gave up on is called already.)
                waiter.callback(problem)

    def startService(self) -> None:
        """
        Say where the games go, once the reactor runs.
        """
        Service.startService(self)
        if self.unreachable is None:
            self.reactor.callWhenRunning(
                self.log.info, "recording games in {db}",
                db=self.database.url.describe())
        else:
            self.reactor.callWhenRunning(
                self.log.warn,
                "records database {db} unreachable at start ({error}): "
                "games are queued and recorded once it answers",
                db=self.database.url.describe(), error=self.unreachable)

    def stopService(self) -> defer.Deferred[None]:
        Service.stopService(self)
        d = self.recorder.stop(self.flushSeconds)
        d.addBoth(lambda _: self.database.close())
        return d


def _ping(cursor: db.Cursor) -> Any:
    return cursor.execute("SELECT 1").fetchone()


def recordsService(url: str, reactor: Any,
                   leaderboardMinGames: int = DEFAULT_MIN_GAMES,
                   **options: Any) -> Optional[RecordsService]:
    """
    The L{RecordsService} for C{--db url}, its schema brought up to date
    now, or None for C{none}.  A PostgreSQL server that cannot be reached
    yet is not fatal: the recorder migrates once it can.

    @raise db.BadURL: C{url} names no usable database.
    @raise db.SchemaTooNew: the database is newer than this gamehub.
    @raise db.CannotOpen: a SQLite file that cannot be opened.
    """
    parsed = db.parseURL(url)
    if parsed is None:
        return None
    unreachable = None
    try:
        db.prepare(parsed)
    except db.SchemaTooNew:
        raise
    except Exception as e:
        if parsed.dialect is db.SQLITE:
            raise db.CannotOpen(parsed, e)
        unreachable = db.firstLine(e)
    service = RecordsService(parsed, reactor, leaderboardMinGames, **options)
    service.unreachable = unreachable
    return service


def fromOptions(options: Mapping[str, Any], reactor: Any,
                clock: Optional[IReactorTime] = None
                ) -> Optional[RecordsService]:
    """
    The L{RecordsService} that C{twistd gamehub}'s C{--db} and
    C{--leaderboard-min-games} and C{--leaderboard-guests} ask for, or
    None.  A schema newer than this gamehub's, or a SQLite file that
    cannot be opened, stops the start with a one-line message.

    @param clock: the hub's tracked clock (the reactor if not given).
    """
    guests = options.get("leaderboard-guests", True)
    if isinstance(guests, str):
        guests = guests.strip().lower() == "yes"
    if options.get("names", "open") == "open":
        # Nobody is a guest where no name is checked.
        guests = True
    try:
        return recordsService(options["db"], reactor,
                              options["leaderboard-min-games"],
                              leaderboardGuests=guests, clock=clock)
    except (db.SchemaTooNew, db.CannotOpen) as e:
        raise SystemExit("gamehub: {}".format(e))
