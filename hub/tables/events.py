"""
What a table tells its listeners (L{hub.ihub.ITableListener}): one typed,
immutable event per thing that happened, with the same names for every
game kind wherever the meaning is the same.

Seats are numbered from 0 in turn order, as in L{hub.games}; actions are
the canonical actions of L{hub.games} (a gomoku C{(x, y)}, a checkers path
of cells, a Splendor L{hub.games.splendor.Action}).  Every event but
L{GameStarted} carries the clock time it happened at (C{at}), in the
table clock's seconds.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple, Union

import attr

# Why a game ended (GameEnded.reason).
NORMAL = "normal"
TIMEOUT = "timeout"
FORFEIT = "forfeit"
ILLEGAL = "illegal"
ABANDONED = "abandoned"
END_REASONS = (NORMAL, TIMEOUT, FORFEIT, ILLEGAL, ABANDONED)


@attr.s(frozen=True, slots=True)
class Seat:
    """
    One seat of a table, fixed for the whole game.

    @ivar index: the seat number, from 0 in turn order.
    @ivar name: the player's name (Splendor: C{"player <id>"}).
    @ivar playerId: the player's session id.
    @ivar role: the seat's colour (gomoku), region letter (checkers), or
        None (Splendor).
    @ivar bot: True if the player is a bot client, where the hub can tell.
    @ivar guest: True if the player's name is no account's
        (L{hub.accounts}); False when the hub checks no accounts.
    """

    index: int = attr.ib()
    name: str = attr.ib()
    playerId: int = attr.ib()
    role: Union[int, str, None] = attr.ib(default=None)
    bot: bool = attr.ib(default=False)
    guest: bool = attr.ib(default=False)


@attr.s(frozen=True, slots=True)
class GameStarted:
    """
    The game started.

    @ivar kind: the game kind (C{"gomoku"}, C{"checkers"}, C{"splendor"}).
    @ivar table: the table's name (the room's name).
    @ivar seats: the L{Seat}s in seat order.
    @ivar position: the initial position, JSON-able, from which the
        table module's C{restore} rebuilds the rules object (Splendor:
        the whole deal, decks in order).
    @ivar at: the clock time.
    """

    kind: str = attr.ib()
    table: str = attr.ib()
    seats: Tuple[Seat, ...] = attr.ib()
    position: Dict[str, Any] = attr.ib()
    at: float = attr.ib()


@attr.s(frozen=True, slots=True)
class TurnStarted:
    """
    C{seat} is to act, until C{deadline} (clock seconds) or without a
    clock (None).
    """

    seat: int = attr.ib()
    deadline: Optional[float] = attr.ib()
    at: float = attr.ib()


#: An L{ActionPlayed}'s fields as a tuple, in its constructor's order (a
#: table's L{hub.tables.actionlog.ActionLog} gives each of its actions so,
#: with no C{detail}).
ActionFields = Tuple[int, Any, bool, object, float]


@attr.s(frozen=True, slots=True)
class ActionPlayed:
    """
    C{seat} played the canonical C{action}.

    @ivar byBot: True when a server-side bot (takeover) played it.
    @ivar detail: what the rules returned that the players must hear
        (checkers: the L{hub.games.checkers.TurnResult}; Splendor: the
        L{hub.games.splendor_moves.OperationDone}; gomoku: None).
    """

    seat: int = attr.ib()
    action: Any = attr.ib()
    byBot: bool = attr.ib()
    detail: object = attr.ib()
    at: float = attr.ib()


@attr.s(frozen=True, slots=True)
class SeatTimedOut:
    """
    C{seat} ran out of time on its turn.
    """

    seat: int = attr.ib()
    at: float = attr.ib()


@attr.s(frozen=True, slots=True)
class SeatEliminated:
    """
    C{seat} is out of the game (its pieces stay), for C{reason}
    (L{TIMEOUT}, L{FORFEIT}).
    """

    seat: int = attr.ib()
    reason: str = attr.ib()
    at: float = attr.ib()


@attr.s(frozen=True, slots=True)
class SeatDropped:
    """
    The player of C{seat} left or lost the connection for good.
    """

    seat: int = attr.ib()
    at: float = attr.ib()


@attr.s(frozen=True, slots=True)
class SeatTakenOver:
    """
    A server-side bot of C{level} plays C{seat} from now on.
    """

    seat: int = attr.ib()
    level: int = attr.ib()
    at: float = attr.ib()


@attr.s(frozen=True, slots=True)
class SeatReturned:
    """
    The player of C{seat} is back (gomoku's token resume).
    """

    seat: int = attr.ib()
    at: float = attr.ib()


@attr.s(frozen=True, slots=True)
class CardDealt:
    """
    A new card was dealt face up (Splendor): C{card} (an id) at C{level},
    or C{card} None when the deck of C{level} is empty.
    """

    level: int = attr.ib()
    card: Optional[int] = attr.ib()
    at: float = attr.ib()


@attr.s(frozen=True, slots=True)
class GameEnded:
    """
    The game is over.

    @ivar reason: one of L{END_REASONS}.
    @ivar ranking: seats from first to last (may be partial: Splendor
        ranks only the players present), or an empty tuple.
    @ivar winner: the winning seat, or None (a draw, an abandoned game).
    """

    reason: str = attr.ib()
    ranking: Tuple[int, ...] = attr.ib()
    winner: Optional[int] = attr.ib()
    at: float = attr.ib()


def eventName(event: object) -> str:
    """
    The name of C{event}'s type (C{"ActionPlayed"}), for logs and for
    serialising records.
    """
    return type(event).__name__
