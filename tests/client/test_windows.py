"""
Window tests: real clients (C{python -m client_pyglet ... --bot 2
--exit-after-game --screenshot FILE}) play whole games through
C{twistd -n gamehub}; the screenshots must show the final board.

They need a display: run them under C{xvfb-run -a}.  Without one they
fail (they do not skip).
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time

from twisted.trial.unittest import SynchronousTestCase

from tests.client.png import colourCounts, near
from tests.endtoend import GamehubServer

#: Seconds a whole game may take.
GAME_TIMEOUT = 240
#: Seconds without a new line from any client or the server after which
#: a game counts as stuck: the test fails then, with every log.
STALL_TIMEOUT = 45
BACKGROUND = (24, 30, 44)
WINDOW = (1100, 760)


def requireDisplay(testCase):
    """
    Fail (not skip) when there is no display.
    """
    if not os.environ.get("DISPLAY"):
        testCase.fail(
            "the client window tests need a display: DISPLAY is not set. "
            "Run them under `xvfb-run -a python -m pytest tests` "
            "(Debian: apt-get install -y xvfb).")


class ClientWindowTests(SynchronousTestCase):
    """
    Two or more bot-driven clients per game, each saving a screenshot.
    """

    def setUp(self):
        requireDisplay(self)
        self.server = GamehubServer(self)
        self.dir = tempfile.mkdtemp(prefix="client-windows-")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def play(self, game, names, room=None, extra=()):
        """
        Run one client per name until they exit.

        @return: the screenshot paths.
        """
        url = "%s://127.0.0.1:%d" % (game, self.server.port(game))
        procs = []
        shots = []
        env = dict(os.environ)
        root = os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__))))
        env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
        env["PYTHONUNBUFFERED"] = "1"
        env["CLIENT_PYGLET_LOG"] = "1"
        for name in names:
            shot = os.path.join(self.dir, "%s-%s.png" % (game, name))
            # The bot plays at once (not after the 0.25 s a person
            # watching it is given): what is tested is a whole game.
            args = [sys.executable, "-m", "client_pyglet", url, "--name",
                    name, "--bot", "2", "--bot-delay", "0.02",
                    "--exit-after-game", "--screenshot", shot]
            if room:
                args += ["--room", room]
            args += list(extra)
            log = open(os.path.join(self.dir, name + ".log"), "wb")
            self.addCleanup(log.close)
            p = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT,
                                 env=env, cwd=root)
            self.addCleanup(self._kill, p)
            procs.append((name, p))
            shots.append(shot)
            # The next client starts once this one is seated, so that
            # seats follow the order of names.
            self.server.waitForLog(r"joined {} room".format(game),
                                   count=len(procs))
        self.waitForClients(procs)
        return shots

    def waitForClients(self, procs):
        """
        Wait until every client exits, failing with every log as soon as
        one exits with an error, nothing is logged for L{STALL_TIMEOUT}
        seconds, or the game passes L{GAME_TIMEOUT}.
        """
        start = lastChange = time.monotonic()
        seen = None
        while True:
            codes = [(name, p.poll()) for name, p in procs]
            for name, code in codes:
                if code not in (None, 0):
                    self.fail("%s's client exited with %s\n%s"
                              % (name, code, self.logs(procs)))
            if all(code == 0 for _, code in codes):
                return
            now = time.monotonic()
            progress = self.progress(procs)
            if progress != seen:
                seen, lastChange = progress, now
            if now - lastChange > STALL_TIMEOUT:
                self.fail("no client or server output for %d s\n%s"
                          % (STALL_TIMEOUT, self.logs(procs)))
            if now - start > GAME_TIMEOUT:
                self.fail("the game did not end in %d s\n%s"
                          % (GAME_TIMEOUT, self.logs(procs)))
            # A bounded wait on the first client still running.
            for _, p in procs:
                if p.poll() is None:
                    try:
                        p.wait(1)
                    except subprocess.TimeoutExpired:
                        pass
                    break

    def progress(self, procs):
        """
        How much every client and the server have logged so far.
        """
        sizes = [os.path.getsize(os.path.join(self.dir, name + ".log"))
                 for name, _ in procs]
        return sizes + [len(self.server.output)]

    def logs(self, procs):
        """
        The end of every client's log and of the server's.
        """
        parts = ["--- %s's client:\n%s" % (name, self._log(name))
                 for name, _ in procs]
        parts.append("--- server:\n" + "".join(self.server.output)[-4000:])
        return "\n".join(parts)

    def _log(self, name):
        with open(os.path.join(self.dir, name + ".log"), "rb") as f:
            return f.read().decode("utf-8", "replace")[-3000:]

    def _kill(self, p):
        if p.poll() is None:
            p.kill()
            p.wait()

    def assertDrawn(self, shot, colours, minimum=0.002):
        """
        The screenshot is the window, not blank, and shows C{colours}.
        """
        self.assertTrue(os.path.exists(shot), "no screenshot " + shot)
        width, height, counts, samples = colourCounts(shot)
        self.assertEqual((width, height), WINDOW)
        self.assertGreater(len(counts), 50, "too few colours: blank?")
        background = near(counts, BACKGROUND, 4)
        self.assertLess(background / samples, 0.8, "mostly background")
        for name, rgb in colours.items():
            self.assertGreater(near(counts, rgb, 12) / samples, minimum,
                               "%s (%r) missing from %s" % (name, rgb, shot))

    def test_gomoku(self):
        """
        Two gomoku clients: one creates the room, the other joins; the
        owner starts; the final board shows wood and both colours.
        """
        shots = self.play("gomoku", ["alice", "bob"], room="win")
        for shot in shots:
            self.assertDrawn(shot, {"board": (222, 184, 112),
                                    "black stones": (30, 30, 34),
                                    "white stones": (245, 245, 240)})

    def test_checkers(self):
        """
        Two checkers clients join one room, ready and play to the end;
        the star board shows both players' colours.
        """
        shots = self.play("checkers", ["alice", "bob"], room="star")
        for shot in shots:
            self.assertDrawn(shot, {"region A": (240, 200, 60),
                                    "region D": (70, 120, 230)})

    def test_checkersThreePlayers(self):
        """
        Three checkers clients (regions A, C, E) finish a game.
        """
        shots = self.play("checkers", ["ann", "ben", "cat"], room="three",
                          extra=["--players", "3"])
        for shot in shots:
            self.assertDrawn(shot, {"region A": (240, 200, 60),
                                    "region C": (160, 90, 210),
                                    "region E": (60, 200, 210)})

    def test_splendor(self):
        """
        Two Splendor clients sit at one table and play until WINNER; the
        table shows cards and the bank's gems.
        """
        shots = self.play("splendor", ["alice", "bob"])
        for shot in shots:
            self.assertDrawn(shot, {"card face": (238, 232, 218),
                                    "sapphire": (52, 104, 214),
                                    "ruby": (206, 52, 64),
                                    "emerald": (40, 164, 96)})
