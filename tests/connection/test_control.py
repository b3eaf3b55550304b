"""
L{hub.connection.control.TransportControl}: one owner for a transport's
reading and its producer slot.
"""

import gc
import weakref

from twisted.internet.testing import StringTransport
from twisted.trial.unittest import SynchronousTestCase

from hub.connection.control import (
    RATE, RELAY, ROUTING, TransportControl)


class Producer:
    def __init__(self):
        self.calls = []

    def resumeProducing(self):
        self.calls.append("resume")

    def pauseProducing(self):
        self.calls.append("pause")

    def stopProducing(self):
        self.calls.append("stop")


class ReadingTests(SynchronousTestCase):
    """
    Reading is paused while any reason holds it.
    """

    def test_oneControlPerTransport(self):
        """
        Every party asking for a transport's control gets the same one.
        """
        transport = StringTransport()
        self.assertIs(TransportControl.of(transport),
                      TransportControl.of(transport))
        self.assertIsNot(TransportControl.of(transport),
                         TransportControl.of(StringTransport()))

    def test_transportNotKeptAlive(self):
        """
        A transport gone is not kept alive by its control.
        """
        transport = StringTransport()
        TransportControl.of(transport).pauseReading(RATE)
        gone = weakref.ref(transport)
        del transport
        gc.collect()
        self.assertIsNone(gone())

    def test_reasonsDoNotUndoEachOther(self):
        """
        The rate limit resuming does not resume a connection the cluster
        still routes, and the other way round.
        """
        transport = StringTransport()
        control = TransportControl.of(transport)
        control.pauseReading(ROUTING)
        control.pauseReading(RATE)
        self.assertEqual(transport.producerState, "paused")
        control.resumeReading(RATE)
        self.assertEqual(transport.producerState, "paused")
        self.assertTrue(control.readingPaused(ROUTING))
        self.assertFalse(control.readingPaused(RATE))
        control.resumeReading(ROUTING)
        self.assertEqual(transport.producerState, "producing")
        self.assertEqual(control.pauses, {ROUTING: 1, RATE: 1})

    def test_repeatedAndUnbalanced(self):
        """
        Pausing twice for one reason is one pause; resuming a reason that
        holds nothing does nothing.
        """
        transport = StringTransport()
        control = TransportControl.of(transport)
        control.resumeReading(RATE)
        self.assertEqual(transport.producerState, "producing")
        control.pauseReading(RATE)
        control.pauseReading(RATE)
        control.resumeReading(RATE)
        self.assertEqual(transport.producerState, "producing")

    def test_notResumedWhileDisconnecting(self):
        """
        A closing transport is not asked to read again.
        """
        transport = StringTransport()
        control = TransportControl.of(transport)
        control.pauseReading(RATE)
        transport.loseConnection()
        control.resumeReading(RATE)
        self.assertEqual(transport.producerState, "paused")

    def test_readingProducer(self):
        """
        The reading producer, registered on another transport, pauses and
        resumes this one's reading for its reason.
        """
        transport = StringTransport()
        control = TransportControl.of(transport)
        producer = control.readingProducer(RELAY)
        producer.pauseProducing()
        self.assertTrue(control.readingPaused(RELAY))
        self.assertEqual(transport.producerState, "paused")
        producer.resumeProducing()
        self.assertEqual(transport.producerState, "producing")
        producer.stopProducing()
        self.assertEqual(transport.producerState, "stopped")


class SlotTests(SynchronousTestCase):
    """
    The producer slot has one owner at a time.
    """

    def test_registerAndUnregister(self):
        transport = StringTransport()
        control = TransportControl.of(transport)
        writer = Producer()
        control.registerProducer(writer, False)
        self.assertIs(transport.producer, writer)
        self.assertFalse(transport.streaming)
        control.unregisterProducer(writer)
        self.assertIsNone(transport.producer)

    def test_takenOver(self):
        """
        A relay taking the slot from the writer that holds it does not
        collide (Twisted refuses a second producer); the writer leaving
        later does not unregister the relay.
        """
        transport = StringTransport()
        control = TransportControl.of(transport)
        writer, relay = Producer(), Producer()
        control.registerProducer(writer, False)
        control.registerProducer(relay, True)
        self.assertIs(transport.producer, relay)
        control.unregisterProducer(writer)
        self.assertIs(transport.producer, relay)
        self.assertEqual(writer.calls, [])
