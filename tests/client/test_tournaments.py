"""
Tests for L{hub.client.tournaments}: the poll for a person's next game.
"""

from twisted.internet import defer
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from hub.client.tournaments import POLL_SECONDS, NextGamePoller
from hub.client.webapi import WebAPIError


class FakeAPI:
    def __init__(self):
        self.asked = []

    def nextGame(self, eventId, name):
        d = defer.Deferred()
        self.asked.append((eventId, name, d))
        return d


class PollerTests(SynchronousTestCase):

    def setUp(self):
        self.api = FakeAPI()
        self.clock = Clock()
        self.games = []
        self.problems = []
        self.poller = NextGamePoller(
            self.api, self.clock, 4, "alice",
            lambda kind, room: self.games.append((kind, room)),
            self.problems.append)
        self.poller.start()

    def answer(self, data):
        self.api.asked[-1][2].callback(data)

    def test_untilTheRoom(self):
        """
        It asks at once and every L{POLL_SECONDS} (never twice at once)
        until a room is named, then says so once and stops.
        """
        self.assertEqual([a[:2] for a in self.api.asked], [(4, "alice")])
        self.clock.advance(POLL_SECONDS)
        self.assertEqual(len(self.api.asked), 1)
        self.answer({"room": None, "kind": "gomoku", "state": "created"})
        self.assertEqual(self.poller.state, "created")
        self.clock.advance(POLL_SECONDS)
        self.assertEqual(len(self.api.asked), 2)
        self.answer({"room": "4-1-2", "kind": "gomoku", "state": "running"})
        self.assertEqual(self.games, [("gomoku", "4-1-2")])
        self.clock.advance(POLL_SECONDS * 5)
        self.assertEqual(len(self.api.asked), 2)

    def test_failureRetried(self):
        """
        A failed look is told and retried; the next answer clears it.
        """
        self.api.asked[-1][2].errback(WebAPIError("HTTP 503", 503))
        self.assertEqual(self.problems, ["HTTP 503"])
        self.clock.advance(POLL_SECONDS)
        self.answer({"room": None, "state": "running"})
        self.assertEqual(self.problems, ["HTTP 503", None])

    def test_stop(self):
        """
        Stopped, it cancels the look under way and asks no more.
        """
        d = self.api.asked[-1][2]
        self.poller.stop()
        self.assertTrue(d.called)
        self.clock.advance(POLL_SECONDS * 3)
        self.assertEqual(len(self.api.asked), 1)
        self.assertEqual(self.problems, [])
