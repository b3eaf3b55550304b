"""
Records in a readable notation, for C{python -m hub.records show}.

    gomoku    h8 (column a-o from the left, row 1-15 from the bottom, as
              gomoku and renju players write moves: the centre, (7, 7),
              is h8; (0, 0), the top left corner, is a15)
    checkers  the path's cells, i5-c3 (rows 1-17 from the bottom, a
              letter from each row's left end: docs/games.md)
    splendor  take diamond+sapphire+emerald, buy #12 (gold 1),
              reserve #34, reserve hidden level 2, discard ruby,
              noble #3

Between the actions, what else happened (a seat left, timed out, was
taken over; Splendor's dealt cards, discards and nobles), and last the
outcome.
"""

from __future__ import annotations

import datetime
from typing import Any, List, Mapping, Optional, Sequence, Set

from hub.games import checkers
from hub.records.record import GameRecord

GOMOKU_COLUMNS = "abcdefghijklmno"
GOMOKU_SIZE = len(GOMOKU_COLUMNS)
GOMOKU_COLOURS = {1: "black", 16: "white"}
# A Splendor fold_card_unknown action's card is this plus the deck level.
UNKNOWN_CARD_BASE = 10000


def utc(seconds: float) -> str:
    """
    C{seconds} since the epoch as an ISO 8601 UTC time.
    """
    moment = datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


def role(kind: str, value: Any) -> str:
    """
    A seat's colour or region in words.
    """
    if value is None:
        return ""
    if kind == "gomoku":
        return GOMOKU_COLOURS.get(value, str(value))
    return "region " + str(value)


def _gems(gems: Mapping[str, int]) -> str:
    parts: List[str] = []
    for gem, count in gems.items():
        parts.extend([gem] * count if count <= 3 else
                     ["{} x{}".format(gem, count)])
    return "+".join(parts)


def gomokuCell(x: int, y: int) -> str:
    """
    The name of the gomoku cell at column C{x}, row C{y} (both 0-based,
    C{y} from the top as on the wire): a column letter a-o from the left
    and a row number 1-15 from the bottom (C{h8} is the centre).  The
    records, the web pages and the docs all write moves so.
    """
    if 0 <= x < GOMOKU_SIZE and 0 <= y < GOMOKU_SIZE:
        return "{}{}".format(GOMOKU_COLUMNS[x], GOMOKU_SIZE - y)
    return "{},{}".format(x, y)


def action(kind: str, value: Any) -> str:
    """
    One action (in the records' JSON form) in this module's notation.
    """
    if kind == "gomoku":
        return gomokuCell(*value)
    if kind == "checkers":
        return checkers.moveName(value)
    op, card, gems = value["op"], value["card"], dict(value["gems"])
    if op == "get_gems":
        return "take " + _gems(gems)
    if op == "buy_card":
        gold = gems.get("golden", 0)
        return "buy #{}".format(card) + (" (gold {})".format(gold)
                                         if gold else "")
    if op == "fold_card":
        return "reserve #{}".format(card)
    if op == "fold_card_unknown":
        return "reserve hidden level {}".format(
            card - UNKNOWN_CARD_BASE if card > UNKNOWN_CARD_BASE else card)
    if op == "discard_gems":
        return "discard " + _gems(gems)
    if op == "get_noble":
        return "noble #{}".format(card)
    return "{} {} {}".format(op, card, _gems(gems))


def _place(place: Optional[int]) -> str:
    if place is None:
        return ""
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(place if place < 20
                                             else place % 10, "th")
    return "{}{}".format(place, suffix)


def _event(record: GameRecord, event: Mapping[str, Any],
           names: Sequence[str]) -> Optional[str]:
    """
    The line of a kept event other than an action, or None for none.
    """
    kind: str = event["type"]
    seat = event.get("seat")
    who = names[seat] if seat is not None and seat < len(names) else ""
    if kind == "SeatTimedOut":
        return "{} timed out".format(who)
    if kind == "SeatEliminated":
        return "{} is out ({})".format(who, event["reason"])
    if kind == "SeatDropped":
        return "{} left".format(who)
    if kind == "SeatTakenOver":
        return "a level {} bot plays for {}".format(event["level"], who)
    if kind == "SeatReturned":
        return "{} is back".format(who)
    if kind == "CardDealt":
        if event["card"] is None:
            return "level {} deck is empty".format(event["level"])
        return "dealt #{} (level {})".format(event["card"], event["level"])
    if kind == "DiscardRequired":
        return "{} must give back {} token{}".format(
            who, event["count"], "" if event["count"] == 1 else "s")
    if kind == "NobleOffered":
        return "{} may choose a noble: {}".format(
            who, " or ".join("#{}".format(n) for n in event["nobles"]))
    if kind == "NobleAwarded":
        if event["chosen"]:
            # The choice is the action just above.
            return None
        return "{} gets noble #{}".format(who, event["noble"])
    if kind == "TurnSkipped":
        return "{} passes (no legal action)".format(who)
    if kind == "GameEnded":
        return "game over ({}): {}".format(event["reason"],
                                           _outcome(record, event, names))
    return kind


def _outcome(record: GameRecord, event: Mapping[str, Any],
             names: Sequence[str]) -> str:
    winner = event["winner"]
    if winner is not None:
        return "{} wins".format(names[winner])
    if event["reason"] == "abandoned":
        return "no result"
    if event["reason"] == "illegal":
        return "no winner (too many illegal actions)"
    return "draw"


def show(record: GameRecord) -> List[str]:
    """
    The lines of a full L{hub.records.record.GameRecord}: its players,
    outcome and moves.
    """
    names = [s.name for s in record.seats]
    lines = ["game {}: {} at table {!r}".format(record.gameId, record.kind,
                                                record.table),
             "started {}, ended {} ({:.0f} s), {}{}".format(
                 utc(record.startedAt), utc(record.endedAt),
                 record.endedAt - record.startedAt, record.reason,
                 ", rated" if record.rated else ", not rated"),
             "players:"]
    for seat in record.seats:
        notes: List[str] = []
        if seat.botClient:
            notes.append("bot client")
        if seat.takeoverPly is not None:
            notes.append("level {} bot from action {}".format(
                seat.takeoverLevel, seat.takeoverPly + 1))
        if seat.rating is not None:
            notes.append("ordinal {:.2f} -> {:.2f}".format(
                seat.rating[0] - 3 * seat.rating[1],
                seat.rating[2] - 3 * seat.rating[3]))
        lines.append("  {} {:<20} {:<9} {:<5} {}".format(
            seat.seat, seat.name, role(record.kind, seat.role),
            _place(seat.place), ", ".join(notes)).rstrip())
    if record.winner is not None:
        lines.append("winner: {}".format(names[record.winner]))
    elif record.reason != "abandoned":
        lines.append("no winner")
    lines.append("moves:")
    number = 0
    takenOver: Set[int] = set()
    for event in record.events or ():
        if event["type"] == "ActionPlayed":
            number += 1
            note = ""
            if event["byBot"]:
                # A bot's, or the first legal action that settled what a
                # departed player left pending (Splendor).
                note = ("  (bot)" if event["seat"] in takenOver
                        else "  (settled: the player left)")
            lines.append("  {:>4}. {:>7.1f}s  {:<16} {}{}".format(
                number, event["t"], names[event["seat"]],
                action(record.kind, event["action"]), note))
            continue
        if event["type"] == "SeatTakenOver":
            takenOver.add(event["seat"])
        line = _event(record, event, names)
        if line is not None:
            lines.append("        {:>7.1f}s  -- {}".format(event["t"],
                                                          line))
    return lines
