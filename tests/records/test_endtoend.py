"""
The records in the real C{twistd -n gamehub}: the schema at start, the
refusal of a newer one, games played by the bot client recorded and
rated, SIGTERM writing what is queued, and kill -9 under load.
"""

import os
import re
import shutil
import sqlite3
import subprocess
import tempfile

from twisted.trial.unittest import SynchronousTestCase

from hub.records import db
from tests.bots.test_endtoend import botClient
from tests.endtoend import TIMEOUT, GamehubServer, twistdCommand
from tests.records.test_tap import markNewer


class RecordsServerTests(SynchronousTestCase):
    """
    C{twistd -n gamehub --db sqlite:PATH}.
    """

    def setUp(self):
        folder = tempfile.mkdtemp(prefix="gamehub-records-e2e-")
        self.addCleanup(shutil.rmtree, folder, True)
        self.path = os.path.join(folder, "records.sqlite")
        self.url = "sqlite:" + self.path

    def test_migratesAndStops(self):
        """
        The hub creates and migrates the database at start, says where it
        records, and exits cleanly on SIGTERM.
        """
        server = GamehubServer(self, "--db", self.url, games=("gomoku",))
        server.waitForLog(r"recording games in sqlite:")
        server.stop()
        self.assertIn("Server Shut Down.", "".join(server.output))
        self.assertNotIn("Traceback", "".join(server.output))
        connection = sqlite3.connect(self.path)
        version = connection.execute(
            "SELECT MAX(version) FROM schema_migrations").fetchone()[0]
        connection.close()
        self.assertEqual(version, db.latestVersion())

    def test_refusesNewerSchema(self):
        """
        On a schema newer than it knows, twistd exits at once with one
        clear line.
        """
        db.prepare(db.parseURL(self.url))
        markNewer(self.path)
        process = subprocess.run(
            twistdCommand() + ["-n", "--pidfile=", "gamehub", "--db",
                               self.url, "--gomoku-port", "none",
                               "--checkers-port", "none",
                               "--splendor-port", "none",
                               "--web-port", "none", "--announce", "no"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            timeout=TIMEOUT, cwd=os.path.dirname(self.path))
        self.assertNotEqual(process.returncode, 0)
        lines = process.stdout.decode().strip().splitlines()
        self.assertIn("gamehub: the records database has schema version "
                      "999, newer than the {} this gamehub knows: upgrade "
                      "gamehub, or use another --db".format(
                          db.latestVersion()), lines)

    def test_botGamesRecorded(self):
        """
        Games the bot client plays are recorded with its names, rated, and
        survive a restart of the hub.
        """
        server = GamehubServer(self, "--db", self.url, games=("gomoku",))
        process = botClient("gomoku", server.port("gomoku"), "--games", "3",
                            "--name", "recbot")
        out, err = process.communicate(timeout=TIMEOUT * 6)
        self.assertEqual(process.returncode, 0, err.decode()[-2000:])
        server.waitForLog(r"recorded gomoku game \d+", count=3)
        server.stop()
        again = GamehubServer(self, "--db", self.url, games=("gomoku",))
        again.stop()
        connection = sqlite3.connect(self.path)
        games = connection.execute(
            "SELECT COUNT(*), SUM(rated) FROM games").fetchone()
        names = connection.execute(
            "SELECT name, games FROM ratings ORDER BY name").fetchall()
        connection.close()
        self.assertEqual(games, (3, 3))
        # The bot client keeps its names (the prefix and the seat), so
        # each bot's rating has all three games
        self.assertEqual(names, [("recbot1", 3), ("recbot2", 3)])

    def test_killedUnderLoad(self):
        """
        kill -9 while bot clients play: the database opens cleanly and
        holds every game the hub had logged as recorded.
        """
        server = GamehubServer(self, "--db", self.url, games=("gomoku",))
        bots = [botClient("gomoku", server.port("gomoku"), "--games", "50",
                          "--name", "load{}".format(i), "--level", "1")
                for i in range(4)]
        try:
            server.waitForLog(r"recorded gomoku game \d+", count=20,
                              timeout=TIMEOUT * 6)
        finally:
            server.kill()
            for bot in bots:
                bot.kill()
                bot.communicate()
        server.stop()
        confirmed = {int(n) for n in re.findall(
            r"recorded gomoku game (\d+)", "".join(server.output))}
        self.assertGreaterEqual(len(confirmed), 20)
        connection = sqlite3.connect(self.path)
        try:
            self.assertEqual(connection.execute(
                "PRAGMA integrity_check").fetchall(), [("ok",)])
            stored = {row[0] for row in connection.execute(
                "SELECT id FROM games")}
        finally:
            connection.close()
        self.assertEqual(confirmed - stored, set())
