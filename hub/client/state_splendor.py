"""
Client state machine of the Splendor protocol (no pyglet).

Messages in and out are C{(apiId, playerId, body)} triples (what
L{hub.wire.splendor} frames).  The table is a L{hub.games.splendor}
game that replays every broadcast operation, so that bank, hands, legal
actions and the local bot come from the shared rules.  The client cannot
see the decks: they are filled with the cards not yet seen, and every
NEW_CARD or revealed reserve puts the real card in place.
"""

from typing import (
    Any, Dict, Iterable, List, Optional, Sequence, Tuple, cast)

from twisted.python.failure import Failure

from hub.client.i18n import _
from hub.games import splendor as G
from hub.games import splendor_moves as GE
from hub.wire import splendor as W

from hub.client import events as E
from hub.client import state as S
from hub.client.state import ClientState

LEVEL_KEYS = ("levelOneCards_info", "levelTwoCards_info",
              "levelThreeCards_info")


def observedGame(sequence: Sequence[int], nobles: Iterable[int],
                 rows: Sequence[Sequence[int]]) -> G.SplendorGame:
    """
    A L{G.SplendorGame} for the position GAME_START describes: C{rows}
    are the three face-up rows, the decks hold every other card.
    """
    game = G.SplendorGame(len(sequence))
    game.board = [list(r) + [0] * (G.FACE_UP - len(r)) for r in rows]
    seen = set(c for r in rows for c in r)
    game.decks = [sorted(n for n, c in G.CARDS.items()
                         if c.level == level and n not in seen)
                  for level in (1, 2, 3)]
    game.nobles = list(nobles)
    return game


class SplendorState(ClientState):
    """
    Table, game and dialogs of one Splendor player.

    @ivar myId: our player id, once INIT_RESP came.
    @ivar players: C{[playerId, ready]} pairs in arrival order.
    @ivar sequence: the player ids in turn order (seat order).
    @ivar table: the L{G.SplendorGame} mirror, or None.
    @ivar currentId: the id of the player to act.
    @ivar discard: tokens we must give back (0 when none).
    @ivar nobleChoice: nobles offered to us, or ().
    @ivar winnerId: the winner, once over.
    @ivar awaitingReply: an operation of ours is unanswered.
    @ivar hidden: for a seat, the cards of its reserve that are our
        guesses (blind reserves we cannot see).
    """

    game = "splendor"

    def __init__(self, name: str) -> None:
        ClientState.__init__(self)
        self.name = name
        self.myId: Optional[int] = None
        self.players: List[List[Any]] = []
        self.sequence: List[int] = []
        self.table: Optional[G.SplendorGame] = None
        self.currentId: Optional[int] = None
        self.discard = 0
        self.nobleChoice: Tuple[int, ...] = ()
        self.winnerId: Optional[int] = None
        self.awaitingReply = False
        self.lastAction: Optional[Tuple[Optional[int], G.Action]] = None
        self._refillSlot: Optional[Tuple[int, int]] = None
        self.hidden: Dict[int, List[int]] = {}

    # interface for the bot and the scenes
    def seatOf(self, playerId: Optional[int]) -> Optional[int]:
        try:
            # (None is in no sequence)
            return self.sequence.index(cast(int, playerId))
        except ValueError:
            return None

    def mySeat(self) -> Optional[int]:
        return self.seatOf(self.myId)

    def isMyTurn(self) -> bool:
        return (self.phase == S.GAME and self.table is not None
                and not self.table.isOver
                and self.table.currentSeat == self.mySeat()
                and self.currentId == self.myId)

    def rules(self) -> Optional[G.SplendorGame]:
        if self.table is None:
            return None
        return self.table.copy()

    def playAction(self, action: G.Action) -> None:
        """
        Send C{action} (a L{G.Action}) as our operation.
        """
        kind, card, gems = action
        me = cast(int, self.myId)  # (sent as it is)
        if kind == G.GET_NOBLE:
            self.awaitingReply = self.send(
                (W.PLAYER_GET_NOBLE, me, W.nobleChoiceRequest(me, card)))
            return
        body = W.operationRequest(me, kind, card, gems)
        self.awaitingReply = self.send((W.PLAYER_OPERATION, me, body))

    def check(self, action: G.Action) -> Optional[str]:
        """
        Whether C{action} is legal for us now, as a readable reason or
        None when it is.
        """
        if not self.isMyTurn():
            return _("not your turn")
        seat = self.mySeat()
        assert self.table is not None and seat is not None  # isMyTurn
        try:
            self.table.copy().apply(seat, action)
        except G.IllegalAction as e:
            return str(e)
        return None

    # connection
    def connectionMade(self) -> None:
        self.send((W.INIT, 0, None))

    # user actions
    def newGame(self) -> None:
        """
        After WINNER: sit down at a new table (INIT again).
        """
        self.players = []
        self.sequence = []
        self.table = None
        self.winnerId = None
        self.discard = 0
        self.nobleChoice = ()
        self.awaitingReply = False
        self.hidden = {}
        self.send((W.INIT, 0, None))

    def setReady(self, ready: bool = True) -> None:
        if self.myId is not None:
            self.send((W.PLAYER_READY, self.myId, None))

    # incoming
    def messageReceived(self, message: Tuple[int, int, Any]) -> None:
        apiId, playerId, body = message
        handler = {
            W.INIT_RESP: self._initResp, W.NEW_PLAYER: self._newPlayer,
            W.PLAYER_READY: self._ready, W.GAME_START: self._start,
            W.NEW_TURN: self._newTurn,
            W.PLAYER_OPERATION: self._operation,
            W.PLAYER_OPERATION_INVALID: self._invalid,
            W.PLAYER_GET_NOBLE: self._noble, W.NEW_CARD: self._newCard,
            W.DISCARD_GEMS: self._discard, W.WINNER: self._winner,
        }.get(apiId)
        if handler is not None:
            handler(playerId, body if body is not None else {})

    def _initResp(self, playerId: int, body: W.Body) -> None:
        self.myId = body.get("allocated_player_id", playerId)
        self.players = [[p, False] for p in body.get("other_player_id", [])]
        self.setPhase(S.ROOM)
        self.emit(E.RoomChanged())

    def _newPlayer(self, playerId: int, body: W.Body) -> None:
        if playerId not in [p[0] for p in self.players]:
            self.players.append([playerId, False])
        self.emit(E.RoomChanged())

    def _ready(self, playerId: int, body: W.Body) -> None:
        for p in self.players:
            if p[0] == playerId:
                p[1] = True
        self.emit(E.RoomChanged())

    def _start(self, playerId: int, body: W.Body) -> None:
        self.sequence = list(body.get("players_sequence", []))
        rows = [body.get(k, []) for k in LEVEL_KEYS]
        nobles = cast(List[int], body.get(
            "nobles_info", body.get("nobels_info", [])))
        self.table = observedGame(self.sequence, nobles, rows)
        self.currentId = self.sequence[0] if self.sequence else None
        self.winnerId = None
        self.discard = 0
        self.nobleChoice = ()
        self.awaitingReply = False
        self.setPhase(S.GAME)

    def _newTurn(self, playerId: int, body: W.Body) -> None:
        pid = body.get("new_turn_player")
        self.currentId = pid
        seat = self.seatOf(pid)
        t = self.table
        if t is not None and seat is not None and t.isOver and t.stalled:
            # Our guesses for blind reserves made it look as if nobody
            # could act; the server, which sees the cards, goes on.
            t.stalled = False
            t.winner = None
            t.phase = G.PHASE_ACT
        if t is not None and seat is not None and not t.isOver:
            t.currentSeat = seat
            t.phase = G.PHASE_ACT
            t.pendingDiscard = 0
            t.pendingNobles = ()
        self.discard = 0
        self.nobleChoice = ()
        self.awaitingReply = False
        self.emit(E.TurnChanged(playerId=pid))

    def _operation(self, playerId: int, body: W.Body) -> None:
        t = self.table
        if t is None:
            return
        try:
            op = W.decodeOperation(body)
        except W.BodyError as e:
            self.error(_("bad operation from the server: %s") % (e,))
            return
        pid = op.playerId
        seat = self.seatOf(pid)
        if seat is None:
            return
        if op.playerId == self.myId:
            self.awaitingReply = False
        if t.currentSeat != seat and not t.isOver:
            t.currentSeat = seat
        card = op.card
        real = 0
        if op.kind == G.FOLD_CARD_UNKNOWN:
            info = body["operation_info"][0]
            level = info.get("card_level")
            if card < W.UNKNOWN_CARD_BASE:
                real = card
                level = G.CARDS[card].level if card in G.CARDS else level
            card = W.UNKNOWN_CARD_BASE + int(level)
        elif op.kind == G.BUY_CARD:
            self._reveal(seat, card)
        action = G.Action(op.kind, card, tuple(op.gems))
        self._refillSlot = None
        if op.kind in (G.BUY_CARD, G.FOLD_CARD):
            for level, row in enumerate(t.board):
                if card in row:
                    self._refillSlot = (level, row.index(card))
        try:
            events = t.apply(seat, action)
        except G.IllegalAction as e:
            self.error(_("out of sync with the server: %s") % (e,))
            return
        if op.kind == G.FOLD_CARD_UNKNOWN:
            drawn = t.players[seat].reserved[-1]
            if real:
                t.players[seat].reserved[-1] = real
                self._unguess(drawn, real)
            else:
                self.hidden.setdefault(seat, []).append(drawn)
        if any(isinstance(e, GE.DiscardRequired) for e in events) and \
                seat == self.mySeat():
            self.discard = t.pendingDiscard
        self.lastAction = (pid, action)
        self.emit(E.OperationPlayed(pid, action))
        if pid == self.myId:
            self.emit(E.Accepted())

    def _reveal(self, seat: int, card: int) -> None:
        """
        A player buys C{card}: if it was a blind reserve we only guessed,
        put the real card in its place.
        """
        assert self.table is not None  # (from _operation)
        player = self.table.players[seat]
        hidden = self.hidden.get(seat, [])
        if card in player.reserved:
            # our guess was right: the card is known from now on
            if card in hidden:
                hidden.remove(card)
            return
        if any(card in row for row in self.table.board):
            return
        level = G.CARDS[card].level if card in G.CARDS else None
        for guess in hidden:
            if level and G.CARDS[guess].level == level:
                hidden.remove(guess)
                player.reserved[player.reserved.index(guess)] = card
                self._unguess(guess, card)
                return

    def _unguess(self, guess: int, real: int) -> None:
        """
        The server dealt C{real} where we had guessed C{guess} (a card of
        the same level that we cannot see).  C{real} was among the cards
        we cannot see too, where C{guess} takes its place: in its deck,
        or as our guess for another player's blind reserve.
        """
        assert self.table is not None  # (from _operation and _newCard)
        if guess == real:
            return
        deck = self.table.decks[G.CARDS[real].level - 1]
        if real in deck:
            deck[deck.index(real)] = guess
            return
        for seat, guesses in self.hidden.items():
            if real in guesses:
                guesses[guesses.index(real)] = guess
                reserved = self.table.players[seat].reserved
                reserved[reserved.index(real)] = guess
                return
        self.error(_("out of sync with the server: card %d is not hidden")
                   % (real,))

    def _newCard(self, playerId: int, body: W.Body) -> None:
        n = body.get("card_number", 0)
        t = self.table
        if t is None or n not in G.CARDS:
            return
        level = G.CARDS[n].level
        row = t.board[level - 1]
        slot = None
        if self._refillSlot is not None and self._refillSlot[0] == level - 1:
            slot = self._refillSlot[1]
        elif 0 in row:
            slot = row.index(0)
        if slot is None:
            return
        old = row[slot]
        if old and old != n:
            row[slot] = n
            self._unguess(old, n)
        elif not old:
            deck = t.decks[level - 1]
            if n in deck:
                deck.remove(n)
            row[slot] = n
        self._refillSlot = None
        self.emit(E.Changed())

    def _invalid(self, playerId: int, body: W.Body) -> None:
        self.awaitingReply = False
        self.error(_("the server refused that action"))
        self.emit(E.Rejected())

    def _noble(self, playerId: int, body: W.Body) -> None:
        nobles = list(body.get("noble_number", []))
        pid = body.get("player_id", playerId)
        t = self.table
        if t is None:
            return
        if len(nobles) > 1:
            if pid == self.myId or pid is None:
                self.nobleChoice = tuple(nobles)
                self.emit(E.NobleChoice(self.nobleChoice))
            return
        if not nobles:
            return
        seat = self.seatOf(pid)
        noble = nobles[0]
        if seat is None or noble in t.players[seat].nobles:
            return
        if t.phase == G.PHASE_NOBLE and t.currentSeat == seat:
            try:
                t.apply(seat, G.Action(G.GET_NOBLE, noble))
            except G.IllegalAction as e:
                self.error(_("out of sync with the server: %s") % (e,))
        if pid == self.myId:
            self.awaitingReply = False
            self.nobleChoice = ()
        self.emit(E.Changed())

    def _discard(self, playerId: int, body: W.Body) -> None:
        self.discard = body.get("number_to_discard", 0)
        self.awaitingReply = False
        self.emit(E.DiscardAsked(self.discard))

    def _winner(self, playerId: int, body: W.Body) -> None:
        self.winnerId = playerId
        self.awaitingReply = False
        self.setPhase(S.OVER)

    def connectionLost(self, reason: Optional[Failure]) -> None:
        # the server closes the table after WINNER
        if self.phase != S.OVER:
            ClientState.connectionLost(self, reason)
