"""
Tests for L{hub.wire.fastjson}: the codecs' JSON through msgspec gives
exactly what the standard library gives, for any bytes.
"""

import json
import sys

from hypothesis import given, settings, strategies as st
from twisted.trial.unittest import SynchronousTestCase

from hub.wire import fastjson
from hub.wire.fastjson import decodeJson, encodePlain, encodeStrings
from tests.wire.jsonvalues import (
    EDGE_INTEGERS, jsonTexts, mutatedTexts, numberTexts, outcome,
    sameOutcome, texts)


def stdlibLoads(data):
    """
    What the codecs called before: C{json.loads} of the UTF-8 text.
    """
    return json.loads(data.decode("utf-8"))


def stdlibDumps(obj):
    """
    What the checkers codec wrote before.
    """
    return json.dumps(obj, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8")


class DecodeJsonTests(SynchronousTestCase):
    """
    L{decodeJson} is C{json.loads(data.decode("utf-8"))}: the same value
    (types, key order, float bits) or the same exception and message.
    """

    def assertSameAsStdlib(self, data):
        """
        L{decodeJson} and the standard library agree on C{data}.
        """
        ours = outcome(decodeJson, data)
        theirs = outcome(stdlibLoads, data)
        self.assertTrue(sameOutcome(ours, theirs),
                        "%r: %r != %r" % (data[:200], ours, theirs))
        return ours

    @given(jsonTexts())
    @settings(max_examples=1000, deadline=None)
    def test_anyValue(self, data):
        """
        Any JSON value in any of the standard library's forms.
        """
        self.assertSameAsStdlib(data)

    @given(mutatedTexts())
    @settings(max_examples=1000, deadline=None)
    def test_anyMutation(self, data):
        """
        JSON texts with bytes inserted, replaced or deleted: accepted or
        refused alike, with the same exception.
        """
        self.assertSameAsStdlib(data)

    @given(st.binary(max_size=40))
    @settings(max_examples=500, deadline=None)
    def test_anyBytes(self, data):
        """
        Arbitrary bytes.
        """
        self.assertSameAsStdlib(data)

    @given(numberTexts)
    @settings(max_examples=1000, deadline=None)
    def test_numbers(self, text):
        """
        Any number literal: the same int or the same float, infinities
        from overflow included.
        """
        self.assertSameAsStdlib(text.encode("ascii"))
        self.assertSameAsStdlib(b'{"n":[' + text.encode("ascii") + b"]}")

    def test_edgeIntegers(self):
        """
        Integers beyond 64 bits stay exact ints (where orjson and msgspec
        before 0.19 give floats or wrong values), and an int of more
        digits than the interpreter converts raises as before.
        """
        for n in EDGE_INTEGERS:
            for data in (b"%d" % n, b'{"token":%d}' % n):
                self.assertEqual(
                    self.assertSameAsStdlib(data)[0], "value", data)
        digits = sys.get_int_max_str_digits() + 1
        result = self.assertSameAsStdlib(b"1" * digits)
        self.assertEqual(result[:2], ("raise", ValueError))

    def test_standardLibraryOnly(self):
        """
        What only the standard library accepts is read as it reads it:
        C{NaN}, C{Infinity}, C{-Infinity}, numbers that overflow, lone
        surrogates in escapes.
        """
        for data in (b"NaN", b"[Infinity]", b'{"a":-Infinity}', b"1e400",
                     b"-1e400", b"1e99999999999999999999",
                     b'"\\ud800"', b'"\\udc00\\ud800"', b'["a\\udfff"]'):
            self.assertEqual(
                self.assertSameAsStdlib(data)[0], "value", data)

    def test_refused(self):
        """
        What the standard library refuses is refused with its exception:
        invalid UTF-8 (overlong, encoded surrogates, past U+10FFFF), a
        byte order mark, trailing data, control characters in strings,
        whitespace JSON does not have, trailing commas, empty input.
        """
        for data in (b"", b" ", b'"\xff"', b'"\xc0\x80"', b'"\xed\xa0\x80"',
                     b'"\xf4\x90\x80\x80"', b"\xef\xbb\xbf{}", b"{}x",
                     b"{}{}", b"{}\x00", b'"\x00"', b'"\x1f"', b'"a\nb"',
                     b"\x0c{}", b"\x0b{}", b"\xc2\xa0{}", b"[1,]",
                     b'{"a":1,}', b"01", b"1.", b".5", b"+1", b"-",
                     b"nul", b"True", b'"\\x"', b"//\n{}"):
            self.assertEqual(
                self.assertSameAsStdlib(data)[0], "raise", data)

    def test_accepted(self):
        """
        The corners both accept give the same values: escapes, surrogate
        pairs, DEL and non-characters raw, duplicate keys (the last value,
        the first place), JSON's whitespace, C{-0}, exponents.
        """
        for data in (b'"\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00"',
                     b'"\x7f\xef\xbf\xbe"', b'{"b":1,"a":2,"b":3}',
                     b" \t\r\n[ 1 , {} ]\r\n", b"-0", b"-0.0", b"1E2",
                     b"1e-400", b"0.30000000000000004", b"9007199254740993",
                     b"2.2250738585072011e-308", b"4.9e-324"):
            self.assertEqual(
                self.assertSameAsStdlib(data)[0], "value", data)

    def test_nesting(self):
        """
        Deep nesting: the same value where both read it, and
        L{RecursionError} from the standard library where it gives up,
        also past the brackets that msgspec is given.
        """
        for depth in (1, fastjson.MAX_FAST_BRACKETS,
                      fastjson.MAX_FAST_BRACKETS + 1, 500, 1000, 5000):
            for open_, close in ((b"[", b"]"), (b'{"a":', b"}")):
                data = open_ * depth + b"1" + close * depth
                result = self.assertSameAsStdlib(data)
                if depth >= 1000:
                    self.assertEqual(result[:2], ("raise", RecursionError))

    def test_fastPath(self):
        """
        A per-move message, and text of up to
        L{fastjson.MAX_FAST_BRACKETS} brackets however long, is parsed by
        msgspec: the standard library is not called.
        """
        def refuse(text):
            raise AssertionError("json.loads called")
        self.patch(fastjson.json, "loads", refuse)
        self.assertEqual(
            decodeJson(b'{"chess":0,"msg_type":10,"session":8,'
                       b'"token":18446744073709551615,"x":7,"y":7}'),
            {"chess": 0, "msg_type": 10, "session": 8,
             "token": 18446744073709551615, "x": 7, "y": 7})
        depth = fastjson.MAX_FAST_BRACKETS
        nested = []
        for _ in range(depth - 1):
            nested = [nested]
        self.assertEqual(decodeJson(b"[" * depth + b"]" * depth), nested)

    def test_slowPath(self):
        """
        Text of more than L{fastjson.MAX_FAST_BRACKETS} brackets goes to the
        standard library alone.
        """
        calls = []
        original = fastjson.json.loads

        def loads(text):
            calls.append(text)
            return original(text)
        self.patch(fastjson.json, "loads", loads)
        data = b'{"a":"' + b"{" * fastjson.MAX_FAST_BRACKETS + b'"}'
        self.assertEqual(decodeJson(data),
                         {"a": "{" * fastjson.MAX_FAST_BRACKETS})
        self.assertEqual(calls, [data.decode("utf-8")])


class EncodeStringsTests(SynchronousTestCase):
    """
    L{encodeStrings} writes flat objects of strings and ints as
    C{json.dumps} does, compact, with raw UTF-8.
    """

    @given(st.dictionaries(st.text(), texts | st.integers()
                           | st.sampled_from(EDGE_INTEGERS), max_size=4))
    @settings(max_examples=1000, deadline=None)
    def test_anyStringsAndInts(self, obj):
        """
        The same bytes, or the same L{UnicodeEncodeError} for a lone
        surrogate.
        """
        ours = outcome(encodeStrings, obj)
        theirs = outcome(stdlibDumps, obj)
        self.assertEqual(ours, theirs)

    def test_everyCharacter(self):
        """
        Every code point but the surrogates is written the same, alone
        (escapes of control characters) and all together.
        """
        characters = [chr(c) for c in range(0x110000)
                      if not 0xD800 <= c <= 0xDFFF]
        for c in characters[:0x100] + ["\u2028", "\u2029", "\ufeff"]:
            obj = {c: c, "k": "a" + c + "b"}
            self.assertEqual(encodeStrings(obj), stdlibDumps(obj), repr(c))
        obj = {"all": "".join(characters)}
        self.assertEqual(encodeStrings(obj), stdlibDumps(obj))

    def test_loneSurrogates(self):
        """
        A lone surrogate raises L{UnicodeEncodeError}, in a key or a
        value.
        """
        for obj in ({"a": "\ud800"}, {"\udfff": "a"},
                    {"a": "x\ud83d"}):
            self.assertRaises(UnicodeEncodeError, encodeStrings, obj)
            self.assertRaises(UnicodeEncodeError, stdlibDumps, obj)

    def test_keyOrder(self):
        """
        The keys are written in the dict's order, as json.dumps without
        C{sort_keys}.
        """
        obj = {"op": 1, "data2": "b", "data1": "a"}
        self.assertEqual(encodeStrings(obj), stdlibDumps(obj))
        self.assertEqual(encodeStrings(obj),
                         b'{"op":1,"data2":"b","data1":"a"}')


# The plain values a record's columns hold: no float.
plainValues = st.recursive(
    st.none() | st.booleans() | st.integers() | texts,
    lambda inner: st.lists(inner, max_size=4)
    | st.lists(inner, max_size=4).map(tuple)
    | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20)


class EncodePlainTests(SynchronousTestCase):
    """
    L{encodePlain} writes plain values as text that reads back as the
    standard library's compact text does.
    """

    @given(plainValues)
    @settings(max_examples=1000, deadline=None)
    def test_anyPlainValue(self, value):
        """
        The text reads back equal to C{json.dumps}'s, lone surrogates
        included.
        """
        text = encodePlain(value)
        self.assertEqual(
            json.loads(text.decode("utf-8")),
            json.loads(json.dumps(value, separators=(",", ":"))))

    def test_columns(self):
        """
        A record's columns: compact, in the dict's order, tuples as
        arrays, characters outside ASCII raw.
        """
        self.assertEqual(
            encodePlain({"t": [0, 1403], "action": [(7, 7), ((1, 2),)],
                         "name": "\u68cb"}),
            '{"t":[0,1403],"action":[[7,7],[[1,2]]],"name":"\u68cb"}'
            .encode("utf-8"))

    def test_loneSurrogate(self):
        """
        A lone surrogate, which UTF-8 cannot carry, is escaped as the
        standard library escapes it.
        """
        self.assertEqual(encodePlain({"a": ["x\ud800"]}),
                         b'{"a":["x\\ud800"]}')

    def test_refused(self):
        """
        What neither writes raises L{TypeError}.
        """
        self.assertRaises(TypeError, encodePlain, {"a": object()})
        self.assertRaises(TypeError, json.dumps, {"a": object()})
