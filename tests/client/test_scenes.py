"""
The window's scenes wired to the state machines: clicks become protocol
messages.  A real pyglet window on a fake clock and a StringTransport;
they need a display (run under C{xvfb-run -a}) and fail without one.
"""

from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from hub.wire import checkers as cwire
from hub.wire import gomoku as gwire
from hub.wire import splendor as swire

from hub.client import state as S
from hub.client.session import Options
from tests.client.support import FakeEndpoint, take
from tests.client.test_splendor_state import START
from tests.client.test_windows import requireDisplay


class FakeReactor:
    running = False

    def stop(self):
        pass


class SceneTests(SynchronousTestCase):
    """
    Click through each game's screens.
    """

    def setUp(self):
        requireDisplay(self)

    def app(self, game, name="alice"):
        from client_pyglet.app import App
        self.clock = Clock()
        app = App(FakeReactor(), self.clock,
                  Options(game=game, name=name, host="127.0.0.1", port=1))
        self.endpoint = app.session.endpoint = FakeEndpoint()
        app.start()
        self.addCleanup(app.stop, 0)
        self.proto, self.transport = self.endpoint.links[-1]
        return app

    def frame(self, app):
        self.clock.advance(0.05)
        app.pumpOnce()

    def click(self, app, x, y):
        app.on_mouse_motion(x, y, 0, 0)
        app.on_mouse_press(x, y, 1, 0)
        self.frame(app)

    def clickButton(self, app, method):
        """
        Click the hit area whose callback is the scene's C{method}.
        """
        self.frame(app)
        for (x, y, w, h, cb, args) in app.scene._hits:
            if getattr(cb, "__name__", None) == method:
                self.click(app, x + w / 2, y + h / 2)
                return
        self.fail("no %s button on %r" % (method, app.scene))

    def test_gomokuCreateRoom(self):
        """
        Lobby: the Create button sends RO_ROOM_CREATE with the name.
        """
        app = self.app("gomoku")
        take(self.transport)
        self.proto.dataReceived(gwire.encodeMessage(
            gwire.resultMessage(0, 9, 1)))
        take(self.transport)
        self.assertEqual(type(app.scene).__name__, "GomokuLobbyScene")
        self.clickButton(app, "create")
        sent = gwire.decodeMessage(take(self.transport)[1:-1])
        self.assertEqual((sent["type"], sent["room"]["name"]),
                         (gwire.RO_ROOM_CREATE, "alice-room"))

    def gomokuGame(self):
        app = self.app("gomoku", "bob")
        s = app.session.state
        self.proto.dataReceived(gwire.encodeMessage(
            gwire.resultMessage(0, 9, 1)))
        s.joinRoom("r1")
        feed = [gwire.resultMessage(0, 9, 3),
                gwire.roomMessage(1, gwire.roomObject(
                    "r1", "alice", "bob", 16, 3, 1), 9, 3),
                gwire.gameMessage(2, 0, 9, 3)]
        self.proto.dataReceived(b"".join(map(gwire.encodeMessage, feed)))
        take(self.transport)
        self.frame(app)
        return app

    def test_gomokuClickPlaysMove(self):
        """
        Board: a click on a cell on our turn sends msg_move there.
        """
        app = self.gomokuGame()
        self.assertEqual(type(app.scene).__name__, "GomokuGameScene")
        self.click(app, *app.scene.pos(3, 4))
        sent = gwire.decodeMessage(take(self.transport)[1:-1])
        self.assertEqual((sent["msg_type"], sent["x"], sent["y"]),
                         (gwire.MSG_MOVE, 3, 4))

    def test_clickWhenNotAllowed(self):
        """
        Board: with AI 托管 on, or on the other player's turn, a click
        sends nothing and the user is told why.
        """
        app = self.gomokuGame()
        s = app.session.state
        app.session.autoplay.enabled = True
        self.click(app, *app.scene.pos(3, 4))
        self.assertEqual(take(self.transport), b"")
        self.assertEqual(s.messages[-1],
                         ("info", "AI 托管 is on: turn it off to play "
                          "yourself"))
        app.session.autoplay.enabled = False
        self.click(app, *app.scene.pos(3, 4))
        take(self.transport)
        self.proto.dataReceived(gwire.encodeMessage(
            gwire.resultMessage(0, 9, s.session)))
        self.assertFalse(s.isMyTurn())
        self.click(app, *app.scene.pos(5, 5))
        self.assertEqual(take(self.transport), b"")
        self.assertEqual(s.messages[-1], ("error", "wait for your turn"))

    def test_hoverRedraws(self):
        """
        Board: on our turn, moving the pointer to another cell redraws
        the screen (hover marks); within a cell, or on the other
        player's turn, it does not.
        """
        app = self.gomokuGame()
        scene = app.scene
        x, y = scene.pos(3, 4)
        app.on_mouse_motion(x, y, 0, 0)
        self.frame(app)
        app.on_mouse_motion(x + 1, y, 0, 0)
        self.assertFalse(scene.dirty)
        app.on_mouse_motion(*scene.pos(5, 5), 0, 0)
        self.assertTrue(scene.dirty)
        self.click(app, *scene.pos(5, 5))
        s = app.session.state
        self.proto.dataReceived(gwire.encodeMessage(
            gwire.resultMessage(0, 9, s.session)))
        self.assertFalse(s.isMyTurn())
        self.frame(app)
        app.on_mouse_motion(x, y, 0, 0)
        self.assertFalse(scene.dirty)

    def test_autoAndSuggestButtons(self):
        """
        The AI 托管 button turns the local bot on; Suggest sets a hint.
        """
        app = self.gomokuGame()
        self.clickButton(app, "suggest")
        self.assertIsNotNone(app.session.autoplay.hint)
        self.clickButton(app, "toggleAuto")
        self.assertTrue(app.session.autoplay.enabled)
        self.clock.advance(1)
        sent = gwire.decodeMessage(take(self.transport)[1:-1])
        self.assertEqual(sent["msg_type"], gwire.MSG_MOVE)

    def test_checkersReadyAndMove(self):
        """
        Room: Ready sends PLAYER_READY_OP.  Board: a click on our piece
        then on a lit destination sends the path.
        """
        app = self.app("checkers")
        s = app.session.state
        s.join("r1")
        self.proto.dataReceived(cwire.encode(cwire.JOIN_ROOM_REPLY_OP,
                                             "bob", "1"))
        take(self.transport)
        self.assertEqual(type(app.scene).__name__, "CheckersRoomScene")
        self.clickButton(app, "setReady")
        self.assertEqual(take(self.transport),
                         cwire.encode(cwire.PLAYER_READY_OP, "alice"))
        self.proto.dataReceived(
            cwire.encode(cwire.START_GAME_OP, "bob alice", "A D")
            + cwire.encode(cwire.START_TURN_OP, "A", "1656403200")
            + cwire.encode(cwire.MOVE_OP, "A", "-2 6 0 4")
            + cwire.encode(cwire.START_TURN_OP, "D", "1656403207"))
        self.frame(app)
        scene = app.scene
        self.assertEqual(type(scene).__name__, "CheckersGameScene")
        self.click(app, *scene.pos((3, -6)))
        self.assertEqual(scene.selected, (3, -6))
        self.click(app, *scene.pos((3, -4)))
        self.assertEqual(take(self.transport),
                         cwire.encode(cwire.MOVE_OP, "D", "3 -6 3 -4"))

    def test_splendorTakeGems(self):
        """
        Table: Ready.  Game: three gems clicked, then Take gems, sends
        get_gems.
        """
        app = self.app("splendor")
        self.proto.dataReceived(
            swire.packFrame(swire.INIT_RESP, 1, swire.initRespBody(1, [2])))
        take(self.transport)
        self.clickButton(app, "setReady")
        self.assertEqual(take(self.transport),
                         swire.packClientFrame(swire.PLAYER_READY, 1))
        self.proto.dataReceived(
            swire.packFrame(swire.GAME_START, 0, START)
            + swire.packFrame(swire.NEW_TURN, 0, swire.newTurnBody(1)))
        self.frame(app)
        scene = app.scene
        picks = [hit for hit in scene._hits
                 if getattr(hit[4], "__name__", "") == "pick"]
        for (x, y, w, h, cb, args) in picks[:3]:
            self.click(app, x + w / 2, y + h / 2)
        self.clickButton(app, "take")
        self.assertEqual(app.session.state.phase, S.GAME)
        self.assertEqual(take(self.transport), swire.packClientFrame(
            swire.PLAYER_OPERATION, 1, swire.getGemsBody(
                1, [("diamond", 1), ("emerald", 1), ("sapphire", 1)])))


class ConnectingTests(SynchronousTestCase):
    """
    The waiting screen while no server answers.
    """

    def setUp(self):
        requireDisplay(self)

    def test_attemptsShownAndEscapeQuits(self):
        """
        With no server the session keeps trying; the waiting screen shows
        the attempt count, and Escape stops the client cleanly.
        """
        from pyglet.window import key

        from client_pyglet.app import App
        clock = Clock()
        app = App(FakeReactor(), clock,
                  Options(game="gomoku", name="alice", host="127.0.0.1",
                          port=1))
        endpoint = app.session.endpoint = FakeEndpoint(refuse=True)
        app.start()
        self.addCleanup(app.stop, 0)
        for _ in range(20):
            clock.advance(0.5)
            app.pumpOnce()
        self.assertGreater(endpoint.attempts, 3)
        self.assertEqual(type(app.scene).__name__, "WaitScene")
        labels = [getattr(item, "text", "") for item in app.scene._keep]
        self.assertTrue(
            [t for t in labels if "(attempt %d:" % (app.session.attempts,)
             in t], labels)
        app.on_key_press(key.ESCAPE, 0)
        self.assertEqual(app.exitCode, 0)
        self.assertFalse(app.session.service.running)
        attempts = endpoint.attempts
        clock.advance(60)
        self.assertEqual(endpoint.attempts, attempts)
