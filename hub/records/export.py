"""
The export form of a record: one JSON object per game, one game per line
(JSON lines).  docs/records.md documents the fields.
"""

import json
from typing import Any, Dict

from hub.records.notation import utc
from hub.records.record import GameRecord, SeatRecord

FORMAT_VERSION = 1


def seatToJSON(seat: SeatRecord) -> Dict[str, Any]:
    """
    One seat of a record, JSON-able.
    """
    rating: Any = None
    if seat.rating is not None:
        muBefore, sigmaBefore, muAfter, sigmaAfter = seat.rating
        rating = {"muBefore": muBefore, "sigmaBefore": sigmaBefore,
                  "muAfter": muAfter, "sigmaAfter": sigmaAfter}
    takeover: Any = None
    if seat.takeoverPly is not None:
        takeover = {"ply": seat.takeoverPly, "level": seat.takeoverLevel}
    return {"seat": seat.seat, "name": seat.name, "playerId": seat.playerId,
            "role": seat.role, "botClient": seat.botClient,
            "takeover": takeover, "place": seat.place, "rating": rating,
            "guest": seat.guest}


def recordToJSON(record: GameRecord) -> Dict[str, Any]:
    """
    A full L{hub.records.record.GameRecord}, JSON-able.
    """
    return {"format": FORMAT_VERSION, "id": record.gameId,
            "kind": record.kind, "table": record.table,
            "started": utc(record.startedAt), "ended": utc(record.endedAt),
            "startedAt": record.startedAt, "endedAt": record.endedAt,
            "reason": record.reason, "winner": record.winner,
            "ranking": list(record.ranking), "rated": record.rated,
            "seats": [seatToJSON(s) for s in record.seats],
            "position": record.position, "events": record.events}


def recordToLine(record: GameRecord) -> str:
    """
    One line of the export: the record's JSON, no newline inside.
    """
    return json.dumps(recordToJSON(record), ensure_ascii=False,
                      separators=(",", ":"), sort_keys=False)
