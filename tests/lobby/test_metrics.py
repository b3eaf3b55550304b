"""
Tests for L{hub.metrics}.
"""

from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from hub.lobby import Lobby, RoomObserver
from hub.metrics import HubCollector
from hub.sessions import Sessions
from tests.lobby.test_lobby import StubTable


class AlwaysStarts:
    autoStart = False

    def canStart(self, room):
        return True

    def newTable(self, room):
        return StubTable(object())


class HubCollectorTests(SynchronousTestCase):
    """
    The gauges follow the lobby and sessions at scrape time.
    """

    def test_counts(self):
        """
        Sessions, rooms and running games are counted per game kind.
        """
        sessions = Sessions(Clock())
        lobby = Lobby()
        a = sessions.connect("gomoku", None)
        b = sessions.connect("gomoku", None)
        sessions.connect("splendor", None)
        lobby.createRoom("gomoku", "r1", a, RoomObserver(), AlwaysStarts(), 2)
        room = lobby.createRoom("gomoku", "r2", b, RoomObserver(),
                                AlwaysStarts(), 2)
        lobby.start(room)
        samples = {}
        for family in HubCollector(lobby, sessions).collect():
            for sample in family.samples:
                samples[(sample.name, sample.labels["game"])] = sample.value
        self.assertEqual(samples[("gamehub_sessions", "gomoku")], 2)
        self.assertEqual(samples[("gamehub_sessions", "splendor")], 1)
        self.assertEqual(samples[("gamehub_sessions", "checkers")], 0)
        self.assertEqual(samples[("gamehub_rooms", "gomoku")], 2)
        self.assertEqual(samples[("gamehub_games_running", "gomoku")], 1)
