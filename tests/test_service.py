"""
The hub as a service: stopping it in the middle of games of every kind,
with the records and a cluster node, leaves nothing on the reactor.
"""

import random

from twisted.internet import defer
from twisted.internet.testing import MemoryReactorClock
from twisted.trial import unittest

from hub.cluster.service import STOP_TIMEOUT, ClusterService
from hub.protocols.checkers import CheckersFactory
from hub.protocols.splendor import SplendorFactory
from hub.wire import checkers as checkersWire
from hub.records import db
from hub.records.recorder import FLUSH_SECONDS
from hub.records.service import RecordsService
from hub.wire import splendor as splendorWire
from tests.gomoku.support import GomokuHarness


class StalledDatabase:
    """
    A records database whose writes never finish.
    """

    url = db.parseURL("sqlite::memory:")

    def __init__(self):
        self.closed = False

    def runInteraction(self, interaction, *args, **kwargs):
        return defer.Deferred()

    def close(self):
        self.closed = True


class SilentRedis:
    """
    A Redis client that never answers (and disconnects at once).
    """

    def disconnect(self):
        return defer.succeed(None)

    def __getattr__(self, name):
        return lambda *args, **kwargs: defer.Deferred()


class StopMidGameTests(unittest.TestCase):
    """
    Games of the three kinds run on one hub, with turn clocks, takeover
    bots, reconnect grace and pacing timers pending; stopping the hub
    cancels every one of them.
    """

    def playEverything(self, harness):
        """
        Leave games of the three kinds running on C{harness}'s hub, with
        a disconnected player in each.
        """
        hub = harness.hub
        black, white, _, _ = harness.playing()
        black.move(7, 7)
        black.drop()

        checkers = CheckersFactory(hub.lobby, hub.sessions, hub.clock,
                                   takeover="bot", turnSeconds=15)
        players = [harness.connectTo(checkers) for _ in range(3)]
        for name, (protocol, _) in zip(["ann", "ben", "cat"], players):
            protocol.dataReceived(checkersWire.encode(
                checkersWire.JOIN_ROOM_OP, "r1", name))
        for protocol, _ in players:
            protocol.dataReceived(checkersWire.encode(
                checkersWire.PLAYER_READY_OP))
        players[2][0].connectionLost(None)

        splendor = SplendorFactory(hub.lobby, hub.sessions, hub.clock,
                                   takeover="bot", rng=random.Random(1),
                                   minGap=0.5)
        seated = [harness.connectTo(splendor) for _ in range(3)]
        for protocol, _ in seated:
            protocol.dataReceived(splendorWire.packFrame(
                splendorWire.INIT, 0))
        for protocol, _ in seated:
            protocol.dataReceived(splendorWire.packFrame(
                splendorWire.PLAYER_READY, protocol.session.id))
        seated[0][0].connectionLost(None)

        for kind in ("gomoku", "checkers", "splendor"):
            [room] = [r for r in hub.lobby.rooms(kind) if r.running]
            self.assertFalse(room.table.over, kind)

    def test_noDelayedCallLeft(self):
        harness = GomokuHarness(graceSeconds=30, takeover="bot")
        self.playEverything(harness)
        self.assertNotEqual(harness.pendingCalls(), [])

        harness.stop()
        self.assertEqual(harness.pendingCalls(), [])

    def test_recordsAndCluster(self):
        """
        With the records (whose database never answers) and a cluster
        node (whose Redis never answers), every timer is on the hub's
        tracked clock, the games' timers are gone once the hub stops, and
        nothing is left once the records' flush and the cluster's release
        give up.
        """
        harness = GomokuHarness(graceSeconds=30, takeover="bot")
        hub = harness.hub
        records = RecordsService(db.parseURL("sqlite::memory:"),
                                 MemoryReactorClock(), clock=hub.clock)
        records.database = records.recorder.database = StalledDatabase()
        records.setServiceParent(hub)
        hub.lobby.addTableListener(records.recorder)
        cluster = ClusterService(MemoryReactorClock(), hub, SilentRedis(),
                                 "a", "tcp:0:interface=127.0.0.1",
                                 ttl=3, refreshSeconds=1)
        cluster.setServiceParent(hub)
        self.playEverything(harness)
        harness.clock.advance(1)
        self.assertTrue(cluster.directory._loop.running)
        self.assertEqual(set(harness.pendingCalls()),
                         set(hub.clock.getDelayedCalls()))

        stopped = harness.stop()
        self.assertNoResult(stopped)
        self.assertFalse(cluster.directory._loop.running)
        # Only the stopping services' deadlines wait.
        self.assertLessEqual(
            max(call.getTime() for call in harness.pendingCalls()),
            harness.clock.seconds() + max(FLUSH_SECONDS, STOP_TIMEOUT))
        harness.clock.advance(max(FLUSH_SECONDS, STOP_TIMEOUT))
        self.successResultOf(stopped)
        self.assertTrue(records.database.closed)
        self.assertEqual(harness.pendingCalls(), [])
        self.assertEqual(records.recorder.dropped, 3)
