"""
Complete bot-versus-bot games, in process: every game ends, and every
action played was legal.
"""

from twisted.trial.unittest import SynchronousTestCase

from hub.bots import botFor

from tests.bots.support import newGame, playOut


class CompleteGameMixin:
    """
    Play whole games of C{kind} between bots.
    """

    kind = None
    maxPlies = 2000

    def play(self, levels, seed=0):
        """
        One game with a bot of each of C{levels}, seat by seat.

        @return: the finished game.
        """
        game = newGame(self.kind, len(levels), seed)
        bots = [botFor(self.kind, level, seed * 10 + k)
                for k, level in enumerate(levels)]
        playOut(game, bots, self.maxPlies)
        self.assertTrue(game.isOver)
        self.assertIsNone(game.currentSeat)
        return game


class GomokuGameTests(CompleteGameMixin, SynchronousTestCase):
    kind = "gomoku"
    maxPlies = 225

    def test_randomGame(self):
        """
        Two level 1 bots play until five in a row or a full board.
        """
        for seed in range(3):
            game = self.play((1, 1), seed)
            self.assertTrue(game.winnerSeat is not None or game.isDraw)

    def test_heuristicAgainstRandom(self):
        """
        Level 2 beats level 1 from either seat.
        """
        for levels, winner in (((2, 1), 0), ((1, 2), 1)):
            game = self.play(levels)
            self.assertEqual(game.winnerSeat, winner)

    def test_searchAgainstHeuristic(self):
        """
        A level 3 against level 2 game ends with five in a row.
        """
        game = self.play((3, 2), seed=1)
        self.assertIsNotNone(game.winnerSeat)


class CheckersGameTests(CompleteGameMixin, SynchronousTestCase):
    kind = "checkers"

    def checkRanking(self, game, players):
        ranking = game.ranking()
        self.assertEqual(sorted(ranking), list(range(players)))
        self.assertEqual(game.eliminated, [])
        # Everybody but the last one home finished.
        self.assertEqual(len(game.finished), players - 1)

    def test_twoPlayers(self):
        """
        Two level 2 bots finish a two-player game.
        """
        self.checkRanking(self.play((2, 2)), 2)

    def test_threePlayers(self):
        """
        Three level 2 bots finish a three-player game.
        """
        self.checkRanking(self.play((2, 2, 2), seed=1), 3)

    def test_sixPlayers(self):
        """
        Six bots (levels 2 and 3) finish a six-player game.
        """
        self.checkRanking(self.play((2, 3, 2, 3, 2, 3), seed=2), 6)

    def test_searchAgainstHeuristic(self):
        """
        A level 3 against level 2 game ends.
        """
        self.checkRanking(self.play((3, 2), seed=3), 2)

    def test_fourPlayers(self):
        """
        Four level 2 bots finish a four-player game.
        """
        self.checkRanking(self.play((2, 2, 2, 2), seed=4), 4)

    def test_solitaire(self):
        """
        A bot alone (levels 2 and 3) brings all ten pieces home.
        """
        for level in (2, 3):
            game = self.play((level,), seed=5)
            self.assertEqual(game.finished, [0])
            self.assertEqual(game.ranking(), [0])
            self.assertEqual(game.piecesInTarget(0), 10)


class SplendorGameTests(CompleteGameMixin, SynchronousTestCase):
    kind = "splendor"

    def checkOver(self, game):
        self.assertIsNotNone(game.winner)
        self.assertFalse(game.stalled)
        self.assertGreaterEqual(max(p.points for p in game.players), 15)

    def test_twoPlayers(self):
        """
        Two bots (levels 2 and 3) reach 15 points.
        """
        self.checkOver(self.play((2, 3)))

    def test_threePlayers(self):
        """
        Three level 2 bots reach 15 points.
        """
        self.checkOver(self.play((2, 2, 2), seed=1))

    def test_fourPlayers(self):
        """
        Four bots (levels 1 to 3) play a four-player game to its end.
        """
        game = self.play((2, 1, 3, 2), seed=2)
        self.assertIsNotNone(game.winner)

    def test_randomGame(self):
        """
        Two level 1 bots play a game to its end.
        """
        game = self.play((1, 1), seed=3)
        self.assertIsNotNone(game.winner)
