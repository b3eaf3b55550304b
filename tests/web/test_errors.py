"""
Malformed paths and ids are answered 404 without a traceback, failures
500 or 503, and either, repeated, costs the log a line or two: what a
script sending thousands of such requests over one connection did to the
web port.
"""

import re

from twisted.internet import defer, protocol, reactor
from twisted.internet.endpoints import TCP4ClientEndpoint
from twisted.logger import LogLevel, formatEvent, globalLogPublisher
from twisted.trial.unittest import SynchronousTestCase, TestCase

from hub.records import query
from hub.web.errors import MAX_RECORD_ID, pathSegment, recordId
from tests.records.support import SQLiteMixin, openDatabase
from tests.web.support import TIMEOUT, WebHub

#: Requests sent over one connection.
PIPELINED = 2000

#: Log events the requests of a test may cause, at most.
MAX_LOG_EVENTS = 6

#: Malformed paths, and ids out of the records' range.
MALFORMED = [
    "/api/games/%C2%B2", "/games/%E2%91%A0", "/api/games/" + "7" * 5000,
    "/games/" + "7" * 5000, "/static/%00..", "/static/%FF", "/static/",
    "/static/..%2F..%2Fetc%2Fpasswd", "/api/games/99999999999999999999",
    "/api/games/%d" % (MAX_RECORD_ID + 1,), "/api/games/-1",
    "/api/games/+1", "/api/games/%201", "/api/games/0x10",
    "/api/hub/events/anything", "/api/games/live-1/events/more",
    "/api/players/gomoku/a%00b", "/players/gomoku/a%1Bb",
    "/players/gomoku/%FF", "/api/players/gomoku/" + "n" * 5000,
    "/leaderboard/%FF", "/games/live-%00",
]

_STATUS = re.compile(rb"HTTP/1\.1 (\d{3}) ")


class Pipeline(protocol.Protocol):
    """
    Sends every request at once over one connection, the last one asking
    to close, and keeps what comes back.
    """

    def __init__(self, paths):
        self.paths = paths
        self.received = []
        self.done = defer.Deferred()

    def connectionMade(self):
        requests = [b"GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                    % (path.encode("ascii"),) for path in self.paths[:-1]]
        requests.append(b"GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        b"Connection: close\r\n\r\n"
                        % (self.paths[-1].encode("ascii"),))
        self.transport.write(b"".join(requests))

    def dataReceived(self, data):
        self.received.append(data)

    def connectionLost(self, reason):
        self.done.callback(b"".join(self.received))


@defer.inlineCallbacks
def pipelined(web, paths):
    """
    GET each of C{paths} over one connection to C{web}, pipelined.

    @return: a Deferred of the status codes of the answers, in order.
    """
    factory = protocol.Factory.forProtocol(lambda: Pipeline(paths))
    factory.noisy = False
    endpoint = TCP4ClientEndpoint(reactor, "127.0.0.1",
                                  web.port.getHost().port)
    client = yield endpoint.connect(factory)
    received = yield client.done.addTimeout(6 * TIMEOUT, reactor)
    return [int(code) for code in _STATUS.findall(received)]


class LogEvents:
    """
    The log events emitted while it listens (from its start to the end
    of the test).
    """

    def __init__(self, testCase):
        self.events = []
        globalLogPublisher.addObserver(self.events.append)
        testCase.addCleanup(globalLogPublisher.removeObserver,
                            self.events.append)

    def lines(self):
        return [formatEvent(event) for event in self.events]

    def hubLines(self):
        return [formatEvent(event) for event in self.events
                if event.get("log_namespace", "").startswith("hub.")]

    def failures(self):
        return [event for event in self.events if "log_failure" in event]


class FailingRecords:
    """
    Records whose every query fails (the database is down).
    """

    leaderboardMinGames = 1

    def game(self, gameId):
        return defer.fail(RuntimeError("the database is down"))

    rating = history = leaderboard = (
        lambda self, *args: defer.fail(RuntimeError("the database is down")))


class BrokenRecords(FailingRecords):
    """
    Records whose games cannot be made into an answer (a bug).
    """

    def game(self, gameId):
        return defer.succeed(object())


class MalformedTests(SQLiteMixin, TestCase):
    """
    Malformed paths and ids, with records on SQLite.
    """

    def setUp(self):
        database = openDatabase(self, self.databaseURL())
        self.web = WebHub(self, query.Records(database))

    @defer.inlineCallbacks
    def test_each(self):
        """
        Each malformed path (Unicode digits, ids of 5,000 digits or out of
        the 63-bit range, NUL and bad UTF-8 in a segment, the static
        folder itself, more path after an event stream) is a 404, and
        nothing is logged as a failure.
        """
        log = LogEvents(self)
        for path in MALFORMED:
            code, headers, body = yield self.web.get(path)
            self.assertEqual(code, 404, path)
            self.assertNotIn(b"Traceback", body)
            self.assertNotIn(b"text/event-stream", b"".join(
                headers.getRawHeaders(b"content-type", [])), path)
        self.assertEqual(log.failures(), [])

    @defer.inlineCallbacks
    def test_pipelined(self):
        """
        2,000 malformed requests pipelined over one connection are each
        answered 404 (or 400), and cost the log a bounded number of
        short lines: the first refusal and a summary of the others.
        """
        log = LogEvents(self)
        paths = [MALFORMED[i % len(MALFORMED)] for i in range(PIPELINED)]
        codes = yield pipelined(self.web, paths)
        self.assertEqual(len(codes), PIPELINED)
        self.assertEqual(set(codes) - {400, 404}, set())
        yield self.web.stop()
        lines = log.lines()
        self.assertLessEqual(len(lines), MAX_LOG_EVENTS, lines)
        self.assertEqual(log.failures(), [])
        self.assertTrue(any(re.match(r"\d+ more malformed web requests",
                                     line) for line in lines), lines)
        self.assertLess(max(len(line) for line in lines), 400)

    @defer.inlineCallbacks
    def test_wellFormedUnknown(self):
        """
        A well-formed id of no game, the largest record id included, is a
        plain 404, and is not logged.
        """
        log = LogEvents(self)
        for path in ("/api/games/%d" % (MAX_RECORD_ID,), "/api/games/1",
                     "/games/1", "/games/live-99", "/api/games/live-99"):
            code, headers, body = yield self.web.get(path)
            self.assertEqual(code, 404, path)
        self.assertEqual(log.hubLines(), [])


class FailureTests(TestCase):
    """
    A request that fails in the hub (a bug, or the records down) is
    answered 500 or 503, and logged summarised: one traceback per
    interval, not one per request.
    """

    @defer.inlineCallbacks
    def test_unexpectedException(self):
        """
        2,000 pipelined requests hitting a resource that raises are each
        answered 500, and the log has one traceback and a summary of the
        others.
        """
        web = WebHub(self)

        def broken():
            raise ValueError("a bug")
        web.web.lobbyFeed.now = broken
        log = LogEvents(self)
        codes = yield pipelined(web, ["/api/hub"] * PIPELINED)
        self.assertEqual(codes, [500] * PIPELINED)
        yield web.stop()
        self.assertEqual(len(self.flushLoggedErrors(ValueError)), 1)
        lines = log.lines()
        self.assertLessEqual(len(lines), MAX_LOG_EVENTS, lines)
        self.assertEqual(len(log.failures()), 1)
        self.assertNotEqual(log.failures()[0]["log_level"], LogLevel.critical)
        self.assertTrue(any("%d more failed web requests" % (
            PIPELINED - 1,) in line for line in lines), lines)

    @defer.inlineCallbacks
    def test_recordsDown(self):
        """
        With the records failing, 2,000 pipelined requests for games,
        players and leaderboards are answered 503, with one traceback and
        a summary in the log.
        """
        web = WebHub(self, FailingRecords())
        log = LogEvents(self)
        paths = ["/api/games/1", "/games/2", "/api/players/gomoku/ann",
                 "/players/checkers/bob", "/api/leaderboard/splendor",
                 "/leaderboard/gomoku"] * (PIPELINED // 6 + 1)
        codes = yield pipelined(web, paths[:PIPELINED])
        self.assertEqual(codes, [503] * PIPELINED)
        yield web.stop()
        self.assertEqual(len(self.flushLoggedErrors(RuntimeError)), 1)
        lines = log.lines()
        self.assertLessEqual(len(lines), MAX_LOG_EVENTS, lines)
        self.assertTrue(any("%d more failed web requests" % (
            PIPELINED - 1,) in line for line in lines), lines)


    @defer.inlineCallbacks
    def test_answerFails(self):
        """
        When making the answer fails (a stored game the code cannot read),
        2,000 pipelined requests for the game's JSON and page are answered
        503, with one traceback and a summary in the log.
        """
        web = WebHub(self, BrokenRecords())
        log = LogEvents(self)
        codes = yield pipelined(web, ["/api/games/1", "/games/1"]
                                * (PIPELINED // 2))
        self.assertEqual(codes, [503] * PIPELINED)
        yield web.stop()
        self.assertEqual(len(self.flushLoggedErrors(AttributeError)), 1)
        self.assertLessEqual(len(log.lines()), MAX_LOG_EVENTS, log.lines())


class IdTests(SynchronousTestCase):
    """
    What a record id and a path segment may be.
    """

    def test_recordId(self):
        """
        A record id is 1 to 19 ASCII decimal digits within the 63-bit
        range; Unicode digits, signs, spaces and larger numbers are not.
        """
        self.assertEqual(recordId("42"), 42)
        self.assertEqual(recordId("007"), 7)
        self.assertEqual(recordId(str(MAX_RECORD_ID)), MAX_RECORD_ID)
        for text in ("", "0", "\u00b2", "\u2460", "\u0661", "-1", "+1",
                     " 1", "1 ", "1\n", str(MAX_RECORD_ID + 1), "9" * 20,
                     "9" * 5000, "1e3", "0x1"):
            self.assertIsNone(recordId(text), text)

    def test_pathSegment(self):
        """
        A path segment is valid UTF-8 without control characters, of at
        most 256 characters.
        """
        self.assertEqual(pathSegment("ann é".encode()), "ann é")
        self.assertEqual(pathSegment(b"n" * 256), "n" * 256)
        for raw in (b"\xff", b"a\x00b", b"a\x1bb", "a\u0085".encode(),
                    b"n" * 257, b"n" * 5000):
            self.assertIsNone(pathSegment(raw), raw)
