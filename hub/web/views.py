"""
JSON views of the rules objects (L{hub.games}) and of their actions, for
the spectators' pages and the API.  Pure: no Twisted, no I/O.

A view is what a spectator sees of a position: every stone, piece, card
and token on the table, but not the hidden cards (Splendor's decks, and
the reserved cards, which stay face down as at a real table).
"""

from __future__ import annotations

from typing import Any, List

from hub.games import checkers, gomoku, splendor
from hub.records import notation

GOMOKU_COLOURS = ("black", "white")


def gomokuView(game: Any) -> Any:
    """
    The board as a string of L{gomoku.SIZE}^2 characters, row by row
    (C{.} empty, C{b} black, C{w} white), the last move, and the stones
    of the five (or more) in a row it made, if it won.
    """
    marks = {gomoku.EMPTY: ".", gomoku.BLACK: "b", gomoku.WHITE: "w"}
    board = game.board
    five: List[Any] = []
    for row in gomoku.winningRows(
            lambda x, y: board[y * gomoku.SIZE + x], game.lastMove):
        five.extend([x, y] for x, y in row if [x, y] not in five)
    return {
        "size": gomoku.SIZE,
        "board": "".join(marks[stone] for stone in board),
        "last": list(game.lastMove) if game.lastMove else None,
        "five": five,
        "toMove": game.currentSeat,
    }


def checkersView(game: Any) -> Any:
    """
    The pieces of every seat, with their regions, finishers and
    eliminated seats.
    """
    return {
        "regions": list(game.regions),
        "pieces": [[list(cell) for cell in game.pieces(seat)]
                   for seat in range(game.seatCount)],
        "finished": list(game.finished),
        "eliminated": list(game.eliminated),
        "toMove": game.currentSeat,
    }


def splendorCard(number: int) -> Any:
    """
    One face-up card as JSON, or None for an empty slot.
    """
    card = splendor.CARDS.get(number)
    if card is None:
        return None
    return {"id": card.number, "level": card.level, "points": card.points,
            "bonus": splendor.GEMS[card.bonus],
            "cost": _gems(card.cost)}


def splendorNoble(number: int) -> Any:
    """
    One noble as JSON.
    """
    noble = splendor.NOBLES[number]
    return {"id": noble.number, "points": noble.points,
            "cost": _gems(noble.cost)}


def _gems(counts: Any) -> Any:
    return {gem: n for gem, n in zip(splendor.GEMS, counts) if n}


def splendorView(game: Any) -> Any:
    """
    Nobles, the three rows (level 1 first), the size of each deck, the
    bank, and each seat's tokens, bonuses, points, purchased count,
    nobles and reserved cards (their level only: face down).
    """
    players = []
    for seat, player in enumerate(game.players):
        players.append({
            "tokens": dict(zip(splendor.TOKENS, player.tokens)),
            "bonuses": dict(zip(splendor.GEMS, player.bonuses)),
            "points": player.points,
            "purchased": len(player.purchased),
            "nobles": [splendorNoble(n) for n in player.nobles],
            "reserved": [{"level": _levelOf(n)} for n in player.reserved],
            "retired": bool(game.retired[seat]),
        })
    return {
        "nobles": [splendorNoble(n) for n in game.nobles],
        "rows": [[splendorCard(n) for n in row] for row in game.board],
        "decks": [len(deck) for deck in game.decks],
        "bank": dict(zip(splendor.TOKENS, game.bank)),
        "players": players,
        "phase": game.phase,
        "toMove": game.currentSeat,
    }


def _levelOf(number: int) -> Any:
    card = splendor.CARDS.get(number)
    return card.level if card is not None else None


def _gomokuJSON(action: Any) -> Any:
    return list(action)


def _checkersJSON(action: Any) -> Any:
    return [list(cell) for cell in action]


def _splendorJSON(action: Any) -> Any:
    return {"kind": action[0], "card": action[1],
            "gems": {gem: n for gem, n in action[2]}}


def gomokuCell(x: int, y: int) -> Any:
    """
    A cell's name on the board, as the records write it
    (L{notation.gomokuCell}: C{h8} is the centre).
    """
    return notation.gomokuCell(x, y)


def _gomokuText(action: Any) -> Any:
    return gomokuCell(*action)


def _checkersText(action: Any) -> Any:
    return checkers.moveName(action)


def _splendorText(action: Any) -> Any:
    return notation.wordsText(notation.splendorWords(action))


def _gomokuRole(seat: Any, role: str) -> Any:
    return GOMOKU_COLOURS[seat] if seat < 2 else None


def _checkersRole(seat: Any, role: str) -> Any:
    return str(role) if role is not None else None


def _noRole(seat: Any, role: str) -> None:
    return None


#: Of each game kind: its view, its action's JSON, its action's text
#: and its seats' role text.
VIEWS = {"gomoku": gomokuView, "checkers": checkersView,
         "splendor": splendorView}
ACTION_JSON = {"gomoku": _gomokuJSON, "checkers": _checkersJSON,
               "splendor": _splendorJSON}
ACTION_TEXT = {"gomoku": _gomokuText, "checkers": _checkersText,
               "splendor": _splendorText}
ACTION_WORDS = {"splendor": notation.splendorWords}
ROLE_TEXT = {"gomoku": _gomokuRole, "checkers": _checkersRole,
             "splendor": _noRole}


def viewOf(kind: str, game: Any) -> Any:
    """
    The view of C{game}, a rules object of game kind C{kind}.
    """
    return VIEWS[kind](game)


def actionJSON(kind: str, action: Any) -> Any:
    """
    The canonical C{action} of game kind C{kind} as JSON.
    """
    encode = ACTION_JSON.get(kind)
    return repr(action) if encode is None else encode(action)


def describeAction(kind: str, action: Any) -> Any:
    """
    A short text for the move list.
    """
    describe = ACTION_TEXT.get(kind)
    return repr(action) if describe is None else describe(action)


def actionWords(kind: str, action: Any) -> Any:
    """
    C{action} in words to be translated where it is shown, or None when
    its text (L{describeAction}) is the same in every language: a
    template (English, in the catalogs) and its arguments, each a
    number, a text to translate or words again (L{notation.wordsText}; the
    pages' scripts do the same).
    """
    words = ACTION_WORDS.get(kind)
    return None if words is None else words(action)


def roleText(kind: str, seat: Any, role: str) -> Any:
    """
    What to call a seat's side: a colour, a region letter, or nothing.
    """
    return ROLE_TEXT.get(kind, _noRole)(seat, role)
