"""
One table, any client (issue 22, test 2): a browser player (headless
Chromium on C{/play}, clicking), a TCP bot (C{python -m hub.bots}) and
the pyglet desktop client (a real client process under Xvfb, its moves
made by its local bot as C{--bot} does) play one 3-player checkers game
in room C{r1} of C{twistd -n gamehub}, to its end; the game's record
names all three.

Needs a display for the pyglet window: run it under C{xvfb-run -a}.
"""

import json
import os
import subprocess
import sys
import tempfile
import shutil
import time
import urllib.request

from twisted.trial.unittest import SynchronousTestCase

from tests.client.test_windows import requireDisplay
from tests.endtoend import GamehubServer, waitUntil
from tests.web.test_browser import ROOT, PageActions, browser

#: Seconds the whole game may take on a loaded 2-core machine.
GAME_TIMEOUT = 900
#: Seconds any one step (a page answer, a turn) may take.
WAIT = 120
#: The turn limit of the hub's checkers tables: short, so that a stuck
#: player is out soon and the game still ends.
TURN_SECONDS = "20"
ROOM = "r1"
BROWSER_NAME = "webby"
DESKTOP_NAME = "desky"
BOT_PREFIX = "tcpbot"


class MixedTableTests(PageActions, SynchronousTestCase):
    """
    A browser, a TCP bot and the pyglet client at one checkers table.
    """

    def setUp(self):
        requireDisplay(self)
        self.dir = tempfile.mkdtemp(prefix="mixed-table-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.server = GamehubServer(
            self, "--checkers-turn-seconds", TURN_SECONDS,
            games=("checkers", "web"))
        self.base = "http://127.0.0.1:%d" % (self.server.port("web"),)
        self.url = "checkers://127.0.0.1:%d" % (
            self.server.port("checkers"),)
        self.driver = browser()
        self.addCleanup(self.driver.quit)
        self.driver.set_page_load_timeout(WAIT)

    def spawn(self, name, args):
        """
        Start C{python ARGS...} from the project, its output in a log.
        """
        env = dict(os.environ)
        env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
        env["PYTHONUNBUFFERED"] = "1"
        env["CLIENT_PYGLET_LOG"] = "1"
        env["XDG_CONFIG_HOME"] = os.path.join(self.dir, "config")
        env["XDG_DATA_HOME"] = os.path.join(self.dir, "data")
        log = open(os.path.join(self.dir, name + ".log"), "wb")
        self.addCleanup(log.close)
        p = subprocess.Popen([sys.executable] + args, stdout=log,
                             stderr=subprocess.STDOUT, env=env, cwd=ROOT)

        def stop():
            if p.poll() is None:
                p.kill()
            p.wait()
        self.addCleanup(stop)
        return p

    def logOf(self, name):
        with open(os.path.join(self.dir, name + ".log"), "rb") as f:
            return f.read().decode("utf-8", "replace")[-3000:]

    def logs(self):
        return "\n".join(
            ["--- %s:\n%s" % (name, self.logOf(name))
             for name in ("desktop", "bot")]
            + ["--- server:\n" + "".join(self.server.output)[-4000:]])

    # the browser
    def wait(self, condition, message, timeout=WAIT):
        from selenium.common.exceptions import TimeoutException
        from selenium.webdriver.support.ui import WebDriverWait
        try:
            return WebDriverWait(self.driver, timeout,
                                 poll_frequency=0.1).until(
                lambda driver: condition())
        except TimeoutException:
            self.fail("%s\n--- page:\n%s\n%s" % (
                message, self.attribute("main", "innerText", ""),
                self.logs()))

    def attribute(self, selector, name, default=None):
        from selenium.common.exceptions import StaleElementReferenceException
        found = self.find(selector)
        try:
            return found[0].get_attribute(name) if found else default
        except StaleElementReferenceException:
            return default

    def turn(self):
        return self.attribute("#status", "data-turn")

    def moves(self):
        try:
            return int(self.attribute("#board svg", "data-moves", -1))
        except (TypeError, ValueError):
            return -1

    def playInBrowser(self, desktop, bot):
        """
        Each of the browser's turns: the hint, then a click on the hinted
        piece and one on its hinted destination; until the game is over.
        """
        deadline = time.monotonic() + GAME_TIMEOUT
        turns = 0
        while time.monotonic() < deadline:
            # Once its pieces are all home the browser only watches: any
            # move anywhere is progress.
            seen = self.moves()
            self.wait(lambda: self.turn() in ("yours", "over")
                      or self.moves() != seen,
                      "no move at the table")
            if self.turn() == "over":
                return turns
            if self.turn() != "yours":
                continue
            before = self.moves()
            self.click("#hint")
            self.click("#board .movable.hinted")
            self.click("#board .target.hinted")
            self.wait(lambda: self.moves() > before
                      or self.turn() == "over",
                      "the browser's clicks played nothing")
            turns += 1
            for name, p in (("desktop", desktop), ("bot", bot)):
                code = p.poll()
                if code not in (None, 0):
                    self.fail("the %s exited with %s\n%s"
                              % (name, code, self.logs()))
        self.fail("the game did not end in %d s\n%s"
                  % (GAME_TIMEOUT, self.logs()))

    def api(self, path):
        with urllib.request.urlopen(self.base + path,
                                    timeout=WAIT) as response:
            return json.loads(response.read().decode("utf-8"))

    def test_threeClientsOneTable(self):
        """
        The pyglet client makes room r1 and waits for three players, the
        TCP bot joins and readies, the browser joins r1 from the page's
        open rooms and clicks Ready; the game is played to its end (the
        browser clicking its moves), the browser's status says its place, and
        its record has all three.
        """
        desktop = self.spawn("desktop", [
            "-m", "client_pyglet", self.url, "--name", DESKTOP_NAME,
            "--room", ROOM, "--bot", "2", "--bot-delay", "0.02",
            "--players", "3",
            "--turn-seconds", TURN_SECONDS, "--exit-after-game"])
        self.server.waitForLog(r"joined checkers room '%s'" % (ROOM,),
                               timeout=WAIT)
        bot = self.spawn("bot", [
            "-m", "hub.bots", self.url, "--count", "1", "--room", ROOM,
            "--name", BOT_PREFIX, "--level", "2", "--delay", "0.02",
            "--timeout", str(GAME_TIMEOUT)])
        self.server.waitForLog(r"joined checkers room '%s'" % (ROOM,),
                               count=2, timeout=WAIT)

        self.driver.get(self.base + "/play?kind=checkers")
        self.wait(lambda: self.find("#name"), "no name field")
        self.find("#name")[0].send_keys(BROWSER_NAME)
        self.click("#hello")
        self.click('#open-rooms li[data-kind="checkers"][data-room="%s"] '
                   'button.join' % (ROOM,))
        self.server.waitForLog(r"joined checkers room '%s'" % (ROOM,),
                               count=3, timeout=WAIT)
        self.click("#ready")
        self.wait(lambda: self.find("#board svg.checkers"), "no board")
        turns = self.playInBrowser(desktop, bot)
        self.assertGreater(turns, 3)

        for name, p in (("desktop", desktop), ("bot", bot)):
            try:
                code = p.wait(WAIT)
            except subprocess.TimeoutExpired:
                self.fail("the %s did not end\n%s" % (name, self.logs()))
            self.assertEqual(code, 0, self.logs())
        self.assertIn("ranking:", self.logOf("desktop"))

        games = [g for g in self.api("/api/games")["games"]
                 if g["kind"] == "checkers" and g["table"] == ROOM]
        self.assertEqual(len(games), 1, games)
        game = self.api("/api/games/%s" % (games[0]["id"],))
        self.assertIsNotNone(game["result"])
        names = [seat["name"] for seat in game["seats"]]
        self.assertEqual(len(names), 3)
        self.assertIn(BROWSER_NAME, names)
        self.assertIn(DESKTOP_NAME, names)
        self.assertTrue(any(n.startswith(BOT_PREFIX) for n in names), names)

        # The stored record, as the records keep it.
        def recorded():
            recent = self.api("/api/players/checkers/%s" % (
                BROWSER_NAME,)).get("recent") or []
            return recent[0] if recent else None
        record = waitUntil(recorded, WAIT, self.logs, interval=0.5)
        self.assertEqual(sorted(record["players"]), sorted(names))
        stored = self.api("/api/games/%s" % (record["id"],))
        self.assertEqual(sorted(s["name"] for s in stored["seats"]),
                         sorted(names))
        # The browser's last words say its place: a 2nd of 3 did not
        # simply lose.
        place, = [seat["place"] for seat in stored["seats"]
                  if seat["name"] == BROWSER_NAME]
        self.assertEqual(
            self.attribute("#status", "textContent"),
            "You won!" if place == 1
            else "You finished in place %d of 3." % (place,))
