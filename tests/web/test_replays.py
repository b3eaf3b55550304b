"""
Tests for L{hub.web.replays}: a finished game's document built once, a
few steps a turn, the same bytes as a replay built at once; the cache
bounded by bytes; C{/api/games/ID} with its ETag, its C{Cache-Control}
and its weight on the address's request rate.
"""

import json
import random
import zlib

from twisted.internet import defer
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase, TestCase
from twisted.web.http_headers import Headers

from hub.limits import WebLimits
from hub.records import query
from hub.records.recorder import Recorder
from hub.web import api, replays
from hub.web.live import HEARS, Spectating
from tests.records import support
from tests.web.support import WebHub, openRoom


class TurnClock(Clock):
    """
    A L{Clock} that counts the turns asked of it (C{callLater}).
    """

    turns = 0

    def callLater(self, *args, **kwargs):
        self.turns += 1
        return Clock.callLater(self, *args, **kwargs)


def built(clock, d):
    """
    Turn C{clock} (the replays' scheduler, a L{TurnClock}) until C{d}
    fires: its result, and how many turns were asked for it.
    """
    results = []
    d.addBoth(results.append)
    before = clock.turns
    clock.advance(0)
    [result] = results
    if hasattr(result, "raiseException"):
        result.raiseException()
    return result, clock.turns - before


class CacheTests(SynchronousTestCase):
    """
    L{replays.DocumentCache}: least recently used out, by bytes.
    """

    def document(self, size):
        return replays.Document.of("x" * size, b"no-cache")

    def test_lruByBytes(self):
        """
        Documents are kept up to the bytes allowed; a new one pushes out
        the least recently used (a read counts as a use).
        """
        cache = replays.DocumentCache(100)
        cache.put("a", self.document(40))
        cache.put("b", self.document(40))
        cache.get("a")
        cache.put("c", self.document(40))
        self.assertIsNone(cache.get("b"))
        self.assertIsNotNone(cache.get("a"))
        self.assertIsNotNone(cache.get("c"))
        self.assertEqual(cache.size, 80)
        cache.put("d", self.document(100))
        self.assertEqual((len(cache), cache.size), (1, 100))

    def test_tooLarge(self):
        """
        A document larger than the whole cache is not kept, and pushes
        nothing out.
        """
        cache = replays.DocumentCache(100)
        cache.put("a", self.document(50))
        cache.put("b", self.document(101))
        self.assertIsNone(cache.get("b"))
        self.assertEqual(cache.size, 50)

    def test_etag(self):
        """
        The ETag says the bytes: the same for the same text, another for
        another.
        """
        one, same = self.document(3), self.document(3)
        self.assertEqual(one.etag, same.etag)
        self.assertNotEqual(one.etag, self.document(4).etag)
        self.assertTrue(one.etag.startswith(b'"'))


class StoredTests(support.SQLiteMixin, TestCase):
    """
    Stored games' documents, from records of random games played at real
    tables (L{support.playRandomGame}).
    """

    @defer.inlineCallbacks
    def records(self, kind, games, rng, **kwargs):
        database = support.openDatabase(self, self.databaseURL())
        recorder = Recorder(database, Clock(), batchSize=100)
        for _ in range(games):
            support.playRandomGame(kind, [recorder], rng, **kwargs)
        yield recorder.whenIdle()
        records = query.Records(database)
        found = []
        for gameId in (yield records.gameIdsSince(0, limit=games)):
            found.append((yield records.game(gameId)))
        return records, found

    @defer.inlineCallbacks
    def test_sameBytes(self):
        """
        Built a few steps a turn, a stored game's document is byte for
        byte what its replay built at once encodes to (every kind, with
        drops, takeovers and settled retirements).
        """
        rng = random.Random(37)
        for kind in ("gomoku", "checkers", "splendor"):
            records, found = yield self.records(kind, 25, rng)
            for record in found:
                clock = TurnClock()
                made = replays.Replays(clock, sliceSeconds=0)
                document, turns = built(clock, made.recordDocument(
                    record, api.recordJSON(record, False)))
                self.assertEqual(document.body,
                                 api.encodeJSON(api.recordJSON(record)),
                                 "{} {}".format(kind, record.gameId))
                self.assertEqual(document.cacheControl,
                                 replays.STORED_CACHE)

    @defer.inlineCallbacks
    def test_builtOnceInSlices(self):
        """
        A long game's document is built in a turn per L{replays.STEPS}
        steps (with no time to spare each turn); the requests made
        meanwhile wait for the same build, and the ones after are
        answered from the cache; only the first is said to have cost the
        build.
        """
        records, [record] = yield self.records(
            "gomoku", 1, random.Random(3), incidents=False)
        steps = record.actionCount
        self.assertGreater(steps, 40)
        clock = TurnClock()
        made = replays.Replays(clock, sliceSeconds=0)
        head = api.recordJSON(record, False)
        before = clock.turns
        first = made.recordDocument(record, head)
        second = made.recordDocument(record, head)
        document, _ = built(clock, first)
        turns = clock.turns - before
        self.assertGreaterEqual(turns, steps // replays.STEPS)
        waited = self.successResultOf(second)
        self.assertEqual(waited.body, document.body)
        self.assertEqual((document.built, waited.built), (steps + 1, 0))
        self.assertIs(self.successResultOf(
            made.recordDocument(record, head)), waited)
        self.assertEqual(made.builds, 1)

    @defer.inlineCallbacks
    def storedGame(self, kind, seed):
        """
        A web face on the records of one random game of C{kind} (without
        incidents): C{(web, gameId)}.
        """
        database = support.openDatabase(self, self.databaseURL())
        recorder = Recorder(database, Clock(), batchSize=100)
        support.playRandomGame(kind, [recorder], random.Random(seed),
                               incidents=False)
        yield recorder.whenIdle()
        [gameId] = recorder.confirmed
        return WebHub(self, query.Records(database)), gameId

    @defer.inlineCallbacks
    def test_overHTTP(self):
        """
        C{/api/games/ID} of a stored game: its document with its ETag and
        a long C{Cache-Control}; asked again with that ETag, a 304
        without a body; the game's page builds no replay.
        """
        web, gameId = yield self.storedGame("gomoku", 5)
        code, headers, page = yield web.get("/games/%d" % (gameId,))
        self.assertEqual(code, 200)
        self.assertEqual(web.web.replays.builds, 0)
        code, headers, body = yield web.get("/api/games/%d" % (gameId,))
        self.assertEqual(code, 200)
        self.assertIn("replay", json.loads(body))
        [etag] = headers.getRawHeaders(b"etag")
        self.assertEqual(headers.getRawHeaders(b"cache-control"),
                         [replays.STORED_CACHE])
        code, headers, body = yield conditional(
            web, "/api/games/%d" % (gameId,), etag)
        self.assertEqual((code, body), (304, b""))
        self.assertEqual(web.web.replays.builds, 1)

    @defer.inlineCallbacks
    def test_gzip(self):
        """
        A client that takes gzip gets the document as the cache keeps it,
        gzip-compressed, with its own ETag (the body's, marked C{-gzip})
        and C{Vary: Accept-Encoding}; it inflates to the bytes a client
        that does not take gzip gets, and its ETag answers 304 as well.
        """
        web, gameId = yield self.storedGame("checkers", 8)
        path = "/api/games/%d" % (gameId,)
        code, plainHeaders, plain = yield web.get(path)
        self.assertEqual(code, 200)
        self.assertIsNone(plainHeaders.getRawHeaders(b"content-encoding"))
        code, headers, packed = yield request(
            web, path, {b"Accept-Encoding": [b"br, gzip;q=0.8"]})
        self.assertEqual(code, 200)
        self.assertEqual(headers.getRawHeaders(b"content-encoding"),
                         [b"gzip"])
        for found in (headers, plainHeaders):
            self.assertEqual(found.getRawHeaders(b"vary"),
                             [b"Accept-Encoding"])
        self.assertEqual(zlib.decompress(packed, 16 + zlib.MAX_WBITS), plain)
        self.assertLess(len(packed) * 10, len(plain))
        [plainTag] = plainHeaders.getRawHeaders(b"etag")
        [etag] = headers.getRawHeaders(b"etag")
        self.assertEqual(etag, plainTag[:-1] + b'-gzip"')
        code, _, body = yield request(
            web, path, {b"Accept-Encoding": [b"gzip"],
                        b"If-None-Match": [etag]})
        self.assertEqual((code, body), (304, b""))
        self.assertEqual(web.web.replays.builds, 1)

    @defer.inlineCallbacks
    def test_keptCompressed(self):
        """
        The cache weighs a document by its compressed bytes, and a long
        one is inflated for a client a L{replays.PIECE} a turn.
        """
        records, [record] = yield self.records(
            "checkers", 1, random.Random(4), incidents=False)
        clock = TurnClock()
        made = replays.Replays(clock, sliceSeconds=0)
        document, _ = built(clock, made.recordDocument(
            record, api.recordJSON(record, False)))
        self.assertTrue(document.gzipped)
        self.assertEqual(made.cache.size, len(document.data))
        self.assertEqual(document.bodyLength, len(document.body))
        self.assertLess(made.cache.size * 10, document.bodyLength)
        self.patch(replays, "PIECE", 1024)
        body, turns = built(clock, made.inflate(document))
        self.assertEqual(body, document.body)
        self.assertGreaterEqual(turns, document.bodyLength // 1024)


class AcceptsGzipTests(SynchronousTestCase):
    """
    L{api.acceptsGzip}: C{Accept-Encoding} read as RFC 9110 says.
    """

    def accepts(self, *values):
        from twisted.web.test.requesthelper import DummyRequest
        request = DummyRequest([b""])
        for value in values:
            request.requestHeaders.addRawHeader(b"Accept-Encoding", value)
        return api.acceptsGzip(request)

    def test_named(self):
        """
        gzip named, alone, among others, in any case, with a quality
        above 0, or in a second header line, is taken.
        """
        for values in [(b"gzip",), (b"deflate, GZIP",), (b"x-gzip",),
                       (b"gzip;q=0.5",), (b"gzip; q=1.0",),
                       (b"br", b"gzip")]:
            self.assertTrue(self.accepts(*values), values)

    def test_refused(self):
        """
        No header, another coding, or gzip with a quality of 0 is not.
        """
        for values in [(), (b"br",), (b"identity",), (b"gzip;q=0",),
                       (b"gzip; q=0.000",), (b"gzipped",), (b"*",)]:
            self.assertFalse(self.accepts(*values), values)


@defer.inlineCallbacks
def request(web, path, headers):
    """
    GET C{path} from C{web} with C{headers} (a dict of lists): C{(code,
    headers, body)}.
    """
    from twisted.web.client import readBody
    response = yield web.agent.request(
        b"GET", web.url(path).encode(), Headers(headers))
    body = yield readBody(response)
    return response.code, response.headers, body


def conditional(web, path, etag):
    """
    GET C{path} from C{web} with C{If-None-Match: etag}: C{(code,
    headers, body)}.
    """
    return request(web, path, {b"If-None-Match": [etag]})


class LiveTests(SynchronousTestCase):
    """
    Live games' documents, from the spectators' feed.
    """

    def game(self, kind, names, moves):
        """
        A game of the feed after C{moves} random actions: C{(feed, table,
        game)}.
        """
        from hub.service import Hub
        clock = Clock()
        hub = Hub(clock)
        feed = Spectating(clock)
        hub.lobby.addTableListener(feed, hears=HEARS)
        room, _ = openRoom(hub, kind, "den", names)
        hub.lobby.start(room)
        table = room.table
        rng = random.Random(kind)
        for _ in range(moves):
            if table.game.isOver:
                break
            table.playOne(rng)
        return clock, table, feed.gameOf(table)

    def test_running(self):
        """
        A running game's document is its snapshot, spliced from its move
        texts: the snapshot's JSON, not to be cached.
        """
        clock, table, game = self.game("checkers", ["a", "b"], 30)
        made = replays.Replays(clock)
        web = api.Web(None, None, _Feed(game), None, replays=made)
        document = self.successResultOf(web.gameDocument(game.id))
        self.assertEqual(document.body,
                         api.encodeJSON(game.snapshot()))
        self.assertIsNone(document.etag)
        self.assertEqual(document.cacheControl, b"no-cache")

    def test_finished(self):
        """
        A finished game's document is its snapshot and its replay, as
        they were made at once; when its spectators change, the snapshot
        is spliced to the replay already built (inflated and compressed
        again a slice a turn).
        """
        clock, table, game = self.game("gomoku", ["a", "b"], 0)
        clock = TurnClock()
        for x in range(4):
            table.act(0, (x, 0))
            table.act(1, (x, 1))
        table.act(0, (4, 0))
        self.assertTrue(game.over)
        made = replays.Replays(clock, sliceSeconds=0)
        document, turns = built(clock, made.finishedDocument(game))
        expected = game.snapshot()
        expected["replay"] = game.replay()
        self.assertEqual(json.loads(document.body), expected)
        self.assertEqual(document.cacheControl, replays.FINISHED_CACHE)
        game.fanout.streams.add(object())
        again, _ = built(clock, made.finishedDocument(game))
        self.assertEqual(json.loads(again.body)["spectators"], 1)
        self.assertEqual(json.loads(again.body)["replay"],
                         expected["replay"])
        self.assertNotEqual(again.etag, document.etag)
        self.assertEqual(made.builds, 1)


class _Feed:
    """
    A spectators' feed of one game.
    """

    def __init__(self, game):
        self.clock = game.clock
        self.one = game

    def game(self, gameId):
        return self.one if gameId == self.one.id else None


class WeightTests(TestCase):
    """
    A game's document weighs on its address's request rate by its bytes.
    """

    @defer.inlineCallbacks
    def test_charged(self):
        """
        With L{api.CHARGE_BYTES} at 1 KiB, a document of some 20 KiB
        costs as many requests: the next request from the address is
        answered 429.
        """
        self.patch(api, "CHARGE_BYTES", 1024)
        web = WebHub(self, limits=WebLimits(
            requestRate=0.5, requestBurst=15, requestOverdraft=1000))
        room, _ = openRoom(web.hub, "checkers", "den", ["ann", "bob"])
        web.hub.lobby.start(room)
        rng = random.Random(1)
        for _ in range(200):
            room.table.playOne(rng)
        game = web.web.spectating.gameOf(room.table)
        code, headers, body = yield web.get("/api/games/" + game.id)
        self.assertEqual(code, 200)
        self.assertGreater(len(body), 16 * 1024)
        code, headers, body = yield web.get("/api/hub")
        self.assertEqual(code, 429)

    @defer.inlineCallbacks
    def test_buildCharged(self):
        """
        The request whose arrival builds a finished game's replay weighs
        one request more per L{api.CHARGE_STEPS} steps; the next, answered
        from the cache, only its bytes.
        """
        self.patch(api, "CHARGE_STEPS", 1)
        web = WebHub(self, limits=WebLimits(
            requestRate=0.5, requestBurst=40, requestOverdraft=1000))
        room, _ = openRoom(web.hub, "gomoku", "den", ["ann", "bob"])
        web.hub.lobby.start(room)
        for x in range(4):
            room.table.act(0, (x, 0))
            room.table.act(1, (x, 1))
        room.table.act(0, (4, 0))
        game = web.web.spectating.game("live-1")
        self.assertTrue(game.over)
        path = "/api/games/" + game.id
        code, headers, body = yield web.get(path)
        self.assertEqual(code, 200)
        # 40, less the request and its replay's 10 steps (each refilled
        # at 0.5 a second).
        bucket = web.web.gate._bucketOf("127.0.0.1")
        self.assertLess(bucket.tokens, 29.5)
        spent = bucket.tokens
        code, headers, body = yield web.get(path)
        self.assertEqual(code, 200)
        self.assertGreater(bucket.tokens, spent - 1.5)
