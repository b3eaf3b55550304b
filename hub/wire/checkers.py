"""
The Chinese checkers wire format (docs/protocols/checkers.md: Framing,
Messages and Error codes).

A message is one compact JSON object on one line::

    {"data1":"A","data2":"0 0 -1 0","op":200007}\\n

What we send is exactly that shape: keys C{data1}, C{data2}, C{op} in
that (sorted) order, no spaces, raw UTF-8, one C{\\n}.  What we accept is
lenient: any key order, a trailing C{\\r}, integral floats for C{op}, and
non-string data fields read as C{""} (Qt's C{toString()} semantics).

Pure: no Twisted, no game rules.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple, Optional, Sequence, Tuple

from hub.wire.fastjson import decodeJson, encodeStrings

JOIN_ROOM_OP = 200000
JOIN_ROOM_REPLY_OP = 200001
LEAVE_ROOM_OP = 200002
CLOSE_ROOM_OP = 200003
PLAYER_READY_OP = 200004
START_GAME_OP = 200005
START_TURN_OP = 200006
MOVE_OP = 200007
END_TURN_OP = 200008
END_GAME_OP = 200009
ERROR_OP = 200010
# A private extension of one client (Team 6); the server ignores both.
CHECK_OP = 200011
DISPLAY_OP = 200012

OP_NAMES = {
    JOIN_ROOM_OP: "JOIN_ROOM_OP",
    JOIN_ROOM_REPLY_OP: "JOIN_ROOM_REPLY_OP",
    LEAVE_ROOM_OP: "LEAVE_ROOM_OP",
    CLOSE_ROOM_OP: "CLOSE_ROOM_OP",
    PLAYER_READY_OP: "PLAYER_READY_OP",
    START_GAME_OP: "START_GAME_OP",
    START_TURN_OP: "START_TURN_OP",
    MOVE_OP: "MOVE_OP",
    END_TURN_OP: "END_TURN_OP",
    END_GAME_OP: "END_GAME_OP",
    ERROR_OP: "ERROR_OP",
    CHECK_OP: "CHECK_OP",
    DISPLAY_OP: "DISPLAY_OP",
}

NOT_IN_ROOM = 400000
ROOM_IS_RUNNING = 400001
ROOM_NOT_RUNNING = 400002
INVALID_JOIN = 400003
OUTTURN_MOVE = 400004
INVALID_MOVE = 400005
INVALID_REQ = 400006
OTHER_ERROR = 400007

ERRCODE_NAMES = {
    NOT_IN_ROOM: "NOT_IN_ROOM",
    ROOM_IS_RUNNING: "ROOM_IS_RUNNING",
    ROOM_NOT_RUNNING: "ROOM_NOT_RUNNING",
    INVALID_JOIN: "INVALID_JOIN",
    OUTTURN_MOVE: "OUTTURN_MOVE",
    INVALID_MOVE: "INVALID_MOVE",
    INVALID_REQ: "INVALID_REQ",
    OTHER_ERROR: "OTHER_ERROR",
}

# The longest line we accept (without its delimiter); past it the
# connection gets INVALID_REQ and is closed.
MAX_LINE_LENGTH = 8192

DELIMITER = b"\n"

# MOVE_OP data2 announcing that the player whose turn it is timed out.
TIMEOUT_PATH = "-1"


class DecodeError(ValueError):
    """
    A line is not a checkers message (answer with INVALID_REQ).
    """


class PathError(ValueError):
    """
    A MOVE_OP path is not an even list of at least four integers.
    """


class Message(NamedTuple):
    """
    One decoded message.

    @ivar op: the opcode, an L{int} (possibly one we do not know).
    @ivar data1: the first data field, always a L{str}.
    @ivar data2: the second data field, always a L{str}.
    """

    op: int
    data1: str = ""
    data2: str = ""


def encode(op: int, data1: str = "", data2: str = "") -> bytes:
    """
    Encode one message exactly as a Qt peer writes it.

    @param op: the opcode (or, for the decimal error code, see L{error}).
    @param data1: first data field.
    @param data2: second data field.
    @return: C{{"data1":...,"data2":...,"op":N}\\n} as UTF-8 bytes.
    """
    # The keys in sorted order, the values exactly str and int: what
    # json.dumps writes (compact, ensure_ascii off), byte for byte.  A
    # lone surrogate raises UnicodeEncodeError, as json.dumps' text's
    # encoding did.
    return encodeStrings(
        {"data1": str(data1), "data2": str(data2), "op": int(op)}
    ) + DELIMITER


# A line in the exact form that Qt peers and L{encode} write, with no
# escape in its strings: decoded without the JSON parser, to the same
# L{Message} (an op of up to 15 digits, JSON's integer syntax).
_CANONICAL = re.compile(
    r'\{"data1":"([^"\\\x00-\x1f]*)","data2":"([^"\\\x00-\x1f]*)",'
    r'"op":(0|-?[1-9][0-9]{0,14})\}')


#: ERROR_OP data1 in the symbolic form, as the official Team 4 server
#: wrote it (its C{"OTHER_OP"} included).
SYMBOLIC_NAMES = {**ERRCODE_NAMES, OTHER_ERROR: "OTHER_OP"}
_CODES_BY_NAME = {name: code for names in (ERRCODE_NAMES, SYMBOLIC_NAMES)
                  for code, name in names.items()}


def error(code: int, reason: str = "", symbolic: bool = False) -> bytes:
    """
    Encode C{ERROR_OP} with the decimal C{code} (the protocol's intent and
    what most clients parse) or, when C{symbolic}, its name (the official
    Team 4 server's form, which the Team 2, 3, 4 and 8 clients read), and
    a readable reason.

    @param code: one of the ERRCODE constants, e.g. L{INVALID_MOVE}.
    @param reason: free text for data2; prefixed with the code's name.
    @param symbolic: put the name (C{"INVALID_MOVE"}) in data1.
    """
    name = ERRCODE_NAMES.get(code, "ERROR")
    text = "%s: %s" % (name, reason) if reason else name
    if symbolic:
        return encode(ERROR_OP, SYMBOLIC_NAMES.get(code, name), text)
    return encode(ERROR_OP, str(int(code)), text)


def errorCode(data1: str) -> Optional[int]:
    """
    The ERRCODE of an C{ERROR_OP}'s data1 in either form a server may
    use: decimal (C{"400005"}) or symbolic (C{"INVALID_MOVE"}, and the
    official Team 4 server's C{"OTHER_OP"}).

    @return: the code, or None when data1 is neither.
    """
    try:
        code = int(data1)
    except ValueError:
        return _CODES_BY_NAME.get(data1.strip())
    return code if code in ERRCODE_NAMES else None


# Moves repeat from game to game: a MOVE_OP line of at most MEMO_LINE
# bytes is kept once decoded, a path of at most MEMO_TEXT characters once
# parsed and one of at most MEMO_CELLS cells once written, the MEMO_SIZE
# used last of each (their values are immutable).
MEMO_LINE = 96
MEMO_TEXT = 48
MEMO_CELLS = 8
MEMO_SIZE = 4096
# The end of a line that is a move, or is refused.
_MOVE_END = b'"op":%d}' % (MOVE_OP,)


def decode(line: bytes) -> Message:
    """
    Decode one line (with or without its C{\\n} or C{\\r\\n}).

    @raise DecodeError: the line is not UTF-8 JSON, not an object, lacks
        one of the three keys, or C{op} is not an integral number.
    """
    # Moves only: another line may carry a play key, never kept.
    if (type(line) is bytes and len(line) <= MEMO_LINE
            and line.endswith(_MOVE_END)):
        return _keptMove(line)
    return _decode(line)


def _decode(line: bytes) -> Message:
    if line.endswith(b"\n"):
        line = line[:-1]
    if line.endswith(b"\r"):
        line = line[:-1]
    if len(line) > MAX_LINE_LENGTH:
        raise DecodeError("line too long")
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as e:
        raise DecodeError("not JSON: %s" % (e.__class__.__name__,))
    match = _CANONICAL.fullmatch(text)
    if match is not None:
        data1, data2, op = match.groups()
        return Message(int(op), data1, data2)
    try:
        obj = decodeJson(line)
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise DecodeError("not JSON: %s" % (e.__class__.__name__,))
    if not isinstance(obj, dict):
        raise DecodeError("not a JSON object")
    missing = [k for k in ("op", "data1", "data2") if k not in obj]
    if missing:
        raise DecodeError("missing key %s" % (missing[0],))
    op = obj["op"]
    if isinstance(op, float) and op.is_integer():
        op = int(op)
    if not isinstance(op, int) or isinstance(op, bool):
        raise DecodeError("op is not an integer")
    data1 = _text(obj["data1"])
    data2 = _text(obj["data2"])
    return Message(op, data1, data2)


def _text(value: object) -> str:
    """
    Qt C{toString()}: a string stays, anything else is C{""}.  Strings
    with lone surrogates (C{"\\ud800"}) cannot be UTF-8 and are refused.
    """
    if not isinstance(value, str):
        return ""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise DecodeError("lone surrogate in a string")
    return value


def parsePath(text: str) -> Tuple[Tuple[int, int], ...]:
    """
    Parse MOVE_OP data2 (C{"x0 y0 x1 y1 ..."}) into cells.

    Tokens are separated by any whitespace.  This checks only the shape
    (an even number, at least four, of integers); the game checks the
    rules.

    @raise PathError: when the shape is wrong.
    """
    if len(text) <= MEMO_TEXT:
        return _keptPath(text)
    return _parsePath(text)


def _parsePath(text: str) -> Tuple[Tuple[int, int], ...]:
    if _PATH.fullmatch(text):
        numbers = list(map(int, text.split(" ")))
        if not len(numbers) % 2:
            pairs = iter(numbers)
            return tuple(zip(pairs, pairs))
    tokens = text.split()
    if len(tokens) < 4:
        raise PathError("a path needs at least two positions")
    if len(tokens) % 2:
        raise PathError("odd number of coordinates")
    if len(tokens) > 2 * 128:
        raise PathError("path too long")
    numbers = []
    for token in tokens:
        # int() would accept "+1", "1_0" and non-ASCII digits.
        body = token[1:] if token[:1] == "-" else token
        if not (body.isascii() and body.isdigit()) or len(body) > 3:
            raise PathError("%r is not a small integer" % (token[:20],))
        numbers.append(int(token))
    return tuple(zip(numbers[0::2], numbers[1::2]))


# A path in the canonical form, 2 to 128 cells of small integers joined
# by single spaces (the count's parity is checked after).
_PATH = re.compile(r"-?[0-9]{1,3}(?: -?[0-9]{1,3}){3,255}")


def formatPath(path: Sequence[Tuple[int, int]]) -> str:
    """
    The canonical form of a path: integers joined by single spaces.
    """
    if len(path) <= MEMO_CELLS:
        try:
            return _keptText(path)
        except TypeError:
            pass   # not hashable (a list of lists): not kept
    return _formatPath(path)


def _formatPath(path: Sequence[Tuple[int, int]]) -> str:
    return " ".join(["%d %d" % (x, y) for x, y in path])


_keptMove = functools.lru_cache(MEMO_SIZE)(_decode)
_keptPath = functools.lru_cache(MEMO_SIZE)(_parsePath)
_keptText = functools.lru_cache(MEMO_SIZE)(_formatPath)
