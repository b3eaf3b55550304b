"""
Gomoku rules as gomoku-battle plays them (docs/protocols/gomoku.md, Game
rules).

A 15x15 board, 0-based C{x} (column) and C{y} (row).  Black moves first,
players alternate, five or more stones in a row (horizontally, vertically
or diagonally) win, overlines included, and a full board without a five
is a draw.  A move on an occupied cell or off the board is illegal and
changes nothing.

Pure: no I/O, no Twisted, no wire format.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from zope.interface import implementer

from hub.games.state import copyState
from hub.ihub import IGameRules

SIZE = 15
CELLS = SIZE * SIZE
EMPTY = 0
BLACK = 1
WHITE = 16

SEAT_BLACK = 0
SEAT_WHITE = 1
SEAT_COLOURS = (BLACK, WHITE)

# Consecutive illegal moves allowed to the player to move; one more ends
# the game in error (MAX_ILLEGAL_MOVE of gomoku-battle's match.cpp).
MAX_ILLEGAL_MOVES = 5

#: A cell, C{(x, y)}: the action of L{GomokuGame}.
Cell = Tuple[int, int]

_DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))
# Every cell as (x, y), in board index order (row by row): the moves and
# legal actions of every game are these tuples.
_CELLS = tuple((i % SIZE, i // SIZE) for i in range(CELLS))


class IllegalMove(ValueError):
    """
    The move is not allowed now: the state is unchanged.
    """


def colourOfSeat(seat: int) -> int:
    """
    The colour seat C{seat} plays: seat 0 is black, seat 1 white.
    """
    return SEAT_COLOURS[seat]


def seatOfColour(colour: int) -> int:
    """
    The seat that plays C{colour} (L{BLACK} or L{WHITE}).
    """
    return SEAT_BLACK if colour == BLACK else SEAT_WHITE


def winningRows(stone: Callable[[int, int], int],
                lastMove: Optional[Cell]) -> List[List[Cell]]:
    """
    The rows of five or more through the last move: the stone just played
    wins when it makes five or more of its colour in a line.

    @param stone: C{stone(x, y)} gives the stone at a cell (L{EMPTY} for
        none).
    @param lastMove: the C{(x, y)} played last, or None.
    @return: a list of rows, each a list of C{(x, y)} from one end to
        the other; empty when the last move made no five.
    """
    if lastMove is None:
        return []
    x, y = lastMove
    colour = stone(x, y)
    if not colour:
        return []

    def run(dx: int, dy: int) -> List[Cell]:
        cells = []
        cx, cy = x + dx, y + dy
        while 0 <= cx < SIZE and 0 <= cy < SIZE and \
                stone(cx, cy) == colour:
            cells.append((cx, cy))
            cx, cy = cx + dx, cy + dy
        return cells
    rows = []
    for dx, dy in _DIRECTIONS:
        row = run(-dx, -dy)[::-1] + [(x, y)] + run(dx, dy)
        if len(row) >= 5:
            rows.append(row)
    return rows


@implementer(IGameRules)
class GomokuGame:
    """
    One game of gomoku.

    @ivar board: a list of L{CELLS} ints (L{EMPTY}, L{BLACK}, L{WHITE}),
        cell C{(x, y)} at index C{y * SIZE + x}.
    @ivar moves: the C{(x, y)} of every stone, in order (black first).
    @ivar lastMove: the last C{(x, y)} played, or None.
    @ivar winner: the winning colour (L{BLACK} or L{WHITE}) or None.
    @ivar winnerSeat: the winning seat (0 or 1) or None.
    @ivar isDraw: True once the board filled with no five.
    @ivar isOver: True once someone won or the game is drawn.
    @ivar isError: True once the game ended on too many illegal moves.
    @ivar illegalStreak: illegal moves in a row by the player to move.
    """

    seatCount = 2

    def __init__(self) -> None:
        self.board = [EMPTY] * CELLS
        self.moves: List[Cell] = []
        self.lastMove: Optional[Cell] = None
        self.winner: Optional[int] = None
        self.winnerSeat: Optional[int] = None
        self.isDraw = False
        self.isOver = False
        self.isError = False
        self.illegalStreak = 0

    @property
    def currentSeat(self) -> Optional[int]:
        """
        The seat to move (0 black, 1 white), or None once over.
        """
        if self.isOver:
            return None
        return len(self.moves) & 1

    @property
    def currentColour(self) -> Optional[int]:
        """
        The colour to move, or None once over.
        """
        if self.isOver:
            return None
        return SEAT_COLOURS[len(self.moves) & 1]

    def at(self, x: int, y: int) -> int:
        """
        The stone at C{(x, y)}: L{EMPTY}, L{BLACK} or L{WHITE}.
        """
        return self.board[y * SIZE + x]

    def isLegal(self, x: int, y: int) -> bool:
        """
        Whether the player to move may put a stone at C{(x, y)}.
        """
        return (not self.isOver
                and type(x) is int and type(y) is int
                and 0 <= x < SIZE and 0 <= y < SIZE
                and self.board[y * SIZE + x] == EMPTY)

    def legalActions(self, seat: int) -> List[Cell]:
        """
        Every empty cell as C{(x, y)}, row by row, when C{seat} is to
        move; otherwise an empty list.
        """
        if self.isOver or seat != len(self.moves) & 1:
            return []
        return [cell for cell, stone in zip(_CELLS, self.board)
                if stone == EMPTY]

    def apply(self, seat: int, action: Cell) -> None:
        """
        Put a stone of C{seat}'s colour at C{action} = C{(x, y)}.

        @raise IllegalMove: when the game is over, it is not C{seat}'s
            turn, or the cell is off the board or occupied (or, from a
            careless caller, not a pair of ints).
        """
        if self.isOver:
            raise IllegalMove("the game is over")
        if seat != len(self.moves) & 1:
            raise IllegalMove("not seat %r's turn" % (seat,))
        try:
            x, y = action
        except (TypeError, ValueError):
            raise IllegalMove("not an (x, y) pair: %r" % (action,))
        if not self.isLegal(x, y):
            raise IllegalMove("illegal cell %r" % (action,))
        colour = SEAT_COLOURS[seat]
        index = y * SIZE + x
        self.board[index] = colour
        # The board's own (x, y): a game holds no tuple of its own a move.
        cell = _CELLS[index]
        self.moves.append(cell)
        self.lastMove = cell
        self.illegalStreak = 0
        if self._fiveThrough(x, y, colour):
            self.winner = colour
            self.winnerSeat = seat
            self.isOver = True
        elif len(self.moves) == CELLS:
            self.isDraw = True
            self.isOver = True

    def place(self, x: int, y: int) -> int:
        """
        Put a stone for whoever is to move at C{(x, y)}.

        @return: the colour played.
        @raise IllegalMove: as L{apply}.
        """
        if self.isOver:
            raise IllegalMove("the game is over")
        seat = len(self.moves) & 1
        self.apply(seat, (x, y))
        return SEAT_COLOURS[seat]

    def refuse(self, seat: int) -> bool:
        """
        Count an illegal move by C{seat}, the player to move.  One more
        than L{MAX_ILLEGAL_MOVES} in a row ends the game in error, with no
        winner.

        @return: True if this ended the game.
        """
        if self.isOver or seat != len(self.moves) & 1:
            return False
        self.illegalStreak += 1
        if self.illegalStreak > MAX_ILLEGAL_MOVES:
            self.endInError()
        return self.isOver

    def endInError(self) -> None:
        """
        The game ends in error, with no winner (too many illegal moves).
        """
        if self.isOver:
            return
        self.isError = True
        self.isOver = True

    def forfeit(self, seat: int) -> None:
        """
        C{seat} gives up (or is gone for good): the other seat wins.
        """
        if self.isOver:
            return
        self.winnerSeat = 1 - seat
        self.winner = SEAT_COLOURS[1 - seat]
        self.isOver = True

    def _fiveThrough(self, x: int, y: int, colour: int) -> bool:
        """
        Whether the stone at C{(x, y)} makes five or more in a row.
        """
        board = self.board
        for dx, dy in _DIRECTIONS:
            count = 1
            cx, cy = x + dx, y + dy
            while (0 <= cx < SIZE and 0 <= cy < SIZE
                   and board[cy * SIZE + cx] == colour):
                count += 1
                cx += dx
                cy += dy
            cx, cy = x - dx, y - dy
            while (0 <= cx < SIZE and 0 <= cy < SIZE
                   and board[cy * SIZE + cx] == colour):
                count += 1
                cx -= dx
                cy -= dy
            if count >= 5:
                return True
        return False

    def copy(self) -> GomokuGame:
        """
        An independent copy of this game: every field is copied, the
        lists (the only mutable ones) as new lists.
        """
        return copyState(self)

    def snapshot(self) -> Dict[str, Any]:
        """
        The whole state as JSON-able data (the position a bot worker is
        sent, L{hub.games.codec}): the stones in the order played and
        how the game stands.  L{fromSnapshot} rebuilds it.
        """
        return {"moves": [[x, y] for x, y in self.moves],
                "winnerSeat": self.winnerSeat, "isDraw": self.isDraw,
                "isOver": self.isOver, "isError": self.isError,
                "illegalStreak": self.illegalStreak}

    @classmethod
    def fromSnapshot(cls, data: Mapping[str, Any]) -> GomokuGame:
        """
        The game of a L{snapshot}.

        @raise ValueError: C{data} is not the snapshot of a game.
        """
        game = cls()
        try:
            for index, (x, y) in enumerate(data["moves"]):
                if not game.isLegal(x, y):
                    raise ValueError("illegal stone %r" % ((x, y),))
                game.board[y * SIZE + x] = SEAT_COLOURS[index & 1]
                game.moves.append(_CELLS[y * SIZE + x])
                game.lastMove = game.moves[-1]
            winnerSeat = data["winnerSeat"]
            if winnerSeat is not None:
                game.winner = SEAT_COLOURS[winnerSeat]
            game.winnerSeat = winnerSeat
            game.isDraw = bool(data["isDraw"])
            game.isOver = bool(data["isOver"])
            game.isError = bool(data["isError"])
            game.illegalStreak = int(data["illegalStreak"])
        except (KeyError, TypeError, IndexError) as e:
            raise ValueError("not a gomoku snapshot: %s" % (e,))
        return game
