"""
The graceful drain (C{--drain-seconds}): a stopping hub takes no new
room or game in any protocol, lets the games under way end for a while,
then stops as before.  Driven by a L{Clock}.
"""

import random

from twisted.trial import unittest

from hub.protocols.checkers import CheckersFactory
from hub.protocols.splendor import SplendorFactory
from hub.wire import checkers as checkersWire
from hub.wire import gomoku as gomokuWire
from hub.wire import splendor as splendorWire
from tests.gomoku.support import GomokuHarness


class ThreeGames:
    """
    One hub (on a L{Clock}) with a game of each kind under way.
    """

    def __init__(self, drainSeconds=30):
        self.harness = harness = GomokuHarness(graceSeconds=30)
        self.hub = hub = harness.hub
        hub.drainSeconds = drainSeconds
        self.black, self.white, _, _ = harness.playing()
        self.checkers = CheckersFactory(hub.lobby, hub.sessions, hub.clock,
                                        turnSeconds=1000)
        self.checkersPlayers = []
        for name in ("ann", "ben"):
            protocol, transport = harness.connectTo(self.checkers)
            protocol.dataReceived(checkersWire.encode(
                checkersWire.JOIN_ROOM_OP, "r1", name))
            self.checkersPlayers.append((protocol, transport))
        for protocol, _ in self.checkersPlayers:
            protocol.dataReceived(checkersWire.encode(
                checkersWire.PLAYER_READY_OP))
        self.splendor = SplendorFactory(hub.lobby, hub.sessions, hub.clock,
                                        rng=random.Random(1))
        seated = [harness.connectTo(self.splendor) for _ in range(2)]
        for protocol, _ in seated:
            protocol.dataReceived(splendorWire.packFrame(
                splendorWire.INIT, 0))
        for protocol, _ in seated:
            protocol.dataReceived(splendorWire.packFrame(
                splendorWire.PLAYER_READY, protocol.session.id))

    def running(self):
        return sorted(room.kind for room in self.hub.runningRooms())

    def finishGomoku(self):
        """
        Black wins the gomoku game with five in a row.
        """
        for x in range(5):
            self.black.move(x, 0)
            if x < 4:
                self.white.move(x, 1)


class DrainTests(unittest.TestCase):
    """
    L{hub.service.Hub.drain} and a stop with C{drainSeconds}.
    """

    def setUp(self):
        self.games = ThreeGames()
        self.hub = self.games.hub
        self.clock = self.games.harness.clock
        self.assertEqual(self.games.running(),
                         ["checkers", "gomoku", "splendor"])

    def test_refusals(self):
        """
        While draining, a new room or game is refused with each
        protocol's refusal, and the games under way go on.
        """
        self.hub.drain(30)
        harness = self.games.harness
        carol = harness.registered("carol")
        carol.create("new")
        [reply] = carol.messages()
        self.assertEqual(reply["status"], gomokuWire.S_ERROR)
        self.assertIsNone(self.hub.lobby.room("gomoku", "new"))

        protocol, transport = harness.connectTo(self.checkers())
        protocol.dataReceived(checkersWire.encode(
            checkersWire.JOIN_ROOM_OP, "r2", "cat"))
        reply = checkersWire.decode(transport.value().rstrip(b"\n"))
        self.assertEqual(reply.op, checkersWire.ERROR_OP)
        self.assertEqual(int(reply.data1), checkersWire.OTHER_ERROR)
        self.assertIn("shutting down", reply.data2)

        protocol, transport = harness.connectTo(self.games.splendor)
        protocol.dataReceived(splendorWire.packFrame(splendorWire.INIT, 0))
        [(apiId, _, _)] = splendorWire.FrameReader().feed(transport.value())
        self.assertEqual(apiId, splendorWire.PLAYER_OPERATION_INVALID)
        self.assertEqual(protocol.state, "NEW")

        self.games.black.move(7, 7)
        self.assertEqual(self.games.white.messages()[0]["msg_type"],
                         gomokuWire.MSG_MOVE)
        self.assertEqual(self.games.running(),
                         ["checkers", "gomoku", "splendor"])

    def checkers(self):
        return self.games.checkers

    def test_readyStartsNothing(self):
        """
        A room whose members all become ready while the hub drains does
        not start; an owner's start is refused.
        """
        harness = self.games.harness
        owner = harness.registered("dan")
        guest = harness.registered("eve")
        owner.create("r2")
        guest.join("r2")
        owner.raw()
        self.hub.drain(30)
        guest.ready()
        guest.raw()
        owner.raw()
        owner.start()
        [reply] = owner.messages()
        self.assertEqual(reply["status"], gomokuWire.S_ERROR)
        self.assertFalse(self.hub.lobby.room("gomoku", "r2").running)

    def test_stopWaitsThenAbandons(self):
        """
        A stop with C{drainSeconds} waits: a game that ends meanwhile
        ends normally; at the deadline the hub stops, the others still
        running, and leaves nothing on the clock.
        """
        stopped = self.hub.stopService()
        self.assertTrue(self.hub.draining)
        self.assertNoResult(stopped)
        self.clock.advance(10)
        self.games.finishGomoku()
        self.assertEqual(self.games.running(), ["checkers", "splendor"])
        self.clock.advance(10)
        self.assertNoResult(stopped)
        self.clock.advance(10)
        self.successResultOf(stopped)
        self.assertEqual(self.games.harness.pendingCalls(), [])

    def test_stopWhenAllEnded(self):
        """
        The stop goes on as soon as the last game under way ends, without
        waiting for the deadline.
        """
        for kind in ("checkers", "splendor"):
            [room] = [r for r in self.hub.lobby.rooms(kind) if r.running]
            # Its players leave, one by one, until the game ends.
            for member in list(room.members):
                if room.running:
                    room.table.drop(member.seat)
        self.assertEqual(self.games.running(), ["gomoku"])
        stopped = self.hub.stopService()
        self.assertNoResult(stopped)
        self.games.finishGomoku()
        self.clock.advance(0)
        self.successResultOf(stopped)
        self.assertEqual(self.games.harness.pendingCalls(), [])

    def test_endDrain(self):
        """
        L{Hub.endDrain} (a second SIGTERM) ends the wait at once: the
        stop goes on with the games still running.
        """
        stopped = self.hub.stopService()
        self.clock.advance(1)
        self.assertNoResult(stopped)
        self.hub.endDrain()
        self.successResultOf(stopped)
        self.assertEqual(self.games.harness.pendingCalls(), [])

    def test_noDrain(self):
        """
        With C{drainSeconds} 0 (the default) the hub stops at once, as it
        always did.
        """
        self.hub.drainSeconds = 0
        self.successResultOf(self.hub.stopService())
        self.assertFalse(self.hub.draining)
        self.assertEqual(self.games.harness.pendingCalls(), [])

    def test_hooks(self):
        """
        A drain runs the hooks given to C{onDrain} (what stops accepting),
        once.
        """
        called = []
        self.hub.onDrain(lambda: called.append("listener"))
        stopped = self.hub.stopService()
        self.assertEqual(called, ["listener"])
        self.clock.advance(30)
        self.successResultOf(stopped)
        self.assertEqual(called, ["listener"])


class TapDrainTests(unittest.SynchronousTestCase):
    """
    C{twistd gamehub --drain-seconds N}: what a drain stops.
    """

    def test_option(self):
        """
        --drain-seconds is 0 by default (no drain) and reaches the hub.
        """
        from twisted.internet.testing import MemoryReactorClock

        from hub import tap
        options = tap.Options()
        options.parseOptions([])
        self.assertEqual(options["drain-seconds"], 0)
        options = tap.Options()
        options.parseOptions(["--db", "none", "--drain-seconds", "45"])
        top = tap.makeService(options, MemoryReactorClock())
        self.assertEqual(top.drainSeconds, 45)

    def test_stopsGamePortsOnly(self):
        """
        A drain closes the game ports (and the LAN announcement), and
        keeps the web and metrics ports, which answer /readyz; the stop
        that follows closes them without closing the game ports again.
        """
        from twisted.internet.testing import MemoryReactorClock

        from hub import tap
        reactor = MemoryReactorClock()
        options = tap.Options()
        options.parseOptions(["--db", "none", "--announce", "no",
                              "--drain-seconds", "5",
                              "--metrics-port", "tcp:9464"])
        top = tap.makeService(options, reactor)
        top.startService()
        services = {s.name: s for s in top}
        stops = []
        for name in ("gomoku-port", "checkers-port", "splendor-port",
                     "web-port", "metrics-port"):
            services[name].port.stopListening = (
                lambda name=name: stops.append(name))
        self.successResultOf(top.drain(5))
        self.assertEqual(sorted(stops), sorted(tap.GAME_PORTS))
        for name in ("web-port", "metrics-port"):
            self.assertTrue(services[name].running, name)
        self.successResultOf(top.stopService())
        self.assertEqual(sorted(stops), sorted(
            tap.GAME_PORTS + ("web-port", "metrics-port")))
