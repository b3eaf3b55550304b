"""
The recorder's queue against SQLite and PostgreSQL: outages, the bound,
records the database refuses, stopping, and its metrics.
"""

import random
import sqlite3
from urllib.parse import urlsplit, urlunsplit

from twisted.internet import defer, reactor
from twisted.internet.task import Clock
from twisted.internet.testing import MemoryReactorClock
from twisted.trial.unittest import TestCase

from hub.clock import TrackedClock
from hub.games import gomoku
from hub.records import db, query
from hub.records.metrics import RecordsCollector
from hub.records.recorder import GATHER_SECONDS, Recorder
from hub.records.service import RecordsService
from hub.tables import events
from hub.tables.gomoku import GomokuTable

from tests.records import support


class OutageTests:
    """
    While the database is unavailable games go on, their records wait,
    and they arrive once it is back.
    """

    def setUp(self):
        direct, self.url = self.outageURLs()
        db.prepare(db.parseURL(direct))
        self.database = support.openDatabase(self, self.url,
                                             migrateFirst=False)
        self.retries = Clock()
        self.recorder = Recorder(self.database, self.retries,
                                 retryDelay=1.0, maxPending=3)
        self.records = query.Records(self.database, leaderboardMinGames=1)

    @defer.inlineCallbacks
    def retryUntilIdle(self):
        """
        Let the recorder retry (each pooled connection that died in the
        outage fails once more) until its queue is empty.
        """
        idle = self.recorder.whenIdle()
        for attempt in range(10):
            if idle.called:
                break
            failed = self.recorder.nextFailure()
            self.retries.advance(self.recorder.maxRetryDelay)
            yield defer.DeferredList([idle, failed], fireOnOneCallback=True)
        yield idle

    def play(self, seed):
        return support.playRandomGame("gomoku", [self.recorder],
                                      random.Random(seed),
                                      names=["ann", "bob"])

    @defer.inlineCallbacks
    def test_queuedUntilBack(self):
        """
        Records wait (in order, the metrics say how many) while the
        database is down, and are all written once it is back.
        """
        self.play(0)
        yield self.recorder.whenIdle()
        yield self.goDown()
        failed = self.recorder.nextFailure()
        self.play(1)
        self.play(2)
        yield failed
        self.assertEqual(len(self.recorder.pending), 2)
        self.assertEqual(self.recorder.written, 1)
        self.assertGreaterEqual(self.recorder.failed, 1)
        metrics = {m.name: m.samples[0].value
                   for m in RecordsCollector(self.recorder).collect()}
        self.assertEqual(metrics["gamehub_records_pending"], 2)
        self.assertGreaterEqual(metrics["gamehub_records_failed"], 1)
        self.assertEqual(self.retries.getDelayedCalls()[0].getTime(), 1.0)
        yield self.comeBack()
        yield self.retryUntilIdle()
        self.assertEqual(self.recorder.written, 3)
        ids = yield self.records.gameIdsSince(0)
        self.assertEqual(len(ids), 3)
        self.flushLoggedErrors()

    @defer.inlineCallbacks
    def test_bound(self):
        """
        A game that ends while the queue is full is dropped and logged.
        """
        yield self.goDown()
        failed = self.recorder.nextFailure()
        for seed in range(4):
            self.play(seed)
        yield failed
        self.assertEqual(len(self.recorder.pending), 3)
        self.assertEqual(self.recorder.dropped, 1)
        yield self.comeBack()
        yield self.retryUntilIdle()
        self.assertEqual(self.recorder.written, 3)
        self.flushLoggedErrors()

    @defer.inlineCallbacks
    def test_stopWhileDown(self):
        """
        Stopping while the database is down gives up at the deadline:
        what is queued is lost, and counted.
        """
        yield self.goDown()
        failed = self.recorder.nextFailure()
        self.play(0)
        yield failed
        stopped = self.recorder.stop(timeout=5)
        self.retries.advance(5)
        yield stopped
        self.assertEqual(self.recorder.pending, type(
            self.recorder.pending)())
        self.assertEqual(self.recorder.dropped, 1)
        self.flushLoggedErrors()


class SQLiteOutageTests(support.SQLiteMixin, OutageTests, TestCase):
    """
    A SQLite outage: another connection holds the file's write lock.
    """

    def outageURLs(self):
        url = self.databaseURL()
        return url, url

    def setUp(self):
        OutageTests.setUp(self)
        self.database.close()
        self.database = db.Database(db.parseURL(self.url), reactor,
                                    timeout=0.05)
        self.addCleanup(self.database.close)
        self.recorder.database = self.database
        self.records.database = self.database
        self.locker = None

    def goDown(self):
        self.locker = sqlite3.connect(self.url[len("sqlite:"):],
                                      isolation_level=None)
        self.locker.execute("BEGIN EXCLUSIVE")
        self.addCleanup(self.locker.close)
        return defer.succeed(None)

    def comeBack(self):
        self.locker.execute("ROLLBACK")
        return defer.succeed(None)


class PostgreSQLOutageTests(support.PostgreSQLMixin, OutageTests, TestCase):
    """
    A PostgreSQL outage: the proxy in front of the server cuts every
    connection and refuses new ones.
    """

    def outageURLs(self):
        url = self.databaseURL()
        parts = urlsplit(url)
        self.proxy = support.Proxy(parts.hostname, parts.port)
        self.proxy.up()
        self.addCleanup(lambda: self.proxy.listening.stopListening())
        netloc = "{}@127.0.0.1:{}".format(parts.username, self.proxy.port)
        return url, urlunsplit(parts._replace(netloc=netloc))

    def goDown(self):
        return self.proxy.down()

    def comeBack(self):
        self.proxy.up()
        return defer.succeed(None)


class QueueTests(support.SQLiteMixin, TestCase):
    """
    What does not depend on the database: refused records, batches,
    stopping.
    """

    def setUp(self):
        self.url = self.databaseURL()
        self.database = support.openDatabase(self, self.url)
        self.recorder = Recorder(self.database, Clock())
        self.records = query.Records(self.database, leaderboardMinGames=1)

    def gomokuTable(self, name, recorder=None, position=None):
        """
        A real gomoku table that C{recorder} (by default the test's)
        listens to, started; C{position}, if given, replaces what it
        announces as its initial position.
        """
        seats = (events.Seat(0, "a", 1, gomoku.BLACK),
                 events.Seat(1, "b", 2, gomoku.WHITE))
        table = GomokuTable(name, seats, Clock())
        if position is not None:
            table.position = lambda: position
        table.addListener(recorder or self.recorder)
        table.start()
        return table

    def badGame(self, table):
        """
        A game whose position the records cannot store (not JSON).
        """
        table = self.gomokuTable(table, position=object())
        table.drop(1)

    @defer.inlineCallbacks
    def test_refusedRecord(self):
        """
        A record the database refuses is dropped and logged; the others
        of its batch are written.
        """
        support.playRandomGame("gomoku", [self.recorder], random.Random(1))
        self.badGame("bad")
        support.playRandomGame("gomoku", [self.recorder], random.Random(2))
        yield self.recorder.whenIdle()
        self.assertEqual((self.recorder.written, self.recorder.dropped),
                         (2, 1))
        self.assertEqual(len(self.flushLoggedErrors(TypeError)), 1)
        ids = yield self.records.gameIdsSince(0)
        self.assertEqual(len(ids), 2)

    @defer.inlineCallbacks
    def test_oneCopyOfTheMoves(self):
        """
        A game's record reads its table's actions at its end: the recorder
        keeps no copy of a move, and the record has every move.
        """
        table = self.gomokuTable("one")
        builder = self.recorder.games[table]
        self.assertIs(builder.actions, table.actions)
        for cell in [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1), (3, 0),
                     (3, 1), (4, 0)]:
            table.act(table.game.currentSeat, cell)
        self.assertTrue(table.over)
        yield self.recorder.whenIdle()
        ids = yield self.records.gameIdsSince(0)
        record = yield self.records.game(ids[0])
        self.assertEqual(
            [(e.seat, e.action) for e in record.tableEvents()
             if type(e) is events.ActionPlayed],
            [(seat, action) for seat, action, _, _, _ in table.actions])

    @defer.inlineCallbacks
    def test_listenerNeverRaises(self):
        """
        Events of tables whose start the recorder did not see are
        ignored.
        """
        table = object()
        self.recorder.tableEvent(table, events.ActionPlayed(0, (1, 1), False,
                                                            None, 1))
        self.recorder.tableEvent(table, events.GameEnded("normal", (), 0, 1))
        yield self.recorder.whenIdle()
        self.assertEqual(self.recorder.written, 0)

    @defer.inlineCallbacks
    def test_serviceStop(self):
        """
        Stopping the records service writes what is queued, records the
        games still under way as abandoned, and closes the database.
        """
        service = RecordsService(db.parseURL(self.url), reactor)
        service.startService()
        recorder = service.recorder
        for seed in range(5):
            support.playRandomGame("checkers", [recorder],
                                   random.Random(seed))
        table = self.gomokuTable("unfinished", recorder)
        table.act(0, (7, 7))
        yield service.stopService()
        self.assertEqual(recorder.written, 6)
        self.assertEqual(len(recorder.pending), 0)
        ids = yield self.records.gameIdsSince(0)
        last = yield self.records.game(ids[-1])
        self.assertEqual((last.table, last.reason, last.rated),
                         ("unfinished", events.ABANDONED, False))
        self.assertEqual(last.actionCount, 1)
        self.assertTrue(service.database._closed)


class EventColumnTests:
    """
    A game of a tournament's room is recorded with the event's id (the
    recorder's L{Recorder.tagEventsWith}); every other game with none.
    """

    def setUp(self):
        self.database = support.openDatabase(self, self.databaseURL())
        self.recorder = Recorder(self.database, Clock())
        self.recorder.tagEventsWith(
            lambda kind, table: 7 if table == "7-1-1" else None)

    @defer.inlineCallbacks
    def test_eventRecorded(self):
        """
        The C{event} column holds the id for the director's room only.
        """
        for table in ("7-1-1", "casual"):
            support.playRandomGame(
                "gomoku", [self.recorder], random.Random(3),
                names=["ann", "bob"], table=table)
        yield self.recorder.whenIdle()

        def read(cursor):
            cursor.execute("SELECT table_name, event FROM games")
            return sorted(cursor.fetchall())

        rows = yield self.database.runInteraction(read)
        self.assertEqual([tuple(r) for r in rows],
                         [("7-1-1", 7), ("casual", None)])


class SQLiteEventColumnTests(support.SQLiteMixin, EventColumnTests,
                             TestCase):
    pass


class PostgreSQLEventColumnTests(support.PostgreSQLMixin, EventColumnTests,
                                 TestCase):
    pass


class WritingDatabase:
    """
    A database whose writes the test answers: each
    L{runInteraction} is kept with its batch, and answered by
    L{succeed} or L{fail}.
    """

    def __init__(self):
        self.writes = []

    def runInteraction(self, interaction, batch, checkSchema, write=False):
        d = defer.Deferred()
        self.writes.append((list(batch), d))
        return d

    def batches(self):
        """
        The sizes of the batches written so far.
        """
        return [len(batch) for batch, _ in self.writes]

    def succeed(self):
        """
        The last write committed.
        """
        batch, d = self.writes[-1]
        d.callback(batch)

    def fail(self):
        """
        The last write failed: the database is unavailable.
        """
        self.writes[-1][1].errback(sqlite3.OperationalError("locked"))


class GatherTests(TestCase):
    """
    With C{gatherSeconds}, finished games wait that long and are written
    together, in one transaction; a full batch, a retry and a stopping
    hub do not wait.
    """

    def setUp(self):
        self.database = WritingDatabase()
        self.clock = Clock()
        self.recorder = Recorder(self.database, self.clock,
                                 gatherSeconds=0.5, batchSize=4,
                                 retryDelay=1.0)

    def play(self, count, seed=0):
        for n in range(count):
            support.playRandomGame("gomoku", [self.recorder],
                                   random.Random(seed + n),
                                   names=["ann", "bob"])

    def test_gathered(self):
        """
        Games that end within the gathering time are written in one
        batch when the first has waited that long.
        """
        self.play(1)
        self.clock.advance(0.3)
        self.play(2, seed=1)
        self.clock.advance(0.19)
        self.assertEqual(self.database.batches(), [])
        self.clock.advance(0.01)
        self.assertEqual(self.database.batches(), [3])
        idle = self.recorder.whenIdle()
        self.assertNoResult(idle)
        self.database.succeed()
        self.successResultOf(idle)
        self.assertEqual(self.recorder.written, 3)
        self.assertEqual(self.clock.getDelayedCalls(), [])

    def test_afterAWrite(self):
        """
        Games that end while a batch is written wait for the next
        gathering.
        """
        self.play(1)
        self.clock.advance(0.5)
        self.play(2, seed=1)
        self.database.succeed()
        self.assertEqual(self.database.batches(), [1])
        self.clock.advance(0.5)
        self.assertEqual(self.database.batches(), [1, 2])

    def test_fullBatch(self):
        """
        A full batch is written at once.
        """
        self.play(4)
        self.assertEqual(self.database.batches(), [4])
        self.assertEqual(self.clock.getDelayedCalls(), [])

    def test_retryAtOnce(self):
        """
        A failed write is retried after its delay, without gathering
        again.
        """
        self.play(1)
        self.clock.advance(0.5)
        self.database.fail()
        self.clock.advance(1.0)
        self.assertEqual(self.database.batches(), [1, 1])
        self.flushLoggedErrors()

    def test_stopWritesAtOnce(self):
        """
        A stopping hub writes what is gathered at once.
        """
        self.play(2)
        stopped = self.recorder.stop(timeout=5)
        self.assertEqual(self.database.batches(), [2])
        self.database.succeed()
        self.successResultOf(stopped)
        self.assertEqual(self.clock.getDelayedCalls(), [])

    def test_cancelledElsewhere(self):
        """
        A gathering timer that the hub's tracked clock cancelled (the
        hub stopping its timers) does not keep the next game from being
        written.
        """
        tracked = TrackedClock(self.clock)
        self.recorder.clock = tracked
        self.play(1)
        tracked.cancelAll()
        self.play(1, seed=1)
        self.clock.advance(0.5)
        self.assertEqual(self.database.batches(), [2])

    def test_atOnceByDefault(self):
        """
        A recorder made without C{gatherSeconds} writes a game as soon
        as no write is under way; the hub's records service gathers for
        L{GATHER_SECONDS}.
        """
        recorder = Recorder(self.database, self.clock)
        support.playRandomGame("gomoku", [recorder], random.Random(0))
        self.assertEqual(self.database.batches(), [1])
        service = RecordsService(db.parseURL("sqlite::memory:"),
                                 MemoryReactorClock())
        self.addCleanup(service.database.close)
        self.assertEqual(service.recorder.gatherSeconds, GATHER_SECONDS)
