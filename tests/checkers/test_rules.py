"""
Tests for L{hub.games.checkers}: geometry, the move rule (worked
examples, those of docs/protocols/checkers.md among them), turns,
finishing, elimination and ranking.
"""

from twisted.trial.unittest import SynchronousTestCase
from zope.interface.verify import verifyObject

from hub.games import checkers
from hub.games.checkers import (
    CELLS, REGION_CELLS, CheckersGame, GameOver, IllegalMove, OutOfTurn)
from hub.ihub import IGameRules


def _path(text):
    """
    Parse C{"x0 y0 x1 y1"} into cells (without the wire module).
    """
    n = [int(t) for t in text.split()]
    return tuple(zip(n[0::2], n[1::2]))


class GeometryTests(SynchronousTestCase):
    """
    The board (The board, in docs/protocols/checkers.md).
    """

    def test_cellCount(self):
        """
        121 cells, all within [-8, 8], matching the row table.
        """
        self.assertEqual(len(CELLS), 121)
        self.assertEqual(len(set(CELLS)), 121)
        rows = {}
        for x, y in CELLS:
            rows.setdefault(y, []).append(x)
        expected = {8: (-4, -4), 7: (-4, -3), 6: (-4, -2), 5: (-4, -1),
                    4: (-8, 4), 3: (-7, 4), 2: (-6, 4), 1: (-5, 4),
                    0: (-4, 4), -1: (-4, 5), -2: (-4, 6), -3: (-4, 7),
                    -4: (-4, 8), -5: (1, 4), -6: (2, 4), -7: (3, 4),
                    -8: (4, 4)}
        for y, (lo, hi) in expected.items():
            self.assertEqual(sorted(rows[y]), list(range(lo, hi + 1)), y)

    def test_regions(self):
        """
        The six regions hold the cells of the picture of the board.
        """
        expected = {
            "A": "-4 8 -4 7 -3 7 -4 6 -3 6 -2 6 -4 5 -3 5 -2 5 -1 5",
            "B": "1 4 2 4 3 4 4 4 2 3 3 3 4 3 3 2 4 2 4 1",
            "C": "5 -1 5 -2 6 -2 5 -3 6 -3 7 -3 5 -4 6 -4 7 -4 8 -4",
            "D": "1 -5 2 -5 3 -5 4 -5 2 -6 3 -6 4 -6 3 -7 4 -7 4 -8",
            "E": "-4 -1 -4 -2 -3 -2 -4 -3 -3 -3 -2 -3 -4 -4 -3 -4 -2 -4"
                 " -1 -4",
            "F": "-8 4 -7 4 -6 4 -5 4 -7 3 -6 3 -5 3 -6 2 -5 2 -5 1",
        }
        for letter, text in expected.items():
            self.assertEqual(REGION_CELLS[letter], frozenset(_path(text)))
        hexagon = [c for c in CELLS if checkers.regionOf(*c) is None]
        self.assertEqual(len(hexagon), 61)

    def test_targetsAreReflections(self):
        """
        Each region's target is its point reflection.
        """
        for letter, target in checkers.TARGET.items():
            self.assertEqual(
                frozenset((-x, -y) for x, y in REGION_CELLS[letter]),
                REGION_CELLS[target])

    def test_rotation(self):
        """
        The clockwise rotation (x, y) -> (x + y, -x) maps A to B to ... F.
        """
        letters = checkers.REGION_LETTERS
        for i, letter in enumerate(letters):
            rotated = frozenset((x + y, -x) for x, y in REGION_CELLS[letter])
            self.assertEqual(rotated, REGION_CELLS[letters[(i + 1) % 6]])

    def test_neighbours(self):
        """
        (1, 1) is not a neighbour; the six vectors are.
        """
        self.assertNotIn((1, 1), checkers.DIRECTIONS)
        self.assertEqual(len(checkers.DIRECTIONS), 6)
        self.assertEqual(checkers.cellDistance((0, 0), (1, 1)), 2)
        self.assertEqual(checkers.cellDistance((0, 0), (1, -1)), 1)


# Section 5.3, initial two-player position, mover A (seat 0).
WORKED_EXAMPLES = [
    ("-1 5 -1 4", True, "step (0,-1) into the hexagon"),
    ("-1 5 0 4", True, "step (1,-1)"),
    ("-4 5 -4 4", True, "step (0,-1)"),
    ("-2 6 0 4", True, "jump over (-1,5)"),
    ("-3 6 -1 4", True, "jump over (-2,5) along (1,-1)"),
    ("-1 5 -1 3", False, "2-cell hop over the empty (-1,4)"),
    ("-1 5 -1 4 -1 3", False, "two steps"),
    ("-2 6 0 4 0 3", False, "jump followed by a step"),
    ("-1 5 0 5", False, "(0,5) is off the board"),
    ("-4 5 -5 5", False, "(-5,5) is off the board"),
    ("-4 8 -4 6", False, "target (-4,6) is occupied"),
    ("1 -5 1 -4", False, "not A's piece"),
    ("-1 5", False, "only one position"),
]

# Constructed positions: (mover's piece, other pieces, path, legal).
CHAIN_EXAMPLES = [
    ((0, 0), [(1, 0), (2, 1)], "0 0 2 0 2 2", True),
    ((0, 0), [(1, 0), (2, 1), (1, 2)], "0 0 2 0 2 2 0 2", True),
    ((0, 0), [(1, 0), (0, 1)], "0 0 2 0 0 0", False),
    ((0, 0), [(2, 0)], "0 0 4 0", False),
    ((0, 0), [(2, 0)], "0 0 2 0", False),
    ((0, 0), [], "0 0 2 0", False),
    ((0, 0), [], "0 0 1 1", False),
    ((0, 0), [], "0 0 1 -1", True),
    ((0, 0), [(-2, 0)], "0 0 -1 0 -3 0", False),
]


class WorkedExampleTests(SynchronousTestCase):
    """
    The worked examples, one subtest per row.
    """

    def test_initialPosition(self):
        """
        Each example of the initial two-player position gets its verdict,
        and an illegal one leaves the state unchanged.
        """
        for text, legal, why in WORKED_EXAMPLES:
            game = CheckersGame(2)
            path = _path(text)
            if legal:
                result = game.apply(0, path)
                self.assertEqual(result.path, path, why)
                self.assertIsNone(game.pieceAt(path[0]), why)
                self.assertEqual(game.pieceAt(path[-1]), 0, why)
                self.assertEqual(game.currentSeat, 1, why)
            else:
                before = game.pieces(0), game.pieces(1)
                self.assertRaises(IllegalMove, game.apply, 0, path)
                self.assertEqual((game.pieces(0), game.pieces(1)), before,
                                 why)
                self.assertEqual(game.currentSeat, 0, why)

    def test_outOfTurn(self):
        """
        D moving on A's turn is L{OutOfTurn}, even with a legal path.
        """
        game = CheckersGame(2)
        self.assertRaises(OutOfTurn, game.apply, 1, _path("1 -5 1 -4"))
        self.assertTrue(issubclass(OutOfTurn, IllegalMove))

    def test_constructedChains(self):
        """
        The chains in constructed positions.
        """
        for mover, others, text, legal in CHAIN_EXAMPLES:
            game = CheckersGame.fromPosition(
                "AD", {0: [mover], 1: others})
            path = _path(text)
            if legal:
                self.assertEqual(game.checkPath(0, path), path, text)
            else:
                self.assertRaises(IllegalMove, game.checkPath, 0, path)

    def test_fourteenMoves(self):
        """
        A has 14 distinct (from, to) moves in the initial position.
        """
        moves = CheckersGame(2).legalActions(0)
        self.assertEqual(len(moves), 14)
        self.assertEqual(len({(m[0], m[-1]) for m in moves}), 14)

    def test_reasons(self):
        """
        Illegal moves carry a readable reason.
        """
        game = CheckersGame(2)
        e = self.assertRaises(IllegalMove, game.apply, 0, _path("-1 5 -1 3"))
        self.assertEqual(e.reason, "no piece to jump over at (-1,4)")
        e = self.assertRaises(OutOfTurn, game.apply, 1, _path("1 -5 1 -4"))
        self.assertEqual(e.reason, "it is A's turn")

    def test_badShapes(self):
        """
        Malformed actions are L{IllegalMove}, not other exceptions.
        """
        game = CheckersGame(2)
        for action in [(), ((-1, 5),), (("a", "b"), (1, 2)), (1, 2),
                       ((-1, 5), (-1, 4, 3))]:
            self.assertRaises(IllegalMove, game.apply, 0, action)


class GameTests(SynchronousTestCase):
    """
    Setup, turns, finishing, elimination and ranking.
    """

    def test_interface(self):
        """
        L{CheckersGame} provides L{IGameRules}.
        """
        self.assertTrue(verifyObject(IGameRules, CheckersGame(3)))

    def test_setups(self):
        """
        1, 2, 3, 4 and 6 players get regions A, AD, ACE, ABDE and ABCDEF,
        with ten pieces each on their region.
        """
        for n, regions in [(1, "A"), (2, "AD"), (3, "ACE"), (4, "ABDE"),
                           (6, "ABCDEF")]:
            game = CheckersGame(n)
            self.assertEqual("".join(game.regions), regions)
            self.assertEqual(game.seatCount, n)
            self.assertEqual(game.currentSeat, 0)
            for seat, letter in enumerate(regions):
                self.assertEqual(frozenset(game.pieces(seat)),
                                 REGION_CELLS[letter])
        for bad in (0, 5, 7):
            self.assertRaises(ValueError, CheckersGame, bad)
        self.assertRaises(ValueError, CheckersGame, regions="")
        self.assertRaises(ValueError, CheckersGame, regions="AA")
        self.assertRaises(ValueError, CheckersGame, regions="AZ")

    def test_canonicalCells(self):
        """
        A played path is made of the board's own cell tuples, however the
        player's cells were made.
        """
        game = CheckersGame(2)
        step = game.legalActions(0)[0]
        result = game.apply(0, [list(cell) for cell in step])
        self.assertEqual(result.path, step)
        for cell in result.path:
            self.assertIs(cell, checkers.CELLS[checkers.INDEX[cell]])

    def test_turnOrder(self):
        """
        Turns cycle A, C, E, A in a three-player game.
        """
        game = CheckersGame(3)
        seen = []
        for _ in range(7):
            seat = game.currentSeat
            seen.append(game.regions[seat])
            game.apply(seat, game.legalActions(seat)[0])
        self.assertEqual(seen, list("ACEACEA"))

    def test_legalActionsOnlyForCurrent(self):
        """
        legalActions is empty for a seat that is not to move.
        """
        game = CheckersGame(2)
        self.assertEqual(game.legalActions(1), [])
        self.assertEqual(len(game.movesOf(1)), 14)

    def test_copy(self):
        """
        A copy is independent of the original.
        """
        game = CheckersGame(2)
        other = game.copy()
        other.apply(0, _path("-1 5 -1 4"))
        self.assertEqual(game.currentSeat, 0)
        self.assertEqual(game.pieceAt((-1, 5)), 0)
        self.assertIsNone(other.pieceAt((-1, 5)))

    def test_destinations(self):
        """
        destinations() lists where one piece can go, with paths.
        """
        game = CheckersGame(2)
        self.assertEqual(game.destinations((-2, 6)),
                         {(0, 4): ((-2, 6), (0, 4)),
                          (-2, 4): ((-2, 6), (-2, 4))})
        self.assertEqual(game.destinations((0, 0)), {})

    def _nearlyDone(self, regions="ACE", current=0):
        """
        A position where A (seat 0) has nine pieces in its target D and
        one on (1, -4), one step from the free target cell (1, -5).
        """
        target = sorted(REGION_CELLS["D"])
        pieces = {0: [c for c in target if c != (1, -5)] + [(1, -4)],
                  1: [(5, -1)], 2: [(-4, -1)]}
        if len(regions) == 2:
            pieces = {0: pieces[0], 1: [(0, 4)]}
        elif len(regions) == 1:
            pieces = {0: pieces[0]}
        return CheckersGame.fromPosition(regions, pieces, current)

    def test_finishing(self):
        """
        Bringing the last piece in finishes the player; the others go on
        and the finisher is skipped.
        """
        game = self._nearlyDone()
        result = game.apply(0, _path("1 -4 1 -5"))
        self.assertTrue(result.finished)
        self.assertFalse(result.over)
        self.assertEqual(result.nextSeat, 1)
        self.assertEqual(game.finished, [0])
        self.assertFalse(game.isActive(0))
        game.apply(1, _path("5 -1 4 -1"))
        self.assertEqual(game.currentSeat, 2)
        game.apply(2, _path("-4 -1 -3 -1"))
        self.assertEqual(game.currentSeat, 1)
        self.assertRaises(OutOfTurn, game.apply, 0, _path("1 -5 1 -4"))

    def test_finishEndsTwoPlayer(self):
        """
        In a two-player game the first finisher ends it.
        """
        game = self._nearlyDone("AD")
        result = game.apply(0, _path("1 -4 1 -5"))
        self.assertEqual(result, checkers.TurnResult(
            0, ((1, -4), (1, -5)), True, True, None))
        self.assertTrue(game.isOver)
        self.assertIsNone(game.currentSeat)
        self.assertEqual(game.ranking(), [0, 1])
        self.assertRaises(GameOver, game.apply, 1, _path("0 4 0 3"))
        self.assertRaises(GameOver, game.timeout)
        self.assertEqual(game.legalActions(1), [])

    def test_fourPlayerTurns(self):
        """
        A four-player game plays A, B, D, E in turn, each towards the
        opposite corner.
        """
        game = CheckersGame(4)
        seen = []
        for _ in range(5):
            seat = game.currentSeat
            seen.append(game.regions[seat])
            game.apply(seat, game.legalActions(seat)[0])
        self.assertEqual(seen, list("ABDEA"))
        self.assertEqual([checkers.TARGET[r] for r in game.regions],
                         list("DEAB"))

    def test_solitaireGoesOn(self):
        """
        A player alone keeps the turn after every move; the game does not
        end for being down to one active player.
        """
        game = CheckersGame(1)
        self.assertEqual(game.activeSeats(), [0])
        for _ in range(3):
            result = game.apply(0, game.legalActions(0)[0])
            self.assertEqual(result.nextSeat, 0)
            self.assertFalse(result.over)
        self.assertFalse(game.isOver)
        self.assertEqual(game.ranking(), [0])

    def test_solitaireEndsHome(self):
        """
        A game of one player ends when all ten pieces are home; the
        ranking is that player.
        """
        game = self._nearlyDone("A")
        self.assertEqual(game.piecesInTarget(0), 9)
        result = game.apply(0, _path("1 -4 1 -5"))
        self.assertEqual(result, checkers.TurnResult(
            0, ((1, -4), (1, -5)), True, True, None))
        self.assertTrue(game.isOver)
        self.assertIsNone(game.currentSeat)
        self.assertEqual(game.finished, [0])
        self.assertEqual(game.ranking(), [0])
        self.assertRaises(GameOver, game.timeout)

    def test_solitaireTimeout(self):
        """
        A player alone who runs out of time ends the game, ranked alone.
        """
        game = CheckersGame(1)
        result = game.timeout()
        self.assertEqual(result, checkers.TurnResult(0, None, False, True,
                                                     None))
        self.assertTrue(game.isOver)
        self.assertEqual(game.ranking(), [0])

    def test_finishingFewerPieces(self):
        """
        In a constructed position a seat finishes when all the pieces it
        has are in its target.
        """
        game = CheckersGame.fromPosition(
            "ACE", {0: [(4, -8), (1, -4)], 1: [(5, -1)], 2: [(-4, -1)]})
        self.assertEqual(game.piecesInTarget(0), 1)
        result = game.apply(0, _path("1 -4 1 -5"))
        self.assertTrue(result.finished)
        self.assertEqual(game.finished, [0])

    def test_timeout(self):
        """
        A timeout removes the pieces of the seat to move and passes on.
        """
        game = CheckersGame(3)
        result = game.timeout()
        self.assertEqual(result, checkers.TurnResult(0, None, False, False,
                                                     1))
        self.assertEqual(game.pieces(0), [])
        for cell in REGION_CELLS["A"]:
            self.assertIsNone(game.pieceAt(cell))
        self.assertEqual(game.eliminated, [0])
        self.assertTrue(game.isEliminated(0))
        game.apply(1, game.legalActions(1)[0])
        self.assertEqual(game.currentSeat, 2)
        game.apply(2, game.legalActions(2)[0])
        self.assertEqual(game.currentSeat, 1)

    def test_removedPiecesAreEmpty(self):
        """
        The cells of an eliminated player can be jumped into, not over.
        """
        game = CheckersGame.fromPosition(
            "ACE", {0: [(0, 0)], 1: [(1, 0)], 2: [(3, 0)]}, 2)
        game.timeout()
        self.assertEqual(game.currentSeat, 0)
        self.assertEqual(game.destinations((0, 0)).get((2, 0)),
                         ((0, 0), (2, 0)))
        self.assertNotIn((4, 0), game.destinations((0, 0)))

    def test_eliminateOther(self):
        """
        Eliminating a seat that is not to move keeps the turn.
        """
        game = CheckersGame(3)
        result = game.eliminate(2)
        self.assertEqual(result.nextSeat, 0)
        self.assertEqual(game.currentSeat, 0)
        game.apply(0, game.legalActions(0)[0])
        self.assertEqual(game.currentSeat, 1)
        game.apply(1, game.legalActions(1)[0])
        self.assertEqual(game.currentSeat, 0)
        self.assertRaises(IllegalMove, game.eliminate, 2)

    def test_rankingSpecExample1(self):
        """
        A=alice, C=bob, E=carol: alice finishes, bob times out, carol is
        last: alice carol bob.
        """
        game = self._nearlyDone()
        game.apply(0, _path("1 -4 1 -5"))
        result = game.timeout()
        self.assertTrue(result.over)
        self.assertEqual(game.ranking(), [0, 2, 1])

    def test_rankingSpecExample2(self):
        """
        Two players, A times out: D then A.
        """
        game = CheckersGame(2)
        result = game.timeout()
        self.assertTrue(result.over)
        self.assertEqual(game.ranking(), [1, 0])

    def test_rankingEliminatedMostRecentFirst(self):
        """
        Six players: B, D, E, A, C time out in that order; F, the last
        one active, ranks first, then C, A, E, D, B.
        """
        game = CheckersGame(6)
        game.apply(0, game.legalActions(0)[0])        # A moves
        game.timeout()                                 # B out
        game.apply(2, game.legalActions(2)[0])        # C moves
        game.timeout()                                 # D out
        game.timeout()                                 # E out
        self.assertEqual(game.currentSeat, 5)
        game.apply(5, game.legalActions(5)[0])        # F moves
        self.assertEqual(game.currentSeat, 0)
        game.timeout()                                 # A out
        self.assertEqual(game.currentSeat, 2)
        result = game.timeout()                        # C out: F last
        self.assertTrue(result.over)
        self.assertEqual(game.ranking(), [5, 2, 0, 4, 3, 1])

    def test_rankingWhileRunning(self):
        """
        Before the end, ranking lists finishers, active seats, then the
        eliminated.
        """
        game = CheckersGame(3)
        game.timeout()
        self.assertEqual(game.ranking(), [1, 2, 0])

    def test_fromPositionErrors(self):
        """
        Repeated or off-board cells are refused.
        """
        self.assertRaises(ValueError, CheckersGame.fromPosition, "AD",
                          {0: [(0, 0)], 1: [(0, 0)]})
        self.assertRaises(ValueError, CheckersGame.fromPosition, "AD",
                          {0: [(8, 8)]})
        self.assertRaises(ValueError, CheckersGame.fromPosition, "AD",
                          {}, 5)
        self.assertRaises(ValueError, CheckersGame.fromPosition, "AD",
                          {}, 0, (), (2,))

    def test_fromPositionOut(self):
        """
        The seats a position says finished or were eliminated play on no
        more.
        """
        game = CheckersGame.fromPosition("ACE", {}, 0, [1], [2])
        self.assertEqual((game.finished, game.eliminated), ([1], [2]))
        self.assertEqual(game.activeSeats(), [0])
        self.assertFalse(game.isActive(1))
        self.assertFalse(game.isActive(2))

    def test_render(self):
        """
        render() draws the start position like the picture of the
        board in docs/protocols/checkers.md.
        """
        lines = checkers.render(CheckersGame(6)).splitlines()
        self.assertEqual(len(lines), 17)
        self.assertEqual(lines[0].strip(), "A")
        self.assertEqual(lines[4].split(), list("FFFF.....BBBB"))
        self.assertEqual(lines[16].strip(), "D")

    def test_cellNames(self):
        """
        The hub's notation names each of the 121 cells once: a letter
        from its row's left end, its row from 1 (D's tip) to 17 (A's
        tip); a move is its cells joined by dashes.
        """
        names = [checkers.cellName(cell) for cell in checkers.CELLS]
        self.assertEqual(len(set(names)), 121)
        self.assertEqual(checkers.cellName(checkers.TIPS["D"]), "a1")
        self.assertEqual(checkers.cellName(checkers.TIPS["A"]), "a17")
        self.assertEqual(checkers.cellName((0, 0)), "e9")
        self.assertEqual(checkers.cellName(checkers.TIPS["F"]), "a13")
        self.assertEqual(checkers.cellName(checkers.TIPS["B"]), "m13")
        self.assertEqual(checkers.cellName(checkers.TIPS["E"]), "a5")
        self.assertEqual(checkers.cellName(checkers.TIPS["C"]), "m5")
        # The reading order (top row first, left to right) is the names'.
        self.assertEqual(names[:4], ["a17", "a16", "b16", "a15"])
        self.assertEqual(checkers.moveName([(4, -4), (4, -6)]), "i5-c3")
        self.assertEqual(checkers.moveName([(-2, 6), (0, 4)]), "c15-i13")
        self.assertEqual(checkers.cellName((8, 8)), "8,8")
