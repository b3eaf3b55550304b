"""
Tests for L{hub.games.gomoku}.
"""

from twisted.trial.unittest import SynchronousTestCase
from zope.interface.verify import verifyObject

from hub.games import gomoku as g
from hub.ihub import IGameRules

DIRECTIONS = [(1, 0), (0, 1), (1, 1), (1, -1)]


def line(x, y, dx, dy, n):
    """
    C{n} cells from C{(x, y)} in direction C{(dx, dy)}.
    """
    return [(x + i * dx, y + i * dy) for i in range(n)]


def fillerFor(cells):
    """
    Cells, away from C{cells} and from each other's lines, for the other
    colour to play while one colour builds its row.
    """
    taken = set(cells)
    spots = [(x, y) for y in (0, 14, 2, 12) for x in range(0, 15, 2)]
    return [c for c in spots if c not in taken]


def playLine(cells, colour):
    """
    A game in which C{colour} plays C{cells} in order and the other
    colour plays harmless filler moves.
    """
    game = g.GomokuGame()
    filler = iter(fillerFor(cells))
    for cell in cells:
        if game.currentColour != colour:
            game.place(*next(filler))
        game.place(*cell)
    return game


def fullBoardColour(x, y):
    """
    A colouring of the board with no five in any direction and 113
    black, 112 white stones.
    """
    return g.BLACK if (x + 2 * y) % 4 < 2 else g.WHITE


class RulesTests(SynchronousTestCase):
    """
    Wins, draws, illegal moves and turns.
    """

    def test_interface(self):
        """
        L{g.GomokuGame} provides L{IGameRules}.
        """
        game = g.GomokuGame()
        self.assertTrue(verifyObject(IGameRules, game))
        self.assertEqual(game.seatCount, 2)

    def test_start(self):
        """
        A new game: empty board, black (seat 0) to move, 225 actions.
        """
        game = g.GomokuGame()
        self.assertEqual(game.currentSeat, 0)
        self.assertEqual(game.currentColour, g.BLACK)
        self.assertEqual(len(game.legalActions(0)), 225)
        self.assertEqual(game.legalActions(1), [])
        self.assertFalse(game.isOver)
        self.assertIsNone(game.lastMove)

    def test_alternation(self):
        """
        Black and white alternate; a seat cannot move out of turn.
        """
        game = g.GomokuGame()
        self.assertRaises(g.IllegalMove, game.apply, 1, (0, 0))
        self.assertEqual(game.place(7, 7), g.BLACK)
        self.assertEqual(game.at(7, 7), g.BLACK)
        self.assertEqual(game.currentSeat, 1)
        self.assertRaises(g.IllegalMove, game.apply, 0, (0, 0))
        game.apply(1, (8, 8))
        self.assertEqual(game.at(8, 8), g.WHITE)
        self.assertEqual(game.currentSeat, 0)
        self.assertEqual(game.moves, [(7, 7), (8, 8)])
        self.assertEqual(game.lastMove, (8, 8))
        self.assertEqual(game.board[8 * 15 + 8], g.WHITE)

    def test_winEachColourEachDirection(self):
        """
        Five in a row wins for black and for white, in all four
        directions, whichever stone of the row comes last.
        """
        starts = {(1, 0): (3, 5), (0, 1): (5, 3), (1, 1): (3, 3),
                  (1, -1): (3, 11)}
        for colour, seat in ((g.BLACK, 0), (g.WHITE, 1)):
            for d in DIRECTIONS:
                cells = line(starts[d][0], starts[d][1], d[0], d[1], 5)
                for last in range(5):
                    order = cells[:last] + cells[last + 1:] + [cells[last]]
                    game = playLine(order, colour)
                    self.assertTrue(game.isOver, (colour, d, last))
                    self.assertEqual(game.winner, colour)
                    self.assertEqual(game.winnerSeat, seat)
                    self.assertFalse(game.isDraw)
                    self.assertIsNone(game.currentSeat)
                    self.assertEqual(game.legalActions(0), [])
                    self.assertEqual(game.legalActions(1), [])

    def test_fourDoesNotWin(self):
        """
        Four in a row, or five broken by a gap, is not a win.
        """
        game = playLine(line(3, 5, 1, 0, 4) + [(8, 5)], g.BLACK)
        self.assertFalse(game.isOver)
        self.assertIsNone(game.winner)

    def test_edges(self):
        """
        Rows touching the board's edges and corners win.
        """
        for cells in (line(10, 0, 1, 0, 5), line(14, 10, 0, 1, 5),
                      line(10, 10, 1, 1, 5), line(0, 4, 1, -1, 5)):
            game = playLine(cells, g.BLACK)
            self.assertEqual(game.winner, g.BLACK, cells)

    def test_overline(self):
        """
        Six or more in a row also win (the stone joining two rows).
        """
        cells = line(2, 5, 1, 0, 6)
        order = cells[:3] + cells[4:] + [cells[3]]
        game = playLine(order, g.WHITE)
        self.assertEqual(game.winner, g.WHITE)
        cells = line(2, 2, 1, 1, 9)
        order = [c for i, c in enumerate(cells) if i != 4] + [cells[4]]
        game = playLine(order, g.BLACK)
        self.assertEqual(game.winner, g.BLACK)
        self.assertEqual(game.lastMove, cells[4])

    def test_illegal(self):
        """
        Occupied and off-board cells, malformed actions and moves after
        the end are illegal and leave the state unchanged.
        """
        game = g.GomokuGame()
        game.place(7, 7)
        before = (game.board[:], game.moves[:], game.currentSeat)
        bad = [(7, 7), (-1, 0), (0, -1), (15, 0), (0, 15),
               (4294967295, 3), (3, 4294967295), (2 ** 64, 0),
               (1.0, 2), ("1", 2), (True, 2), None, (1,), (1, 2, 3), 5]
        for action in bad:
            self.assertRaises(g.IllegalMove, game.apply, 1, action)
            self.assertEqual(
                (game.board, game.moves, game.currentSeat), before)
        self.assertRaises(g.IllegalMove, game.place, 7, 7)
        self.assertTrue(issubclass(g.IllegalMove, ValueError))
        won = playLine(line(0, 0, 1, 0, 5), g.BLACK)
        self.assertRaises(g.IllegalMove, won.place, 14, 14)
        self.assertRaises(g.IllegalMove, won.apply, 1, (14, 14))

    def test_draw(self):
        """
        A full board without a five is a draw; no stone before the last
        ends the game.
        """
        blacks = [(x, y) for y in range(15) for x in range(15)
                  if fullBoardColour(x, y) == g.BLACK]
        whites = [(x, y) for y in range(15) for x in range(15)
                  if fullBoardColour(x, y) == g.WHITE]
        self.assertEqual((len(blacks), len(whites)), (113, 112))
        game = g.GomokuGame()
        for i in range(225):
            self.assertFalse(game.isOver)
            cell = blacks[i // 2] if i % 2 == 0 else whites[i // 2]
            game.place(*cell)
        self.assertTrue(game.isOver)
        self.assertTrue(game.isDraw)
        self.assertIsNone(game.winner)
        self.assertIsNone(game.winnerSeat)
        self.assertIsNone(game.currentSeat)
        self.assertEqual(game.legalActions(0), [])

    def test_winOnLastCell(self):
        """
        A five made by the 225th stone is a win, not a draw.
        """
        colours = {(x, y): fullBoardColour(x, y)
                   for y in range(15) for x in range(15)}
        # Row 7, x 0..4 all black (the only five on the board), and three
        # black stones of row 0 turned white to keep 113 / 112.
        for x in range(5):
            colours[(x, 7)] = g.BLACK
        for cell in ((0, 0), (1, 0), (5, 0)):
            colours[cell] = g.WHITE
        last = (2, 7)
        blacks = [c for c in sorted(colours)
                  if colours[c] == g.BLACK and c != last] + [last]
        whites = [c for c in sorted(colours) if colours[c] == g.WHITE]
        self.assertEqual((len(blacks), len(whites)), (113, 112))
        game = g.GomokuGame()
        for i in range(224):
            game.place(*(blacks[i // 2] if i % 2 == 0 else whites[i // 2]))
            self.assertFalse(game.isOver)
        game.place(*last)
        self.assertTrue(game.isOver)
        self.assertEqual(game.winner, g.BLACK)
        self.assertFalse(game.isDraw)

    def test_legalActions(self):
        """
        legalActions lists exactly the empty cells, as (x, y).
        """
        game = g.GomokuGame()
        game.place(0, 0)
        game.place(14, 0)
        game.place(3, 7)
        actions = game.legalActions(1)
        self.assertEqual(len(actions), 222)
        self.assertEqual(len(set(actions)), 222)
        for cell in ((0, 0), (14, 0), (3, 7)):
            self.assertNotIn(cell, actions)
        self.assertIn((14, 14), actions)
        for x, y in actions:
            self.assertEqual(game.at(x, y), g.EMPTY)

    def test_copy(self):
        """
        A copy is independent of the original.
        """
        game = g.GomokuGame()
        game.place(7, 7)
        other = game.copy()
        other.place(8, 8)
        self.assertEqual(game.moves, [(7, 7)])
        self.assertEqual(game.at(8, 8), g.EMPTY)
        self.assertEqual(other.moves, [(7, 7), (8, 8)])
        self.assertEqual(game.currentSeat, 1)
        won = playLine(line(0, 0, 1, 0, 5), g.BLACK).copy()
        self.assertTrue(won.isOver)
        self.assertEqual(won.winner, g.BLACK)

    def test_seats(self):
        """
        Seat 0 plays black, seat 1 white.
        """
        self.assertEqual(g.colourOfSeat(0), g.BLACK)
        self.assertEqual(g.colourOfSeat(1), g.WHITE)
        self.assertEqual(g.seatOfColour(g.BLACK), 0)
        self.assertEqual(g.seatOfColour(g.WHITE), 1)


class EndingTests(SynchronousTestCase):
    """
    Games that end without a five or a full board.
    """

    def test_sixthIllegalMoveInARowIsAnError(self):
        """
        Five illegal moves in a row are tolerated; the sixth ends the game
        in error with no winner.
        """
        game = g.GomokuGame()
        for _ in range(g.MAX_ILLEGAL_MOVES):
            self.assertFalse(game.refuse(0))
        self.assertTrue(game.refuse(0))
        self.assertTrue(game.isOver)
        self.assertTrue(game.isError)
        self.assertIsNone(game.winner)

    def test_validMoveResetsIllegalStreak(self):
        """
        A legal move starts the count again; the other seat never counts.
        """
        game = g.GomokuGame()
        for _ in range(5):
            game.refuse(0)
        self.assertFalse(game.refuse(1))
        game.place(7, 7)
        self.assertEqual(game.illegalStreak, 0)
        for _ in range(5):
            self.assertFalse(game.refuse(1))
        self.assertFalse(game.isOver)

    def test_forfeit(self):
        """
        The seat that forfeits loses; the other wins.
        """
        game = g.GomokuGame()
        game.place(7, 7)
        game.forfeit(0)
        self.assertTrue(game.isOver)
        self.assertEqual((game.winnerSeat, game.winner), (1, 16))


class WinningRowsTests(SynchronousTestCase):
    """
    L{g.winningRows} finds the five the last move made, as the rules do.
    """

    def stones(self, cells, colour=1):
        board = dict.fromkeys(cells, colour)
        return lambda x, y: board.get((x, y), 0)

    def test_directions(self):
        """
        Rows across, down and along both diagonals, from end to end,
        whichever stone of the row was played last.
        """
        for row in ([(x, 2) for x in range(4, 9)],
                    [(0, y) for y in range(10, 15)],
                    [(i, i) for i in range(10, 15)],
                    [(4 + i, 8 - i) for i in range(5)]):
            for last in row:
                self.assertEqual(g.winningRows(self.stones(row), last), [row])

    def test_longRowAndCross(self):
        """
        Six in a row is one row of six; a stone that closes two fives
        at once gives both.
        """
        six = [(x, 7) for x in range(6)]
        self.assertEqual(g.winningRows(self.stones(six), (2, 7)), [six])
        down = [(2, y) for y in range(3, 8)]
        stone = self.stones(six[:5] + down)
        self.assertEqual(g.winningRows(stone, (2, 7)), [six[:5], down])

    def test_noFive(self):
        """
        Four in a row, a broken row, a row of mixed colours, an empty or
        missing last move: no row.
        """
        four = [(x, 0) for x in range(4)]
        self.assertEqual(g.winningRows(self.stones(four), (3, 0)), [])
        broken = four + [(5, 0)]
        self.assertEqual(g.winningRows(self.stones(broken), (5, 0)), [])
        board = {(x, 0): 1 for x in range(4)}
        board[(4, 0)] = 16
        self.assertEqual(
            g.winningRows(lambda x, y: board.get((x, y), 0), (4, 0)), [])
        self.assertEqual(g.winningRows(self.stones(four), None), [])
        self.assertEqual(g.winningRows(self.stones(four), (9, 9)), [])
