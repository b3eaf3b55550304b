"""
An event's gomoku games as Piskvork's records (C{.psq},
L{hub.wire.gomocup.psq}), for engine authors' own tools: one file a
game, and a zip of them (C{python -m hub.tournaments export EVENT --psq
DIR}, and C{/api/tournaments/ID/games.psq.zip}).  Interactions, as
L{hub.tournaments.store}'s, and plain functions.
"""

from __future__ import annotations

import io
import os
import zipfile
from typing import Any, Dict, List, Sequence, Tuple

from hub.records import query
from hub.tournaments import store
from hub.tournaments.gamelog import pathPart
from hub.wire import gomocup


def eventGomokuGames(cursor: Any, eventId: int) -> List[Any]:
    """
    The records (L{hub.records.record.GameRecord}) of event
    C{eventId}'s gomoku games, in the order played.

    @raise store.TournamentError: there is no such event.
    """
    store.getEvent(cursor, eventId)
    cursor.execute("SELECT id FROM games WHERE event = ? AND kind = ? "
                   "ORDER BY id", (eventId, "gomoku"))
    return [query.game(cursor, row[0]) for row in cursor.fetchall()]


def psqOf(record: Any) -> str:
    """
    One gomoku record as C{.psq}: its stones (an opening's first, each
    taking 0 ms) and the time each took, from its events.
    """
    opening = [tuple(stone) for stone in
               (record.position or {}).get("moves", [])]
    moves, times, last = list(opening), [0] * len(opening), 0.0
    for event in record.events:
        if event.get("type") == "ActionPlayed":
            moves.append(tuple(event["action"]))
            times.append(int(round((event["t"] - last) * 1000)))
            last = event["t"]
    names = {seat.seat: seat.name for seat in record.seats}
    return gomocup.psq(moves, times, names.get(0, "-"), names.get(1, "-"))


def psqFiles(records: Sequence[Any]) -> List[Tuple[str, str]]:
    """
    C{(file name, .psq text)} of each record: C{TABLE.psq} (a game
    played again after a restart C{TABLE-2.psq}...).
    """
    files = []
    seen: Dict[str, int] = {}
    for record in records:
        base = pathPart(record.table)
        seen[base] = seen.get(base, 0) + 1
        suffix = "-%d" % (seen[base],) if seen[base] > 1 else ""
        files.append((base + suffix + ".psq", psqOf(record)))
    return files


def zipName(eventId: int) -> str:
    return "event-%d-psq.zip" % (eventId,)


def zipOf(files: Sequence[Tuple[str, str]]) -> bytes:
    """
    A zip of C{files} (L{psqFiles}).
    """
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in files:
            z.writestr(name, text.encode("utf-8"))
    return out.getvalue()


def eventZip(cursor: Any, eventId: int) -> bytes:
    """
    The zip of event C{eventId}'s gomoku games (an interaction: made in
    the database's thread, not the reactor's).

    @raise store.TournamentError: there is no such event.
    """
    return zipOf(psqFiles(eventGomokuGames(cursor, eventId)))


def writePsq(records: Sequence[Any], folder: str,
             eventId: int) -> List[str]:
    """
    Write each record as C{folder/TABLE.psq} and all of them as
    C{folder/event-EVENT-psq.zip}.

    @return: the paths written, the zip last.
    """
    os.makedirs(folder, exist_ok=True)
    files = psqFiles(records)
    paths = []
    for name, text in files:
        path = os.path.join(folder, name)
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        paths.append(path)
    archive = os.path.join(folder, zipName(eventId))
    with open(archive, "wb") as f:
        f.write(zipOf(files))
    return paths + [archive]
