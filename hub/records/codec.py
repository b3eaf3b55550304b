"""
The one JSON form of a game's actions and events, per game kind, and back.

Actions are the canonical actions of L{hub.games} in the form of
L{hub.games.codec}: gomoku C{[x, y]}, checkers the path C{[[x, y], ...]},
Splendor C{{"op": "buy_card", "card": 12, "gems": {...}}}.  Events are
JSON objects with their type's name in C{"type"}, the seconds since the
game started in C{"t"}, and the event's own fields.  Which events are
kept, and why Splendor's own are though a replay does not need them:
docs/records.md (the export's C{events}, and the paragraph after it).

The database keeps them in a compact form by columns (L{eventsText}),
read back into this one (L{eventsFromText}).
"""

from __future__ import annotations

import json
import math
from typing import Any, Dict, List, Sequence, Tuple, Union, cast

from hub.games.codec import actionFromJSON, actionToJSON
from hub.tables import events
from hub.tables.actionlog import ActionLog
from hub.wire.fastjson import encodePlain
from hub.tables import splendor as splendorTable

KINDS = ("gomoku", "checkers", "splendor")

_KEPT = (events.ActionPlayed, events.SeatTimedOut, events.SeatEliminated,
         events.SeatDropped, events.SeatTakenOver, events.SeatReturned,
         events.CardDealt, events.GameEnded,
         splendorTable.DiscardRequired, splendorTable.NobleOffered,
         splendorTable.NobleAwarded, splendorTable.TurnSkipped)
_BY_NAME = {t.__name__: t for t in _KEPT}
# The fields of each kept type, "at" and "action" aside.
_FIELDS = {
    events.SeatTimedOut: ("seat",),
    events.SeatEliminated: ("seat", "reason"),
    events.SeatDropped: ("seat",),
    events.SeatTakenOver: ("seat", "level"),
    events.SeatReturned: ("seat",),
    events.CardDealt: ("level", "card"),
    events.GameEnded: ("reason", "ranking", "winner"),
    splendorTable.DiscardRequired: ("seat", "count"),
    splendorTable.NobleOffered: ("seat", "nobles"),
    splendorTable.NobleAwarded: ("seat", "noble", "chosen"),
    splendorTable.TurnSkipped: ("seat",),
}
# The fields that are tuples in events and lists in JSON.
_SEQUENCES = ("ranking", "nobles")

#: An action as its table keeps it (L{hub.ihub.ITable.actions}), which a
#: record reads at the end: C{(seat, action, byBot, detail, at)}.
KeptAction = events.ActionFields


def isKept(event: object) -> bool:
    """
    Whether a record keeps C{event}.
    """
    return isinstance(event, _KEPT)


def eventToJSON(kind: str, event: Any,
                startedAt: float) -> Dict[str, Any]:
    """
    The JSON-able form of a kept C{event} of a C{kind} game that started
    at C{startedAt} (clock seconds).
    """
    value: Dict[str, Any] = {"type": events.eventName(event),
             "t": round(event.at - startedAt, 3)}
    if isinstance(event, events.ActionPlayed):
        value["seat"] = event.seat
        value["action"] = actionToJSON(kind, event.action)
        value["byBot"] = bool(event.byBot)
    else:
        for name in _FIELDS[type(event)]:
            field = getattr(event, name)
            value[name] = list(field) if name in _SEQUENCES else field
    return value


def keptEvent(item: Union[KeptAction, object]) -> object:
    """
    The event that C{item} of a kept list (L{eventsText}) stands for.
    """
    if type(item) is tuple:
        return events.ActionPlayed(*item)
    return item


def eventsToJSON(kind: str, kept: Sequence[Union[KeptAction, object]],
                 startedAt: float) -> List[Dict[str, Any]]:
    """
    The JSON-able forms of the kept events C{kept} (as for L{eventsText})
    of a C{kind} game that started at C{startedAt}, in order
    (L{eventToJSON}).
    """
    return [eventToJSON(kind, keptEvent(item), startedAt) for item in kept]


def eventsText(kind: str, kept: Sequence[Union[KeptAction, object]],
               startedAt: float) -> str:
    """
    The stored text of the kept events of a C{kind} game that started at
    C{startedAt} (L{columnsText}).

    @param kept: the kept events in order, each an event of
        L{hub.tables.events} or, for an L{events.ActionPlayed}, its
        L{KeptAction} tuple.
    """
    actions = ActionLog()
    others = []
    for item in kept:
        if type(item) is tuple:
            seat, action, byBot, _, at = cast(KeptAction, item)
            actions.append(seat, action, byBot, at)
        else:
            others.append((len(actions), item))
    return columnsText(kind, actions, others, startedAt)


def columnsText(kind: str, actions: ActionLog,
                others: Sequence[Tuple[int, object]],
                startedAt: float) -> str:
    """
    The stored text of a C{kind} game that started at C{startedAt}: a
    compact JSON object, by columns, that L{eventsFromText} turns back
    into L{eventsToJSON}'s list (each C{"t"} to the millisecond).  A game
    is mostly actions; their columns are lists of plain values, made from
    the table's own columns (L{ActionLog}) and written by the JSON
    encoder's C code, where an object per action cost more than the rest
    of the record::

        {"t": [0, 1403, ...],          each action's time, in ms
         "seat": [0, 1, ...],          its seat
         "action": [[7, 7], ...],      its L{actionToJSON} form
         "bot": [12, 13],              the actions a server-side bot played
         "events": [[3, {...}], ...]}  every other event (L{eventToJSON}),
                                       after that many actions

    @param actions: the game's actions.
    @param others: the other kept events, each with the number of actions
        before it, in order.
    """
    # Whole milliseconds by int(x + 0.5), which rounds halves up from 0.
    # The offset is taken first: milliseconds since the epoch (1.7e12)
    # have too few bits left to round a time near a half correctly.
    if actions.times and min(actions.times) < startedAt:
        # A time before the start (a clock set back): rounded alike.
        times = [math.floor((at - startedAt) * 1000 + 0.5)
                 for at in actions.times]
    else:
        times = [int((at - startedAt) * 1000 + 0.5) for at in actions.times]
    if kind in ("gomoku", "checkers"):
        # Tuples, which the encoder writes as arrays.
        moves = actions.moves
    else:
        moves = [actionToJSON(kind, action) for action in actions.moves]
    # The columns hold no float: msgspec writes them (fastjson).  The other
    # events, few, have their times as floats: the standard library.
    columns = encodePlain({"t": times, "seat": actions.seatList(),
                           "action": moves, "bot": actions.botPlies()})
    return "%s,\"events\":%s}" % (
        columns[:-1].decode("utf-8"),
        json.dumps([[count, eventToJSON(kind, event, startedAt)]
                    for count, event in others], separators=(",", ":")))


def eventsFromText(text: str) -> List[Dict[str, Any]]:
    """
    The L{eventsToJSON} list of events stored as C{text} (L{eventsText};
    a JSON list of them is taken as it is).
    """
    value = json.loads(text)
    if isinstance(value, list):
        return value
    bots = set(value["bot"])
    actions = [{"type": "ActionPlayed", "t": ms / 1000, "seat": seat,
                "action": action, "byBot": i in bots}
               for i, (ms, seat, action) in enumerate(
                   zip(value["t"], value["seat"], value["action"]))]
    if not value["events"]:
        return actions
    result = []
    done = 0
    for count, event in value["events"]:
        result.extend(actions[done:count])
        done = max(done, count)
        result.append(event)
    result.extend(actions[done:])
    return result


def eventFromJSON(kind: str, value: Dict[str, Any],
                  startedAt: float) -> object:
    """
    The event of a C{kind} game from its L{eventToJSON} form (an action's
    C{detail} is None).
    """
    eventType = _BY_NAME[value["type"]]
    at = startedAt + value["t"]
    if eventType is events.ActionPlayed:
        return events.ActionPlayed(
            value["seat"], actionFromJSON(kind, value["action"]),
            value["byBot"], None, at)
    fields = {name: value[name] for name in _FIELDS[eventType]}
    for name in _SEQUENCES:
        if name in fields:
            fields[name] = tuple(fields[name])
    return eventType(at=at, **fields)
