"""
Chinese checkers bots.

A seat's position is valued by the distance of each of its pieces to the
tip of its target corner, C{cost(d) = d + BEHIND * d * d} summed over
the pieces (the square term leaves no piece behind), plus small costs for
pieces at home or parked and a large one for walling in another seat's
piece.  Level 2 plays the move that lowers the cost most; level 3 looks
one more own move ahead and, when its time is up
(L{hub.bots.base.Bot.expired}), plays the best move valued so far, or
level 2's.  Why, in full: docs/bots.md, "The strategies".
"""

from typing import Dict, List, Sequence, Tuple

from hub.bots.base import Bot
from hub.games.checkers import (
    REGION_CELLS, TARGET, TIPS, Cell, CheckersGame, Path, cellDistance,
    regionOf)

#: Weight of the square term of a piece's cost (see the module docstring).
BEHIND = 0.05
#: The extra cost of a piece standing in a corner that is neither the
#: seat's home nor its target: pieces parked there can be trapped and
#: spoil another seat's finish.
FOREIGN = 4
#: The extra cost of a piece still in its home corner: the last pieces
#: left at home are the ones that get walled in by the seat whose target
#: it is.
HOME = 2
#: The cost of a move that walls in another seat's piece standing in our
#: target (it could move before and cannot after): neither seat could
#: ever finish.
TRAP = 10
#: How much the second own move counts at level 3.
SECOND = 0.9
#: Level 3 looks at the second move of this many best first moves.
BEAM = 40


def pieceCost(d: float) -> float:
    """
    The cost of a piece at distance C{d} from its target's tip.
    """
    return d + BEHIND * d * d


class Goal:
    """
    Where one seat is going: its target's tip and the corners it should
    not stop in, and what its moves into the target do to other seats'
    pieces there.
    """

    def __init__(self, state: CheckersGame, seat: int) -> None:
        home = state.regionOfSeat(seat)
        self.seat = seat
        self.home = home
        self.target = TARGET[home]
        self.tip = TIPS[self.target]
        self.targetCells = REGION_CELLS[self.target]
        self.allowed = (None, home, self.target)
        self._costs: Dict[Cell, float] = {}

    def cellCost(self, cell: Cell) -> float:
        """
        The cost of one of the seat's pieces standing on C{cell}.
        """
        cost = self._costs.get(cell)
        if cost is None:
            cost = pieceCost(cellDistance(cell, self.tip))
            region = regionOf(*cell)
            if region not in self.allowed:
                cost += FOREIGN
            elif region == self.home:
                cost += HOME
            self._costs[cell] = cost
        return cost

    def gain(self, path: Path, state: CheckersGame) -> float:
        """
        How much playing C{path} in C{state} lowers the seat's cost.
        """
        gain = self.cellCost(path[0]) - self.cellCost(path[-1])
        if regionOf(*path[-1]) == self.target and self.walls(path, state):
            gain -= TRAP
        return gain

    def walls(self, path: Path, state: CheckersGame) -> bool:
        """
        Whether C{path} leaves a piece of another seat standing in our
        target without any move, when it had one before.  Only pieces
        within two cells of the destination can lose their last step or
        their last jump's landing.
        """
        dest = path[-1]
        threatened = []
        for cell in self.targetCells:
            owner = state.pieceAt(cell)
            if (owner is not None and owner != self.seat
                    and cellDistance(cell, dest) <= 2
                    and state.destinations(cell)):
                threatened.append(cell)
        if not threatened:
            return False
        after = state.copy()
        after.currentSeat = self.seat
        after.apply(self.seat, path)
        return any(not after.destinations(cell) for cell in threatened)

    def positionCost(self, state: CheckersGame, seat: int) -> float:
        """
        The total cost of C{seat}'s pieces in C{state} (lower is better).
        """
        return sum(self.cellCost(c) for c in state.pieces(seat))


class CheckersBot(Bot[CheckersGame, Path]):
    """
    A Chinese checkers player for any seat count: level 1 random, level 2
    greedy progress, level 3 two own moves ahead.
    """

    def _best(self, scored: Sequence[Tuple[float, Path]]) -> Path:
        """
        The action of the best C{(score, action)}, ties broken at random.
        """
        best = max(s for s, a in scored)
        ties = [a for s, a in scored if s >= best - 1e-9]
        return ties[0] if len(ties) == 1 else self.random.choice(ties)

    def heuristic(self, state: CheckersGame, seat: int,
                  actions: List[Path]) -> Path:
        goal = Goal(state, seat)
        return self._best([(goal.gain(a, state), a) for a in actions])

    def search(self, state: CheckersGame, seat: int,
               actions: List[Path]) -> Path:
        goal = Goal(state, seat)
        first = sorted(((goal.gain(a, state), i)
                        for i, a in enumerate(actions)), reverse=True)
        if first[0][0] > 0:
            # Never step back for a promise: that can loop for ever.
            first = [(g, i) for g, i in first if g >= 0]
        scored = []
        for gain, i in first[:BEAM]:
            if self.expired():
                # Time is up: the best so far, at worst level 2's move.
                break
            path = actions[i]
            after = state.copy()
            after.apply(seat, path)
            if after.hasFinished(seat) or after.isOver:
                return path
            follow = after.movesOf(seat)
            second = max((goal.gain(a, after) for a in follow), default=0)
            scored.append((gain + SECOND * max(second, 0), path))
        if not scored:
            return self._best([(g, actions[i]) for g, i in first])
        return self._best(scored)
