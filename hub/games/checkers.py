"""
Chinese checkers (docs/protocols/checkers.md: The board, Who plays which
region, A legal move, and the end of a game in Flows): the 121-cell star
board in the protocol's oblique coordinates, the six corner regions, the
move rule, finishing, elimination, turn order and ranking.

A cell is an C{(x, y)} tuple of ints.  A path (the action of
L{CheckersGame}) is a tuple of at least two cells: the piece's origin,
then every position it lands on, either one step to a neighbour or a
chain of jumps over adjacent pieces, never revisiting a cell.  Seats are
numbered from 0 in region order (3 players: seat 0 is A, 1 C, 2 E).

Pure: no Twisted, no wire format.
"""

from __future__ import annotations

from typing import (
    Any, Dict, FrozenSet, List, Mapping, NamedTuple, Optional, Sequence, Tuple)

from zope.interface import implementer

from hub.games.state import copyState
from hub.ihub import IGameRules

Cell = Tuple[int, int]
Path = Tuple[Cell, ...]

REGION_LETTERS = "ABCDEF"

# Which regions play, by number of players (Who plays which region); one
# player alone is the solitaire race from A.
PLAYER_REGIONS = {
    1: ("A",),
    2: ("A", "D"),
    3: ("A", "C", "E"),
    4: ("A", "B", "D", "E"),
    6: ("A", "B", "C", "D", "E", "F"),
}

# The player counts that start without the four-player option.
STANDARD_PLAYER_COUNTS = (2, 3, 6)

# Every player count a game can have.
PLAYER_COUNTS = tuple(sorted(PLAYER_REGIONS))

# The tip (outermost cell) of each region.
TIPS = {"A": (-4, 8), "B": (4, 4), "C": (8, -4), "D": (4, -8),
        "E": (-4, -4), "F": (-8, 4)}

TARGET = {"A": "D", "B": "E", "C": "F", "D": "A", "E": "B", "F": "C"}

# The six neighbour vectors (The board); a jump is twice one of them.
DIRECTIONS = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))

PIECES_PER_PLAYER = 10


def isValidCell(x: int, y: int) -> bool:
    """
    Whether C{(x, y)} is one of the 121 cells of the star (The board).
    """
    return ((x >= -4 and y >= -4 and x + y <= 4)
            or (x <= 4 and y <= 4 and x + y >= -4))


def regionOf(x: int, y: int) -> Optional[str]:
    """
    The corner region letter of a valid cell, or None for the hexagon.
    """
    if y >= 5:
        return "A"
    if x + y >= 5:
        return "B"
    if x >= 5:
        return "C"
    if y <= -5:
        return "D"
    if x + y <= -5:
        return "E"
    if x <= -5:
        return "F"
    return None


# Cells in reading order: top row first, left to right.
CELLS: Tuple[Cell, ...] = tuple(
    (x, y) for y in range(8, -9, -1) for x in range(-8, 9)
    if isValidCell(x, y))
# Keyed by any tuple of ints, so that a cell given as a list can be
# looked up as C{tuple(cell)} (a tuple of another length is not found).
INDEX: Dict[Tuple[int, ...], int] = {cell: i for i, cell in enumerate(CELLS)}
CELL_COUNT = len(CELLS)

# The first x of each row (L{cellName}).
_ROW_START: Dict[int, int] = {
    y: min(x for x, row in CELLS if row == y) for y in range(-8, 9)}
_ROW_LETTERS = "abcdefghijklm"


def cellName(cell: Sequence[int]) -> str:
    """
    The hub's name of a cell (docs/games.md, "Writing checkers moves"):
    a letter counting from its row's left end, then its row from 1 at
    the bottom (D's tip, a1) to 17 at the top (A's tip, a17); the
    centre is e9.  A cell off the board is written x,y.
    """
    x, y = cell
    if not isValidCell(x, y):
        return "{},{}".format(x, y)
    return "{}{}".format(_ROW_LETTERS[x - _ROW_START[y]], y + 9)


def moveName(path: Sequence[Sequence[int]]) -> str:
    """
    A move in the hub's notation: its path's cells joined by dashes
    (C{i5-c3}: from i5 over d4 to c3).
    """
    return "-".join(cellName(cell) for cell in path)


REGION_CELLS: Dict[str, FrozenSet[Cell]] = {
    letter: frozenset(c for c in CELLS if regionOf(*c) == letter)
    for letter in REGION_LETTERS}

# Index tables: the neighbours of each cell, and the (over, landing)
# pairs of each cell's possible jumps.  Only on-board cells appear.
_NEIGHBOURS: Tuple[Tuple[int, ...], ...] = tuple(
    tuple(INDEX[(x + dx, y + dy)] for dx, dy in DIRECTIONS
          if (x + dx, y + dy) in INDEX)
    for x, y in CELLS)
_JUMPS: Tuple[Tuple[Tuple[int, int], ...], ...] = tuple(
    tuple((INDEX[(x + dx, y + dy)], INDEX[(x + 2 * dx, y + 2 * dy)])
          for dx, dy in DIRECTIONS
          if (x + 2 * dx, y + 2 * dy) in INDEX)
    for x, y in CELLS)
# The same, as sets of neighbours and {landing: over} of each cell.
_STEPS: Tuple[FrozenSet[int], ...] = tuple(
    frozenset(each) for each in _NEIGHBOURS)
_JUMP_OVER: Tuple[Dict[int, int], ...] = tuple(
    {land: over for over, land in each} for each in _JUMPS)
_REGION_INDEXES: Dict[str, FrozenSet[int]] = {
    letter: frozenset(INDEX[c] for c in cells)
    for letter, cells in REGION_CELLS.items()}


def cellDistance(a: Cell, b: Cell) -> int:
    """
    The number of steps between two cells on an unbounded hex grid.
    """
    dx = a[0] - b[0]
    dy = a[1] - b[1]
    return max(abs(dx), abs(dy), abs(dx + dy))


class IllegalMove(ValueError):
    """
    A move breaks the rules; the state is unchanged.

    @ivar reason: a short readable explanation.
    """

    def __init__(self, reason: str):
        ValueError.__init__(self, reason)
        self.reason = reason


class OutOfTurn(IllegalMove):
    """
    The seat that tried to move is not the one to move.
    """


class GameOver(IllegalMove):
    """
    The game has ended; nothing more can be played.
    """


class TurnResult(NamedTuple):
    """
    What happened when a move was played or a player eliminated.

    @ivar seat: the seat that moved (or was eliminated).
    @ivar path: the canonical path moved, or None for an elimination.
    @ivar finished: True if that move brought all of the seat's pieces
        into its target region.
    @ivar over: True if the game ended with it.
    @ivar nextSeat: the seat to move next, or None when over.
    """

    seat: int
    path: Optional[Path]
    finished: bool
    over: bool
    nextSeat: Optional[int]


@implementer(IGameRules)
class CheckersGame:
    """
    One game of Chinese checkers for 1, 2, 3, 4 or 6 players.

    A game of several players ends when at most one of them is still
    playing; a game of one (the solitaire race) ends when its player
    brings all ten pieces home or is eliminated.

    @ivar regions: the region letter of each seat, in seat order.
    @ivar seatCount: the number of seats.
    @ivar currentSeat: the seat to move, or None once the game is over.
    @ivar isOver: True once the game has ended (see above).
    @ivar finished: seats that finished, in finishing order.
    @ivar eliminated: seats eliminated (timed out), in order.
    """

    def __init__(self, playerCount: int = 2,
                 regions: Optional[Sequence[str]] = None):
        """
        Set up the starting position.

        @param playerCount: 1, 2, 3, 4 or 6 (ignored when C{regions}
            given).
        @param regions: the regions in play, e.g. C{"ACE"}; seats follow
            alphabetical region order.
        @raise ValueError: for an unknown player count or bad regions.
        """
        if regions is None:
            if playerCount not in PLAYER_REGIONS:
                raise ValueError("no game for %r players" % (playerCount,))
            regions = PLAYER_REGIONS[playerCount]
        regions = tuple(sorted(regions))
        if (not regions or len(set(regions)) != len(regions)
                or not set(regions) <= set(REGION_LETTERS)):
            raise ValueError("bad regions %r" % (regions,))
        self.regions = regions
        self.seatCount = len(regions)
        # _board[i] is 0 for an empty cell, else 1 + the owner's seat.
        self._board = bytearray(CELL_COUNT)
        self._pieces: List[List[int]] = []
        for seat, letter in enumerate(regions):
            cells = sorted(_REGION_INDEXES[letter])
            for i in cells:
                self._board[i] = seat + 1
            self._pieces.append(cells)
        self._targets = [_REGION_INDEXES[TARGET[r]] for r in regions]
        self._inTarget = [0] * self.seatCount
        for seat in range(self.seatCount):
            self._recount(seat)
        self.finished: List[int] = []
        self.eliminated: List[int] = []
        self._active = [True] * self.seatCount
        self._lastActive: Optional[int] = None
        self.currentSeat: Optional[int] = 0
        self.isOver = False
        self.plies = 0

    @classmethod
    def fromPosition(cls, regions: Sequence[str],
                     pieces: Mapping[int, Sequence[Sequence[int]]],
                     currentSeat: int = 0, finished: Sequence[int] = (),
                     eliminated: Sequence[int] = ()) -> "CheckersGame":
        """
        Build a game with the given pieces instead of the start position
        (for tests, puzzles, benchmarks and a spectator's view).

        @param regions: the regions in play (sorted into seat order).
        @param pieces: for each seat, the cells of its pieces (any
            number, including none).
        @param currentSeat: the seat to move.
        @param finished: the seats that brought their pieces home, in
            order; C{eliminated}, those eliminated.  Neither plays on.
        @raise ValueError: a cell is off the board or used twice, or a
            seat is not the game's.
        """
        game = cls(regions=regions)
        game._board = bytearray(CELL_COUNT)
        game._pieces = [[] for _ in game.regions]
        for seat in range(game.seatCount):
            for cell in pieces.get(seat, ()):
                i = INDEX.get(tuple(cell))
                if i is None or game._board[i]:
                    raise ValueError("bad or repeated cell %r" % (cell,))
                game._board[i] = seat + 1
                game._pieces[seat].append(i)
            game._pieces[seat].sort()
            game._recount(seat)
        for seat in (currentSeat, *finished, *eliminated):
            if not 0 <= seat < game.seatCount:
                raise ValueError("no seat %r" % (seat,))
        game.currentSeat = currentSeat
        game.finished = list(finished)
        game.eliminated = list(eliminated)
        for seat in game.finished + game.eliminated:
            game._active[seat] = False
        return game

    def copy(self) -> "CheckersGame":
        """
        An independent copy of this game.
        """
        return copyState(self)

    def snapshot(self) -> Dict[str, Any]:
        """
        The whole state as JSON-able data (the position a bot worker is
        sent, L{hub.games.codec}): the regions, each seat's pieces as
        C{[x, y]} cells, who is to move, who finished or was eliminated
        and who still plays.  L{fromSnapshot} rebuilds it.
        """
        return {"regions": "".join(self.regions),
                "pieces": [[list(CELLS[i]) for i in pieces]
                           for pieces in self._pieces],
                "currentSeat": self.currentSeat,
                "finished": list(self.finished),
                "eliminated": list(self.eliminated),
                "active": list(self._active),
                "lastActive": self._lastActive,
                "isOver": self.isOver, "plies": self.plies}

    @classmethod
    def fromSnapshot(cls, data: Mapping[str, Any]) -> "CheckersGame":
        """
        The game of a L{snapshot}.

        @raise ValueError: C{data} is not the snapshot of a game.
        """
        try:
            game = cls.fromPosition(
                data["regions"],
                {seat: [tuple(cell) for cell in cells]
                 for seat, cells in enumerate(data["pieces"])})
            seats = range(game.seatCount)
            current = data["currentSeat"]
            if current is not None and current not in seats:
                raise ValueError("no seat %r" % (current,))
            game.currentSeat = current
            game.finished = [int(s) for s in data["finished"]]
            game.eliminated = [int(s) for s in data["eliminated"]]
            game._active = [bool(a) for a in data["active"]]
            if len(game._active) != game.seatCount:
                raise ValueError("one active flag per seat")
            game._lastActive = data["lastActive"]
            game.isOver = bool(data["isOver"])
            game.plies = int(data["plies"])
        except (KeyError, TypeError) as e:
            raise ValueError("not a checkers snapshot: %s" % (e,))
        return game

    # Queries

    def seatOfRegion(self, region: str) -> Optional[int]:
        """
        The seat playing C{region}, or None if nobody does.
        """
        try:
            return self.regions.index(region)
        except ValueError:
            return None

    def regionOfSeat(self, seat: int) -> str:
        """
        The region letter of C{seat}.
        """
        return self.regions[seat]

    def pieceAt(self, cell: Cell) -> Optional[int]:
        """
        The seat owning the piece on C{cell}, or None (empty or off board).
        """
        i = INDEX.get(tuple(cell))
        if i is None or not self._board[i]:
            return None
        return self._board[i] - 1

    def pieces(self, seat: int) -> List[Cell]:
        """
        The cells of C{seat}'s pieces, in reading order.
        """
        return [CELLS[i] for i in self._pieces[seat]]

    def isActive(self, seat: int) -> bool:
        """
        Whether C{seat} is still playing (not finished, not eliminated).
        """
        return self._active[seat] and not self.isOver

    def activeSeats(self) -> List[int]:
        """
        The seats still playing, in seat order.
        """
        if self.isOver:
            return []
        return [s for s in range(self.seatCount) if self._active[s]]

    def hasFinished(self, seat: int) -> bool:
        """
        Whether C{seat} brought all its pieces into its target.
        """
        return seat in self.finished

    def isEliminated(self, seat: int) -> bool:
        """
        Whether C{seat} was eliminated.
        """
        return seat in self.eliminated

    def ranking(self) -> List[int]:
        """
        Seats best first (End, in Flows): finishers in finishing order, the
        last active player, then eliminated players, most recent first.
        While the game runs, active players come after the finishers in
        seat order.
        """
        if self.isOver:
            middle = [] if self._lastActive is None else [self._lastActive]
        else:
            middle = self.activeSeats()
        return self.finished + middle + self.eliminated[::-1]

    # Moves

    def legalActions(self, seat: int) -> List[Path]:
        """
        Every legal move of C{seat}, one path per (origin, destination)
        pair; empty unless C{seat} is to move.
        """
        if seat != self.currentSeat:
            return []
        return self.movesOf(seat)

    def movesOf(self, seat: int) -> List[Path]:
        """
        Every move C{seat}'s pieces could make in this position, whoever
        is to move (for hints).  One path per (origin, destination).
        """
        out: List[Path] = []
        board = self._board
        neighbours = _NEIGHBOURS
        jumps = _JUMPS
        cells = CELLS
        for origin in self._pieces[seat]:
            start = cells[origin]
            for n in neighbours[origin]:
                if not board[n]:
                    out.append((start, cells[n]))
            # Breadth-first over jumps.  The origin stays marked as
            # occupied: it can never be a pivot of its own chain (every
            # cell of the chain has the origin's parity) and a chain may
            # not land back on it.
            seen = {origin}
            frontier: List[Tuple[int, Path]] = [(origin, (start,))]
            for cell, path in frontier:
                for over, land in jumps[cell]:
                    if board[over] and not board[land] and land not in seen:
                        seen.add(land)
                        longer = path + (cells[land],)
                        frontier.append((land, longer))
                        out.append(longer)
        return out

    def destinations(self, cell: Cell) -> Dict[Cell, Path]:
        """
        Every cell the piece on C{cell} can reach, each with one path.
        Empty when C{cell} holds no piece.
        """
        i = INDEX.get(tuple(cell))
        if i is None or not self._board[i]:
            return {}
        seat = self._board[i] - 1
        return {path[-1]: path for path in self.movesOf(seat)
                if path[0] == CELLS[i]}

    def checkPath(self, seat: int, path: Sequence[Cell]) -> Path:
        """
        Check C{path} for C{seat}'s piece by the rules of A legal move,
        whoever is to move.

        @return: the path as a tuple of cell tuples.
        @raise IllegalMove: with the reason.
        """
        try:
            path = tuple([(int(x), int(y)) for x, y in path])
        except (TypeError, ValueError):
            raise IllegalMove("a path is a sequence of (x, y) cells")
        if len(path) < 2:
            raise IllegalMove("a path needs at least two positions")
        board = self._board
        origin = INDEX.get(path[0])
        if origin is None or board[origin] != seat + 1:
            raise IllegalMove("no piece of yours at (%d,%d)" % path[0])
        if len(set(path)) != len(path):
            raise IllegalMove("the path visits a cell twice")
        for x, y in path[1:]:
            i = INDEX.get((x, y))
            if i is None:
                raise IllegalMove("(%d,%d) is off the board" % (x, y))
            if board[i]:
                raise IllegalMove("(%d,%d) is occupied" % (x, y))
        if len(path) == 2:
            (x0, y0), (x1, y1) = path
            if (x1 - x0, y1 - y0) in DIRECTIONS:
                return path
        for k in range(1, len(path)):
            (x0, y0), (x1, y1) = path[k - 1], path[k]
            dx, dy = x1 - x0, y1 - y0
            if dx % 2 or dy % 2 or (dx // 2, dy // 2) not in DIRECTIONS:
                if len(path) > 2 and (dx, dy) in DIRECTIONS:
                    raise IllegalMove(
                        "a step cannot be chained with other moves")
                raise IllegalMove("(%d,%d) to (%d,%d) is not a step or a jump"
                                  % (x0, y0, x1, y1))
            mid = (x0 + dx // 2, y0 + dy // 2)
            if not board[INDEX[mid]]:
                raise IllegalMove(
                    "no piece to jump over at (%d,%d)" % mid)
        return path

    def validate(self, seat: int, path: Sequence[Cell]) -> Path:
        """
        Check that C{seat} may play C{path} now.

        @return: the canonical path, made of the board's own cell tuples
            (L{CELLS}): a game keeps no cell tuples of its own a move.
        @raise GameOver: the game has ended.
        @raise OutOfTurn: it is not C{seat}'s turn.
        @raise IllegalMove: the path breaks the rules.
        """
        if self.isOver:
            raise GameOver("the game is over")
        if seat != self.currentSeat:
            # A game that is not over always has a seat to move.
            assert self.currentSeat is not None
            raise OutOfTurn("it is %s's turn"
                            % (self.regions[self.currentSeat],))
        legal = self._legalPath(seat, path)
        if legal is not None:
            return legal
        return tuple([CELLS[INDEX[cell]]
                      for cell in self.checkPath(seat, path)])

    def _legalPath(self, seat: int, path: Sequence[Cell]) -> Optional[Path]:
        """
        C{path} made of the board's own cells, when it is a legal move of
        C{seat}'s given as tuples of cells (as the wire's); else None,
        and L{checkPath} says why, or reads the other form.
        """
        try:
            indexes = [INDEX[cell] for cell in path]
        except (KeyError, TypeError):
            return None
        board = self._board
        count = len(indexes)
        if (count < 2 or board[indexes[0]] != seat + 1
                or len(set(indexes)) != count):
            return None
        if count == 2 and indexes[1] in _STEPS[indexes[0]]:
            if board[indexes[1]]:
                return None
        else:
            for k in range(1, count):
                land = indexes[k]
                over = _JUMP_OVER[indexes[k - 1]].get(land)
                if over is None or not board[over] or board[land]:
                    return None
        return tuple([CELLS[i] for i in indexes])

    def apply(self, seat: int, action: Sequence[Cell]) -> TurnResult:
        """
        Play the path C{action} for C{seat}.

        @raise IllegalMove: (or L{OutOfTurn}, L{GameOver}) when illegal;
            the state is then unchanged.
        """
        path = self.validate(seat, action)
        return self._play(seat, path)

    def _play(self, seat: int, path: Path) -> TurnResult:
        """
        Play an already validated path.
        """
        origin, dest = INDEX[path[0]], INDEX[path[-1]]
        self._board[origin] = 0
        self._board[dest] = seat + 1
        pieces = self._pieces[seat]
        pieces.remove(origin)
        pieces.append(dest)
        pieces.sort()
        target = self._targets[seat]
        self._inTarget[seat] += (dest in target) - (origin in target)
        self.plies += 1
        finished = self._inTarget[seat] == len(pieces)
        if finished:
            self._active[seat] = False
            self.finished.append(seat)
        return self._advance(seat, path, finished)

    def eliminate(self, seat: int) -> TurnResult:
        """
        Eliminate C{seat} (a timeout, or a player who left): its pieces
        are removed from the board.  If it was C{seat}'s turn, the turn
        passes on.

        @raise GameOver: the game has ended.
        @raise IllegalMove: C{seat} is not an active player.
        """
        if self.isOver:
            raise GameOver("the game is over")
        if not self._active[seat]:
            raise IllegalMove("seat %d is not playing" % (seat,))
        for i in self._pieces[seat]:
            self._board[i] = 0
        self._pieces[seat] = []
        self._inTarget[seat] = 0
        self._active[seat] = False
        self.eliminated.append(seat)
        if seat == self.currentSeat:
            return self._advance(seat, None, False)
        if self._checkOver():
            return TurnResult(seat, None, False, True, None)
        return TurnResult(seat, None, False, False, self.currentSeat)

    def timeout(self) -> TurnResult:
        """
        The seat to move ran out of time: eliminate it.
        """
        if self.isOver:
            raise GameOver("the game is over")
        assert self.currentSeat is not None
        return self.eliminate(self.currentSeat)

    def _advance(self, seat: int, path: Optional[Path],
                 finished: bool) -> TurnResult:
        """
        End C{seat}'s turn: end the game or pick the next active seat.
        """
        if self._checkOver():
            return TurnResult(seat, path, finished, True, None)
        n = self.seatCount
        nxt = self.currentSeat
        for k in range(1, n + 1):
            candidate = (seat + k) % n
            if self._active[candidate]:
                nxt = candidate
                break
        self.currentSeat = nxt
        return TurnResult(seat, path, finished, False, nxt)

    def _checkOver(self) -> bool:
        """
        End the game if at most one player is active (none, in a game
        of one player).
        """
        if self._active.count(True) > 1:
            return False
        active = [s for s in range(self.seatCount) if self._active[s]]
        if active and self.seatCount == 1:
            return False
        self._lastActive = active[0] if active else None
        if active:
            self._active[active[0]] = False
        self.isOver = True
        self.currentSeat = None
        return True

    def _recount(self, seat: int) -> None:
        """
        Recompute how many of C{seat}'s pieces are in its target.
        """
        target = self._targets[seat]
        self._inTarget[seat] = sum(1 for i in self._pieces[seat]
                                   if i in target)

    def progress(self, seat: int) -> int:
        """
        A distance-to-go measure for C{seat}: the sum over its pieces of
        the steps to its target's tip (0 is not necessarily finished;
        for bots and benchmarks).
        """
        tip = TIPS[TARGET[self.regions[seat]]]
        return sum(cellDistance(CELLS[i], tip) for i in self._pieces[seat])

    def piecesInTarget(self, seat: int) -> int:
        """
        How many of C{seat}'s pieces are in its target region.
        """
        return self._inTarget[seat]

    def __repr__(self) -> str:
        return "<CheckersGame %s seat=%r over=%r>" % (
            "".join(self.regions), self.currentSeat, self.isOver)


def render(game: CheckersGame) -> str:
    """
    A text picture of the board like the one in The board: a region
    letter for each piece, C{.} for an empty cell.
    """
    lines = []
    for y in range(8, -9, -1):
        row = [" "] * 40
        for x in range(-8, 9):
            if not isValidCell(x, y):
                continue
            col = 2 * x + y + 12
            seat = game.pieceAt((x, y))
            row[col] = "." if seat is None else game.regions[seat]
        lines.append("".join(row).rstrip())
    return "\n".join(lines)
