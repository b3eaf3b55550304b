"""
The window, and the pump that lets Twisted own the loop.

Twisted's reactor runs the program; a L{LoopingCall} on the injected clock
ticks pyglet's clock and, for each window, switches to it and dispatches
its events, about 60 times a second.  The window is drawn (C{on_draw})
and flipped only when what it shows may have changed: its scene must be
rebuilt or is animating, an input or window event came, a screenshot is
due, or L{IDLE_DRAW_SECONDS} have passed (a turn's countdown, a message
that expires).  A client left open on a screen that does not change
costs next to nothing.

The rest has a part each: L{Settings} (the options and what the user's
configuration remembers), L{Navigator} (which scene is shown) and
L{Connection} (the game sessions, the offline hub, the watched game).
"""

import sys

import pyglet
from pyglet.window import key
from twisted.internet import defer
from twisted.internet.task import LoopingCall
from twisted.logger import Logger

from hub.client import state as S
from hub.client.session import Options

from client_pyglet.connection import Connection
from client_pyglet.navigation import Navigator
from client_pyglet.settings import Settings

__all__ = ["App", "Options"]

FRAME_SECONDS = 1 / 60.0
#: With nothing else asking for it, the window is drawn this often.
IDLE_DRAW_SECONDS = 0.25
#: Wait this long after the end of a game before the screenshot, so that
#: the last move's animation and the result banner are on screen.
SCREENSHOT_DELAY = 1.5


class App:
    """
    The desktop client: one window showing the scene of the session's
    phase.

    @ivar settings: the L{Settings}.
    @ivar navigator: the L{Navigator}.
    @ivar connection: the L{Connection}.
    @ivar exitCode: the process exit status once the reactor stopped.
    @ivar overShown: the end of the game (or of the watched game) was
        handled.
    @ivar framesDrawn: how many frames the window was drawn.
    """

    log = Logger()

    def __init__(self, reactor, clock, options, windowFactory=None,
                 config=None, hubBrowserFactory=None):
        self.reactor = reactor
        self.clock = clock
        self.settings = Settings(options, config)
        self.navigator = Navigator(self, hubBrowserFactory)
        self.connection = Connection(self)
        self.exitCode = 0
        self.window = None
        self.overShown = False
        self._windowFactory = windowFactory or self._makeWindow
        self._pump = None
        self._screenshotDue = None
        self._screenshotWaiting = []
        self._stopping = False
        self._drawWanted = True
        self._drawnAt = None
        self.framesDrawn = 0
        if options.game and not options.offline and not options.watch:
            self.connection.addSession(options)

    @property
    def options(self):
        """
        The options in force (L{Settings.options}).
        """
        return self.settings.options

    @property
    def scene(self):
        """
        The scene shown (L{Navigator.scene}).
        """
        return self.navigator.scene

    @property
    def session(self):
        """
        The session shown (L{Connection.session}).
        """
        return self.connection.session

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
            self.navigator.showSceneFor(self.session)
            self.session.start()
        elif o.watch:
            self.connection.watchURL(o.watch)
        elif o.offline:
            self.navigator.showOfflineSetup(o.offline)
            if o.bot:
                self.scene.play()
        else:
            self.navigator.showStart()
        if o.screenshot and o.screenshotAfter is not None:
            self.clock.callLater(o.screenshotAfter, self.screenshotAndQuit,
                                 o.screenshot)

    def screenshotAndQuit(self, path):
        """
        Save the window to C{path}, then quit (C{--screenshot-after}): exit
        status 0, or 1 if it could not be saved.
        """
        d = self.screenshot(path)
        d.addCallback(lambda _: self.stop(self.exitCode))
        return d

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
        One frame: tick pyglet's clock, then dispatch every window's
        events, and draw and flip this app's window if L{drawDue} (any
        other window, always).
        """
        pyglet.clock.tick()
        for window in list(pyglet.app.windows):
            window.switch_to()
            window.dispatch_events()
            if window.has_exit:
                self.stop(0)
                return
            if window is not self.window:
                window.dispatch_event("on_draw")
            elif self.drawDue():
                # Called, not dispatched: outside dispatch_events pyglet
                # queues a dispatched event until the next frame's.
                self.on_draw()
            else:
                continue
            window.flip()

    def drawDue(self):
        """
        Whether the window must be drawn this frame: asked for (an input
        or window event, a screenshot), its scene to be rebuilt or
        animating, or not drawn for L{IDLE_DRAW_SECONDS}.
        """
        scene = self.scene
        # Wanted until the first draw, so _drawnAt is set past this.
        return (self._drawWanted or self._screenshotDue is not None
                or scene is None or scene.changed()
                or self.clock.seconds() - self._drawnAt
                >= IDLE_DRAW_SECONDS)

    def _wantDraw(self):
        """
        Draw the window in the next frame.
        """
        self._drawWanted = True

    # window events (pushed as handlers)
    def on_draw(self):
        self._drawWanted = False
        self._drawnAt = self.clock.seconds()
        self.framesDrawn += 1
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

    def on_expose(self):
        self._wantDraw()

    def on_resize(self, width, height):
        self._wantDraw()

    def on_mouse_press(self, x, y, button, modifiers):
        self._wantDraw()
        if self.scene is not None:
            self.scene.onMousePress(x, y, button)

    def on_mouse_motion(self, x, y, dx, dy):
        # A hover that changes what is shown rebuilds the scene.
        if self.scene is not None:
            self.scene.onMouseMotion(x, y)

    def on_key_press(self, symbol, modifiers):
        self._wantDraw()
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
        self._wantDraw()
        if self.scene is not None:
            self.scene.onText(text)

    def on_close(self):
        self.stop(0)
        return pyglet.event.EVENT_HANDLED

    # the end
    def gameOver(self, session=None):
        """
        A game has ended: print its result line (C{--exit-after-game}),
        then take the screenshot and quit if asked to.
        """
        if self.overShown:
            return
        self.overShown = True
        line = resultLine((session or self.session).state)
        if line and self.options.exitAfterGame:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()
        if self.options.screenshot or self.options.exitAfterGame:
            self.clock.callLater(SCREENSHOT_DELAY, self._finish)

    def watchOver(self, game):
        """
        The watched game C{game} is over and its replay loaded.
        """
        if self.overShown:
            return
        self.overShown = True
        if self.options.exitAfterGame:
            sys.stdout.write("watched: %s\n" % (game.resultText(),))
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

    def fatal(self, text):
        """
        The client cannot go on: say why; with C{--exit-after-game},
        stop with exit status 1.
        """
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
        self.navigator.stopHubBrowser()
        self.connection.stopWatcher()
        self.navigator.stop()
        self.connection.stop()
        if self.window is not None:
            self.window.close()
        stopped = self.connection.stopOfflineHub()
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
