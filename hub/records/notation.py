"""
Records in a readable notation, for C{python -m hub.records show}.

    gomoku    h8 (column a-o from the left, row 1-15 from the bottom, as
              gomoku and renju players write moves: the centre, (7, 7),
              is h8; (0, 0), the top left corner, is a15)
    checkers  the path's cells, i5-c3 (rows 1-17 from the bottom, a
              letter from each row's left end: docs/games.md)
    splendor  in words, as the web's move lists say them
              (L{splendorWords}): took diamond, sapphire, emerald;
              bought a level-2 ruby card (2 points); reserved a card
              from the level-2 deck; gave back ruby ×2

Between the actions, what else happened (a seat left, timed out, was
taken over; Splendor's dealt cards, discards and nobles), and last the
outcome.
"""

from __future__ import annotations

import datetime
from typing import (
    Any, Callable, List, Mapping, Optional, Sequence, Set, Tuple)

from hub.catalogs import N_
from hub.games import checkers, splendor
from hub.games.codec import actionFromJSON
from hub.records.record import GameRecord

GOMOKU_COLUMNS = "abcdefghijklmno"
GOMOKU_SIZE = len(GOMOKU_COLUMNS)
GOMOKU_COLOURS = {1: "black", 16: "white"}


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
    return wordsText(splendorWords(actionFromJSON(kind, value)))


#: Move words (L{splendorWords}): a text, a number, or a list of a
#: template and its arguments, each words again.
Words = Any

#: A Splendor token's name in the move words (the bank's C{golden} is
#: the players' gold).
GEM_WORD = {"diamond": N_("diamond"), "sapphire": N_("sapphire"),
            "emerald": N_("emerald"), "ruby": N_("ruby"),
            "obsidian": N_("obsidian"), "golden": N_("gold")}


def _gemsWords(gems: Sequence[Tuple[str, int]]) -> Words:
    """
    Gems given or taken, as words: C{ruby}, C{ruby ×2}, joined by commas.
    """
    parts: List[Words] = [GEM_WORD.get(gem, gem) if n == 1
             else [N_("{0} \N{MULTIPLICATION SIGN}{1}"),
                   GEM_WORD.get(gem, gem), n]
             for gem, n in gems]
    words: Words = parts[-1] if parts else ""
    for part in reversed(parts[:-1]):
        words = [N_("{0}, {1}"), part, words]
    return words


def _cardWords(template: str, card: int) -> Words:
    found = splendor.CARDS.get(card)
    if found is None:
        return [N_("card #{0}"), card]
    return [template, found.level, GEM_WORD[splendor.GEMS[found.bonus]],
            found.points]


def _deckLevel(card: int) -> int:
    if card >= splendor.UNKNOWN_CARD_BASE:
        return card - splendor.UNKNOWN_CARD_BASE
    return card


def splendorWords(action: Any) -> Words:
    """
    A Splendor action (canonical, L{hub.games.splendor}) in words: "bought
    a level-2 ruby card (2 points)", as a template of the web's catalogs
    (English) and its arguments, each a number, a text to translate or
    words again (L{wordsText}).  The web's move lists, replays and
    scripts and C{python -m hub.records show} all say a move so.
    """
    what, card, gems = action[0], action[1], action[2]
    if what == splendor.GET_GEMS:
        return [N_("took {0}"), _gemsWords(gems)]
    if what == splendor.BUY_CARD:
        points = getattr(splendor.CARDS.get(card), "points", 0)
        return _cardWords(
            N_("bought a level-{0} {1} card") if points == 0
            else N_("bought a level-{0} {1} card (1 point)") if points == 1
            else N_("bought a level-{0} {1} card ({2} points)"), card)
    if what == splendor.FOLD_CARD:
        return _cardWords(N_("reserved a level-{0} {1} card"), card)
    if what == splendor.FOLD_CARD_UNKNOWN:
        return [N_("reserved a card from the level-{0} deck"),
                _deckLevel(card)]
    if what == splendor.DISCARD_GEMS:
        return [N_("gave back {0}"), _gemsWords(gems)]
    if what == splendor.GET_NOBLE:
        return [N_("was visited by a noble ({0} points)"),
                splendor.NOBLE_POINTS]
    return str(what)


def wordsText(words: Words,
              translate: Callable[[str], str] = lambda text: text) -> str:
    """
    The text of move words (L{splendorWords}): each string translated by
    C{translate} (English by default), each list a template and its
    arguments; numbers as they are.
    """
    if isinstance(words, list):
        template, args = words[0], words[1:]
        text: str = translate(template).format(
            *[wordsText(a, translate) for a in args])
        return text
    if isinstance(words, str):
        return translate(words)
    return str(words)


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
