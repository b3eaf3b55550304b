"""
C{--db} and C{--leaderboard-min-games} of C{twistd gamehub}: the records
service in the tree, its metrics, and the refusal of a newer schema.
"""

import os
import re
import socket
import sqlite3
import tempfile
import shutil

from twisted.internet.testing import MemoryReactorClock
from twisted.logger import capturedLogs, formatEvent
from twisted.python import usage
from twisted.trial.unittest import SynchronousTestCase

from hub import tap
from hub.records import db
from hub.records.service import recordsService


def parse(*argv):
    options = tap.Options()
    options.parseOptions(list(argv))
    return options


def markNewer(path):
    """
    Say the SQLite records at C{path} have schema version 999.
    """
    connection = sqlite3.connect(path)
    with connection:
        connection.execute("INSERT INTO schema_migrations (version, name, "
                           "applied_at) VALUES (999, 'future', 0)")
    connection.close()


class RecordsOptionsTests(SynchronousTestCase):
    """
    The options and the service tree.
    """

    def setUp(self):
        folder = tempfile.mkdtemp(prefix="gamehub-tap-")
        self.addCleanup(shutil.rmtree, folder, True)
        self.path = os.path.join(folder, "records.sqlite")

    def services(self, *argv):
        top = tap.makeService(parse(*argv), MemoryReactorClock())
        self.addCleanup(top.stopService)
        top.startService()
        return top, {s.name: s for s in top}

    def test_defaults(self):
        """
        SQLite in the working directory; five rated games to be listed.
        """
        options = parse()
        self.assertEqual(options["db"], "sqlite:gamehub.sqlite")
        self.assertEqual(options["leaderboard-min-games"], 5)

    def test_badURL(self):
        """
        A --db that names no database is a usage error.
        """
        self.assertRaises(usage.UsageError, parse, "--db", "mysql://x/y")
        self.assertRaises(usage.UsageError, parse, "--db", "sqlite:")

    def test_recordsService(self):
        """
        --db sqlite:PATH adds the records service, migrates the file, and
        gives the lobby the recorder; --leaderboard-min-games reaches the
        query API.
        """
        top, services = self.services("--db", "sqlite:" + self.path,
                                      "--leaderboard-min-games", "3")
        records = services["records"]
        self.assertIn(records.recorder, top.lobby.tableListeners)
        self.assertEqual(records.records.leaderboardMinGames, 3)
        connection = db.connect(db.parseURL("sqlite:" + self.path))
        version = connection.execute(
            "SELECT MAX(version) FROM schema_migrations").fetchone()[0]
        connection.close()
        self.assertEqual(version, db.latestVersion())

    def test_none(self):
        """
        --db none records nothing.
        """
        top, services = self.services("--db", "none", "--web-port", "none")
        self.assertNotIn("records", services)
        self.assertEqual(top.lobby.tableListeners, [])

    def test_metrics(self):
        """
        The metrics listener serves the records' queue gauges.
        """
        top, services = self.services("--db", "sqlite:" + self.path,
                                      "--metrics-port", "tcp:9464")
        from twisted.web.test.requesthelper import DummyRequest
        root = services["metrics-port"].factory.resource
        request = DummyRequest([])
        body = root.getChildWithDefault(b"metrics", request).render_GET(
            request)
        self.assertIn(b"gamehub_records_pending 0.0", body)
        self.assertIn(b"gamehub_records_failed_total 0.0", body)

    def test_newerSchema(self):
        """
        A schema newer than this gamehub's stops the start with a one-line
        message.
        """
        db.prepare(db.parseURL("sqlite:" + self.path))
        markNewer(self.path)
        error = self.assertRaises(
            SystemExit, tap.makeService,
            parse("--db", "sqlite:" + self.path), MemoryReactorClock())
        message = str(error.code)
        self.assertTrue(message.startswith("gamehub: the records database "
                                           "has schema version 999"))
        self.assertNotIn("\n", message)


class StartMessageTests(SynchronousTestCase):
    """
    What the log says of the records database at start: one thing.
    """

    def startLines(self, url):
        """
        The messages of the records service started on C{url} (the
        reactor running).
        """
        reactor = MemoryReactorClock()
        with capturedLogs() as events:
            service = recordsService(url, reactor)
            service.startService()
            for hook, args, kwargs in reactor.whenRunningHooks:
                hook(*args, **kwargs)
        self.addCleanup(service.database.close)
        return [formatEvent(e) for e in events]

    def test_reachable(self):
        """
        A database that answers: "recording games in" it.
        """
        folder = tempfile.mkdtemp(prefix="gamehub-tap-")
        self.addCleanup(shutil.rmtree, folder, True)
        url = "sqlite:" + os.path.join(folder, "records.sqlite")
        self.assertEqual(self.startLines(url),
                         ["recording games in " + url])

    def test_postgresUnreachable(self):
        """
        A PostgreSQL server that does not answer at start: one warning
        that says it is unreachable and that games wait for it, and no
        "recording games in" it.
        """
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        url = "postgresql://x@127.0.0.1:{}/db".format(port)
        lines = self.startLines(url)
        self.assertEqual(len(lines), 1, lines)
        self.assertRegex(
            lines[0], r"^records database {} unreachable at start \(.*"
            r"refused.*\): games are queued and recorded once it "
            r"answers$".format(re.escape(url)))
