"""
Tests for L{hub.wire.checkers}: byte-exact encoding, lenient decoding,
path parsing.
"""

import json

from hypothesis import given, settings, strategies as st
from twisted.trial.unittest import SynchronousTestCase

from hub.wire import checkers as wire
from tests.wire import jsonvalues


class ConstantsTests(SynchronousTestCase):
    """
    The opcode and error code values of docs/protocols/checkers.md.
    """

    def test_opcodes(self):
        """
        The opcodes run from 200000 in the enum's order.
        """
        names = ["JOIN_ROOM_OP", "JOIN_ROOM_REPLY_OP", "LEAVE_ROOM_OP",
                 "CLOSE_ROOM_OP", "PLAYER_READY_OP", "START_GAME_OP",
                 "START_TURN_OP", "MOVE_OP", "END_TURN_OP", "END_GAME_OP",
                 "ERROR_OP"]
        for i, name in enumerate(names):
            self.assertEqual(getattr(wire, name), 200000 + i)
            self.assertEqual(wire.OP_NAMES[200000 + i], name)

    def test_errcodes(self):
        """
        The error codes run from 400000 in the enum's order.
        """
        names = ["NOT_IN_ROOM", "ROOM_IS_RUNNING", "ROOM_NOT_RUNNING",
                 "INVALID_JOIN", "OUTTURN_MOVE", "INVALID_MOVE",
                 "INVALID_REQ", "OTHER_ERROR"]
        for i, name in enumerate(names):
            self.assertEqual(getattr(wire, name), 400000 + i)
            self.assertEqual(wire.ERRCODE_NAMES[400000 + i], name)

    def test_maxLine(self):
        """
        The line cap is 8 KiB.
        """
        self.assertEqual(wire.MAX_LINE_LENGTH, 8192)


class EncodeTests(SynchronousTestCase):
    """
    L{wire.encode} writes exactly what a Qt peer writes.
    """

    def test_qtExample(self):
        """
        A message in the form of Framing (docs/protocols/checkers.md),
        byte for byte.
        """
        self.assertEqual(
            wire.encode(wire.MOVE_OP, "A", "0 0 -1 0"),
            b'{"data1":"A","data2":"0 0 -1 0","op":200007}\n')

    def test_everyOp(self):
        """
        Every opcode encodes as sorted keys, compact, one LF.
        """
        for op in wire.OP_NAMES:
            self.assertEqual(
                wire.encode(op, "x", "y"),
                b'{"data1":"x","data2":"y","op":%d}\n' % (op,))

    def test_emptyFields(self):
        """
        Empty fields are still present as empty strings.
        """
        self.assertEqual(wire.encode(wire.JOIN_ROOM_REPLY_OP),
                         b'{"data1":"","data2":"","op":200001}\n')

    def test_rawUtf8(self):
        """
        Non-ASCII text is written as raw UTF-8, not escaped.
        """
        self.assertEqual(
            wire.encode(wire.JOIN_ROOM_OP, "\u623f\u95f4", "bob"),
            '{"data1":"\u623f\u95f4","data2":"bob","op":200000}\n'
            .encode("utf-8"))

    def test_escapes(self):
        """
        Quotes, backslashes and control characters are JSON-escaped, so
        the line never contains a raw newline.
        """
        line = wire.encode(wire.ERROR_OP, 'a"b\\c', "x\ny\r")
        self.assertEqual(
            line, b'{"data1":"a\\"b\\\\c","data2":"x\\ny\\r","op":200010}\n')
        self.assertEqual(line.count(b"\n"), 1)

    def test_error(self):
        """
        L{wire.error} puts the decimal code in data1 and the name and the
        reason in data2.
        """
        self.assertEqual(
            wire.error(wire.INVALID_MOVE, "no piece to jump over at (-1,4)"),
            b'{"data1":"400005","data2":"INVALID_MOVE: no piece to jump'
            b' over at (-1,4)","op":200010}\n')
        self.assertEqual(
            wire.error(wire.INVALID_REQ),
            b'{"data1":"400006","data2":"INVALID_REQ","op":200010}\n')

    def test_errorCode(self):
        """
        L{wire.errorCode} reads data1 in both forms; anything else is
        None.
        """
        for code in wire.ERRCODE_NAMES:
            for symbolic in (False, True):
                data1 = wire.decode(wire.error(code, "", symbolic)).data1
                self.assertEqual(wire.errorCode(data1), code, data1)
        self.assertEqual(wire.errorCode("OTHER_ERROR"), wire.OTHER_ERROR)
        for junk in ("", "12", "invalid_move", "400008", "x1"):
            self.assertIsNone(wire.errorCode(junk), junk)

    def test_errorSymbolic(self):
        """
        With C{symbolic}, data1 is the code's name, as the official Team 4
        server sent it (with its C{OTHER_OP} for C{OTHER_ERROR}).
        """
        self.assertEqual(
            wire.error(wire.OUTTURN_MOVE, "it is A's turn", symbolic=True),
            b'{"data1":"OUTTURN_MOVE","data2":"OUTTURN_MOVE: it is A\'s'
            b' turn","op":200010}\n')
        self.assertEqual(
            [wire.decode(wire.error(code, symbolic=True)).data1
             for code in sorted(wire.ERRCODE_NAMES)],
            ["NOT_IN_ROOM", "ROOM_IS_RUNNING", "ROOM_NOT_RUNNING",
             "INVALID_JOIN", "OUTTURN_MOVE", "INVALID_MOVE", "INVALID_REQ",
             "OTHER_OP"])

    @given(st.sampled_from(sorted(wire.OP_NAMES)), st.text(), st.text())
    def test_roundTrip(self, op, data1, data2):
        """
        Whatever is encoded decodes to the same message, on one line.
        """
        try:
            data1.encode("utf-8")
            data2.encode("utf-8")
        except UnicodeEncodeError:
            return
        line = wire.encode(op, data1, data2)
        self.assertTrue(line.endswith(b"\n"))
        self.assertEqual(line.count(b"\n"), 1)
        self.assertNotIn(b"\r", line)
        self.assertEqual(wire.decode(line), (op, data1, data2))


class DecodeTests(SynchronousTestCase):
    """
    L{wire.decode} is lenient in what it accepts (Framing, in
    docs/protocols/checkers.md).
    """

    def test_plain(self):
        """
        A Qt line decodes to its three fields.
        """
        self.assertEqual(
            wire.decode(b'{"data1":"r1","data2":"alice","op":200000}'),
            wire.Message(200000, "r1", "alice"))

    def test_keyOrder(self):
        """
        Every order of the keys is accepted.
        """
        lines = [b'{"op":200004,"data1":"a","data2":""}',
                 b'{"data2":"","op":200004,"data1":"a"}',
                 b'{ "data1" : "a" , "op" : 200004 , "data2" : "" }']
        for line in lines:
            self.assertEqual(wire.decode(line), (200004, "a", ""))

    def test_lineEndings(self):
        """
        A trailing LF or CR LF is stripped.
        """
        for end in (b"", b"\n", b"\r\n", b"\r"):
            self.assertEqual(
                wire.decode(b'{"data1":"","data2":"","op":1}' + end),
                (1, "", ""))

    def test_wrongTypes(self):
        """
        Non-string data fields read as empty strings; an integral float
        op is an int.
        """
        self.assertEqual(
            wire.decode(b'{"data1":5,"data2":null,"op":200004.0}'),
            (200004, "", ""))
        self.assertEqual(
            wire.decode(b'{"data1":["a"],"data2":{"b":1},"op":7}'),
            (7, "", ""))

    def test_extraKeys(self):
        """
        Extra keys are ignored.
        """
        self.assertEqual(
            wire.decode(b'{"data1":"a","data2":"b","data3":"c","op":3}'),
            (3, "a", "b"))

    def test_escapedUnicode(self):
        """
        C{\\uXXXX} escapes and raw UTF-8 are both read.
        """
        self.assertEqual(
            wire.decode(b'{"data1":"\\u623f","data2":"","op":1}').data1,
            "\u623f")
        self.assertEqual(
            wire.decode('{"data1":"\u623f","data2":"","op":1}'
                        .encode("utf-8")).data1, "\u623f")

    def test_garbage(self):
        """
        Anything that is not a three-key object with an integral op is a
        L{wire.DecodeError} (a L{ValueError}).
        """
        bad = [b"", b"hello", b"{", b"[]", b"42", b'"op"',
               b'{"data1":"","data2":""}',
               b'{"op":1,"data2":""}',
               b'{"op":1,"data1":""}',
               b'{"data1":"","data2":"","op":"200000"}',
               b'{"data1":"","data2":"","op":true}',
               b'{"data1":"","data2":"","op":1.5}',
               b'{"data1":"","data2":"","op":null}',
               b'{"data1":"","data2":"","op":NaN}',
               b'{"data1":"","data2":"","op":1e400}',
               b'{"data1":"\xff","data2":"","op":1}',
               b'{"data1":"\\ud800","data2":"","op":1}',
               b"[" * 100000]
        for line in bad:
            self.assertRaises(wire.DecodeError, wire.decode, line)
        self.assertTrue(issubclass(wire.DecodeError, ValueError))

    def test_tooLong(self):
        """
        A line past L{wire.MAX_LINE_LENGTH} is refused.
        """
        pad = b" " * wire.MAX_LINE_LENGTH
        self.assertRaises(wire.DecodeError, wire.decode,
                          b'{"data1":"","data2":"","op":1}' + pad)

    @given(st.binary(max_size=200))
    def test_neverCrashes(self, data):
        """
        Random bytes either decode or raise L{wire.DecodeError}.
        """
        try:
            message = wire.decode(data)
        except wire.DecodeError:
            return
        self.assertIsInstance(message.op, int)
        self.assertIsInstance(message.data1, str)
        self.assertIsInstance(message.data2, str)


class PathTests(SynchronousTestCase):
    """
    L{wire.parsePath} and L{wire.formatPath}.
    """

    def test_parse(self):
        """
        A path of integers becomes a tuple of cells.
        """
        self.assertEqual(wire.parsePath("0 0 2 0 2 2"),
                         ((0, 0), (2, 0), (2, 2)))
        self.assertEqual(wire.parsePath("-2 6 0 4"), ((-2, 6), (0, 4)))

    def test_whitespace(self):
        """
        Any whitespace separates tokens.
        """
        self.assertEqual(wire.parsePath("  -1\t5  -1 4 \n"),
                         ((-1, 5), (-1, 4)))

    def test_bad(self):
        """
        Too few, odd, or non-integer tokens are a L{wire.PathError}.
        """
        for text in ["", "-1", "-1 5", "-1 5 -1", "a b c d", "1 2 3 4.0",
                     "1 2 3 +4", "1 2 3 1_0", "1 2 3 \u0664", "1 2 3 --4",
                     "1 2 3 -", "-1", "1 2 3 1000", " ".join(["1"] * 300)]:
            self.assertRaises(wire.PathError, wire.parsePath, text)

    def test_format(self):
        """
        The canonical form has single spaces and no padding.
        """
        self.assertEqual(wire.formatPath(((-2, 6), (0, 4))), "-2 6 0 4")
        self.assertEqual(wire.formatPath(((0, 0), (2, 0), (2, 2))),
                         "0 0 2 0 2 2")

    @given(st.lists(st.tuples(st.integers(-999, 999),
                              st.integers(-999, 999)),
                    min_size=2, max_size=20))
    def test_pathRoundTrip(self, cells):
        """
        Formatting then parsing gives the same cells.
        """
        path = tuple(cells)
        self.assertEqual(wire.parsePath(wire.formatPath(path)), path)


    def test_keptAlike(self):
        """
        A path parsed or written again (from the kept ones) is the same
        as the first time, in any of its forms, and a refused text is
        refused again; the kept ones are at most L{wire.MEMO_SIZE} of
        each, and a long path is not kept.
        """
        for text in ["0 0 2 0 2 2", "  -1\t5  -1 4 \n", "-2 6 0 4"]:
            self.assertEqual(wire.parsePath(text), wire.parsePath(text))
        self.assertEqual(wire.parsePath("  -1\t5  -1 4 \n"),
                         ((-1, 5), (-1, 4)))
        for text in ["1 2 3 +4", "1 2 3"]:
            self.assertRaises(wire.PathError, wire.parsePath, text)
            self.assertRaises(wire.PathError, wire.parsePath, text)
        for path in [((-2, 6), (0, 4)), [[-2, 6], [0, 4]], [(-2, 6), (0, 4)],
                     ((-2.0, 6.0), (0.0, 4.0)), ((-2, 6), (0, 4))]:
            self.assertEqual(wire.formatPath(path), "-2 6 0 4")
        for n in range(wire.MEMO_SIZE + 10):
            path = ((n % 1000, n // 1000), (0, 0))
            text = "%d %d 0 0" % path[0]
            self.assertEqual(wire.parsePath(text), path)
            self.assertEqual(wire.formatPath(path), text)
        for kept in (wire._keptPath, wire._keptText):
            self.assertEqual(kept.cache_info().currsize, wire.MEMO_SIZE)
            kept.cache_clear()
        long = tuple((n, n) for n in range(20))
        self.assertEqual(wire.parsePath(wire.formatPath(long)), long)
        for kept in (wire._keptPath, wire._keptText):
            self.assertEqual(kept.cache_info().currsize, 0)

    def test_movesKept(self):
        """
        A MOVE_OP line decoded again is the same message; no other line is
        kept (a JOIN_ROOM_OP's name may carry a play key).
        """
        wire._keptMove.cache_clear()
        move = b'{"data1":"A","data2":"-4 8 -4 7","op":200007}'
        join = b'{"data1":"1","data2":"alice#k3yk3yk3y","op":200000}'
        for line in (move, bytearray(move), move + b"\r\n", join):
            self.assertEqual(wire.decode(line), wire.decode(line))
        self.assertEqual(wire.decode(move),
                         wire.Message(wire.MOVE_OP, "A", "-4 8 -4 7"))
        self.assertEqual(wire._keptMove.cache_info().currsize, 1)
        self.assertEqual(wire._keptMove(move), wire.decode(move))


def stdlibEncode(op, data1="", data2=""):
    """
    L{wire.encode} as it was written with C{json.dumps}.
    """
    text = json.dumps(
        {"data1": str(data1), "data2": str(data2), "op": int(op)},
        separators=(",", ":"), ensure_ascii=False, sort_keys=True)
    return text.encode("utf-8") + b"\n"


def stdlibDecode(line):
    """
    L{wire.decode} with the standard library's parser alone.
    """
    return jsonvalues.withStdlibJSON(wire, wire.decode, line)


# Lines as Qt peers and other JSON writers put them, with any JSON in
# their fields.
checkersLines = st.fixed_dictionaries(
    {"op": st.sampled_from(sorted(wire.OP_NAMES)) | jsonvalues.scalars,
     "data1": jsonvalues.texts | jsonvalues.values,
     "data2": jsonvalues.texts | jsonvalues.values},
    optional={"extra": jsonvalues.values})


class StdlibTests(SynchronousTestCase):
    """
    The codec's JSON (msgspec, L{hub.wire.fastjson}) gives what the
    standard library gave: the same bytes, the same message or the same
    L{wire.DecodeError}.
    """

    def assertSameDecoding(self, line):
        jsonvalues.assertSameOutcome(self, wire.decode, stdlibDecode, line)

    @given(st.sampled_from(sorted(wire.OP_NAMES))
           | st.integers() | st.sampled_from(jsonvalues.EDGE_INTEGERS),
           jsonvalues.texts, jsonvalues.texts)
    @settings(max_examples=1000, deadline=None)
    def test_encodeAny(self, op, data1, data2):
        """
        Any opcode and any text: the same bytes as json.dumps, or the same
        L{UnicodeEncodeError} for a lone surrogate; decoded alike.
        """
        ours = jsonvalues.outcome(wire.encode, op, data1, data2)
        self.assertEqual(ours, jsonvalues.outcome(
            stdlibEncode, op, data1, data2))
        if ours[0] == "value":
            self.assertSameDecoding(ours[1])

    def test_encodeMove(self):
        """
        The lines of a move in spec section 7, and an error's.
        """
        for args in ((wire.MOVE_OP, "A", "-2 6 0 4"),
                     (wire.START_TURN_OP, "D", "1656403207"),
                     (wire.END_TURN_OP,), (wire.MOVE_OP, "D", "-1"),
                     (wire.END_GAME_OP, "alice bob"),
                     (wire.ERROR_OP, "400005",
                      "INVALID_MOVE: no piece to jump over at (-1,4)")):
            self.assertEqual(wire.encode(*args), stdlibEncode(*args))

    @given(jsonvalues.jsonTexts(checkersLines))
    @settings(max_examples=1000, deadline=None)
    def test_decodeAny(self, line):
        """
        Any line, with any JSON in its fields, in any of json.dumps'
        forms.
        """
        self.assertSameDecoding(line + b"\n")

    @given(jsonvalues.mutatedTexts(checkersLines))
    @settings(max_examples=1000, deadline=None)
    def test_decodeBroken(self, line):
        """
        Lines with bytes inserted, replaced or deleted.
        """
        self.assertSameDecoding(line)
