"""
A closed connection that held part of a frame is freed at once, by
reference counting alone: its frame buffer is dropped and no reference
cycle keeps its protocol (or what the protocol holds) for the cyclic
garbage collector.  Each test closes L{CLOSES} connections with the
collector off, as a flood of half-sent frames would.
"""

import gc
import tracemalloc
import weakref

import attr

from twisted.internet.error import ConnectionDone
from twisted.python.failure import Failure
from twisted.trial.unittest import SynchronousTestCase

from hub.protocols.checkers import CheckersFactory
from hub.protocols.gomoku import GomokuFactory
from hub.protocols.splendor import SplendorFactory
from hub.tap import Options
from hub.wire import checkers as checkersWire
from hub.wire import gomoku as gomokuWire
from hub.wire import splendor as splendorWire
from tests.harness import ServerHarness
from tests.lobby.test_limits import imposeLimits

#: Connections closed per test.
CLOSES = 2000

#: Bytes of memory the closes may leave allocated in all (each held a
#: frame of tens of kilobytes: kept, they would be over 50 MB).
MAX_KEPT_BYTES = 4 * 1024 * 1024


def withoutCollector(testCase):
    """
    Turn the cyclic garbage collector off for the rest of C{testCase},
    after one collection of what came before.
    """
    gc.collect()
    wasEnabled = gc.isenabled()
    gc.disable()
    if wasEnabled:
        testCase.addCleanup(gc.enable)


class ClosesMixin:
    """
    Opens and closes connections of one protocol, each sending a large
    unfinished frame first, with the collector off.
    """

    factoryClass = None

    def setUp(self):
        self.harness = ServerHarness(self.factoryClass)
        # The limits of twistd gamehub (timers for the frame, the idle
        # and the request rate, the writer's overflow hook).
        imposeLimits(self.harness.sessions,
                     **attr.asdict(Options().limits()))
        self.addCleanup(self.harness.stop)

    def partialFrame(self):
        """
        The bytes of a large frame begun but not finished.
        """
        raise NotImplementedError()

    def prepare(self, protocol, index):
        """
        Bring the new connection C{protocol} to a state (logged in, in a
        room...) before it sends its unfinished frame.
        """

    def closeMany(self, cut):
        """
        Open and close L{CLOSES} connections, each sending a large
        unfinished frame first, with the collector off; closed by the
        peer, or (with C{cut}) by the hub once the frame was unfinished
        for C{frameSeconds} (the hub's timer has run).  Check that every
        protocol is gone, that its frame buffer was emptied when the
        connection closed, and that the memory the frames took is back.
        """
        partial = self.partialFrame()
        frameSeconds = self.harness.sessions.limits.frameSeconds
        refs = []
        withoutCollector(self)
        tracemalloc.start()
        self.addCleanup(tracemalloc.stop)
        before = tracemalloc.get_traced_memory()[0]
        for index in range(CLOSES):
            protocol, transport = self.harness.connect()
            self.prepare(protocol, index)
            protocol.dataReceived(partial)
            self.assertGreater(protocol.partialFrameBytes(),
                               len(partial) // 2)
            self.assertFalse(transport.disconnecting)
            if cut:
                self.harness.clock.advance(frameSeconds)
                self.assertTrue(transport.disconnecting)
            else:
                transport.loseConnection()
            protocol.connectionLost(Failure(ConnectionDone()))
            self.assertEqual(protocol.partialFrameBytes(), 0)
            refs.append(weakref.ref(protocol))
            del protocol, transport
        kept = tracemalloc.get_traced_memory()[0] - before
        alive = sum(1 for ref in refs if ref() is not None)
        self.assertEqual(alive, 0)
        self.assertLess(kept, MAX_KEPT_BYTES)
        self.assertEqual(self.harness.sessions.gate.connections, 0)

    def test_closedByPeer(self):
        """
        L{CLOSES} connections that sent a large unfinished frame and
        closed are freed without the cyclic collector.
        """
        self.closeMany(cut=False)

    def test_cutByHub(self):
        """
        L{CLOSES} connections that sent a large unfinished frame and were
        cut for it by the hub's frame timer are freed without the cyclic
        collector (the timer that ran keeps nothing of them).
        """
        self.closeMany(cut=True)


class GomokuFreedTests(ClosesMixin, SynchronousTestCase):
    """
    Gomoku connections: new, registered, and owning a room.
    """

    factoryClass = GomokuFactory

    def partialFrame(self):
        return b'<{"msg_type":0,"name":"' + b"x" * 60000

    def prepare(self, protocol, index):
        state = index % 3
        if state == 0:
            return
        protocol.dataReceived(gomokuWire.encodeMessage(
            gomokuWire.regMessage("p%d" % (index,), 1,
                                  gomokuWire.INVALID_TOKEN)))
        if state == 2:
            protocol.dataReceived(gomokuWire.encodeMessage(
                gomokuWire.roomOpMessage(gomokuWire.RO_ROOM_CREATE,
                                         "r%d" % (index,), "", 2,
                                         gomokuWire.CHESS_WHITE)))
            self.assertEqual(len(self.harness.lobby.rooms("gomoku")), 1)


class CheckersFreedTests(ClosesMixin, SynchronousTestCase):
    """
    Checkers connections: new, and in a room.
    """

    factoryClass = CheckersFactory

    def partialFrame(self):
        return b"x" * (checkersWire.MAX_LINE_LENGTH - 100)

    def prepare(self, protocol, index):
        if index % 2:
            protocol.dataReceived(checkersWire.encode(
                checkersWire.JOIN_ROOM_OP, "r%d" % (index,),
                "p%d" % (index,)))
            self.assertEqual(len(self.harness.lobby.rooms("checkers")), 1)


class SplendorFreedTests(ClosesMixin, SynchronousTestCase):
    """
    Splendor connections: new, and seated at a table.
    """

    factoryClass = SplendorFactory

    def partialFrame(self):
        length = splendorWire.MAX_FRAME_LENGTH - 100
        return splendorWire.HEADER.pack(
            splendorWire.PLAYER_READY, 0, length, 0) + b"x" * (length // 2)

    def prepare(self, protocol, index):
        if index % 2:
            protocol.dataReceived(splendorWire.packClientFrame(
                splendorWire.INIT, 0))
            self.assertIsNotNone(
                self.harness.lobby.roomOf(protocol.session))


class LostMidGameTests(SynchronousTestCase):
    """
    A gomoku player lost mid-game keeps a session for its grace, but not
    the connection.
    """

    def test_lostConnectionFreed(self):
        """
        A player who drops mid-game, holding part of a frame, leaves a
        session waiting for a reconnection, and a protocol freed at once
        with the collector off; once the grace is over the opponent's
        connection, dropped too, is freed as well.
        """
        from tests.gomoku.support import GomokuHarness
        harness = GomokuHarness()
        self.addCleanup(harness.stop)
        black, white, owner, guest = harness.playing()
        withoutCollector(self)
        white.sendBytes(b'<{"msg_type":5,"x":' + b" " * 60000)
        self.assertGreater(white.protocol.partialFrameBytes(), 60000)
        white.transport.loseConnection()
        white.drop()
        session = white.protocol.session
        self.assertTrue(session.lost)
        whiteRef = weakref.ref(white.protocol)
        del white.protocol, white
        self.assertIsNone(whiteRef())
        harness.clock.advance(30)
        self.assertTrue(session.closed)
        black.transport.loseConnection()
        black.drop()
        blackRef = weakref.ref(black.protocol)
        del black.protocol, black, owner, guest
        self.assertIsNone(blackRef())
