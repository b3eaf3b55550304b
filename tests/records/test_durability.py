"""
C{kill -9} while games are being recorded: the database opens cleanly and
holds every game whose record had been confirmed.
"""

import os
import re
import selectors
import signal
import subprocess
import sys
import time

from twisted.trial.unittest import TestCase

from hub.records import db

from tests.records import support

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
CONFIRMED = re.compile(r"recorded gomoku game (\d+)")
WANTED = 150
TIMEOUT = 60.0


def confirmedUntilKilled(testCase, url):
    """
    Run the load writer on C{url} until it has confirmed L{WANTED}
    records, kill it with SIGKILL while it writes more, and return the
    confirmed ids.
    """
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    process = subprocess.Popen(
        [sys.executable, "-u", "-m", "tests.records.loadwriter", url],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=ROOT, env=env)
    testCase.addCleanup(process.stdout.close)
    confirmed, pending, output = set(), b"", []
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + TIMEOUT
    try:
        while len(confirmed) < WANTED and time.monotonic() < deadline:
            if not selector.select(deadline - time.monotonic()):
                break
            data = os.read(process.stdout.fileno(), 65536)
            if not data:
                break
            pending += data
            *lines, pending = pending.split(b"\n")
            for line in lines:
                text = line.decode("utf-8", "replace")
                output.append(text)
                match = CONFIRMED.search(text)
                if match:
                    confirmed.add(int(match.group(1)))
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(TIMEOUT)
    testCase.assertGreaterEqual(len(confirmed), WANTED,
                                "\n".join(output[-40:]))
    return confirmed


class DurabilityTests:
    """
    The same test on both databases.
    """

    def test_killed(self):
        """
        After kill -9 the database opens, checks clean and holds every
        confirmed game whole (its seats and events too).
        """
        url = self.databaseURL()
        confirmed = confirmedUntilKilled(self, url)
        parsed = db.parseURL(url)
        connection = db.connect(parsed)
        try:
            cursor = connection.cursor()
            if parsed.dialect is db.SQLITE:
                cursor.execute("PRAGMA integrity_check")
                self.assertEqual(cursor.fetchall(), [("ok",)])
            cursor.execute("SELECT id FROM games")
            stored = {row[0] for row in cursor.fetchall()}
            self.assertEqual(confirmed - stored, set())
            cursor.execute("SELECT COUNT(DISTINCT game_id) FROM game_seats")
            seated = cursor.fetchone()[0]
            cursor.execute("SELECT COUNT(*) FROM game_events")
            evented = cursor.fetchone()[0]
            self.assertEqual((seated, evented), (len(stored), len(stored)))
            cursor.execute("SELECT SUM(games) FROM ratings")
            self.assertEqual(cursor.fetchone()[0], 2 * len(stored))
        finally:
            connection.close()


class SQLiteDurabilityTests(support.SQLiteMixin, DurabilityTests, TestCase):
    pass


class PostgreSQLDurabilityTests(support.PostgreSQLMixin, DurabilityTests,
                                TestCase):
    pass
