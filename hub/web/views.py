"""
JSON views of the rules objects (L{hub.games}) and of their actions, for
the spectators' pages and the API.  Pure: no Twisted, no I/O.

A view is what a spectator sees of a position: every stone, piece, card
and token on the table, but not the hidden cards (Splendor's decks, and
the reserved cards, which stay face down as at a real table).
"""

from __future__ import annotations

from typing import Any, Callable, List

from hub.games import checkers, gomoku, splendor
from hub.records import notation
from hub.web.i18n import N_

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


#: A Splendor token's name in the move words (the bank's C{golden} is
#: the players' gold).
GEM_WORD = {"diamond": N_("diamond"), "sapphire": N_("sapphire"),
            "emerald": N_("emerald"), "ruby": N_("ruby"),
            "obsidian": N_("obsidian"), "golden": N_("gold")}


def _gemsWords(gems: Any) -> Any:
    """
    Gems given or taken, as words: C{ruby}, C{ruby ×2}, joined by commas.
    """
    parts = [GEM_WORD.get(gem, gem) if n == 1
             else [N_("{0} \N{MULTIPLICATION SIGN}{1}"),
                   GEM_WORD.get(gem, gem), n]
             for gem, n in gems]
    words = parts[-1] if parts else ""
    for part in reversed(parts[:-1]):
        words = [N_("{0}, {1}"), part, words]
    return words


def _cardWords(template: str, card: Any) -> Any:
    found = splendor.CARDS.get(card)
    if found is None:
        return [N_("card #{0}"), card]
    return [template, found.level, GEM_WORD[splendor.GEMS[found.bonus]],
            found.points]


def _splendorWords(action: Any) -> Any:
    """
    A Splendor action in words (L{actionWords}): "bought a level-2 ruby
    card (2 points)".
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


def wordsText(words: Any,
              translate: Callable[[str], str] = lambda text: text) -> Any:
    """
    The text of move words (L{actionWords}): each string translated by
    C{translate} (English by default), each list a template and its
    arguments; numbers as they are.
    """
    if isinstance(words, list):
        template, args = words[0], words[1:]
        return translate(template).format(
            *[wordsText(a, translate) for a in args])
    if isinstance(words, str):
        return translate(words)
    return str(words)


def _splendorText(action: Any) -> Any:
    return wordsText(_splendorWords(action))


def _deckLevel(card: Any) -> Any:
    if card >= splendor.UNKNOWN_CARD_BASE:
        return card - splendor.UNKNOWN_CARD_BASE
    return card


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
ACTION_WORDS = {"splendor": _splendorWords}
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
    number, a text to translate or words again (L{wordsText}; the
    pages' scripts do the same).
    """
    words = ACTION_WORDS.get(kind)
    return None if words is None else words(action)


def roleText(kind: str, seat: Any, role: str) -> Any:
    """
    What to call a seat's side: a colour, a region letter, or nothing.
    """
    return ROLE_TEXT.get(kind, _noRole)(seat, role)
