"""
Display names: the free name an account may show on the web face and in
the desktop client beside its protocol name (C{李雷 (lilei)}), which
the legacy protocols never carry.

The rules (normalised as a guest's name, at most L{MAX_DISPLAY}
characters, no hidden character, at most L{MAX_MARKS} combining marks in
a row, nothing that reads as a parenthesis) are in docs/accounts.md,
"Display names".  Whether one looks like another account's name or
display name is the store's to say (L{displaySkeletons} are what is
compared); each refusal is a L{DisplayNameRefused} of its own type, so
that a page says it in its own language.
"""

import unicodedata
from typing import List, Optional

from hub.accounts import names
from hub.accounts.store import AccountError

#: The most characters (code points, once normalised) of a display name:
#: room for a full name in most scripts (24 Chinese characters take the
#: width of about 48 Latin ones), short enough for a seat list and a
#: leaderboard's column beside the protocol name; at most 96 bytes.
MAX_DISPLAY = 24
#: The most combining marks in a row (more is how text is made to spill
#: over the lines around it; no script needs more than 3 after NFKC).
MAX_MARKS = 4
_MARKS = frozenset(["Mn", "Me"])
_WHITE_CONTROLS = {ord(c): " " for c in "\t\n\r"}


class DisplayNameRefused(AccountError):
    """
    A display name an account may not have; each subclass is one reason.
    """


class DisplayNameTooLong(DisplayNameRefused):
    """
    Longer than L{MAX_DISPLAY} characters.

    @ivar length: its length, normalised.
    """

    def __init__(self, length: int) -> None:
        DisplayNameRefused.__init__(
            self, "a display name has at most {} characters; this one has "
            "{}".format(MAX_DISPLAY, length))
        self.length = length


class DisplayNameHidden(DisplayNameRefused):
    """
    It holds a hidden character.

    @ivar character: the first one.
    """

    def __init__(self, character: str) -> None:
        DisplayNameRefused.__init__(
            self, "a display name has no invisible or control character "
            "(it has U+{:04X})".format(ord(character)))
        self.character = character


class DisplayNameMarks(DisplayNameRefused):
    """
    It has more than L{MAX_MARKS} combining marks in a row.
    """

    def __init__(self) -> None:
        DisplayNameRefused.__init__(
            self, "a display name has at most {} combining marks in a "
            "row".format(MAX_MARKS))


class DisplayNameParenthesis(DisplayNameRefused):
    """
    It holds a parenthesis, or a character that looks like one.
    """

    def __init__(self) -> None:
        DisplayNameRefused.__init__(
            self, "a display name has no parenthesis (the name it stands "
            "beside is shown in them)")


class DisplayNameLookalike(DisplayNameRefused):
    """
    Its confusable skeleton is that of another account's name or display
    name.

    @ivar other: that account's (protocol) name.
    @ivar what: C{"name"} or C{"display"}: which of its names.
    """

    def __init__(self, other: str, what: str) -> None:
        DisplayNameRefused.__init__(
            self, "a display name may not look like another account's {} "
            "({})".format("name" if what == "name" else "display name",
                          other))
        self.other = other
        self.what = what


def displayName(text: str) -> Optional[str]:
    """
    The display name C{text} asks for, normalised.

    @return: the display name, or None for an empty one (which clears it).
    @raise DisplayNameRefused: it breaks a rule (but the lookalikes').
    """
    normal = unicodedata.normalize("NFKC", text)
    # Tabs and line ends are white space; the other controls Python
    # counts as white space (U+001C to U+001F, U+0085) are refused.
    hidden = names.hiddenCharacter(normal.translate(_WHITE_CONTROLS))
    if hidden is not None:
        raise DisplayNameHidden(hidden)
    shown = " ".join(normal.split())
    if not shown:
        return None
    if len(shown) > MAX_DISPLAY:
        raise DisplayNameTooLong(len(shown))
    run = 0
    for c in shown:
        run = run + 1 if unicodedata.category(c) in _MARKS else 0
        if run > MAX_MARKS:
            raise DisplayNameMarks()
    if any("(" in s or ")" in s for s in displaySkeletons(shown)):
        raise DisplayNameParenthesis()
    return shown


def displaySkeletons(display: str) -> List[str]:
    """
    The confusable skeletons under which C{display} (normalised) may not
    look like another account's name or display name: those of
    L{names.accountSkeletons}, as is, in lower case and in upper case.
    """
    return names.accountSkeletons(display)
