"""
Setting up an offline game: player count, own seat, and each other seat
as a bot of a chosen level (or another person at this screen: a hot
seat).
"""

from hub.bots import LEVELS
from hub.client.i18n import N_, _
from hub.client import offline as O
from client_pyglet.scenes.base import (
    GOLD, MUTED, PANEL, TEXT, Scene)
from client_pyglet.scenes.checkers import REGION_COLOURS
from client_pyglet.scenes.start import GAME_TITLES

AUTO = "auto"
LEVEL_NAMES = {1: N_("random"), 2: N_("heuristic"), 3: N_("search")}
#: The words of the choices, for the catalog.
CHOICE_WORDS = (N_("auto"), N_("black"), N_("white"))


class OfflineSetupScene(Scene):
    """
    Choose everything before an offline game starts.

    @ivar panelRect: C{(x, y, w, h)} of the panel every control is on.

    @ivar count: the player count chosen (checkers: or L{AUTO}).
    @ivar humans: people at this screen.
    @ivar seat: checkers: the index of our region in the count's regions.
    @ivar levels: the bot level of each seat, by index.
    @ivar colour: gomoku: C{"black"} or C{"white"}.
    """

    def __init__(self, app, game):
        self.game = game
        Scene.__init__(self, app)

    def setup(self):
        o = self.app.options
        self.title = _("%s · play offline") % (_(GAME_TITLES[self.game]),)
        self.humans = max(1, o.humans or 1)
        level = o.opponentLevel or 2
        self.levels = [level] * 6
        self.colour = o.colour if o.colour in ("black", "white") else \
            "black"
        self.seat = 0
        if self.game == "checkers":
            self.counts = O.supportedCheckersCounts()
            self.count = o.players if o.players in self.counts else AUTO
            if o.seat:
                regions = O.CHECKERS_REGIONS[self.playerCount()]
                if o.seat.upper() in regions:
                    self.seat = regions.index(o.seat.upper())
        elif self.game == "splendor":
            self.counts = O.SPLENDOR_COUNTS
            self.count = o.players if o.players in self.counts else 2
        else:
            self.counts = (2,)
            self.count = 2
            self.humans = 1

    def playerCount(self):
        """
        The count the game will have (auto resolved).
        """
        if self.count == AUTO:
            return O.autoCount(self.humans, self.counts)
        return self.count

    def plan(self):
        """
        The L{hub.client.offline.OfflinePlan} of the choices.
        """
        n = self.playerCount()
        humans = min(self.humans, n)
        if self.game == "checkers":
            return O.checkersPlan(n, self.seat, self.levels[:n], humans,
                                  self.counts)
        if self.game == "splendor":
            return O.splendorPlan(n, self.levels[:n], humans)
        return O.gomokuPlan(self.colour, self.levels[1])

    def play(self):
        self.app.connection.startOffline(self.plan())

    # choices
    def setCount(self, count):
        self.count = count
        n = self.playerCount()
        self.humans = min(self.humans, n)
        self.seat = min(self.seat, n - 1)

    def setHumans(self, humans):
        self.humans = humans
        if self.count != AUTO and self.count < humans:
            self.count = O.autoCount(humans, self.counts)
        self.seat = min(self.seat, self.playerCount() - 1)

    def setSeat(self, index):
        self.seat = index

    def cycleLevel(self, index):
        self.levels[index] = LEVELS[(LEVELS.index(self.levels[index]) + 1)
                                    % len(LEVELS)]

    def setColour(self, colour):
        self.colour = colour

    # drawing
    def build(self):
        w, h = self.width, self.height
        px, py, pw, ph = self.panelRect = (30, 90, w - 60, h - 170)
        self.rect(px, py, pw, ph, PANEL, radius=12)
        # The first row's buttons (36 high) a margin below the panel's top.
        x, y = 60, py + ph - 20 - 36
        if self.game == "gomoku":
            self.buildGomoku(x, y)
        else:
            self.buildSeats(x, y)
        self.button(_("Back"), 60, 110, 150, 44, self.app.navigator.showStart,
                    color=(120, 60, 60), size=14)
        self.button(_("Start the game"), w - 290, 110, 230, 44, self.play,
                    size=15)
        self.text(_("Runs a hub inside this program, on 127.0.0.1 only; "
                    "games are recorded in your data folder."), w / 2, 60,
                  size=10, color=MUTED, anchor_x="center")

    def choiceRow(self, label, x, y, choices, current, callback):
        self.text(_(label), x, y + 12, size=13, bold=True)
        bx = x + 200
        for value in choices:
            text = _(value) if isinstance(value, str) else str(value)
            bw = 58 if len(text) < 4 else 110
            self.button(text, bx, y, bw, 36, callback, value,
                        active=value == current, size=13)
            bx += bw + 10
        return bx

    def buildSeats(self, x, y):
        counts = list(self.counts)
        if self.game == "checkers":
            counts.append(AUTO)
        end = self.choiceRow(N_("Players"), x, y, counts, self.count,
                             self.setCount)
        if self.count == AUTO:
            self.text(_("auto: %d") % (self.playerCount(),), end + 10, y + 12,
                      size=12, color=GOLD)
        n = self.playerCount()
        y -= 60
        most = max(self.counts) if self.count == AUTO else n
        self.choiceRow(N_("People here"), x, y, range(1, most + 1),
                       self.humans, self.setHumans)
        if self.humans > 1:
            self.text(_("hot seat: the board turns to whoever moves"), x + 200,
                      y - 20, size=10, color=MUTED)
        y -= 70
        plan = self.plan()
        regions = plan.regions() if self.game == "checkers" else None
        self.text(_("Seats"), x, y, size=13, bold=True)
        if self.game == "checkers":
            self.text(_("(click a seat to sit there)"), x + 70, y, size=10,
                      color=MUTED)
        else:
            self.text(_("(the hub draws the order of play)"), x + 70, y,
                      size=10, color=MUTED)
        humanIndex = 0
        for i, seat in enumerate(plan.seats):
            yy = y - 46 - i * 44
            if regions:
                region = regions[i]
                self.circle(x + 16, yy + 14, 13, REGION_COLOURS[region])
                self.text(region, x + 16, yy + 14, size=11, bold=True,
                          color=(20, 20, 20), anchor_x="center",
                          anchor_y="center")
                self.hit(x, yy, 300, 30, self.setSeat, i)
            else:
                self.text("%d" % (i + 1,), x + 16, yy + 8, size=13,
                          anchor_x="center")
            if seat.human:
                humanIndex += 1
                who = self.app.options.name if humanIndex == 1 else \
                    _("%s%d (hot seat)") % (self.app.options.name,
                                            humanIndex)
                self.text(who + (_("  (you)") if humanIndex == 1 else ""),
                          x + 44, yy + 8, size=14, bold=True, color=TEXT)
            else:
                self.text(_("bot"), x + 44, yy + 8, size=13, color=MUTED)
                self.button(_("level %d · %s") % (
                    seat.level, _(LEVEL_NAMES.get(seat.level, ""))),
                    x + 200, yy, 220, 30, self.cycleLevel, i, size=11)

    def buildGomoku(self, x, y):
        self.choiceRow(N_("Your colour"), x, y, ("black", "white"),
                       self.colour, self.setColour)
        self.text(_("black moves first"), x + 200, y - 20, size=10,
                  color=MUTED)
        y -= 80
        self.choiceRow(N_("Bot level"), x, y, LEVELS, self.levels[1],
                       self.setBotLevel)
        self.text(_(LEVEL_NAMES[self.levels[1]]), x + 200, y - 20, size=10,
                  color=MUTED)

    def setBotLevel(self, level):
        self.levels[1] = level
