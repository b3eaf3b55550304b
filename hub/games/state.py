"""
One copy for every rules object: a new field can never be missed.

Rules objects keep their state in plain fields: immutable values (numbers,
strings, tuples, None), lists (of immutable values, of lists, or of
objects with a C{copy()}), dicts, sets, and objects with a C{copy()}.
L{copyState} copies each field by that convention, so a field added later
is copied without anyone remembering to.  A field holding anything else
(the deal's C{random.Random}, say) is shared by the copy.

A copy reads the original's C{__dict__}, after which CPython 3.11 keeps
that object's fields in a dict, a fifth slower to read for good
(C{bench/game_end.py}): what in the hub needs a running game's position
takes a snapshot (L{hub.games.codec}), as the feed and bot workers do.
The copy is made field by field, and reads as fast as a new object.
"""

from __future__ import annotations

from typing import Any, TypeVar

_T = TypeVar("_T")

_IMMUTABLE = frozenset([int, float, bool, str, bytes, tuple, frozenset,
                        type(None)])


_MISSING = object()


def copyValue(value: Any) -> Any:
    """
    An independent copy of C{value}, by the convention above.  A list is
    taken to hold one kind of element: it is copied element by element
    only when its first element is not immutable.
    """
    kind = type(value)
    if kind in _IMMUTABLE:
        return value
    if kind is list:
        if not value:
            return []
        first = value[0]
        if type(first) in _IMMUTABLE:
            return value[:]
        if type(first) is list and (not first
                                    or type(first[0]) in _IMMUTABLE):
            return [element[:] for element in value]
        return [copyValue(element) for element in value]
    if kind is dict:
        return {key: copyValue(item) for key, item in value.items()}
    if kind is set:
        return set(value)
    copy = getattr(value, "copy", None)
    if copy is not None:
        return copy()
    return value


def copyState(state: _T) -> _T:
    """
    An independent copy of the rules object C{state}: a new instance of
    its class, without calling C{__init__}, with every field (of its
    C{__dict__} and its C{__slots__}) copied by L{copyValue}.
    """
    kind = type(state)
    other = kind.__new__(kind)
    fields = getattr(state, "__dict__", None)
    if fields is not None:
        # Field by field, not through the copy's __dict__: the copy keeps
        # its fields as a new object does, the faster to read.
        for name, value in fields.items():
            setattr(other, name, copyValue(value))
    for name in getattr(kind, "__slots__", ()):
        value = getattr(state, name, _MISSING)
        if value is not _MISSING:
            setattr(other, name, copyValue(value))
    return other
