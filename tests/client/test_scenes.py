"""
The window's scenes wired to the state machines: clicks become protocol
messages.  A real pyglet window on a fake clock and a StringTransport;
they need a display (run under C{xvfb-run -a}) and fail without one.
"""

import os
import shutil
import tempfile

import pyglet

from twisted.internet import defer
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from hub.wire import checkers as cwire
from hub.wire import gomoku as gwire
from hub.wire import splendor as swire

from client_pyglet.scenes.base import contains, overlaps
from hub.client import state as S
from hub.client.session import Options
from tests.client.support import FakeEndpoint, take
from tests.client.test_splendor_state import START
from tests.client.test_windows import requireDisplay


def labelTexts(scene):
    """
    The texts of the labels in C{scene}'s last build.
    """
    return [obj.text for obj in scene._keep
            if isinstance(obj, pyglet.text.Label)]


class FakeReactor:
    running = False

    def stop(self):
        pass


class Screens:
    """
    A client window on a fake clock, talking to a StringTransport.
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

    def checkersRoom(self):
        app = self.app("checkers")
        app.session.state.join("r1")
        self.proto.dataReceived(cwire.encode(cwire.JOIN_ROOM_REPLY_OP,
                                             "bob", "1"))
        take(self.transport)
        return app

    def checkersGame(self, app=None):
        """
        A two-player checkers game (bob A, alice D), alice to move.
        """
        app = app or self.checkersRoom()
        self.proto.dataReceived(
            cwire.encode(cwire.START_GAME_OP, "bob alice", "A D")
            + cwire.encode(cwire.START_TURN_OP, "A", "1656403200")
            + cwire.encode(cwire.MOVE_OP, "A", "-2 6 0 4")
            + cwire.encode(cwire.START_TURN_OP, "D", "1656403207"))
        self.frame(app)
        return app


class SceneTests(Screens, SynchronousTestCase):
    """
    Click through each game's screens.
    """

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

    def gomokuGuestRoom(self):
        """
        bob is ready in alice's room r1; he plays black.
        """
        app = self.app("gomoku", "bob")
        s = app.session.state
        self.proto.dataReceived(gwire.encodeMessage(
            gwire.resultMessage(0, 9, 1)))
        s.joinRoom("r1")
        feed = [gwire.resultMessage(0, 9, 3),
                gwire.roomMessage(1, gwire.roomObject(
                    "r1", "alice", "bob", 16, 3, 1), 9, 3)]
        self.proto.dataReceived(b"".join(map(gwire.encodeMessage, feed)))
        take(self.transport)
        self.frame(app)
        return app

    def gomokuGame(self):
        app = self.gomokuGuestRoom()
        self.proto.dataReceived(gwire.encodeMessage(
            gwire.gameMessage(2, 0, 9, 3)))
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

    def test_suggestFailureLogged(self):
        """
        A failure while showing a suggestion is logged, not lost in its
        Deferred.
        """
        app = self.gomokuGame()
        app.session.autoplay.suggest = lambda: defer.fail(
            RuntimeError("no bot"))
        self.clickButton(app, "suggest")
        self.assertEqual(len(self.flushLoggedErrors(RuntimeError)), 1)

    def test_checkersReadyAndMove(self):
        """
        Room: Ready sends PLAYER_READY_OP.  Board: a click on our piece
        then on a lit destination sends the path.
        """
        app = self.checkersRoom()
        self.assertEqual(type(app.scene).__name__, "CheckersRoomScene")
        self.clickButton(app, "setReady")
        self.assertEqual(take(self.transport),
                         cwire.encode(cwire.PLAYER_READY_OP, "alice"))
        self.checkersGame(app)
        scene = app.scene
        self.assertEqual(type(scene).__name__, "CheckersGameScene")
        self.click(app, *scene.pos((3, -6)))
        self.assertEqual(scene.selected, (3, -6))
        self.click(app, *scene.pos((3, -4)))
        self.assertEqual(take(self.transport),
                         cwire.encode(cwire.MOVE_OP, "D", "3 -6 3 -4"))

    def test_checkersMessageClearOfPanels(self):
        """
        The message line (e.g. "All your pieces are home!") lies below
        the board's panel and the side panel, not across their edges.
        """
        app = self.checkersGame()
        app.session.state.notify("All your pieces are home!")
        self.frame(app)
        scene = app.scene
        self.assertIsNotNone(scene.messageRect)
        self.assertFalse(overlaps(scene.messageRect, scene.boardRect))
        self.assertFalse(overlaps(scene.messageRect, scene.sideRect))
        w, h = scene.width, scene.height
        self.assertTrue(contains((0, 0, w, h - 44), scene.boardRect))
        self.assertTrue(contains((0, 0, w, h - 44), scene.sideRect))

    def test_checkersHintHiddenWhileAutoPlay(self):
        """
        "Click one of your pieces..." is shown while we play ourselves,
        not while AI 托管 plays for us.
        """
        hint = "Click one of your pieces, then a green target."
        app = self.checkersGame()
        self.assertIn(hint, labelTexts(app.scene))
        self.clickButton(app, "toggleAuto")
        self.assertTrue(app.session.autoplay.enabled)
        self.frame(app)
        self.assertNotIn(hint, labelTexts(app.scene))
        self.clickButton(app, "toggleAuto")
        self.frame(app)
        self.assertIn(hint, labelTexts(app.scene))

    def test_roomButtonsOneFontSize(self):
        """
        The buttons in a row of a room screen (gomoku owner and guest,
        checkers, Splendor) share one font size.
        """
        def sizesByRow(app):
            self.frame(app)
            rows = {}
            for b in app.scene.buttons:
                rows.setdefault(b.rect[1], set()).add(b.size)
            return rows
        owner = self.gomokuOwnerRoom()
        self.assertEqual(type(owner.scene).__name__, "GomokuRoomScene")
        labels = [b.label for b in owner.scene.buttons]
        self.assertIn("Start game", labels)
        self.assertIn("Switch colour", labels)
        guest = self.gomokuGuestRoom()
        self.assertEqual(type(guest.scene).__name__, "GomokuRoomScene")
        checkers = self.checkersRoom()
        splendor = self.splendorTable()
        for app in (owner, guest, checkers, splendor):
            for y, sizes in sizesByRow(app).items():
                self.assertEqual(len(sizes), 1, "%r: %r" % (
                    app.scene, app.scene.buttons))

    def gomokuOwnerRoom(self):
        """
        alice owns room r1; her guest bob is ready.
        """
        app = self.app("gomoku", "alice")
        self.proto.dataReceived(gwire.encodeMessage(
            gwire.resultMessage(0, 9, 1)))
        self.proto.dataReceived(gwire.encodeMessage(gwire.roomMessage(
            gwire.RI_PLAYER_JOIN, gwire.roomObject(
                "r1", "alice", "bob", 16, 3, 1), 9, 2)))
        take(self.transport)
        self.frame(app)
        return app

    def test_gomokuWinningFiveMarked(self):
        """
        A game won by five in a row ends with the five marked: a ring on
        each of its stones.  While the game runs nothing is marked.
        """
        app = self.gomokuGame()
        s = app.session.state
        for i in range(5):
            s.move(3 + i, 7)
            self.proto.dataReceived(gwire.encodeMessage(
                gwire.resultMessage(0, 9, s.session)))
            if i < 4:
                self.proto.dataReceived(gwire.encodeMessage(
                    gwire.moveMessage(0, 3 + i, 9, 9, 0)))
            self.frame(app)
            self.assertEqual(app.scene.winningCells, [])
        take(self.transport)
        self.proto.dataReceived(gwire.encodeMessage(
            gwire.gameMessage(gwire.GAME_STATE_END, 1, 9, 0)))
        self.frame(app)
        scene = app.scene
        self.assertEqual(s.phase, S.OVER)
        five = [(x, 7) for x in range(3, 8)]
        self.assertEqual(scene.winningCells, five)
        rings = {(round(a.x), round(a.y)) for a in scene._keep
                 if isinstance(a, pyglet.shapes.Arc)}
        for cell in five:
            x, y = scene.pos(*cell)
            self.assertIn((round(x), round(y)), rings)
        self.assertNotIn(tuple(map(round, scene.pos(3, 9))), rings)

    def test_gomokuEndWithoutFive(self):
        """
        A game that ends without five in a row (a timeout, a forfeit)
        marks nothing.
        """
        app = self.gomokuGame()
        s = app.session.state
        s.move(7, 7)
        self.proto.dataReceived(gwire.encodeMessage(
            gwire.resultMessage(0, 9, s.session)))
        self.proto.dataReceived(gwire.encodeMessage(
            gwire.gameMessage(gwire.GAME_STATE_END, 1, 9, 0)))
        self.frame(app)
        self.assertEqual(s.phase, S.OVER)
        self.assertEqual(app.scene.winningCells, [])

    def splendorTable(self):
        app = self.app("splendor")
        self.proto.dataReceived(
            swire.packFrame(swire.INIT_RESP, 1, swire.initRespBody(1, [2])))
        take(self.transport)
        self.frame(app)
        return app

    def splendorGame(self, start=START):
        """
        A Splendor game of players 2 and 1 (us), our turn.
        """
        app = self.splendorTable()
        self.proto.dataReceived(
            swire.packFrame(swire.GAME_START, 0, start)
            + swire.packFrame(swire.NEW_TURN, 0, swire.newTurnBody(1)))
        self.frame(app)
        return app

    def test_splendorButtonsInsidePanel(self):
        """
        Every button of the action panel (Suggest and AI 托管 included)
        lies inside the panel, on our turn, on the other's turn, and at
        the end (New game).
        """
        app = self.splendorGame()

        def check():
            self.frame(app)
            scene = app.scene
            self.assertTrue(scene.buttons)
            for b in scene.buttons:
                self.assertTrue(contains(scene.actionsRect, b.rect),
                                "%r sticks out of the panel %r" % (
                                    b, scene.actionsRect))
            return [b.label for b in scene.buttons]
        self.assertIn("Suggest", check())
        self.proto.dataReceived(
            swire.packFrame(swire.NEW_TURN, 0, swire.newTurnBody(2)))
        self.assertIn("Suggest", check())
        self.proto.dataReceived(swire.packFrame(swire.WINNER, 2))
        self.assertEqual(app.session.state.phase, S.OVER)
        self.assertEqual(check(), ["New game"])

    def test_splendorNoblesLabel(self):
        """
        "Nobles" labels the nobles; once none are left the label says
        so instead of heading an empty area.
        """
        app = self.splendorGame()
        self.assertIn("Nobles", labelTexts(app.scene))
        self.assertNotIn("no nobles left", labelTexts(app.scene))
        app = self.splendorGame(dict(START, nobles_info=[]))
        self.assertEqual(app.session.state.table.nobles, [])
        self.assertNotIn("Nobles", labelTexts(app.scene))
        self.assertIn("no nobles left", labelTexts(app.scene))

    def test_splendorTakeGems(self):
        """
        Table: Ready.  Game: three gems clicked, then Take gems, sends
        get_gems.
        """
        app = self.splendorTable()
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


class DrawingTests(Screens, SynchronousTestCase):
    """
    The window is drawn when what it shows may have changed, not every
    frame: a client left open on a screen that does not change does not
    draw it 60 times a second.
    """

    def quiet(self, app):
        """
        Let the window be drawn by the idle rule, so that nothing is due.
        """
        from client_pyglet.app import IDLE_DRAW_SECONDS
        self.clock.advance(IDLE_DRAW_SECONDS)

    def idleFrames(self, app, count=3):
        """
        Let the app's pump run C{count} frames (within the idle rule's
        time); how many were drawn.
        """
        from client_pyglet.app import FRAME_SECONDS
        drawn = app.framesDrawn
        for _ in range(count):
            # Each step passes one of the pump's times, never two.
            self.clock.advance(FRAME_SECONDS * 1.01)
        return app.framesDrawn - drawn

    def test_unchangedNotDrawn(self):
        """
        Frames in which nothing changed are not drawn, but the window is
        still drawn every L{IDLE_DRAW_SECONDS} (a countdown, a message
        that expires).
        """
        from client_pyglet.app import IDLE_DRAW_SECONDS
        app = self.app("gomoku")
        self.quiet(app)
        self.assertEqual(self.idleFrames(app), 0)
        drawn = app.framesDrawn
        self.clock.advance(IDLE_DRAW_SECONDS)
        self.assertEqual(app.framesDrawn, drawn + 1)

    def test_stateEventDrawn(self):
        """
        A message from the server that changes the scene is drawn in the
        next frame.
        """
        app = self.checkersRoom()
        self.quiet(app)
        self.proto.dataReceived(cwire.encode(cwire.JOIN_ROOM_REPLY_OP,
                                             "carol", "2"))
        self.assertEqual(self.idleFrames(app, 1), 1)
        self.assertEqual(self.idleFrames(app), 0)

    def test_inputDrawn(self):
        """
        A key press or a click is drawn in the next frame.
        """
        from pyglet.window import key
        app = self.app("gomoku")
        self.quiet(app)
        app.on_key_press(key.A, 0)
        self.assertEqual(self.idleFrames(app, 1), 1)
        app.on_mouse_press(1, 1, 1, 0)
        self.assertEqual(self.idleFrames(app, 1), 1)
        app.on_expose()
        self.assertEqual(self.idleFrames(app, 1), 1)
        self.assertEqual(self.idleFrames(app), 0)

    def test_animationDrawnEveryFrame(self):
        """
        While a checkers move is animated, every frame is drawn; once it
        has ended, frames are not.
        """
        from client_pyglet.scenes.checkers import HOP_SECONDS
        app = self.checkersGame()
        self.quiet(app)
        self.proto.dataReceived(
            cwire.encode(cwire.MOVE_OP, "A", "0 4 0 3")
            + cwire.encode(cwire.START_TURN_OP, "A", "1656403208"))
        self.assertTrue(app.scene.animating())
        self.assertEqual(self.idleFrames(app, 5), 5)
        self.clock.advance(HOP_SECONDS)
        self.assertFalse(app.scene.animating())
        # The board without the moving piece's animation, once.
        self.assertEqual(self.idleFrames(app, 1), 1)
        self.assertEqual(self.idleFrames(app), 0)

    def test_screenshotDrawn(self):
        """
        A screenshot asked for is drawn (and saved) in the next frame.
        """
        app = self.app("gomoku")
        self.quiet(app)
        folder = tempfile.mkdtemp(prefix="gamehub-shot-")
        self.addCleanup(shutil.rmtree, folder, True)
        path = os.path.join(folder, "shot.png")
        saved = []
        app.screenshot(path).addCallback(saved.append)
        self.assertEqual(self.idleFrames(app, 1), 1)
        self.assertEqual(saved, [path])
        self.assertTrue(os.path.exists(path))


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
