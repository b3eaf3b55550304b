"""
Client state machine of the Chinese checkers protocol (no pyglet).

Messages in and out are L{hub.wire.checkers.Message} triples
C{(op, data1, data2)}; the board is a L{hub.games.checkers.CheckersGame}
that follows the server's moves, so legal destinations, hints and the
local bot all come from the shared rules.
"""

from typing import Dict, List, Optional, Sequence, Tuple, cast

from hub.client.i18n import N_, _
from hub.games import checkers as G
from hub.wire import checkers as W

from hub.client import events as E
from hub.client import state as S
from hub.client.state import ClientState

#: The turn limit the countdown assumes (the spec's default).
TURN_SECONDS = 15

ERROR_TEXTS: Dict[Optional[int], str] = {
    W.NOT_IN_ROOM: N_("you are not in a room"),
    W.ROOM_IS_RUNNING: N_("a game is running in that room"),
    W.ROOM_NOT_RUNNING: N_("no game is running"),
    W.INVALID_JOIN: N_("cannot join (name taken, bad name or room full)"),
    W.OUTTURN_MOVE: N_("not your turn"),
    W.INVALID_MOVE: N_("illegal move"),
    W.INVALID_REQ: N_("the server did not understand the request"),
    W.OTHER_ERROR: N_("refused"),
}


def errorText(data1: str, data2: str) -> str:
    """
    A readable text for ERROR_OP C{(data1, data2)}.
    """
    base = _(ERROR_TEXTS.get(W.errorCode(data1), data1 or "error"))
    if data2:
        return "%s — %s" % (base, data2)
    return base


class CheckersState(ClientState):
    """
    Join, room and game of one checkers player.

    @ivar roomId: the room joined (or being joined).
    @ivar members: C{[name, ready]} pairs in room (join) order.
    @ivar regions: name -> region letter once the game started.
    @ivar board: the L{hub.games.checkers.CheckersGame}, or None.
    @ivar currentRegion: the region whose turn it is.
    @ivar turnStarted: the server's Unix time of the turn's start.
    @ivar turnSeconds: the server's turn limit, which the protocol does
        not carry (C{--turn-seconds}; the protocol's 15 by default).
    @ivar ranking: the final ranking (names), or None.
    @ivar lastPath: the last move's path, or None.
    """

    game = "checkers"

    def __init__(self, name: str, turnSeconds: float = TURN_SECONDS) -> None:
        ClientState.__init__(self)
        self.name = name
        self.turnSeconds = turnSeconds
        self.roomId: Optional[str] = None
        self.members: List[List[object]] = []
        self.regions: Dict[str, str] = {}
        self.board: Optional[G.CheckersGame] = None
        self.currentRegion: Optional[str] = None
        self.turnStarted: Optional[float] = None
        self.ranking: Optional[List[str]] = None
        self.lastPath: Optional[Sequence[Sequence[int]]] = None
        self.finishedMe = False
        self.awaitingReply = False
        self._beforeMove: Optional[G.CheckersGame] = None

    # interface for the bot and the scenes
    def myRegion(self) -> Optional[str]:
        return self.regions.get(self.name)

    def mySeat(self) -> Optional[int]:
        if self.board is None or self.myRegion() is None:
            return None
        return self.board.seatOfRegion(cast(str, self.myRegion()))

    def isMyTurn(self) -> bool:
        return (self.phase == S.GAME and self.board is not None
                and self.currentRegion is not None
                and self.currentRegion == self.myRegion()
                and not self.board.isOver)

    def rules(self) -> Optional[G.CheckersGame]:
        if self.board is None:
            return None
        return self.board.copy()

    def playAction(self, action: Sequence[G.Cell]) -> None:
        self.move(action)

    def nameOfRegion(self, region: str) -> Optional[str]:
        for name, r in self.regions.items():
            if r == region:
                return name
        return None

    # connection
    def connectionMade(self) -> None:
        self.setPhase(S.LOBBY)

    # user actions
    def join(self, roomId: str, name: Optional[str] = None) -> None:
        """
        Join (or create) room C{roomId}.
        """
        if name:
            self.name = name
        self.roomId = roomId
        self.send((W.JOIN_ROOM_OP, roomId, self.name))

    def setReady(self, ready: bool = True) -> None:
        """
        Say we are ready (the protocol has no "unready").
        """
        self.send((W.PLAYER_READY_OP, self.name, ""))

    def leave(self) -> None:
        """
        Leave the room (back to the join screen).
        """
        if self.roomId is not None:
            self.send((W.LEAVE_ROOM_OP, self.roomId, self.name))
        self.members = []
        self.board = None
        self.setPhase(S.LOBBY)

    def move(self, path: Sequence[G.Cell]) -> None:
        """
        Play C{path} (a sequence of cells) for our region.
        """
        if not self.isMyTurn() or self.awaitingReply:
            self.error(_("not your turn"))
            return
        seat = self.mySeat()
        assert self.board is not None and seat is not None  # isMyTurn
        try:
            path = self.board.validate(seat, path)
        except G.IllegalMove as e:
            self.error(_("illegal move: %s") % (e,))
            return
        if not self.send((W.MOVE_OP, self.myRegion(), W.formatPath(path))):
            return
        self._beforeMove = self.board.copy()
        self.awaitingReply = True
        self.board.apply(seat, path)
        self.lastPath = path
        self.emit(E.Moved(seat, path))

    # incoming
    def messageReceived(self, message: Tuple[int, str, str]) -> None:
        op, data1, data2 = message
        handler = {
            W.JOIN_ROOM_REPLY_OP: self._joined,
            W.JOIN_ROOM_OP: self._otherJoined,
            W.LEAVE_ROOM_OP: self._otherLeft,
            W.PLAYER_READY_OP: self._ready,
            W.START_GAME_OP: self._started,
            W.START_TURN_OP: self._turn,
            W.MOVE_OP: self._moved,
            W.END_TURN_OP: self._finished,
            W.END_GAME_OP: self._ended,
            W.ERROR_OP: self._error,
            W.CLOSE_ROOM_OP: self._closed,
        }.get(op)
        if handler is not None:
            handler(data1, data2)

    def _joined(self, data1: str, data2: str) -> None:
        names = data1.split()
        self.members = [[n, data2[i:i + 1] == "1"]
                        for i, n in enumerate(names)]
        self.members.append([self.name, False])
        self.ranking = None
        self.board = None
        self.regions = {}
        self.finishedMe = False
        self.setPhase(S.ROOM)
        self.emit(E.RoomChanged())

    def _otherJoined(self, data1: str, data2: str) -> None:
        if data1 and data1 not in [m[0] for m in self.members]:
            self.members.append([data1, False])
        self.emit(E.RoomChanged())

    def _otherLeft(self, data1: str, data2: str) -> None:
        self.members = [m for m in self.members if m[0] != data1]
        if self.phase == S.GAME:
            self.notify(_("%s left the game") % (data1,))
        self.emit(E.RoomChanged())

    def _ready(self, data1: str, data2: str) -> None:
        for m in self.members:
            if m[0] == data1:
                m[1] = True
        self.emit(E.RoomChanged())

    def _started(self, data1: str, data2: str) -> None:
        names = data1.split()
        letters = data2.split()
        self.regions = dict(zip(names, letters))
        self.board = G.CheckersGame(regions=letters)
        self.currentRegion = None
        self.lastPath = None
        self.ranking = None
        self.finishedMe = False
        self.awaitingReply = False
        self.setPhase(S.GAME)

    def _turn(self, data1: str, data2: str) -> None:
        self.currentRegion = data1
        try:
            self.turnStarted = int(data2)
        except ValueError:
            self.turnStarted = None
        self.awaitingReply = False
        self._beforeMove = None
        if self.board is not None and not self.board.isOver:
            seat = self.board.seatOfRegion(data1)
            if seat is not None and self.board.currentSeat != seat:
                # follow the server, the authority on turns
                self.board.currentSeat = seat
        self.emit(E.TurnChanged(region=data1))

    def _moved(self, data1: str, data2: str) -> None:
        if self.board is None:
            return
        seat = self.board.seatOfRegion(data1)
        if seat is None:
            return
        if data2.strip() == W.TIMEOUT_PATH:
            if not self.board.isActive(seat):
                return
            # (no region of ours: None finds no seat)
            mine = self.board.seatOfRegion(cast(str, self.myRegion()))
            if seat == mine and \
                    self._beforeMove is not None:
                self.board = self._beforeMove
                self._beforeMove = None
            self.board.eliminate(seat)
            who = self.nameOfRegion(data1) or data1
            self.notify(_("%s ran out of time and is out") % (who,))
            self.emit(E.Eliminated(seat))
            return
        try:
            path = W.parsePath(data2)
        except W.PathError as e:
            self.error(_("bad move from the server: %s") % (e,))
            return
        if self.board.currentSeat != seat and not self.board.isOver:
            self.board.currentSeat = seat
        try:
            self.board.apply(seat, path)
        except G.IllegalMove as e:
            self.error(_("out of sync with the server: %s") % (e,))
            return
        self.lastPath = tuple(path)
        self.emit(E.Moved(seat, tuple(path)))

    def _finished(self, data1: str, data2: str) -> None:
        self.finishedMe = True
        self.notify(_("All your pieces are home!"))
        self.emit(E.Changed())

    def _ended(self, data1: str, data2: str) -> None:
        self.ranking = data1.split()
        self.awaitingReply = False
        self.currentRegion = None
        self.roomId = None
        self.setPhase(S.OVER)

    def _error(self, data1: str, data2: str) -> None:
        text = errorText(data1, data2)
        code = W.errorCode(data1)
        if code in (W.OUTTURN_MOVE, W.INVALID_MOVE, W.ROOM_NOT_RUNNING) \
                and self._beforeMove is not None:
            self.board = self._beforeMove
            self._beforeMove = None
            self.awaitingReply = False
            self.lastPath = None
            self.error(_("move refused: %s") % (text,))
            self.emit(E.Rejected())
            return
        if code in (W.INVALID_JOIN, W.ROOM_IS_RUNNING) and \
                self.phase == S.LOBBY:
            self.roomId = None
            self.error(_("join failed: %s") % (text,))
            self.emit(E.JoinFailed(code))
            return
        self.error(text)

    def _closed(self, data1: str, data2: str) -> None:
        self.members = []
        self.roomId = None
        self.notify(_("the room was closed"))
        self.setPhase(S.LOBBY)
