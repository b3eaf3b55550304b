"""
An event as data for its faces: the JSON of the CLI's C{export} and of
the web API, and the standings' CSV.  Pure: a L{store.Snapshot} in.

Engine command lines are an admin's business: they never appear here
(an entrant only says whether it is an engine).
"""

from __future__ import annotations

import csv
import io
from typing import Any, Callable, Dict, List, Optional

from hub.tournaments import store
from hub.tournaments.interfaces import roomName
from hub.tournaments.standings import (
    Standing, crosstable, eventRatings, standings)


def eventStandings(snap: store.Snapshot) -> List[Standing]:
    """
    The standings of C{snap}'s event, best first.
    """
    return standings(snap.names(), list(snap.games), snap.event.tableSize)


def formatPoints(value: float) -> str:
    """
    Points as people write them: C{2}, C{1.5}.
    """
    return ("%.2f" % value).rstrip("0").rstrip(".")


def standingsCSV(snap: store.Snapshot) -> str:
    """
    C{rank,name,points}, then one line per entrant, best first.
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["rank", "name", "points"])
    for line in eventStandings(snap):
        writer.writerow([line.rank, line.name, formatPoints(line.points)])
    return out.getvalue()


def summaryJSON(event: store.Event) -> Dict[str, Any]:
    """
    One event in a list of events.
    """
    return {"id": event.id, "name": event.name, "kind": event.kind,
            "format": event.format, "state": event.state,
            "rounds": event.rounds, "minutes": event.minutes,
            "playersPerTable": event.tableSize,
            "turnSeconds": event.turnSeconds,
            "currentRound": event.currentRound,
            "createdAt": event.createdAt, "startedAt": event.startedAt,
            "endsAt": event.endsAt, "finishedAt": event.finishedAt}


def eventJSON(snap: store.Snapshot,
              gameLink: Optional[Callable[[str], Optional[str]]] = None
              ) -> Dict[str, Any]:
    """
    Everything public of an event: its entrants, its pairings round by
    round (room names; a live game's link from C{gameLink(room)}), the
    standings and the crosstable.
    """
    event = snap.event
    guests = {e.name for e in snap.entrants if e.guest}
    rounds: Dict[int, List[Dict[str, Any]]] = {}
    for game in snap.games:
        reason = snap.reasons.get((game.round, game.board))
        entry: Dict[str, Any] = {
            "board": game.board, "seats": list(game.seats),
            "guests": [n in guests for n in game.seats],
            "bye": game.bye,
            "points": list(game.points) if game.points is not None
            else None,
            "result": reason}
        if not game.bye:
            room = roomName(event.id, game.round, game.board)
            entry["room"] = room
            link = gameLink(room) if gameLink is not None and \
                game.points is None else None
            if link is not None:
                entry["live"] = link
        rounds.setdefault(game.round, []).append(entry)
    table = eventStandings(snap)
    rated = eventRatings(snap.names(), snap.games)
    summary = summaryJSON(event)
    summary.update({
        "entrants": [{"name": e.name, "entry": e.entry,
                      "engine": e.engine is not None,
                      "about": e.about,
                      "withdrawn": e.withdrawn, "guest": e.guest}
                     for e in snap.entrants],
        "rounds": [{"round": r, "pairings": rounds[r]}
                   for r in sorted(rounds)],
        "standings": [{"rank": s.rank, "name": s.name, "points": s.points,
                       "tieBreaks": list(s.tieBreaks), "games": s.games,
                       "guest": s.name in guests,
                       "rating": {"mu": round(rated[s.name][0], 2),
                                  "sigma": round(rated[s.name][1], 2)}}
                      for s in table],
        "crosstable": crosstable(snap.names(), list(snap.games)),
    })
    return summary
