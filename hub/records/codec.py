"""
The one JSON form of a game's actions and events, per game kind, and back.

Actions (the canonical actions of L{hub.games}):

    gomoku     [x, y]                               -> (x, y)
    checkers   [[x, y], [x, y], ...]  (the path)    -> ((x, y), ...)
    splendor   {"op": "buy_card", "card": 12,
                "gems": {"diamond": 1, "golden": 1}}
                                        -> Action(...).canonical()

Events are JSON objects with their type's name in C{"type"}, the seconds
since the game started in C{"t"}, and the event's own fields:

    {"type": "ActionPlayed", "t": 3.5, "seat": 0, "action": [7, 7],
     "byBot": false}
    {"type": "SeatTimedOut", "t": 9.0, "seat": 1}
    {"type": "SeatEliminated", "t": 9.0, "seat": 1, "reason": "timeout"}
    {"type": "SeatDropped", "t": 9.0, "seat": 1}
    {"type": "SeatTakenOver", "t": 9.0, "seat": 1, "level": 2}
    {"type": "SeatReturned", "t": 9.0, "seat": 1}
    {"type": "CardDealt", "t": 9.0, "level": 1, "card": 17}
    {"type": "DiscardRequired", "t": 9.0, "seat": 1, "count": 2}
    {"type": "NobleOffered", "t": 9.0, "seat": 1, "nobles": [3, 5]}
    {"type": "NobleAwarded", "t": 9.0, "seat": 1, "noble": 3,
     "chosen": false}
    {"type": "TurnSkipped", "t": 9.0, "seat": 1}
    {"type": "GameEnded", "t": 60.2, "reason": "normal", "ranking": [0, 1],
     "winner": 0}

The last four are Splendor's own (L{hub.tables.splendor}); a replay does
not need them (the rules give them back), but they tell the game as its
players saw it: a noble that came by itself is no action.
C{TurnStarted} is not kept (it follows from the rules), nor an action's
C{detail} (the rules give it back on replay).
"""

import json

from hub.tables import events
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


class UnknownKind(ValueError):
    """
    The game kind is none of L{KINDS}.
    """


def actionToJSON(kind, action):
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


def actionFromJSON(kind, value):
    """
    The canonical action of a C{kind} game from its L{actionToJSON} form.
    """
    if kind == "gomoku":
        x, y = value
        return (x, y)
    if kind == "checkers":
        return tuple((x, y) for x, y in value)
    if kind == "splendor":
        from hub.games.splendor import Action
        return Action(value["op"], value["card"],
                      tuple(value["gems"].items())).canonical()
    raise UnknownKind(kind)


def isKept(event):
    """
    Whether a record keeps C{event}.
    """
    return isinstance(event, _KEPT)


def eventToJSON(kind, event, startedAt):
    """
    The JSON-able form of a kept C{event} of a C{kind} game that started
    at C{startedAt} (clock seconds).
    """
    value = {"type": events.eventName(event),
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


def keptEvent(item):
    """
    The event that C{item} of a kept list (L{eventsText}) stands for.
    """
    if type(item) is tuple:
        at, seat, action, byBot = item
        return events.ActionPlayed(seat, action, byBot, None, at)
    return item


def eventsToJSON(kind, kept, startedAt):
    """
    The JSON-able forms of the kept events C{kept} (as for L{eventsText})
    of a C{kind} game that started at C{startedAt}, in order
    (L{eventToJSON}).
    """
    return [eventToJSON(kind, keptEvent(item), startedAt) for item in kept]


# The text of a gomoku action and of a checkers action of one cell
# (L{eventsText}), the time as seconds and milliseconds.
_GOMOKU_ACTION = ('{"type":"ActionPlayed","t":%d.%03d,"seat":%d,'
                  '"action":[%d,%d],"byBot":%s}')
_CHECKERS_ACTION = ('{"type":"ActionPlayed","t":%d.%03d,"seat":%d,'
                    '"action":[%s],"byBot":%s}')
_CELL = "[%d,%d]"
_BOOLEAN = ("false", "true")


def eventsText(kind, kept, startedAt):
    """
    The JSON text of L{eventsToJSON}'s list, written straight from the
    kept events: each gomoku or checkers action is one C{%} format (its
    time in whole milliseconds, as the JSON form rounds it), the few other
    events go through L{json.dumps}.  Decoding it gives L{eventsToJSON}'s
    list back (each C{"t"} equal to within the rounding of a half
    millisecond).

    @param kept: the kept events in order, each an event of
        L{hub.tables.events} or, for an L{events.ActionPlayed}, the tuple
        C{(at, seat, action, byBot)}.
    """
    if kind == "gomoku":
        template = _GOMOKU_ACTION
    elif kind == "checkers":
        template = _CHECKERS_ACTION
    else:
        template = None
    # Whole milliseconds by int(x + 0.5): round() and a float's repr per
    # action would cost more than the rest of the record.
    origin = startedAt * 1000 - 0.5
    parts = []
    append = parts.append
    for item in kept:
        if template is None or type(item) is not tuple:
            append(json.dumps(eventToJSON(kind, keptEvent(item), startedAt),
                              separators=(",", ":")))
            continue
        at, seat, action, byBot = item
        ms = int(at * 1000 - origin)
        if ms < 0:
            # A clock set back: the general form writes a negative time.
            append(json.dumps(eventToJSON(kind, keptEvent(item), startedAt),
                              separators=(",", ":")))
            continue
        seconds, ms = divmod(ms, 1000)
        if template is _GOMOKU_ACTION:
            x, y = action
            append(template % (seconds, ms, seat, x, y,
                               _BOOLEAN[bool(byBot)]))
        else:
            path = ",".join([_CELL % cell for cell in action])
            append(template % (seconds, ms, seat, path,
                               _BOOLEAN[bool(byBot)]))
    return "[" + ",".join(parts) + "]"


def eventFromJSON(kind, value, startedAt):
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
