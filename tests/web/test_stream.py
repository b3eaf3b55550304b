"""
L{hub.web.stream}: a slow browser's stream is cut once its buffer passes
the bound; the fan-out writes in slices, later in the reactor turn.
"""

from twisted.internet import defer, reactor
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase, TestCase
from twisted.web.test.requesthelper import DummyRequest

from hub.web.stream import EventStream, Fanout, sseFrame
from tests.web.support import WebHub, openRoom


class FakeTransport:
    aborted = False

    def abortConnection(self):
        self.aborted = True


class Channel:
    def __init__(self):
        self.transport = FakeTransport()


class StreamRequest(DummyRequest):
    """
    A L{DummyRequest} that keeps a push producer (L{DummyRequest} drives
    every producer as a pull producer).
    """

    producer = None
    streamingProducer = None

    def registerProducer(self, producer, streaming):
        self.producer, self.streamingProducer = producer, streaming

    def unregisterProducer(self):
        self.producer = None


def streamOf(maxBuffered=100):
    request = StreamRequest([b""])
    request.channel = Channel()
    closed = []
    stream = EventStream(request, closed.append, maxBuffered)
    stream.start()
    return request, stream, closed


class EventStreamTests(SynchronousTestCase):
    """
    One stream.
    """

    def test_frames(self):
        """
        A message is one C{event:} line and one JSON C{data:} line.
        """
        self.assertEqual(sseFrame("turn", {"seat": 1}),
                         b'event: turn\ndata: {"seat":1}\n\n')

    def test_headersAndProducer(self):
        """
        The response is an event stream, registered as a push producer.
        """
        request, stream, closed = streamOf()
        self.assertEqual(request.responseHeaders.getRawHeaders(
            b"content-type"), [b"text/event-stream; charset=utf-8"])
        self.assertIs(request.producer, stream)
        self.assertTrue(request.streamingProducer)

    def test_slowBrowserCut(self):
        """
        While the transport has paused the stream, the bytes written are
        counted; past the bound the connection is aborted and nothing
        more is written.
        """
        request, stream, closed = streamOf(maxBuffered=100)
        stream.write(b"x" * 80)
        stream.pauseProducing()
        stream.write(b"y" * 60)
        stream.write(b"z" * 30)
        self.assertFalse(stream.cut)
        stream.resumeProducing()
        stream.pauseProducing()
        stream.write(b"a" * 60)
        stream.write(b"b" * 60)
        self.assertTrue(stream.cut)
        self.assertTrue(request.channel.transport.aborted)
        self.assertEqual(closed, [stream])
        written = len(b"".join(request.written))
        stream.write(b"c" * 10)
        self.assertEqual(len(b"".join(request.written)), written)
        self.assertNotIn(b"b" * 60, request.written)

    def test_finish(self):
        """
        Finishing ends the response once.
        """
        request, stream, closed = streamOf()
        stream.finish()
        stream.finish()
        self.assertEqual(request.finished, 1)
        self.assertEqual(closed, [stream])


class Recording:
    def __init__(self):
        self.data = []
        self.finished = False

    def write(self, data):
        self.data.append(data)

    def finish(self):
        self.finished = True


class StepClock(Clock):
    """
    A clock whose C{step} runs only the calls due before it began: one
    reactor turn.
    """

    def step(self):
        due = [c for c in self.getDelayedCalls() if c.getTime() <= 0]
        for call in due:
            self.calls.remove(call)
            call.func(*call.args, **call.kw)


class FanoutTests(SynchronousTestCase):
    """
    Many streams.
    """

    def test_slices(self):
        """
        Nothing is written during C{send}; then at most C{sliceSize}
        streams per turn, each message in order.
        """
        clock = StepClock()
        fanout = Fanout(clock, sliceSize=3, minInterval=0)
        streams = [Recording() for _ in range(5)]
        for stream in streams:
            fanout.add(stream)
        fanout.send(b"1")
        fanout.send(b"2")
        self.assertEqual([s.data for s in streams], [[]] * 5)
        clock.step()
        self.assertEqual(sum(len(s.data) for s in streams), 3)
        clock.step()
        self.assertEqual([s.data for s in streams], [[b"12"]] * 5)
        self.assertFalse(clock.getDelayedCalls())

    def test_joined(self):
        """
        The first message goes at once; what comes within C{minInterval}
        of a write is joined into the next one, at the end of the
        interval.
        """
        clock = Clock()
        fanout = Fanout(clock, minInterval=1)
        stream = Recording()
        fanout.add(stream)
        fanout.send(b"a")
        clock.advance(0)
        self.assertEqual(stream.data, [b"a"])
        clock.advance(0.5)
        fanout.send(b"b")
        fanout.send(b"c")
        clock.advance(0.4)
        self.assertEqual(stream.data, [b"a"])
        clock.advance(0.1)
        self.assertEqual(stream.data, [b"a", b"bc"])
        clock.advance(5)
        fanout.send(b"d")
        clock.advance(0)
        self.assertEqual(stream.data, [b"a", b"bc", b"d"])

    def test_finishAndStop(self):
        """
        C{finish} ends every stream after what is queued; C{stop} drops
        what is queued.
        """
        clock = Clock()
        fanout = Fanout(clock)
        stream = Recording()
        fanout.add(stream)
        fanout.send(b"1")
        fanout.finish()
        fanout.flush()
        self.assertEqual((stream.data, stream.finished), ([b"1"], True))
        fanout.send(b"2")
        fanout.stop()
        self.assertFalse(clock.getDelayedCalls())
        fanout.send(b"3")
        self.assertEqual(stream.data, [b"1"])

    def test_pending(self):
        """
        A source that holds its messages back calls C{wake}: what
        C{pending} returns goes out at the next write, behind what was
        queued, joined within C{minInterval} like any message; C{flush}
        and C{finish} take it first.
        """
        clock = Clock()
        held = []

        def pending():
            data = b"".join(held) or None
            del held[:]
            return data
        fanout = Fanout(clock, minInterval=1, pending=pending)
        stream = Recording()
        fanout.add(stream)
        fanout.send(b"a")
        held.append(b"b")
        fanout.wake()
        clock.advance(0)
        self.assertEqual(stream.data, [b"ab"])
        held.append(b"c")
        fanout.wake()
        held.append(b"d")
        fanout.wake()
        clock.advance(0.5)
        self.assertEqual(stream.data, [b"ab"])
        clock.advance(0.5)
        self.assertEqual(stream.data, [b"ab", b"cd"])
        held.append(b"e")
        fanout.flush()
        self.assertEqual(stream.data, [b"ab", b"cd", b"e"])
        held.append(b"f")
        fanout.finish()
        fanout.flush()
        self.assertEqual((stream.data, stream.finished),
                         ([b"ab", b"cd", b"e", b"f"], True))
        self.assertFalse(clock.getDelayedCalls())

    def test_wakeWithoutStreams(self):
        """
        With nobody listening, or once stopped, C{wake} schedules
        nothing.
        """
        clock = Clock()
        fanout = Fanout(clock, pending=lambda: b"x")
        fanout.wake()
        self.assertFalse(clock.getDelayedCalls())
        fanout.add(Recording())
        fanout.stop()
        fanout.wake()
        self.assertFalse(clock.getDelayedCalls())


class SlowSpectatorTests(TestCase):
    """
    Over loopback: a spectator that stops reading is cut, the others and
    the game go on.
    """

    @defer.inlineCallbacks
    def test_stalledBrowser(self):
        web = WebHub(self)
        room, _ = openRoom(web.hub, "gomoku", "room", ["ann", "bob"])
        web.hub.lobby.start(room)
        game = web.web.spectating.gameOf(room.table)
        path = "/api/games/%s/events" % (game.id,)
        stalled = yield web.stream(path, self)
        yield stalled.waitFor("snapshot")
        stalled.transport.pauseProducing()
        reader = yield web.stream(path, self)
        yield reader.waitFor("snapshot")
        [slow] = [s for s in game.fanout.streams
                  if s.request.channel.transport.getPeer().port ==
                  stalled.transport.getHost().port]
        big = sseFrame("view", {"pad": "x" * 65536})
        sent = 0
        while not slow.cut and sent < 1000:
            game.fanout.send(big)
            game.fanout.flush()
            sent += 1
            # No sleeping: the reactor runs until the reader has the frame
            # (the stalled browser never will).
            yield reader.waitFor("view", sent)
        self.assertTrue(slow.cut)
        self.assertNotIn(slow, game.fanout.streams)
        room.table.act(0, (7, 7))
        action = yield reader.waitFor("action")
        self.assertEqual(action["move"]["text"], "h8")


class DirectSendTests(TestCase):
    """
    Over loopback, a stream sends its frames straight to the socket, in
    chunks for HTTP/1.1.
    """

    @defer.inlineCallbacks
    def test_chunked(self):
        """
        An HTTP/1.1 client (L{Agent}, which decodes the chunks) reads the
        snapshot, then every frame the fan-out sends, whole and in order,
        then the end of the response.
        """
        from twisted.internet.protocol import Protocol
        web = WebHub(self)
        room, _ = openRoom(web.hub, "gomoku", "room", ["ann", "bob"])
        web.hub.lobby.start(room)
        game = web.web.spectating.gameOf(room.table)
        response = yield web.agent.request(
            b"GET", web.url("/api/games/%s/events" % (game.id,)).encode())
        received, done = [], defer.Deferred()
        snapshot = defer.Deferred()

        class Body(Protocol):
            def dataReceived(self, data):
                received.append(data)
                if (not snapshot.called
                        and b"event: snapshot" in b"".join(received)):
                    snapshot.callback(None)

            def connectionLost(self, reason):
                done.callback(None)
        response.deliverBody(Body())
        yield snapshot.addTimeout(10, reactor)
        [stream] = game.fanout.streams
        self.assertTrue(stream._chunked)
        self.assertIsNotNone(stream._writer.socket)
        frames = [sseFrame("view", {"n": n, "pad": "x" * (n * 1000)})
                  for n in range(20)]
        for frame in frames:
            game.fanout.send(frame)
            game.fanout.flush()
        game.fanout.finish()
        game.fanout.flush()
        yield done.addTimeout(10, reactor)
        body = b"".join(received)
        self.assertTrue(body.endswith(b"".join(frames)))
