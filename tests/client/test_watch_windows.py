"""
Window tests of watching: C{python -m client_pyglet --watch URL} follows
a checkers game that bots (C{python -m hub.bots}) play on the real
C{twistd -n gamehub}, then shows its replay; and the watch scenes on a
fake clock: the replay controls, the list of a hub's games.

They need a display: run them under C{xvfb-run -a}.  Without one they
fail (they do not skip).
"""

import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from twisted.internet import defer, reactor
from twisted.trial.unittest import SynchronousTestCase, TestCase

from hub.client.session import Options
from hub.client.userdirs import UserConfig
from tests.client.test_offline_windows import (
    REGION_COLOURS, ROOT, NoStop, assertPNG, keepShot, labelTexts)
from tests.client.test_watch import until
from tests.client.test_windows import requireDisplay
from tests.endtoend import TIMEOUT, GamehubServer
from tests.web.support import WebHub, openRoom

#: Seconds a watched game may take.
GAME_TIMEOUT = 180


def firstGame(port, kind, timeout=TIMEOUT):
    """
    The id of the first running game of C{kind}, as the hub's lobby
    stream (C{/api/hub/events}) announces it; reads are bounded by
    C{timeout}.
    """
    connection = http.client.HTTPConnection("127.0.0.1", port,
                                            timeout=timeout)
    try:
        connection.request("GET", "/api/hub/events")
        response = connection.getresponse()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = response.readline()
            if not line:
                break
            if not line.startswith(b"data: "):
                continue
            now = json.loads(line[6:])
            games = now.get("kinds", {}).get(kind, {}).get("games", [])
            running = [g["id"] for g in games if not g.get("over")]
            if running:
                return running[0]
    finally:
        connection.close()
    raise AssertionError("no %s game started in %d s" % (kind, timeout))


class WatchProcessTests(SynchronousTestCase):
    """
    C{--watch} against C{twistd -n gamehub}: live, then the replay.
    """

    def setUp(self):
        requireDisplay(self)
        self.dir = tempfile.mkdtemp(prefix="client-watch-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.server = GamehubServer(self, "--db", "none", "--announce",
                                    "no", games=("checkers", "web"))
        self.env = dict(os.environ)
        self.env["PYTHONPATH"] = ROOT + os.pathsep + self.env.get(
            "PYTHONPATH", "")
        self.env["CLIENT_PYGLET_LOG"] = "1"

    def spawn(self, argv, log):
        out = open(os.path.join(self.dir, log), "wb")
        self.addCleanup(out.close)
        p = subprocess.Popen([sys.executable] + argv, stdout=out,
                             stderr=subprocess.STDOUT, env=self.env,
                             cwd=ROOT)
        self.addCleanup(self._kill, p)
        return p

    def _kill(self, p):
        if p.poll() is None:
            p.kill()
            p.wait()

    def log(self, name):
        with open(os.path.join(self.dir, name), "rb") as f:
            return f.read().decode("utf-8", "replace")

    def test_watchCheckers(self):
        """
        Three bots play checkers; the client watches the game live from
        the web port, and once it ends shows the ranking and the replay
        controls, saves its screenshot and exits 0.
        """
        url = "checkers://127.0.0.1:%d" % (self.server.port("checkers"),)
        bots = self.spawn(["-m", "hub.bots", url, "--count", "3", "--level",
                         "2", "--delay", "0.05", "--seed", "4"], "bots.log")
        web = self.server.port("web")
        gameId = firstGame(web, "checkers")
        shot = os.path.join(self.dir, "watch.png")
        client = self.spawn(
            ["-m", "client_pyglet", "--watch",
             "http://127.0.0.1:%d/games/%s" % (web, gameId),
             "--exit-after-game", "--screenshot", shot], "client.log")
        try:
            code = client.wait(GAME_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.fail("the client did not exit:\n%s\n--- bots:\n%s" % (
                self.log("client.log")[-3000:], self.log("bots.log")))
        out = self.log("client.log")
        self.assertEqual(code, 0, out[-3000:])
        self.assertIn("following %r live" % (gameId,), out)
        self.assertIn("watched: ", out)
        self.assertIn("won (normal)", out)
        self.assertEqual(bots.wait(TIMEOUT), 0, self.log("bots.log"))
        keepShot(shot, "client-watch.png")
        assertPNG(self, shot, {"region A": REGION_COLOURS["A"],
                               "region C": REGION_COLOURS["C"],
                               "region E": REGION_COLOURS["E"]})


class WatchSceneTests(TestCase):
    """
    The watch scenes in a window, on a hub's web face over loopback:
    the list of games, a game live, its replay's controls.
    """

    timeout = 60

    def setUp(self):
        requireDisplay(self)
        d = tempfile.mkdtemp(prefix="client-watch-")
        self.addCleanup(shutil.rmtree, d, True)
        self.config = UserConfig(os.path.join(d, "c.json"))
        self.web = WebHub(self)

    def frame(self, app):
        app.pumpOnce()

    def click(self, app, method, *args):
        self.frame(app)
        for (x, y, w, h, cb, a) in app.scene._hits:
            if getattr(cb, "__name__", None) == method and \
                    (not args or a == args):
                app.on_mouse_motion(x + w / 2, y + h / 2, 0, 0)
                app.on_mouse_press(x + w / 2, y + h / 2, 1, 0)
                self.frame(app)
                return
        self.fail("no %s%r on %r" % (method, args, app.scene))

    @defer.inlineCallbacks
    def test_listWatchReplay(self):
        """
        The hub's games are listed; Watch shows the game live, move by
        move; at its end the replay's controls step, jump and slide;
        Games goes back to the list.
        """
        from client_pyglet.app import App
        room, _ = openRoom(self.web.hub, "gomoku", "g", ["ann", "bob"])
        self.web.hub.lobby.start(room)
        table = room.table
        table.act(0, (7, 7))
        app = App(NoStop(), reactor, Options(game=None, name="eve"),
                  config=self.config, hubBrowserFactory=lambda *a: None)
        app.start()
        self.addCleanup(app.stop, 0)
        root = self.web.url("")
        app.connection.showWatchList(root)
        scene = app.scene
        self.assertEqual(type(scene).__name__, "WatchListScene")
        yield scene._pending
        self.frame(app)
        self.assertIn("ann, bob", labelTexts(app.scene))
        self.click(app, "watch")
        game = app.connection.watcher.game
        yield until(game, lambda: app.connection.watcher._reader is not None)
        self.assertEqual(type(app.scene).__name__, "WatchGomokuScene")
        self.frame(app)
        texts = labelTexts(app.scene)
        self.assertIn("LIVE", texts)
        self.assertIn("replay when the game ends", texts)
        table.act(1, (0, 0))
        yield until(game, lambda: len(game.moves) == 2)
        self.assertEqual(app.scene.state.stone(0, 0), 16)
        for x in (1, 2, 3):
            table.act(0, (7 + x, 7))
            table.act(1, (x, 0))
        table.act(0, (11, 7))
        yield until(game, lambda: game.steps is not None)
        self.frame(app)
        self.assertEqual(len(app.scene.winningCells), 5)
        labels = [b.label for b in app.scene.buttons]
        for label in ("|<", "<", "play", ">", ">|", "Games"):
            self.assertIn(label, labels)
        self.click(app, "first")
        self.assertEqual(game.step, 0)
        self.assertIn("move 0 / 9", labelTexts(app.scene))
        self.click(app, "forward")
        self.assertEqual(app.scene.state.moveCount, 1)
        sx, sy, sw, sh = app.scene.sliderRect
        app.on_mouse_press(sx + sw / 2, sy + sh / 2, 1, 0)
        self.assertIn(game.step, (4, 5))
        from pyglet.window import key
        app.on_key_press(key.END, 0)
        self.assertEqual(game.step, 9)
        app.on_key_press(key.LEFT, 0)
        self.assertEqual(game.step, 8)
        self.frame(app)
        self.assertCounterClear(app, "move 8 / 9")
        # a three-digit counter in the narrowest box (Splendor's) too
        game.stepText = lambda: "move 160 / 160"
        app.scene.buildControls(0, 0, 178)
        self.assertCounterClear(app, "move 160 / 160")
        self.click(app, "leave")
        self.assertEqual(type(app.scene).__name__, "WatchListScene")
        self.assertIsNone(app.connection.watcher)

    @defer.inlineCallbacks
    def test_missingGame(self):
        """
        A game the hub does not have: the screen says it cannot be
        watched and why, not that it is loading.
        """
        from client_pyglet.app import App
        app = App(NoStop(), reactor, Options(game=None, name="eve"),
                  config=self.config, hubBrowserFactory=lambda *a: None)
        app.start()
        self.addCleanup(app.stop, 0)
        root = self.web.url("")
        yield app.connection.watchGame(root, "live-99")
        self.frame(app)
        self.assertEqual(type(app.scene).__name__, "WatchWaitScene")
        texts = labelTexts(app.scene)
        self.assertIn("Cannot watch game live-99 from " + root, texts)
        self.assertIn("This hub has no game live-99.", texts)
        self.assertFalse([t for t in texts if "Loading" in t], texts)

    def assertCounterClear(self, app, text):
        """
        The replay's move counter C{text} ends left of the Quit (Games)
        button, on the same row.
        """
        import pyglet
        labels = [o for o in app.scene._keep
                  if isinstance(o, pyglet.text.Label) and o.text == text]
        self.assertTrue(labels, text)
        leave = [b for b in app.scene.buttons
                 if b.label in ("Quit", "Games")][-1]
        counter = labels[-1]
        self.assertLess(counter.x + counter.content_width, leave.rect[0],
                        text)

    @defer.inlineCallbacks
    def test_startScreenWatch(self):
        """
        A hub on the LAN with a web port has a Watch button: it lists the
        games running there.  A typed host is looked at on port 8080.
        """
        from client_pyglet.app import App
        from hub.client.discovery import FoundHub
        room, _ = openRoom(self.web.hub, "checkers", "c", ["ann", "bob"])
        self.web.hub.lobby.start(room)
        webPort = self.web.port.getHost().port

        class Browser:
            hubs = [FoundHub("gamehub on lab", "127.0.0.1",
                             {"checkers": 1}, webPort, "lab.local.")]

            def __init__(self, reactor, onChange):
                pass

            def stop(self):
                pass
        app = App(NoStop(), reactor, Options(game=None, name="eve"),
                  config=self.config, hubBrowserFactory=Browser)
        app.start()
        self.addCleanup(app.stop, 0)
        self.click(app, "watchAt", "127.0.0.1", webPort)
        scene = app.scene
        self.assertEqual(type(scene).__name__, "WatchListScene")
        self.assertEqual(scene.root, "http://127.0.0.1:%d" % (webPort,))
        yield scene._pending
        self.frame(app)
        self.assertIn("ann, bob", labelTexts(app.scene))
        self.assertIn("Watch", [b.label for b in app.scene.buttons])
        self.click(app, "showStart")
        app.scene._fields["address"].value = "localhost:16666"
        self.click(app, "watchTyped")
        self.assertEqual(app.scene.root, "http://localhost:8080")
        app.scene._fields["web"].value = "127.0.0.1:%d" % (webPort,)
        self.click(app, "lookAt")
        self.assertEqual(app.scene.root, "http://127.0.0.1:%d" % (webPort,))
        yield app.scene._pending
