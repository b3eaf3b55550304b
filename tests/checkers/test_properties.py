"""
Hypothesis properties of L{hub.games.checkers}: the generator and the
validator agree, and random legal games stay consistent.
"""

from hypothesis import event, given, settings, strategies as st
from twisted.trial.unittest import SynchronousTestCase

from hub.games.checkers import (
    CELLS, DIRECTIONS, INDEX, PLAYER_REGIONS, CheckersGame, IllegalMove,
    isValidCell)

PLAYER_COUNTS = sorted(PLAYER_REGIONS)


@st.composite
def positions(draw, minPieces=0):
    """
    A random position: 2 to 6 regions, each seat with C{minPieces} to ten
    pieces anywhere on the board, and a random seat to move.
    """
    n = draw(st.sampled_from(PLAYER_COUNTS))
    regions = PLAYER_REGIONS[n]
    cells = draw(st.permutations(CELLS))
    counts = [draw(st.integers(minPieces, 10)) for _ in regions]
    pieces, k = {}, 0
    for seat, count in enumerate(counts):
        pieces[seat] = cells[k:k + count]
        k += count
    current = draw(st.integers(0, n - 1))
    return CheckersGame.fromPosition(regions, pieces, current)


def referenceDestinations(game, origin):
    """
    Where the piece on C{origin} may go, computed naively from the rule
    text with coordinates only.
    """
    def empty(c):
        return isValidCell(*c) and game.pieceAt(c) is None

    x, y = origin
    found = {(x + dx, y + dy) for dx, dy in DIRECTIONS
             if empty((x + dx, y + dy))}
    seen, todo = {origin}, [origin]
    while todo:
        cx, cy = todo.pop()
        for dx, dy in DIRECTIONS:
            over = (cx + dx, cy + dy)
            land = (cx + 2 * dx, cy + 2 * dy)
            if (isValidCell(*over) and game.pieceAt(over) is not None
                    and empty(land) and land not in seen):
                seen.add(land)
                found.add(land)
                todo.append(land)
    return found


def checkConsistent(testCase, game):
    """
    Assert that no two pieces share a cell and none is off the board.
    """
    everything = []
    for seat in range(game.seatCount):
        mine = game.pieces(seat)
        for cell in mine:
            testCase.assertIn(cell, INDEX)
            testCase.assertEqual(game.pieceAt(cell), seat)
        everything.extend(mine)
    testCase.assertEqual(len(everything), len(set(everything)))
    occupied = [c for c in CELLS if game.pieceAt(c) is not None]
    testCase.assertEqual(sorted(occupied), sorted(everything))


class GeneratorProperties(SynchronousTestCase):
    """
    The generator, the validator and a naive reference agree.
    """

    @settings(max_examples=200, deadline=None)
    @given(positions())
    def test_generatedPathsValidate(self, game):
        """
        Every generated path passes the validator, one per (origin,
        destination) pair.
        """
        for seat in range(game.seatCount):
            moves = game.movesOf(seat)
            pairs = [(m[0], m[-1]) for m in moves]
            self.assertEqual(len(pairs), len(set(pairs)))
            for path in moves:
                self.assertEqual(game.checkPath(seat, path), path)

    @settings(max_examples=200, deadline=None)
    @given(positions())
    def test_matchesReference(self, game):
        """
        The generator finds exactly the destinations of a naive search.
        """
        for seat in range(game.seatCount):
            got = {}
            for path in game.movesOf(seat):
                got.setdefault(path[0], set()).add(path[-1])
            for origin in game.pieces(seat):
                self.assertEqual(got.get(origin, set()),
                                 referenceDestinations(game, origin))

    @settings(max_examples=300, deadline=None)
    @given(st.one_of(positions(), positions(minPieces=8)), st.data())
    def test_validatingPathsAreGenerated(self, game, data):
        """
        A random path (a step, or a chain of jump-sized hops) that the
        validator accepts ends where some generated path ends.
        """
        seat = data.draw(st.integers(0, game.seatCount - 1))
        mine = game.pieces(seat)
        if not mine:
            return
        origin = data.draw(st.sampled_from(mine))
        if data.draw(st.booleans()):
            d = data.draw(st.sampled_from(DIRECTIONS))
            path = (origin, (origin[0] + d[0], origin[1] + d[1]))
        else:
            # Prefer hops over a piece onto a free new cell, so that long
            # chains are common; the validator still decides.
            path = [origin]
            for _ in range(data.draw(st.integers(1, 8))):
                x, y = path[-1]
                good = [(dx, dy) for dx, dy in DIRECTIONS
                        if game.pieceAt((x + dx, y + dy)) is not None
                        and isValidCell(x + 2 * dx, y + 2 * dy)
                        and game.pieceAt((x + 2 * dx, y + 2 * dy)) is None
                        and (x + 2 * dx, y + 2 * dy) not in path]
                if not good and len(path) > 1:
                    break
                dx, dy = data.draw(st.sampled_from(good or DIRECTIONS))
                path.append((x + 2 * dx, y + 2 * dy))
            path = tuple(path)
        try:
            game.checkPath(seat, path)
        except IllegalMove:
            event("refused")
            return
        event("validated %d hops" % (len(path) - 1,))
        ends = {(m[0], m[-1]) for m in game.movesOf(seat)}
        self.assertIn((path[0], path[-1]), ends)

    @settings(max_examples=500, deadline=None)
    @given(st.one_of(positions(), positions(minPieces=8)), st.data())
    def test_quickCheckAgrees(self, game, data):
        """
        The validator's quick path (C{_legalPath}, for a path of cell
        tuples) accepts exactly the paths that L{CheckersGame.checkPath}
        accepts, as the board's own cells, and leaves every refusal to
        it: steps, chains of hops, and random cells, as tuples, lists
        or floats.
        """
        seat = data.draw(st.integers(0, game.seatCount - 1))
        mine = game.pieces(seat) or [(0, 0)]
        origin = data.draw(st.sampled_from(mine))
        path = [origin]
        for _ in range(data.draw(st.integers(1, 6))):
            x, y = path[-1]
            # Mostly a step or a hop over a piece onto a free new cell,
            # so that chains are common; the validators still decide.
            good = [(2 * dx, 2 * dy) for dx, dy in DIRECTIONS
                    if game.pieceAt((x + dx, y + dy)) is not None
                    and isValidCell(x + 2 * dx, y + 2 * dy)
                    and game.pieceAt((x + 2 * dx, y + 2 * dy)) is None
                    and (x + 2 * dx, y + 2 * dy) not in path]
            if len(path) == 1 and data.draw(st.booleans()):
                good = [(dx, dy) for dx, dy in DIRECTIONS
                        if isValidCell(x + dx, y + dy)
                        and game.pieceAt((x + dx, y + dy)) is None]
            elif not good and len(path) > 1 and data.draw(st.integers(0, 3)):
                break
            if not data.draw(st.integers(0, 4)):
                # A hop onto an occupied cell, over a piece or not.
                good = [(2 * dx, 2 * dy) for dx, dy in DIRECTIONS
                        if game.pieceAt((x + 2 * dx, y + 2 * dy))
                        is not None]
            if good and data.draw(st.integers(0, 3)):
                dx, dy = data.draw(st.sampled_from(good))
            else:
                dx, dy = data.draw(st.sampled_from(DIRECTIONS))
                hop = data.draw(st.sampled_from((1, 1, 2, 3)))
                dx, dy = hop * dx, hop * dy
            path.append((x + dx, y + dy))
        if data.draw(st.integers(0, 9)) == 0:
            path += data.draw(st.lists(st.tuples(st.integers(-9, 9),
                                                 st.integers(-9, 9)),
                                       max_size=2))
        form = data.draw(st.sampled_from(("tuples", "lists", "floats")))
        if form == "lists":
            path = [list(cell) for cell in path]
        elif form == "floats":
            path = [(float(x), float(y)) for x, y in path]
        try:
            checked = game.checkPath(seat, path)
        except IllegalMove:
            self.assertIsNone(game._legalPath(seat, path))
            event("refused")
            return
        quick = game._legalPath(seat, path)
        expected = tuple(CELLS[INDEX[cell]] for cell in checked)
        if quick is None:
            self.assertNotEqual(form, "tuples")
        else:
            self.assertEqual(quick, expected)
            for cell, board in zip(quick, expected):
                self.assertIs(cell, board)
        event("validated %d hops (%s)" % (len(path) - 1, form))

    @settings(max_examples=300, deadline=None)
    @given(positions(), st.lists(st.tuples(st.integers(-9, 9),
                                           st.integers(-9, 9)),
                                 min_size=0, max_size=5), st.data())
    def test_illegalLeavesStateAlone(self, game, tail, data):
        """
        Any path the validator refuses leaves the game unchanged.
        """
        seat = game.currentSeat
        mine = game.pieces(seat)
        start = data.draw(st.sampled_from(mine)) if mine else (0, 0)
        path = (start,) + tuple(tail)
        before = [game.pieces(s) for s in range(game.seatCount)]
        try:
            game.apply(seat, path)
        except IllegalMove:
            after = [game.pieces(s) for s in range(game.seatCount)]
            self.assertEqual(after, before)
            self.assertEqual(game.currentSeat, seat)


class RandomGameProperties(SynchronousTestCase):
    """
    Random legal play never breaks the board.
    """

    @settings(max_examples=60, deadline=None)
    @given(st.sampled_from(PLAYER_COUNTS), st.randoms(use_true_random=False),
           st.integers(1, 150))
    def test_randomGames(self, n, rng, plies):
        """
        Random legal moves and timeouts keep one piece per cell, every
        piece on the board, ten pieces per player still playing, and the
        turn on an active seat.
        """
        game = CheckersGame(n)
        for _ in range(plies):
            if game.isOver:
                break
            seat = game.currentSeat
            self.assertTrue(game.isActive(seat))
            moves = game.legalActions(seat)
            if not moves or rng.random() < 0.01:
                game.timeout()
            else:
                game.apply(seat, rng.choice(moves))
            checkConsistent(self, game)
            for s in range(n):
                expected = 0 if game.isEliminated(s) else 10
                self.assertEqual(len(game.pieces(s)), expected)
        if game.isOver:
            self.assertEqual(sorted(game.ranking()), list(range(n)))
