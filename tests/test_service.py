"""
The hub as a service: stopping it in the middle of games of every kind
leaves nothing on the reactor.
"""

import random

from twisted.trial import unittest

from hub.protocols.checkers import CheckersFactory
from hub.protocols.splendor import SplendorFactory
from hub.wire import checkers as checkersWire
from hub.wire import splendor as splendorWire
from tests.gomoku.support import GomokuHarness


class StopMidGameTests(unittest.TestCase):
    """
    Games of the three kinds run on one hub, with turn clocks, takeover
    bots, reconnect grace and pacing timers pending; stopping the hub
    cancels every one of them.
    """

    def test_noDelayedCallLeft(self):
        harness = GomokuHarness(graceSeconds=30, takeover="bot")
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
        self.assertNotEqual(harness.pendingCalls(), [])

        harness.stop()
        self.assertEqual(harness.pendingCalls(), [])
