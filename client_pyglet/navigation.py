"""
Which screen the window shows: the scene, the start screen with the
hubs announced on the LAN, and the scene that fits a session's phase.
"""

from twisted.logger import Logger


class Navigator:
    """
    The scenes of one window.

    @ivar app: the L{client_pyglet.app.App}.
    @ivar scene: the scene shown, or None.
    @ivar hubBrowser: the LAN browser of the start screen while it is
        shown, or None.
    """

    log = Logger()

    def __init__(self, app, hubBrowserFactory=None):
        self.app = app
        self.scene = None
        self.hubBrowser = None
        self._hubBrowserFactory = hubBrowserFactory

    def showScene(self, cls, *args):
        """
        Show a scene of class C{cls} (kept if it is shown already).
        """
        if self.scene is not None and type(self.scene) is cls \
                and not args:
            self.scene.invalidate()
            return
        self.closeScene()
        self.scene = cls(self.app, *args)

    def closeScene(self):
        """
        Close the scene shown, if any.
        """
        if self.scene is not None:
            self.scene.close()
            self.scene = None

    def showSceneFor(self, session):
        """
        Show the scene that fits the phase of C{session}'s game.
        """
        from client_pyglet.scenes import sceneFor
        self.showScene(sceneFor(session.options.game, session.state.phase))

    def showSession(self, session):
        """
        Show C{session}'s screens afresh (another seat of a hot seat).
        """
        self.closeScene()
        self.showSceneFor(session)

    def showStart(self):
        """
        The start screen: games, name, hubs, Play offline.
        """
        from client_pyglet.scenes.start import StartScene
        if self.hubBrowser is None:
            self.hubBrowser = self._startHubBrowser()
        self.showScene(StartScene)

    def showOfflineSetup(self, game):
        """
        The screen where an offline game of C{game} is set up.
        """
        from client_pyglet.scenes.offline import OfflineSetupScene
        self.app.settings.options.game = game
        self.showScene(OfflineSetupScene, game)

    def _startHubBrowser(self):
        factory = self._hubBrowserFactory
        if factory is None:
            from client_pyglet.lan import defaultHubBrowser as factory
        try:
            return factory(self.app.reactor, self.hubsChanged)
        except Exception:
            self.log.failure("LAN discovery failed")
            return None

    def hubsChanged(self, *args):
        """
        The hubs on the LAN changed: redraw.
        """
        if self.scene is not None:
            self.scene.invalidate()

    def stopHubBrowser(self):
        """
        Stop looking for hubs on the LAN.
        """
        if self.hubBrowser is not None:
            stop = getattr(self.hubBrowser, "stop", None)
            if stop is not None:
                stop()
            self.hubBrowser = None

    def stop(self):
        """
        Stop the LAN browser and close the scene.
        """
        self.stopHubBrowser()
        if self.scene is not None:
            self.scene.close()
