"""
The window, scene switching, and the pump that lets Twisted own the loop.

Twisted's reactor runs the program; a L{LoopingCall} on the injected clock
ticks pyglet's clock and, for each window, switches to it, dispatches its
events, draws it (C{on_draw}) and flips it, about 60 times a second.
"""

import dataclasses
import sys

import pyglet
from pyglet.window import key
from twisted.internet import defer
from twisted.internet.task import LoopingCall
from twisted.logger import Logger

from hub.client import events as E
from hub.client import hotseat
from hub.client import state as S
from hub.client.session import ClientSession, Options
from hub.client.userdirs import UserConfig

__all__ = ["App", "Options"]

FRAME_SECONDS = 1 / 60.0
#: Wait this long after the end of a game before the screenshot, so that
#: the last move's animation and the result banner are on screen.
SCREENSHOT_DELAY = 1.5


class App:
    """
    The desktop client: one window showing the scene of the session's
    phase.

    @ivar exitCode: the process exit status once the reactor stopped.
    """

    log = Logger()

    def __init__(self, reactor, clock, options, windowFactory=None,
                 config=None, hubBrowserFactory=None):
        self.reactor = reactor
        self.clock = clock
        self.options = options
        self.exitCode = 0
        self.window = None
        self.scene = None
        self.config = config if config is not None else UserConfig()
        if not options.name:
            options.name = self.config.get("name") or "player"
        self._windowFactory = windowFactory or self._makeWindow
        self._hubBrowserFactory = hubBrowserFactory
        self.hubBrowser = None
        self._pump = None
        self._screenshotDue = None
        self._screenshotWaiting = []
        self._stopping = False
        self._overShown = False
        self.session = None
        self.sessions = []
        self.offlineHub = None
        self.offlineBots = None
        self.offlinePlan = None
        self.watcher = None
        self.watchRoot = None
        self.watchBack = None
        if options.game and not options.offline and not options.watch:
            self.addSession(options)

    def addSession(self, options):
        """
        A new L{ClientSession} for C{options}, shown if it is the first.
        """
        session = ClientSession(self.reactor, self.clock, options)
        session.onGameOver = lambda: self._gameOver(session)
        session.onFatal = self._fatal
        session.state.subscribe(
            lambda event: self._stateEvent(session, event))
        self.sessions.append(session)
        if self.session is None:
            self.session = session
        return session

    @property
    def hotSeat(self):
        """
        Whether several people play at this screen.
        """
        return hotseat.isHotSeat(self.sessions)

    def _makeWindow(self):
        o = self.options
        title = "gamehub: %s (%s)" % (o.game, o.name)
        return pyglet.window.Window(o.size[0], o.size[1], caption=title,
                                    resizable=False, vsync=False)

    def start(self):
        """
        Open the window, start the pump and connect.
        """
        self.window = self._windowFactory()
        self.window.push_handlers(self)
        self._pump = LoopingCall(self.pumpOnce)
        self._pump.clock = self.clock
        self._pump.start(FRAME_SECONDS, now=True).addErrback(self._pumpDied)
        o = self.options
        if self.session is not None:
            self.showSceneFor(self.session.state.phase)
            self.session.start()
        elif o.watch:
            self.watchURL(o.watch)
        elif o.offline:
            self.showOfflineSetup(o.offline)
            if o.bot:
                self.scene.play()
        else:
            self.showStart()
        if o.screenshot and o.screenshotAfter is not None:
            self.clock.callLater(o.screenshotAfter, self.screenshot,
                                 o.screenshot)

    def screenshot(self, path):
        """
        Save the window to C{path} after the next frame is drawn.

        @return: a Deferred firing once it is saved.
        """
        self._screenshotDue = path
        saved = defer.Deferred()
        self._screenshotWaiting.append(saved)
        return saved

    def _pumpDied(self, failure):
        self.log.failure("pump failed", failure)
        self.stop(1)

    def pumpOnce(self):
        """
        One frame: tick pyglet's clock, then dispatch, draw and flip every
        window.
        """
        pyglet.clock.tick()
        for window in list(pyglet.app.windows):
            window.switch_to()
            window.dispatch_events()
            if window.has_exit:
                self.stop(0)
                return
            window.dispatch_event("on_draw")
            window.flip()

    # window events (pushed as handlers)
    def on_draw(self):
        self.window.clear()
        if self.scene is not None:
            self.scene.draw()
        if self._screenshotDue is not None:
            path, self._screenshotDue = self._screenshotDue, None
            self._saveScreenshot(path)
            waiting, self._screenshotWaiting = self._screenshotWaiting, []
            for saved in waiting:
                # after this frame: the waiter may close the window
                self.clock.callLater(0, saved.callback, path)

    def on_mouse_press(self, x, y, button, modifiers):
        if self.scene is not None:
            self.scene.onMousePress(x, y, button)

    def on_mouse_motion(self, x, y, dx, dy):
        if self.scene is not None:
            self.scene.onMouseMotion(x, y)

    def on_key_press(self, symbol, modifiers):
        if self.scene is not None:
            handled = self.scene.onKeyPress(symbol, modifiers)
            if handled:
                return handled
        if symbol == key.ESCAPE and (
                self.session is None
                or self.session.state.phase in (S.CONNECTING, S.CLOSED)):
            # there is no start screen to go back to: Escape quits while
            # connecting (the attempts go on until then) or once closed
            self.stop(0)
            return pyglet.event.EVENT_HANDLED
        return None

    def on_text(self, text):
        if self.scene is not None:
            self.scene.onText(text)

    def on_close(self):
        self.stop(0)
        return pyglet.event.EVENT_HANDLED

    # scenes
    def _stateEvent(self, session, event):
        if session not in self.sessions:
            return
        if session is self.session:
            if isinstance(event, E.PhaseChanged):
                self.showSceneFor(event.new)
            elif self.scene is not None:
                self.scene.stateEvent(event)
        # a hot seat shows the seat to move
        shown = hotseat.sessionToShow(self.session, self.sessions)
        if shown is not self.session:
            self.showSession(shown)

    def showSession(self, session):
        """
        Show the screens of C{session} (hot seat: the player to move).
        """
        self.session = session
        if self.scene is not None:
            self.scene.close()
            self.scene = None
        self.showSceneFor(session.state.phase)

    def showSceneFor(self, phase):
        """
        Show the scene that fits C{phase} of the session's game.
        """
        from client_pyglet.scenes import sceneFor
        cls = sceneFor(self.session.options.game, phase)
        self.showScene(cls)

    def showScene(self, cls, *args):
        """
        Show a scene of class C{cls} (kept if it is shown already).
        """
        if self.scene is not None and type(self.scene) is cls \
                and not args:
            self.scene.invalidate()
            return
        if self.scene is not None:
            self.scene.close()
        self.scene = cls(self, *args)

    def showStart(self):
        """
        The start screen: games, name, hubs, Play offline.
        """
        from client_pyglet.scenes.start import StartScene
        if self.hubBrowser is None:
            self.hubBrowser = self._startHubBrowser()
        self.showScene(StartScene)

    def _startHubBrowser(self):
        factory = self._hubBrowserFactory
        if factory is None:
            from client_pyglet.lan import defaultHubBrowser as factory
        try:
            return factory(self.reactor, self._hubsChanged)
        except Exception:
            self.log.failure("LAN discovery failed")
            return None

    def _hubsChanged(self, *args):
        if self.scene is not None:
            self.scene.invalidate()

    def showOfflineSetup(self, game):
        """
        The screen where an offline game is set up.
        """
        from client_pyglet.scenes.offline import OfflineSetupScene
        self.options.game = game
        self.showScene(OfflineSetupScene, game)

    def connect(self, game, host, port, name):
        """
        Leave the start screen for the lobby of C{game} at C{host:port}.
        """
        self._stopHubBrowser()
        self.options = dataclasses.replace(
            self.options, game=game, host=host, port=port, name=name,
            offline=None)
        session = self.addSession(self.options)
        self.showSession(session)
        session.start()

    def _stopHubBrowser(self):
        if self.hubBrowser is not None:
            stop = getattr(self.hubBrowser, "stop", None)
            if stop is not None:
                stop()
            self.hubBrowser = None

    # watching
    def showWatchList(self, root):
        """
        The games of the hub whose web face is at C{root}, to watch.
        """
        from client_pyglet.scenes.watch import WatchListScene
        self._stopHubBrowser()
        self._stopWatcher()
        self.watchRoot = root
        self.showScene(WatchListScene, root)

    def watchURL(self, url):
        """
        Watch the game at C{url} (C{http://HOST:PORT/games/ID}).
        """
        from hub.client.webapi import parseWatchURL
        root, gameId = parseWatchURL(url)
        self.watchGame(root, gameId)

    def watchGame(self, root, gameId, back=None):
        """
        Watch game C{gameId} of the hub whose web face is at C{root}: live
        while it runs, then its replay.

        @param back: the web root whose games list to go back to, or None
            to quit when the user leaves.
        """
        from hub.client.watch import GameWatcher
        from client_pyglet.scenes.watch import WatchWaitScene
        self._stopHubBrowser()
        self._stopWatcher()
        self.watchRoot = root
        self.watchBack = back
        self._overShown = False
        self.watcher = GameWatcher(self.reactor, self.clock, root, gameId)
        self.watcher.game.subscribe(self._watchEvent)
        self.showScene(WatchWaitScene, self.watcher.game)
        return self.watcher.start()

    def _watchEvent(self, event):
        from client_pyglet.scenes.watch import WATCH_SCENES
        game = self.watcher.game if self.watcher is not None else None
        if game is None or not game.loaded:
            return
        cls = WATCH_SCENES[game.kind]
        if type(self.scene) is not cls:
            self.showScene(cls, game)
        if isinstance(event, E.ReplayLoaded):
            self._watchOver(game)

    def _watchOver(self, game):
        if self._overShown:
            return
        self._overShown = True
        if self.options.exitAfterGame:
            sys.stdout.write("watched: %s\n" % (game.resultText(),))
            sys.stdout.flush()
        if self.options.screenshot or self.options.exitAfterGame:
            self.clock.callLater(SCREENSHOT_DELAY, self._finish)

    def stopWatching(self):
        """
        Leave the game watched: back to the hub's games, or quit.
        """
        back = self.watchBack
        self._stopWatcher()
        if back is not None:
            self.showWatchList(back)
        else:
            self.stop(0)

    def _stopWatcher(self):
        if self.watcher is not None:
            self.watcher.game.unsubscribe(self._watchEvent)
            self.watcher.stop()
            self.watcher = None

    # offline
    def startOffline(self, plan):
        """
        Start the hub in our reactor and seat the players of C{plan}.

        @return: a Deferred firing once everyone is seated.
        """
        from hub.client.offline import OfflineHub
        from hub.client.userdirs import recordsURL
        from client_pyglet.scenes.base import NoticeScene
        self._stopHubBrowser()
        self.offlinePlan = plan
        o = self.options
        self.showScene(NoticeScene, "Starting the offline hub ...")
        dbURL = o.records or recordsURL()
        if dbURL.strip().lower() == "none":
            dbURL = None
        self.offlineHub = OfflineHub(self.reactor, dbURL=dbURL,
                                     turnSeconds=o.turnSeconds)
        d = self.offlineHub.start()
        d.addCallback(self._seatOffline, plan)
        d.addErrback(self._offlineFailed)
        return d

    def _seatOffline(self, ports, plan):
        from hub.client.botseats import BOT_SEAT_DELAY, BotSeats, whenInRoom
        from hub.client.offline import LOOPBACK, seatPlayers
        o = self.options
        room = "offline"
        port = ports[plan.game]
        delay = BOT_SEAT_DELAY if o.botDelay is None else o.botDelay
        self.offlineBots = BotSeats(self.reactor, plan.game, LOOPBACK, port,
                                    delay=delay)
        humans = []

        def seatHuman(index, seat):
            number = len(humans) + 1
            name = seat.name or (o.name if number == 1 else
                                 "%s%d" % (o.name, number))
            options = dataclasses.replace(
                o, game=plan.game, host=LOOPBACK, port=port, name=name,
                room=room, ready=True, players=plan.count,
                bot=o.bot,
                colour=plan.colour)
            if number == 1:
                self.options = options
            session = self.addSession(options)
            humans.append(session)
            if session is self.session:
                self.showSession(session)
            session.start()
            return whenInRoom(session.state)
        return seatPlayers(plan, self.offlineBots, seatHuman, room)

    def endOffline(self):
        """
        Close the offline game (its sessions, bots and hub) and go back
        to its setup screen, for another game.
        """
        game = self.offlinePlan.game
        for session in self.sessions:
            session.stop()
        self.sessions = []
        self.session = None
        if self.offlineBots is not None:
            self.offlineBots.stop()
            self.offlineBots = None
        if self.offlineHub is not None:
            self.offlineHub.stop()
            self.offlineHub = None
        self.offlinePlan = None
        self._overShown = False
        self.options.offline = game
        self.showOfflineSetup(game)

    def _offlineFailed(self, failure):
        self.log.failure("offline game failed", failure)
        self._fatal("offline game failed: %s" % (
            failure.getErrorMessage(),))

    # the end
    def _gameOver(self, session=None):
        if self._overShown:
            return
        self._overShown = True
        line = resultLine((session or self.session).state)
        if line and self.options.exitAfterGame:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()
        if self.options.screenshot or self.options.exitAfterGame:
            self.clock.callLater(SCREENSHOT_DELAY, self._finish)

    def _finish(self):
        if self.options.screenshot and self.options.screenshotAfter is None:
            self._screenshotDue = self.options.screenshot
            # the next frame draws and saves; then we may stop
            self.clock.callLater(FRAME_SECONDS * 3, self._afterShot)
        else:
            self._afterShot()

    def _afterShot(self):
        if self.options.exitAfterGame:
            self.stop(0)

    def _saveScreenshot(self, path):
        try:
            buf = pyglet.image.get_buffer_manager().get_color_buffer()
            buf.save(path)
            self.log.info("screenshot saved to {path}", path=path)
        except Exception:
            self.log.failure("screenshot to {path} failed", path=path)
            self.exitCode = 1

    def _fatal(self, text):
        sys.stderr.write("client_pyglet: %s\n" % (text,))
        if self.options.exitAfterGame:
            self.stop(1)

    def stop(self, code):
        """
        Close the window and stop the reactor with exit status C{code}.
        """
        if self._stopping:
            return
        self._stopping = True
        if code and not self.exitCode:
            self.exitCode = code
        if self._pump is not None and self._pump.running:
            self._pump.stop()
        self._stopHubBrowser()
        self._stopWatcher()
        if self.scene is not None:
            self.scene.close()
        for session in self.sessions:
            session.stop()
        if self.offlineBots is not None:
            self.offlineBots.stop()
        if self.window is not None:
            self.window.close()
        stopped = None
        if self.offlineHub is not None:
            stopped = self.offlineHub.stop()
        if self.reactor.running:
            if stopped is not None and not stopped.called:
                stopped.addBoth(lambda _: self.reactor.stop())
            else:
                self.reactor.stop()


def resultLine(state):
    """
    One line saying how the game of C{state} ended.
    """
    ranking = getattr(state, "ranking", None)
    if state.game == "checkers":
        return "ranking: %s" % (" ".join(ranking or []),)
    if state.game == "gomoku":
        return "result: %s" % (getattr(state, "result", None),)
    if state.game == "splendor":
        return "winner: %s" % (getattr(state, "winnerId", None),)
    return None
