"""
Watching a game from a hub's web API: the board scenes of the three
games, read-only, with the replay controls of the web page (first, back,
play, forward, last, and a slider), and the list of a hub's games.

The model is L{hub.client.watch.WatchedGame}; the board scenes read its
read-only state mirrors (L{hub.client.watchstate}) through a
L{WatchSession}.
"""

from pyglet.window import key
from twisted.internet import defer
from twisted.internet.task import LoopingCall

from hub.client.i18n import N_, _
from hub.client import events as E
from hub.client import state as S
from hub.client.watch import listGames
from hub.client.watchstate import gamePlayers
from hub.client.webapi import DEFAULT_WEB_PORT, WebAPI
from client_pyglet.scenes.base import (
    ACCENT, BAD, GOLD, GOOD, MUTED, PANEL, PANEL_LIGHT, TEXT, Scene)
from client_pyglet.scenes.checkers import (
    REGION_COLOURS, CheckersGameScene)
from client_pyglet.scenes.gomoku import (
    GomokuGameScene, drawStoneIcon)
from client_pyglet.scenes.splendor import SplendorGameScene
from client_pyglet.scenes.start import GAME_TITLES
from hub.client.state_gomoku import BLACK, WHITE

#: Seconds between two looks at a hub's list of games.
LIST_SECONDS = 3.0
#: The width of the Quit button of the replay controls, and the least
#: room between it and the move counter beside it.
LEAVE_WIDTH = 64
LEAVE_GAP = 8


class NoAutoPlay:
    """
    The AI 托管 of a spectator: never on, no hints.
    """

    enabled = False
    hint = None

    def setEnabled(self, enabled):
        pass

    def toggle(self):
        pass

    def suggest(self):
        return defer.succeed(None)


class WatchSession:
    """
    What a board scene asks of a session, for a spectator: the state
    mirror of the position shown, and no AI 托管.
    """

    def __init__(self, game, options):
        self.game = game
        self.options = options
        self.autoplay = NoAutoPlay()

    @property
    def state(self):
        return self.game.mirror()


class WatchMixin:
    """
    A board scene made read-only: it shows the watched game's position,
    follows the game's events, and draws the replay controls.

    @ivar game: the L{hub.client.watch.WatchedGame}.
    """

    def __init__(self, app, game):
        self.game = game
        Scene.__init__(self, app)

    def setup(self):
        self.session = WatchSession(self.game, self.app.options)
        self.state = self.game.mirror()
        self.game.subscribe(self.gameEvent)
        self.title = _("Watching %s") % (_(GAME_TITLES[self.game.kind]),)
        super().setup()

    def close(self):
        self.game.unsubscribe(self.gameEvent)
        Scene.close(self)

    def gameEvent(self, event):
        """
        An event of the watched game (one of L{hub.client.events}).
        """
        if isinstance(event, E.Changed):
            self.state = self.game.mirror()
            self.invalidate()
        elif isinstance(event, E.Moved):
            self.moved(event.seat, event.action)
        elif isinstance(event, E.WatchError):
            self.stateEvent(E.Message("error", event.text))

    def moved(self, seat, action):
        """
        Override: a move was played (live, or one step forward).
        """

    def clickBoard(self):
        pass

    # the header: where we watch from
    def buildHeader(self):
        h = 44
        y = self.height - h
        self.rect(0, y, self.width, h, PANEL, group=self.midGroup)
        self.text(self.title, 16, y + 14, size=15, bold=True)
        where = self.app.connection.watchRoot or ""
        if self.game.live:
            where += _("  ·  %d watching") % (self.game.spectators,)
        self.text(where, self.width - 16, y + 15, size=11, color=MUTED,
                  anchor_x="right")
        if self.game.live:
            self.rect(self.width / 2 - 40, y + 8, 80, 28, BAD, radius=8)
            self.text(_("LIVE"), self.width / 2, y + 22, size=13, bold=True,
                      anchor_x="center", anchor_y="center")

    # the replay controls
    def buildControls(self, x, y, w):
        """
        First, back, play, forward, last, the slider and where we are,
        in a box C{w} wide whose bottom is at C{y} (96 px high);
        while the game runs, a note instead.
        """
        g = self.game
        if g.steps is None:
            self.text(g.stepText(), x + w / 2, y + 64, size=13, bold=True,
                      anchor_x="center")
            note = (_("replay when the game ends") if g.live
                    else _("no replay kept"))
            self.text(note, x + w / 2, y + 40, size=10, color=MUTED,
                      anchor_x="center")
            self.buildLeave(x, y, w)
            return
        bw = (w - 4 * 6) / 5.0
        labels = (("|<", g.first), ("<", self.back),
                  (_("pause") if g.playing else _("play"), g.togglePlay),
                  (">", self.forward), (">|", g.last))
        for i, (label, callback) in enumerate(labels):
            enabled = (callback in (g.first, self.back) and g.step > 0) \
                or (callback in (g.last, self.forward)
                    and g.step < g.lastStep) \
                or callback == g.togglePlay
            self.button(label, x + i * (bw + 6), y + 58, bw, 32, callback,
                        enabled=enabled, active=callback == g.togglePlay
                        and g.playing, size=11)
        # the slider
        self.sliderRect = (x + 6, y + 34, w - 12, 14)
        sx, sy, sw, sh = self.sliderRect
        self.rect(sx, sy + 4, sw, 6, PANEL_LIGHT, radius=3)
        f = g.step / float(g.lastStep) if g.lastStep else 1.0
        self.rect(sx, sy + 4, sw * f, 6, ACCENT, radius=3)
        self.circle(sx + sw * f, sy + 7, 8, TEXT)
        self.hit(sx - 8, sy - 6, sw + 16, sh + 12, self.slide)
        left = self.buildLeave(x, y, w)
        where = self.text(g.stepText(), x, y + 8, size=11, color=MUTED)
        if where.content_width > left - x - LEAVE_GAP:
            # "move 160 / 160" in a narrow box: smaller, clear of Quit
            where.font_size = 9

    def buildLeave(self, x, y, w):
        """
        The Quit (or Games) button at the bottom right of the box.

        @return: the button's left edge.
        """
        label = _("Games") if self.app.connection.watchBack else _("Quit")
        left = x + w - LEAVE_WIDTH
        self.button(label, left, y + 2, LEAVE_WIDTH, 26, self.leave,
                    color=(120, 60, 60), size=10)
        return left

    def back(self):
        self.game.stepBy(-1)

    def forward(self):
        self.game.stepBy(1)

    def slide(self):
        sx, sy, sw, sh = self.sliderRect
        f = (self.mouse[0] - sx) / float(sw) if sw else 0
        self.game.showStep(round(max(0.0, min(1.0, f)) * self.game.lastStep))

    def leave(self):
        self.app.connection.stopWatching()

    def onMousePress(self, x, y, button):
        self.mouse = (x, y)
        Scene.onMousePress(self, x, y, button)

    def onKeyPress(self, symbol, modifiers):
        g = self.game
        if g.steps is not None:
            action = {key.LEFT: self.back, key.RIGHT: self.forward,
                      key.HOME: g.first, key.END: g.last,
                      key.SPACE: g.togglePlay}.get(symbol)
            if action is not None:
                action()
                return True
        if symbol == key.ESCAPE:
            self.leave()
            return True
        return Scene.onKeyPress(self, symbol, modifiers)

    def statusText(self):
        """
        Whose turn, or how the game ended (at the last step).
        """
        g = self.game
        if g.atEnd and g.result is not None:
            return g.resultText(), GOLD
        if g.live and g.turn is not None:
            return _("to move: %s") % (g.seatName(g.turn.get("seat")),), TEXT
        return None, MUTED


class WatchCheckersScene(WatchMixin, CheckersGameScene):
    """
    A checkers game watched: the star board, the players and their
    progress, the ranking at the end, the replay controls.
    """

    def moved(self, seat, action):
        if len(action) > 1:
            self.selected = None
            self.anim = (tuple(tuple(c) for c in action), seat,
                         self._clock.seconds())

    def buildSide(self):
        st = self.state
        board = st.board
        x, bottom, w, h = self.sideRect
        top = bottom + h
        self.rect(x, bottom, w, h, PANEL, radius=12)
        self.text(_("Players"), x + 18, top - 34, size=14, bold=True)
        y = top - 72
        for seat, data in enumerate(self.game.seats):
            if seat >= board.seatCount:
                break
            region = board.regionOfSeat(seat)
            self.circle(x + 30, y + 6, 11, REGION_COLOURS[region])
            turn = st.currentRegion == region and st.phase == S.GAME
            self.text(self.game.playerName(seat), x + 50, y, size=13,
                      bold=turn,
                      color=TEXT if turn or not st.currentRegion
                      else MUTED)
            if board.hasFinished(seat):
                status, c = _("home #%d") % (
                    board.finished.index(seat) + 1,), GOOD
            elif board.isEliminated(seat) or data.get("out"):
                status, c = _("out"), BAD
            elif turn:
                status, c = _("to move"), GOLD
            else:
                status, c = _("%d/10 home") % (
                    board.piecesInTarget(seat),), MUTED
            self.text(status, x + 296, y, size=11, color=c,
                      anchor_x="right")
            y -= 34
        y -= 16
        text, colour = self.statusText()
        if st.phase == S.OVER and st.ranking:
            self.text(_("Ranking"), x + 18, y, size=15, bold=True, color=GOLD)
            y -= 30
            shown = {data["name"]: self.game.playerName(seat)
                     for seat, data in enumerate(self.game.seats)}
            for i, name in enumerate(st.ranking):
                region = st.regions.get(name)
                if region:
                    self.circle(x + 30, y + 6, 9, REGION_COLOURS[region])
                self.text("%d. %s" % (i + 1, shown.get(name, name)),
                          x + 50, y, size=13)
                y -= 28
        elif text:
            self.text(text, x + 18, y, size=12, bold=True, color=colour,
                      width=w - 36, multiline=True)
            self.countdownX, self.countdownY = x + 156, y - 40
        self.buildControls(x + 14, bottom + 10, w - 28)


class WatchGomokuScene(WatchMixin, GomokuGameScene):
    """
    A gomoku game watched: the board, the two players, the result and
    the winning row at the end, the replay controls.
    """

    def buildSide(self):
        st = self.state
        x = self.width - 310
        top = self.height - 70
        self.rect(x, 60, 290, top - 60, PANEL, radius=12)
        y = top - 50
        toMove = st.toMove() if st.phase == S.GAME else None
        for seat, colour in ((0, BLACK), (1, WHITE)):
            name = self.game.playerName(seat) \
                if seat < len(self.game.seats) else "?"
            drawStoneIcon(self, x + 30, y + 6, colour, 13)
            turn = toMove == colour
            self.text(name, x + 55, y, size=14, bold=turn,
                      color=TEXT if turn else MUTED)
            if turn:
                self.text(_("to move"), x + 270, y, size=11, color=GOLD,
                          anchor_x="right")
            y -= 44
        self.text(_("stones: %d") % (st.moveCount,), x + 20, y, size=11,
                  color=MUTED)
        y -= 50
        text, colour = self.statusText()
        if text and self.game.atEnd:
            self.rect(x + 15, y - 30, 260, 60, colour, radius=10)
            self.text(text, x + 145, y, size=13, bold=True,
                      color=(30, 30, 30), anchor_x="center",
                      anchor_y="center", width=240, multiline=True)
        self.buildControls(x + 15, 70, 260)


class WatchSplendorScene(WatchMixin, SplendorGameScene):
    """
    A Splendor game watched: the table as the players see it (reserved
    cards face down), the result, the replay controls in the action
    panel.
    """

    bankTitle = N_("Bank")

    def playerName(self, seat, pid):
        return self.game.seatName(seat)

    def pick(self, g):
        pass

    def select(self, number):
        pass

    def buildActions(self):
        x, bottom, w, h = self.actionsRect
        top = bottom + h
        self.rect(x, bottom, w, h, PANEL, radius=10)
        text, colour = self.statusText()
        if text:
            self.text(text, x + 10, top - 12, size=11, bold=True,
                      color=colour, width=w - 20, multiline=True,
                      anchor_y="top")
        if self.game.atEnd and self.state.table is not None:
            t = self.state.table
            yy = top - 110
            for rank, seat in enumerate(t.ranking()[:4]):
                p = t.players[seat]
                self.text("%d. %s" % (rank + 1, self.game.seatName(seat)),
                          x + 10, yy, size=11)
                self.text(_("%d points, %d cards") % (
                    p.points, len(p.purchased)), x + 24, yy - 16, size=9,
                    color=MUTED)
                yy -= 38
        self.buildControls(x + 6, bottom + 6, w - 12)


#: The watch scene of each game kind.
WATCH_SCENES = {"checkers": WatchCheckersScene,
                "gomoku": WatchGomokuScene,
                "splendor": WatchSplendorScene}


class WatchWaitScene(Scene):
    """
    Before the watched game is known: loading, or why it cannot be.
    """

    title = N_("Watching")

    def __init__(self, app, game):
        self.game = game
        Scene.__init__(self, app)

    def setup(self):
        self.problem = None
        self.final = False
        self.game.subscribe(self.gameEvent)

    def close(self):
        self.game.unsubscribe(self.gameEvent)
        Scene.close(self)

    def gameEvent(self, event):
        if isinstance(event, E.WatchError):
            self.problem = event.text
            self.final = event.final
        self.invalidate()

    def build(self):
        w, h = self.width, self.height
        # Loading, unless the hub said the game cannot be watched.
        headline = _("Cannot watch game %s from %s") if self.final \
            else _("Loading game %s from %s ...")
        self.text(headline % (
            self.game.gameId, self.app.connection.watchRoot), w / 2,
            h / 2 + 20, size=18, anchor_x="center", anchor_y="center")
        if self.problem:
            self.text(self.problem, w / 2, h / 2 - 20, size=12, color=BAD,
                      anchor_x="center", anchor_y="center")
        self.button(_("Games") if self.app.connection.watchBack
                    else _("Quit"),
                    w / 2 - 60, h / 2 - 100, 120, 36,
                    self.app.connection.stopWatching)


def webRoot(text):
    """
    C{http://HOST:PORT} of C{HOST:PORT}, C{HOST} (port L{DEFAULT_WEB_PORT})
    or an C{http://} address.

    @raise ValueError: for a malformed address.
    """
    text = text.strip().rstrip("/")
    if not text:
        raise ValueError(_("type the hub's web address, HOST:PORT"))
    if "://" in text:
        scheme, unused, text = text.partition("://")
        if scheme not in ("http", "https"):
            raise ValueError(_("not a web address: %r") % (scheme,))
    host, sep, port = text.rpartition(":")
    if not sep or "]" in port:
        host, port = text, str(DEFAULT_WEB_PORT)
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(_("bad web address %r") % (text,))
    return "http://%s:%d" % (host, int(port))


class ListingScene(Scene):
    """
    A scene showing a list the hub's web face gives: asked for again
    every C{listSeconds}, one request at a time; what went wrong is its
    C{problem} line.  A subclass says how to ask (L{fetch}), what to do
    with the answer (L{listed}) and how to say it failed
    (L{problemText}).
    """

    listSeconds = LIST_SECONDS

    def startListing(self):
        """
        Ask at once, then every C{listSeconds}.
        """
        self.problem = None
        self._pending = None
        self._looking = LoopingCall(self.look)
        self._looking.clock = self.app.clock
        self._looking.start(self.listSeconds, now=True)

    def stopListing(self):
        """
        Ask no more, and drop the question under way.
        """
        if self._looking.running:
            self._looking.stop()
        if self._pending is not None:
            self._pending.cancel()

    def look(self):
        """
        Ask for the list (unless a question is under way).
        """
        if self._pending is not None:
            return
        self._pending = d = self.fetch()
        d.addCallbacks(self.listed, self._failed)
        d.addBoth(self._settled)

    def _settled(self, ignored):
        self._pending = None

    def _failed(self, failure):
        if failure.check(defer.CancelledError):
            return
        self.problem = self.problemText(failure.getErrorMessage())
        self.invalidate()

    def fetch(self):
        """
        A Deferred of the list.
        """
        raise NotImplementedError()

    def listed(self, answer):
        """
        The list came.
        """
        raise NotImplementedError()

    def problemText(self, why):
        """
        What the problem line says when the list did not come, C{why}.
        """
        raise NotImplementedError()

    def lookAt(self):
        """
        Show this list at the hub whose web address the C{web} field
        holds (L{showAt}), or say why that address is wrong.
        """
        try:
            root = webRoot(self.fieldValue("web"))
        except ValueError as e:
            self.problem = str(e)
            return
        self.showAt(root)

    def showAt(self, root):
        """
        Show this list at the hub whose web root is C{root}.
        """
        raise NotImplementedError()

    def onSubmit(self, name):
        self.lookAt()


class WatchListScene(ListingScene):
    """
    The games of a hub, to watch: running ones first, then those just
    finished; looked at again every L{LIST_SECONDS}.

    @ivar root: the hub's web root (C{http://HOST:PORT}).
    @ivar games: the games as the API lists them, or None before the
        first answer.
    """

    title = N_("Games to watch")

    def __init__(self, app, root):
        self.root = root
        Scene.__init__(self, app)

    def setup(self):
        self.games = None
        self.startListing()

    def close(self):
        self.stopListing()
        Scene.close(self)

    def fetch(self):
        return listGames(WebAPI(self.app.reactor, self.root))

    def listed(self, games):
        self.games = games
        self.problem = None
        self.invalidate()

    def problemText(self, why):
        return _("no games from %s: %s") % (self.root, why)

    def build(self):
        w, h = self.width, self.height
        top = h - 80
        self.text(_("Games at %s") % (self.root,), 30, top, size=16,
                  bold=True)
        self.rect(30, 120, w - 60, top - 150, PANEL, radius=12)
        y = top - 40
        if self.problem:
            self.text(self.problem, 50, y - 20, size=12, color=BAD)
        elif self.games is None:
            self.text(_("Asking the hub ..."), 50, y - 20, size=12,
                      color=MUTED)
        elif not self.games:
            self.text(_("No games running there now."), 50, y - 20, size=12,
                      color=MUTED)
        for game in (self.games or [])[:9]:
            y -= 52
            over = game.get("over")
            self.rect(44, y, w - 88, 44, PANEL_LIGHT, radius=8)
            kind = game.get("kind", "")
            self.text(_(GAME_TITLES.get(kind, kind)), 60, y + 15, size=13,
                      bold=True)
            players = gamePlayers(game)
            self.text(players, 240, y + 15, size=12, width=w - 620)
            self.text(_("%s · %d moves") % (_("over") if over else _("live"),
                                         game.get("plies", 0)),
                      w - 330, y + 15, size=11,
                      color=MUTED if over else GOOD)
            self.button(_("Replay") if over else _("Watch"), w - 180, y + 6,
                        120, 32, self.watch, game.get("id"), size=11)
        self.field("web", _("another hub: web address HOST:PORT (port %d "
                             "by default)") % (DEFAULT_WEB_PORT,), 30, 50, 400,
                   value=self.root.split("://", 1)[-1])
        self.button(_("Look"), 440, 50, 100, 30, self.lookAt, size=12)
        self.button(_("Back"), w - 150, 50, 120, 30,
                    self.app.navigator.showStart, size=12)

    def watch(self, gameId):
        self.app.connection.watchGame(self.root, gameId, back=self.root)

    def showAt(self, root):
        self.app.connection.showWatchList(root)
