"""
Replays: the position after every action of a finished game, rebuilt from
its first position and its table events (L{hub.tables.events}), for the
step, play and slider controls of a finished game's page.
"""

import importlib

from hub.tables import events
from hub.web import views


def restore(kind, position):
    """
    The rules object of C{position} (a L{events.GameStarted} position),
    by the C{restore} of the kind's table module.
    """
    module = importlib.import_module("hub.tables." + kind)
    return module.restore(position)


def moveJSON(kind, event, ply):
    """
    One entry of the move list: the ply number (from 1), the seat, the
    action as JSON and as text, and whether a server-side bot played it.
    """
    return {"ply": ply, "seat": event.seat,
            "action": views.actionJSON(kind, event.action),
            "text": views.describeAction(kind, event.action),
            "byBot": bool(event.byBot), "at": event.at}


def replaySteps(kind, game, tableEvents):
    """
    The views of a game, step by step.

    @param game: the rules object before the first action (consumed).
    @param tableEvents: the events after L{events.GameStarted}.
    @return: C{(steps, moves)}: the view before the first action then
        after each one, and the move list.
    """
    steps = [views.viewOf(kind, game)]
    moves = []
    settling = []
    for event in tableEvents:
        if isinstance(event, events.ActionPlayed):
            if settling and settling[0] == (event.seat,
                                            tuple(event.action)):
                settling.pop(0)
            else:
                action = event.action
                if kind != "splendor":
                    action = tuple(tuple(a) if isinstance(a, list) else a
                                   for a in action)
                game.apply(event.seat, action)
            moves.append(moveJSON(kind, event, len(moves) + 1))
            steps.append(views.viewOf(kind, game))
        elif isinstance(event, events.SeatEliminated):
            if kind == "checkers":
                game.eliminate(event.seat)
            elif kind == "splendor":
                settling.extend(_settled(game.retire(event.seat)))
    return steps, moves


def _settled(ruled):
    """
    The C{(seat, action)} pairs a Splendor retirement played by itself.
    """
    from hub.games import splendor
    return [(e.seat, tuple(e.action)) for e in ruled
            if isinstance(e, splendor.OperationDone)]
