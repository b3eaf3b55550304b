"""
The stored form of a game's events (L{codec.eventsText}) reads back
(L{codec.eventsFromText}) as their JSON form (L{codec.eventsToJSON}).
"""

import json
import random

from twisted.internet.task import Clock
from twisted.trial.unittest import TestCase

from hub.records import codec
from hub.records.record import RecordBuilder
from hub.tables import events

from tests.records import support


class Keeper:
    """
    A table listener that keeps the builder of the last game it heard.
    """

    def tableEvent(self, table, event):
        if isinstance(event, events.GameStarted):
            self.builder = RecordBuilder(event, table.actions)
        elif not isinstance(event, events.GameEnded):
            self.builder.add(event)


class EventsTextTests(TestCase):
    """
    L{codec.eventsText} and L{codec.eventsFromText} against
    L{codec.eventsToJSON}.
    """

    def assertSameEvents(self, kind, kept, startedAt):
        text = codec.eventsText(kind, kept, startedAt)
        decoded = codec.eventsFromText(text)
        expected = codec.eventsToJSON(kind, kept, startedAt)
        self.assertEqual(len(decoded), len(expected))
        for mine, theirs in zip(decoded, expected):
            self.assertAlmostEqual(mine.pop("t"), theirs.pop("t"), places=3)
            self.assertEqual(mine, theirs)

    def test_randomGames(self):
        """
        Random games of every kind, with bots, drops and takeovers: the
        text decodes to the JSON form.
        """
        for kind in codec.KINDS:
            rng = random.Random(kind)
            for _ in range(5):
                keeper = Keeper()
                clock = Clock()
                clock.advance(1.7e9 + rng.random())
                support.playRandomGame(kind, [keeper], rng, clock=clock)
                builder = keeper.builder
                self.assertSameEvents(kind, builder.kept, builder.started.at)

    def test_times(self):
        """
        Times are seconds from the start, to the millisecond, rounded to
        the nearest; a time before the start (a clock set back) is
        written too.
        """
        kept = [(0, (7, 7), False, None, 100.0),
                (1, (7, 8), True, None, 100.0004),
                (0, (8, 8), False, None, 100.0006),
                (1, (9, 9), False, None, 112.5),
                (0, (1, 1), False, None, 99.75)]
        decoded = codec.eventsFromText(
            codec.eventsText("gomoku", kept, 100.0))
        self.assertEqual([e["t"] for e in decoded],
                         [0, 0, 0.001, 12.5, -0.25])
        self.assertEqual([e["byBot"] for e in decoded],
                         [False, True, False, False, False])
        self.assertSameEvents("gomoku", kept, 100.0)

    def test_checkersPath(self):
        """
        A checkers action is its path of cells.
        """
        kept = [(1, ((0, -4), (0, -3)), False, None, 5.0),
                (0, ((1, 2), (1, 0), (-1, 0)), True, None, 6.0),
                events.SeatDropped(1, 7.0)]
        self.assertEqual(
            codec.eventsFromText(codec.eventsText("checkers", kept, 5.0)),
            [{"type": "ActionPlayed", "t": 0, "seat": 1,
              "action": [[0, -4], [0, -3]], "byBot": False},
             {"type": "ActionPlayed", "t": 1, "seat": 0,
              "action": [[1, 2], [1, 0], [-1, 0]], "byBot": True},
             {"type": "SeatDropped", "t": 2, "seat": 1}])

    def test_eventsBetweenActions(self):
        """
        Other events keep their places among the actions: first, between
        two, several together, last.
        """
        kept = [events.SeatDropped(1, 1.0),
                (0, (7, 7), False, None, 2.0),
                events.SeatTakenOver(1, 2, 2.5),
                events.SeatReturned(1, 2.6),
                (1, (7, 8), True, None, 3.0),
                events.GameEnded("normal", (0, 1), 0, 4.0)]
        self.assertEqual(
            [e["type"] for e in codec.eventsFromText(
                codec.eventsText("gomoku", kept, 1.0))],
            ["SeatDropped", "ActionPlayed", "SeatTakenOver", "SeatReturned",
             "ActionPlayed", "GameEnded"])
        self.assertSameEvents("gomoku", kept, 1.0)

    def test_listForm(self):
        """
        Events stored as their JSON list read back as they are.
        """
        listed = [{"type": "ActionPlayed", "t": 0.5, "seat": 0,
                   "action": [7, 7], "byBot": False}]
        self.assertEqual(codec.eventsFromText(json.dumps(listed)), listed)
