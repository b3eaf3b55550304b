"""
Tests for L{hub.wire.splendor}: header bytes, framing and bodies.
"""

import json
import struct

from hypothesis import given, settings, strategies as st
from twisted.trial.unittest import SynchronousTestCase

from hub.wire import splendor as wire
from tests.wire import jsonvalues


def unhex(text):
    return bytes.fromhex(text.replace("|", " "))


class HeaderTests(SynchronousTestCase):
    """
    The byte examples of spec section 1.2.
    """

    def test_apiIds(self):
        """
        The API ids are 1..12 in the spec's order.
        """
        self.assertEqual(
            [wire.INIT, wire.INIT_RESP, wire.PLAYER_READY, wire.GAME_START,
             wire.NEW_TURN, wire.PLAYER_OPERATION,
             wire.PLAYER_OPERATION_INVALID, wire.NEW_PLAYER,
             wire.PLAYER_GET_NOBLE, wire.NEW_CARD, wire.DISCARD_GEMS,
             wire.WINNER], list(range(1, 13)))

    def test_headerFormat(self):
        """
        The header is C{!IQQQ}, 28 bytes, the same as the reference
        C{!L3Q}.
        """
        self.assertEqual(wire.HEADER_LENGTH, 28)
        self.assertEqual(wire.HEADER.format, "!IQQQ")
        self.assertEqual(struct.calcsize("!L3Q"), 28)

    def test_init(self):
        """
        INIT from a client: api 1, player 0, length 28, empty body.
        """
        self.assertEqual(
            wire.packFrame(wire.INIT, 0),
            unhex("00 00 00 01 | 00 00 00 00 00 00 00 00 | "
                  "00 00 00 00 00 00 00 1c | 00 00 00 00 00 00 00 00"))

    def test_playerReady(self):
        """
        PLAYER_READY of player 2 (and the server's echo).
        """
        self.assertEqual(
            wire.packFrame(wire.PLAYER_READY, 2),
            unhex("00 00 00 03 | 00 00 00 00 00 00 00 02 | "
                  "00 00 00 00 00 00 00 1c | 00 00 00 00 00 00 00 00"))

    def test_initResp(self):
        """
        INIT_RESP to player 1: the 49-byte body, total length 0x4d.
        """
        body = b'{"allocated_player_id": 1, "other_player_id": []}'
        self.assertEqual(len(body), 49)
        frame = wire.packFrame(wire.INIT_RESP, 1, wire.initRespBody(1, []))
        self.assertEqual(
            frame,
            unhex("00 00 00 02 | 00 00 00 00 00 00 00 01 | "
                  "00 00 00 00 00 00 00 4d | 00 00 00 00 00 00 00 00")
            + body)

    def test_bodyTooLong(self):
        """
        A server body of 1024 bytes or more is refused.
        """
        self.assertRaises(ValueError, wire.packFrame, wire.NEW_TURN, 0,
                          {"x": "a" * 1020})


class FrameReaderTests(SynchronousTestCase):
    """
    L{wire.FrameReader} reassembles split and merged frames.
    """

    def frames(self):
        return [wire.packFrame(wire.INIT, 0),
                wire.packFrame(wire.PLAYER_OPERATION, 3,
                               {"player_id": 3, "operation_type": "x"}),
                wire.packFrame(wire.PLAYER_READY, 3)]

    def expected(self):
        return [(wire.INIT, 0, b""),
                (wire.PLAYER_OPERATION, 3,
                 b'{"player_id": 3, "operation_type": "x"}'),
                (wire.PLAYER_READY, 3, b"")]

    def test_byteByByte(self):
        """
        Frames fed one byte at a time come out whole, once each.
        """
        reader = wire.FrameReader()
        out = []
        for byte in b"".join(self.frames()):
            out.extend(reader.feed(bytes([byte])))
        self.assertEqual(out, self.expected())
        self.assertEqual(reader.pending(), 0)

    def test_merged(self):
        """
        Several frames in one chunk all come out, in order.
        """
        reader = wire.FrameReader()
        self.assertEqual(reader.feed(b"".join(self.frames())),
                         self.expected())

    def test_partialTail(self):
        """
        A trailing partial frame waits for the rest.
        """
        reader = wire.FrameReader()
        data = b"".join(self.frames())
        self.assertEqual(reader.feed(data[:40]), self.expected()[:1])
        self.assertEqual(reader.pending(), 12)
        self.assertEqual(reader.feed(data[40:]), self.expected()[1:])

    def test_tooShort(self):
        """
        A length under 28 raises L{wire.FrameError}.
        """
        reader = wire.FrameReader()
        self.assertRaises(wire.FrameError, reader.feed,
                          wire.HEADER.pack(1, 0, 27, 0))

    def test_tooLong(self):
        """
        A length over 64 KiB raises as soon as the header is in.
        """
        reader = wire.FrameReader()
        self.assertRaises(wire.FrameError, reader.feed,
                          wire.HEADER.pack(6, 1, 64 * 1024 + 1, 0))
        reader = wire.FrameReader()
        self.assertRaises(wire.FrameError, reader.feed,
                          wire.HEADER.pack(6, 1, 2 ** 64 - 1, 0))

    def test_framesBeforeBadHeader(self):
        """
        The frames before a bad header travel on the error.
        """
        reader = wire.FrameReader()
        good = wire.packFrame(wire.PLAYER_READY, 1)
        e = self.assertRaises(wire.FrameError, reader.feed,
                              good + wire.HEADER.pack(6, 1, 5, 0))
        self.assertEqual(e.frames, [(wire.PLAYER_READY, 1, b"")])

    def test_maxAccepted(self):
        """
        A frame of exactly 64 KiB is accepted.
        """
        reader = wire.FrameReader()
        body = b" " * (64 * 1024 - 28)
        out = reader.feed(wire.HEADER.pack(6, 1, 64 * 1024, 0) + body)
        self.assertEqual(out, [(6, 1, body)])

    @given(st.lists(st.tuples(st.integers(1, 12), st.integers(0, 2 ** 64 - 1),
                              st.binary(max_size=60)), max_size=6),
           st.lists(st.integers(1, 50), max_size=20))
    def test_anySplit(self, messages, cuts):
        """
        However the stream is cut, the frames come out unchanged.
        """
        data = b"".join(wire.HEADER.pack(a, p, 28 + len(b), 0) + b
                        for a, p, b in messages)
        reader = wire.FrameReader()
        out = []
        offset = 0
        for cut in cuts + [len(data)]:
            out.extend(reader.feed(data[offset:offset + cut]))
            offset += cut
        self.assertEqual(out, messages)


class CountingBytes(bytes):
    """
    Bytes that count what a reader copies when it concatenates its
    pending buffer with them (C{pending + data} calls C{__radd__} first,
    C{data} being of a subclass of the buffer's type).

    @ivar copied: a one-element list holding the bytes copied so far.
    """

    copied = None

    def __radd__(self, other):
        self.copied[0] += len(other) + len(self)
        return bytes(other) + bytes(self)


class DripTests(SynchronousTestCase):
    """
    A large frame dripped one byte at a time costs linear work.
    """

    def drip(self, size):
        """
        Feed a frame of C{size} bytes one byte at a time.

        @return: the bytes the reader copied by concatenation.
        """
        body = b" " * (size - wire.HEADER_LENGTH)
        data = wire.HEADER.pack(6, 1, size, 0) + body
        reader = wire.FrameReader()
        copied = [0]
        out = []
        for i in range(len(data)):
            chunk = CountingBytes(data[i:i + 1])
            chunk.copied = copied
            out.extend(reader.feed(chunk))
        self.assertEqual(out, [(6, 1, body)])
        self.assertEqual(reader.pending(), 0)
        return copied[0]

    def test_pendingNotRecopied(self):
        """
        The pending bytes are not copied again on every read: a 64 KiB
        frame fed byte by byte copies at most its own size.
        """
        self.assertLessEqual(self.drip(64 * 1024), 64 * 1024)

    def test_linear(self):
        """
        Four times the frame, at most four times the copying.
        """
        small = self.drip(16 * 1024)
        large = self.drip(64 * 1024)
        self.assertLessEqual(large, 4 * max(small, 16 * 1024))


class BodyTests(SynchronousTestCase):
    """
    Server bodies have the reference key names and order.
    """

    def test_gameStart(self):
        """
        GAME_START keys in the spec's order.
        """
        body = wire.gameStartBody([2, 1, 3], [91, 97, 94, 99], [5, 6, 7, 8],
                                  [45, 62, 58, 41], [77, 90, 81, 73])
        self.assertEqual(
            wire.encodeBody(body),
            b'{"players_number": 3, "players_sequence": [2, 1, 3], '
            b'"nobles_info": [91, 97, 94, 99], '
            b'"levelOneCards_info": [5, 6, 7, 8], '
            b'"levelTwoCards_info": [45, 62, 58, 41], '
            b'"levelThreeCards_info": [77, 90, 81, 73]}')

    def test_small(self):
        """
        NEW_TURN, NEW_CARD, DISCARD_GEMS and PLAYER_GET_NOBLE bodies.
        """
        self.assertEqual(wire.encodeBody(wire.newTurnBody(2)),
                         b'{"new_turn_player": 2}')
        self.assertEqual(wire.encodeBody(wire.newCardBody(17)),
                         b'{"card_number": 17}')
        self.assertEqual(wire.encodeBody(wire.discardGemsBody(2)),
                         b'{"number_to_discard": 2}')
        self.assertEqual(wire.encodeBody(wire.nobleBody(3, [91, 95])),
                         b'{"player_id": 3, "noble_number": [91, 95]}')

    def test_operations(self):
        """
        The five broadcast shapes, with the two placements of
        C{golden_number}.
        """
        self.assertEqual(
            wire.getGemsBody(1, [("diamond", 1), ("ruby", 1)]),
            {"player_id": 1, "operation_type": "get_gems",
             "operation_info": [{"gems_type": "diamond", "gems_number": 1},
                                {"gems_type": "ruby", "gems_number": 1}]})
        self.assertEqual(
            wire.buyCardBody(1, 12, [("golden", 1)]),
            {"player_id": 1, "operation_type": "buy_card",
             "operation_info": [{"card_number": 12},
                                {"gems_type": "golden", "gems_number": 1}]})
        self.assertEqual(
            wire.encodeBody(wire.foldCardBody(1, 12, 1)),
            b'{"player_id": 1, "operation_type": "fold_card", '
            b'"operation_info": [{"card_number": 12}, {"golden_number": 1}]}')
        self.assertEqual(
            wire.encodeBody(wire.foldUnknownBody(1, 2, 10002, 0)),
            b'{"player_id": 1, "operation_type": "fold_card_unknown", '
            b'"operation_info": [{"card_level": 2, "card_number": 10002, '
            b'"golden_number": 0}]}')
        self.assertEqual(
            wire.discardBody(1, [("ruby", 1), ("golden", 1)]),
            {"player_id": 1, "operation_type": "discard_gems",
             "operation_info": {"ruby": 1, "golden": 1}})

    def test_decodeBody(self):
        """
        An empty body is None; bad JSON raises L{wire.BodyError}.
        """
        self.assertIsNone(wire.decodeBody(b""))
        self.assertEqual(wire.decodeBody(b'{"a":1}'), {"a": 1})
        self.assertRaises(wire.BodyError, wire.decodeBody, b"{nope")
        self.assertRaises(wire.BodyError, wire.decodeBody, b"\xff\xfe")

    def test_deepNesting(self):
        """
        A body nested deeper than the parser's recursion allows raises
        L{wire.BodyError}, not L{RecursionError}.
        """
        for opener, closer in ((b"[", b"]"), (b'{"a":', b"}")):
            raw = opener * 1000 + b"1" + closer * 1000
            self.assertRaises(wire.BodyError, wire.decodeBody, raw)


class DecodeOperationTests(SynchronousTestCase):
    """
    L{wire.decodeOperation} checks shapes of the Unity client's requests.
    """

    def test_getGems(self):
        """
        get_gems entries keep their order.
        """
        op = wire.decodeOperation(json.loads(
            '{"player_id":1,"operation_type":"get_gems","operation_info":'
            '[{"gems_type":"diamond","gems_number":1},'
            '{"gems_type":"emerald","gems_number":1}]}'))
        self.assertEqual((op.playerId, op.kind, op.card, op.gems),
                         (1, "get_gems", 0, (("diamond", 1),
                                             ("emerald", 1))))

    def test_buyCard(self):
        """
        buy_card: the card first, then the payment.
        """
        op = wire.decodeOperation(json.loads(
            '{"player_id":1,"operation_type":"buy_card","operation_info":'
            '[{"card_number":12},{"gems_type":"golden","gems_number":2}]}'))
        self.assertEqual((op.kind, op.card, op.gems),
                         ("buy_card", 12, (("golden", 2),)))

    def test_fold(self):
        """
        fold_card and fold_card_unknown carry a card number.
        """
        op = wire.decodeOperation(json.loads(
            '{"player_id":1,"operation_type":"fold_card_unknown",'
            '"operation_info":[{"card_level":1,"card_number":10001}]}'))
        self.assertEqual((op.kind, op.card), ("fold_card_unknown", 10001))
        op = wire.decodeOperation(json.loads(
            '{"player_id":1,"operation_type":"fold_card",'
            '"operation_info":[{"card_number":3}]}'))
        self.assertEqual((op.kind, op.card), ("fold_card", 3))

    def test_discard(self):
        """
        discard_gems carries an object of counts.
        """
        op = wire.decodeOperation(json.loads(
            '{"player_id":1,"operation_type":"discard_gems",'
            '"operation_info":{"ruby":1,"golden":1}}'))
        self.assertEqual((op.kind, op.gems),
                         ("discard_gems", (("ruby", 1), ("golden", 1))))
        op = wire.decodeOperation(json.loads(
            '{"player_id":1,"operation_type":"discard_gems",'
            '"operation_info":[{"gems_type":"ruby","gems_number":1}]}'))
        self.assertEqual(op.gems, (("ruby", 1),))

    def test_requestsRoundTrip(self):
        """
        The client-side builders write what L{wire.decodeOperation} reads,
        in the Unity client's compact JSON.
        """
        cases = [("get_gems", 0, (("diamond", 1), ("ruby", 1))),
                 ("buy_card", 12, (("emerald", 2), ("golden", 1))),
                 ("fold_card", 7, ()),
                 ("fold_card_unknown", 10003, ()),
                 ("discard_gems", 0, (("ruby", 1), ("golden", 1)))]
        for kind, card, gems in cases:
            body = wire.operationRequest(4, kind, card, gems)
            frame = wire.packClientFrame(wire.PLAYER_OPERATION, 4, body)
            [(apiId, playerId, raw)] = wire.FrameReader().feed(frame)
            self.assertNotIn(b" ", raw)
            op = wire.decodeOperation(wire.decodeBody(raw))
            self.assertEqual((op.playerId, op.kind, op.card, op.gems),
                             (4, kind, card, gems))
        self.assertEqual(
            wire.operationRequest(1, "fold_card_unknown", 10002),
            {"player_id": 1, "operation_type": "fold_card_unknown",
             "operation_info": [{"card_level": 2, "card_number": 10002}]})
        self.assertEqual(wire.nobleChoiceRequest(2, 95),
                         {"player_id": 2, "noble_number": [95]})
        self.assertRaises(ValueError, wire.operationRequest, 1, "x")

    def test_malformed(self):
        """
        Wrong types and missing keys raise L{wire.BodyError}.
        """
        bad = [None, [], "x",
               {"operation_type": "dance", "operation_info": []},
               {"operation_type": "get_gems", "operation_info": {}},
               {"operation_type": "get_gems",
                "operation_info": [{"gems_type": "ruby"}]},
               {"operation_type": "get_gems",
                "operation_info": [{"gems_type": "ruby",
                                    "gems_number": True}]},
               {"operation_type": "buy_card", "operation_info": []},
               {"operation_type": "buy_card",
                "operation_info": [{"card_number": "3"}]},
               {"operation_type": "discard_gems", "operation_info": "x"},
               {"operation_type": "discard_gems",
                "operation_info": [{"ruby": 1}]},
               {"operation_type": "discard_gems",
                "operation_info": {"ruby": 1.5}},
               {"player_id": "1", "operation_type": "get_gems",
                "operation_info": []}]
        for body in bad:
            self.assertRaises(wire.BodyError, wire.decodeOperation, body)

    def test_nobleChoice(self):
        """
        A noble choice is a one-element list.
        """
        self.assertEqual(
            wire.decodeNobleChoice({"player_id": 2, "noble_number": [93]}),
            (2, 93))
        self.assertEqual(wire.decodeNobleChoice({"noble_number": [91]}),
                         (None, 91))
        for body in [None, {"noble_number": []},
                     {"noble_number": [91, 92]}, {"noble_number": ["91"]},
                     {"player_id": "2", "noble_number": [93]}]:
            self.assertRaises(wire.BodyError, wire.decodeNobleChoice, body)


def stdlibDecodeBody(raw):
    """
    L{wire.decodeBody} as it was, with the standard library's parser.
    """
    if not raw:
        return None
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise wire.BodyError(str(e))


gems = st.lists(st.tuples(
    st.sampled_from(["diamond", "sapphire", "emerald", "ruby", "obsidian",
                     "golden"]) | jsonvalues.texts,
    st.integers(0, 10) | st.sampled_from(jsonvalues.EDGE_INTEGERS)),
    max_size=4)
# The Unity client's requests, and any JSON object with their keys.
splendorBodies = st.builds(
    wire.operationRequest, st.integers(1, 4) | jsonvalues.integers,
    st.sampled_from(wire.OPERATIONS),
    st.integers(0, 10100) | jsonvalues.integers, gems) | st.builds(
    wire.nobleChoiceRequest, st.integers(1, 4),
    st.integers(91, 100) | jsonvalues.integers) | st.fixed_dictionaries(
    {}, optional={"player_id": jsonvalues.values,
                  "operation_type": jsonvalues.values,
                  "operation_info": jsonvalues.values,
                  "noble_number": jsonvalues.values})


class StdlibTests(SynchronousTestCase):
    """
    The codec's JSON (msgspec, L{hub.wire.fastjson}) reads bodies as the
    standard library read them: the same value or the same
    L{wire.BodyError}.
    """

    def assertSameDecoding(self, raw):
        jsonvalues.assertSameOutcome(self, wire.decodeBody,
                                     stdlibDecodeBody, raw)

    @given(splendorBodies)
    @settings(max_examples=500, deadline=None)
    def test_clientFrames(self, body):
        """
        The bodies of the client's frames (L{wire.packClientFrame}), and
        the same bodies as the reference server writes them.
        """
        frame = wire.packClientFrame(wire.PLAYER_OPERATION, 1, body)
        self.assertSameDecoding(frame[wire.HEADER_LENGTH:])
        self.assertSameDecoding(json.dumps(body).encode("ascii"))

    @given(jsonvalues.jsonTexts(splendorBodies))
    @settings(max_examples=500, deadline=None)
    def test_anyBody(self, raw):
        """
        Any body, in any of json.dumps' forms.
        """
        self.assertSameDecoding(raw)

    @given(jsonvalues.mutatedTexts(splendorBodies))
    @settings(max_examples=1000, deadline=None)
    def test_brokenBody(self, raw):
        """
        Bodies with bytes inserted, replaced or deleted, and nothing.
        """
        self.assertSameDecoding(raw)
        self.assertSameDecoding(b"")

    def test_serverBodies(self):
        """
        The server's bodies are written as json.dumps writes them (the
        standard library still writes them: its default separators are
        not msgspec's).
        """
        for body in (wire.newTurnBody(3), wire.newCardBody(17),
                     wire.getGemsBody(1, [("ruby", 1), ("diamond", 1)]),
                     wire.nobleBody(2, [91, 92])):
            self.assertEqual(wire.encodeBody(body),
                             json.dumps(body).encode("ascii"))
            self.assertSameDecoding(wire.encodeBody(body))
