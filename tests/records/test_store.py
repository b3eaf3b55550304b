"""
The records database, the same tests against SQLite and PostgreSQL:
migrations, storing and reading games, ratings, restarts, outages.
"""

import random
import sqlite3

from twisted.internet import defer, reactor
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase, TestCase

from hub.games import checkers, gomoku
from hub.records import db, query, store
from hub.records.record import RecordBuilder
from hub.records.recorder import Recorder
from hub.records.service import recordsService
from hub.tables import checkers as checkersTable
from hub.tables import events
from hub.tables import gomoku as gomokuTable
from hub.tables.base import IllegalAction

from tests.records import support


class Finished:
    """
    A table listener that keeps the L{GameRecord} of every game it hears
    end, in order, without storing it.
    """

    def __init__(self):
        self.records = []
        self._builders = {}

    def tableEvent(self, table, event):
        if isinstance(event, events.GameStarted):
            self._builders[table] = RecordBuilder(event, table.actions)
        elif isinstance(event, events.GameEnded):
            self.records.append(self._builders.pop(table).finish(event))
        elif table in self._builders:
            self._builders[table].add(event)


def finishedGames(names, count, seed=0):
    """
    C{count} finished games of C{names} (gomoku and checkers, rated, and
    one in four abandoned, unrated), as records not yet stored.
    """
    finished = Finished()
    rng = random.Random(seed)
    for number in range(count):
        kind = ("gomoku", "checkers")[number % 2]
        support.playRandomGame(
            kind, [finished], rng, names=names, seatCount=len(names),
            incidents=False,
            maxActions=4 if number % 4 == 3 else support.MAX_ACTIONS)
    return finished.records


class MigrationTests:
    """
    The schema: applied to an empty database, refused when newer.
    """

    def test_fromEmpty(self):
        """
        An empty database gets every migration, once.
        """
        url = db.parseURL(self.databaseURL())
        every = [version for version, _, _ in db.migrations()]
        self.assertEqual(every[-1], db.latestVersion())
        self.assertEqual(db.prepare(url), every)
        self.assertEqual(db.prepare(url), [])
        connection = db.connect(url)
        try:
            cursor = connection.cursor()
            cursor.execute("SELECT COUNT(*) FROM games")
            self.assertEqual(cursor.fetchone()[0], 0)
            cursor.execute("SELECT version FROM schema_migrations")
            self.assertEqual(cursor.fetchall(), [(v,) for v in every])
        finally:
            connection.close()

    def markNewer(self, url):
        connection = db.connect(url)
        try:
            cursor = connection.cursor()
            if url.dialect.begin:
                cursor.execute(url.dialect.begin)
            cursor.execute(url.dialect.sql(
                "INSERT INTO schema_migrations (version, name, applied_at) "
                "VALUES (?, ?, ?)"), (999, "0999_future.sql", 0.0))
            connection.commit()
        finally:
            connection.close()

    def test_refusesNewer(self):
        """
        A schema newer than every migration is refused with a one-line
        message naming both versions, and left alone.
        """
        url = db.parseURL(self.databaseURL())
        db.prepare(url)
        self.markNewer(url)
        error = self.assertRaises(db.SchemaTooNew, db.prepare, url)
        message = str(error)
        self.assertNotIn("\n", message)
        self.assertIn("999", message)
        self.assertIn(str(db.latestVersion()), message)
        self.assertRaises(db.SchemaTooNew, recordsService, url.describe()
                          if url.dialect is db.SQLITE else url.target,
                          reactor)


class StorageTests:
    """
    Games stored and read back, ratings, restarts.
    """

    def setUp(self):
        self.url = self.databaseURL()
        self.database = support.openDatabase(self, self.url)
        self.records = query.Records(self.database, leaderboardMinGames=1)
        self.recorder = Recorder(self.database, Clock())

    def play(self, kind, seed, **kwargs):
        return support.playRandomGame(kind, [self.recorder],
                                      random.Random(seed), **kwargs)

    @defer.inlineCallbacks
    def test_roundTrip(self):
        """
        A record holds the game's kind, table, seats, outcome and every
        kept event; replaying them rebuilds the final position.
        """
        collector = support.Collector()
        tables = []
        for kind in ("gomoku", "checkers", "splendor"):
            for seed in range(3):
                tables.append(support.playRandomGame(
                    kind, [self.recorder, collector], random.Random(seed)))
        yield self.recorder.whenIdle()
        self.assertEqual(self.recorder.written, len(tables))
        for gameId, table in zip(sorted(self.recorder.confirmed), tables):
            record = yield self.records.game(gameId)
            played = collector.byTable[table]
            started, ended = played[0], played[-1]
            self.assertEqual((record.kind, record.table, record.reason,
                              record.winner, record.ranking),
                             (table.kind, table.name, ended.reason,
                              ended.winner, ended.ranking))
            self.assertEqual([(s.seat, s.name, s.playerId, s.role,
                               s.botClient) for s in record.seats],
                             [(s.index, s.name, s.playerId, s.role, s.bot)
                              for s in started.seats])
            self.assertAlmostEqual(record.startedAt, started.at, places=6)
            self.assertAlmostEqual(record.endedAt, ended.at, places=6)
            back = record.tableEvents()
            expected = support.stripDetail(played)
            self.assertEqual(len(back), len(expected))
            for mine, theirs in zip(back[1:], expected[1:]):
                self.assertEqual(type(mine), type(theirs))
                self.assertAlmostEqual(mine.at, theirs.at, places=2)
                self.assertEqual(mine.__class__(**dict(
                    attr_dict(mine), at=0)), theirs.__class__(**dict(
                        attr_dict(theirs), at=0)))
            self.assertEqual(support.snapshot(table.kind, record.replay()),
                             support.snapshot(table.kind, table.game))

    @defer.inlineCallbacks
    def test_ratings(self):
        """
        A normal gomoku game rates both names, the winner up; the
        leaderboard ranks by mu - 3 sigma; seats keep before and after.
        """
        for _ in range(3):
            self.play("gomoku", 1, names=["alice", "bob"], incidents=False)
        yield self.recorder.whenIdle()
        board = yield self.records.leaderboard("gomoku")
        self.assertEqual(len(board), 2)
        self.assertEqual([s.rank for s in board], [1, 2])
        for standing in board:
            self.assertEqual(standing.games, 3)
            self.assertAlmostEqual(standing.ordinal,
                                   standing.mu - 3 * standing.sigma)
        game = yield self.records.game(max(self.recorder.confirmed))
        self.assertTrue(game.rated)
        winner = game.seats[game.winner]
        self.assertEqual(board[0].name, winner.name)
        self.assertGreater(winner.rating[2], winner.rating[0])
        self.assertEqual(board[0].wins, 3)

    def gomokuTable(self, names, takeover=None, bots=(False, False)):
        """
        A real gomoku table of C{names} (black first) that the recorder
        listens to, started.
        """
        self.clock = Clock()
        seats = tuple(events.Seat(seat, name, seat + 1,
                                  gomoku.colourOfSeat(seat), bot)
                      for seat, (name, bot) in enumerate(zip(names, bots)))
        table = gomokuTable.GomokuTable(
            "r", seats, self.clock, support.tableOptions("gomoku", takeover))
        table.addListener(self.recorder)
        table.start()
        return table

    @defer.inlineCallbacks
    def test_batchRatesAsOneByOne(self):
        """
        Games stored in one batch (L{store.saveRecords}) get the ratings,
        and leave the players' rating rows, that they would stored one
        by one, each in its own transaction, in the same order.
        """
        games = finishedGames(["ann", "bob"], 8)
        self.assertTrue(any(r.isRateable() for r in games))
        self.assertFalse(all(r.isRateable() for r in games))
        alone = support.openDatabase(self, self.databaseURL())
        batch = yield self.database.runInteraction(
            store.saveRecords, games, write=True)
        oneByOne = []
        for record in games:
            stored = yield alone.runInteraction(store.saveRecord, record,
                                                write=True)
            oneByOne.append(stored)

        def seats(stored):
            return [(r.rated, [(s.name, s.place, s.rating) for s in r.seats])
                    for r in stored]

        self.assertEqual(seats(batch), seats(oneByOne))

        def rows(cursor):
            cursor.execute("SELECT kind, name, mu, sigma, ordinal, games, "
                           "wins, updated_at, guest FROM ratings "
                           "ORDER BY kind, name")
            return [tuple(row) for row in cursor.fetchall()]

        batchRows = yield self.database.runInteraction(rows)
        aloneRows = yield alone.runInteraction(rows)
        self.assertEqual(batchRows, aloneRows)
        self.assertEqual(len(batchRows), 4)

    @defer.inlineCallbacks
    def test_notRated(self):
        """
        Abandoned games and Splendor games are stored, not rated.
        """
        table = self.gomokuTable(["alice", "bob"])
        table.act(0, (7, 7))
        table.abandon()
        self.play("splendor", 3, names=["player 1", "player 2"],
                  seatCount=2)
        yield self.recorder.whenIdle()
        self.assertEqual(len(self.recorder.confirmed), 2)
        for gameId in self.recorder.confirmed:
            game = yield self.records.game(gameId)
            self.assertFalse(game.rated)
            self.assertEqual([s.rating for s in game.seats],
                             [None] * len(game.seats))
        board = yield self.records.leaderboard("gomoku")
        self.assertEqual(board, [])
        board = yield self.records.leaderboard("splendor")
        self.assertEqual(board, [])

    @defer.inlineCallbacks
    def test_takeoverAndBots(self):
        """
        A seat a bot took over keeps its player's name and result, and
        says from which action the bot played; bot clients are marked and
        rate under their own names.
        """
        table = self.gomokuTable(["alice", "robot"], takeover="bot",
                                 bots=(False, True))
        table.act(0, (7, 7))
        table.drop(0)
        table.act(1, (0, 0))
        self.clock.advance(support.BOT_DELAY)
        self.assertEqual(len(table.game.moves), 3)
        table.drop(1)
        self.assertTrue(table.over)
        yield self.recorder.whenIdle()
        game = yield self.records.game(self.recorder.confirmed[-1])
        alice, robot = game.seats
        self.assertEqual((alice.name, alice.takeoverPly, alice.takeoverLevel,
                          alice.botClient, alice.place),
                         ("alice", 1, 1, False, 1))
        self.assertEqual((robot.botClient, robot.takeoverPly, robot.place),
                         (True, None, 2))
        self.assertTrue(game.rated)
        self.assertEqual((game.reason, game.winner),
                         (events.FORFEIT, 0))
        self.assertEqual(
            [(e["type"], e.get("byBot")) for e in game.events],
            [("ActionPlayed", False), ("SeatDropped", None),
             ("SeatTakenOver", None), ("ActionPlayed", False),
             ("ActionPlayed", True), ("SeatDropped", None),
             ("GameEnded", None)])
        self.assertEqual(support.snapshot("gomoku", game.replay()),
                         support.snapshot("gomoku", table.game))
        board = yield self.records.leaderboard("gomoku")
        self.assertEqual([(s.name, s.games, s.wins) for s in board],
                         [("alice", 1, 1), ("robot", 1, 0)])

    @defer.inlineCallbacks
    def test_checkersTakeover(self):
        """
        A checkers seat that a bot played to the end after its player
        left is ranked and rated as that player; nobody else is rated.
        """
        clock = Clock()
        names = ["ann", "ben", "cy"]
        seats = tuple(events.Seat(seat, name, seat + 1, region)
                      for seat, (name, region) in enumerate(zip(
                          names, checkers.CheckersGame(3).regions)))
        table = checkersTable.CheckersTable(
            "c", seats, checkers.CheckersGame(3), clock,
            support.tableOptions("checkers", "bot"))
        table.addListener(self.recorder)
        table.start()
        table.drop(1)
        players = support.RandomPlayers("checkers", random.Random(5))
        while not table.over:
            seat = table.game.currentSeat
            if seat in table.takeover:
                clock.advance(support.BOT_DELAY)
            else:
                table.act(seat, players.choose(table.game, seat))
        yield self.recorder.whenIdle()
        game = yield self.records.game(self.recorder.confirmed[-1])
        ben = game.seats[1]
        self.assertEqual((ben.name, ben.takeoverPly, ben.takeoverLevel),
                         ("ben", 1, 1))
        self.assertTrue(game.rated)
        self.assertEqual(game.ranking, tuple(table.game.ranking()))
        self.assertEqual([s.place for s in game.seats],
                         [game.ranking.index(seat) + 1
                          for seat in range(3)])
        self.assertEqual(support.snapshot("checkers", game.replay()),
                         support.snapshot("checkers", table.game))
        board = yield self.records.leaderboard("checkers")
        self.assertEqual(sorted(s.name for s in board), names)
        self.assertEqual(
            [s.name for s in board if s.wins],
            [names[game.ranking[0]]])

    @defer.inlineCallbacks
    def test_illegalLimit(self):
        """
        A gomoku game ended by the illegal-move limit has no winner, and
        rates the seat that made the illegal moves as the loser.
        """
        table = self.gomokuTable(["alice", "bob"])
        table.act(0, (7, 7))
        for _ in range(gomoku.MAX_ILLEGAL_MOVES + 1):
            self.assertRaises(IllegalAction, table.act, 1, (7, 7))
        self.assertTrue(table.over)
        yield self.recorder.whenIdle()
        game = yield self.records.game(self.recorder.confirmed[-1])
        self.assertEqual((game.reason, game.winner, game.rated),
                         (events.ILLEGAL, None, True))
        self.assertEqual([s.place for s in game.seats], [1, 2])
        alice, bob = game.seats
        self.assertGreater(alice.rating[2], alice.rating[0])
        self.assertLess(bob.rating[2], bob.rating[0])
        self.assertTrue(game.replay().isError)

    @defer.inlineCallbacks
    def test_leaderboardMinGames(self):
        """
        Only players with enough rated games are on the board; the limit
        cuts it.
        """
        self.play("gomoku", 1, names=["a", "b"], incidents=False)
        self.play("gomoku", 2, names=["a", "c"], incidents=False)
        yield self.recorder.whenIdle()
        board = yield self.records.leaderboard("gomoku", minGames=2)
        self.assertEqual([s.name for s in board], ["a"])
        board = yield self.records.leaderboard("gomoku", limit=2)
        self.assertEqual(len(board), 2)
        self.records.leaderboardMinGames = 3
        board = yield self.records.leaderboard("gomoku")
        self.assertEqual(board, [])

    @defer.inlineCallbacks
    def test_history(self):
        """
        A player's games, newest first, with every seat; a limit and a
        page back.
        """
        for seed in range(5):
            self.play("checkers", seed, names=["ann", "ben", "cy"],
                      seatCount=3, incidents=False)
        self.play("gomoku", 9, names=["ann", "dee"])
        yield self.recorder.whenIdle()
        entries = yield self.records.history("checkers", "ann", limit=3)
        ids = [e.game.gameId for e in entries]
        self.assertEqual(ids, sorted(ids, reverse=True))
        self.assertEqual(len(ids), 3)
        for entry in entries:
            self.assertEqual(entry.mine.name, "ann")
            self.assertEqual([s.name for s in entry.game.seats],
                             ["ann", "ben", "cy"])
            self.assertIsNone(entry.game.events)
        older = yield self.records.history("checkers", "ann",
                                           before=ids[-1])
        self.assertEqual(len(older), 2)
        none = yield self.records.history("checkers", "nobody")
        self.assertEqual(none, [])

    @defer.inlineCallbacks
    def test_restart(self):
        """
        Ratings and history survive closing the database and opening it
        again, and later games rate from the stored ratings.
        """
        self.play("gomoku", 1, names=["alice", "bob"], incidents=False)
        yield self.recorder.whenIdle()
        before = yield self.records.leaderboard("gomoku")
        self.database.close()
        database = support.openDatabase(self, self.url)
        records = query.Records(database, leaderboardMinGames=1)
        after = yield records.leaderboard("gomoku")
        self.assertEqual(after, before)
        history = yield records.history("gomoku", "alice")
        self.assertEqual(len(history), 1)
        recorder = Recorder(database, Clock())
        support.playRandomGame("gomoku", [recorder], random.Random(1),
                               names=["alice", "bob"], incidents=False)
        yield recorder.whenIdle()
        game = yield records.game(recorder.confirmed[-1])
        alice = [s for s in game.seats if s.name == "alice"][0]
        old = [s for s in before if s.name == "alice"][0]
        self.assertAlmostEqual(alice.rating[0], old.mu)
        self.assertAlmostEqual(alice.rating[1], old.sigma)

    @defer.inlineCallbacks
    def test_since(self):
        """
        Game ids by end time, paged.
        """
        for seed in range(4):
            self.play("gomoku", seed)
        yield self.recorder.whenIdle()
        ids = yield self.records.gameIdsSince(0)
        self.assertEqual(ids, sorted(self.recorder.confirmed))
        page = yield self.records.gameIdsSince(0, after=ids[1], limit=1)
        self.assertEqual(page, [ids[2]])
        later = yield self.records.gameIdsSince(10 ** 12)
        self.assertEqual(later, [])
        counts = yield self.records.counts()
        self.assertEqual(counts, {"gomoku": 4})


def attr_dict(event):
    import attr
    return attr.asdict(event, recurse=False)


class SQLiteMigrationTests(support.SQLiteMixin, MigrationTests, TestCase):
    pass


class PostgreSQLMigrationTests(support.PostgreSQLMixin, MigrationTests,
                               TestCase):
    pass


class SQLiteStorageTests(support.SQLiteMixin, StorageTests, TestCase):
    def test_wal(self):
        """
        The SQLite file is in WAL mode.
        """
        connection = sqlite3.connect(self.url[len("sqlite:"):])
        try:
            mode = connection.execute("PRAGMA journal_mode").fetchone()[0]
        finally:
            connection.close()
        self.assertEqual(mode, "wal")

    @defer.inlineCallbacks
    def test_cacheSize(self):
        """
        The records' connection keeps SQLite's page cache at
        L{db.SQLITE_CACHE_KIB}.
        """
        rows = yield self.database.pool.runQuery("PRAGMA cache_size")
        self.assertEqual(rows, [(-db.SQLITE_CACHE_KIB,)])


class PostgreSQLStorageTests(support.PostgreSQLMixin, StorageTests,
                             TestCase):
    pass


class CountingCursor:
    """
    A L{db.Cursor} that counts the statements it runs.
    """

    def __init__(self, cursor):
        self.cursor = cursor
        self.dialect = cursor.dialect
        self.statements = 0

    def execute(self, sql, parameters=()):
        self.statements += 1
        self.cursor.execute(sql, parameters)
        return self

    def executemany(self, sql, rows):
        self.statements += 1
        self.cursor.executemany(sql, rows)
        return self

    def fetchone(self):
        return self.cursor.fetchone()

    def fetchall(self):
        return self.cursor.fetchall()


class BatchStatementTests(support.SQLiteMixin, SynchronousTestCase):
    """
    The writer thread waits for the GIL after every statement while the
    reactor is busy: a batch of games costs one statement a game and a
    few for the batch, not a dozen a game.
    """

    def test_statements(self):
        """
        Ten rated games of the same two players: a statement to insert
        each game, and seven for the batch (two for each player's rating
        row, its update, the seats, the events).
        """
        url = db.parseURL(self.databaseURL())
        db.prepare(url)
        connection = db.connect(url)
        self.addCleanup(connection.close)
        games = [r for r in finishedGames(["ann", "bob"], 12)
                 if r.isRateable() and r.kind == "gomoku"]
        cursor = CountingCursor(db.Cursor(connection.cursor(), db.SQLITE))
        cursor.execute("BEGIN IMMEDIATE")
        stored = store.saveRecords(cursor, games)
        cursor.execute("COMMIT")
        self.assertEqual([r.rated for r in stored], [True] * len(games))
        self.assertEqual(cursor.statements, 2 + len(games) + 2 * 2 + 3)
