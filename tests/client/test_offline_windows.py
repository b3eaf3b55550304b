"""
Window tests of the client on its own: the start screen, offline games
(the hub inside the client) played to the end by bots, and the checkers
room filled with in-process bots against C{twistd -n gamehub}.

They need a display: run them under C{xvfb-run -a}.  Without one they
fail (they do not skip).  Each saves a screenshot (copies are in
C{docs/}).
"""

import os
import shutil
import subprocess
import sys
import tempfile

from twisted.internet import defer, reactor
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase, TestCase

from hub.client import state as S
from hub.client.session import Options
from hub.client.userdirs import UserConfig
from hub.client.discovery import FoundHub
from tests.client.png import colourCounts, near
from tests.client.test_windows import requireDisplay
from tests.endtoend import GamehubServer

#: Seconds an offline game may take.
GAME_TIMEOUT = 240
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
REGION_COLOURS = {"A": (240, 200, 60), "B": (220, 70, 70),
                  "C": (160, 90, 210), "D": (70, 120, 230),
                  "E": (60, 200, 210), "F": (80, 190, 90)}


class FakeReactor:
    running = False

    def stop(self):
        pass


class FakeBrowser:
    """
    A LAN browser (as L{hub.client.discovery.HubBrowser}) that has found
    one hub.
    """

    def __init__(self, reactor, onChange):
        self.hubs = [FoundHub("gamehub on lab", "192.168.1.20",
                              {"checkers": 16666, "splendor": 13204,
                               "gomoku": 11011}, None, "lab.local.")]
        self.onChange = onChange
        self.stopped = False

    def stop(self):
        self.stopped = True


def labelTexts(scene):
    import pyglet
    return [o.text for o in scene._keep if isinstance(o, pyglet.text.Label)]


def keepShot(shot, name):
    """
    Copy C{shot} to C{$CLIENT_SHOTS/NAME} when that is set (how the
    pictures in C{docs/} are made).
    """
    where = os.environ.get("CLIENT_SHOTS")
    if where and os.path.exists(shot):
        shutil.copy(shot, os.path.join(where, name))


def assertPNG(testCase, shot, colours, minimum=0.002):
    testCase.assertTrue(os.path.exists(shot), "no screenshot " + shot)
    width, height, counts, samples = colourCounts(shot)
    testCase.assertEqual((width, height), (1100, 760))
    testCase.assertGreater(len(counts), 50, "too few colours: blank?")
    for name, rgb in colours.items():
        testCase.assertGreater(near(counts, rgb, 12) / samples, minimum,
                               "%s (%r) missing from %s" % (name, rgb, shot))


class StartScreenTests(SynchronousTestCase):
    """
    The start screen, on a fake clock.
    """

    def setUp(self):
        requireDisplay(self)
        self.dir = tempfile.mkdtemp(prefix="client-start-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.config = UserConfig(os.path.join(self.dir, "client.json"))
        self.config.set("name", "remembered")

    def app(self, **options):
        from client_pyglet.app import App
        self.clock = Clock()
        app = App(FakeReactor(), self.clock,
                  Options(game=None, name=None, **options),
                  config=self.config, hubBrowserFactory=FakeBrowser)
        app.start()
        self.addCleanup(app.stop, 0)
        self.frame(app)
        return app

    def frame(self, app):
        self.clock.advance(0.05)
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

    def test_screenshotAfterQuits(self):
        """
        C{--screenshot-after SECONDS} saves the window at that time, then
        the client quits with status 0.
        """
        shot = os.path.join(self.dir, "after.png")
        app = self.app(screenshot=shot, screenshotAfter=1.0)
        for _ in range(10):
            self.frame(app)
        self.assertFalse(os.path.exists(shot))
        self.assertFalse(app._stopping)
        self.clock.advance(1.0)
        for _ in range(3):
            if app._stopping:
                break
            self.frame(app)
        self.assertTrue(os.path.exists(shot))
        self.assertTrue(app._stopping)
        self.assertEqual(app.exitCode, 0)

    def test_startScreen(self):
        """
        Without a URL the start screen shows the games, the remembered
        name and the hub found on the LAN; a screenshot shows it.
        """
        app = self.app()
        self.assertEqual(type(app.scene).__name__, "StartScene")
        texts = labelTexts(app.scene)
        for text in ("Chinese checkers", "Splendor", "Gomoku",
                     "gamehub on lab",
                     "192.168.1.20", "remembered"):
            self.assertIn(text, texts)
        labels = [b.label for b in app.scene.buttons]
        self.assertEqual(labels.count("Play offline"), 3)
        self.assertIn("Join checkers", labels)
        shot = os.path.join(self.dir, "start.png")
        app.screenshot(shot)
        self.frame(app)
        keepShot(shot, "client-start.png")
        assertPNG(self, shot, {"accent": (58, 110, 160)})

    def test_nameRememberedAndOffline(self):
        """
        A name typed is remembered when the player goes on; Play
        offline opens the setup of that game, Back comes back.
        """
        app = self.app()
        self.click(app, "setFocus", "name")
        app.scene._fields["name"].value = ""
        app.on_text("zoe")
        self.click(app, "playOffline", "splendor")
        self.assertEqual(self.config.get("name"), "zoe")
        self.assertEqual(UserConfig(self.config.path).load().get("name"),
                         "zoe")
        self.assertEqual(type(app.scene).__name__, "OfflineSetupScene")
        self.click(app, "setCount", 4)
        self.assertEqual([s.human for s in app.scene.plan().seats],
                         [True, False, False, False])
        self.click(app, "showStart")
        self.assertEqual(type(app.scene).__name__, "StartScene")

    def assertInPanel(self, app):
        """
        Every control of the setup screen (its buttons and seats) is on
        its panel, none sticking out over its edge.
        """
        self.frame(app)
        px, py, pw, ph = app.scene.panelRect
        self.assertTrue(app.scene._hits)
        for (x, y, w, h, callback, args) in app.scene._hits:
            self.assertTrue(px <= x and x + w <= px + pw and py <= y and
                            y + h <= py + ph,
                            (callback.__name__, args, (x, y, w, h),
                             app.scene.panelRect))

    def test_setupOnItsPanel(self):
        """
        The setup screen of each game, six checkers seats too, has its
        rows on its panel (the top row stuck out over the panel's top).
        """
        for game in ("gomoku", "splendor", "checkers"):
            app = self.app(offline=game)
            self.assertInPanel(app)
        self.click(app, "setCount", 6)
        self.click(app, "setHumans", 2)
        self.assertInPanel(app)

    def test_checkersSetup(self):
        """
        Offline checkers setup: count, auto, own seat, bot levels.
        """
        app = self.app(offline="checkers")
        scene = app.scene
        self.assertEqual(type(scene).__name__, "OfflineSetupScene")
        self.click(app, "setCount", 6)
        self.click(app, "setSeat", 3)
        self.click(app, "cycleLevel", 0)
        plan = app.scene.plan()
        self.assertEqual(plan.count, 6)
        self.assertTrue(plan.seats[3].human)
        self.assertEqual(plan.seats[0].level, 3)
        self.click(app, "setCount", "auto")
        self.click(app, "setHumans", 3)
        self.assertEqual(app.scene.playerCount(), 3)
        shot = os.path.join(self.dir, "setup.png")
        app.screenshot(shot)
        self.frame(app)
        keepShot(shot, "client-offline-setup.png")
        assertPNG(self, shot, {"region A": REGION_COLOURS["A"]}, 0.0005)

    def test_typedAddress(self):
        """
        A typed address leads to that server's lobby; a bad one is
        said.
        """
        app = self.app()
        app.scene._fields["address"].value = "nowhere:x"
        self.click(app, "connectTyped")
        self.assertIn("bad port", app.scene.problem)
        self.assertIsNone(app.session)


class OfflineGameTests(SynchronousTestCase):
    """
    C{python -m client_pyglet --offline GAME --bot 2 --exit-after-game}:
    a hub in the client, bots in the other seats, played to the end.
    """

    def setUp(self):
        requireDisplay(self)
        self.dir = tempfile.mkdtemp(prefix="client-offline-")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def runClient(self, *args):
        shot = os.path.join(self.dir, "shot.png")
        env = dict(os.environ)
        env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
        env["XDG_CONFIG_HOME"] = os.path.join(self.dir, "config")
        env["XDG_DATA_HOME"] = os.path.join(self.dir, "data")
        argv = [sys.executable, "-m", "client_pyglet", "--bot", "2",
                "--exit-after-game", "--bot-delay", "0.01", "--name", "me",
                "--screenshot", shot] + list(args)
        try:
            p = subprocess.run(argv, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, env=env, cwd=ROOT,
                               timeout=GAME_TIMEOUT)
        except subprocess.TimeoutExpired as e:
            self.fail("no end within %d s:\n%s" % (
                GAME_TIMEOUT, (e.output or b"").decode()[-3000:]))
        out = p.stdout.decode("utf-8", "replace")
        self.assertEqual(p.returncode, 0, out[-3000:])
        return shot, out

    def test_checkersSix(self):
        """
        Six players, five of them bots: the client exits 0 with a
        ranking of six, and the game is recorded in the data directory.
        """
        shot, out = self.runClient("--offline", "checkers", "--players", "6")
        lines = [l for l in out.splitlines() if l.startswith("ranking:")]
        self.assertEqual(len(lines), 1, out[-3000:])
        names = lines[0].split()[1:]
        self.assertEqual(len(names), 6)
        self.assertIn("me", names)
        self.assertTrue(os.path.exists(os.path.join(
            self.dir, "data", "gamehub", "offline.sqlite")))
        keepShot(shot, "client-offline-checkers6.png")
        assertPNG(self, shot, REGION_COLOURS)

    def test_checkersSolitaire(self):
        """
        One player alone (--checkers-sizes has 1 offline): the race ends
        when the ten pieces are home, with a ranking of one.
        """
        shot, out = self.runClient("--offline", "checkers", "--players",
                                   "1", "--records", "none")
        self.assertIn("ranking: me\n", out)
        keepShot(shot, "client-offline-checkers1.png")
        assertPNG(self, shot, {"region A": REGION_COLOURS["A"]})

    def test_splendorFour(self):
        """
        Splendor with three bots plays until a winner.
        """
        shot, out = self.runClient("--offline", "splendor", "--players", "4",
                             "--records", "none")
        self.assertIn("winner:", out)
        keepShot(shot, "client-offline-splendor.png")
        assertPNG(self, shot, {"card face": (238, 232, 218),
                               "ruby": (206, 52, 64)})


class NoStop:
    """
    The real reactor, except that the app may not stop it (trial runs
    it).
    """

    running = False

    def stop(self):
        pass

    def __getattr__(self, name):
        return getattr(reactor, name)


def when(state, condition, timeout=30):
    """
    A Deferred firing once C{condition()} holds after an event of
    C{state}; it fails after C{timeout} seconds.
    """
    d = defer.Deferred()

    def check(event=None):
        if not d.called and condition():
            state.unsubscribe(check)
            d.callback(None)
    state.subscribe(check)
    check()
    return d.addTimeout(timeout, reactor)


class LanStartScreenTests(TestCase):
    """
    The start screen lists a hub announced on the LAN (the machine's own
    interfaces), found by the real browser.
    """

    timeout = 60

    @defer.inlineCallbacks
    def test_hubFound(self):
        from client_pyglet.app import App
        from client_pyglet.lan import hubEntries
        from hub import tap
        requireDisplay(self)
        d = tempfile.mkdtemp(prefix="client-lan-")
        self.addCleanup(shutil.rmtree, d, True)
        options = tap.Options()
        options.parseOptions(["--db", "none", "--checkers-port", "tcp:0",
                              "--gomoku-port", "tcp:0",
                              "--splendor-port", "none",
                              "--web-port", "tcp:0"])
        top = tap.makeService(options, reactor)
        top.startService()
        self.addCleanup(top.stopService)
        port = top.getServiceNamed("checkers-port").port.getHost().port
        app = App(NoStop(), reactor, Options(game=None, name="lan"),
                  config=UserConfig(os.path.join(d, "c.json")))
        found = defer.Deferred()

        def changed(*args):
            if not found.called and any(
                    e.ports.get("checkers") == port
                    for e in hubEntries(app.navigator.hubBrowser)):
                found.callback(None)
            if app.scene is not None:
                app.scene.invalidate()
        app.navigator.hubsChanged = changed
        app.start()
        self.addCleanup(app.stop, 0)
        yield found.addTimeout(5, reactor)
        app.scene.invalidate()
        shot = os.path.join(d, "start.png")
        yield app.screenshot(shot).addTimeout(10, reactor)
        self.assertIn("Join checkers",
                      [b.label for b in app.scene.buttons])
        keepShot(shot, "client-start-lan.png")
        assertPNG(self, shot, {"accent": (58, 110, 160)})


class CheckersRoomTests(TestCase):
    """
    The checkers room against C{twistd -n gamehub}: the count chooser and
    Fill with bots (in-process bot connections).
    """

    timeout = 90

    def setUp(self):
        requireDisplay(self)
        self.dir = tempfile.mkdtemp(prefix="client-room-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.server = GamehubServer(self, "--checkers-four-players",
                                    games=("checkers",))

    @defer.inlineCallbacks
    def test_fillWithBots(self):
        """
        Choose 4 players, fill with level-1 bots: three bots join and
        ready; we ready too and the game of four starts.
        """
        from client_pyglet.app import App
        app = App(NoStop(), reactor, Options(
            game="checkers", host="127.0.0.1", name="alice", room="fill",
            port=self.server.port("checkers"), botDelay=0.01),
            config=UserConfig(os.path.join(self.dir, "c.json")))
        app.start()
        self.addCleanup(app.stop, 0)
        st = app.session.state
        yield when(st, lambda: st.phase == S.ROOM)
        scene = app.scene
        self.assertEqual(type(scene).__name__, "CheckersRoomScene")
        scene.setTarget(4)
        scene.fillLevel = 1
        scene.fill()
        yield when(st, lambda: len(st.members) == 4
                   and all(r for n, r in st.members if n != "alice"))
        scene.invalidate()
        shot = os.path.join(self.dir, "room.png")
        yield app.screenshot(shot).addTimeout(10, reactor)
        self.assertIn("Against a server, regions go by join order: the "
                      "seat is chosen in offline play only.",
                      labelTexts(app.scene))
        keepShot(shot, "client-checkers-room-fill.png")
        assertPNG(self, shot, {"region A": REGION_COLOURS["A"],
                               "region E": REGION_COLOURS["E"]}, 0.0003)
        st.setReady(True)
        yield when(st, lambda: st.phase == S.GAME)
        self.assertEqual(sorted(st.regions.values()), ["A", "B", "D", "E"])


class OfflineAgainTests(TestCase):
    """
    Play again after an offline game goes back to its setup, and a new
    game can start from there.
    """

    timeout = 120

    @defer.inlineCallbacks
    def test_again(self):
        from client_pyglet.app import App
        requireDisplay(self)
        d = tempfile.mkdtemp(prefix="client-again-")
        self.addCleanup(shutil.rmtree, d, True)
        app = App(NoStop(), reactor, Options(
            game=None, name="solo", offline="checkers", players=1, bot=2,
            botDelay=0.01, records="none"),
            config=UserConfig(os.path.join(d, "c.json")))
        app.start()
        self.addCleanup(app.stop, 0)
        st = app.session.state
        yield when(st, lambda: st.phase == S.OVER, 60)
        self.assertEqual(st.ranking, ["solo"])
        app.scene.again()
        self.assertEqual(type(app.scene).__name__, "OfflineSetupScene")
        self.assertIsNone(app.connection.offlineHub)
        app.scene.play()
        yield when(app.session.state,
                   lambda: app.session.state.phase == S.GAME, 30)
