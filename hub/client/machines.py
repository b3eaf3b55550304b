"""
The client state machine of each game kind, by name: what a session of
the desktop client and a bot of the bot client start from.
"""

from typing import Union

from hub.client.state_checkers import TURN_SECONDS, CheckersState
from hub.client.state_gomoku import GomokuState
from hub.client.state_splendor import SplendorState

#: The state machine of any game.
GameState = Union[CheckersState, GomokuState, SplendorState]


def stateFor(game: str, name: str,
             turnSeconds: float = TURN_SECONDS) -> GameState:
    """
    A new client state machine of C{game} for the player C{name}.

    @param game: C{"gomoku"}, C{"checkers"} or C{"splendor"}.
    @param turnSeconds: checkers: the server's turn limit, which the
        protocol does not carry.
    @raise ValueError: for an unknown game.
    """
    if game == "gomoku":
        return GomokuState(name)
    if game == "checkers":
        return CheckersState(name, turnSeconds)
    if game == "splendor":
        return SplendorState(name)
    raise ValueError(game)
