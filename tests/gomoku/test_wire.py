"""
Tests for L{hub.wire.gomoku}: framing, decoding and byte-exact encoding.
"""

import json

from hypothesis import given, settings, strategies as st
from twisted.trial.unittest import SynchronousTestCase

from hub.wire import gomoku as w
from tests.wire import jsonvalues

TOKEN_A = 18446744072383256129
TOKEN_B = 18446744073653300902

# Captured frames of spec section 3, byte for byte.
CAPTURED = [
    b'<{"msg_type":3,"name":"alice","session":1,'
    b'"token":18446744073709551615}>',
    b'<{"msg_type":1,"result":"","session":1,"status":0,'
    b'"token":18446744072383256129}>',
    b'<{"msg_type":2,"oper":0,"session":2,"target":1,'
    b'"token":18446744073709551615}>',
    b'<{"msg_type":4,"rooms":null,"session":2,'
    b'"token":18446744072383256129}>',
    b'<{"msg_type":5,"room":{"gs":1,"guest":"","id":4294967295,'
    b'"name":"room1","oct":16,"owner":"","psw":"pw","state":0},'
    b'"session":4,"token":18446744073709551615,"type":17}>',
    b'<{"msg_type":4,"rooms":[{"gs":1,"guest":"","id":4294967295,'
    b'"name":"room1","oct":16,"owner":"alice","psw":"pw","state":0}],'
    b'"session":2,"token":18446744073653300902}>',
    b'<{"msg_type":5,"room":{"gs":1,"guest":"bob","id":4294967295,'
    b'"name":"room1","oct":16,"owner":"alice","psw":"pw","state":1},'
    b'"session":4,"token":18446744073653300902,"type":1}>',
    b'<{"msg_type":8,"session":5,"state":3,'
    b'"token":18446744073709551615}>',
    b'<{"msg_type":7,"session":6,"token":18446744073709551615,'
    b'"type":1}>',
    b'<{"msg_type":2,"oper":0,"session":7,"target":2,'
    b'"token":18446744073709551615}>',
    b'<{"ex":0,"msg_type":9,"session":7,"state":2,'
    b'"token":18446744072383256129}>',
    b'<{"chess":0,"msg_type":10,"session":8,'
    b'"token":18446744073709551615,"x":7,"y":7}>',
    b'<{"ex":0,"msg_type":9,"session":8,"state":2,'
    b'"token":18446744073709551615}>',
    b'<{"chess":0,"msg_type":10,"session":5,'
    b'"token":18446744073653300902,"x":7,"y":7}>',
    b'<{"ex":1,"msg_type":9,"session":20,"state":3,'
    b'"token":18446744073653300902}>',
]


def cutAt(stream, cuts):
    """
    C{stream} cut at the sorted offsets C{cuts}, in order.
    """
    edges = [0] + cuts + [len(stream)]
    return [stream[a:b] for a, b in zip(edges, edges[1:])]


def scanAll(chunks, scanner=None):
    """
    Feed every chunk to a scanner and collect the payloads.
    """
    if scanner is None:
        scanner = w.FrameScanner()
    out = []
    for chunk in chunks:
        out.extend(scanner.feed(chunk))
    return out


class EncodeTests(SynchronousTestCase):
    """
    The constructors and L{w.encodeMessage} write the spec's bytes.
    """

    def test_capturedFrames(self):
        """
        Every captured frame is reproduced exactly by the constructors.
        """
        room0 = w.roomObject("room1", "", "", 16, 1, 0, "pw")
        room1 = w.roomObject("room1", "alice", "", 16, 1, 0, "pw")
        room2 = w.roomObject("room1", "alice", "bob", 16, 1, 1, "pw")
        built = [
            w.regMessage("alice", 1),
            w.resultMessage(w.S_OK, TOKEN_A, 1),
            w.requestMessage(w.REQ_ROOM_LIST, 2),
            w.roomListMessage(None, TOKEN_A, 2),
            w.roomOpMessage(w.RO_ROOM_CREATE, "room1", "pw", 4),
            w.roomListMessage([room1], TOKEN_B, 2),
            w.roomMessage(w.RI_PLAYER_JOIN, room2, TOKEN_B, 4),
            w.stateMessage(w.PLAYER_STATE_READY, 5),
            w.chessMessage(w.CHESS_BLACK, 6),
            w.requestMessage(w.REQ_GAME_START, 7),
            w.gameMessage(w.GAME_STATE_RUNNING, 0, TOKEN_A, 7),
            w.moveMessage(0, 7, 7, None, 8),
            w.gameMessage(w.GAME_STATE_RUNNING, 0, None, 8),
            w.moveMessage(0, 7, 7, TOKEN_B, 5),
            w.gameMessage(w.GAME_STATE_END, w.GAME_RSLT_WIN, TOKEN_B, 20),
        ]
        self.assertEqual(room0, w.roomOpMessage(
            w.RO_ROOM_CREATE, "room1", "pw", 4)["room"])
        self.assertEqual([w.encodeMessage(m) for m in built], CAPTURED)

    def test_capturedFramesDecode(self):
        """
        Every captured frame scans and decodes, and re-encodes to itself.
        """
        payloads = scanAll([b"".join(CAPTURED)])
        self.assertEqual(len(payloads), len(CAPTURED))
        for payload, frame in zip(payloads, CAPTURED):
            self.assertEqual(
                w.encodeMessage(w.decodeMessage(payload)), frame)

    def test_noneIsInvalid(self):
        """
        A None token or session is written as 2**64-1.
        """
        self.assertEqual(
            w.encodeMessage(w.resultMessage(w.S_INVALID_MSG, None, None)),
            b'<{"msg_type":1,"result":"","session":18446744073709551615,'
            b'"status":4,"token":18446744073709551615}>')

    def test_bracketsEscaped(self):
        """
        C{<} and C{>} in strings become C{\\u003c} and C{\\u003e}; other
        text stays raw UTF-8 with JSON's escapes.
        """
        frame = w.encodeMessage(w.regMessage('a"b\\c<d>\u00e9\t', 1))
        self.assertEqual(
            frame,
            b'<{"msg_type":3,"name":"a\\"b\\\\c\\u003cd\\u003e\xc3\xa9\\t",'
            b'"session":1,"token":18446744073709551615}>')
        self.assertEqual(frame.count(b"<"), 1)
        self.assertEqual(frame.count(b">"), 1)

    def test_loneSurrogate(self):
        """
        A string that is not valid Unicode still encodes (as ASCII
        escapes) instead of raising.
        """
        frame = w.encodeMessage(w.regMessage("a\ud800>", 1))
        self.assertEqual(
            frame,
            b'<{"msg_type":3,"name":"a\\ud800\\u003e","session":1,'
            b'"token":18446744073709551615}>')

    def test_everyField(self):
        """
        Each constructor gives every field of its type (spec section 3).
        """
        keys = {
            w.MSG_RESULT: {"msg_type", "result", "session", "status",
                           "token"},
            w.MSG_REQUEST: {"msg_type", "oper", "session", "target",
                            "token"},
            w.MSG_REG: {"msg_type", "name", "session", "token"},
            w.MSG_ROOMLIST: {"msg_type", "rooms", "session", "token"},
            w.MSG_ROOM: {"msg_type", "room", "session", "token", "type"},
            w.MSG_CHESS: {"msg_type", "session", "token", "type"},
            w.MSG_STATE: {"msg_type", "session", "state", "token"},
            w.MSG_GAME: {"ex", "msg_type", "session", "state", "token"},
            w.MSG_MOVE: {"chess", "msg_type", "session", "token", "x",
                         "y"},
        }
        msgs = [
            w.resultMessage(0, 1, 2), w.requestMessage(1, 2),
            w.regMessage("n", 1), w.roomListMessage([], 1, 2),
            w.roomMessage(1, w.roomObject("r", "o", "g", 1, 1, 0), 1, 2),
            w.chessMessage(1, 2), w.stateMessage(3, 2),
            w.gameMessage(2, 0, 1, 2), w.moveMessage(1, 2, 3, 4, 5),
        ]
        for msg in msgs:
            self.assertEqual(set(msg), keys[msg["msg_type"]])
        self.assertEqual(
            set(w.roomObject("r", "o", "g", 1, 1, 0)),
            {"gs", "guest", "id", "name", "oct", "owner", "psw", "state"})
        self.assertEqual(w.roomObject("r", "o", "g", 1, 1, 0)["id"],
                         4294967295)


def jsonFrame(obj):
    """
    The reference encoding: json.dumps as the spec gives it, brackets
    escaped.
    """
    text = json.dumps(obj, separators=(",", ":"), sort_keys=True,
                      ensure_ascii=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e")
    return b"<" + text.encode("utf-8") + b">"


class FastEncodeTests(SynchronousTestCase):
    """
    The direct formatting of move, result and game messages gives the same
    bytes as JSON for every input, falling back when it cannot.
    """

    values = (st.integers(-2 ** 70, 2 ** 70) | st.booleans() | st.none()
              | st.floats(allow_nan=False) | st.text(max_size=3))

    @given(st.sampled_from([w.MSG_MOVE, w.MSG_RESULT, w.MSG_GAME, 1.0,
                            True, 10]),
           st.dictionaries(st.sampled_from(
               ["chess", "x", "y", "ex", "state", "status", "result",
                "session", "token", "other"]), values, max_size=7),
           st.booleans())
    @settings(max_examples=1000, deadline=None)
    def test_sameAsJson(self, msgType, fields, full):
        """
        Any dict of these keys and values encodes like json.dumps.
        """
        if full:
            base = {w.MSG_MOVE: w.moveMessage(1, 2, 3, 4, 5),
                    w.MSG_GAME: w.gameMessage(3, 1, 4, 5)}.get(
                        msgType, w.resultMessage(0, 4, 5))
            fields = dict(base, **fields)
        obj = dict(fields, msg_type=msgType)
        self.assertEqual(w.encodeMessage(obj), jsonFrame(obj))

    def test_constructors(self):
        """
        The constructors' messages take the fast path and match JSON.
        """
        for obj in (w.moveMessage(16, 14, 0, None, 3),
                    w.resultMessage(1025, 2 ** 64 - 2, 0),
                    w.gameMessage(3, 4, None, None)):
            self.assertIsNotNone(w._encodeFlat(obj))
            self.assertEqual(w.encodeMessage(obj), jsonFrame(obj))


class ScannerTests(SynchronousTestCase):
    """
    L{w.FrameScanner} reassembles frames.
    """

    def test_junkBefore(self):
        """
        Bytes before C{<} are dropped, also across chunks.
        """
        s = w.FrameScanner()
        self.assertEqual(s.feed(b"junk before "), [])
        self.assertEqual(s.pending(), 0)
        self.assertEqual(s.feed(b'xx<{"a":1}> trailing junk'),
                         [b'{"a":1}'])
        self.assertEqual(s.pending(), 0)
        self.assertEqual(s.feed(b"<1>"), [b"1"])

    def test_junkNeverBuffered(self):
        """
        Junk without C{<} is never kept, however much arrives.
        """
        s = w.FrameScanner()
        for i in range(100):
            self.assertEqual(s.feed(b"x" * 10000), [])
            self.assertEqual(s.pending(), 0)

    def test_emptyFrame(self):
        """
        C{<>} gives an empty payload, which does not decode.
        """
        self.assertEqual(w.FrameScanner().feed(b"<>"), [b""])
        self.assertRaises(w.InvalidMessage, w.decodeMessage, b"")

    def test_merged(self):
        """
        Several frames in one chunk come out in order.
        """
        self.assertEqual(w.FrameScanner().feed(b"<a><b>junk<c><"),
                         [b"a", b"b", b"c"])

    def test_gtInString(self):
        """
        A C{>} inside a JSON string does not end the frame; escaped
        quotes and backslashes are followed.
        """
        payload = b'{"name":"a>b\\"c>\\\\","x":">"}'
        self.assertEqual(w.FrameScanner().feed(b"<" + payload + b">"),
                         [payload])
        for i in range(len(payload) + 2):
            data = b"<" + payload + b">"
            self.assertEqual(scanAll([data[:i], data[i:]]), [payload])

    def test_quoteInJunk(self):
        """
        A payload that does not start with C{{} ends at its first C{>}, so
        a stray quote in junk does not swallow the next frames.
        """
        self.assertEqual(
            w.FrameScanner().feed(b'<abc"def><{"msg_type":3}><"x>'),
            [b'abc"def', b'{"msg_type":3}', b'"x'])
        self.assertEqual(scanAll([b'<a"', b'b>', b'<{"a":"<>"}>']),
                         [b'a"b', b'{"a":"<>"}'])

    def test_leadingWhitespace(self):
        """
        JSON whitespace before C{{} keeps the frame JSON-aware, also when
        the whitespace arrives on its own.
        """
        self.assertEqual(w.FrameScanner().feed(b'< \r\n{"a":">"}>'),
                         [b' \r\n{"a":">"}'])
        self.assertEqual(scanAll([b"< ", b" ", b'{"a":">"}>']),
                         [b'  {"a":">"}'])
        self.assertEqual(scanAll([b"< ", b" ", b'x"y>']), [b'  x"y'])

    def test_ltInFrame(self):
        """
        A C{<} inside a frame is plain content.
        """
        self.assertEqual(w.FrameScanner().feed(b"<a<b>"), [b"a<b"])

    def test_singleQuotes(self):
        """
        Single quotes do not protect C{>}: the frame ends at it, and the
        payload does not decode.
        """
        payloads = w.FrameScanner().feed(b"<{'msg_type':3}>")
        self.assertEqual(payloads, [b"{'msg_type':3}"])
        self.assertRaises(w.InvalidMessage, w.decodeMessage, payloads[0])

    def test_byteByByte(self):
        """
        The captured frames fed one byte at a time come out whole.
        """
        data = b"junk".join(CAPTURED)
        payloads = scanAll([data[i:i + 1] for i in range(len(data))])
        self.assertEqual(payloads, [f[1:-1] for f in CAPTURED])

    def test_tooLong(self):
        """
        A frame longer than MAX_FRAME raises, even split over chunks, and
        the scanner is usable afterwards.
        """
        s = w.FrameScanner()
        self.assertEqual(s.feed(b"<" + b"x" * w.MAX_FRAME), [])
        exc = self.assertRaises(w.FrameTooLong, s.feed, b"x")
        self.assertEqual(exc.frames, [])
        self.assertEqual(s.pending(), 0)
        self.assertEqual(s.feed(b"<ok>"), [b"ok"])

    def test_tooLongInString(self):
        """
        An unterminated string cannot make the buffer grow past the limit.
        """
        s = w.FrameScanner()
        s.feed(b'<{"a":"')
        for i in range(6):
            s.feed(b">" * 10000)
        self.assertRaises(w.FrameTooLong, s.feed, b">" * 10000)
        self.assertEqual(s.pending(), 0)

    def test_tooLongWhole(self):
        """
        A complete oversized frame in one chunk raises too, carrying the
        frames before it.
        """
        exc = self.assertRaises(
            w.FrameTooLong, w.FrameScanner().feed,
            b"<a><" + b"x" * (w.MAX_FRAME + 1) + b">")
        self.assertEqual(exc.frames, [b"a"])

    def test_maxFrameAccepted(self):
        """
        A payload of exactly MAX_FRAME bytes is accepted.
        """
        payload = b"x" * w.MAX_FRAME
        self.assertEqual(w.FrameScanner().feed(b"<" + payload + b">"),
                         [payload])
        s = w.FrameScanner()
        self.assertEqual(s.feed(b"<" + payload), [])
        self.assertEqual(s.feed(b">"), [payload])

    @given(st.lists(st.binary(), max_size=8), st.data())
    @settings(max_examples=200, deadline=None)
    def test_anyChunking(self, junks, data):
        """
        Frames separated by junk without C{<} or quotes come out the same
        however the stream is cut.
        """
        payloads = [j.replace(b"<", b"").replace(b">", b"")
                    .replace(b'"', b"") for j in junks]
        stream = b"".join(b"junk<" + p + b">" for p in payloads)
        cuts = sorted(data.draw(st.lists(
            st.integers(0, len(stream)), max_size=10)))
        chunks = cutAt(stream, cuts)
        self.assertEqual(scanAll(chunks), payloads)


def referenceScan(data, maxFrame):
    """
    A byte-at-a-time model of the scanner: the payloads, and whether it
    ended with a frame too long.
    """
    out = []
    frame = None
    inString = escape = False
    mode = None
    for byte in data:
        c = bytes([byte])
        if frame is None:
            if c == b"<":
                frame = b""
                inString = escape = False
                mode = None
            continue
        if mode is None and c not in (b" ", b"\t", b"\r", b"\n"):
            mode = "json" if c == b"{" else "plain"
        if mode != "json":
            if c == b">":
                out.append(frame)
                frame = None
                continue
            frame += c
            if len(frame) > maxFrame:
                return out, True
            continue
        if inString:
            if escape:
                escape = False
            elif c == b"\\":
                escape = True
            elif c == b'"':
                inString = False
        elif c == b'"':
            inString = True
        elif c == b">":
            out.append(frame)
            frame = None
            continue
        frame += c
        if len(frame) > maxFrame:
            return out, True
    return out, False


class ScannerModelTests(SynchronousTestCase):
    """
    L{w.FrameScanner} agrees with a byte-at-a-time model.
    """

    @given(st.lists(st.sampled_from(
        [b"<", b">", b'"', b"\\", b"a", b"{", b"xy", b" ", b"<{"]),
        max_size=60),
        st.data())
    @settings(max_examples=500, deadline=None)
    def test_model(self, parts, data):
        """
        Any stream of brackets, quotes, backslashes and text, cut
        anywhere, gives the model's payloads, or FrameTooLong where the
        model's pending frame passes the limit.
        """
        stream = b"".join(parts)
        maxFrame = data.draw(st.integers(1, 40))
        cuts = sorted(data.draw(st.lists(
            st.integers(0, len(stream)), max_size=10)))
        chunks = cutAt(stream, cuts)
        expected, tooLong = referenceScan(stream, maxFrame)
        scanner = w.FrameScanner(maxFrame)
        out = []
        try:
            for chunk in chunks:
                out.extend(scanner.feed(chunk))
        except w.FrameTooLong as e:
            out.extend(e.frames)
            self.assertTrue(tooLong, (stream, maxFrame))
            self.assertEqual(out, expected)
        else:
            self.assertFalse(tooLong)
            self.assertEqual(out, expected)


class DecodeTests(SynchronousTestCase):
    """
    L{w.decodeMessage} and the field helpers.
    """

    def test_valid(self):
        """
        A register frame decodes; token and session default to 2**64-1.
        """
        msg = w.decodeMessage(b'{"msg_type":3,"name":"bob"}')
        self.assertEqual(msg, {"msg_type": 3, "name": "bob",
                               "token": w.INVALID_U64,
                               "session": w.INVALID_U64})

    def test_invalid(self):
        """
        Empty, non-UTF-8, non-JSON, non-object, bad or unknown msg_type,
        and out-of-range envelopes are all L{w.InvalidMessage}.
        """
        bad = [
            b"", b"\xff\xfe", b"not json", b"{'msg_type':3}", b"[1]",
            b"3", b'"x"', b"null", b"{}", b'{"msg_type":null}',
            b'{"msg_type":"3"}', b'{"msg_type":3.0}', b'{"msg_type":true}',
            b'{"msg_type":0}', b'{"msg_type":6}', b'{"msg_type":11}',
            b'{"msg_type":12}', b'{"msg_type":-1}',
            b'{"msg_type":4294967299}',
            b'{"msg_type":3,"session":-1}',
            b'{"msg_type":3,"session":18446744073709551616}',
            b'{"msg_type":3,"token":"1"}',
            b'{"msg_type":3', b'{"msg_type":NaN}',
            b"[" * 100000 + b"]" * 100000,
        ]
        for payload in bad:
            self.assertRaises(w.InvalidMessage, w.decodeMessage, payload)

    def test_whitespace(self):
        """
        Whitespace around and inside the JSON is accepted; trailing
        garbage is not.
        """
        msg = w.decodeMessage(b' \t\n{ "msg_type" : 3 , "name":"a" } \r\n')
        self.assertEqual(msg["name"], "a")
        self.assertRaises(w.InvalidMessage, w.decodeMessage,
                          b'{"msg_type":3} x')
        self.assertRaises(w.InvalidMessage, w.decodeMessage,
                          b'{"msg_type":3}{"msg_type":3}')
        self.assertRaises(w.InvalidMessage, w.decodeMessage, b"   ")

    def test_allValidTypes(self):
        """
        Types 1, 2, 3, 4, 5, 7, 8, 9 and 10 decode.
        """
        for t in (1, 2, 3, 4, 5, 7, 8, 9, 10):
            msg = w.decodeMessage(json.dumps({"msg_type": t}).encode())
            self.assertEqual(msg["msg_type"], t)

    def test_uintField(self):
        """
        L{w.uintField} accepts in-range integers only.
        """
        msg = {"x": 3, "b": True, "f": 3.0, "s": "3", "n": -1,
               "big": 2 ** 32, "z": None}
        self.assertEqual(w.uintField(msg, "x"), 3)
        self.assertEqual(w.uintField(msg, "missing", 7), 7)
        self.assertIsNone(w.uintField(msg, "missing", None))
        self.assertEqual(w.uintField(msg, "z", 5), 5)
        self.assertEqual(w.uintField(msg, "big", bits=64), 2 ** 32)
        for key in ("b", "f", "s", "n", "big", "missing"):
            self.assertRaises(w.InvalidMessage, w.uintField, msg, key)
        self.assertRaises(w.InvalidMessage, w.uintField, [], "x")

    def test_strField(self):
        """
        L{w.strField} accepts strings, optionally bounded in UTF-8 bytes.
        """
        msg = {"s": "\u00e9" * 18, "n": 1, "sur": "\ud800"}
        self.assertEqual(w.strField(msg, "s"), "\u00e9" * 18)
        self.assertEqual(w.strField(msg, "missing", ""), "")
        self.assertRaises(w.InvalidMessage, w.strField, msg, "s",
                          maxBytes=35)
        for key in ("n", "sur", "missing"):
            self.assertRaises(w.InvalidMessage, w.strField, msg, key)
        self.assertRaises(w.InvalidMessage, w.strField, "x", "s")

    def test_roomField(self):
        """
        L{w.roomField} reads a room operation's room with defaults.
        """
        msg = w.decodeMessage(
            b'{"msg_type":5,"type":17,"room":{"name":"r"}}')
        self.assertEqual(w.roomField(msg), {
            "name": "r", "psw": "", "oct": 16, "gs": 1, "state": 0})
        for room in (b"null", b"[]", b'"r"', b'{"psw":"x"}',
                     b'{"name":1}', b'{"name":"r","oct":-1}'):
            msg = w.decodeMessage(
                b'{"msg_type":5,"type":17,"room":' + room + b"}")
            self.assertRaises(w.InvalidMessage, w.roomField, msg)

    @given(st.recursive(
        st.none() | st.booleans() | st.integers(0, 2 ** 64 - 1)
        | st.text(),
        lambda kids: st.lists(kids, max_size=4)
        | st.dictionaries(st.text(), kids, max_size=4),
        max_leaves=10))
    @settings(max_examples=300, deadline=None)
    def test_neverCrashes(self, value):
        """
        Any JSON value in any field gives a dict or InvalidMessage, and
        the helpers raise nothing else.
        """
        for key in ("msg_type", "session", "token", "name", "room"):
            payload = json.dumps({"msg_type": 5, key: value}).encode()
            try:
                msg = w.decodeMessage(payload)
            except w.InvalidMessage:
                continue
            for helper in (w.uintField, w.strField):
                try:
                    helper(msg, key)
                except w.InvalidMessage:
                    pass
            try:
                w.roomField(msg)
            except w.InvalidMessage:
                pass


class RoundTripTests(SynchronousTestCase):
    """
    encode -> scan -> decode gives back what was encoded.
    """

    @given(st.text(), st.integers(0, 2 ** 64 - 1))
    @settings(max_examples=300, deadline=None)
    def test_anyName(self, name, session):
        """
        Any text, including C{<>"\\} and non-ASCII, survives, with the
        frame split at every position.
        """
        msg = w.regMessage(name, session)
        frame = w.encodeMessage(msg)
        self.assertEqual(frame.count(b"<"), 1)
        self.assertEqual(frame.count(b">"), 1)
        self.assertEqual(frame[0:1] + frame[-1:], b"<>")
        for i in range(len(frame) + 1):
            payloads = scanAll([frame[:i], frame[i:]])
            self.assertEqual(len(payloads), 1)
            self.assertEqual(w.decodeMessage(payloads[0]), msg)

    @given(st.lists(st.tuples(st.text(), st.text()), min_size=1,
                    max_size=5), st.data())
    @settings(max_examples=200, deadline=None)
    def test_mergedAndSplit(self, pairs, data):
        """
        Several frames merged into one stream and cut anywhere come back
        in order.
        """
        msgs = [w.roomListMessage(
            [w.roomObject(a, b, a + b, 1, 1, 0, b)], 1, i)
            for i, (a, b) in enumerate(pairs)]
        stream = b"".join(w.encodeMessage(m) for m in msgs)
        cuts = sorted(data.draw(st.lists(
            st.integers(0, len(stream)), max_size=8)))
        chunks = cutAt(stream, cuts)
        self.assertEqual([w.decodeMessage(p) for p in scanAll(chunks)],
                         msgs)

    @given(st.text(alphabet='<>"\\ab\u00e9'))
    @settings(max_examples=200, deadline=None)
    def test_rawBracketsFromClients(self, name):
        """
        A client that does not escape C{<}/C{>} (as the original client
        does not) still gets its string through intact.
        """
        raw = json.dumps({"msg_type": 3, "name": name},
                         ensure_ascii=False).encode("utf-8")
        data = b"<" + raw + b">"
        for i in range(len(data) + 1):
            payloads = scanAll([data[:i], data[i:]])
            self.assertEqual(len(payloads), 1)
            self.assertEqual(w.decodeMessage(payloads[0])["name"], name)


def stdlibDecodeMessage(payload):
    """
    L{w.decodeMessage} as it was with the standard library's parser
    alone (C{json.loads} of the UTF-8 text).
    """
    return jsonvalues.withStdlibJSON(w, w.decodeMessage, payload)


def stdlibEncodeMessage(obj):
    """
    L{w.encodeMessage} written with C{json.dumps} alone, as the general
    path has always written it.
    """
    text = json.dumps(obj, separators=(",", ":"), sort_keys=True,
                      ensure_ascii=False)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e")
    try:
        return b"<" + text.encode("utf-8") + b">"
    except UnicodeEncodeError:
        text = json.dumps(obj, separators=(",", ":"), sort_keys=True)
        text = text.replace("<", "\\u003c").replace(">", "\\u003e")
        return b"<" + text.encode("ascii") + b">"


# Any field of any message, with values where fast parsers part from the
# standard library.
gomokuMessages = st.fixed_dictionaries(
    {"msg_type": st.sampled_from(sorted(w.VALID_TYPES))
     | jsonvalues.scalars},
    optional={key: jsonvalues.values for key in (
        "token", "session", "name", "psw", "room", "rooms", "x", "y",
        "chess", "type", "state", "ex", "status", "result", "target",
        "oper")})


class StdlibTests(SynchronousTestCase):
    """
    The codec's JSON (msgspec, L{hub.wire.fastjson}) gives what the
    standard library gave: the same message or the same
    L{w.InvalidMessage}, and the same bytes.
    """

    def assertSameDecoding(self, payload):
        jsonvalues.assertSameOutcome(self, w.decodeMessage,
                                     stdlibDecodeMessage, payload)

    def test_captured(self):
        """
        The captured frames of spec section 3.
        """
        for frame in CAPTURED:
            self.assertSameDecoding(frame[1:-1])

    @given(jsonvalues.jsonTexts(gomokuMessages))
    @settings(max_examples=1000, deadline=None)
    def test_anyMessage(self, payload):
        """
        Any message, with any JSON in its fields, in any of json.dumps'
        forms.
        """
        self.assertSameDecoding(payload)

    @given(jsonvalues.mutatedTexts(gomokuMessages))
    @settings(max_examples=1000, deadline=None)
    def test_brokenMessage(self, payload):
        """
        Messages with bytes inserted, replaced or deleted.
        """
        self.assertSameDecoding(payload)

    @given(st.sampled_from([w.moveMessage, w.gameMessage]),
           st.integers(0, 2 ** 64 - 1), st.integers(0, 2 ** 64 - 1),
           st.integers(-2 ** 65, 2 ** 65), st.integers(-2 ** 65, 2 ** 65))
    @settings(max_examples=500, deadline=None)
    def test_perMoveFrames(self, constructor, token, session, a, b):
        """
        The frames of a move, the server's and a client's: the same bytes
        as json.dumps writes, decoded to the same message.
        """
        if constructor is w.moveMessage:
            msg = w.moveMessage(w.CHESS_BLACK, a, b, token, session)
        else:
            msg = w.gameMessage(a, b, token, session)
        frame = w.encodeMessage(msg)
        self.assertEqual(frame, stdlibEncodeMessage(msg))
        self.assertSameDecoding(frame[1:-1])
        result = w.resultMessage(w.S_OK, token, session)
        self.assertEqual(w.encodeMessage(result),
                         stdlibEncodeMessage(result))

    @given(st.text(), st.text(), st.text(), st.integers(0, 2 ** 64 - 1))
    @settings(max_examples=300, deadline=None)
    def test_roomFrames(self, name, owner, guest, token):
        """
        Room and room list frames: the same bytes as json.dumps, decoded
        alike.
        """
        room = w.roomObject(name, owner, guest, w.CHESS_WHITE, 1, 0, name)
        for msg in (w.roomMessage(w.RI_PLAYER_JOIN, room, token, 1),
                    w.roomListMessage([room, room], token, 2),
                    w.regMessage(name, 3, token)):
            frame = w.encodeMessage(msg)
            self.assertEqual(frame, stdlibEncodeMessage(msg))
            self.assertSameDecoding(frame[1:-1])
