"""
The window, scene switching, and the pump that lets Twisted own the loop.

Twisted's reactor runs the program; a L{LoopingCall} on the injected clock
ticks pyglet's clock and, for each window, switches to it, dispatches its
events, draws it (C{on_draw}) and flips it, about 60 times a second.
"""

import sys

import pyglet
from pyglet.window import key
from twisted.internet.task import LoopingCall
from twisted.logger import Logger

from hub.client import state as S
from hub.client.session import ClientSession, Options

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

    def __init__(self, reactor, clock, options, windowFactory=None):
        self.reactor = reactor
        self.clock = clock
        self.options = options
        self.exitCode = 0
        self.window = None
        self.scene = None
        self._windowFactory = windowFactory or self._makeWindow
        self._pump = None
        self._screenshotDue = None
        self._stopping = False
        self.session = ClientSession(reactor, clock, options)
        self.session.onGameOver = self._gameOver
        self.session.onFatal = self._fatal
        self.session.state.subscribe(self._stateEvent)

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
        self.showSceneFor(self.session.state.phase)
        self.session.start()
        o = self.options
        if o.screenshot and o.screenshotAfter is not None:
            self.clock.callLater(o.screenshotAfter, self.screenshot,
                                 o.screenshot)

    def screenshot(self, path):
        """
        Save the window to C{path} after the next frame is drawn.
        """
        self._screenshotDue = path

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
        if symbol == key.ESCAPE and \
                self.session.state.phase in (S.CONNECTING, S.CLOSED):
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
    def _stateEvent(self, event, **details):
        if event == "phase":
            self.showSceneFor(details["new"])
        elif self.scene is not None:
            self.scene.stateEvent(event, details)

    def showSceneFor(self, phase):
        """
        Show the scene that fits C{phase} of the session's game.
        """
        from client_pyglet.scenes import sceneFor
        cls = sceneFor(self.options.game, phase)
        if self.scene is not None and type(self.scene) is cls:
            self.scene.invalidate()
            return
        if self.scene is not None:
            self.scene.close()
        self.scene = cls(self)

    # the end
    def _gameOver(self):
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
        self.session.stop()
        if self.window is not None:
            self.window.close()
        if self.reactor.running:
            self.reactor.stop()
