"""
Client state machine of the gomoku-battle protocol (no pyglet).

Messages in and out are the protocol's JSON objects as dicts (what
L{hub.wire.gomoku} encodes and decodes); the envelope (C{token},
C{session}) is filled in here.  The position is kept as a
L{hub.games.gomoku} game so that the local bot can play it.
"""

from typing import Any, Callable, Dict, List, Optional, Tuple, cast

from twisted.python.failure import Failure

from hub.client.i18n import N_, _
from hub.games import gomoku as G
from hub.wire import gomoku as W

from hub.client import events as E
from hub.client import state as S
from hub.client.state import ClientState

BLACK = G.BLACK
WHITE = G.WHITE
SIZE = G.SIZE

RESULT_TEXTS = {
    W.S_NOCHANGE: N_("no change"), W.S_ERROR: N_("general error"),
    W.S_ILLEGAL_OPER_LIMITS: N_("too many illegal operations"),
    W.S_INVALID_MSG: N_("invalid message"),
    W.S_ILLEGAL_MSG: N_("illegal message"),
    W.S_ILLEGAL_OPER: N_("illegal operation"),
    W.S_PLAYER_INVALID_META: N_("invalid player name"),
    W.S_PLAYER_EXISTS: N_("that name is taken"),
    W.S_PLAYER_INVALID: N_("invalid player (only the owner can start)"),
    W.S_PLAYER_BUSY: N_("player busy"),
    W.S_ROOM_INVALID_META: N_("invalid room name or password"),
    W.S_ROOM_EXISTS: N_("that room already exists"),
    W.S_ROOM_NOT_EXISTS: N_("no such room"),
    W.S_ROOM_FULL: N_("the room is full"),
    W.S_ROOM_ILLEGAL_ACCESS: N_("wrong password"),
    W.S_ROOM_ALREADY_INSIDE: N_("already in the room"),
    W.S_ROOM_ILLEGAL_OPER: N_("not allowed now"),
    W.S_ROOM_EMPTY: N_("room empty"),
    W.S_MATCH_ILLEGAL_MOVE: N_("illegal move"),
    W.S_MATCH_OPER_TIMEOUT: N_("timeout"),
}
GAME_RESULTS: Dict[Optional[int], str] = {
    W.GAME_RSLT_WIN: "win", W.GAME_RSLT_LOSE: "lose",
    W.GAME_RSLT_DRAW: "draw", W.GAME_RSLT_ERROR: "error"}


def resultText(status: int) -> str:
    """
    A readable text for a C{msg_result} status code.
    """
    text = RESULT_TEXTS.get(status, N_("error"))
    return "%s (%d)" % (_(text), status)


class GomokuState(ClientState):
    """
    Registration, lobby, room and game of one gomoku player.

    @ivar token: the token the server issued, or None.
    @ivar rooms: the last room list (list of room dicts).
    @ivar room: the room we are in (dict with C{name}, C{owner},
        C{guest}, C{gs}, C{oct}, C{state}, C{psw}) or None.
    @ivar game_: the position, a L{hub.games.gomoku.GomokuGame}.
    @ivar result: C{"win"}, C{"lose"}, C{"draw"} or C{"error"} at the end.
    @ivar awaitingReply: a request that changes the turn is unanswered.
    """

    game = "gomoku"

    def __init__(self, name: str) -> None:
        ClientState.__init__(self)
        self.name = name
        self.token: Optional[int] = None
        self.session = 0
        self.pending: Dict[Optional[int], Tuple[Optional[str], Any]] = {}
        self.rooms: List[Dict[str, Any]] = []
        self.room: Optional[Dict[str, Any]] = None
        self.result: Optional[str] = None
        self.awaitingReply = False
        self.resuming = False
        self.opponent: Optional[str] = None
        self._inflight: List[Tuple[int, int]] = []
        self.newBoard()

    # helpers
    def newBoard(self) -> None:
        self.game_ = G.GomokuGame()

    @property
    def lastMove(self) -> Optional[G.Cell]:
        return self.game_.lastMove

    @property
    def moveCount(self) -> int:
        return len(self.game_.moves)

    def stone(self, x: int, y: int) -> int:
        """
        The stone at C{(x, y)}: 0, L{BLACK} or L{WHITE}.
        """
        return self.game_.at(x, y)

    def _request(self, kind: str, build: Callable[..., Dict[str, Any]],
                 data: Any = None, *args: Any, **kw: Any) -> bool:
        if not self.connected:
            self.error(_("not connected"))
            return False
        self.session += 1
        self.pending[self.session] = (kind, data)
        return self.send(build(*args, session=self.session, **kw))

    def isOwner(self) -> bool:
        return bool(self.room and self.room.get("owner") == self.name)

    def myColour(self) -> Optional[int]:
        """
        Our colour (L{BLACK} or L{WHITE}) in the current room.
        """
        if not self.room:
            return None
        oct_ = self.room.get("oct", WHITE)
        return oct_ if self.isOwner() else W.CHESS_SUM - oct_

    def toMove(self) -> int:
        """
        The colour to move: black first, then alternating.
        """
        return G.SEAT_COLOURS[self.moveCount & 1]

    def isMyTurn(self) -> bool:
        return self.phase == S.GAME and self.toMove() == self.myColour()

    def mySeat(self) -> int:
        # (in no room: white's seat)
        return G.seatOfColour(cast(int, self.myColour()))

    def rules(self) -> G.GomokuGame:
        """
        A copy of the position as an L{hub.ihub.IGameRules}.
        """
        return self.game_.copy()

    def playAction(self, action: G.Cell) -> None:
        x, y = action
        self.move(x, y)

    # connection
    def connectionMade(self) -> None:
        if self.token is not None:
            self.resuming = True
            self._request("resume", W.regMessage, None, self.name,
                          token=self.token)
        else:
            self.setPhase(S.CONNECTING)
            self._request("reg", W.regMessage, None, self.name)

    def connectionLost(self, reason: Optional[Failure]) -> None:
        self.awaitingReply = False
        self._inflight = [data for kind, data in self.pending.values()
                          if kind == "move"]
        self.pending.clear()
        if self.token is not None and self.phase in (S.ROOM, S.GAME,
                                                     S.LOBBY):
            self.emit(E.Lost())
            self.error(_("connection lost"))
        else:
            ClientState.connectionLost(self, reason)

    # user actions
    def register(self, name: str) -> None:
        """
        Register again, as C{name}, after a refused registration (the
        protocol allows another C{msg_reg} until one succeeds).
        """
        self.name = name
        self._request("reg", W.regMessage, None, name)

    def refreshRooms(self) -> None:
        self._request("list", W.requestMessage, None, W.REQ_ROOM_LIST)

    def createRoom(self, name: str, password: str = "",
                   colour: int = WHITE) -> None:
        room = W.roomObject(name, self.name, "", colour,
                            W.PLAYER_STATE_PREPARE, W.ROOM_STATE_OPEN,
                            password)
        self._request("create", W.roomOpMessage, room, W.RO_ROOM_CREATE,
                      name, password, oct=colour)

    def joinRoom(self, name: str, password: str = "") -> None:
        self._request("join", W.roomOpMessage, None, W.RO_ROOM_JOIN, name,
                      password)

    def exitRoom(self) -> None:
        if self.room:
            self._request("exit", W.roomOpMessage, None, W.RO_ROOM_EXIT,
                          self.room["name"], "")

    def setReady(self, ready: bool) -> None:
        state = W.PLAYER_STATE_READY if ready else W.PLAYER_STATE_PREPARE
        self.awaitingReply = self._request("ready", W.stateMessage, state,
                                           state)

    def setColour(self, colour: int) -> None:
        self._request("chess", W.chessMessage, colour, colour)

    def startGame(self) -> None:
        self._request("start", W.requestMessage, None, W.REQ_GAME_START)

    def move(self, x: int, y: int) -> None:
        if not self.isMyTurn():
            self.error(_("not your turn"))
            return
        if self.awaitingReply:
            return
        self.awaitingReply = self._request(
            "move", W.moveMessage, (x, y), 0, x, y, token=W.INVALID_U64)

    def backToRoom(self) -> None:
        """
        Leave the result screen for the room.
        """
        if self.phase == S.OVER:
            self.setPhase(S.ROOM)

    # incoming
    def messageReceived(self, m: W.Message) -> None:
        t = m.get("msg_type")
        handler: Optional[Callable[[W.Message], None]] = {
            W.MSG_RESULT: self._result, W.MSG_ROOMLIST: self._roomList,
            W.MSG_ROOM: self._roomInfo, W.MSG_GAME: self._gameState,
            W.MSG_MOVE: self._opponentMove,
        }.get(cast(int, t))
        if handler is not None:
            handler(m)

    def _result(self, m: W.Message) -> None:
        status = m.get("status", W.S_ERROR)
        kind, data = self.pending.pop(m.get("session"), (None, None))
        if kind in ("reg", "resume"):
            if status == 0:
                token = m.get("token")
                if kind == "resume" and token == self.token:
                    self.resuming = False
                    self.awaitingReply = False
                    self.notify(_("reconnected"))
                    self.emit(E.Changed())
                    return
                if kind == "resume":
                    self.room = None
                    self.notify(_("reconnected as a new player"))
                self.resuming = False
                self.token = token
                self.setPhase(S.LOBBY)
                self.refreshRooms()
            else:
                self.error(_("register failed: %s") % (resultText(status),))
                if kind == "resume":
                    self.token = None
                    self.setPhase(S.CLOSED)
                else:
                    self.emit(E.RegisterFailed(status))
            return
        if kind == "create":
            if status == 0:
                room = dict(data)
                room["owner"] = self.name
                room["guest"] = ""
                self.room = room
                self.setPhase(S.ROOM)
                self.emit(E.RoomChanged())
            else:
                self.error(_("create failed: %s") % (resultText(status),))
                self.emit(E.RoomFailed(status))
        elif kind == "join":
            if status != 0:
                self.error(_("join failed: %s") % (resultText(status),))
                self.emit(E.RoomFailed(status))
        elif kind == "exit":
            if status == 0:
                self.room = None
                self.setPhase(S.LOBBY)
                self.refreshRooms()
        elif kind == "ready":
            self.awaitingReply = False
            if status == 0 and self.room:
                self.room["gs"] = data
                self.emit(E.RoomChanged())
            elif status:
                self.error(_("ready failed: %s") % (resultText(status),))
        elif kind == "chess":
            if status == 0 and self.room:
                self.room["oct"] = data
                self.emit(E.RoomChanged())
            elif status:
                self.error(_("colour change failed: %s")
                           % (resultText(status),))
        elif kind == "start":
            if status:
                self.error(_("start failed: %s") % (resultText(status),))
        elif kind == "move":
            self.awaitingReply = False
            if status == 0:
                x, y = data
                self._place(x, y, cast(int, self.myColour()))  # in a game
                self.emit(E.Accepted())
            else:
                self.error(_("move refused: %s") % (resultText(status),))
                self.emit(E.Rejected())
        elif status:
            self.error(resultText(status))
            if status == W.S_ILLEGAL_OPER_LIMITS:
                self.token = None

    def _roomList(self, m: W.Message) -> None:
        entry = self.pending.get(m.get("session"))
        if entry is not None and entry[0] == "list":
            del self.pending[m.get("session")]
        self.rooms = list(m.get("rooms") or [])
        self.emit(E.RoomsListed())

    def _roomInfo(self, m: W.Message) -> None:
        room = dict(m.get("room") or {})
        self.room = room
        t = m.get("type")
        if t == W.RI_PLAYER_JOIN and self.phase == S.LOBBY:
            self.setPhase(S.ROOM)
        elif t == W.RI_PLAYER_JOIN:
            self.notify(_("%s joined") % (room.get("guest"),))
        elif t == W.RI_PLAYER_EXIT:
            self.notify(_("the other player left"))
        self.emit(E.RoomChanged())

    def _gameState(self, m: W.Message) -> None:
        state = m.get("state")
        if state == W.GAME_STATE_RUNNING and self.phase != S.GAME:
            self.newBoard()
            room = self.room or {}
            self.opponent = (room.get("guest") if self.isOwner()
                             else room.get("owner")) or None
            self.result = None
            self.awaitingReply = False
            self.setPhase(S.GAME)
            self.emit(E.TurnChanged())
        elif state == W.GAME_STATE_END:
            self.result = GAME_RESULTS.get(m.get("ex"), "error")
            self.awaitingReply = False
            if self.room:
                self.room["gs"] = W.PLAYER_STATE_PREPARE
                self.room["state"] = W.ROOM_STATE_FULL
            self.setPhase(S.OVER)

    def _opponentMove(self, m: W.Message) -> None:
        if self.phase != S.GAME:
            return
        mine = self.myColour()
        assert mine is not None  # a game is played in a room
        colour = W.CHESS_SUM - mine
        if self.toMove() != colour and self._inflight:
            # our move crossed a dropped connection and the server took it
            x, y = self._inflight.pop()
            self._place(x, y, mine)
        self._inflight = []
        # (the wire checked both)
        self._place(cast(int, m.get("x")), cast(int, m.get("y")), colour)

    def _place(self, x: int, y: int, colour: int) -> None:
        try:
            self.game_.apply(G.seatOfColour(colour), (x, y))
        except ValueError as e:
            self.error(_("out of sync with the server: %s") % (e,))
            return
        self.emit(E.Moved(G.seatOfColour(colour), (x, y), colour))
        self.emit(E.TurnChanged())
