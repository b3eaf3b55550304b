"""
C{show}'s notation of records of real tables' games.
"""

import random

from twisted.internet.task import Clock
from twisted.trial.unittest import TestCase

from hub.games import splendor
from hub.records import notation
from hub.records.record import RecordBuilder
from hub.tables import events
from hub.tables.base import TableError

from tests.records import support


class Builder:
    """
    A table listener that keeps the record of the last game it heard.
    """

    record = None

    def tableEvent(self, table, event):
        if isinstance(event, events.GameStarted):
            self.builder = RecordBuilder(event, table.actions)
        elif isinstance(event, events.GameEnded):
            self.record = self.builder.finish(event)
        else:
            self.builder.add(event)


class ActionTests(TestCase):
    """
    One action of each kind.
    """

    def test_gomoku(self):
        """
        Column a-o from the left (i included), row 1-15 from the bottom
        (the wire's y counts from the top): the centre is h8.
        """
        self.assertEqual(notation.action("gomoku", [7, 7]), "h8")
        self.assertEqual(notation.action("gomoku", [0, 14]), "a1")
        self.assertEqual(notation.action("gomoku", [0, 0]), "a15")
        self.assertEqual(notation.action("gomoku", [8, 6]), "i9")
        self.assertEqual(notation.action("gomoku", [14, 14]), "o1")

    def test_checkers(self):
        """
        The path's cells, in the hub's notation (docs/games.md).
        """
        self.assertEqual(notation.action("checkers", [[0, -4], [0, -3]]),
                         "e5-e6")
        self.assertEqual(notation.action(
            "checkers", [[4, -4], [4, -6], [2, -4]]), "i5-c3-g5")

    def test_splendor(self):
        """
        Splendor's actions read in words, as the web's move lists say
        them (L{hub.web.views.describeAction}, the same words): takes,
        buys (the card's level, colour and points), reserves (a hidden
        one by its deck), give-backs, nobles.
        """
        from hub.games.splendor import CARDS, GEMS
        from hub.web import views
        ruby2 = [c for c in CARDS.values() if c.level == 2
                 and GEMS[c.bonus] == "ruby" and c.points == 2][0]
        noPoints = [c for c in CARDS.values() if c.points == 0][0]
        cases = [
            ({"op": "get_gems", "card": 0,
              "gems": {"diamond": 1, "ruby": 1, "emerald": 1}},
             "took diamond, emerald, ruby"),
            ({"op": "buy_card", "card": ruby2.number,
              "gems": {"diamond": 1, "golden": 1}},
             "bought a level-2 ruby card (2 points)"),
            ({"op": "buy_card", "card": noPoints.number, "gems": {}},
             "bought a level-%d %s card" % (noPoints.level,
                                            GEMS[noPoints.bonus])),
            ({"op": "fold_card", "card": ruby2.number, "gems": {}},
             "reserved a level-2 ruby card"),
            ({"op": "fold_card_unknown", "card": 10002, "gems": {}},
             "reserved a card from the level-2 deck"),
            ({"op": "discard_gems", "card": 0, "gems": {"ruby": 2}},
             "gave back ruby \N{MULTIPLICATION SIGN}2"),
            ({"op": "get_noble", "card": 93, "gems": {}},
             "was visited by a noble (3 points)"),
        ]
        from hub.games.codec import actionFromJSON
        for value, text in cases:
            self.assertEqual(notation.action("splendor", value), text)
            self.assertEqual(views.describeAction(
                "splendor", actionFromJSON("splendor", value)), text)


class ShowTests(TestCase):
    """
    Whole games of real tables.
    """

    def test_splendorEvents(self):
        """
        A Splendor game shows its dealt cards, discards, nobles, the bot
        that took a seat over, and how it ended.
        """
        builder = Builder()
        rng = random.Random(4)
        while True:
            support.playRandomGame("splendor", [builder], rng)
            text = "\n".join(notation.show(builder.record))
            if "a level 1 bot plays for" in text:
                break
        for words in ("dealt #", "must give back", "gets noble #",
                      "  (bot)", "game over (normal): player "):
            self.assertIn(words, text)
        self.assertNotIn("DiscardRequired", text)

    def test_settled(self):
        """
        A pending discard that a retirement settled is marked so, not as
        a bot's.
        """
        builder = Builder()
        seats = support.newSeats("splendor", random.Random(1), seatCount=3)
        clock = Clock()
        table = support.newTable("splendor", "s", seats, clock,
                                 support.tableOptions("splendor", None),
                                 random.Random(1))
        table.addListener(builder)
        table.start()
        players = support.RandomPlayers("splendor", random.Random(2))
        game = table.game
        while game.phase == splendor.PHASE_ACT:
            seat = game.currentSeat
            table.act(seat, players.choose(game, seat))
        table.drop(game.currentSeat)
        table.drop(game.currentSeat)
        self.assertTrue(table.over)
        lines = notation.show(builder.record)
        settled = [line for line in lines if "(settled: the player left)"
                   in line]
        self.assertTrue(settled)
        self.assertIn("game over (forfeit): player ", lines[-1])

    def test_gomokuOutcomes(self):
        """
        A gomoku game ended on the illegal-move limit has no winner.
        """
        builder = Builder()
        support.playRandomGame("gomoku", [builder], random.Random(0),
                               incidents=False, maxActions=4)
        self.assertEqual(notation.show(builder.record)[-1].split("-- ")[1],
                         "game over (abandoned): no result")
        table = support.newTable(
            "gomoku", "g", support.newSeats("gomoku", random.Random(0)),
            Clock(), support.tableOptions("gomoku", None), None)
        table.addListener(builder)
        table.start()
        for _ in range(7):
            try:
                table.act(0, (15, 0))
            except TableError:
                pass
        self.assertEqual(notation.show(builder.record)[-1].split("-- ")[1],
                         "game over (illegal): no winner (too many illegal "
                         "actions)")
