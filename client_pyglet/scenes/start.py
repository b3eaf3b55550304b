"""
The start screen: pick a game, a name (with the play key of its account,
if it is one's), and a hub (found on the LAN or typed as host:port), or
play offline.
"""

from hub.client.i18n import N_, _
from hub.client.net import DEFAULT_PORTS, GAME_KINDS
from hub.client.webapi import DEFAULT_WEB_PORT
from client_pyglet.lan import hubEntries, parseAddress
from client_pyglet.scenes.base import (
    ACCENT, GOLD, MUTED, PANEL, PANEL_LIGHT, TEXT, Scene)

#: How each game is named on screen.
GAME_TITLES = {"checkers": N_("Chinese checkers"),
               "splendor": N_("Splendor"), "gomoku": N_("Gomoku")}
#: ... and in short, on the buttons.
SHORT_TITLES = {"checkers": N_("checkers"), "splendor": N_("Splendor"),
                "gomoku": N_("Gomoku")}
GAME_NOTES = {"checkers": N_("1, 2, 3, 4 or 6 players"),
              "splendor": N_("2 to 4 players"),
              "gomoku": N_("five in a row, 2 players")}


class StartScene(Scene):
    """
    The first screen of C{python -m client_pyglet} without a URL.

    @ivar game: the game chosen.
    """

    title = N_("gamehub")

    def setup(self):
        o = self.app.options
        self.game = o.game if o.game in GAME_KINDS else "checkers"
        self.problem = None
        settings = self.app.settings
        self._initialName = o.name or settings.rememberedName()
        self._initialKey = o.key or settings.rememberedKey(
            self._initialName)

    def name(self):
        """
        The name typed, or the remembered one.
        """
        return self.fieldValue("name").strip() or self._initialName

    def key(self):
        """
        The play key typed (or remembered), or "".
        """
        return self.fieldValue("key").strip()

    def rememberName(self):
        """
        Play as the name and key given, now and next time.
        """
        name = self.name()
        self.app.settings.rememberName(name)
        self.app.settings.rememberKey(self.key())
        return name

    def build(self):
        w, h = self.width, self.height
        top = h - 80
        self.text(_("Play Chinese checkers, Splendor or gomoku: on a hub, "
                    "or offline against bots."), 30, top, size=13,
                  color=MUTED)
        # left: the games
        x, colW = 30, 500
        y = top - 40
        self.text(_("Games"), x, y, size=16, bold=True)
        for game in GAME_KINDS:
            y -= 118
            chosen = game == self.game
            self.rect(x, y, colW, 104, PANEL_LIGHT if chosen else PANEL,
                      radius=12)
            if chosen:
                self.frame(x, y, colW, 104, ACCENT, 2)
            self.hit(x, y, colW - 190, 104, self.choose, game)
            self.text(_(GAME_TITLES[game]), x + 20, y + 62, size=17,
                      bold=True, color=GOLD if chosen else TEXT)
            self.text(_(GAME_NOTES[game]), x + 20, y + 30, size=11,
                      color=MUTED)
            self.button(_("Play offline"), x + colW - 176, y + 32, 160,
                        40, self.playOffline, game, size=13)
        half = colW / 2 - 8
        self.field("name", _("your name"), x, y - 90, half,
                   value=self._initialName)
        self.field("key", _("play key (an account's name)"),
                   x + half + 16, y - 90, half, value=self._initialKey,
                   secret=True)
        # right: the hubs
        rx, rw = 570, w - 600
        y = top - 40
        self.text(_("Hubs on the LAN"), rx, y, size=16, bold=True)
        self.rect(rx, y - 290, rw, 270, PANEL, radius=12)
        self.buildHubs(rx, y - 30, rw)
        self.field("address", _("or a server, HOST:PORT (%s port %d by "
                                 "default)") % (_(GAME_TITLES[self.game]),
                                                DEFAULT_PORTS[self.game]),
                   rx, y - 370, rw - 236, value="127.0.0.1")
        self.button(_("Connect"), rx + rw - 224, y - 370, 106, 30,
                    self.connectTyped, size=12)
        self.button(_("Watch games"), rx + rw - 110, y - 370, 110, 30,
                    self.watchTyped, size=11)
        self.button(_("Tournaments"), rx, y - 450, 224, 34,
                    self.tournamentsTyped, size=12)
        self.text(_("events on the hub typed above: join, then play "
                    "your games"), rx, y - 470, size=10, color=MUTED)
        if self.problem:
            self.text(self.problem, rx, y - 400, size=11, color=GOLD)

    def buildHubs(self, x, y, w):
        browser = self.app.navigator.hubBrowser
        entries = hubEntries(browser)
        if browser is None:
            self.text(_("LAN discovery is not available here."), x + 20,
                      y - 20, size=12, color=MUTED)
            return
        if not entries:
            self.text(_("Looking for hubs ..."), x + 20, y - 20, size=12,
                      color=MUTED)
            return
        for entry in entries[:5]:
            y -= 50
            self.text(entry.name, x + 20, y + 22, size=13, bold=True,
                      width=w - 280)
            if entry.webPort:
                self.button(_("Watch"), x + w - 246, y + 4, 88, 34,
                            self.watchAt, entry.host, entry.webPort,
                            size=11)
            self.text(entry.host, x + 20, y + 4, size=10, color=MUTED)
            port = entry.ports.get(self.game)
            if port:
                self.button(_("Join %s") % (_(SHORT_TITLES[self.game]),),
                            x + w - 150, y + 4, 134, 34, self.connect,
                            entry.host, port, size=11)
            else:
                self.text(_("no %s here") % (_(SHORT_TITLES[self.game]),),
                          x + w - 20, y + 14, size=10, color=MUTED,
                          anchor_x="right")

    def choose(self, game):
        self.game = game
        self.problem = None

    def playOffline(self, game):
        self.rememberName()
        self.app.navigator.showOfflineSetup(game)

    def connect(self, host, port):
        name = self.rememberName()
        self.app.connection.connect(self.game, host, port, name,
                                    self.key())

    def connectTyped(self):
        try:
            host, port = parseAddress(self.fieldValue("address"), self.game)
        except ValueError as e:
            self.problem = str(e)
            return
        self.connect(host, port)

    def watchAt(self, host, webPort):
        """
        The games running on the hub whose web face is C{host:webPort}.
        """
        self.rememberName()
        self.app.connection.showWatchList("http://%s:%d" % (host, webPort))

    def watchTyped(self):
        """
        The games running on the host typed, from its web face (port
        L{DEFAULT_WEB_PORT}; the list screen lets the user type another).
        """
        try:
            host, unused = parseAddress(self.fieldValue("address"),
                                        self.game)
        except ValueError as e:
            self.problem = str(e)
            return
        self.watchAt(host, DEFAULT_WEB_PORT)

    def tournamentsTyped(self):
        """
        The tournaments of the host typed, from its web face (port
        L{DEFAULT_WEB_PORT}; the screen lets the user type another); the
        games are played on the port typed for the game chosen, and the
        default ports of the others.
        """
        try:
            host, port = parseAddress(self.fieldValue("address"),
                                      self.game)
        except ValueError as e:
            self.problem = str(e)
            return
        self.rememberName()
        ports = dict(DEFAULT_PORTS)
        ports[self.game] = port
        self.app.connection.showTournaments(
            "http://%s:%d" % (host, DEFAULT_WEB_PORT), ports)

    def onSubmit(self, name):
        if name == "address":
            self.connectTyped()
        elif name in ("name", "key"):
            self.rememberName()
