"""
What the wire codecs' JSON tests share: Hypothesis strategies for JSON
values and their texts (the standard library's forms, with the numbers
and strings where fast libraries part from it), and comparisons that
tell apart what C{==} does not (C{1} and C{1.0} and C{True}, C{0.0} and
C{-0.0}, C{NaN}, the order of an object's keys).
"""

import json
import math

from hypothesis import strategies as st

#: Integers at the edges of 64 bits, where fast parsers change type, and
#: one that msgspec before 0.19 read wrongly.
EDGE_INTEGERS = [0, -1, 2 ** 53 + 1, 2 ** 63 - 1, 2 ** 63, -2 ** 63,
                 -2 ** 63 - 1, 2 ** 64 - 1, 2 ** 64, -2 ** 64, 10 ** 19,
                 19933688932870350000, 2 ** 64 + 10 ** 18 + 1,
                 10 ** 30, -10 ** 30, 2 ** 200]

integers = (st.integers() | st.sampled_from(EDGE_INTEGERS)
            | st.integers(-2 ** 70, 2 ** 70))
floats = st.floats() | st.sampled_from(
    [0.0, -0.0, 1e16, 1e-7, 1e308, 5e-324, 0.1, float("nan"),
     float("inf"), -float("inf")])
# Lone surrogates included: json reads and writes them as \\u escapes.
texts = st.text() | st.text(alphabet=st.characters(
    min_codepoint=0, max_codepoint=0x10FFFF))
scalars = st.none() | st.booleans() | integers | floats | texts
values = st.recursive(
    scalars,
    lambda kids: st.lists(kids, max_size=5)
    | st.dictionaries(texts, kids, max_size=5),
    max_leaves=20)

#: JSON number literals, many digits and big exponents included.
numberTexts = st.from_regex(
    r"\A-?(0|[1-9][0-9]{0,40})(\.[0-9]{1,40})?([eE][+-]?[0-9]{1,5})?\Z")


@st.composite
def jsonTexts(draw, strategy=values):
    """
    The UTF-8 bytes of a value's text as C{json.dumps} writes it, with
    the separators, escaping and indentation drawn; text with a lone
    surrogate is written with C{ensure_ascii}, the only way it is UTF-8.
    """
    value = draw(strategy)
    separators = draw(st.sampled_from(
        [(",", ":"), (", ", ": "), (" , ", " : ")]))
    indent = draw(st.sampled_from([None, None, 0, 2, "\t"]))
    ensureAscii = draw(st.booleans())
    sortKeys = draw(st.booleans())
    text = json.dumps(value, separators=separators, indent=indent,
                      ensure_ascii=ensureAscii, sort_keys=sortKeys)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value, separators=separators, indent=indent,
                          sort_keys=sortKeys).encode("utf-8")


@st.composite
def mutatedTexts(draw, strategy=values):
    """
    A JSON text (L{jsonTexts}) with a few bytes inserted, replaced or
    deleted: mostly invalid JSON or invalid UTF-8, sometimes not.
    """
    data = bytearray(draw(jsonTexts(strategy)))
    tricky = st.sampled_from(
        [b"\x00", b"\x1f", b"\x7f", b"\xff", b"\xc0\x80", b"\xed\xa0\x80",
         b"\xef\xbb\xbf", b"\\", b'"', b"\\ud800", b"NaN", b"Infinity",
         b"1e400", b"[", b"{", b"]", b"}", b",", b":", b" ", b"\x0c",
         b"\xc2\xa0", b"99999999999999999999", b"-", b".", b"e"])
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.integers(0, len(data)))
        action = draw(st.sampled_from(["insert", "replace", "delete"]))
        piece = draw(tricky | st.binary(min_size=1, max_size=3))
        if action == "insert":
            data[where:where] = piece
        elif action == "replace":
            data[where:where + len(piece)] = piece
        else:
            del data[where:where + draw(st.integers(1, 3))]
    return bytes(data)


def sameJson(a, b):
    """
    Whether two decoded values are the same in every way a program can
    see: the same types throughout, floats equal bit for bit (C{NaN}
    equal to C{NaN}), objects with the same keys in the same order.
    Iterative, for values nested deeper than the stack.
    """
    pending = [(a, b)]
    while pending:
        a, b = pending.pop()
        if type(a) is not type(b):
            return False
        if type(a) is float:
            if math.isnan(a) != math.isnan(b):
                return False
            if not math.isnan(a) and (
                    a != b
                    or math.copysign(1, a) != math.copysign(1, b)):
                return False
        elif type(a) is list:
            if len(a) != len(b):
                return False
            pending.extend(zip(a, b))
        elif type(a) is dict:
            if list(a) != list(b):
                return False
            pending.extend((a[k], b[k]) for k in a)
        elif a != b:
            return False
    return True


def outcome(function, *args):
    """
    What calling C{function(*args)} gives: C{("value", result)} or
    C{("raise", exceptionType, str(exception))}.
    """
    try:
        return ("value", function(*args))
    except Exception as e:
        return ("raise", type(e), str(e))


def sameOutcome(a, b):
    """
    Whether two L{outcome}s are the same: equal values (L{sameJson}, into
    tuples and dicts of results), or the same exception and message.
    """
    if a[0] != b[0]:
        return False
    if a[0] == "raise":
        return a == b
    return sameResult(a[1], b[1])


def sameResult(a, b):
    """
    L{sameJson}, also through tuples (named or not).
    """
    if isinstance(a, tuple) and isinstance(b, tuple):
        return (type(a) is type(b) and len(a) == len(b)
                and all(map(sameResult, a, b)))
    return sameJson(a, b)


def withStdlibJSON(module, function, *args):
    """
    C{function(*args)} with C{module}'s C{decodeJson} the standard
    library's C{json.loads} of the UTF-8 text for the call: a codec as it
    was before L{hub.wire.fastjson}.
    """
    original = module.decodeJson
    module.decodeJson = lambda data: json.loads(data.decode("utf-8"))
    try:
        return function(*args)
    finally:
        module.decodeJson = original


def assertSameOutcome(testCase, ours, theirs, data):
    """
    Fail C{testCase} unless C{ours(data)} and C{theirs(data)} have the
    same L{outcome}.
    """
    a, b = outcome(ours, data), outcome(theirs, data)
    testCase.assertTrue(sameOutcome(a, b),
                        "%r: %r != %r" % (data[:200], a, b))
