"""
Display names in the desktop client (docs/accounts.md, "Display
names"): the screens that read the hub's web API (the list of a hub's
games, a game watched) show an account's display name before its name,
C{安妮 (ann)}; the game screens, which speak the legacy protocols, never
get one.  The window test needs a display: run it under C{xvfb-run -a}.
"""

import os
import shutil
import tempfile

from twisted.internet import defer, reactor
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase, TestCase

from hub.accounts.displays import DisplayNames
from hub.client.session import Options
from hub.client.userdirs import UserConfig
from hub.client.watch import WatchedGame
from hub.client.watchstate import gamePlayers, shownName
from tests.client.test_offline_windows import NoStop, labelTexts
from tests.client.test_watch import until
from tests.client.test_windows import requireDisplay
from tests.web.support import WebHub, openRoom
from tests.web.test_display_names import HeldDisplays


class ShownNameTests(SynchronousTestCase):
    """
    L{shownName}, L{gamePlayers} and L{WatchedGame.seatName}.
    """

    def test_shownName(self):
        """
        The display name first, the name in parentheses; a name alone
        without one.
        """
        self.assertEqual(shownName("lilei", "李雷"), "李雷 (lilei)")
        self.assertEqual(shownName("bob"), "bob")
        self.assertEqual(shownName("bob", None), "bob")

    def test_gamePlayers(self):
        """
        A game of the list says its players with their display names; a
        hub that sends none (an older one) its names alone.
        """
        self.assertEqual(gamePlayers({"players": ["ann", "bob"],
                                      "displays": ["安妮", None]}),
                         "安妮 (ann), bob")
        self.assertEqual(gamePlayers({"players": ["ann", "bob"]}),
                         "ann, bob")

    def test_seatName(self):
        """
        A watched game's seat: its player's display name, name and role.
        """
        game = WatchedGame(Clock(), "g")
        game.seats = [{"name": "ann", "role": "black", "display": "安妮"},
                      {"name": "bob", "role": "white"}]
        self.assertEqual(game.seatName(0), "安妮 (ann) (black)")
        self.assertEqual(game.seatName(1), "bob (white)")
        self.assertEqual(game.playerName(0), "安妮 (ann)")


class WatchWindowTests(TestCase):
    """
    The list of games and a game watched, in a window, on a hub whose
    account C{ann} has the display name 安妮.
    """

    timeout = 60

    def setUp(self):
        requireDisplay(self)
        folder = tempfile.mkdtemp(prefix="client-display-")
        self.addCleanup(shutil.rmtree, folder, True)
        self.config = UserConfig(os.path.join(folder, "c.json"))
        self.web = WebHub(self)
        displays = DisplayNames(HeldDisplays({"ann": "安妮"}),
                                self.web.hub.clock)
        self.web.web.displays = displays
        self.web.web.spectating.displays = displays
        return displays.lookup(["ann"])

    @defer.inlineCallbacks
    def test_listAndWatch(self):
        """
        The list says C{安妮 (ann), bob}; the game's side panel says
        C{安妮 (ann)}.
        """
        from client_pyglet.app import App
        room, _ = openRoom(self.web.hub, "gomoku", "g", ["ann", "bob"])
        self.web.hub.lobby.start(room)
        app = App(NoStop(), reactor, Options(game=None, name="eve"),
                  config=self.config, hubBrowserFactory=lambda *a: None)
        app.start()
        self.addCleanup(app.stop, 0)
        app.connection.showWatchList(self.web.url(""))
        scene = app.scene
        yield scene._pending
        app.pumpOnce()
        texts = labelTexts(app.scene)
        self.assertTrue(any("安妮 (ann)" in text and "bob" in text
                            for text in texts), texts)
        gameId = self.web.web.spectating.running()[0].id
        app.connection.watchGame(self.web.url(""), gameId)
        game = app.connection.watcher.game
        yield until(game, lambda: app.connection.watcher._reader is not None)
        app.pumpOnce()
        self.assertIn("安妮 (ann)", labelTexts(app.scene))
