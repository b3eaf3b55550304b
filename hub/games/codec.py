"""
The JSON form of a game's whole state and of its actions, per game kind:
what the hub sends a bot worker and what the worker answers
(L{hub.thinkers}), never a pickle of a live object.

    stateToJSON("gomoku", game)  -> {"moves": [[7, 7], ...], ...}
    stateFromJSON("gomoku", data) -> a GomokuGame equal to game

A state is the rules object's own L{snapshot} (C{GomokuGame.snapshot},
C{CheckersGame.snapshot}, C{SplendorGame.snapshot}); an action is in the
records' form (L{hub.records.codec}): gomoku C{[x, y]}, checkers a path
C{[[x, y], ...]}, Splendor C{{"op": ..., "card": ..., "gems": {...}}}.
Pure: no Twisted, no I/O.
"""

from __future__ import annotations

from typing import Any, Dict, Mapping

from hub.games.checkers import CheckersGame
from hub.games.gomoku import GomokuGame
from hub.games.splendor import Action, SplendorGame

KINDS = ("gomoku", "checkers", "splendor")
_GAMES = {"gomoku": GomokuGame, "checkers": CheckersGame,
          "splendor": SplendorGame}


class UnknownKind(ValueError):
    """
    The game kind is none of L{KINDS}.
    """


def _game(kind: str) -> Any:
    game = _GAMES.get(kind)
    if game is None:
        raise UnknownKind(kind)
    return game


def stateToJSON(kind: str, game: Any) -> Dict[str, Any]:
    """
    The JSON-able whole state of C{game}, a C{kind} rules object.
    """
    _game(kind)
    snapshot: Dict[str, Any] = game.snapshot()
    return snapshot


def stateFromJSON(kind: str, data: Mapping[str, Any]) -> Any:
    """
    The rules object of C{kind} whose L{stateToJSON} C{data} is.

    @raise ValueError: C{data} is not such a state (or the kind is
        unknown: L{UnknownKind}).
    """
    if not isinstance(data, Mapping):
        raise ValueError("a state is an object")
    return _game(kind).fromSnapshot(data)


def actionToJSON(kind: str, action: Any) -> Any:
    """
    The JSON-able form of the canonical C{action} of a C{kind} game.
    """
    if kind == "gomoku":
        x, y = action
        return [x, y]
    if kind == "checkers":
        return [[x, y] for x, y in action]
    if kind == "splendor":
        op, card, gems = action
        return {"op": op, "card": card, "gems": dict(gems)}
    raise UnknownKind(kind)


def actionFromJSON(kind: str, value: Any) -> Any:
    """
    The canonical action of a C{kind} game from its L{actionToJSON} form.

    @raise ValueError: C{value} has not the shape of such an action.
    """
    try:
        if kind == "gomoku":
            x, y = value
            return (x, y)
        if kind == "checkers":
            return tuple((x, y) for x, y in value)
        if kind == "splendor":
            return Action(value["op"], value["card"],
                          tuple(value["gems"].items())).canonical()
    except (TypeError, KeyError, AttributeError) as e:
        raise ValueError("not a %s action: %s" % (kind, e))
    raise UnknownKind(kind)
