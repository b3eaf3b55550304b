"""
The start policy of a tournament pairing's room (L{TournamentPolicy}):
the game kind's own, held to exactly the pairing's players and the
event's turn clock.
"""

from __future__ import annotations

import copy
from typing import Any, FrozenSet, Optional, Sequence, Tuple

import attr
from zope.interface import implementer

from hub.ihub import IStartPolicy
from hub.tables.base import startIfReady


@implementer(IStartPolicy)
class TournamentPolicy:
    """
    The start policy of a pairing's room: the game kind's own policy
    (C{inner}), but only with exactly the pairing's players in the room,
    and with the event's turn clock (and a gomoku pairing's opening).
    """

    #: Splendor's open seating (L{hub.tables.splendor.SplendorSeats})
    #: never seats a stranger here.
    openTable = False

    def __init__(self, inner: Any, names: Sequence[str],
                 turnSeconds: Optional[float] = None,
                 opening: Sequence[Tuple[int, int]] = ()) -> None:
        self.inner = inner
        self.names = frozenset(names)
        self.turnSeconds = turnSeconds
        self.opening = tuple(opening)

    @property
    def autoStart(self) -> bool:
        return bool(self.inner.autoStart)

    @property
    def options(self) -> Any:
        # The kind's, with the event's turn clock if it has one.
        options = self.inner.options
        if self.turnSeconds is not None:
            options = attr.evolve(options, turnSeconds=self.turnSeconds)
        return options

    @property
    def playerCounts(self) -> FrozenSet[int]:
        # The pairing's players, all of them.
        return frozenset([len(self.names)])

    def canStart(self, room: Any) -> bool:
        """
        The pairing's players, all of them and nobody else, are in the
        room, and the kind's policy agrees.  Members without names
        (Splendor's) are counted only: the engine runner's private
        listeners say who they are.
        """
        names = room.names()
        if len(names) != len(self.names):
            return False
        if None not in names and frozenset(names) != self.names:
            return False
        return bool(self.inner.canStart(room))

    def newTable(self, room: Any) -> Any:
        """
        The kind's table, with the event's turn clock if it has one, and
        the stones of the pairing's opening (gomoku's) placed.
        """
        inner = self.inner
        if self.turnSeconds is not None:
            inner = copy.copy(inner)
            inner.options = self.options
        table = inner.newTable(room)
        for stone in self.opening:
            # Before its start: its GameStarted's position has them.
            table.game.apply(table.game.currentSeat, stone)
        return table

    def memberLeft(self, lobby: Any, room: Any) -> None:
        # As the kind's policy would, with this one's canStart.
        startIfReady(self, lobby, room)
