"""
The engine catalog (L{hub.tournaments.catalog}, migration 0007) against
SQLite and PostgreSQL: registering, entering by name, removing, and the
command lines of entrants made before it, moved into it.
"""

from twisted.trial.unittest import SynchronousTestCase

from hub.records import db
from hub.tournaments import catalog, store
from hub.tournaments.interfaces import EngineSpec
from hub.tournaments.store import TournamentError

from tests.records import support


class CatalogTests:
    """
    The catalog on one dialect (the mixin's).
    """

    def setUp(self):
        self.url = db.parseURL(self.databaseURL())

    def run_(self, interaction, *args):
        return store.runBlocking(self.url, interaction, *args)

    def test_registerEnterRemove(self):
        """
        An engine registered is entered by its name, its registration
        read with the entrants; registering it again changes it; it can
        be removed only when no event to come has it.
        """
        spec = self.run_(catalog.register, "robot", ["bot", "{port}"], 1.0,
                         "/opt/robot", "tcp", 30, 256 * 1024 * 1024)
        self.assertEqual(spec, EngineSpec("robot", ("bot", "{port}"),
                                          "/opt/robot", "tcp", 30,
                                          256 * 1024 * 1024))
        eventId = self.run_(store.createEvent, "cup", "gomoku",
                            "round-robin", None, None, 2, None, 0.0)
        self.assertEqual(self.run_(store.enter, eventId, "robot", 0.0,
                                   "robot"), "robot")
        self.run_(catalog.register, "robot", ["bot2"], 2.0)
        entrant, = self.run_(store.entrants, eventId)
        self.assertEqual(entrant.engine, EngineSpec("robot", ("bot2",)))
        self.assertTrue(entrant.guest)
        error = self.assertRaises(TournamentError, self.run_,
                                  catalog.unregister, "robot")
        self.assertIn("entered in event %d" % (eventId,), str(error))
        self.run_(store.withdraw, eventId, "robot")
        self.run_(catalog.unregister, "robot")
        self.assertEqual(self.run_(catalog.engines), [])
        entrant, = self.run_(store.entrants, eventId)
        # Entered, no longer registered: its launch fails, saying so.
        self.assertEqual(entrant.engine, EngineSpec("robot"))

    def test_refusals(self):
        """
        No engine without a command, with a bad name, protocol, limit or
        folder; no entrant of an engine not registered.
        """
        for args in ((["x"], 0.0, None, "smoke-signals"), ([], 0.0),
                     (["x"], 0.0, "relative/path"),
                     (["x"], 0.0, None, "tcp", -1),
                     (["a\0b"], 0.0)):
            self.assertRaises(TournamentError, self.run_, catalog.register,
                              "e", *args)
        self.assertRaises(TournamentError, self.run_, catalog.register,
                          "two words", ["x"], 0.0)
        eventId = self.run_(store.createEvent, "cup", "gomoku",
                            "round-robin", None, None, 2, None, 0.0)
        error = self.assertRaises(TournamentError, self.run_, store.enter,
                                  eventId, "ghost", 0.0, "ghost")
        self.assertIn("no engine ghost is registered", str(error))

    def test_earlierCommandsMoved(self):
        """
        A database of schema 6, whose engine entrants hold their command
        lines, migrated: each command line is a registered engine of the
        entrant's name, the entrant names it and holds none.
        """
        every = db.migrations
        self.patch(db, "migrations",
                   lambda: [m for m in every() if m[0] <= 6])
        db.prepare(self.url)
        connection = db.connect(self.url)
        try:
            cursor = db.Cursor(connection.cursor(), self.url.dialect)
            if self.url.dialect.begin:
                cursor.execute(self.url.dialect.begin)
            for eventId in (1, 2):
                cursor.execute(
                    "INSERT INTO tournaments (name, kind, format, "
                    "table_size, state, current_round, created_at) VALUES "
                    "(?, 'gomoku', 'round-robin', 2, 'created', 0, 0)",
                    ("cup %d" % (eventId,),))
            for eventId, name, command in (
                    (1, "robot", '["bot","{port}"]'),
                    (2, "robot", '["bot","{port}"]'), (1, "ann", None)):
                cursor.execute(
                    "INSERT INTO tournament_entrants (tournament_id, name, "
                    "entry, command, withdrawn, entered_at) VALUES "
                    "(?, ?, 1, ?, 0, 5)", (eventId, name, command))
            connection.commit()
        finally:
            connection.close()
        # Migration 0007 is the one that moves them; the later ones,
        # whatever they are, keep them.
        self.patch(db, "migrations",
                   lambda: [m for m in every() if m[0] <= 7])
        self.assertEqual(db.prepare(self.url), [7])
        self.patch(db, "migrations", every)
        self.assertEqual(db.prepare(self.url),
                         [m[0] for m in every() if m[0] > 7])
        self.assertEqual(self.run_(catalog.engines),
                         [EngineSpec("robot", ("bot", "{port}"))])
        entrants = {e.name: e.engine for e in self.run_(store.entrants, 1)}
        self.assertEqual(entrants, {
            "robot": EngineSpec("robot", ("bot", "{port}")), "ann": None})


class SQLiteCatalogTests(support.SQLiteMixin, CatalogTests,
                         SynchronousTestCase):
    pass


class PostgreSQLCatalogTests(support.PostgreSQLMixin, CatalogTests,
                             SynchronousTestCase):
    pass
