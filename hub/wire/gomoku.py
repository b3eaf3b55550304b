"""
The gomoku-battle wire format: C{<json>} frames (docs/protocols/gomoku.md:
Framing, The envelope, Messages and Status codes).

Pure codec: bytes in, dicts out and back.  No Twisted, no game rules.

Frames are C{b"<" + JSON + b">"}.  L{FrameScanner} reassembles split and
merged frames; L{decodeMessage} turns one payload into a dict and checks
the envelope; the C{*Message} constructors build dicts holding every field
of their type, and L{encodeMessage} writes them byte for byte the way the
original server's nlohmann::json C{dump()} does (compact, keys sorted,
raw UTF-8), with C{<} and C{>} escaped inside strings.
"""

from __future__ import annotations

import json
from typing import (
    Any, Dict, Iterable, List, Mapping, Optional, Tuple,
    TypedDict, Union)

from hub.wire.fastjson import decodeJson

#: A message: a decoded JSON object, or one that L{encodeMessage} writes.
Message = Dict[str, Any]

# Message types (Messages).
MSG_UNKNOWN = 0
MSG_RESULT = 1
MSG_REQUEST = 2
MSG_REG = 3
MSG_ROOMLIST = 4
MSG_ROOM = 5
MSG_CHESS = 7
MSG_STATE = 8
MSG_GAME = 9
MSG_MOVE = 10
MSG_UNREG = 11

VALID_TYPES = frozenset([
    MSG_RESULT, MSG_REQUEST, MSG_REG, MSG_ROOMLIST, MSG_ROOM, MSG_CHESS,
    MSG_STATE, MSG_GAME, MSG_MOVE])

# msg_result.status (Status codes).
S_OK = 0x0
S_NOCHANGE = 0x1
S_ERROR = 0x2
S_ILLEGAL_OPER_LIMITS = 0x3
S_INVALID_MSG = 0x4
S_ILLEGAL_MSG = 0x5
S_ILLEGAL_OPER = 0x6
S_PLAYER_INVALID_META = 0x101
S_PLAYER_EXISTS = 0x102
S_PLAYER_INVALID = 0x103
S_PLAYER_BUSY = 0x104
S_ROOM_INVALID_META = 0x201
S_ROOM_EXISTS = 0x202
S_ROOM_NOT_EXISTS = 0x203
S_ROOM_FULL = 0x204
S_ROOM_ILLEGAL_ACCESS = 0x205
S_ROOM_ALREADY_INSIDE = 0x206
S_ROOM_ILLEGAL_OPER = 0x207
S_ROOM_EMPTY = 0x208
S_GAME_NO_GUEST = 0x301
S_GAME_ILLEGAL_OPER = 0x302
S_GAME_NOT_PREPARE = 0x303
S_MATCH_ILLEGAL_MOVE = 0x401
S_MATCH_OPER_TIMEOUT = 0x402

# msg_request.target (Messages).
REQ_ROOM_LIST = 1
REQ_GAME_START = 2

# msg_room.type from a client: room operations.
RO_UNKNOWN = 0x10
RO_ROOM_CREATE = 0x11
RO_ROOM_JOIN = 0x12
RO_ROOM_EXIT = 0x13

# msg_room.type from the server: room information.
RI_UNKNOWN = 0
RI_PLAYER_JOIN = 1
RI_PLAYER_EXIT = 2
RI_PLAYER_STATE = 3
RI_PLAYER_CHESS = 4

# Chess colours (msg_chess.type, Room.oct, msg_move.chess).
CHESS_BLANK = 0
CHESS_BLACK = 0x1
CHESS_WHITE = 0x10
CHESS_SUM = 17

# Guest states (msg_state.state, Room.gs).
PLAYER_STATE_IDLE = 0
PLAYER_STATE_PREPARE = 1
PLAYER_STATE_OWNER = 2
PLAYER_STATE_READY = 3

# Room.state.
ROOM_STATE_OPEN = 0
ROOM_STATE_FULL = 1
ROOM_STATE_MATCH = 2

# msg_game.state and msg_game.ex.
GAME_STATE_WAITING = 1
GAME_STATE_RUNNING = 2
GAME_STATE_END = 3
GAME_RSLT_NONE = 0
GAME_RSLT_WIN = 1
GAME_RSLT_LOSE = 2
GAME_RSLT_DRAW = 3
GAME_RSLT_ERROR = 4

# Invalid values and limits.
INVALID_U64 = 2 ** 64 - 1
INVALID_TOKEN = INVALID_U64
INVALID_SESSION = INVALID_U64
INVALID_ID = 4294967295
MAX_FRAME = 65536
MAX_NAME_BYTES = 35
MAX_PSW_BYTES = 35

_U32 = 2 ** 32
_U64 = 2 ** 64

_LT = ord("<")
_GT = b">"
_QUOTE = b'"'
_BACKSLASH = ord("\\")
_BS = b"\\"
_LBRACE = ord("{")
_WHITESPACE = frozenset(b" \t\r\n")


class InvalidMessage(ValueError):
    """
    A payload, or a field of a message, is not a valid gomoku message.
    """


class FrameTooLong(ValueError):
    """
    A frame grew past L{MAX_FRAME} bytes without ending.

    @ivar frames: the complete payloads that preceded it in the same
        L{FrameScanner.feed} call, which the caller may still handle.
    """

    def __init__(self, message: str, frames: Iterable[bytes] = ()) -> None:
        ValueError.__init__(self, message)
        self.frames = list(frames)


class FrameScanner:
    """
    Reassemble C{<payload>} frames from a byte stream.

    Bytes outside frames (before a C{<}) are dropped.  In a frame whose
    payload starts with C{{} (after JSON whitespace), a C{>} ends it unless
    it lies inside a JSON string (double quotes, with backslash escapes),
    so a client that sends a raw C{>} in a name still gets through.  Any
    other payload (junk, which cannot be a message anyway) ends at its
    first C{>}, as in the original server, so a stray quote in junk does
    not swallow the frames after it.  A C{<} inside a frame is plain
    content.  A pending payload longer than L{MAX_FRAME} bytes raises
    L{FrameTooLong}, and junk without a C{<} is never kept, so the buffer
    is bounded.

    @ivar maxFrame: the largest payload accepted, in bytes.
    """

    # The scanner's state, set by _reset and kept by feed.
    _buf: bytearray
    _start: int
    _pos: int
    _inString: bool
    _isJson: Optional[bool]

    def __init__(self, maxFrame: int = MAX_FRAME) -> None:
        self.maxFrame = maxFrame
        self._reset()

    def feed(self, data: bytes) -> List[bytes]:
        """
        Add C{data}, return the payloads of every frame it completes.

        @type data: L{bytes}
        @return: the payloads (bytes between C{<} and C{>}), in order.
        @rtype: L{list} of L{bytes}
        @raise FrameTooLong: when the pending frame exceeds C{maxFrame}.
            The scanner is then reset (the rest of the data is dropped).
        """
        buf: Union[bytes, bytearray]
        if self._start < 0 and not self._buf:
            # Fast path: nothing pending, scan the chunk itself.
            buf = data
            start = -1
        else:
            self._buf += data
            buf = self._buf
            start = self._start
        frames: List[bytes] = []
        pos = self._pos
        inString = self._inString
        isJson = self._isJson
        end = len(buf)
        maxFrame = self.maxFrame
        find = buf.find
        while True:
            if start < 0:
                lt = find(b"<", pos)
                if lt < 0:
                    # Junk without '<': drop it all.
                    self._reset()
                    return frames
                start = pos = lt + 1
                inString = False
                isJson = None
            if isJson is None:
                if pos < end and buf[pos] == _LBRACE:
                    isJson = True
                else:
                    while pos < end and buf[pos] in _WHITESPACE:
                        pos += 1
                    if pos == end:
                        break
                    isJson = buf[pos] == _LBRACE
            if not isJson:
                gt = find(_GT, pos)
                if gt < 0:
                    pos = end
                    break
                if gt - start > maxFrame:
                    self._reset()
                    raise FrameTooLong("frame too long", frames)
                frames.append(bytes(buf[start:gt]))
                start = -1
                pos = gt + 1
                continue
            if not inString:
                gt = find(_GT, pos)
                if gt < 0:
                    q = find(_QUOTE, pos)
                else:
                    q = find(_QUOTE, pos, gt)
                if q >= 0 and gt >= 0 and find(_BS, pos, gt) < 0 \
                        and not buf.count(_QUOTE, q, gt) & 1:
                    # Common case: no escapes and balanced quotes, so
                    # this '>' is outside any string.
                    q = -1
                if q < 0:
                    if gt < 0:
                        pos = end
                        break
                    if gt - start > maxFrame:
                        self._reset()
                        raise FrameTooLong("frame too long", frames)
                    frames.append(bytes(buf[start:gt]))
                    start = -1
                    pos = gt + 1
                    continue
                inString = True
                pos = q + 1
            # Inside a string: find the closing quote, skipping escaped
            # ones (an odd run of backslashes before it).
            while True:
                q = find(_QUOTE, pos)
                if q < 0:
                    pos = end
                    break
                b = q - 1
                while buf[b] == _BACKSLASH:
                    b -= 1
                pos = q + 1
                if (q - 1 - b) % 2 == 0:
                    inString = False
                    break
            if inString:
                break
        # A frame is pending from start; keep it and remember the state.
        if end - start > maxFrame:
            self._reset()
            raise FrameTooLong("frame too long", frames)
        if buf is self._buf:
            if start > 1:
                del buf[:start - 1]
                pos -= start - 1
                start = 1
        else:
            self._buf = bytearray(buf[start - 1:])
            pos -= start - 1
            start = 1
        self._start = start
        self._pos = pos
        self._inString = inString
        self._isJson = isJson
        return frames

    def _reset(self) -> None:
        """
        Forget any pending bytes.
        """
        self._buf = bytearray()
        # Position just after the current frame's '<', or -1 when outside
        # a frame (then the buffer is empty).
        self._start = -1
        # Where to resume scanning, and whether that point is inside a
        # JSON string.
        self._pos = 0
        self._inString = False
        # Whether the pending payload is JSON-like (starts with '{'), or
        # None while only whitespace has been seen.
        self._isJson = None

    def pending(self) -> int:
        """
        How many bytes are buffered (of an unfinished frame).

        @rtype: L{int}
        """
        return len(self._buf)


def decodeMessage(payload: bytes) -> Message:
    """
    Parse one frame payload into a message dict.

    The payload must be UTF-8 JSON for an object whose C{msg_type} is an
    integer among L{VALID_TYPES}; C{token} and C{session}, when present,
    must be unsigned 64-bit integers, and are filled in with
    L{INVALID_U64} when absent.  Other fields are checked by whoever reads
    them, with L{uintField}, L{strField} and L{roomField}.

    @type payload: L{bytes}
    @rtype: L{dict}
    @raise InvalidMessage: for anything else.
    """
    if not payload:
        raise InvalidMessage("empty frame")
    try:
        msg = decodeJson(payload)
    except (ValueError, RecursionError) as e:
        raise InvalidMessage("not JSON: %s" % (e,))
    if type(msg) is not dict:
        raise InvalidMessage("not a JSON object")
    msgType = msg.get("msg_type")
    if type(msgType) is not int or msgType not in VALID_TYPES:
        raise InvalidMessage("bad msg_type")
    msg["token"] = uintField(msg, "token", INVALID_U64, 64)
    msg["session"] = uintField(msg, "session", INVALID_U64, 64)
    return msg


# The default of a field that must be present (Any, to stand for the
# default of any field's type).
_REQUIRED: Any = object()


def uintField(msg: object, key: str, default: int = _REQUIRED,
              bits: int = 32) -> int:
    """
    Read an unsigned integer field.

    @param msg: a dict (anything else raises L{InvalidMessage}).
    @param default: returned when the key is absent (or is JSON null);
        when not given, a missing key raises L{InvalidMessage}.
    @param bits: 32 or 64, the field's width.
    @rtype: L{int}
    @raise InvalidMessage: when the value is not an integer (booleans and
        floats included) in C{0 .. 2**bits - 1}.
    """
    if type(msg) is not dict:
        raise InvalidMessage("not an object")
    value = msg.get(key)
    if value is None:
        if default is _REQUIRED:
            raise InvalidMessage("missing %s" % (key,))
        return default
    if type(value) is not int or value < 0 or value >> bits:
        raise InvalidMessage("bad %s" % (key,))
    return value


def strField(msg: object, key: str, default: str = _REQUIRED,
             maxBytes: Optional[int] = None) -> str:
    """
    Read a string field.

    @param msg: a dict (anything else raises L{InvalidMessage}).
    @param default: returned when the key is absent (or is JSON null);
        when not given, a missing key raises L{InvalidMessage}.
    @param maxBytes: when given, the largest UTF-8 length allowed.
    @rtype: L{str}
    @raise InvalidMessage: when the value is not a string, cannot be
        written back as UTF-8 (lone surrogates), or is too long.
    """
    if type(msg) is not dict:
        raise InvalidMessage("not an object")
    value = msg.get(key)
    if value is None:
        if default is _REQUIRED:
            raise InvalidMessage("missing %s" % (key,))
        return default
    if type(value) is not str:
        raise InvalidMessage("bad %s" % (key,))
    try:
        size = len(value.encode("utf-8"))
    except UnicodeEncodeError:
        raise InvalidMessage("bad %s" % (key,))
    if maxBytes is not None and size > maxBytes:
        raise InvalidMessage("%s too long" % (key,))
    return value


class RoomFields(TypedDict):
    """
    The fields of a client's C{room} object, as L{roomField} reads them.
    """

    name: str
    psw: str
    oct: int
    gs: int
    state: int


def roomField(msg: object, key: str = "room") -> RoomFields:
    """
    Read the C{room} object of a C{msg_room} from a client.

    @return: a dict with C{name} and C{psw} (L{str}; C{psw} defaults to
        C{""}) and C{oct}, C{gs}, C{state} (L{int}, defaulting to 16, 1
        and 0, as the original client sends them).  Lengths are not
        checked here: status codes for them belong to the caller.
    @raise InvalidMessage: when the object or a field is missing or has
        the wrong type.
    """
    if type(msg) is not dict:
        raise InvalidMessage("not an object")
    room = msg.get(key)
    if type(room) is not dict:
        raise InvalidMessage("bad %s" % (key,))
    return {
        "name": strField(room, "name"),
        "psw": strField(room, "psw", ""),
        "oct": uintField(room, "oct", CHESS_WHITE),
        "gs": uintField(room, "gs", PLAYER_STATE_PREPARE),
        "state": uintField(room, "state", ROOM_STATE_OPEN),
    }


_MOVE_FRAME = (b'<{"chess":%d,"msg_type":10,"session":%d,"token":%d,'
               b'"x":%d,"y":%d}>')
_RESULT_FRAME = (b'<{"msg_type":1,"result":"","session":%d,"status":%d,'
                 b'"token":%d}>')
_GAME_FRAME = b'<{"ex":%d,"msg_type":9,"session":%d,"state":%d,"token":%d}>'


def _encodeFlat(obj: Mapping[str, Any]) -> Optional[bytes]:
    """
    The frame of a C{msg_move}, C{msg_result} (with an empty C{result})
    or C{msg_game} holding exactly its fields as plain ints, formatted
    directly; None for anything else.  Byte-identical to the JSON path.
    """
    msgType = obj.get("msg_type")
    values: Tuple[Any, ...]
    try:
        if msgType == MSG_MOVE and len(obj) == 6:
            values = (obj["chess"], obj["session"], obj["token"], obj["x"],
                      obj["y"])
            frame = _MOVE_FRAME
        elif msgType == MSG_RESULT and len(obj) == 5 \
                and obj["result"] == "":
            values = (obj["session"], obj["status"], obj["token"])
            frame = _RESULT_FRAME
        elif msgType == MSG_GAME and len(obj) == 5:
            values = (obj["ex"], obj["session"], obj["state"], obj["token"])
            frame = _GAME_FRAME
        else:
            return None
    except KeyError:
        return None
    if type(msgType) is not int:
        return None
    for value in values:
        if type(value) is not int:
            return None
    return frame % values


def encodeMessage(obj: Mapping[str, Any]) -> bytes:
    """
    Write one message as a frame.

    @type obj: L{dict}
    @return: C{b"<" + JSON + b">"}: compact, sorted keys, raw UTF-8, with
        C{<} and C{>} written as C{\\u003c} and C{\\u003e}.
    @rtype: L{bytes}
    """
    frame = _encodeFlat(obj)
    if frame is not None:
        return frame
    text = json.dumps(obj, separators=(",", ":"), sort_keys=True,
                      ensure_ascii=False)
    if "<" in text or ">" in text:
        text = text.replace("<", "\\u003c").replace(">", "\\u003e")
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        # Lone surrogates cannot be UTF-8: fall back to \\u escapes.
        text = json.dumps(obj, separators=(",", ":"), sort_keys=True)
        text = text.replace("<", "\\u003c").replace(">", "\\u003e")
        data = text.encode("ascii")
    return b"<" + data + b">"


def _u64(value: Optional[int]) -> int:
    """
    C{value}, or L{INVALID_U64} for None.
    """
    return INVALID_U64 if value is None else value


def roomObject(name: str, owner: str, guest: str, oct: int, gs: int,
               state: int, psw: str = "") -> Message:
    """
    A C{Room} object with every field (its C{id} is always L{INVALID_ID}).

    @rtype: L{dict}
    """
    return {"gs": gs, "guest": guest, "id": INVALID_ID, "name": name,
            "oct": oct, "owner": owner, "psw": psw, "state": state}


def resultMessage(status: int, token: Optional[int],
                  session: Optional[int]) -> Message:
    """
    C{msg_result}: the answer to a request (C{result} is always C{""}).

    @rtype: L{dict}
    """
    return {"msg_type": MSG_RESULT, "result": "", "session": _u64(session),
            "status": status, "token": _u64(token)}


def roomListMessage(rooms: Optional[List[Message]], token: Optional[int],
                    session: Optional[int]) -> Message:
    """
    C{msg_roomlist}; C{rooms} is a list of L{roomObject}s or None (null).

    @rtype: L{dict}
    """
    return {"msg_type": MSG_ROOMLIST, "rooms": rooms,
            "session": _u64(session), "token": _u64(token)}


def roomMessage(roomType: int, room: Message, token: Optional[int],
                session: Optional[int]) -> Message:
    """
    C{msg_room}: room information (server, C{RI_*}) or a room operation
    (client, C{RO_*}) about C{room} (a L{roomObject}).

    @rtype: L{dict}
    """
    return {"msg_type": MSG_ROOM, "room": room, "session": _u64(session),
            "token": _u64(token), "type": roomType}


def gameMessage(state: int, ex: int, token: Optional[int],
                session: Optional[int]) -> Message:
    """
    C{msg_game}: a game started (C{GAME_STATE_RUNNING}, ex 0) or ended
    (C{GAME_STATE_END}, ex a C{GAME_RSLT_*}).

    @rtype: L{dict}
    """
    return {"ex": ex, "msg_type": MSG_GAME, "session": _u64(session),
            "state": state, "token": _u64(token)}


def moveMessage(chess: int, x: int, y: int, token: Optional[int],
                session: Optional[int]) -> Message:
    """
    C{msg_move}: a stone at column C{x}, row C{y}.

    @rtype: L{dict}
    """
    return {"chess": chess, "msg_type": MSG_MOVE, "session": _u64(session),
            "token": _u64(token), "x": x, "y": y}


def regMessage(name: str, session: Optional[int],
               token: Optional[int] = INVALID_U64) -> Message:
    """
    C{msg_reg} (client): register C{name}, or resume with C{token}.

    @rtype: L{dict}
    """
    return {"msg_type": MSG_REG, "name": name, "session": _u64(session),
            "token": _u64(token)}


def requestMessage(target: int, session: Optional[int], oper: int = 0,
                   token: Optional[int] = INVALID_U64) -> Message:
    """
    C{msg_request} (client): C{REQ_ROOM_LIST} or C{REQ_GAME_START}.

    @rtype: L{dict}
    """
    return {"msg_type": MSG_REQUEST, "oper": oper,
            "session": _u64(session), "target": target,
            "token": _u64(token)}


def roomOpMessage(opType: int, name: str, psw: str,
                  session: Optional[int], oct: int = CHESS_WHITE,
                  token: Optional[int] = INVALID_U64) -> Message:
    """
    C{msg_room} (client): a room operation C{RO_*} on room C{name}, with
    the room object the original client sends.

    @rtype: L{dict}
    """
    room = roomObject(name, "", "", oct, PLAYER_STATE_PREPARE,
                      ROOM_STATE_OPEN, psw)
    return roomMessage(opType, room, token, session)


def chessMessage(chessType: int, session: Optional[int],
                 token: Optional[int] = INVALID_U64) -> Message:
    """
    C{msg_chess} (client): the owner picks C{CHESS_BLACK} or
    C{CHESS_WHITE}.

    @rtype: L{dict}
    """
    return {"msg_type": MSG_CHESS, "session": _u64(session),
            "token": _u64(token), "type": chessType}


def stateMessage(state: int, session: Optional[int],
                 token: Optional[int] = INVALID_U64) -> Message:
    """
    C{msg_state} (client): the guest becomes C{PLAYER_STATE_READY} or
    C{PLAYER_STATE_PREPARE}.

    @rtype: L{dict}
    """
    return {"msg_type": MSG_STATE, "session": _u64(session),
            "state": state, "token": _u64(token)}
