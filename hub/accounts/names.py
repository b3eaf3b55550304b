"""
Account names and play keys, and the keyed names that carry a key through
the legacy protocols' name fields: C{alice__KEY} (checkers, whose names
are C{[A-Za-z0-9_]{1,20}}) and C{alice#KEY} (gomoku, 1 to 35 bytes).

A registered name is 1 to L{MAX_NAME} letters, digits and single
underscores (no C{__}, none at the end), so that its checkers form,
C{NAME__KEY}, fits checkers' 20 characters with a key of L{KEY_LENGTH}
characters over L{KEY_ALPHABET}: 62 ** 10, about 8.4e17 keys.
"""

import hashlib
import hmac
import re
import secrets
import string

KEY_ALPHABET = string.ascii_letters + string.digits
KEY_LENGTH = 10
MAX_NAME = 8
CHECKERS_SEPARATOR = "__"
GOMOKU_SEPARATOR = "#"
SEPARATORS = {"checkers": CHECKERS_SEPARATOR, "gomoku": GOMOKU_SEPARATOR}
ROLES = ("player", "moderator", "admin")

_NAME = re.compile(r"[A-Za-z0-9_]{1,%d}" % (MAX_NAME,))
_KEY = re.compile(r"[A-Za-z0-9]{%d}" % (KEY_LENGTH,))


class BadName(ValueError):
    """
    A name no account may have.
    """


def checkName(name):
    """
    Raise L{BadName} saying why C{name} cannot be an account's name.
    """
    if not _NAME.fullmatch(name):
        raise BadName("a name is 1 to {} letters, digits or underscores"
                      .format(MAX_NAME))
    if "__" in name or name.endswith("_"):
        raise BadName("a name has no '__' and does not end with '_'")


def nameKey(name):
    """
    The key under which C{name} is unique: its case-folded form.
    """
    return name.casefold()


def newKey():
    """
    A fresh play key, from L{secrets}.
    """
    return "".join(secrets.choice(KEY_ALPHABET) for _ in range(KEY_LENGTH))


def keyHash(secret, key):
    """
    The stored form of play key C{key}: its HMAC-SHA256 under the server's
    C{secret} (bytes), in hex.
    """
    return hmac.new(secret, key.encode("ascii"), hashlib.sha256).hexdigest()


def keyMatches(secret, key, stored):
    """
    Whether C{key} is the key whose L{keyHash} is C{stored}, compared in
    constant time.
    """
    return hmac.compare_digest(keyHash(secret, key), stored)


def splitKeyed(kind, wireName):
    """
    The name and key of C{wireName} if it is in the keyed form of game
    kind C{kind} (C{NAME__KEY} or C{NAME#KEY}), else None.

    @return: C{(name, key)} or None.
    """
    separator = SEPARATORS.get(kind)
    if separator is None:
        return None
    tail = KEY_LENGTH + len(separator)
    if len(wireName) <= tail or wireName[-tail:-KEY_LENGTH] != separator:
        return None
    key = wireName[-KEY_LENGTH:]
    if not _KEY.fullmatch(key):
        return None
    return wireName[:-tail], key


def keyedName(kind, name, key):
    """
    The name field that proves C{name} with C{key} in game kind C{kind}.
    """
    return name + SEPARATORS[kind] + key
