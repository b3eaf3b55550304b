"""
A game's actions as its table keeps them (L{hub.ihub.ITable.actions}):
the one copy of the moves, which the records and the live feed read, by
columns rather than an object a move.  A move of a running game then
holds its action (the rules' own cell or path), 8 bytes of time and a
byte of seat: no tuple, no float, nothing for the cyclic collector.

Pure: no Twisted.
"""

from __future__ import annotations

from array import array
from typing import Any, Iterator, List

from hub.tables.events import ActionFields, ActionPlayed

#: The bit of a seat's byte (L{ActionLog.seats}) that says a server-side
#: bot played the action; the seat is the bits below it.
BY_BOT = 0x40
SEAT_BITS = BY_BOT - 1


class ActionLog:
    """
    The actions of one game, in order.

    @ivar times: each action's clock time.
    @ivar seats: each action's seat, with L{BY_BOT} set when a server-side
        bot played it.
    @ivar moves: each action, as the rules took it.
    """

    __slots__ = ("times", "seats", "moves")

    def __init__(self) -> None:
        self.times = array("d")
        self.seats = array("B")
        self.moves: List[Any] = []

    def append(self, seat: int, action: Any, byBot: bool, at: float) -> None:
        """
        Add an action.
        """
        self.times.append(at)
        self.seats.append(seat | BY_BOT if byBot else seat)
        self.moves.append(action)

    def __len__(self) -> int:
        return len(self.moves)

    def __getitem__(self, ply: int) -> ActionFields:
        """
        The action at index C{ply} as the fields of its L{ActionPlayed},
        with no detail: C{(seat, action, byBot, None, at)}.
        """
        seat = self.seats[ply]
        return (seat & SEAT_BITS, self.moves[ply], bool(seat & BY_BOT), None,
                self.times[ply])

    def __iter__(self) -> Iterator[ActionFields]:
        for ply in range(len(self.moves)):
            yield self[ply]

    def event(self, ply: int) -> ActionPlayed:
        """
        The action at index C{ply} as an L{ActionPlayed} (no detail).
        """
        return ActionPlayed(*self[ply])

    def botPlies(self) -> List[int]:
        """
        The indices of the actions a server-side bot played.
        """
        return [ply for ply, seat in enumerate(self.seats) if seat & BY_BOT]

    def seatList(self) -> List[int]:
        """
        Each action's seat.
        """
        return [seat & SEAT_BITS for seat in self.seats]
