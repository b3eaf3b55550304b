"""
The play key in the desktop client: typed on the start screen beside the
name, remembered in the user's configuration, sent in the name field's
keyed form (C{NAME__KEY} in checkers, C{NAME#KEY} in gomoku), and never
shown on screen nor written to the client's log.  A real pyglet window on
a fake clock (run under C{xvfb-run -a}); the server is a
L{StringTransport}.
"""

import os
import shutil
import tempfile

from twisted.internet.task import Clock
from twisted.logger import formatEvent, globalLogPublisher
from twisted.trial.unittest import SynchronousTestCase

from hub.client.session import Options
from hub.client.userdirs import UserConfig
from hub.wire import checkers as cwire
from tests.client.support import FakeEndpoint
from tests.client.test_offline_windows import (
    FakeBrowser, FakeReactor, labelTexts)
from tests.client.test_windows import requireDisplay

KEY = "Abc123XYZ9"


class PlayKeyTests(SynchronousTestCase):
    """
    A player with an account plays from the start screen.
    """

    def setUp(self):
        requireDisplay(self)
        self.dir = tempfile.mkdtemp(prefix="client-key-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.config = UserConfig(os.path.join(self.dir, "client.json"))
        self.logged = []
        observer = lambda event: self.logged.append(formatEvent(event))
        globalLogPublisher.addObserver(observer)
        self.addCleanup(globalLogPublisher.removeObserver, observer)

    def app(self, options=None):
        from client_pyglet.app import App
        self.clock = Clock()
        app = App(FakeReactor(), self.clock,
                  options or Options(game=None, name=None),
                  config=self.config, hubBrowserFactory=FakeBrowser)
        self.endpoint = FakeEndpoint()
        addSession = app.connection.addSession

        def fakeServer(options):
            session = addSession(options)
            session.endpoint = self.endpoint
            return session
        app.connection.addSession = fakeServer
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

    def type(self, app, field, text):
        self.click(app, "setFocus", field)
        app.scene._fields[field].value = ""
        app.on_text(text)
        self.frame(app)

    def assertNotShown(self, app):
        """
        No label of the scene shows the key.
        """
        self.frame(app)
        for text in labelTexts(app.scene):
            self.assertNotIn(KEY, text)

    def connectAs(self, game):
        """
        On the start screen: choose C{game}, type the name C{alice} and
        the key, connect to a typed address.

        @return: the app and the server's transport.
        """
        app = self.app()
        self.click(app, "choose", game)
        self.type(app, "name", "alice")
        self.type(app, "key", KEY)
        texts = labelTexts(app.scene)
        self.assertIn("*" * len(KEY) + "|", texts)
        self.assertNotShown(app)
        app.scene._fields["address"].value = "127.0.0.1:4000"
        self.click(app, "connectTyped")
        self.frame(app)
        proto, transport = self.endpoint.links[-1]
        return app, transport

    def assertNotLogged(self):
        """
        The client logged the messages it sent or received with its
        keyed name, never with the key.
        """
        self.assertTrue([line for line in self.logged
                         if line.startswith(("-> ", "<- "))
                         and "alice" in line])
        for line in self.logged:
            self.assertNotIn(KEY, line)

    def test_keyRemembered(self):
        """
        The name and key typed are remembered for next time; the start
        screen of the next run has them (the key masked).
        """
        self.connectAs("gomoku")
        saved = UserConfig(self.config.path).load()
        self.assertEqual((saved.get("name"), saved.get("playKey")),
                         ("alice", KEY))
        app = self.app()
        self.assertEqual(app.scene._fields["key"].value, KEY)
        self.assertIn("*" * len(KEY), labelTexts(app.scene))
        self.assertNotShown(app)

    def test_gomoku(self):
        """
        A gomoku client registers as C{alice#KEY}; the screen and the log
        never show the key.
        """
        app, transport = self.connectAs("gomoku")
        self.assertIn(b'"alice#' + KEY.encode() + b'"', transport.value())
        self.assertNotShown(app)
        self.assertNotLogged()

    def test_checkers(self):
        """
        A checkers client joins as C{alice__KEY}; in the room, where the
        server echoes that name back to it, the screen shows C{alice}
        and never the key; the log never has it.
        """
        app, transport = self.connectAs("checkers")
        self.assertEqual(type(app.scene).__name__, "CheckersJoinScene")
        self.assertEqual(app.scene._fields["name"].value, "alice")
        self.assertNotShown(app)
        self.click(app, "join")
        sent = cwire.decode(transport.value().splitlines()[-1] + b"\n")
        self.assertEqual((sent.op, sent.data2),
                         (cwire.JOIN_ROOM_OP, "alice__" + KEY))
        proto, _ = self.endpoint.links[-1]
        proto.dataReceived(cwire.encode(cwire.JOIN_ROOM_REPLY_OP, "bob",
                                        "0"))
        proto.dataReceived(cwire.encode(cwire.PLAYER_READY_OP,
                                        "alice__" + KEY))
        self.frame(app)
        self.assertEqual(type(app.scene).__name__, "CheckersRoomScene")
        texts = " ".join(labelTexts(app.scene))
        self.assertIn("alice", texts)
        self.assertNotShown(app)
        self.assertNotLogged()

    def test_commandLine(self):
        """
        C{--name alice#KEY}, C{--name alice__KEY} and C{--name alice --key
        KEY} all play as C{alice} with the key (which the session sends
        in the keyed form), and neither the title bar nor any label
        shows the key.
        """
        from client_pyglet.__main__ import makeParser, nameAndKey
        for argv in (["--name", "alice#" + KEY], ["--name", "alice__" + KEY],
                     ["--name", "alice", "--key", KEY]):
            args = makeParser().parse_args(["gomoku://127.0.0.1:4000"]
                                           + argv)
            self.assertEqual(nameAndKey(args), ("alice", KEY))
        app = self.app(Options(game="gomoku", host="127.0.0.1", port=4000,
                               name="alice", key=KEY))
        self.frame(app)
        self.assertNotIn(KEY, app.window.caption)
        self.assertIn("alice", app.window.caption)
        self.assertEqual(app.session.options.key, KEY)
        self.assertNotShown(app)
        for line in self.logged:
            self.assertNotIn(KEY, line)
