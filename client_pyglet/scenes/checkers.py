"""
Chinese checkers screens: join, room, and the star board.
"""

import math

import pyglet
from pyglet import shapes

from hub.games import checkers as G

from hub.client.i18n import N_, _
from hub.client import events as E
from hub.client import state as S
from client_pyglet.scenes.base import (
    ACCENT, BAD, GOLD, GOOD, MESSAGE_BAND, MUTED, PANEL, TEXT, FONTS,
    BoardSceneMixin, Scene, rgba)

#: Region colours (as the official server's client: A yellow, B red,
#: C purple, D blue, E cyan, F green).
REGION_COLOURS = {
    "A": (240, 200, 60), "B": (220, 70, 70), "C": (160, 90, 210),
    "D": (70, 120, 230), "E": (60, 200, 210), "F": (80, 190, 90),
}
HOP_SECONDS = 0.18
SQRT3_2 = math.sqrt(3) / 2
#: The board's panel, in cells: 14.4 wide, 14.6 high.
BOARD_W, BOARD_H = 14.4, 14.6
#: Room left free below the header bar.
HEADER_SPACE = 52
#: The player counts of the room's chooser (the server decides which
#: of them start).
ROOM_COUNTS = (1, 2, 3, 4, 6)
AUTO = "auto"


def rotateCW(cell, times):
    """
    Rotate C{cell} clockwise by C{times} sixths of a turn (A -> B).
    """
    x, y = cell
    for unused in range(times % 6):
        x, y = x + y, -x
    return x, y


def tint(c, f):
    """
    C{c} mixed with the background by C{f} (0 background .. 1 colour).
    """
    bg = (40, 48, 66)
    return tuple(int(bg[i] + (c[i] - bg[i]) * f) for i in range(3))


class CheckersJoinScene(Scene):
    """
    Join (or create) a room by id, with a user name.
    """

    title = N_("Chinese checkers · join a room")

    def build(self):
        w, h = self.width, self.height
        x = w / 2 - 220
        self.rect(x, h / 2 - 170, 440, 330, PANEL, radius=12)
        self.text(_("Join or create a room"), w / 2, h / 2 + 120, size=18,
                  bold=True, anchor_x="center")
        self.field("room", _("room id"), x + 30, h / 2 + 30, 380,
                   value=self.app.options.room or "gamehub")
        self.field("name", _("your name (letters, digits, _)"), x + 30,
                   h / 2 - 50, 380, value=self.state.shownName)
        self.button(_("Join"), x + 30, h / 2 - 140, 380, 44, self.join,
                    size=15)

    def join(self):
        room = self.fieldValue("room").strip()
        name = self.fieldValue("name").strip()
        if not room or not name:
            self.state.error(_("room id and name are needed"))
            return
        if name == self.state.shownName:
            # The name proven with its key, as the start screen gave it.
            name = self.state.name
        self.state.join(room, name)

    def onSubmit(self, name):
        self.join()


class CheckersRoomScene(Scene):
    """
    The room: members with ready flags and regions; the player count
    (1/2/3/4/6 or auto), Fill with bots at a level, Add bot (with its
    level) at each empty position; ready, leave.

    @ivar target: the player count chosen, or L{AUTO}.
    @ivar fillLevel: the level of the bots Fill adds.
    @ivar seatLevels: the level of the bot each empty position would get.
    """

    title = N_("Chinese checkers · room")

    def setup(self):
        o = self.app.options
        self.target = o.players if o.players in ROOM_COUNTS else AUTO
        self.fillLevel = o.level or 2
        self.seatLevels = [self.fillLevel] * 6

    def playerCount(self):
        """
        The count chosen, auto resolved (the least count at or above the
        members, 6 at most).
        """
        n = len(self.state.members)
        if self.target == AUTO:
            return min(c for c in ROOM_COUNTS if c >= max(1, min(n, 6)))
        return self.target

    def setTarget(self, target):
        self.target = target

    def cycleSeatLevel(self, index):
        self.seatLevels[index] = self.seatLevels[index] % 3 + 1

    def cycleFillLevel(self):
        self.fillLevel = self.fillLevel % 3 + 1

    def fill(self):
        bots = self.session.fillWithBots(self.playerCount(), self.fillLevel)
        if not bots:
            self.state.notify(_("the room already has %d players")
                              % (self.playerCount(),))

    def addBotAt(self, index):
        self.session.addBot(self.seatLevels[index],
                            team=max(self.playerCount(), 1))

    def build(self):
        st = self.state
        w, h = self.width, self.height
        self.text(_("Room “%s”") % (st.roomId or "",), w / 2, h - 96,
                  size=22, bold=True, anchor_x="center")
        n = len(st.members)
        count = self.playerCount()
        letters = G.PLAYER_REGIONS.get(max(n, count), ()) \
            if max(n, count) in G.PLAYER_REGIONS else ()
        x = w / 2 - 300
        top = h - 120
        # the player count
        self.text(_("Players"), x, top - 34, size=13, bold=True)
        bx = x + 90
        for c in ROOM_COUNTS + (AUTO,):
            bw = 44 if c != AUTO else 64
            self.button(_("auto") if c == AUTO else str(c), bx, top - 46,
                        bw, 34, self.setTarget, c, active=c == self.target,
                        size=12)
            bx += bw + 8
        if self.target == AUTO:
            self.text(_("auto: %d") % (count,), bx + 4, top - 34, size=12,
                      color=GOLD)
        rowH = 46
        y = top - 66
        panelH = 6 * rowH + 16
        self.rect(x, y - panelH, 600, panelH, PANEL, radius=12)
        for i in range(6):
            yy = y - (i + 1) * rowH
            region = letters[i] if i < len(letters) else None
            if i < n:
                name, ready = st.members[i]
                c = REGION_COLOURS[region] if region else MUTED
                self.circle(x + 34, yy + 18, 13, c)
                if region:
                    self.text(region, x + 34, yy + 18, size=11,
                              anchor_x="center", anchor_y="center",
                              color=(20, 20, 20), bold=True)
                me = _(" (you)") if name == st.name else ""
                self.text(name + me, x + 64, yy + 11, size=15,
                          bold=bool(me))
                self.text(_("READY") if ready else _("not ready"),
                          x + 580, yy + 11, size=12, bold=True,
                          color=GOOD if ready else BAD, anchor_x="right")
            elif i < count:
                if region:
                    self.circle(x + 34, yy + 18, 11,
                                tint(REGION_COLOURS[region], 0.4))
                self.text(_("empty position"), x + 64, yy + 11, size=12,
                          color=MUTED)
                self.button(_("level %d") % (self.seatLevels[i],),
                            x + 330, yy + 4, 100, 30,
                            self.cycleSeatLevel, i, size=11)
                self.button(_("Add bot"), x + 440, yy + 4, 140, 30,
                            self.addBotAt, i, size=11)
            else:
                self.text("-", x + 64, yy + 11, size=12,
                          color=(90, 100, 120))
        by = y - panelH - 50
        self.button(_("Fill with bots"), x, by, 180, 38, self.fill,
                    enabled=n < count, size=12)
        self.button(_("at level %d") % (self.fillLevel,), x + 190, by, 110,
                    38, self.cycleFillLevel, size=12)
        meReady = any(m[0] == st.name and m[1] for m in st.members)
        self.button(_("Ready"), x + 320, by, 130, 38, st.setReady, True,
                    active=meReady, enabled=not meReady, size=12)
        self.button(_("Leave"), x + 460, by, 140, 38, st.leave,
                    color=(120, 60, 60), size=12)
        self.text(_("The game starts when everyone is ready and the "
                    "server allows %d players.") % (max(n, 1),), w / 2,
                  by - 30, size=11, color=MUTED, anchor_x="center")
        self.text(_("Against a server, regions go by join order: the "
                    "seat is chosen in offline play only."), w / 2, by - 52,
                  size=11, color=GOLD, anchor_x="center")


class CheckersGameScene(BoardSceneMixin, Scene):
    """
    The star board in six colours, selection, legal destinations, jump
    animations, whose turn with a countdown, the ranking at the end.
    """

    title = N_("Chinese checkers")

    def setup(self):
        self.selected = None
        self.anim = None
        # the board and the side panel stand between the header bar and
        # the message line
        bottom, top = MESSAGE_BAND, self.height - HEADER_SPACE
        self.s = min((self.width - 380) / 13.0, (top - bottom) / BOARD_H)
        self.cx = 20 + (self.width - 360) / 2
        self.cy = (bottom + top) / 2
        s = self.s
        self.boardRect = (self.cx - BOARD_W / 2 * s,
                          self.cy - BOARD_H / 2 * s, BOARD_W * s,
                          BOARD_H * s)
        self.sideRect = (self.width - 330, bottom, 312, top - bottom)
        self.countdown = None
        self.dynBatch = pyglet.graphics.Batch()
        self.dynKeep = []
        self._rotation()

    def _rotation(self):
        mine = self.state.myRegion()
        self.turns = 0
        if mine:
            self.turns = ("ABCDEF".index("D") - "ABCDEF".index(mine)) % 6

    def pos(self, cell):
        """
        Screen position of C{cell} (rotated so our corner is at the
        bottom).
        """
        x, y = rotateCW(cell, self.turns)
        return (self.cx + (x + y / 2.0) * self.s,
                self.cy + y * SQRT3_2 * self.s)

    def cellAt(self, px, py):
        best, bestD = None, self.s * 0.45
        for cell in G.CELLS:
            x, y = self.pos(cell)
            d = math.hypot(px - x, py - y)
            if d < bestD:
                best, bestD = cell, d
        return best

    def stateEvent(self, event):
        if isinstance(event, E.Moved):
            self.selected = None
            self.anim = (event.action, event.seat, self._clock.seconds())
        elif isinstance(event, (E.TurnChanged, E.Rejected, E.Eliminated)):
            self.selected = None
            if not isinstance(event, E.TurnChanged):
                self.anim = None
        if isinstance(event, E.PhaseChanged):
            self._rotation()
        Scene.stateEvent(self, event)

    def build(self):
        st = self.state
        board = st.board
        s = self.s
        self.rect(*self.boardRect, (32, 40, 58), radius=16)
        # the star's shape: two big triangles
        tips = [self.pos(c) for c in ((-4, 8), (8, -4), (-4, -4))]
        tips2 = [self.pos(c) for c in ((4, -8), (-8, 4), (4, 4))]
        for tri in (tips, tips2):
            cxs = sum(p[0] for p in tri) / 3
            cys = sum(p[1] for p in tri) / 3
            grown = [(cxs + (p[0] - cxs) * 1.04, cys + (p[1] - cys) * 1.04)
                     for p in tri]
            self.keep(shapes.Triangle(
                *grown[0], *grown[1], *grown[2], color=rgba((52, 62, 86)),
                batch=self.batch, group=self.bgGroup))
        if board is None:
            return
        animating = self.anim is not None
        hidden = self.anim[0][-1] if animating else None
        dests = {}
        if self.selected is not None and st.isMyTurn():
            dests = board.destinations(self.selected)
        hint = self.session.autoplay.hint
        hintCells = set(hint) if hint else set()
        for cell in G.CELLS:
            px, py = self.pos(cell)
            region = G.regionOf(*cell)
            base = tint(REGION_COLOURS[region], 0.35) if region else \
                (70, 80, 104)
            self.circle(px, py, s * 0.2, base, group=self.midGroup)
            seat = board.pieceAt(cell)
            if seat is not None and cell != hidden:
                self._piece(px, py, board.regionOfSeat(seat))
            if cell in dests:
                self.ring(px, py, s * 0.36, GOOD, 3)
                self.circle(px, py, s * 0.12, GOOD, group=self.topGroup)
            if cell in hintCells:
                self.ring(px, py, s * 0.42, GOLD, 3)
        if self.selected is not None:
            px, py = self.pos(self.selected)
            self.ring(px, py, s * 0.44, TEXT, 3)
        hover = self.cellAt(*self.mouse) if st.isMyTurn() else None
        if hover is not None and hover != self.selected and (
                board.pieceAt(hover) == st.mySeat() or hover in dests):
            px, py = self.pos(hover)
            self.ring(px, py, s * 0.44, (150, 160, 180), 2)
        if st.lastPath and not animating:
            pts = [self.pos(c) for c in st.lastPath]
            for a, b in zip(pts, pts[1:]):
                self.line(a[0], a[1], b[0], b[1], TEXT, 2,
                          group=self.topGroup, alpha=140)
        self.hit(self.cx - 7 * s, self.cy - 7.3 * s, 14 * s, 14.6 * s,
                 self.clickBoard)
        self.buildSide()

    def _piece(self, px, py, region, batch=None, keep=None):
        s = self.s
        c = REGION_COLOURS[region]
        batch = batch or self.batch
        keep = keep if keep is not None else self._keep
        keep.append(shapes.Circle(px, py - 2, s * 0.36,
                                  color=rgba((10, 10, 10), 120),
                                  batch=batch, group=self.fgGroup))
        keep.append(shapes.Circle(px, py, s * 0.36, color=rgba(c),
                                  batch=batch, group=self.fgGroup))
        hi = tuple(min(255, v + 60) for v in c)
        keep.append(shapes.Circle(px - s * 0.1, py + s * 0.1, s * 0.12,
                                  color=rgba(hi), batch=batch,
                                  group=self.topGroup))

    def buildSide(self):
        st = self.state
        board = st.board
        x, bottom, w, h = self.sideRect
        top = bottom + h
        self.rect(x, bottom, w, h, PANEL, radius=12)
        self.text(_("Players"), x + 18, top - 34, size=14, bold=True)
        y = top - 72
        for name, region in sorted(st.regions.items(),
                                   key=lambda kv: kv[1]):
            seat = board.seatOfRegion(region)
            self.circle(x + 30, y + 6, 11, REGION_COLOURS[region])
            turn = st.currentRegion == region and st.phase == S.GAME
            me = _(" (you)") if name == st.name else ""
            self.text(name + me, x + 50, y, size=13, bold=turn,
                      color=TEXT if turn or not st.currentRegion else MUTED)
            if board.hasFinished(seat):
                status, c = _("home #%d") % (board.finished.index(seat) + 1,
                                          ), GOOD
            elif board.isEliminated(seat):
                status, c = _("out"), BAD
            elif turn:
                status, c = _("to move"), GOLD
            else:
                status, c = _("%d/10 home") % (board.piecesInTarget(seat),), \
                    MUTED
            self.text(status, x + 296, y, size=11, color=c,
                      anchor_x="right")
            y -= 34
        y -= 20
        if st.phase == S.OVER:
            self.text(_("Ranking"), x + 18, y, size=16, bold=True, color=GOLD)
            y -= 34
            for i, name in enumerate(st.ranking or []):
                region = st.regions.get(name)
                if region:
                    self.circle(x + 30, y + 6, 9, REGION_COLOURS[region])
                self.text("%d. %s" % (i + 1, name), x + 50, y, size=14,
                          bold=name == st.name)
                y -= 30
            self.button(_("Play again"), x + 18, 80, 276, 40, self.again)
            return
        if st.isMyTurn():
            s, c = _("Your turn"), ACCENT
        elif st.finishedMe:
            s, c = _("You finished!"), GOOD
        else:
            s, c = _("Waiting for %s") % (
                st.nameOfRegion(st.currentRegion) or "...",), MUTED
        self.text(s, x + 156, y, size=17, bold=True, color=c,
                  anchor_x="center")
        self.countdownY = y - 40
        self.countdownX = x + 156
        self.buildAssist(x + 25, y - 110)
        self.button(_("Leave game"), x + 25, y - 160, 150, 30, self.leave,
                    color=(120, 60, 60), size=11)
        if not self.session.autoplay.enabled:
            self.text(_("Click one of your pieces, then a green target."),
                      x + 18, 90, size=10, color=MUTED, width=280,
                      multiline=True)

    def leave(self):
        self.session.autoplay.setEnabled(False)
        self.state.leave()

    def again(self):
        if self.app.connection.offlinePlan is not None:
            self.app.connection.endOffline()
            return
        room = self.app.options.room or "gamehub"
        self.state.join(room)

    def animating(self):
        return self.anim is not None

    def drawDynamic(self):
        st = self.state
        self.dynKeep = []
        self.dynBatch = pyglet.graphics.Batch()
        if self.anim is not None:
            path, seat, t0 = self.anim
            t = (self._clock.seconds() - t0) / HOP_SECONDS
            hops = len(path) - 1
            if t >= hops or st.board is None:
                self.anim = None
                self.invalidate()
            else:
                k = int(t)
                f = t - k
                a, b = self.pos(path[k]), self.pos(path[k + 1])
                lift = math.sin(f * math.pi) * self.s * 0.25 if hops > 1 \
                    or abs(path[1][0] - path[0][0]) > 1 \
                    or abs(path[1][1] - path[0][1]) > 1 else 0
                px = a[0] + (b[0] - a[0]) * f
                py = a[1] + (b[1] - a[1]) * f + lift
                self._piece(px, py, st.board.regionOfSeat(seat),
                            self.dynBatch, self.dynKeep)
        if st.phase == S.GAME and st.turnStarted and \
                getattr(self, "countdownY", None):
            left = st.turnSeconds - (self._clock.seconds()
                                     - st.turnStarted)
            left = max(0, int(math.ceil(left)))
            c = BAD if left <= 5 else TEXT
            self.dynKeep.append(pyglet.text.Label(
                "%d s" % (left,), x=self.countdownX, y=self.countdownY,
                font_name=FONTS, font_size=22, weight="bold",
                color=rgba(c), anchor_x="center", batch=self.dynBatch))
        self.dynBatch.draw()

    def clickBoard(self):
        st = self.state
        cell = self.cellAt(*self.mouse)
        if cell is None or st.board is None or not self.mayPlay():
            return
        seat = st.mySeat()
        if st.board.pieceAt(cell) == seat:
            self.selected = cell if self.selected != cell else None
            return
        if self.selected is not None:
            dests = st.board.destinations(self.selected)
            if cell in dests:
                st.move(dests[cell])
                self.selected = None
                return
        self.selected = None


SCENES = {
    S.LOBBY: CheckersJoinScene,
    S.ROOM: CheckersRoomScene,
    S.GAME: CheckersGameScene,
    S.OVER: CheckersGameScene,
}
