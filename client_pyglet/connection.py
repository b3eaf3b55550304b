"""
What the desktop client is connected to: the game sessions (one, or
several at a hot seat), the offline hub in our own reactor with its
bots, and a game watched through a hub's web face.
"""

import dataclasses

from twisted.logger import Logger

from hub.client.i18n import _
from hub.client import events as E
from hub.client import hotseat
from hub.client.session import ClientSession


class Connection:
    """
    The sessions, the offline game and the watched game of one window.

    @ivar app: the L{client_pyglet.app.App}.
    @ivar session: the session shown (hot seat: the seat to move).
    @ivar sessions: every session, the first one first.
    @ivar offlineHub: the L{hub.client.localhub.OfflineHub}, or None.
    @ivar offlineBots: the bots of the offline game, or None.
    @ivar offlinePlan: the offline game's plan, or None.
    @ivar watcher: the L{hub.client.watch.GameWatcher}, or None.
    @ivar watchRoot: the web root of the hub watched.
    @ivar watchBack: the web root whose games list to go back to, or
        None to quit when the user leaves the watched game.
    """

    log = Logger()

    def __init__(self, app):
        self.app = app
        self.session = None
        self.sessions = []
        self.offlineHub = None
        self.offlineBots = None
        self.offlinePlan = None
        self.watcher = None
        self.watchRoot = None
        self.watchBack = None

    @property
    def navigator(self):
        return self.app.navigator

    @property
    def settings(self):
        return self.app.settings

    # the game sessions
    def addSession(self, options):
        """
        A new L{ClientSession} for C{options}, shown if it is the first.
        """
        app = self.app
        session = ClientSession(app.reactor, app.clock, options)
        session.onGameOver = lambda: app.gameOver(session)
        session.onFatal = app.fatal
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

    def connect(self, game, host, port, name, key="", room=None):
        """
        Leave the start screen for the lobby of C{game} at C{host:port},
        as C{name}, proven with play C{key} if given; with C{room} (a
        tournament's game), straight into that room, ready to play (as
        a browser entrant is).
        """
        self.navigator.stopHubBrowser()
        tournament = room is not None
        options = self.settings.update(game=game, host=host, port=port,
                                       name=name, key=key, offline=None,
                                       room=room, joinRoom=tournament,
                                       ready=tournament)
        session = self.addSession(options)
        self.showSession(session)
        session.start()

    def showSession(self, session):
        """
        Show the screens of C{session} (hot seat: the player to move).
        """
        self.session = session
        self.navigator.showSession(session)

    def _stateEvent(self, session, event):
        if session not in self.sessions:
            return
        navigator = self.navigator
        if session is self.session:
            if isinstance(event, E.PhaseChanged):
                navigator.showSceneFor(session)
            elif navigator.scene is not None:
                navigator.scene.stateEvent(event)
        # a hot seat shows the seat to move
        shown = hotseat.sessionToShow(self.session, self.sessions)
        if shown is not self.session:
            self.showSession(shown)

    # tournaments
    def showTournaments(self, root, gamePorts):
        """
        The tournaments of the hub whose web face is at C{root}; its
        games are played on C{gamePorts} (C{{kind: port}}) of that host.
        """
        from client_pyglet.scenes.tournaments import TournamentsScene
        self.navigator.stopHubBrowser()
        self.navigator.showScene(TournamentsScene, root, gamePorts)

    # watching
    def showWatchList(self, root):
        """
        The games of the hub whose web face is at C{root}, to watch.
        """
        from client_pyglet.scenes.watch import WatchListScene
        self.navigator.stopHubBrowser()
        self.stopWatcher()
        self.watchRoot = root
        self.navigator.showScene(WatchListScene, root)

    def watchURL(self, url):
        """
        Watch the game at C{url} (C{http://HOST:PORT/games/ID}).
        """
        from hub.client.webapi import parseWatchURL
        root, gameId = parseWatchURL(url)
        return self.watchGame(root, gameId)

    def watchGame(self, root, gameId, back=None):
        """
        Watch game C{gameId} of the hub whose web face is at C{root}: live
        while it runs, then its replay.

        @param back: the web root whose games list to go back to, or None
            to quit when the user leaves.
        """
        from hub.client.watch import GameWatcher
        from client_pyglet.scenes.watch import WatchWaitScene
        app = self.app
        self.navigator.stopHubBrowser()
        self.stopWatcher()
        self.watchRoot = root
        self.watchBack = back
        app.overShown = False
        self.watcher = GameWatcher(app.reactor, app.clock, root, gameId)
        self.watcher.game.subscribe(self._watchEvent)
        self.navigator.showScene(WatchWaitScene, self.watcher.game)
        return self.watcher.start()

    def _watchEvent(self, event):
        from client_pyglet.scenes.watch import WATCH_SCENES
        game = self.watcher.game if self.watcher is not None else None
        if game is None or not game.loaded:
            return
        cls = WATCH_SCENES[game.kind]
        if type(self.navigator.scene) is not cls:
            self.navigator.showScene(cls, game)
        if isinstance(event, E.ReplayLoaded):
            self.app.watchOver(game)

    def stopWatching(self):
        """
        Leave the game watched: back to the hub's games, or quit.
        """
        back = self.watchBack
        self.stopWatcher()
        if back is not None:
            self.showWatchList(back)
        else:
            self.app.stop(0)

    def stopWatcher(self):
        """
        Stop following the game watched, if any.
        """
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
        from hub.client.localhub import OfflineHub
        from hub.client.userdirs import recordsURL
        from client_pyglet.scenes.base import NoticeScene
        self.navigator.stopHubBrowser()
        self.offlinePlan = plan
        o = self.settings.options
        self.navigator.showScene(NoticeScene,
                                 _("Starting the offline hub ..."))
        dbURL = o.records or recordsURL()
        if dbURL.strip().lower() == "none":
            dbURL = None
        self.offlineHub = OfflineHub(self.app.reactor, dbURL=dbURL,
                                     turnSeconds=o.turnSeconds)
        d = self.offlineHub.start()
        d.addCallback(self._seatOffline, plan)
        d.addErrback(self._offlineFailed)
        return d

    def _seatOffline(self, ports, plan):
        from hub.client.botseats import BOT_SEAT_DELAY, BotSeats, whenInRoom
        from hub.client.offline import LOOPBACK, seatPlayers
        o = self.settings.options
        room = "offline"
        port = ports[plan.game]
        delay = BOT_SEAT_DELAY if o.botDelay is None else o.botDelay
        self.offlineBots = BotSeats(self.app.reactor, plan.game, LOOPBACK,
                                    port, delay=delay)
        humans = []

        def seatHuman(index, seat):
            number = len(humans) + 1
            name = seat.name or (o.name if number == 1 else
                                 "%s%d" % (o.name, number))
            options = dataclasses.replace(
                o, game=plan.game, host=LOOPBACK, port=port, name=name,
                key="", room=room, ready=True, players=plan.count,
                bot=o.bot,
                colour=plan.colour)
            if number == 1:
                self.settings.options = options
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
        self.app.overShown = False
        self.settings.options.offline = game
        self.navigator.showOfflineSetup(game)

    def _offlineFailed(self, failure):
        self.log.failure("offline game failed", failure)
        self.app.fatal("offline game failed: %s" % (
            failure.getErrorMessage(),))

    def stop(self):
        """
        Close the watcher, the sessions and the bots.
        """
        self.stopWatcher()
        for session in self.sessions:
            session.stop()
        if self.offlineBots is not None:
            self.offlineBots.stop()

    def stopOfflineHub(self):
        """
        Stop the offline hub, if there is one.

        @return: a Deferred firing once it stopped, or None.
        """
        if self.offlineHub is not None:
            return self.offlineHub.stop()
        return None
