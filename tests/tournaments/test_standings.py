"""
Scores, tie-breaks and standings (L{hub.tournaments.standings}).
"""

from twisted.trial.unittest import SynchronousTestCase

from hub.tournaments.standings import (
    Game, byePoints, crosstable, eventRatings, forfeitPoints,
    placementPoints, standings)


class PointsTests(SynchronousTestCase):
    """
    What a game gives each seat.
    """

    def test_twoPlayers(self):
        """
        Win 1, draw 1/2 each (an empty ranking), loss 0.
        """
        self.assertEqual(placementPoints(2, (1, 0)), (0.0, 1.0))
        self.assertEqual(placementPoints(2, ()), (0.5, 0.5))

    def test_placements(self):
        """
        N players: N-1 ... 0 by placement; unranked seats 0.
        """
        self.assertEqual(placementPoints(4, (2, 0, 3, 1)),
                         (2.0, 0.0, 3.0, 1.0))
        self.assertEqual(placementPoints(3, (1,)), (0.0, 2.0, 0.0))

    def test_forfeit(self):
        """
        A forfeiter scores 0; each present player one point per
        forfeiter; a double forfeit gives nothing.
        """
        self.assertEqual(forfeitPoints(2, [0]), (0.0, 1.0))
        self.assertEqual(forfeitPoints(3, [2]), (1.0, 1.0, 0.0))
        self.assertEqual(forfeitPoints(2, [0, 1]), (0.0, 0.0))

    def test_bye(self):
        """
        A bye is 1 in two-player events, (N-1)/2 at tables of N.
        """
        self.assertEqual(byePoints(2), 1.0)
        self.assertEqual(byePoints(3), 1.0)
        self.assertEqual(byePoints(4), 1.5)


class StandingsTests(SynchronousTestCase):
    """
    L{standings} and L{crosstable}.
    """

    def test_pointsFirst(self):
        """
        More points rank higher; unfinished games count for nothing.
        """
        games = [Game(1, 1, ("a", "b"), (0.0, 1.0)),
                 Game(1, 2, ("c", "d"), (0.5, 0.5)),
                 Game(2, 1, ("a", "c"))]
        table = standings(["a", "b", "c", "d"], games)
        self.assertEqual([(s.name, s.points) for s in table],
                         [("b", 1.0), ("c", 0.5), ("d", 0.5), ("a", 0.0)])
        self.assertEqual([s.rank for s in table], [1, 2, 2, 4])

    def test_buchholz(self):
        """
        Equal points: the entrant whose opponents scored more ranks
        higher (Buchholz).
        """
        # b and c score 1 each; b lost to a (2 points), c to d (1 point).
        games = [Game(1, 1, ("a", "b"), (1.0, 0.0)),
                 Game(1, 2, ("d", "c"), (1.0, 0.0)),
                 Game(2, 1, ("a", "e"), (1.0, 0.0)),
                 Game(2, 2, ("b", "f"), (1.0, 0.0)),
                 Game(3, 1, ("c", "f"), (1.0, 0.0))]
        table = standings(list("abcdef"), games)
        byName = {s.name: s for s in table}
        self.assertEqual((byName["b"].points, byName["c"].points),
                         (1.0, 1.0))
        self.assertEqual(byName["b"].tieBreaks[0], 2.0 + 0.0)
        self.assertEqual(byName["c"].tieBreaks[0], 1.0 + 0.0)
        names = [s.name for s in table]
        self.assertLess(names.index("b"), names.index("c"))

    def test_sonnebornBerger(self):
        """
        Equal points and Buchholz: Sonneborn-Berger (points of those
        beaten, half of those drawn) decides.
        """
        # a beat x (2 pts) and lost to y (0 pts); b beat y and lost to x.
        games = [Game(1, 1, ("a", "x"), (1.0, 0.0)),
                 Game(1, 2, ("b", "y"), (1.0, 0.0)),
                 Game(2, 1, ("a", "y"), (0.0, 1.0)),
                 Game(2, 2, ("b", "x"), (0.0, 1.0)),
                 Game(3, 1, ("x", "z"), (1.0, 0.0))]
        table = standings(["a", "b", "x", "y", "z"], games)
        byName = {s.name: s for s in table}
        self.assertEqual(byName["a"].points, byName["b"].points)
        self.assertEqual(byName["a"].tieBreaks[0], byName["b"].tieBreaks[0])
        self.assertEqual(byName["a"].tieBreaks[1], 2.0)
        self.assertEqual(byName["b"].tieBreaks[1], 1.0)
        names = [s.name for s in table]
        self.assertLess(names.index("a"), names.index("b"))

    def test_directEncounter(self):
        """
        Multi-player ties: among the tied entrants, who finished ahead of
        the others where they met.
        """
        games = [Game(1, 1, ("a", "b", "c"), (2.0, 1.0, 0.0)),
                 Game(2, 1, ("a", "b", "c"), (0.0, 2.0, 1.0)),
                 Game(3, 1, ("a", "b", "d"), (1.0, 0.0, 2.0))]
        # a: 3, b: 3, c: 1, d: 2; a and b met three times: a ahead twice.
        table = standings(list("abcd"), games, tableSize=3)
        self.assertEqual([s.name for s in table], ["a", "b", "d", "c"])
        self.assertEqual([s.rank for s in table], [1, 2, 3, 4])

    def test_byeCounts(self):
        """
        A bye's points count, but not as a game played.
        """
        table = standings(["a"], [Game(1, 0, ("a",), (1.0,))])
        self.assertEqual((table[0].points, table[0].games), (1.0, 0))

    def test_crosstable(self):
        """
        The crosstable adds the points each scored where the other sat.
        """
        games = [Game(1, 1, ("a", "b"), (1.0, 0.0)),
                 Game(2, 1, ("b", "a"), (0.5, 0.5))]
        self.assertEqual(crosstable(["a", "b"], games),
                         {"a": {"b": 1.5}, "b": {"a": 0.5}})


class EventRatingTests(SynchronousTestCase):
    """
    L{eventRatings}: OpenSkill over the event's games, with uncertainty.
    """

    def test_ranksAsResults(self):
        """
        After a round robin where a beats b and c and b beats c, the
        ratings order a, b, c; every sigma has shrunk from the default;
        a bye and a game not yet played change nothing.
        """
        from hub.records import ratings
        games = [Game(1, 1, ("a", "b"), (1.0, 0.0)),
                 Game(1, -1, ("c",), (1.0,)),
                 Game(2, 1, ("c", "a"), (0.0, 1.0)),
                 Game(3, 1, ("b", "c"), (1.0, 0.0)),
                 Game(4, 1, ("a", "c"))]
        rated = eventRatings(["a", "b", "c", "d"], games)
        self.assertGreater(rated["a"][0], rated["b"][0])
        self.assertGreater(rated["b"][0], rated["c"][0])
        for name in "abc":
            self.assertLess(rated[name][1], ratings.SIGMA)
        self.assertEqual(rated["d"], (ratings.MU, ratings.SIGMA))

    def test_sameAsTheRecords(self):
        """
        One game rated as the records rate it (L{hub.records.ratings.
        rate}), a draw a tie.
        """
        from hub.records import ratings
        rated = eventRatings(["a", "b"], [Game(1, 1, ("a", "b"),
                                              (0.5, 0.5))])
        a, b = ratings.rate([ratings.Rating(), ratings.Rating()], [1, 1])
        self.assertEqual(rated, {"a": (a.mu, a.sigma),
                                 "b": (b.mu, b.sigma)})
