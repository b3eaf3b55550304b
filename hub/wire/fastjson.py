"""
JSON for the wire codecs through C{msgspec}, several times faster than
the standard library (C{bench/wire_json.py}), with its results: the same
value for the same bytes, the same bytes for the same message, and the
same exception where the standard library raises one.  What C{msgspec}
refuses, the standard library decides.  C{orjson} is not used: it reads
an integer beyond 64 bits as a float.  The details: docs/benchmarks.md,
"JSON: orjson in the wire codecs".

Pure: no Twisted.  Tests: C{tests/wire/test_fastjson.py}.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

import msgspec

#: Payloads with more C{[} and C{{} bytes than this (strings included)
#: are parsed by C{json.loads} alone (shorter ones are not counted).
MAX_FAST_BRACKETS = 128

_DECODER = msgspec.json.Decoder()
_ENCODER = msgspec.json.Encoder()


def decodeJson(data: bytes) -> Any:
    """
    Parse UTF-8 JSON text: C{json.loads(data.decode("utf-8"))}, faster.

    C{msgspec} accepts a subset of what C{json.loads} accepts, with equal
    values (integers of any size exact, keys in the same order); what it
    refuses (C{NaN}, C{Infinity}, numbers that overflow to an infinity,
    lone surrogates in escapes, invalid UTF-8, more nesting than the
    interpreter allows) goes to C{json.loads}.  It is laxer only by a few
    levels of nesting near the recursion limit: text with more than
    L{MAX_FAST_BRACKETS} brackets goes to C{json.loads} alone, so the two
    agree unless the caller's stack is itself within that many frames of
    the limit.

    @param data: the text's bytes.
    @return: the same value as C{json.loads} (the same types, the same
        keys in the same order).
    @raise UnicodeDecodeError: for invalid UTF-8, and
        C{json.JSONDecodeError} or L{RecursionError} for what
        C{json.loads} refuses, as C{json.loads} raises them.
    """
    if len(data) <= MAX_FAST_BRACKETS or (
            data.count(b"[") + data.count(b"{") <= MAX_FAST_BRACKETS):
        try:
            return _DECODER.decode(data)
        except (msgspec.DecodeError, ValueError, RecursionError):
            # Refused (some versions raise UnicodeDecodeError for invalid
            # UTF-8, with another position): the standard library says
            # how.
            pass
    return json.loads(data.decode("utf-8"))


def encodeStrings(obj: Mapping[str, object]) -> bytes:
    """
    Write a flat object of strings and integers as C{json.dumps(obj,
    separators=(",", ":"), ensure_ascii=False).encode("utf-8")} does, in
    its own key order, faster.  C{msgspec} writes strings with the same
    escapes, but floats differently (C{1e16} for C{1e+16}, C{null} for
    C{NaN}): hence strings and integers only.

    @param obj: a dict whose keys are L{str} and whose values are exactly
        L{str} or L{int} (no subclass, no float: the caller makes sure).
    @raise UnicodeEncodeError: when a string holds a lone surrogate (which
        UTF-8 cannot carry), as that C{.encode("utf-8")} does.
    """
    try:
        return _ENCODER.encode(obj)
    except UnicodeEncodeError:
        return json.dumps(obj, separators=(",", ":"),
                          ensure_ascii=False).encode("utf-8")


def encodePlain(value: Any) -> bytes:
    """
    Compact UTF-8 JSON text of C{value} that C{json.loads} reads back as
    equal to the C{json.dumps(value, separators=(",", ":"))} text, several
    times faster (a game record's columns: 7.6 against 91 µs for 117
    checkers moves); not always the same text: characters outside ASCII
    are written raw, not escaped.  For values of dicts with string keys,
    lists, tuples, strings, integers, booleans and None: no floats, which
    C{msgspec} writes in another form (and C{NaN} as C{null}), and no type
    the standard library refuses.

    @raise TypeError: for what C{msgspec} cannot write, as C{json.dumps}
        raises it.
    """
    try:
        return _ENCODER.encode(value)
    except UnicodeEncodeError:
        # A lone surrogate, which UTF-8 cannot carry: escaped, as the
        # standard library writes it.
        return json.dumps(value, separators=(",", ":")).encode("ascii")
