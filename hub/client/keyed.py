"""
A play key in the name field: how a client proves an account's name
through the unchanged protocols (C{alice__KEY} in checkers, C{alice#KEY}
in gomoku; see C{docs/accounts.md}), and how it keeps the key off the
screen and out of its log.
"""

from typing import Any, Optional, Tuple

#: How a play key rides in the name field of each game with names.
KEY_SEPARATORS = {"checkers": "__", "gomoku": "#"}
#: What stands for a key wherever one would show.
HIDDEN = "***"


def keyedName(kind: str, name: str, key: str) -> str:
    """
    The name field that proves account C{name} with play C{key}.
    """
    return name + KEY_SEPARATORS[kind] + key


def wireName(kind: str, name: str, key: Optional[str]) -> str:
    """
    What a client of game C{kind} sends as C{name}'s name: the keyed form
    when a C{key} is given and the game carries names, else C{name}.
    """
    if key and kind in KEY_SEPARATORS:
        return keyedName(kind, name, key)
    return name


def splitName(name: str) -> Tuple[str, str]:
    """
    C{(name, key)} of a name given in a keyed form (C{alice__KEY},
    C{alice#KEY}: the part before the first separator, and everything
    after it), else C{(name, "")}.
    """
    found: Optional[Tuple[int, str]] = None
    for separator in KEY_SEPARATORS.values():
        at = name.find(separator)
        if at >= 0 and (found is None or at < found[0]):
            found = at, separator
    if found is None:
        return name, ""
    at, separator = found
    return name[:at], name[at + len(separator):]


def plainName(name: str) -> str:
    """
    What of C{name} may be shown: all of it, or for a keyed form (even a
    mistyped one) the part before its separator.
    """
    return splitName(name)[0]


def hideKey(text: Any, key: Optional[str]) -> Any:
    """
    C{text} with C{key} taken out: a keyed name becomes the plain name,
    and the key anywhere else L{HIDDEN}.
    """
    if not key or not isinstance(text, str) or key not in text:
        return text
    for separator in KEY_SEPARATORS.values():
        text = text.replace(separator + key, "")
    return text.replace(key, HIDDEN)


class Hidden:
    """
    A value to log whose C{repr} never shows C{key} (computed only when
    the log is written).
    """

    def __init__(self, value: object, key: Optional[str]) -> None:
        self.value = value
        self.key = key

    def __repr__(self) -> str:
        return hideKey(repr(self.value), self.key)

    __str__ = __repr__
