"""
Replays: the position after every action of a finished game, rebuilt from
its first position and its table events (L{hub.tables.events}), for the
step, play and slider controls of a finished game's page.
"""

from __future__ import annotations

import importlib
from typing import Any, List

from hub.web import views


def tableModule(kind: str) -> Any:
    """
    The table module of game kind C{kind} (L{hub.tables.gomoku}...).
    """
    return importlib.import_module("hub.tables." + kind)


def restore(kind: str, position: Any) -> Any:
    """
    The rules object of C{position} (a L{events.GameStarted} position),
    by the C{restore} of the kind's table module.
    """
    return tableModule(kind).restore(position)


def moveJSON(kind: str, event: Any, ply: int) -> Any:
    """
    One entry of the move list: the ply number (from 1), the seat, the
    action as JSON, as text and (some kinds) as words to translate, and
    whether a server-side bot played it.
    """
    move = {"ply": ply, "seat": event.seat,
            "action": views.actionJSON(kind, event.action),
            "text": views.describeAction(kind, event.action),
            "byBot": bool(event.byBot), "at": event.at}
    words = views.actionWords(kind, event.action)
    if words is not None:
        # The same in the page's language (game.js).
        move["words"] = words
    return move


def replaySteps(kind: str, game: Any, tableEvents: Any) -> Any:
    """
    The views of a game, step by step, through the C{replay} of the
    kind's table module.

    @param game: the rules object before the first action (consumed).
    @param tableEvents: the events after L{events.GameStarted}.
    @return: C{(steps, moves)}: the view before the first action then
        after each one, and the move list.
    """
    steps = [views.viewOf(kind, game)]
    moves: List[Any] = []

    def step(game: Any, event: Any) -> None:
        moves.append(moveJSON(kind, event, len(moves) + 1))
        steps.append(views.viewOf(kind, game))

    tableModule(kind).replay(tableEvents, game, step)
    return steps, moves
