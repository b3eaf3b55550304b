"""
Gomoku in the browser: a stone is C{[x, y]}; a room's owner plays the
colour of its C{ownerSeat} and starts the game; the legal moves are every
empty point (never listed); a stone's C{ActionPlayed} says who is next.
"""

from typing import Any, Dict, Optional

from hub.ihub import ILobby, ISession, ISessions, ITable, Room
from hub.tables.gomoku import OWNER_SEAT
from hub.web.play.errors import BAD_ACTION, BAD_SEAT, PlayError
from hub.web.play.game import GamePlay

#: L{hub.web.play.codec.dumps} of a stone's C{ActionPlayed} (its
#: L{GomokuPlay.playedMessage}): seat, byBot, x, y, next.
PLAYED = ('{"type":"event","event":"ActionPlayed","seat":%d,'
          '"byBot":%s,"action":[%d,%d],"next":%s}')


def cell(value: Any) -> Any:
    """
    A cell C{[x, y]} of JSON as a tuple.

    @raise PlayError: with L{BAD_ACTION}.
    """
    if not isinstance(value, list) or len(value) != 2:
        raise PlayError(BAD_ACTION, "a cell is [x, y]")
    x, y = value
    if type(x) is not int or type(y) is not int:
        raise PlayError(BAD_ACTION, "not an integer")
    return (x, y)


def encodeAction(action: Any) -> Any:
    """
    A stone's JSON.
    """
    return list(action)


class GomokuPlay(GamePlay):
    """
    Gomoku's rooms and moves.
    """

    kind = "gomoku"
    ownerStarts = True
    listsLegal = False
    defaultSeat = 1

    decodeAction = staticmethod(cell)
    encodeAction = staticmethod(encodeAction)

    def roomFields(self, room: Room) -> Dict[str, Any]:
        return {"ownerSeat": room.settings.get(OWNER_SEAT)}

    def playedFields(self, table: ITable, event: Any) -> Dict[str, Any]:
        # The turns alternate without a TurnStarted each.
        game = table.game
        return {"next": None if game.isOver else game.currentSeat}

    def playedText(self, table: ITable, event: Any) -> str:
        # A stone is nearly every message: straight from its numbers.
        x, y = event.action
        game = table.game
        return PLAYED % (
            event.seat, "true" if event.byBot else "false", x, y,
            "null" if game.isOver else "%d" % (game.currentSeat,))

    def nameSession(self, sessions: ISessions, session: ISession,
                    name: str) -> None:
        sessions.claimName(session, name)

    def players(self, requested: Optional[int], quick: bool) -> int:
        return 2

    def checkSeat(self, players: int, seat: int) -> None:
        if seat not in (0, 1):
            raise PlayError(BAD_SEAT, "seat 0 plays black, 1 white")

    def roomSettings(self, players: int, seat: int) -> Dict[str, Any]:
        return {OWNER_SEAT: seat}

    def readies(self, room: Room, session: ISession) -> bool:
        return room.owner is None or room.owner.session is not session

    def leaveTable(self, lobby: ILobby, room: Room, session: ISession,
                   table: Optional[ITable], seat: Optional[int]) -> None:
        if table is None or seat is None:
            GamePlay.leaveTable(self, lobby, room, session, table, seat)
            return
        # The forfeit first: the room stays, the others in it.
        table.drop(seat)
        if lobby.roomOf(session) is room:
            lobby.leave(session)

    def resign(self, table: ITable, seat: int) -> bool:
        if table.over:
            return False
        table.forfeit(seat)  # type: ignore[attr-defined]
        return True
