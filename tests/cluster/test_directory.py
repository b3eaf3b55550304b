"""
L{hub.cluster.directory} against a real Redis (C{GAMEHUB_TEST_REDIS}):
two directories of two nodes sharing one key prefix, their timers on a
L{Clock}; and, without Redis, how a directory counts a Redis that fails.
"""

from twisted.internet import defer
from twisted.internet.task import Clock
from twisted.logger import LogLevel, capturedLogs, formatEvent
from twisted.trial.unittest import TestCase

from hub.cluster.directory import (
    ID_BLOCK, BlockIds, ClusterDirectory, DirectoryUnavailable,
    parseRedisURL)
from tests.redisserver import sharedRedisURL


class FakeRoom:
    """
    What the directory reads of a lobby room.
    """

    def __init__(self, kind, name, members=1, running=False, capacity=4):
        self.kind = kind
        self.name = name
        self.members = [object()] * members
        self.running = running
        self.capacity = capacity

    @property
    def full(self):
        return len(self.members) >= self.capacity


def summary(room):
    return {"name": room.name, "running": room.running}


class RedisDirectoryTests(TestCase):
    """
    Two nodes' directories over one Redis.
    """

    ttl = 5.0

    @defer.inlineCallbacks
    def setUp(self):
        import txredisapi
        host, port, db, prefix, _ = parseRedisURL(sharedRedisURL())
        self.redis = yield txredisapi.Connection(
            host, port, dbid=db, reconnect=False)
        self.addCleanup(self.redis.disconnect)
        self.prefix = prefix
        self.clock = Clock()
        self.a = self.directory("a")
        self.b = self.directory("b")

    def directory(self, node):
        return ClusterDirectory(
            self.redis, self.clock, node, address="tcp:host=x:port=1",
            prefix=self.prefix, summaries={"gomoku": summary}, ttl=self.ttl)

    @defer.inlineCallbacks
    def test_nameUniqueAcrossNodes(self):
        """
        A name claimed by one node is reported as the other node's; once
        released it can be claimed again.
        """
        self.assertEqual((yield self.a.claimName("gomoku", "ann")), "a")
        self.assertEqual((yield self.a.claimName("gomoku", "ann")), "a")
        self.assertEqual((yield self.b.claimName("gomoku", "ann")), "a")
        yield self.a.releaseName("gomoku", "ann")
        self.assertEqual((yield self.b.claimName("gomoku", "ann")), "b")

    @defer.inlineCallbacks
    def test_nameHandedOver(self):
        """
        A name handed to another node with its player is taken over
        there when that node expects it, and the old node no longer
        renews or releases it.
        """
        self.a.nameClaimed("gomoku", "bob")
        yield self.a.claimName("gomoku", "bob")
        self.a.handOverName("gomoku", "bob")
        self.assertEqual(self.a.names, {})
        self.b.expectName("gomoku", "bob")
        self.b.nameClaimed("gomoku", "bob")
        yield self.eventually(lambda: self.redis.get(
            self.b.nameKey("gomoku", "bob")), "b")
        self.a.nameReleased("gomoku", "bob")
        self.assertEqual((yield self.a.claimName("gomoku", "bob")), "b")

    @defer.inlineCallbacks
    def eventually(self, query, expected, tries=50):
        """
        Ask C{query()} until it gives C{expected} (Redis answers in
        order, so a few round trips are enough).
        """
        for _ in range(tries):
            value = yield query()
            if value == expected:
                return
        self.assertEqual(value, expected)

    @defer.inlineCallbacks
    def test_roomDirectory(self):
        """
        A room made on one node is listed by the other once published
        (at the next turn); its later changes wait C{roomUpdateSeconds}
        to go out together; its home is found by name; once closed it is
        neither listed nor found.
        """
        room = FakeRoom("gomoku", "r1")
        self.assertEqual((yield self.a.claimRoom("gomoku", "r1")), "a")
        self.assertEqual((yield self.b.claimRoom("gomoku", "r1")), "a")
        self.a.roomChanged(room)
        self.clock.advance(0)
        yield self.eventually(lambda: self.b.listRooms("gomoku"), [
            {"n": 1, "running": False, "node": "a",
             "info": {"name": "r1", "running": False}}])
        self.assertEqual((yield self.b.lookupRoom("gomoku", "r1")), "a")
        room.running = True
        self.a.roomChanged(room)
        self.clock.advance(0)
        rooms = yield self.b.listRooms("gomoku")
        self.assertFalse(rooms[0]["running"])
        self.clock.advance(self.a.roomUpdateSeconds)
        yield self.eventually(
            lambda: self.b.listRooms("gomoku").addCallback(
                lambda rooms: rooms[0]["running"]), True)
        self.a.roomClosed(room)
        yield self.eventually(lambda: self.b.listRooms("gomoku"), [])
        self.assertIsNone((yield self.b.lookupRoom("gomoku", "r1")))
        self.assertEqual(self.clock.getDelayedCalls(), [])

    @defer.inlineCallbacks
    def test_splendorSeats(self):
        """
        INIT seats at the newest open table of a live node, counting the
        seats in Redis until the table is full; a started table takes
        no one.
        """
        yield self.a.refresh()
        old = FakeRoom("splendor", "t-old")
        new = FakeRoom("splendor", "t-new")
        self.a.roomChanged(old)
        self.clock.advance(1)
        self.a.roomChanged(new)
        self.clock.advance(0)
        seats = []
        for _ in range(4):
            seats.append((yield self.b.seat("splendor", 4)))
        self.assertEqual(seats, [("t-new", "a")] * 3 + [("t-old", "a")])
        old.running = True
        self.a.roomChanged(old)
        self.clock.advance(0)
        self.assertIsNone((yield self.eventually(
            lambda: self.b.seat("splendor", 4), None)))

    @defer.inlineCallbacks
    def test_seatNeedsLiveNode(self):
        """
        An open table whose node is not alive (no node key) seats no one.
        """
        self.a.roomChanged(FakeRoom("splendor", "t-dead"))
        self.clock.advance(0)
        yield self.eventually(lambda: self.redis.exists(
            self.a.roomKey("splendor", "t-dead")), True)
        self.assertIsNone((yield self.b.seat("splendor", 4)))

    @defer.inlineCallbacks
    def test_refreshRefills(self):
        """
        A Redis that lost the node's keys has them again after one
        renewal: presence (with the link address), names and rooms.
        """
        self.a.nameClaimed("gomoku", "cid")
        self.a.roomChanged(FakeRoom("gomoku", "rr"))
        self.clock.advance(0)
        yield self.a.refresh()
        keys = [self.a.key("node", "a"), self.a.nameKey("gomoku", "cid"),
                self.a.roomKey("gomoku", "rr")]
        yield self.redis.delete(keys)
        self.assertIsNone((yield self.b.nodeAddress("a")))
        yield self.a.refresh()
        self.assertEqual((yield self.b.nodeAddress("a")),
                         "tcp:host=x:port=1")
        self.assertEqual((yield self.b.claimName("gomoku", "cid")), "a")
        self.assertEqual((yield self.b.lookupRoom("gomoku", "rr")), "a")
        ttl = yield self.redis.ttl(keys[1])
        self.assertTrue(0 < ttl <= self.ttl, ttl)

    @defer.inlineCallbacks
    def test_stopReleases(self):
        """
        A node stopping removes its presence, names and rooms, and leaves
        no timer behind.
        """
        self.a.start()
        self.a.nameClaimed("gomoku", "dan")
        self.a.roomChanged(FakeRoom("gomoku", "rs"))
        self.a.roomChanged(FakeRoom("gomoku", "rs2"))
        yield self.a.stop()
        self.assertEqual(self.clock.getDelayedCalls(), [])
        self.assertIsNone((yield self.b.nodeAddress("a")))
        self.assertEqual((yield self.b.claimName("gomoku", "dan")), "b")
        self.assertIsNone((yield self.b.lookupRoom("gomoku", "rs")))

    @defer.inlineCallbacks
    def test_withdraw(self):
        """
        A withdrawn node (draining) takes its waiting rooms out of the
        directory, seats no one at its open Splendor table, keeps its
        running rooms until their games end, and stays registered.
        """
        yield self.a.refresh()
        self.assertTrue(self.a.registered)
        waiting = FakeRoom("gomoku", "rw")
        running = FakeRoom("gomoku", "rr", running=True)
        table = FakeRoom("splendor", "t-open")
        for room in (waiting, running, table):
            self.a.roomChanged(room)
        self.clock.advance(0)
        yield self.eventually(
            lambda: self.b.listRooms("gomoku").addCallback(len), 2)
        self.a.withdraw()
        yield self.eventually(
            lambda: self.b.listRooms("gomoku").addCallback(
                lambda rooms: [r["info"]["name"] for r in rooms]), ["rr"])
        self.assertIsNone((yield self.b.lookupRoom("gomoku", "rw")))
        self.assertIsNone((yield self.b.seat("splendor", 4)))
        # A room that is new, or whose game ends, is not published.
        self.a.roomChanged(FakeRoom("gomoku", "late"))
        running.running = False
        self.a.roomChanged(running)
        self.clock.advance(1)
        yield self.eventually(lambda: self.b.listRooms("gomoku"), [])
        yield self.a.refresh()
        self.assertTrue(self.a.registered)
        self.assertEqual((yield self.b.nodeAddress("a")),
                         "tcp:host=x:port=1")

    @defer.inlineCallbacks
    def test_idsUniqueAcrossNodes(self):
        """
        Player ids come from blocks Redis hands out: two nodes never give
        the same one.
        """
        idsA, idsB = BlockIds(self.a), BlockIds(self.b)
        idsA.fetch()
        idsB.fetch()
        yield self.eventually(
            lambda: self.redis.ping().addCallback(
                lambda _: bool(idsA._blocks and idsB._blocks)), True)
        taken = [next(idsA) for _ in range(ID_BLOCK)]
        taken += [next(idsB) for _ in range(ID_BLOCK)]
        self.assertEqual(len(set(taken)), 2 * ID_BLOCK)
        self.assertTrue(all(0 < i < 2 ** 40 for i in taken[:10]))


class FailingRedis:
    """
    A Redis client whose every command fails, or never answers.
    """

    def __init__(self, answer=False):
        self.answer = answer

    def __getattr__(self, name):
        def command(*args, **kwargs):
            if self.answer:
                return defer.Deferred()
            return defer.fail(ConnectionRefusedError("no Redis"))
        return command


class AnsweringRedis:
    """
    A Redis that answers every command with None.
    """

    def __getattr__(self, name):
        return lambda *args, **kwargs: defer.succeed(None)


class UnavailableTests(TestCase):
    """
    A directory whose Redis fails or does not answer.
    """

    def test_failureCounted(self):
        """
        A failed request fails with L{DirectoryUnavailable}, is counted,
        and marks the directory unavailable.
        """
        directory = ClusterDirectory(FailingRedis(), Clock(), "a")
        failure = self.failureResultOf(directory.claimName("gomoku", "x"),
                                       DirectoryUnavailable)
        self.assertIn("no Redis", failure.getErrorMessage())
        self.assertEqual(directory.failures, 1)
        self.assertFalse(directory.available)

    def test_saysWhereAndWhatMeanwhile(self):
        """
        The first failure is logged once, plainly: Redis at HOST:PORT is
        unreachable, why, and what the node does meanwhile; a timeout is
        said in words.  Redis answering again is logged too.
        """
        clock = Clock()
        redis = FailingRedis(answer=True)
        directory = ClusterDirectory(redis, clock, "a", timeout=2.0,
                                     refreshSeconds=2.0,
                                     where="Redis at 127.0.0.1:6390")
        with capturedLogs() as events:
            for name in ("r", "s"):
                d = directory.lookupRoom("gomoku", name)
                clock.advance(2.0)
                self.failureResultOf(d, DirectoryUnavailable)
        warnings = [formatEvent(e) for e in events
                    if e["log_level"] is LogLevel.warn]
        self.assertEqual(warnings, [
            "cluster: Redis at 127.0.0.1:6390 is unreachable (no answer "
            "within 2 s); meanwhile this node keeps serving the rooms it "
            "homes, requests that need the cluster's directory get the "
            "protocol's error reply, and it tries again every 2 s"])
        directory.redis = AnsweringRedis()
        with capturedLogs() as events:
            self.successResultOf(directory.lookupRoom("gomoku", "r"))
        self.assertEqual(
            [formatEvent(e) for e in events],
            ["cluster: Redis at 127.0.0.1:6390 answers again; this node "
             "publishes its names and rooms again"])

    def test_timeout(self):
        """
        A request Redis does not answer within C{timeout} fails.
        """
        clock = Clock()
        directory = ClusterDirectory(FailingRedis(answer=True), clock, "a",
                                     timeout=2.0)
        d = directory.lookupRoom("gomoku", "r")
        self.assertNoResult(d)
        clock.advance(2.0)
        self.failureResultOf(d, DirectoryUnavailable)
        self.assertEqual(directory.failures, 1)

    def test_idsWithoutRedis(self):
        """
        Without Redis, ids come from the node's own range: distinct for
        two nodes.
        """
        a = BlockIds(ClusterDirectory(FailingRedis(), Clock(), "a"))
        b = BlockIds(ClusterDirectory(FailingRedis(), Clock(), "b"))
        first = {next(a) for _ in range(100)}
        second = {next(b) for _ in range(100)}
        self.assertEqual(len(first), 100)
        self.assertFalse(first & second)
