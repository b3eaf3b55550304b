"""
Gomoku screens: lobby (room list, create, join), room, and the board.
"""

from twisted.internet.task import LoopingCall

from hub.client.i18n import N_, _
from hub.client import state as S
from client_pyglet.scenes.base import (
    ACCENT, BAD, GOLD, GOOD, MUTED, PANEL, PANEL_LIGHT, TEXT,
    BoardSceneMixin, Scene)
from hub.client.state_gomoku import BLACK, SIZE, WHITE
from hub.games.gomoku import winningRows

WOOD = (222, 184, 112)
WOOD_DARK = (190, 150, 80)
INK = (60, 40, 20)
STONE_BLACK = (30, 30, 34)
STONE_WHITE = (245, 245, 240)
COLOUR_NAMES = {BLACK: N_("black"), WHITE: N_("white")}
ROOM_STATES = {0: N_("open"), 1: N_("full"), 2: N_("playing")}
#: The lobby asks for the room list this often.
REFRESH_SECONDS = 5.0
#: The mark on the winning row.
WIN_MARK = (214, 40, 40)


class GomokuLobbyScene(Scene):
    """
    The room list with refresh, join (with password) and create (with
    password and colour).
    """

    title = N_("Gomoku · lobby")

    def setup(self):
        self.selected = None
        self.colour = WHITE
        self._refresh = LoopingCall(self._autoRefresh)
        self._refresh.clock = self.app.clock
        self._refresh.start(REFRESH_SECONDS, now=False)

    def close(self):
        if self._refresh.running:
            self._refresh.stop()
        Scene.close(self)

    def _autoRefresh(self):
        st = self.state
        # never while a create or join is unanswered: in a room, a list
        # request is an illegal operation
        if st.phase == S.LOBBY and st.connected and not st.pending:
            st.refreshRooms()

    def build(self):
        st = self.state
        w, h = self.width, self.height
        # room list
        x0, top = 30, h - 80
        lw = 620
        self.rect(x0, 60, lw, top - 60, PANEL, radius=10)
        self.text(_("Rooms"), x0 + 16, top - 34, size=16, bold=True)
        self.button(_("Refresh"), x0 + lw - 116, top - 44, 100, 32,
                    st.refreshRooms)
        y = top - 90
        self.text(_("room"), x0 + 20, y + 10, size=10, color=MUTED)
        self.text(_("owner"), x0 + 220, y + 10, size=10, color=MUTED)
        self.text(_("guest"), x0 + 370, y + 10, size=10, color=MUTED)
        self.text(_("state"), x0 + 520, y + 10, size=10, color=MUTED)
        if not st.rooms:
            self.text(_("No rooms yet: create one."), x0 + 20, y - 30,
                      size=12, color=MUTED)
        for room in st.rooms[:12]:
            y -= 40
            sel = self.selected == room.get("name")
            self.rect(x0 + 10, y, lw - 20, 34,
                      PANEL_LIGHT if sel else (44, 54, 76), radius=6)
            self.text(room.get("name", ""), x0 + 20, y + 11, size=12,
                      bold=sel)
            self.text(room.get("owner", ""), x0 + 220, y + 11, size=12)
            self.text(room.get("guest", "") or "-", x0 + 370, y + 11,
                      size=12)
            rs = room.get("state", 0)
            self.text(_(ROOM_STATES.get(rs, str(rs))), x0 + 520, y + 11,
                      size=12, color=GOOD if rs == 0 else MUTED)
            self.hit(x0 + 10, y, lw - 20, 34, self.select, room.get("name"))
        # join
        self.field("joinpsw", _("password (if any)"), x0 + 16, 80, 250,
                   secret=True)
        self.button(_("Join %s") % (self.selected or "..."), x0 + 290, 78,
                    200, 34, self.join, enabled=self.selected is not None)
        # create
        cx = x0 + lw + 30
        cw = w - cx - 30
        self.rect(cx, 60, cw, top - 60, PANEL, radius=10)
        self.text(_("Create a room"), cx + 16, top - 34, size=16, bold=True)
        self.field("name", _("room name"), cx + 16, top - 130, cw - 32,
                   value="%s-room" % (st.shownName,))
        self.field("psw", _("password (optional)"), cx + 16, top - 210,
                   cw - 32, secret=True)
        self.text(_("your colour (black moves first)"), cx + 16, top - 250,
                  size=10, color=MUTED)
        for i, c in enumerate((BLACK, WHITE)):
            self.button(_(COLOUR_NAMES[c]), cx + 16 + i * 120, top - 300, 110,
                        34, self.setColour, c, active=self.colour == c)
        self.button(_("Create"), cx + 16, top - 370, cw - 32, 40, self.create,
                    size=14)

    def select(self, name):
        self.selected = name

    def setColour(self, c):
        self.colour = c

    def join(self):
        if self.selected:
            self.state.joinRoom(self.selected, self.fieldValue("joinpsw"))

    def create(self):
        name = self.fieldValue("name").strip()
        if not name:
            self.state.error(_("the room needs a name"))
            return
        self.state.createRoom(name, self.fieldValue("psw"), self.colour)

    def onSubmit(self, name):
        if name in ("name", "psw"):
            self.create()
        elif name == "joinpsw":
            self.join()


def drawStoneIcon(scene, x, y, colour, r=12):
    """
    A small stone of C{colour} at C{(x, y)}.
    """
    scene.circle(x, y, r + 1, (90, 90, 90))
    scene.circle(x, y, r, STONE_BLACK if colour == BLACK else STONE_WHITE)


class GomokuRoomScene(Scene):
    """
    Owner and guest with colours and ready flag; ready/unready, colour
    switch, start, leave.
    """

    title = N_("Gomoku · room")

    def build(self):
        st = self.state
        room = st.room or {}
        w, h = self.width, self.height
        self.text(_("Room “%s”") % (room.get("name", ""),), w / 2, h - 110,
                  size=22, bold=True, anchor_x="center")
        oct_ = room.get("oct", WHITE)
        cards = [("owner", room.get("owner", ""), oct_, None),
                 ("guest", room.get("guest", ""), 17 - oct_,
                  room.get("gs") == 3)]
        for i, (role, name, colour, ready) in enumerate(cards):
            x = w / 2 - 330 + i * 360
            y = h / 2 - 60
            self.rect(x, y, 300, 180, PANEL, radius=12)
            self.text(role, x + 20, y + 145, size=11, color=MUTED)
            self.text(name or _("waiting for a player..."), x + 20, y + 105,
                      size=18 if name else 13, bold=bool(name),
                      color=TEXT if name else MUTED)
            drawStoneIcon(self, x + 35, y + 60, colour, 16)
            self.text(_("plays %s") % (_(COLOUR_NAMES[colour]),), x + 62,
                      y + 54, size=12)
            if role == "owner":
                self.text("★", x + 280, y + 145, size=14, color=GOLD,
                          anchor_x="right")
            elif name:
                self.text(_("READY") if ready else _("not ready"), x + 20,
                          y + 20, size=12, bold=True,
                          color=GOOD if ready else BAD)
        by = h / 2 - 140
        if st.isOwner():
            self.button(_("Switch colour"), w / 2 - 330, by, 180, 40,
                        st.setColour, 17 - oct_,
                        enabled=bool(room.get("guest")))
            guestReady = bool(room.get("guest")) and room.get("gs") == 3
            self.button(_("Start game"), w / 2 - 140, by, 180, 40,
                        st.startGame, enabled=guestReady,
                        color=GOOD if guestReady else None)
        else:
            ready = room.get("gs") == 3
            self.button(_("Unready") if ready else _("Ready"), w / 2 - 330, by,
                        180, 40, st.setReady, not ready, active=ready)
        self.button(_("Leave room"), w / 2 + 150, by, 180, 40, st.exitRoom,
                    color=(120, 60, 60))
        if st.isOwner() and not room.get("guest"):
            self.text(_("Waiting for a guest to join ..."), w / 2, by - 50,
                      size=12, color=MUTED, anchor_x="center")
        elif st.isOwner() and room.get("gs") != 3:
            self.text(_("The guest is not ready yet."), w / 2, by - 50,
                      size=12, color=MUTED, anchor_x="center")
        elif not st.isOwner():
            self.text(_("The owner starts the game when you are ready."),
                      w / 2, by - 50, size=12, color=MUTED,
                      anchor_x="center")


class GomokuGameScene(BoardSceneMixin, Scene):
    """
    The 15x15 board with the last-move marker, whose turn, the result
    and, at the end, the winning row.

    @ivar winningCells: the cells of the winning row(s) marked in the
        last build (empty while the game runs or when no five ended it).
    """

    title = N_("Gomoku")

    def setup(self):
        self.winningCells = []
        self.cell = min(self.width - 360, self.height - 100) / (SIZE + 0.6)
        self.ox = 30 + self.cell * 0.8
        self.oy = 40 + self.cell * 0.8

    def pos(self, x, y):
        """
        Screen position of cell C{(x, y)} (row 0 at the top).
        """
        return (self.ox + x * self.cell,
                self.oy + (SIZE - 1 - y) * self.cell)

    def cellAt(self, px, py):
        x = round((px - self.ox) / self.cell)
        y = SIZE - 1 - round((py - self.oy) / self.cell)
        if 0 <= x < SIZE and 0 <= y < SIZE:
            return x, y
        return None

    def build(self):
        st = self.state
        c = self.cell
        size = c * (SIZE - 1)
        x0, y0 = self.ox, self.oy
        self.rect(x0 - c * 0.7, y0 - c * 0.7, size + c * 1.4,
                  size + c * 1.4, WOOD, radius=8)
        self.frame(x0 - c * 0.7, y0 - c * 0.7, size + c * 1.4,
                   size + c * 1.4, WOOD_DARK, 3, group=self.midGroup)
        for i in range(SIZE):
            self.line(x0, y0 + i * c, x0 + size, y0 + i * c, INK, 1.5)
            self.line(x0 + i * c, y0, x0 + i * c, y0 + size, INK, 1.5)
        for (sx, sy) in ((3, 3), (11, 3), (7, 7), (3, 11), (11, 11)):
            px, py = self.pos(sx, sy)
            self.circle(px, py, 4, INK, group=self.midGroup)
        r = c * 0.45
        for y in range(SIZE):
            for x in range(SIZE):
                v = st.stone(x, y)
                if v:
                    px, py = self.pos(x, y)
                    self.circle(px - 1, py - 2, r, (120, 90, 50), alpha=120)
                    self.circle(px, py, r,
                                STONE_BLACK if v == BLACK else STONE_WHITE)
        if st.lastMove:
            px, py = self.pos(*st.lastMove)
            self.circle(px, py, r * 0.3, BAD, group=self.topGroup)
        self.buildWinningRows(r)
        hint = self.session.autoplay.hint
        if hint is not None:
            hx, hy = hint
            px, py = self.pos(hx, hy)
            self.ring(px, py, r, GOOD, 4)
        if st.isMyTurn() and not st.awaitingReply:
            cell = self.cellAt(*self.mouse)
            if cell and not st.stone(*cell):
                px, py = self.pos(*cell)
                mine = st.myColour()
                self.circle(px, py, r, STONE_BLACK if mine == BLACK
                            else STONE_WHITE, alpha=110,
                            group=self.topGroup)
        self.hit(x0 - c / 2, y0 - c / 2, size + c, size + c, self.clickBoard)
        self.buildSide()

    def buildWinningRows(self, r):
        """
        At the end of a game won by five in a row, a ring on each stone
        of the row and a line through it.
        """
        st = self.state
        self.winningCells = []
        if st.phase != S.OVER:
            return
        for row in winningRows(st.stone, st.lastMove):
            (ax, ay), (bx, by) = self.pos(*row[0]), self.pos(*row[-1])
            self.line(ax, ay, bx, by, WIN_MARK, 4, group=self.topGroup,
                      alpha=200)
            for cell in row:
                if cell not in self.winningCells:
                    self.winningCells.append(cell)
                px, py = self.pos(*cell)
                self.ring(px, py, r + 2, WIN_MARK, 4)

    def buildSide(self):
        st = self.state
        room = st.room or {}
        x = self.width - 310
        top = self.height - 70
        self.rect(x, 60, 290, top - 60, PANEL, radius=12)
        mine = st.myColour()
        other = st.opponent or (room.get("guest") if st.isOwner()
                                else room.get("owner"))
        y = top - 50
        for name, colour in ((st.name + _(" (you)"), mine),
                             (other or "?", 17 - mine if mine else None)):
            if colour:
                drawStoneIcon(self, x + 30, y + 6, colour, 13)
                turn = st.phase == S.GAME and st.toMove() == colour
                self.text(name, x + 55, y, size=14, bold=turn,
                          color=TEXT if turn else MUTED)
                if turn:
                    self.text(_("to move"), x + 270, y, size=11, color=GOLD,
                              anchor_x="right")
            y -= 44
        self.text(_("moves: %d") % (st.moveCount,), x + 20, y, size=11,
                  color=MUTED)
        y -= 50
        if st.phase == S.OVER:
            res = st.result or "?"
            col = {"win": GOOD, "lose": BAD}.get(res, GOLD)
            label = {"win": _("You win!"), "lose": _("You lose"),
                     "draw": _("Draw"), "error": _("Game aborted")}.get(
                         res, res)
            self.rect(x + 15, y - 30, 260, 60, col, radius=10)
            self.text(label, x + 145, y, size=20, bold=True,
                      anchor_x="center", anchor_y="center")
            self.button(_("Back to room"), x + 15, y - 90, 260, 40,
                        st.backToRoom)
        else:
            s = _("Your turn") if st.isMyTurn() else _("Opponent's turn")
            self.text(s, x + 145, y, size=18, bold=True,
                      color=ACCENT if st.isMyTurn() else MUTED,
                      anchor_x="center")
            self.buildAssist(x + 15, y - 70)
        if not st.connected and st.token is not None:
            self.text(_("reconnecting ..."), x + 145, 90, size=12, color=BAD,
                      anchor_x="center")

    def clickBoard(self):
        cell = self.cellAt(*self.mouse)
        st = self.state
        if cell is None or st.phase != S.GAME or not self.mayPlay():
            return
        st.move(*cell)


SCENES = {
    S.LOBBY: GomokuLobbyScene,
    S.ROOM: GomokuRoomScene,
    S.GAME: GomokuGameScene,
    S.OVER: GomokuGameScene,
}
