"""
Chinese checkers in the browser: a move is a path C{[[q, r], ...]}; a
room is made for a player count (its C{players}), seats by join order,
and starts when everyone is ready.
"""

from typing import Any, Dict, Optional

from hub.ihub import ISession, ISessions, Room
from hub.web.play.errors import BAD_ACTION, BAD_MESSAGE, PlayError
from hub.web.play.game import GamePlay
from hub.web.play.gomoku import cell

#: The most cells of a path.
MAX_PATH = 64
#: The most members of a checkers room (the protocol's).
CAPACITY = 6
#: The L{hub.lobby.Room.settings} key of the player count of a room made
#: in the browser.
PLAYERS = "players"


def decodeAction(value: Any) -> Any:
    """
    A path of JSON as a tuple of cells.

    @raise PlayError: with L{BAD_ACTION}.
    """
    if not isinstance(value, list) or not 2 <= len(value) <= MAX_PATH:
        raise PlayError(BAD_ACTION, "a path is 2 or more cells")
    return tuple(cell(each) for each in value)


def encodeAction(action: Any) -> Any:
    """
    A path's JSON.
    """
    return [list(each) for each in action]


class CheckersPlay(GamePlay):
    """
    Checkers' rooms and moves.
    """

    kind = "checkers"
    capacity = CAPACITY

    def welcomeFields(self) -> Dict[str, Any]:
        return {"checkersSizes": self.sizes}

    decodeAction = staticmethod(decodeAction)
    encodeAction = staticmethod(encodeAction)

    def roomFields(self, room: Room) -> Dict[str, Any]:
        if PLAYERS in room.settings:
            return {PLAYERS: room.settings[PLAYERS]}
        return {}

    def nameSession(self, sessions: ISessions, session: ISession,
                    name: str) -> None:
        sessions.setRoomName(session, name)

    def players(self, requested: Optional[int], quick: bool) -> int:
        if requested is None:
            if not quick:
                raise PlayError(BAD_MESSAGE, "players is required")
            # Quick play waits for others: not a game of one.
            return ([n for n in self.sizes if n > 1] or self.sizes)[0]
        return GamePlay.players(self, requested, quick)

    def roomSettings(self, players: int, seat: int) -> Dict[str, Any]:
        return {PLAYERS: players}

    def botsBefore(self, seat: int) -> int:
        # The seats are the join order.
        return seat

    def seatsOf(self, room: Room) -> int:
        return int(room.settings.get(PLAYERS, room.capacity))
