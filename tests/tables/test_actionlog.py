"""
Tests for L{hub.tables.actionlog}.
"""

import sys

from twisted.trial.unittest import SynchronousTestCase

from hub.tables import events
from hub.tables.actionlog import ActionLog


class ActionLogTests(SynchronousTestCase):
    """
    A game's actions by columns, read back as each action's fields.
    """

    def filled(self):
        log = ActionLog()
        log.append(0, (7, 7), False, 100.25)
        log.append(5, ((1, 2), (1, 0)), True, 101.5)
        log.append(3, "take", False, 99.0)
        return log

    def test_fields(self):
        """
        Each action reads back as its L{events.ActionPlayed}'s fields, in
        order, with no detail; as an event too.
        """
        log = self.filled()
        self.assertEqual(len(log), 3)
        self.assertEqual(list(log), [
            (0, (7, 7), False, None, 100.25),
            (5, ((1, 2), (1, 0)), True, None, 101.5),
            (3, "take", False, None, 99.0)])
        self.assertEqual(log[1], (5, ((1, 2), (1, 0)), True, None, 101.5))
        self.assertEqual(log.event(2),
                         events.ActionPlayed(3, "take", False, None, 99.0))
        self.assertIs(type(log[0][0]), int)
        self.assertIs(type(log[0][2]), bool)

    def test_columns(self):
        """
        The seats and the bots' actions, as the records write them.
        """
        log = self.filled()
        self.assertEqual(log.seatList(), [0, 5, 3])
        self.assertEqual(log.botPlies(), [1])
        self.assertEqual(list(log.times), [100.25, 101.5, 99.0])
        self.assertEqual(log.moves, [(7, 7), ((1, 2), (1, 0)), "take"])

    def test_actionsKeptAsGiven(self):
        """
        An action is kept as the object given, not a copy.
        """
        log = ActionLog()
        cell = (1, 2)
        log.append(1, cell, False, 1.0)
        self.assertIs(log[0][1], cell)

    def test_smallAMove(self):
        """
        A move adds no object of its own: its time and seat go into
        arrays, its action into a list.
        """
        log = ActionLog()
        cell = (1, 2)
        for ply in range(1000):
            log.append(ply & 1, cell, False, float(ply))
        held = (sys.getsizeof(log.times) + sys.getsizeof(log.seats)
                + sys.getsizeof(log.moves))
        self.assertLess(held, 1000 * 20)
