"""
The start screen: pick a game, a name, and a hub (found on the LAN or
typed as host:port), or play offline.
"""

from hub.client.net import DEFAULT_PORTS, GAME_KINDS
from hub.client.webapi import DEFAULT_WEB_PORT
from client_pyglet.lan import hubEntries, parseAddress
from client_pyglet.scenes.base import (
    ACCENT, GOLD, MUTED, PANEL, PANEL_LIGHT, TEXT, Scene)

#: How each game is named on screen.
GAME_TITLES = {"checkers": "Chinese checkers", "splendor": "Splendor",
               "gomoku": "Gomoku"}
GAME_NOTES = {"checkers": "1, 2, 3, 4 or 6 players",
              "splendor": "2 to 4 players",
              "gomoku": "five in a row, 2 players"}

class StartScene(Scene):
    """
    The first screen of C{python -m client_pyglet} without a URL.

    @ivar game: the game chosen.
    """

    title = "gamehub"

    def setup(self):
        o = self.app.options
        self.game = o.game if o.game in GAME_KINDS else "checkers"
        self.problem = None
        self._initialName = o.name or self.app.settings.rememberedName()

    def name(self):
        """
        The name typed, or the remembered one.
        """
        return self.fieldValue("name").strip() or self._initialName

    def rememberName(self):
        name = self.name()
        self.app.settings.rememberName(name)
        return name

    def build(self):
        w, h = self.width, self.height
        top = h - 80
        self.text("Play Chinese checkers, Splendor or gomoku: on a hub, "
                  "or offline against bots.", 30, top, size=13,
                  color=MUTED)
        # left: the games
        x, colW = 30, 500
        y = top - 40
        self.text("Games", x, y, size=16, bold=True)
        for game in GAME_KINDS:
            y -= 118
            chosen = game == self.game
            self.rect(x, y, colW, 104, PANEL_LIGHT if chosen else PANEL,
                      radius=12)
            if chosen:
                self.frame(x, y, colW, 104, ACCENT, 2)
            self.hit(x, y, colW - 190, 104, self.choose, game)
            self.text(GAME_TITLES[game], x + 20, y + 62, size=17,
                      bold=True, color=GOLD if chosen else TEXT)
            self.text(GAME_NOTES[game], x + 20, y + 30, size=11,
                      color=MUTED)
            self.button("Play offline", x + colW - 176, y + 32, 160, 40,
                        self.playOffline, game, size=13)
        self.field("name", "your name", x, y - 90, colW,
                   value=self._initialName)
        # right: the hubs
        rx, rw = 570, w - 600
        y = top - 40
        self.text("Hubs on the LAN", rx, y, size=16, bold=True)
        self.rect(rx, y - 290, rw, 270, PANEL, radius=12)
        self.buildHubs(rx, y - 30, rw)
        self.field("address", "or a server, HOST:PORT (%s port %d by "
                   "default)" % (GAME_TITLES[self.game],
                                 DEFAULT_PORTS[self.game]),
                   rx, y - 370, rw - 236, value="127.0.0.1")
        self.button("Connect", rx + rw - 224, y - 370, 106, 30,
                    self.connectTyped, size=12)
        self.button("Watch games", rx + rw - 110, y - 370, 110, 30,
                    self.watchTyped, size=11)
        if self.problem:
            self.text(self.problem, rx, y - 400, size=11, color=GOLD)

    def buildHubs(self, x, y, w):
        browser = self.app.navigator.hubBrowser
        entries = hubEntries(browser)
        if browser is None:
            self.text("LAN discovery is not available here.", x + 20,
                      y - 20, size=12, color=MUTED)
            return
        if not entries:
            self.text("Looking for hubs ...", x + 20, y - 20, size=12,
                      color=MUTED)
            return
        for entry in entries[:5]:
            y -= 50
            self.text(entry.name, x + 20, y + 22, size=13, bold=True,
                      width=w - 280)
            if entry.webPort:
                self.button("Watch", x + w - 246, y + 4, 88, 34,
                            self.watchAt, entry.host, entry.webPort,
                            size=11)
            self.text(entry.host, x + 20, y + 4, size=10, color=MUTED)
            port = entry.ports.get(self.game)
            if port:
                self.button("Join %s" % (GAME_TITLES[self.game].split()[-1],),
                            x + w - 150, y + 4, 134, 34, self.connect,
                            entry.host, port, size=11)
            else:
                self.text("no %s here" % (self.game,), x + w - 20, y + 14,
                          size=10, color=MUTED, anchor_x="right")

    def choose(self, game):
        self.game = game
        self.problem = None

    def playOffline(self, game):
        self.rememberName()
        self.app.navigator.showOfflineSetup(game)

    def connect(self, host, port):
        name = self.rememberName()
        self.app.connection.connect(self.game, host, port, name)

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
            host, _ = parseAddress(self.fieldValue("address"), self.game)
        except ValueError as e:
            self.problem = str(e)
            return
        self.watchAt(host, DEFAULT_WEB_PORT)

    def onSubmit(self, name):
        if name == "address":
            self.connectTyped()
        elif name == "name":
            self.rememberName()
