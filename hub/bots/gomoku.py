"""
Gomoku bots.

Both heuristics rest on the five-cell windows of the board (572 of them
on 15x15): a window holding stones of one colour only is a chance for that
colour, and the more stones it holds the more it is worth.

  - level 2 scores every empty cell near the stones by the windows through
    it (attack: windows holding only our stones; defence: windows holding
    only the opponent's), which rates open and closed twos, threes and
    fours of both sides, and plays the best;
  - level 3 runs an alpha-beta search over the best few cells of that
    ordering, with forced replies to fours and an incremental evaluation
    of the whole board, deepening two plies at a time until its node
    budget or its time (L{hub.bots.base.Bot.expired}) runs out; it then
    plays the best cell found so far, at worst level 2's best cell.
"""

from typing import List, Optional, Set, Tuple, cast

from hub.bots.base import Bot
from hub.games.gomoku import (
    CELLS, EMPTY, SEAT_COLOURS, SIZE, Cell, GomokuGame)

CENTRE = (SIZE // 2) * SIZE + SIZE // 2


def _windows() -> Tuple[Tuple[int, ...], ...]:
    """
    Every run of five cells in a line, as tuples of cell indexes.
    """
    out = []
    for y in range(SIZE):
        for x in range(SIZE):
            for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
                ex, ey = x + 4 * dx, y + 4 * dy
                if 0 <= ex < SIZE and 0 <= ey < SIZE:
                    out.append(tuple((y + k * dy) * SIZE + x + k * dx
                                     for k in range(5)))
    return tuple(out)


WINDOWS = _windows()
CELL_WINDOWS = tuple(
    tuple(w for w, cells in enumerate(WINDOWS) if c in cells)
    for c in range(CELLS))


def _near(c: int, reach: int = 2) -> Tuple[int, ...]:
    x, y = c % SIZE, c // SIZE
    return tuple(ny * SIZE + nx
                 for ny in range(max(0, y - reach), min(SIZE, y + reach + 1))
                 for nx in range(max(0, x - reach), min(SIZE, x + reach + 1))
                 if (nx, ny) != (x, y))


NEAR = tuple(_near(c) for c in range(CELLS))

# Cell scores (the classic five-tuple table): what one more stone in a
# window is worth, by the stones already in it.  ATTACK[k]: the window
# holds k of ours and none of theirs; DEFENCE[k]: k of theirs, none of ours.
EMPTY_WINDOW = 7
ATTACK = (EMPTY_WINDOW, 35, 800, 15000, 800000)
DEFENCE = (EMPTY_WINDOW, 15, 400, 1800, 100000)

# Position values for the search: a window with k stones of one colour
# only, from that colour's side.
LINE = (0, 1, 12, 150, 2000, 0)
WIN = 10 ** 7


class _OutOfNodes(Exception):
    """
    The search used up its node budget, or its time.
    """


class Board:
    """
    A gomoku position with per-window stone counts kept up to date, for
    fast cell scores and evaluation; play and undo are incremental.

    @ivar cells: L{CELLS} ints, L{EMPTY} or a colour index + 1.
    @ivar counts: two lists (black, white) of stones per window.
    @ivar fours: two sets (black, white) of windows holding four stones
        of that colour and none of the other (one move from five).
    @ivar value: the evaluation from black's side.
    """

    def __init__(self, game: Optional[GomokuGame] = None) -> None:
        self.cells = [0] * CELLS
        self.counts = ([0] * len(WINDOWS), [0] * len(WINDOWS))
        self.fours: Tuple[Set[int], Set[int]] = (set(), set())
        self.near = [0] * CELLS
        self.value = 0
        self.stones = 0
        self.winner: Optional[int] = None
        if game is not None:
            for i, stone in enumerate(game.board):
                if stone != EMPTY:
                    self.play(i, SEAT_COLOURS.index(stone))

    def play(self, c: int, side: int) -> None:
        """
        Put a stone of C{side} (0 black, 1 white) on cell C{c}.
        """
        self.cells[c] = side + 1
        own, other = self.counts[side], self.counts[1 - side]
        ownFours, otherFours = self.fours[side], self.fours[1 - side]
        sign = 1 if side == 0 else -1
        delta = 0
        for w in CELL_WINDOWS[c]:
            a, b = own[w], other[w]
            own[w] = a + 1
            if b == 0:
                if a == 4:
                    self.winner = side
                else:
                    delta += LINE[a + 1] - LINE[a]
                    if a == 3:
                        ownFours.add(w)
            elif a == 0:
                delta += LINE[b]
                if b == 4:
                    otherFours.discard(w)
        self.value += sign * delta
        self.stones += 1
        for n in NEAR[c]:
            self.near[n] += 1

    def undo(self, c: int) -> None:
        """
        Take the stone off cell C{c} again.
        """
        side = self.cells[c] - 1
        self.cells[c] = 0
        own, other = self.counts[side], self.counts[1 - side]
        ownFours, otherFours = self.fours[side], self.fours[1 - side]
        sign = 1 if side == 0 else -1
        delta = 0
        for w in CELL_WINDOWS[c]:
            a, b = own[w] - 1, other[w]
            own[w] = a
            if b == 0:
                if a < 4:
                    delta += LINE[a + 1] - LINE[a]
                if a == 3:
                    ownFours.discard(w)
            elif a == 0:
                delta += LINE[b]
                if b == 4:
                    otherFours.add(w)
        self.value -= sign * delta
        self.stones -= 1
        self.winner = None
        for n in NEAR[c]:
            self.near[n] -= 1

    def cellScore(self, c: int, side: int) -> int:
        """
        The five-tuple score of an empty cell C{c} for C{side} to play.
        """
        own, other = self.counts[side], self.counts[1 - side]
        score = 0
        for w in CELL_WINDOWS[c]:
            a, b = own[w], other[w]
            if b == 0:
                score += ATTACK[a]
            elif a == 0:
                score += DEFENCE[b]
        return score

    def candidates(self) -> List[int]:
        """
        Empty cells within two of a stone (the centre on an empty board).
        """
        cells, near = self.cells, self.near
        out = [c for c in range(CELLS) if near[c] and not cells[c]]
        if not out and not cells[CENTRE]:
            out = [CENTRE]
        return out

    def winningCells(self, side: int) -> Set[int]:
        """
        The empty cells that would give C{side} five now.
        """
        cells = self.cells
        out = set()
        for w in self.fours[side]:
            for c in WINDOWS[w]:
                if not cells[c]:
                    out.add(c)
        return out

    def ranked(self, side: int) -> List[Tuple[int, int]]:
        """
        The candidate cells best first for C{side}, with their scores.
        """
        scored = [(self.cellScore(c, side), c) for c in self.candidates()]
        scored.sort(reverse=True)
        return scored


class GomokuBot(Bot[GomokuGame, Cell]):
    """
    A gomoku player: level 1 random, level 2 five-tuple cell scores,
    level 3 alpha-beta search on the best cells.

    @ivar depth: plies searched at level 3.
    @ivar widths: how many cells are tried at each ply of the search.
    """

    depth = 6
    widths = (12, 10, 8, 6, 5, 4)
    #: Past this many searched positions, the search evaluates instead
    #: of looking deeper (a bound on time that stays deterministic).
    maxNodes = 8000
    #: The search asks whether its time is up every this many positions
    #: (and before each depth).
    clockEvery = 32

    def _board(self, state: GomokuGame) -> Board:
        return Board(state)

    def heuristic(self, state: GomokuGame, seat: int,
                  actions: List[Cell]) -> Cell:
        board = self._board(state)
        ranked = board.ranked(seat)
        if not ranked:
            return self.random.choice(actions)
        best = ranked[0][0]
        ties = [c for s, c in ranked if s == best]
        c = self.random.choice(ties)
        return (c % SIZE, c // SIZE)

    def search(self, state: GomokuGame, seat: int,
               actions: List[Cell]) -> Cell:
        board = self._board(state)
        side = seat
        ranked = board.ranked(side)
        if not ranked:
            return self.random.choice(actions)
        # A five now; else block the opponent's five.
        win = board.winningCells(side)
        if win:
            c = min(win)
            return (c % SIZE, c // SIZE)
        forced = board.winningCells(1 - side)
        if forced:
            moves = sorted(forced)
        else:
            moves = [c for s, c in ranked[:self.widths[0]]]
        # Iterative deepening by two plies, the last best move searched
        # first.  A search that runs out of its node budget keeps the
        # moves it completed: the first of them is the last best move.
        self.nodes = 0
        best = moves[0]
        for depth in range(2, self.depth + 1, 2):
            if self.expired():
                break
            moves = [best] + [c for c in moves if c != best]
            # Optional, not None: _root sets it (mypy would keep None).
            self._partial = cast(Optional[int], None)
            try:
                best = self._root(board, side, moves, depth)
            except _OutOfNodes:
                if self._partial is not None:
                    best = self._partial
                break
        return (best % SIZE, best // SIZE)

    def _root(self, board: Board, side: int, moves: List[int],
              depth: int) -> int:
        best, bestScore = moves[0], -WIN * 10
        alpha, beta = -WIN * 10, WIN * 10
        for c in moves:
            board.play(c, side)
            try:
                score = -self._negamax(board, 1 - side, depth - 1, 1,
                                       -beta, -alpha)
            finally:
                board.undo(c)
            # A random nudge breaks ties differently per seed.
            if score > bestScore or (score == bestScore
                                     and self.random.random() < 0.5):
                best, bestScore = c, score
            if score > alpha:
                alpha = score
            self._partial = best
        return best

    def _evaluate(self, board: Board, side: int) -> int:
        """
        The static value of C{board} for C{side}, who is to move.
        """
        if board.fours[side]:
            return WIN // 2
        if len(board.winningCells(1 - side)) > 1:
            return -WIN // 2
        value = board.value if side == 0 else -board.value
        return value

    def _negamax(self, board: Board, side: int, depth: int, ply: int,
                 alpha: int, beta: int) -> int:
        if board.winner is not None:
            # The previous move made five.
            return -WIN + ply
        if board.stones == CELLS:
            return 0
        self.nodes += 1
        if self.nodes > self.maxNodes or (
                self.nodes % self.clockEvery == 0 and self.expired()):
            raise _OutOfNodes()
        if depth == 0:
            return self._evaluate(board, side)
        if board.fours[side]:
            return WIN - ply - 1
        forced = board.winningCells(1 - side)
        if forced:
            moves = list(forced)[:2]
        else:
            width = self.widths[min(ply, len(self.widths) - 1)]
            moves = [c for s, c in board.ranked(side)[:width]]
        best = -WIN * 10
        for c in moves:
            board.play(c, side)
            try:
                score = -self._negamax(board, 1 - side, depth - 1,
                                       ply + 1, -beta, -alpha)
            finally:
                board.undo(c)
            if score > best:
                best = score
            if score > alpha:
                alpha = score
            if alpha >= beta:
                break
        return best
