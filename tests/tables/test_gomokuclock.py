"""
The gomoku table's turn clock: none in the hub's rooms, a loss on time
when its options give one (a tournament's C{--turn-seconds}).
"""

from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from hub.games import gomoku
from hub.tables import events
from hub.tables.base import TableOptions
from hub.tables.gomoku import GomokuTable


class Collector:
    def __init__(self):
        self.events = []

    def tableEvent(self, table, event):
        self.events.append(event)


class GomokuClockTests(SynchronousTestCase):
    """
    L{GomokuTable.timedOut}.
    """

    def table(self, options):
        clock = Clock()
        seats = (events.Seat(0, "a", 1, gomoku.BLACK),
                 events.Seat(1, "b", 2, gomoku.WHITE))
        table = GomokuTable("t", seats, clock, options)
        collector = Collector()
        table.addListener(collector)
        table.start()
        return table, clock, collector.events

    def test_noClock(self):
        """
        Without C{turnSeconds} a turn never ends by itself.
        """
        table, clock, seen = self.table(TableOptions())
        clock.advance(10000)
        self.assertFalse(table.over)

    def test_lossOnTime(self):
        """
        With C{turnSeconds} each turn has its own clock, and the seat to
        act loses when its time is up.
        """
        table, clock, seen = self.table(TableOptions(turnSeconds=3))
        clock.advance(2)
        table.act(0, (7, 7))
        clock.advance(2)
        table.act(1, (8, 8))
        clock.advance(2)
        table.act(0, (9, 9))
        self.assertEqual([e.seat for e in seen
                          if isinstance(e, events.TurnStarted)], [0, 1, 0, 1])
        clock.advance(2.9)
        self.assertFalse(table.over)
        clock.advance(0.1)
        self.assertTrue(table.over)
        self.assertEqual(
            [type(e) for e in seen[-2:]],
            [events.SeatTimedOut, events.GameEnded])
        ended = seen[-1]
        self.assertEqual((ended.reason, ended.winner, ended.ranking),
                         (events.TIMEOUT, 0, (0, 1)))
        self.assertEqual(seen[-2].seat, 1)
