"""
The records as a service of the hub: the database, the recorder that
listens to every table, and the query API.

    records = recordsService("sqlite:gamehub.sqlite", reactor)
    records.setServiceParent(hub)
    hub.lobby.addTableListener(records.recorder)
"""

from twisted.application.service import Service
from twisted.logger import Logger

from hub.records import db
from hub.records.metrics import RecordsCollector
from hub.records.query import DEFAULT_MIN_GAMES, Records
from hub.records.recorder import FLUSH_SECONDS, Recorder


class RecordsService(Service):
    """
    The records of one hub.  Stopping it records the games still under way
    as abandoned and writes what is queued (for at most C{flushSeconds}).

    @ivar database: the L{db.Database}.
    @ivar recorder: the L{Recorder} to give the lobby as a table listener.
    @ivar records: the L{Records} query API.
    """

    name = "records"
    log = Logger()

    def __init__(self, url, reactor, leaderboardMinGames=DEFAULT_MIN_GAMES,
                 flushSeconds=FLUSH_SECONDS, leaderboardGuests=True,
                 **recorderOptions):
        self.reactor = reactor
        self.database = db.Database(url, reactor)
        self.recorder = Recorder(self.database, reactor, **recorderOptions)
        self.records = Records(self.database, leaderboardMinGames,
                               leaderboardGuests)
        self.flushSeconds = flushSeconds

    def collector(self):
        """
        The Prometheus collector of the recorder's queue.
        """
        return RecordsCollector(self.recorder)

    def startService(self):
        """
        Say where the games go, once the reactor runs.
        """
        Service.startService(self)
        self.reactor.callWhenRunning(
            self.log.info, "recording games in {db}",
            db=self.database.url.describe())

    def stopService(self):
        Service.stopService(self)
        d = self.recorder.stop(self.flushSeconds)
        d.addBoth(lambda _: self.database.close())
        return d


def recordsService(url, reactor, leaderboardMinGames=DEFAULT_MIN_GAMES,
                   **options):
    """
    The L{RecordsService} for C{--db url}, its schema brought up to date
    now, or None for C{none}.  A PostgreSQL server that cannot be reached
    yet is not fatal: the recorder migrates once it can.

    @raise db.BadURL: C{url} names no usable database.
    @raise db.SchemaTooNew: the database is newer than this gamehub.
    """
    parsed = db.parseURL(url)
    if parsed is None:
        return None
    try:
        db.prepare(parsed)
    except db.SchemaTooNew:
        raise
    except Exception as e:
        if parsed.dialect is db.SQLITE:
            raise
        RecordsService.log.warn(
            "records database {db} unavailable at start ({error!r}); games "
            "are queued until it is reachable", db=parsed.describe(),
            error=str(e).strip())
    return RecordsService(parsed, reactor, leaderboardMinGames, **options)


def fromOptions(options, reactor):
    """
    The L{RecordsService} that C{twistd gamehub}'s C{--db} and
    C{--leaderboard-min-games} and C{--leaderboard-guests} ask for, or
    None.  A schema newer than this gamehub's stops the start with a
    one-line message.
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
                              leaderboardGuests=guests)
    except db.SchemaTooNew as e:
        raise SystemExit("gamehub: {}".format(e))
