"""
The Splendor (璀璨宝石) wire format: a 28-byte big-endian header and a
JSON body.

Every frame is C{struct.pack("!IQQQ", apiId, playerId, 28 + len(body), 0)}
followed by C{body}, the UTF-8 JSON text of the message (an empty body is
the spec's "None").  Server bodies are written the way the reference
server writes them (C{json.dumps} with its default separators) and stay
below 1024 bytes, the Unity client's receive buffer.

Pure: no Twisted, no game rules.  See C{docs/protocols/splendor.md}.
"""

from __future__ import annotations

import json
import struct
from typing import (
    TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Sequence, Tuple,
    Union)

from hub.wire.fastjson import decodeJson

if TYPE_CHECKING:
    from typing import TypeGuard


HEADER = struct.Struct("!IQQQ")
HEADER_LENGTH = HEADER.size
MAX_FRAME_LENGTH = 64 * 1024
MAX_SERVER_BODY = 1023

INIT = 1
INIT_RESP = 2
PLAYER_READY = 3
GAME_START = 4
NEW_TURN = 5
PLAYER_OPERATION = 6
PLAYER_OPERATION_INVALID = 7
NEW_PLAYER = 8
PLAYER_GET_NOBLE = 9
NEW_CARD = 10
DISCARD_GEMS = 11
WINNER = 12

API_NAMES = {
    INIT: "INIT",
    INIT_RESP: "INIT_RESP",
    PLAYER_READY: "PLAYER_READY",
    GAME_START: "GAME_START",
    NEW_TURN: "NEW_TURN",
    PLAYER_OPERATION: "PLAYER_OPERATION",
    PLAYER_OPERATION_INVALID: "PLAYER_OPERATION_INVALID",
    NEW_PLAYER: "NEW_PLAYER",
    PLAYER_GET_NOBLE: "PLAYER_GET_NOBLE",
    NEW_CARD: "NEW_CARD",
    DISCARD_GEMS: "DISCARD_GEMS",
    WINNER: "WINNER",
}

GET_GEMS = "get_gems"
BUY_CARD = "buy_card"
FOLD_CARD = "fold_card"
FOLD_CARD_UNKNOWN = "fold_card_unknown"
DISCARD_GEMS_OP = "discard_gems"
OPERATIONS = (GET_GEMS, BUY_CARD, FOLD_CARD, FOLD_CARD_UNKNOWN,
              DISCARD_GEMS_OP)

UNKNOWN_CARD_BASE = 10000

#: A message body as the server builds it: a JSON object.
Body = Dict[str, Any]
#: C{(colour, count)} pairs: gems taken, paid or discarded.
GemPairs = Iterable[Tuple[str, int]]
#: A received frame: C{(apiId, playerId, rawBody)}.
Frame = Tuple[int, int, bytes]


class FrameError(ValueError):
    """
    The stream cannot be framed (a length under 28 or over 64 KiB): the
    connection must be closed.

    @ivar frames: the frames completed before the bad header, to handle
        before closing.
    """

    def __init__(self, message: str, frames: Iterable[Frame] = ()) -> None:
        ValueError.__init__(self, message)
        self.frames = list(frames)


class BodyError(ValueError):
    """
    A complete frame whose body is not what its message kind needs.
    """


def packFrame(apiId: int, playerId: int, body: object = None) -> bytes:
    """
    One whole frame.

    @param body: a JSON-serialisable object, or L{None} for an empty body.
    @rtype: L{bytes}
    """
    raw = b"" if body is None else encodeBody(body)
    return HEADER.pack(apiId, playerId, HEADER_LENGTH + len(raw), 0) + raw


def encodeBody(body: object) -> bytes:
    """
    The body bytes as the reference server writes them.

    @raise ValueError: if the body would reach 1024 bytes.
    """
    raw = json.dumps(body).encode("ascii")
    if len(raw) > MAX_SERVER_BODY:
        raise ValueError("Splendor body of %d bytes is too long" % len(raw))
    return raw


def decodeBody(raw: bytes) -> Any:
    """
    Parse a received body: L{None} when empty, else the JSON value.

    @raise BodyError: if it is not UTF-8 JSON, or nested too deep to
        parse.
    """
    if not raw:
        return None
    try:
        return decodeJson(raw)
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise BodyError(str(e))


class FrameReader:
    """
    Incremental frame reassembly, in the loop shape of Twisted's
    C{IntNStringReceiver.dataReceived}.  Frames are cut straight from the
    received bytes; what is left of a partial frame waits in one
    L{bytearray}, where later bytes are appended once and whole frames
    are cut from its front, so a frame that arrives one byte at a time
    costs work linear in its size.

    @ivar maxLength: the largest acceptable frame (header included).
    """

    def __init__(self, maxLength: int = MAX_FRAME_LENGTH) -> None:
        self.maxLength = maxLength
        self._buffer = bytearray()

    def feed(self, data: bytes) -> List[Frame]:
        """
        Add received bytes and return every frame now complete.

        @return: a list of C{(apiId, playerId, rawBody)}, C{rawBody} being
            L{bytes} (empty for a body-less message).
        @raise FrameError: on a length under 28 or over C{maxLength}; the
            frames before it are in its C{frames}; the reader is then
            unusable.
        """
        buffer = self._buffer
        alldata: Union[bytes, bytearray]
        if buffer:
            buffer.extend(data)
            alldata = buffer
        else:
            alldata = data
        currentOffset = 0
        frames: List[Frame] = []
        while len(alldata) >= currentOffset + HEADER_LENGTH:
            apiId, playerId, length, _ = HEADER.unpack_from(
                alldata, currentOffset)
            if length < HEADER_LENGTH or length > self.maxLength:
                self._buffer = bytearray()
                raise FrameError("frame length %d" % (length,), frames)
            messageEnd = currentOffset + length
            if len(alldata) < messageEnd:
                break
            frames.append((apiId, playerId, bytes(
                alldata[currentOffset + HEADER_LENGTH:messageEnd])))
            currentOffset = messageEnd
        if alldata is buffer:
            del buffer[:currentOffset]
        elif currentOffset < len(data):
            buffer.extend(memoryview(data)[currentOffset:])
        return frames

    def pending(self) -> int:
        """
        How many received bytes wait for the rest of their frame.
        """
        return len(self._buffer)


# Server bodies, with the key names and order of the reference server.

def initRespBody(allocatedId: int, otherIds: Iterable[int]) -> Body:
    """
    INIT_RESP: C{{"allocated_player_id": id, "other_player_id": [...]}}.
    """
    return {"allocated_player_id": allocatedId,
            "other_player_id": list(otherIds)}


def gameStartBody(sequence: Sequence[int], nobles: Iterable[int],
                  levelOne: Iterable[int], levelTwo: Iterable[int],
                  levelThree: Iterable[int]) -> Body:
    """
    GAME_START: player count and order, nobles and the 3 x 4 face-up
    cards.
    """
    return {"players_number": len(sequence),
            "players_sequence": list(sequence),
            "nobles_info": list(nobles),
            "levelOneCards_info": list(levelOne),
            "levelTwoCards_info": list(levelTwo),
            "levelThreeCards_info": list(levelThree)}


def newTurnBody(playerId: int) -> Body:
    """
    NEW_TURN: C{{"new_turn_player": id}}.
    """
    return {"new_turn_player": playerId}


def newCardBody(cardNumber: int) -> Body:
    """
    NEW_CARD: C{{"card_number": n}}.
    """
    return {"card_number": cardNumber}


def discardGemsBody(count: int) -> Body:
    """
    DISCARD_GEMS: C{{"number_to_discard": k}}.
    """
    return {"number_to_discard": count}


def nobleBody(playerId: int, nobles: Iterable[int]) -> Body:
    """
    PLAYER_GET_NOBLE: C{{"player_id": p, "noble_number": [...]}}.
    """
    return {"player_id": playerId, "noble_number": list(nobles)}


def _gemEntries(gems: GemPairs) -> List[Dict[str, Union[str, int]]]:
    return [{"gems_type": g, "gems_number": n} for g, n in gems]


def getGemsBody(playerId: int, gems: GemPairs) -> Body:
    """
    PLAYER_OPERATION get_gems broadcast.

    @param gems: C{(colour, count)} pairs in the order to send.
    """
    return {"player_id": playerId, "operation_type": GET_GEMS,
            "operation_info": _gemEntries(gems)}


def buyCardBody(playerId: int, cardNumber: int, payment: GemPairs) -> Body:
    """
    PLAYER_OPERATION buy_card broadcast: the card, then the tokens paid.
    """
    return {"player_id": playerId, "operation_type": BUY_CARD,
            "operation_info": ([{"card_number": cardNumber}]
                               + _gemEntries(payment))}


def foldCardBody(playerId: int, cardNumber: int, golden: int) -> Body:
    """
    PLAYER_OPERATION fold_card broadcast: C{golden_number} is a separate
    second element.
    """
    return {"player_id": playerId, "operation_type": FOLD_CARD,
            "operation_info": [{"card_number": cardNumber},
                               {"golden_number": golden}]}


def foldUnknownBody(playerId: int, level: int, cardNumber: int,
                    golden: int) -> Body:
    """
    PLAYER_OPERATION fold_card_unknown broadcast: one element holding
    C{card_level}, C{card_number} (C{10000 + level} for the others, the
    real card for the reserving player) and C{golden_number}.
    """
    return {"player_id": playerId, "operation_type": FOLD_CARD_UNKNOWN,
            "operation_info": [{"card_level": level,
                                "card_number": cardNumber,
                                "golden_number": golden}]}


def discardBody(playerId: int, gems: GemPairs) -> Body:
    """
    PLAYER_OPERATION discard_gems broadcast: C{operation_info} is an
    object of colour to count.
    """
    return {"player_id": playerId, "operation_type": DISCARD_GEMS_OP,
            "operation_info": {g: n for g, n in gems}}


# Client bodies.

def packClientFrame(apiId: int, playerId: int,
                    body: object = None) -> bytes:
    """
    One whole frame as the Unity client writes it (compact JSON), for
    clients and tests.
    """
    raw = b"" if body is None else json.dumps(
        body, separators=(",", ":")).encode("utf-8")
    return HEADER.pack(apiId, playerId, HEADER_LENGTH + len(raw), 0) + raw


def operationRequest(playerId: int, kind: str, card: int = 0,
                     gems: GemPairs = ()) -> Body:
    """
    A PLAYER_OPERATION request body in the Unity client's shapes.

    @param kind: one of L{OPERATIONS}.
    @param card: the card number (C{10000 + level} for
        C{fold_card_unknown}).
    @param gems: C{(colour, count)} pairs: taken, paid or discarded.
    """
    info: object
    if kind == DISCARD_GEMS_OP:
        info = {g: n for g, n in gems}
    elif kind == GET_GEMS:
        info = _gemEntries(gems)
    elif kind == BUY_CARD:
        info = [{"card_number": card}] + _gemEntries(gems)
    elif kind == FOLD_CARD:
        info = [{"card_number": card}]
    elif kind == FOLD_CARD_UNKNOWN:
        info = [{"card_level": card - UNKNOWN_CARD_BASE,
                 "card_number": card}]
    else:
        raise ValueError("unknown operation %r" % (kind,))
    return {"player_id": playerId, "operation_type": kind,
            "operation_info": info}


def nobleChoiceRequest(playerId: int, noble: int) -> Body:
    """
    A PLAYER_GET_NOBLE choice body.
    """
    return {"player_id": playerId, "noble_number": [noble]}


class Operation:
    """
    A decoded PLAYER_OPERATION request, shape-checked but not judged.

    @ivar playerId: the body's C{player_id}, or L{None} if absent.
    @ivar kind: one of L{OPERATIONS}.
    @ivar card: the card number (0 for get_gems and discard_gems).
    @ivar gems: C{(colour, count)} pairs in request order, duplicates
        kept (the rules reject them).
    """

    def __init__(self, playerId: Optional[int], kind: str, card: int = 0,
                 gems: GemPairs = ()) -> None:
        self.playerId = playerId
        self.kind = kind
        self.card = card
        self.gems = tuple(gems)

    def __repr__(self) -> str:
        return "Operation(%r, %r, %r, %r)" % (
            self.playerId, self.kind, self.card, self.gems)


def _isInt(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _gemPair(entry: object) -> Tuple[str, int]:
    if not isinstance(entry, dict):
        raise BodyError("gem entry is not an object")
    colour = entry.get("gems_type")
    count = entry.get("gems_number")
    if not isinstance(colour, str) or not _isInt(count):
        raise BodyError("bad gem entry")
    return (colour, count)


def _cardNumber(entry: object) -> int:
    if not isinstance(entry, dict) or not _isInt(entry.get("card_number")):
        raise BodyError("missing card_number")
    number: int = entry["card_number"]
    return number


def _requestPlayerId(body: object, what: str) -> Optional[int]:
    """
    The C{player_id} of the request C{body}, or None when it has none.

    @param what: the request's name, for the error.
    @raise BodyError: unless C{body} is an object whose C{player_id}, if
        any, is an integer.
    """
    if not isinstance(body, dict):
        raise BodyError("%s body is not an object" % (what,))
    playerId = body.get("player_id")
    if playerId is not None and not _isInt(playerId):
        raise BodyError("player_id is not an integer")
    return playerId


def decodeOperation(body: Any) -> Operation:
    """
    Shape-check a PLAYER_OPERATION request body.

    @rtype: L{Operation}
    @raise BodyError: when keys are missing or of the wrong type.
    """
    playerId = _requestPlayerId(body, "operation")
    kind = body.get("operation_type")
    info = body.get("operation_info")
    if kind == DISCARD_GEMS_OP and isinstance(info, list):
        # Lenient: the get_gems entry shape is accepted too.
        return Operation(playerId, kind, 0, [_gemPair(e) for e in info])
    if kind == DISCARD_GEMS_OP:
        if not isinstance(info, dict):
            raise BodyError("discard_gems info is not an object")
        gems: List[Tuple[str, int]] = []
        for colour, count in info.items():
            if not _isInt(count):
                raise BodyError("bad discard count")
            gems.append((colour, count))
        return Operation(playerId, kind, 0, gems)
    if kind not in OPERATIONS:
        raise BodyError("unknown operation_type %r" % (kind,))
    if not isinstance(info, list):
        raise BodyError("operation_info is not a list")
    if kind == GET_GEMS:
        return Operation(playerId, kind, 0, [_gemPair(e) for e in info])
    if not info:
        raise BodyError("operation_info is empty")
    card = _cardNumber(info[0])
    if kind == BUY_CARD:
        return Operation(playerId, kind, card,
                         [_gemPair(e) for e in info[1:]])
    return Operation(playerId, kind, card)


def decodeNobleChoice(body: Any) -> Tuple[Optional[int], int]:
    """
    Shape-check a PLAYER_GET_NOBLE choice: C{(playerId or None, noble)}.

    @raise BodyError: unless C{noble_number} is a list of one integer.
    """
    playerId = _requestPlayerId(body, "noble")
    nobles = body.get("noble_number")
    if (not isinstance(nobles, list) or len(nobles) != 1
            or not _isInt(nobles[0])):
        raise BodyError("noble_number is not a one-element list")
    return (playerId, nobles[0])
