"""
Tests for L{hub.limits} and the limits every server connection is held
to (L{hub.connection.ServerConnection}): the send buffer bound, the time a
frame may stay half-received, the connection caps and the request rate,
on each of the three protocols.
"""

from twisted.internet import defer, reactor
from twisted.internet.address import IPv4Address
from twisted.internet.endpoints import TCP4ClientEndpoint, connectProtocol
from twisted.internet.error import ConnectionAborted
from twisted.internet.protocol import Protocol
from twisted.internet.task import Clock
from twisted.logger import Logger
from twisted.python.failure import Failure
from twisted.trial.unittest import SynchronousTestCase, TestCase

from hub import limits
from hub.clock import TrackedClock
from hub.limits import ConnectionGate, Limits, RequestBucket, SummaryLog
from hub.connection import ServerConnection, ServerFactory
from hub.connection.immediate import unsentBytes
from hub.protocols.checkers import CheckersFactory
from hub.protocols.gomoku import GomokuFactory
from hub.protocols.splendor import SplendorFactory
from hub.sessions import Sessions
from hub.wire import gomoku as gomokuWire
from hub.wire import splendor as splendorWire
from tests.harness import RecordingTransport, ServerHarness


def imposeLimits(sessions, **values):
    """
    Hold the connections made from now on through C{sessions} to the
    L{Limits} of C{values}.
    """
    sessions.limits = Limits(**values)
    sessions.gate = ConnectionGate(sessions.limits, sessions.clock)


def limited(limit):
    """
    How many connections C{limit} closed or refused so far.
    """
    return limits.LIMITED_CONNECTIONS.labels(limit)._value.get()


class EventLog:
    """
    A L{Logger} whose events are kept, formatted.
    """

    def __init__(self):
        self.events = []
        self.log = Logger(observer=self.events.append)

    def lines(self):
        from twisted.logger import formatEvent
        return [formatEvent(e) for e in self.events]


class RequestBucketTests(SynchronousTestCase):
    """
    L{RequestBucket} is a token bucket over frames.
    """

    def test_burstThenRate(self):
        """
        A full bucket takes C{requestBurst} frames; then it is in debt,
        and out of it after the debt over the rate.
        """
        clock = Clock()
        bucket = RequestBucket(Limits(requestRate=10, requestBurst=5,
                                      requestOverdraft=3), clock)
        for _ in range(5):
            self.assertFalse(bucket.take())
        self.assertEqual(bucket.wait(), 0)
        self.assertFalse(bucket.take())
        self.assertFalse(bucket.take())
        self.assertAlmostEqual(bucket.wait(), 0.2)
        clock.advance(0.2)
        self.assertEqual(bucket.wait(), 0)

    def test_overdraft(self):
        """
        C{take} says so once the debt passes C{requestOverdraft}.
        """
        bucket = RequestBucket(Limits(requestRate=10, requestBurst=2,
                                      requestOverdraft=3), Clock())
        self.assertEqual([bucket.take() for _ in range(6)],
                         [False] * 5 + [True])

    def test_noRate(self):
        """
        A rate of 0 is no limit.
        """
        bucket = RequestBucket(Limits(), Clock())
        self.assertFalse(any(bucket.take() for _ in range(10000)))
        self.assertEqual(bucket.wait(), 0)


class ConnectionGateTests(SynchronousTestCase):
    """
    L{ConnectionGate} counts connections in all and per address.
    """

    def test_caps(self):
        """
        Past either cap a connection is refused, with the name of the
        limit; a released place can be taken again.
        """
        gate = ConnectionGate(Limits(maxConnections=3,
                                     maxConnectionsPerIP=2), Clock())
        self.assertIsNone(gate.admit("10.0.0.1"))
        self.assertIsNone(gate.admit("10.0.0.1"))
        self.assertEqual(gate.admit("10.0.0.1"), limits.MAX_CONNECTIONS_PER_IP)
        self.assertIsNone(gate.admit("10.0.0.2"))
        self.assertEqual(gate.admit("10.0.0.3"), limits.MAX_CONNECTIONS)
        gate.release("10.0.0.1")
        self.assertEqual(gate.connections, 2)
        self.assertIsNone(gate.admit("10.0.0.1"))

    def test_noLimits(self):
        """
        L{Limits}C{()} refuses nothing; addresses of None are counted in
        all only.
        """
        gate = ConnectionGate(Limits(), Clock())
        for _ in range(1000):
            self.assertIsNone(gate.admit("10.0.0.1"))
        self.assertIsNone(gate.admit(None))
        self.assertEqual(gate.connections, 1001)


class FakePort:
    """
    A listening port that only says whether it is reading.
    """

    connected = True
    disconnecting = False

    def __init__(self):
        self.reading = True

    def stopReading(self):
        self.reading = False

    def startReading(self):
        self.reading = True


class AcceptPauseTests(SynchronousTestCase):
    """
    L{limits.AcceptPause} stops a factory's ports from accepting under a
    flood of refused connections.
    """

    def test_pause(self):
        """
        C{threshold} refusals within C{seconds} stop the ports for
        C{seconds}; fewer do not.
        """
        clock = Clock()
        pause = limits.AcceptPause(clock, threshold=3, seconds=0.25)
        ports = pause.ports[:] = [FakePort(), FakePort()]
        before = limits.ACCEPT_PAUSES._value.get()
        pause.refused()
        pause.refused()
        clock.advance(0.3)
        pause.refused()
        pause.refused()
        self.assertEqual([p.reading for p in ports], [True, True])
        pause.refused()
        self.assertEqual([p.reading for p in ports], [False, False])
        self.assertTrue(pause.paused)
        self.assertEqual(limits.ACCEPT_PAUSES._value.get(), before + 1)
        clock.advance(0.24)
        self.assertFalse(ports[0].reading)
        clock.advance(0.01)
        self.assertEqual([p.reading for p in ports], [True, True])
        self.assertFalse(pause.paused)

    def test_closedPort(self):
        """
        A port that stopped listening during a pause is not read again.
        """
        clock = Clock()
        pause = limits.AcceptPause(clock, threshold=1, seconds=0.25)
        port = FakePort()
        pause.ports.append(port)
        pause.refused()
        port.connected = False
        clock.advance(1)
        self.assertFalse(port.reading)
        self.assertEqual(clock.getDelayedCalls(), [])

    def test_noThreshold(self):
        """
        A threshold of 0 never pauses.
        """
        pause = limits.AcceptPause(Clock(), threshold=0)
        port = FakePort()
        pause.ports.append(port)
        for _ in range(1000):
            pause.refused()
        self.assertTrue(port.reading)


class SummaryLogTests(SynchronousTestCase):
    """
    L{SummaryLog} writes one line per kind and interval.
    """

    def test_summarised(self):
        """
        The first line is written; the rest of the interval is one line
        counting them; a quiet interval ends the summary.
        """
        clock, events = Clock(), EventLog()
        summary = SummaryLog(clock, events.log, interval=10)
        for n in range(1000):
            summary.note("connections refused", "refused {n}", n=n)
        summary.note("cut", "cut")
        self.assertEqual(events.lines(), ["refused 0", "cut"])
        clock.advance(10)
        self.assertEqual(events.lines()[2:],
                         ["999 more connections refused in the last 10s"])
        clock.advance(10)
        self.assertEqual(len(events.lines()), 3)
        self.assertEqual(clock.getDelayedCalls(), [])
        summary.note("connections refused", "refused {n}", n="again")
        self.assertEqual(events.lines()[3:], ["refused again"])

    def test_burst(self):
        """
        With a burst of 3, three lines an interval are written and the
        rest counted; a field may be called C{kind}.
        """
        clock, events = Clock(), EventLog()
        summary = SummaryLog(clock, events.log, interval=10, burst=3)
        for n in range(50):
            summary.note("joins", "{kind} x", kind=n)
            clock.advance(0.1)
        self.assertEqual(events.lines(), ["0 x", "1 x", "2 x"])
        clock.advance(5.5)
        self.assertEqual(events.lines()[3:],
                         ["47 more joins in the last 10s"])
        summary.note("joins", "again")
        self.assertEqual(events.lines()[4:], ["again"])
        self.assertEqual(clock.getDelayedCalls(), [])

    def test_flush(self):
        """
        L{SummaryLog.flush} writes the summaries under way at once.
        """
        clock, events = Clock(), EventLog()
        summary = SummaryLog(clock, events.log, interval=10)
        for n in range(5):
            summary.note("joins", "join")
        summary.flush()
        self.assertEqual(events.lines(),
                         ["join", "4 more joins in the last 10s"])
        self.assertEqual(clock.getDelayedCalls(), [])


# The three protocols: a harmless whole frame and the start of one.

PROTOCOLS = {
    "gomoku": (GomokuFactory, gomokuWire.encodeMessage(
        gomokuWire.regMessage("x", 1)), b'<{"msg_type":3,"name":'),
    "checkers": (CheckersFactory, b"\n", b"200000 r1"),
    "splendor": (SplendorFactory, splendorWire.packClientFrame(
        splendorWire.PLAYER_READY, 0), splendorWire.packClientFrame(
            splendorWire.INIT, 0, {"x": "y" * 100})[:40]),
}


class LimitsTestsMixin:
    """
    The limits on one protocol (C{kind}), on in-memory transports over a
    L{Clock}.
    """

    kind = None

    def setUp(self):
        factoryClass, self.frame, self.partial = PROTOCOLS[self.kind]
        self.harness = ServerHarness(factoryClass)
        self.addCleanup(self.harness.stop)

    def connect(self, **values):
        imposeLimits(self.harness.sessions, **values)
        return self.harness.connect()

    def test_parkedHalfFrame(self):
        """
        A connection that starts a frame and sends no more is closed
        C{frameSeconds} later, and counted.
        """
        before = limited(limits.FRAME_SECONDS)
        protocol, transport = self.connect(frameSeconds=20)
        protocol.dataReceived(self.partial)
        self.assertTrue(protocol.framePending())
        self.harness.clock.advance(19.9)
        self.assertFalse(transport.disconnecting)
        self.harness.clock.advance(0.1)
        self.assertTrue(transport.disconnecting)
        self.assertTrue(protocol.writer.closed)
        self.assertEqual(limited(limits.FRAME_SECONDS), before + 1)

    def test_drippedHalfFrame(self):
        """
        Dripping a frame a byte at a time does not keep it alive: the
        connection is closed C{frameSeconds} after the frame began.
        """
        protocol, transport = self.connect(frameSeconds=20)
        protocol.dataReceived(self.frame)
        self.harness.clock.advance(5)
        for i in range(30):
            protocol.dataReceived(self.partial[i % len(self.partial):][:1])
            self.harness.clock.advance(1)
            if transport.disconnecting:
                break
        self.assertTrue(transport.disconnecting)
        self.assertEqual(self.harness.clock.seconds(), 25)

    def test_wholeFrames(self):
        """
        Whole frames, however slow, and silence after them are fine.
        """
        protocol, transport = self.connect(frameSeconds=20)
        for _ in range(5):
            protocol.dataReceived(self.frame)
            self.harness.clock.advance(15)
        self.harness.clock.advance(100)
        self.assertFalse(protocol.framePending())
        self.assertFalse(transport.disconnecting)

    def test_slowed(self):
        """
        Past its burst a connection stops being read until its tokens are
        back, then is read again.
        """
        before = limits.THROTTLED_CONNECTIONS._value.get()
        protocol, transport = self.connect(
            requestRate=10, requestBurst=20, requestOverdraft=50)
        protocol.dataReceived(self.frame * 20)
        self.assertEqual(transport.producerState, "producing")
        protocol.dataReceived(self.frame * 5)
        self.assertEqual(transport.producerState, "paused")
        self.assertEqual(limits.THROTTLED_CONNECTIONS._value.get(),
                         before + 1)
        self.harness.clock.advance(0.49)
        self.assertEqual(transport.producerState, "paused")
        self.harness.clock.advance(0.01)
        self.assertEqual(transport.producerState, "producing")
        self.assertFalse(transport.disconnecting)

    def test_flooderCut(self):
        """
        A connection past its overdraft is closed, and the frames after
        the one that crossed it are not handled.
        """
        before = limited(limits.REQUEST_RATE)
        protocol, transport = self.connect(
            requestRate=10, requestBurst=20, requestOverdraft=50)
        handled = []
        original = protocol.countRequest

        def countRequest():
            handled.append(1)
            original()
        protocol.countRequest = countRequest
        protocol.dataReceived(self.frame * 1000)
        self.assertTrue(transport.disconnecting)
        self.assertEqual(len(handled), 71)
        self.assertEqual(limited(limits.REQUEST_RATE), before + 1)

    def test_reconnectingFlooder(self):
        """
        Connecting again does not buy a flooder a new burst: until its
        debt is back within the overdraft, a new connection from its
        address is closed before anything is read; then it gets what the
        rate gave back.  Other addresses, and the
        same one once the debt is paid, start with a full bucket.
        """
        imposeLimits(self.harness.sessions, requestRate=10,
                     requestBurst=20, requestOverdraft=50)

        def flood(host):
            transport = RecordingTransport(
                peerAddress=IPv4Address("TCP", host, 5000))
            protocol, _ = self.harness.connect(transport)
            handled = []
            original = protocol.countRequest

            def countRequest():
                if not transport.disconnecting:
                    handled.append(1)
                original()
            protocol.countRequest = countRequest
            protocol.dataReceived(self.frame * 100)
            protocol.connectionLost(Failure(ConnectionAborted()))
            return len(handled)
        before = limited(limits.REQUEST_RATE)
        self.assertEqual(flood("10.0.0.1"), 71)
        self.assertEqual(flood("10.0.0.1"), 0)
        self.assertEqual(limited(limits.REQUEST_RATE), before + 2)
        # A second later, what the rate gave back: 10 frames, the last of
        # which crosses the overdraft again.
        self.harness.clock.advance(1)
        self.assertEqual(flood("10.0.0.1"), 10)
        self.assertEqual(flood("10.0.0.2"), 71)
        self.harness.clock.advance(5.2)
        self.assertEqual(flood("10.0.0.1"), 71)

    def test_refusedWithoutProtocol(self):
        """
        While its debt is past the overdraft, a new connection from a
        flooder's address gets no protocol from the factory (Twisted
        closes it at once), and is counted; other addresses, and the same
        one once its debt is paid, get one.  A flood of such refusals
        pauses the factory's listening ports.
        """
        imposeLimits(self.harness.sessions, requestRate=10,
                     requestBurst=20, requestOverdraft=50)
        factory = self.harness.factory
        port = FakePort()
        factory.listeningOn(port)
        address = IPv4Address("TCP", "10.0.0.1", 5000)
        protocol = factory.buildProtocol(address)
        protocol.makeConnection(RecordingTransport(peerAddress=address))
        protocol.dataReceived(self.frame * 100)
        protocol.connectionLost(Failure(ConnectionAborted()))
        before = limited(limits.REQUEST_RATE)
        self.assertIsNone(factory.buildProtocol(address))
        self.assertEqual(limited(limits.REQUEST_RATE), before + 1)
        self.assertIsNotNone(factory.buildProtocol(
            IPv4Address("TCP", "10.0.0.2", 5000)))
        for _ in range(limits.REFUSALS_BEFORE_PAUSE - 1):
            self.assertIsNone(factory.buildProtocol(address))
        self.assertFalse(port.reading)
        self.harness.clock.advance(limits.ACCEPT_PAUSE)
        self.assertTrue(port.reading)
        self.harness.clock.advance(6)
        self.assertIsNotNone(factory.buildProtocol(address))

    def test_sendBufferBound(self):
        """
        A connection owed more than C{maxSendBuffer} bytes is closed at
        once, and nothing more is written to it.
        """
        before = limited(limits.SEND_BUFFER)
        transport = RecordingTransport()
        transport.unsentBytes = lambda: len(transport.value())
        imposeLimits(self.harness.sessions, maxSendBuffer=100)
        protocol, _ = self.harness.connect(transport)
        protocol.writer.write(b"x" * 100)
        self.assertFalse(transport.disconnecting)
        protocol.writer.write(b"y")
        self.assertTrue(transport.disconnecting)
        self.assertTrue(transport.disconnected)
        protocol.writer.write(b"z" * 1000)
        self.assertEqual(transport.value(), b"x" * 100 + b"y")
        self.assertEqual(limited(limits.SEND_BUFFER), before + 1)

    def test_connectionCaps(self):
        """
        Above C{maxConnections} a connection is closed as it is made, with
        nothing written; a connection that ends frees its place.
        """
        imposeLimits(self.harness.sessions, maxConnections=2)
        first, _ = self.harness.connect()
        self.harness.connect()
        before = limited(limits.MAX_CONNECTIONS)
        third, transport = self.harness.connect()
        self.assertTrue(transport.disconnecting)
        self.assertTrue(third.writer.closed)
        self.assertEqual(limited(limits.MAX_CONNECTIONS), before + 1)
        third.connectionLost(Failure(ConnectionAborted()))
        first.connectionLost(Failure(ConnectionAborted()))
        _, transport = self.harness.connect()
        self.assertFalse(transport.disconnecting)
        self.assertEqual(self.harness.sessions.gate.connections, 2)

    def test_perAddressCap(self):
        """
        Above C{maxConnectionsPerIP} from one address, a connection is
        closed as it is made; other addresses are still served.
        """
        imposeLimits(self.harness.sessions, maxConnectionsPerIP=1)

        def connectFrom(host):
            transport = RecordingTransport(
                peerAddress=IPv4Address("TCP", host, 5000))
            return self.harness.connect(transport)[1]
        self.assertFalse(connectFrom("10.0.0.1").disconnecting)
        self.assertTrue(connectFrom("10.0.0.1").disconnecting)
        self.assertFalse(connectFrom("10.0.0.2").disconnecting)

    def test_refusalsSummarised(self):
        """
        A burst of refused connections is logged as one line, then one
        summary line.
        """
        imposeLimits(self.harness.sessions, maxConnections=1)
        events = EventLog()
        self.harness.sessions.gate.summary.log = events.log
        for _ in range(101):
            self.harness.connect()
        self.harness.clock.advance(limits.LOG_INTERVAL)
        lines = events.lines()
        self.assertEqual(len(lines), 2)
        self.assertIn("too many connections (--max-connections)", lines[0])
        self.assertEqual(lines[1], "99 more connections closed by "
                         "--max-connections in the last 10s")


class GomokuLimitsTests(LimitsTestsMixin, SynchronousTestCase):
    kind = "gomoku"


class CheckersLimitsTests(LimitsTestsMixin, SynchronousTestCase):
    kind = "checkers"


class SplendorLimitsTests(LimitsTestsMixin, SynchronousTestCase):
    kind = "splendor"


class Sender(Protocol, ServerConnection):
    """
    A bare server connection on which the test writes.
    """

    def connectionMade(self):
        self.startConnection()
        self.lost = defer.Deferred()
        self.factory.accepted.callback(self)

    def connectionLost(self, reason):
        self.endConnection()
        self.reason = reason
        self.lost.callback(None)


class NonReadingClientTests(TestCase):
    """
    Over a real loopback connection, a client that never reads is cut once
    the hub holds C{maxSendBuffer} bytes for it.
    """

    @defer.inlineCallbacks
    def test_cut(self):
        bound = 64 * 1024
        factory = ServerFactory.forProtocol(Sender)
        clock = TrackedClock(reactor)
        self.addCleanup(clock.cancelAll)
        factory.sessions = Sessions(clock, limits=Limits(
            maxSendBuffer=bound))
        factory.accepted = defer.Deferred()
        port = reactor.listenTCP(0, factory, interface="127.0.0.1")
        self.addCleanup(port.stopListening)
        client = Protocol()
        yield connectProtocol(TCP4ClientEndpoint(
            reactor, "127.0.0.1", port.getHost().port), client)
        self.addCleanup(client.transport.abortConnection)
        client.transport.pauseProducing()
        server = yield factory.accepted
        before = limited(limits.SEND_BUFFER)
        chunk = b"x" * 65536
        # The kernel's buffers take some megabytes first; 8,192 chunks
        # (512 MB) bound the loop.
        for _ in range(8192):
            server.writer.write(chunk)
            if server.writer.closed:
                break
        self.assertTrue(server.writer.closed)
        self.assertEqual(unsentBytes(server.transport), 0)
        yield server.lost
        self.assertTrue(server.reason.check(ConnectionAborted))
        self.assertEqual(limited(limits.SEND_BUFFER), before + 1)
        self.assertEqual(factory.sessions.gate.connections, 0)
