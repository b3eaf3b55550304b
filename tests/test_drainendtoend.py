"""
The graceful drain in the real C{twistd -n gamehub --drain-seconds N}:
SIGTERM during games of the three kinds.
"""

import os
import shutil
import signal
import socket
import sqlite3
import tempfile
import urllib.error
import urllib.request

from twisted.trial.unittest import SynchronousTestCase

from tests.bots.test_endtoend import botClient
from tests.endtoend import TIMEOUT, GamehubServer

DRAIN_SECONDS = 8


def stalled(testCase, kind, port, *args):
    """
    Two bots that start a game of C{kind} and then wait a minute before
    each action: a game that will not end by itself within a drain.
    """
    process = botClient(kind, port, "--count", "2", "--delay", "60", *args)

    def stop():
        if process.poll() is None:
            process.kill()
        process.communicate()
    testCase.addCleanup(stop)
    return process


def readyz(port):
    """
    The status code of C{/readyz} on the web port.
    """
    url = "http://127.0.0.1:{}/readyz".format(port)
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
            return response.status
    except urllib.error.HTTPError as e:
        return e.code


class DrainEndToEndTests(SynchronousTestCase):
    """
    C{--drain-seconds}: SIGTERM lets a game that ends in time end and be
    recorded normally; the others are recorded as abandoned when the
    time is up, and the hub exits.
    """

    def test_drainDuringGames(self):
        folder = tempfile.mkdtemp(prefix="gamehub-drain-e2e-")
        self.addCleanup(shutil.rmtree, folder, True)
        path = os.path.join(folder, "records.sqlite")
        server = GamehubServer(
            self, "--db", "sqlite:" + path, "--drain-seconds",
            str(DRAIN_SECONDS), "--checkers-turn-seconds", "100",
            "--log-level", "debug", "--announce", "no",
            games=("gomoku", "checkers", "splendor", "web"))
        self.assertEqual(readyz(server.port("web")), 200)
        stalled(self, "checkers", server.port("checkers"), "--room", "c1")
        stalled(self, "splendor", server.port("splendor"))
        server.waitForLog(r"checkers game started in 'c1'")
        server.waitForLog(r"splendor game started in")
        finishing = botClient("gomoku", server.port("gomoku"), "--count",
                              "2", "--room", "g1", "--delay", "0.05")
        server.waitForLog(r"gomoku game started in 'g1'")

        server.process.send_signal(signal.SIGTERM)
        server.waitForLog(r"draining: 3 game\(s\) running")
        self.assertEqual(readyz(server.port("web")), 503)
        for kind in ("gomoku", "checkers", "splendor"):
            with self.assertRaises(ConnectionRefusedError, msg=kind):
                socket.create_connection(
                    ("127.0.0.1", server.port(kind)), timeout=TIMEOUT)

        out, err = finishing.communicate(timeout=TIMEOUT * 2)
        self.assertEqual(finishing.returncode, 0, err.decode()[-2000:])
        server.waitForLog(r"recorded gomoku game \d+ of table 'g1' "
                          r"\(normal")
        server.process.wait(DRAIN_SECONDS + TIMEOUT)
        server.stop()
        log = "".join(server.output)
        self.assertIn("drain over: 2 game(s) still running are ended as "
                      "abandoned", log)
        self.assertIn("Server Shut Down.", log)
        self.assertNotIn("Traceback", log)
        connection = sqlite3.connect(path)
        games = connection.execute(
            "SELECT kind, reason FROM games ORDER BY kind").fetchall()
        connection.close()
        self.assertEqual(games, [("checkers", "abandoned"),
                                 ("gomoku", "normal"),
                                 ("splendor", "abandoned")])

    def test_secondSIGTERM(self):
        """
        A second SIGTERM during a drain ends it at once: the game still
        running is recorded as abandoned and the hub exits, without a
        traceback.
        """
        folder = tempfile.mkdtemp(prefix="gamehub-drain-e2e-")
        self.addCleanup(shutil.rmtree, folder, True)
        path = os.path.join(folder, "records.sqlite")
        server = GamehubServer(
            self, "--db", "sqlite:" + path, "--drain-seconds", "600",
            "--checkers-turn-seconds", "100", "--log-level", "debug",
            "--announce", "no", games=("checkers",))
        stalled(self, "checkers", server.port("checkers"), "--room", "c1")
        server.waitForLog(r"checkers game started in 'c1'")
        server.process.send_signal(signal.SIGTERM)
        server.waitForLog(r"draining: 1 game\(s\) running")
        server.process.send_signal(signal.SIGTERM)
        server.process.wait(TIMEOUT)
        server.stop()
        log = "".join(server.output)
        self.assertIn("drain cut short", log)
        self.assertIn("recorded checkers game 1 of table 'c1' (abandoned",
                      log)
        self.assertNotIn("Traceback", log)
