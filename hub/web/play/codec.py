"""
The messages of C{/ws}, typed, and their one codec: a browser's text is
read into one of L{REQUESTS} (every field checked against the class's
annotations before any handler runs), and what the hub sends is written
from the classes of the second half, in the key order of
docs/protocols/web.md.

A field is required unless it has a default; a null, a value of another
JSON type (a bool is no int), a missing required field or a field the
message does not have is L{BAD_MESSAGE}.  What a value means (a room id's
length, a level's range, an action's shape) is the handlers' to check.
"""

import json
import typing
from typing import (
    Any, Callable, ClassVar, Dict, List, Optional, Tuple, Union)
from urllib.parse import urlencode

import attr

from hub.web.play.errors import (
    BAD_JSON, BAD_MESSAGE, UNKNOWN_TYPE, PlayError)

#: The version of the protocol this hub speaks.
PROTOCOL_VERSION = 1
#: The longest request name an error message repeats.
MAX_REQUEST = 40

#: The one encoder of every message (json.dumps with options would make
#: an encoder per call).
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
#: The one decoder (json.loads's own, without its checks of what a
#: WebSocket text always is).
_decodeJSON = json.JSONDecoder().decode


def dumps(message: Dict[str, Any]) -> str:
    """
    One message (a dict) as the text of a WebSocket message.
    """
    return _ENCODER.encode(message)


# Browser to hub: what a C{type} reads into.

@attr.frozen
class Hello:
    TYPE: ClassVar[str] = "hello"
    version: int
    name: Optional[str] = None
    resume: Optional[str] = None


@attr.frozen
class LobbyRequest:
    TYPE: ClassVar[str] = "lobby"


@attr.frozen
class Create:
    TYPE: ClassVar[str] = "create"
    kind: str
    room: Optional[str] = None
    password: str = ""
    seat: Optional[int] = None
    bots: bool = False
    level: int = 2
    players: Optional[int] = None


@attr.frozen
class Join:
    TYPE: ClassVar[str] = "join"
    kind: str
    room: Optional[str] = None
    password: str = ""


@attr.frozen
class Quick:
    TYPE: ClassVar[str] = "quick"
    kind: str
    seat: Optional[int] = None
    players: Optional[int] = None


@attr.frozen
class Bots:
    TYPE: ClassVar[str] = "bots"
    count: int = 1
    level: int = 2


@attr.frozen
class Leave:
    TYPE: ClassVar[str] = "leave"


@attr.frozen
class Ready:
    TYPE: ClassVar[str] = "ready"
    ready: bool = True


@attr.frozen
class Start:
    TYPE: ClassVar[str] = "start"


@attr.frozen
class Act:
    TYPE: ClassVar[str] = "act"
    #: Any JSON value but null: the game's module reads it.
    action: Any


@attr.frozen
class Resign:
    TYPE: ClassVar[str] = "resign"


@attr.frozen
class Hint:
    TYPE: ClassVar[str] = "hint"


#: Every request class by its message type.
REQUESTS: Dict[str, Any] = {
    cls.TYPE: cls for cls in (
        Hello, LobbyRequest, Create, Join, Quick, Bots, Leave, Ready,
        Start, Act, Resign, Hint)}


def _isInt(value: object) -> bool:
    return type(value) is int


def _isStr(value: object) -> bool:
    return type(value) is str


def _isBool(value: object) -> bool:
    return type(value) is bool


def _isAny(value: object) -> bool:
    return True


_CHECKS: Dict[Any, Tuple[Callable[[object], bool], str]] = {
    int: (_isInt, "an integer"), str: (_isStr, "a string"),
    bool: (_isBool, "true or false"), Any: (_isAny, "a value")}


def _schema(cls: type) -> Dict[str, Tuple[Callable[[object], bool], str,
                                          bool]]:
    """
    Of each field of C{cls}: its check, the words of its type, and
    whether it is required.
    """
    hints = typing.get_type_hints(cls)
    schema = {}
    for field in attr.fields(cls):
        kind = hints[field.name]
        if typing.get_origin(kind) is Union:
            kind = next(a for a in typing.get_args(kind)
                        if a is not type(None))
        check, words = _CHECKS[kind]
        schema[field.name] = (check, words, field.default is attr.NOTHING)
    return schema


#: The schema of each request class.
SCHEMAS = {cls: _schema(cls) for cls in REQUESTS.values()}


def parse(text: str) -> Dict[str, Any]:
    """
    The JSON object of a browser's message, with a string C{type}.

    @raise PlayError: L{BAD_JSON} or L{BAD_MESSAGE}.
    """
    try:
        message = _decodeJSON(text)
    except (ValueError, RecursionError):
        raise PlayError(BAD_JSON, "not JSON")
    if not isinstance(message, dict):
        raise PlayError(BAD_MESSAGE, "a message is an object")
    if not isinstance(message.get("type"), str):
        raise PlayError(BAD_MESSAGE, "a message has a type")
    return message


def typed(message: Dict[str, Any]) -> Any:
    """
    The request that the parsed C{message} is, every field checked.

    @raise PlayError: L{UNKNOWN_TYPE} or L{BAD_MESSAGE}.
    """
    cls = REQUESTS.get(message["type"])
    if cls is None:
        raise PlayError(UNKNOWN_TYPE, "no such message type")
    schema = SCHEMAS[cls]
    values = {}
    for name, value in message.items():
        if name == "type":
            continue
        entry = schema.get(name)
        if entry is None:
            raise PlayError(BAD_MESSAGE, "no field {}".format(name[:40]))
        check, words, _ = entry
        if value is None or not check(value):
            raise PlayError(BAD_MESSAGE, "{} is {}".format(name, words))
        values[name] = value
    for name, (_, _, required) in schema.items():
        if required and name not in values:
            raise PlayError(BAD_MESSAGE, "{} is required".format(name))
    return cls(**values)


def decode(text: str) -> Any:
    """
    The typed request of a browser's message.

    @raise PlayError: what L{parse} and L{typed} raise.
    """
    return typed(parse(text))


# Hub to browser: each written by L{encode}, C{"type"} first, then its
# fields in order.

@attr.frozen
class Welcome:
    TYPE: ClassVar[str] = "welcome"
    version: int
    name: str
    guest: bool
    resume: str
    resumed: bool
    kinds: List[str]
    #: Each game's own fields (checkers: C{checkersSizes}), in line.
    games: Dict[str, Any] = attr.ib(metadata={"inline": True})
    levels: List[int]


@attr.frozen
class RoomState:
    TYPE: ClassVar[str] = "room"
    #: The player's room (docs/protocols/web.md), or None.
    room: Optional[Dict[str, Any]]


@attr.frozen
class Error:
    TYPE: ClassVar[str] = "error"
    code: str
    message: str
    request: Optional[str]


@attr.frozen
class HintReply:
    TYPE: ClassVar[str] = "hint"
    action: Any


@attr.frozen
class GameReady:
    TYPE: ClassVar[str] = "game-ready"
    event: int
    kind: str
    room: str
    seat: int
    url: str


@attr.frozen
class GameGone:
    TYPE: ClassVar[str] = "game-gone"
    event: int
    kind: str
    room: str


def encode(message: Any) -> str:
    """
    The text of a message of the hub's (one of the classes above).
    """
    out: Dict[str, Any] = {"type": type(message).TYPE}
    for field in attr.fields(type(message)):
        value = getattr(message, field.name)
        if field.metadata.get("inline"):
            out.update(value)
        else:
            out[field.name] = value
    return dumps(out)


def errorText(code: str, message: str = "",
              request: Optional[str] = None) -> str:
    """
    An C{error} message, encoded; C{request} is repeated when it is a
    request name of a reasonable length.
    """
    if not isinstance(request, str) or len(request) > MAX_REQUEST:
        request = None
    return encode(Error(code, message, request))


def gameReady(eventId: int, kind: str, room: str, seat: int) -> GameReady:
    """
    The C{game-ready} message: tournament C{eventId}'s game in C{room}
    waits for the player, at C{seat}; C{url} is the play page that joins
    it.
    """
    return GameReady(eventId, kind, room, seat,
                     "/play?" + urlencode({"room": room, "kind": kind}))


def lobbyMessage(now: Dict[str, Any]) -> str:
    """
    The C{lobby} message of the hub now (L{hub.web.now.hubNow}), encoded
    (once per build of the lobby feed).
    """
    return dumps(dict(now, type="lobby"))

