"""
Bots for gamehub's three games (AI 托管): one strategy per game behind
L{hub.ihub.IBot}, pure and deterministic for a seed, at three levels
(1 random, 2 heuristic, 3 search).

    bot = botFor("checkers", 2, seed=7)
    path = bot.chooseAction(game, game.currentSeat)

Strategies only: pure functions of a position.  In the hub they think in
the bot workers (L{hub.thinkers}): a bot fills an empty seat or plays for
a player who left (the tables' L{hub.tables.seatpilot} asks for its
moves) and gives the web page's hints.  In the client a bot suggests
moves (L{hub.client.autoplay}) and drives the network bot player
C{python -m hub.bots} (L{hub.client.botplayer}).
"""

from typing import Any, Callable, Optional, Type

from hub.bots.base import LEVELS, Bot, NoLegalAction, never

KINDS = ("gomoku", "checkers", "splendor")


def botClass(kind: str) -> Type[Bot[Any, Any]]:
    """
    The bot class of game kind C{kind}.

    @raise KeyError: for an unknown kind.
    """
    if kind == "gomoku":
        from hub.bots.gomoku import GomokuBot
        return GomokuBot
    if kind == "checkers":
        from hub.bots.checkers import CheckersBot
        return CheckersBot
    if kind == "splendor":
        from hub.bots.splendor import SplendorBot
        return SplendorBot
    raise KeyError("no bot for game kind %r" % (kind,))


def botFor(kind: str, level: int, seed: Optional[int] = 0,
           expired: Callable[[], bool] = never) -> Bot[Any, Any]:
    """
    A bot (an L{hub.ihub.IBot}) for game kind C{kind} at C{level}.

    @param kind: C{"gomoku"}, C{"checkers"} or C{"splendor"}.
    @param level: 1 (random), 2 (heuristic) or 3 (search).
    @param seed: the seed of the bot's own random generator.
    @param expired: true once level 3 must answer (L{Bot.expired}).
    @raise KeyError: for an unknown kind.
    @raise ValueError: for an unknown level.
    """
    return botClass(kind)(level, seed=0 if seed is None else seed,
                          expired=expired)


__all__ = ["KINDS", "LEVELS", "NoLegalAction", "botClass", "botFor"]
