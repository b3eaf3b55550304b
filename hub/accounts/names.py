"""
Account names and play keys, the keyed names that carry a key through the
legacy protocols' name fields (C{alice__KEY} in checkers, C{alice#KEY} in
gomoku), and guests' names: normalised, and compared with accounts' names
by their confusable skeletons (Unicode TR39, through ICU).

A registered name is 1 to L{MAX_NAME} letters, digits and single
underscores (no C{__}, none at the end), so that its checkers form,
C{NAME__KEY}, fits checkers' 20 characters with a key of L{KEY_LENGTH}
characters over L{KEY_ALPHABET}: 62 ** 10, about 8.4e17 keys.  A name
field holding any protocol's separator is never a guest's: it is a proof
of the name before the first separator (L{splitKeyed}).  The rules are
those of docs/accounts.md, "Names".
"""

import hashlib
import hmac
import re
import secrets
import string
import threading
import unicodedata
from typing import List, Optional, cast

import attr
import icu

KEY_ALPHABET = string.ascii_letters + string.digits
KEY_LENGTH = 10
MAX_NAME = 8
CHECKERS_SEPARATOR = "__"
GOMOKU_SEPARATOR = "#"
SEPARATORS = {"checkers": CHECKERS_SEPARATOR, "gomoku": GOMOKU_SEPARATOR}
#: Every protocol's separator: none may be in a guest's name, anywhere.
ALL_SEPARATORS = (CHECKERS_SEPARATOR, GOMOKU_SEPARATOR)
#: The longest guest name, normalised, in UTF-8 bytes (gomoku's limit).
MAX_GUEST_BYTES = 35
ROLES = ("player", "moderator", "admin")

_NAME = re.compile(r"[A-Za-z0-9_]{1,%d}" % (MAX_NAME,))
_KEY = re.compile(r"[A-Za-z0-9]{%d}" % (KEY_LENGTH,))


class BadName(ValueError):
    """
    A name no account may have.
    """


def checkName(name: str) -> None:
    """
    Raise L{BadName} saying why C{name} cannot be an account's name.
    """
    if not _NAME.fullmatch(name):
        raise BadName("a name is 1 to {} letters, digits or underscores"
                      .format(MAX_NAME))
    if "__" in name or name.endswith("_"):
        raise BadName("a name has no '__' and does not end with '_'")


def isLegacyName(name: str) -> bool:
    """
    Whether C{name} has only the characters every legacy protocol allows
    in a name, C{[A-Za-z0-9_]}, and at most L{MAX_NAME} of them.
    """
    return _NAME.fullmatch(name) is not None


def nameKey(name: str) -> str:
    """
    The key under which C{name} is unique: its case-folded form.
    """
    return name.casefold()


def newKey() -> str:
    """
    A fresh play key, from L{secrets}.
    """
    return "".join(secrets.choice(KEY_ALPHABET) for _ in range(KEY_LENGTH))


def keyHash(secret: bytes, key: str) -> str:
    """
    The stored form of play key C{key}: its HMAC-SHA256 under the server's
    C{secret} (bytes), in hex.
    """
    return hmac.new(secret, key.encode("ascii"), hashlib.sha256).hexdigest()


def keyMatches(secret: bytes, key: str, stored: str) -> bool:
    """
    Whether C{key} is the key whose L{keyHash} is C{stored}, compared in
    constant time.
    """
    return hmac.compare_digest(keyHash(secret, key), stored)


@attr.s(frozen=True, repr=False)
class Keyed:
    """
    A name field holding a separator: a proof of C{name}.

    @ivar name: what comes before the first separator (of any protocol).
    @ivar separator: that separator.
    @ivar rest: everything after it (the key, if well formed): never
        shown, logged or stored.
    """

    name: str = attr.ib()
    separator: str = attr.ib()
    rest: str = attr.ib()

    def __repr__(self) -> str:
        return "Keyed({!r}, {!r}, ...)".format(self.name, self.separator)

    def keyFor(self, kind: str) -> Optional[str]:
        """
        The key this proof offers in game kind C{kind}: C{rest}, if the
        separator is C{kind}'s and C{rest} is L{KEY_LENGTH} characters of
        L{KEY_ALPHABET}; else None (a proof that fails).
        """
        if self.separator != SEPARATORS.get(kind):
            return None
        if not _KEY.fullmatch(self.rest):
            return None
        return self.rest


def splitKeyed(wireName: str) -> Optional[Keyed]:
    """
    The L{Keyed} proof of C{wireName} if it holds any protocol's
    separator (C{__} or C{#}), split at the first one; else None.
    """
    found = None
    for separator in ALL_SEPARATORS:
        at = wireName.find(separator)
        if at >= 0 and (found is None or at < found[0]):
            found = at, separator
    if found is None:
        return None
    at, separator = found
    return Keyed(wireName[:at], separator, wireName[at + len(separator):])


def shownName(wireName: str) -> str:
    """
    What of C{wireName} may be shown or logged: all of it, or for a keyed
    name the part before its separator.
    """
    keyed = splitKeyed(wireName)
    return wireName if keyed is None else keyed.name


# Characters no guest name may hold: controls, format characters (the
# zero-width ones, the bidi marks, embeddings, overrides and isolates,
# U+FEFF), surrogates, private use and unassigned code points, and the
# other default-ignorable ones (Hangul fillers, variation selectors...).
_HIDDEN_CATEGORIES = frozenset(["Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"])
_IGNORABLE = re.compile(
    "[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164"
    "\ufe00-\ufe0f\uffa0\U000e0000-\U000e0fff]")


def hiddenCharacter(text: str) -> Optional[str]:
    """
    The first character of C{text} that no name a person reads may hold
    (a control, format, zero-width, bidi, private use, unassigned or
    other default-ignorable character), or None.
    """
    found = _IGNORABLE.search(text)
    for at, c in enumerate(text):
        if found is not None and found.start() == at:
            return c
        if unicodedata.category(c) in _HIDDEN_CATEGORIES:
            return c
    return None


def guestName(wireName: str) -> str:
    """
    The name a guest who asks for C{wireName} gets: its NFKC form, with
    runs of white space made one space and none at either end.

    @raise BadName: it is empty then, longer than L{MAX_GUEST_BYTES}, or
        holds a control, zero-width, bidi or other invisible character,
        or any protocol's separator.
    """
    name = " ".join(unicodedata.normalize("NFKC", wireName).split())
    if not name:
        raise BadName("a guest name is not empty")
    if len(name.encode("utf-8", "surrogatepass")) > MAX_GUEST_BYTES:
        raise BadName("a guest name is at most {} bytes".format(
            MAX_GUEST_BYTES))
    if hiddenCharacter(name) is not None:
        raise BadName("a guest name has no invisible characters")
    if any(separator in name for separator in ALL_SEPARATORS):
        raise BadName("a guest name has no '__' or '#'")
    return name


_checkers = threading.local()


def _skeleton(text: str) -> str:
    # ICU's SpoofChecker, one per thread (accounts are written in the
    # database's threads, guests checked on the reactor's).
    checker = getattr(_checkers, "checker", None)
    if checker is None:
        checker = _checkers.checker = icu.SpoofChecker()
    return cast(str, checker.getSkeleton(0, text))


def skeleton(text: str) -> str:
    """
    The key under which C{text} looks like another name: its confusable
    skeleton (Unicode TR39: C{I}, C{l} and C{1} alike, Cyrillic C{а} as
    Latin C{a}...), NFKC-normalised and case-folded.
    """
    return unicodedata.normalize("NFKC", _skeleton(text)).casefold()


def accountSkeletons(name: str) -> List[str]:
    """
    The L{skeleton}s a guest name may not have for fear of passing for
    account C{name}: those of the name as registered, in lower case and
    in upper case (C{ALICE} reads C{AL1CE} as well).
    """
    return sorted({skeleton(name), skeleton(name.lower()),
                   skeleton(name.upper())})


def skeletonVersion() -> str:
    """
    What the L{skeleton}s depend on: ICU's version and its Unicode's (the
    stored skeletons are made again when it changes).
    """
    return "icu {} unicode {}".format(icu.ICU_VERSION, icu.UNICODE_VERSION)


def keyedName(kind: str, name: str, key: str) -> str:
    """
    The name field that proves C{name} with C{key} in game kind C{kind}.
    """
    return name + SEPARATORS[kind] + key
