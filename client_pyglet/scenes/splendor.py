"""
Splendor screens: the table (players and ready flags) and the game:
bank, nobles, three rows of cards, every player's hand, actions by
clicking, the discard dialog and the noble choice.
"""

from hub.games import splendor as G

from hub.client.i18n import N_, _
from hub.client import events as E
from hub.client import state as S
from client_pyglet.scenes.base import (
    ACCENT, BAD, GOLD, GOOD, MUTED, PANEL, PANEL_LIGHT, TEXT,
    GameSceneMixin, Scene)

GEM_COLOURS = {
    "diamond": (236, 236, 242), "sapphire": (52, 104, 214),
    "emerald": (40, 164, 96), "ruby": (206, 52, 64),
    "obsidian": (46, 44, 50), "golden": (234, 192, 62),
}
GEM_TEXT = {"diamond": (30, 30, 30), "golden": (30, 30, 30)}
#: The gems' names, for the catalog.
GEM_NAMES = (N_("diamond"), N_("sapphire"), N_("emerald"), N_("ruby"),
             N_("obsidian"), N_("golden"))
CARD_W, CARD_H = 92, 120
#: The action panel (buttons, or the result at the end): x, y, w, h.
ACTIONS_RECT = (570, 90, 190, 350)
LEVEL_COLOURS = {1: (70, 130, 80), 2: (190, 150, 60), 3: (70, 100, 170)}


def gemText(g):
    return GEM_TEXT.get(g, (245, 245, 245))


class SplendorTableScene(Scene):
    """
    The players at the table with their ready flags; ready; add bot.
    """

    title = N_("Splendor · table")

    def build(self):
        st = self.state
        w, h = self.width, self.height
        self.text(_("Splendor table"), w / 2, h - 110, size=22, bold=True,
                  anchor_x="center")
        x = w / 2 - 240
        y = h - 160
        self.rect(x, y - 4 * 60 - 10, 480, 4 * 60 + 20, PANEL, radius=12)
        ids = [p[0] for p in st.players]
        rows = list(st.players)
        if st.myId is not None and st.myId not in ids:
            rows.append([st.myId, False])
        for i in range(4):
            yy = y - (i + 1) * 60
            if i < len(rows):
                pid, ready = rows[i]
                me = pid == st.myId
                self.circle(x + 36, yy + 24, 16, ACCENT if me else MUTED)
                self.text(str(pid), x + 36, yy + 24, size=12, bold=True,
                          anchor_x="center", anchor_y="center")
                self.text(_("you (%s)") % (st.name,) if me else
                          _("player %d") % (pid,),
                          x + 66, yy + 16, size=15, bold=me)
                self.text(_("READY") if ready else _("not ready"), x + 460,
                          yy + 16, size=12, bold=True,
                          color=GOOD if ready else BAD, anchor_x="right")
            else:
                self.text(_("empty seat"), x + 66, yy + 16, size=12,
                          color=(90, 100, 120))
        n = len(rows)
        self.text(_("The game starts when 2 to 4 players are all ready."),
                  w / 2, y - 4 * 60 - 40, size=12, color=MUTED,
                  anchor_x="center")
        meReady = any(p[0] == st.myId and p[1] for p in st.players)
        by = y - 4 * 60 - 100
        self.button(_("Ready"), w / 2 - 240, by, 230, 42, st.setReady, True,
                    active=meReady, enabled=not meReady)
        self.button(_("Add bot"), w / 2 + 10, by, 230, 42,
                    self.session.addBot, enabled=n < 4)


class SplendorGameScene(GameSceneMixin, Scene):
    """
    The game table.
    """

    title = N_("Splendor")
    bankTitle = N_("Bank (click to pick gems)")

    def setup(self):
        self.picked = {}
        self.selected = None
        self.discardPick = {}
        self.actionsRect = ACTIONS_RECT

    def stateEvent(self, event):
        if isinstance(event, (E.TurnChanged, E.OperationPlayed,
                              E.Rejected)):
            self.picked = {}
            self.selected = None
            self.discardPick = {}
        Scene.stateEvent(self, event)

    # drawing pieces
    def gem(self, x, y, r, g, count=None, label=True):
        self.circle(x, y, r + 2, (20, 20, 24))
        self.circle(x, y, r, GEM_COLOURS[g])
        if count is not None and label:
            self.text(str(count), x, y, size=max(9, int(r * 0.8)),
                      bold=True, color=gemText(g), anchor_x="center",
                      anchor_y="center")

    def card(self, x, y, number, w=CARD_W, h=CARD_H, highlight=None):
        """
        A development card: points, bonus colour and cost.
        """
        if not number:
            self.rect(x, y, w, h, (40, 48, 66), radius=8)
            return
        c = G.CARDS[number]
        bonus = G.GEMS[c.bonus]
        self.rect(x, y, w, h, (238, 232, 218), radius=8)
        self.rect(x, y + h - h * 0.28, w, h * 0.28, GEM_COLOURS[bonus],
                  radius=8)
        if c.points:
            self.text(str(c.points), x + 8, y + h - h * 0.2, size=
                      int(h * 0.13), bold=True, color=gemText(bonus))
        self.circle(x + w - 14, y + h - h * 0.14, h * 0.08 + 2,
                    (250, 250, 250))
        self.circle(x + w - 14, y + h - h * 0.14, h * 0.08,
                    GEM_COLOURS[bonus])
        self.ring(x + w - 14, y + h - h * 0.14, h * 0.08 + 2, (30, 30, 30),
                  1)
        k = 0
        for i, n in enumerate(c.cost):
            if n:
                g = G.GEMS[i]
                if h < 100:
                    self.gem(x + 11 + (k % 2) * 19, y + 11 + (k // 2) * 17,
                             7, g, n)
                else:
                    cy = y + 10 + k * (h * 0.15) + h * 0.06
                    self.gem(x + 14, cy, h * 0.065, g, n)
                k += 1
        self.text("L%d" % (c.level,), x + w - 6, y + 6, size=8,
                  color=(120, 110, 100), anchor_x="right")
        if highlight:
            self.frame(x - 3, y - 3, w + 6, h + 6, highlight, 4)

    def miniCard(self, x, y, number, hidden):
        """
        Another player's reserved card: its bonus colour and points, or
        the back of its level when it was reserved blind.
        """
        c = G.CARDS[number]
        if hidden:
            self.rect(x, y, 24, 30, LEVEL_COLOURS[c.level], radius=4)
            self.text("?", x + 12, y + 15, size=11, bold=True,
                      anchor_x="center", anchor_y="center")
            return
        g = G.GEMS[c.bonus]
        self.rect(x, y, 24, 30, (238, 232, 218), radius=4)
        self.rect(x, y + 18, 24, 12, GEM_COLOURS[g], radius=4)
        self.text(str(c.points) if c.points else "·", x + 12, y + 8,
                  size=9, bold=True, color=(40, 40, 40), anchor_x="center",
                  anchor_y="center")

    def noble(self, x, y, number, size=76):
        c = G.NOBLES[number]
        self.rect(x, y, size, size, (214, 196, 160), radius=8)
        self.text("3", x + 8, y + size - 24, size=16, bold=True,
                  color=(60, 40, 20))
        k = 0
        for i, n in enumerate(c.cost):
            if n:
                g = G.GEMS[i]
                self.rect(x + size - 22, y + 6 + k * 22, 16, 18,
                          GEM_COLOURS[g], radius=3)
                self.text(str(n), x + size - 14, y + 15 + k * 22, size=9,
                          bold=True, color=gemText(g), anchor_x="center",
                          anchor_y="center")
                k += 1

    # the scene
    def build(self):
        st = self.state
        t = st.table
        if t is None:
            return
        hint = self.session.autoplay.hint
        hintCard = hint.card if hint is not None else None
        # nobles
        top = self.height - 60
        self.text(_("Nobles") if t.nobles else _("no nobles left"), 30,
                  top - 16, size=11, color=MUTED)
        for i, n in enumerate(t.nobles):
            self.noble(100 + i * 88, top - 84, n)
        # rows of cards, level 3 on top
        for k, level in enumerate((3, 2, 1)):
            y = top - 224 - k * 130
            deckCard = G.UNKNOWN_CARD_BASE + level
            deck = len(t.decks[level - 1])
            self.rect(30, y, CARD_W, CARD_H, LEVEL_COLOURS[level],
                      radius=8)
            if self.selected == deckCard or hintCard == deckCard:
                self.frame(27, y - 3, CARD_W + 6, CARD_H + 6,
                           GOLD if hintCard == deckCard else TEXT, 4)
            self.text(_("level %d") % (level,), 30 + CARD_W / 2, y + 70,
                      size=12, bold=True, anchor_x="center")
            self.text(_("%d left") % (deck,), 30 + CARD_W / 2, y + 45,
                      size=10, anchor_x="center")
            if deck:
                self.hit(30, y, CARD_W, CARD_H, self.select, deckCard)
            for i, number in enumerate(t.board[level - 1]):
                x = 140 + i * 102
                hl = None
                if number and number == self.selected:
                    hl = TEXT
                if number and number == hintCard:
                    hl = GOLD
                self.card(x, y, number, highlight=hl)
                if number:
                    self.hit(x, y, CARD_W, CARD_H, self.select, number)
        self.buildBank(hint)
        self.buildActions()
        self.buildPlayers(hintCard)
        self.modal = True
        if st.phase == S.OVER:
            pass
        elif st.isMyTurn() and st.discard:
            self._hits = self._assistHits()
            self.buildDiscard(hint)
        elif st.isMyTurn() and st.nobleChoice:
            self._hits = self._assistHits()
            self.buildNobleChoice(hint)
        self.modal = False

    def buildBank(self, hint):
        t = self.state.table
        y = 100
        self.text(_(self.bankTitle), 30, y + 62, size=11, color=MUTED)
        hintGems = dict(hint.gems) if hint is not None and \
            hint.kind == G.GET_GEMS else {}
        for i, g in enumerate(G.TOKENS):
            x = 60 + i * 84
            self.gem(x, y + 20, 28, g, t.bank[i])
            p = self.picked.get(g, 0)
            if p:
                self.circle(x + 24, y + 44, 12, ACCENT)
                self.text("+%d" % (p,), x + 24, y + 44, size=10,
                          bold=True, anchor_x="center", anchor_y="center")
            if g in hintGems:
                self.ring(x, y + 20, 33, GOLD, 4)
            if g != G.GOLDEN:
                self.hit(x - 30, y - 10, 60, 60, self.pick, g)

    def buildActions(self):
        st = self.state
        x, bottom, w, h = self.actionsRect
        top = bottom + h
        self.rect(x, bottom, w, h, PANEL, radius=10)
        if st.phase == S.OVER:
            self.buildResult(x, top)
            return
        mine = st.isMyTurn() and not st.discard and not st.nobleChoice
        if self.picked:
            s = ", ".join("%d %s" % (n, _(g))
                          for g, n in self.picked.items())
            self.text(_("take: %s") % (s,), x + 10, top - 12, size=10,
                      width=170, multiline=True, anchor_y="top")
        elif self.selected:
            s = (_("deck level %d") % (
                self.selected - G.UNKNOWN_CARD_BASE,)
                 if self.selected > G.UNKNOWN_CARD_BASE else
                 _("card #%d") % (self.selected,))
            self.text(_("selected: %s") % (s,), x + 10, top - 12, size=11,
                      anchor_y="top")
        else:
            self.text(_("pick gems or a card"), x + 10, top - 12, size=11,
                      color=MUTED, anchor_y="top")
        buy = reserve = take = False
        if mine and self.selected:
            buy = self.buyAction() is not None
            reserve = st.check(self.reserveAction()) is None
        if mine and self.picked:
            take = st.check(self.takeAction()) is None
        # from the bottom up, 10 px inside the panel
        bx, bw = x + 10, w - 20
        y = bottom + 10
        if st.phase == S.GAME:
            ap = self.session.autoplay
            self.button(_("Suggest"), bx, y, bw, 32, self.suggest,
                        enabled=st.isMyTurn() and not ap.enabled)
            y += 40
            self.button(_("AI 托管: on") if ap.enabled else
                        _("AI 托管: off"),
                        bx, y, bw, 32, self.toggleAuto, active=ap.enabled)
            y += 48
            s, c, size = (_("Your turn"), ACCENT, 14) if st.isMyTurn() \
                else (_("player %s's turn") % (st.currentId,), MUTED, 12)
            self.text(s, x + w / 2, y, size=size, bold=True, color=c,
                      anchor_x="center")
            y += 28
        self.button(_("Clear"), bx, y, bw, 30, self.clear,
                    enabled=bool(self.picked or self.selected),
                    color=(90, 90, 110))
        y += 40
        self.button(_("Reserve"), bx, y, bw, 34, self.reserve,
                    enabled=reserve)
        y += 44
        self.button(_("Buy"), bx, y, bw, 34, self.buy, enabled=buy)
        y += 44
        self.button(_("Take gems"), bx, y, bw, 34, self.take, enabled=take)

    def _assistHits(self):
        """
        The hit areas that stay live under a dialog: AI 托管 and Suggest.
        """
        return [h for h in self._hits
                if h[4] in (self.toggleAuto, self.suggest)]

    def buildPlayers(self, hintCard):
        st = self.state
        t = st.table
        x = 780
        top = self.height - 60
        y = top
        for seat, pid in enumerate(st.sequence):
            p = t.players[seat]
            me = pid == st.myId
            h = 196 if me else 140
            y -= h + 8
            turn = t.currentSeat == seat and st.phase == S.GAME
            self.rect(x, y, 300, h, PANEL_LIGHT if turn else PANEL,
                      radius=10)
            if turn:
                self.frame(x, y, 300, h, GOLD, 2)
            name = self.playerName(seat, pid)
            if st.winnerId == pid:
                name += _("  ★ winner")
            self.text(name, x + 12, y + h - 24, size=13, bold=me)
            self.text(_("%d pts") % (p.points,), x + 288, y + h - 24,
                      size=15, bold=True, color=GOLD, anchor_x="right")
            # tokens and bonuses
            for i, g in enumerate(G.TOKENS):
                cx = x + 24 + i * 46
                self.gem(cx, y + h - 52, 13, g, p.tokens[i])
                if i < len(G.GEMS):
                    self.rect(cx - 12, y + h - 94, 24, 28, GEM_COLOURS[g],
                              radius=4)
                    self.text(str(p.bonuses[i]), cx, y + h - 80, size=11,
                              bold=True, color=gemText(g),
                              anchor_x="center", anchor_y="center")
            summary = _("tokens %d · cards %d · nobles %d") % (
                p.tokenCount(), len(p.purchased), len(p.nobles))
            if me:
                self.text(summary + _(" · reserved %d") % (
                    len(p.reserved),),
                          x + 12, y + 8, size=9, color=MUTED)
            else:
                self.text(summary, x + 288, y + 12, size=9, color=MUTED,
                          anchor_x="right")
                hidden = st.hidden.get(seat, [])
                for i, card in enumerate(p.reserved):
                    self.miniCard(x + 12 + i * 30, y + 6, card,
                                  card in hidden)
            if me:
                for i, card in enumerate(p.reserved):
                    cx = x + 12 + i * 70
                    hl = TEXT if card == self.selected else (
                        GOLD if card == hintCard else None)
                    self.card(cx, y + 24, card, 62, 72, highlight=hl)
                    self.hit(cx, y + 24, 62, 72, self.select, card)

    def playerName(self, seat, pid):
        """
        What the hand of player C{pid} (at C{seat}) is called.
        """
        if pid == self.state.myId:
            return _("you (%s)") % (self.state.name,)
        return _("player %d") % (pid,)

    def buildResult(self, x, top):
        """
        The winner and the ranking, in the action panel.
        """
        st = self.state
        t = st.table
        won = st.winnerId == st.myId
        self.rect(x + 8, top - 62, 174, 52, GOOD if won else GOLD,
                  radius=8)
        self.text(_("You win!") if won else
                  _("Player %s wins") % (st.winnerId,),
                  x + 95, top - 36, size=16 if won else 13, bold=True,
                  anchor_x="center", anchor_y="center")
        yy = top - 100
        self.text(_("Ranking"), x + 12, yy, size=13, bold=True, color=GOLD)
        ranking = t.ranking()
        winner = st.seatOf(st.winnerId)
        if winner in ranking:
            ranking.remove(winner)
            ranking.insert(0, winner)
        for rank, seat in enumerate(ranking):
            yy -= 40
            pid = st.sequence[seat]
            p = t.players[seat]
            self.text("%d. %s" % (rank + 1, _("you") if pid == st.myId
                                  else _("player %d") % (pid,)),
                      x + 12, yy, size=13, bold=pid == st.myId)
            self.text(_("%d points, %d cards") % (p.points, len(p.purchased)),
                      x + 30, yy - 18, size=10, color=MUTED)
        if st.connected:
            self.button(_("New game"), x + 10, 100, 170, 34, st.newGame)

    def buildDiscard(self, hint):
        st = self.state
        p = st.table.players[st.mySeat()]
        w, h = 560, 230
        x, y = (self.width - w) / 2, (self.height - h) / 2
        self.rect(x, y, w, h, (28, 34, 50), radius=14)
        self.frame(x, y, w, h, GOLD, 2)
        picked = sum(self.discardPick.values())
        self.text(_("Too many tokens: give back %d (%d chosen)") % (
            st.discard, picked), x + w / 2, y + h - 40, size=15,
            bold=True, anchor_x="center")
        hintGems = dict(hint.gems) if hint is not None and \
            hint.kind == G.DISCARD_GEMS else {}
        for i, g in enumerate(G.TOKENS):
            cx = x + 60 + i * 88
            self.gem(cx, y + 110, 24, g, p.tokens[i])
            n = self.discardPick.get(g, 0)
            self.text("-%d" % (n,), cx, y + 70, size=12, bold=True,
                      color=BAD if n else MUTED, anchor_x="center")
            if g in hintGems:
                self.ring(cx, y + 110, 29, GOLD, 4)
            self.hit(cx - 26, y + 84, 52, 52, self.pickDiscard, g)
        self.button(_("Give back"), x + w / 2 - 170, y + 16, 160, 36,
                    self.sendDiscard, enabled=picked == st.discard)
        self.button(_("Reset"), x + w / 2 + 10, y + 16, 160, 36,
                    self.resetDiscard, color=(90, 90, 110))

    def buildNobleChoice(self, hint):
        st = self.state
        w, h = 520, 200
        x, y = (self.width - w) / 2, (self.height - h) / 2
        self.rect(x, y, w, h, (28, 34, 50), radius=14)
        self.frame(x, y, w, h, GOLD, 2)
        self.text(_("Choose a noble"), x + w / 2, y + h - 40, size=16,
                  bold=True, anchor_x="center")
        for i, n in enumerate(st.nobleChoice):
            nx = x + 40 + i * 100
            self.noble(nx, y + 30, n)
            if hint is not None and hint.card == n:
                self.frame(nx - 3, y + 27, 82, 82, GOLD, 3)
            self.hit(nx, y + 30, 76, 76, self.chooseNoble, n)

    # actions
    def pick(self, g):
        if self.selected:
            self.selected = None
        n = self.picked.get(g, 0)
        if n >= 2 or (n == 1 and len(self.picked) > 1) or \
                (n == 0 and any(v == 2 for v in self.picked.values())):
            self.picked.pop(g, None)
        else:
            self.picked[g] = n + 1

    def select(self, number):
        self.picked = {}
        self.selected = None if self.selected == number else number

    def clear(self):
        self.picked = {}
        self.selected = None

    def takeAction(self):
        return G.Action(G.GET_GEMS, 0, tuple(
            (g, self.picked[g]) for g in G.CLIENT_GEMS if g in self.picked))

    def reserveAction(self):
        if self.selected > G.UNKNOWN_CARD_BASE:
            return G.Action(G.FOLD_CARD_UNKNOWN, self.selected)
        return G.Action(G.FOLD_CARD, self.selected)

    def buyAction(self):
        st = self.state
        if not self.selected or self.selected > G.UNKNOWN_CARD_BASE:
            return None
        pay = st.table.payment(st.mySeat(), self.selected)
        if pay is None:
            return None
        a = G.Action(G.BUY_CARD, self.selected, pay)
        return a if st.check(a) is None else None

    def _play(self, action):
        if action is None:
            return
        why = self.state.check(action)
        if why is not None:
            self.state.error(_("not allowed: %s") % (why,))
            return
        self.state.playAction(action)
        self.clear()

    def take(self):
        self._play(self.takeAction())

    def buy(self):
        self._play(self.buyAction())

    def reserve(self):
        if self.selected:
            self._play(self.reserveAction())

    def pickDiscard(self, g):
        st = self.state
        p = st.table.players[st.mySeat()]
        i = G.TOKEN_INDEX[g]
        n = self.discardPick.get(g, 0)
        if n < p.tokens[i] and sum(self.discardPick.values()) < st.discard:
            self.discardPick[g] = n + 1
        else:
            self.discardPick.pop(g, None)

    def resetDiscard(self):
        self.discardPick = {}

    def sendDiscard(self):
        gems = tuple((g, self.discardPick[g]) for g in G.CLIENT_ORDER
                     if self.discardPick.get(g))
        self._play(G.Action(G.DISCARD_GEMS, 0, gems))
        self.discardPick = {}

    def chooseNoble(self, n):
        self._play(G.Action(G.GET_NOBLE, n))


SCENES = {
    S.ROOM: SplendorTableScene,
    S.GAME: SplendorGameScene,
    S.OVER: SplendorGameScene,
}
