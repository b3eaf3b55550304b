"""
The error codes of browser play (the C{code} of an C{error} message,
docs/protocols/web.md) and the refusal that carries one.
"""

from typing import Dict, Type

from hub.lobby import (
    AlreadyInRoom, CannotStart, Draining, LobbyError, NameInRoom, NotInRoom,
    RoomExists, RoomFull, RoomNotFound, RoomRunning, WrongPassword)
from hub.tables.base import (
    GameIsOver, IllegalAction, NotSeated, NotYourTurn, TableError)

BAD_JSON = "bad-json"
BAD_MESSAGE = "bad-message"
UNKNOWN_TYPE = "unknown-type"
BAD_VERSION = "bad-version"
HELLO_FIRST = "hello-first"
ALREADY_HELLO = "already-hello"
BAD_NAME = "bad-name"
NAME_TAKEN = "name-taken"
LOGIN_REQUIRED = "login-required"
BANNED = "banned"
UNAVAILABLE = "unavailable"
BAD_KIND = "bad-kind"
BAD_ROOM = "bad-room"
BAD_SIZE = "bad-size"
BAD_SEAT = "bad-seat"
BAD_LEVEL = "bad-level"
BAD_ACTION = "bad-action"
IN_ROOM = "in-room"
NOT_IN_ROOM = "not-in-room"
NO_ROOM = "no-room"
ROOM_EXISTS = "room-exists"
ROOM_FULL = "room-full"
ROOM_RUNNING = "room-running"
NAME_IN_ROOM = "name-in-room"
WRONG_PASSWORD = "wrong-password"
CANNOT_START = "cannot-start"
NOT_OWNER = "not-owner"
DRAINING = "draining"
NO_GAME = "no-game"
NOT_YOUR_TURN = "not-your-turn"
NOT_SEATED = "not-seated"
GAME_OVER = "game-over"
ILLEGAL = "illegal"
UNSUPPORTED = "unsupported"
NOT_ENTRANT = "not-entrant"
#: More bots than a player's share (L{hub.thinkers.shares}), or more of
#: level 3.
TOO_MANY_BOTS = "too-many-bots"
TOO_MANY_STRONG_BOTS = "too-many-strong-bots"
#: A hint was asked while the last one is still being worked out.
HINT_PENDING = "hint-pending"
#: The room is homed on another node of the cluster: its browsers play
#: it from that node's web face.
OTHER_NODE = "other-node"
#: A request failed in the hub (logged with its traceback).
INTERNAL = "internal"

#: The error code of each lobby refusal.
LOBBY_ERRORS: Dict[Type[LobbyError], str] = {
    AlreadyInRoom: IN_ROOM,
    NotInRoom: NOT_IN_ROOM,
    RoomExists: ROOM_EXISTS,
    RoomNotFound: NO_ROOM,
    RoomRunning: ROOM_RUNNING,
    NameInRoom: NAME_IN_ROOM,
    RoomFull: ROOM_FULL,
    WrongPassword: WRONG_PASSWORD,
    CannotStart: CANNOT_START,
    Draining: DRAINING,
}

#: The error code of each table refusal.
TABLE_ERRORS: Dict[Type[TableError], str] = {
    GameIsOver: GAME_OVER,
    NotSeated: NOT_SEATED,
    NotYourTurn: NOT_YOUR_TURN,
    IllegalAction: ILLEGAL,
}


class PlayError(Exception):
    """
    A request was refused: C{code} says why (one of the codes above),
    C{message} in words.
    """

    def __init__(self, code: str, message: str = "") -> None:
        Exception.__init__(self, code, message)
        self.code = code
        self.message = message
