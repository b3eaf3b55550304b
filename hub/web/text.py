"""
Players' text (names of players and rooms) as the web pages show it.

The hub keeps a name exactly as its client sent it, since legacy clients
recognise themselves and each other by the bytes echoed back; the pages
show it with every character that could hide or disguise text replaced
by U+FFFD: the C0 and C1 controls (NUL, ESC...), DEL, the bidirectional
embeddings, overrides and isolates, and lone surrogates (which have no
UTF-8).  Two names that differ only there still look different.  The
pages also isolate each such text (C{<bdi>}, or U+2068 ... U+2069 where
no markup can go, as in C{<title>}), so that a right-to-left name never
reorders what surrounds it.  C{/static/dom.js} does the same in the
browser.
"""

from __future__ import annotations

import re
from typing import Any

#: What replaces a hidden character.
REPLACEMENT = "\ufffd"

#: The characters replaced.
HIDDEN = re.compile(
    "[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")

#: First strong isolate and pop directional isolate: a <bdi> in plain text.
FSI, PDI = "\u2068", "\u2069"


def displayText(text: str) -> Any:
    """
    C{text} (a player's or a room's name) with its hidden characters
    replaced; None stays None.
    """
    if text is None:
        return None
    return HIDDEN.sub(REPLACEMENT, text)


def isolatedText(text: str) -> Any:
    """
    L{displayText} of C{text}, isolated for plain text (a page's title).
    """
    return FSI + displayText(text) + PDI
