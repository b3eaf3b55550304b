"""
What the bots of every game share: the seeded generator, the level check,
level 1 (a uniformly random legal action) and the search's time limit.
"""

import random
from typing import Callable, Generic, List, TypeVar, cast

from zope.interface import implementer

from hub.ihub import IBot, IGameRules

LEVELS = (1, 2, 3)

#: The game a bot plays, and its action.
Game = TypeVar("Game", bound=IGameRules)
Action = TypeVar("Action")


class NoLegalAction(ValueError):
    """
    The seat asked to act has no legal action (not its turn, or over).
    """


def never() -> bool:
    """
    The search's time is never up (the default of L{Bot.expired}).
    """
    return False


@implementer(IBot)
class Bot(Generic[Game, Action]):
    """
    Base of the game bots: level 1 plays a uniformly random legal action;
    subclasses override L{heuristic} (level 2) and L{search} (level 3).

    @ivar level: 1, 2 or 3.
    @ivar random: the bot's own L{random.Random}, seeded at creation, so a
        bot replays the same game for the same seed and positions.
    @ivar expired: a callable without arguments, true once the search must
        answer (a bot worker's deadline, L{hub.thinkers}): level 3 then
        plays the best action found so far, at worst level 2's.  The
        strategy only asks it; by default the time is never up, and the
        search ends by its own bounds, the same for the same seed.
    """

    def __init__(self, level: int, seed: int = 0,
                 expired: Callable[[], bool] = never) -> None:
        if level not in LEVELS:
            raise ValueError("bot level must be 1, 2 or 3, not %r"
                             % (level,))
        self.level = level
        self.seed = seed
        self.random = random.Random(seed)
        self.expired = expired

    def __repr__(self) -> str:
        return "<%s level=%d seed=%r>" % (type(self).__name__,
                                           self.level, self.seed)

    def chooseAction(self, state: IGameRules, seat: int) -> Action:
        """
        A legal action of C{seat} in C{state}, chosen by this bot's level.

        @raise NoLegalAction: C{seat} has nothing to play.
        """
        actions: List[Action] = state.legalActions(seat)
        if not actions:
            raise NoLegalAction("seat %r has no legal action" % (seat,))
        if len(actions) == 1:
            return actions[0]
        if self.level == 1:
            return self.random.choice(actions)
        if self.level == 2:
            return self.heuristic(cast(Game, state), seat, actions)
        return self.search(cast(Game, state), seat, actions)

    def heuristic(self, state: Game, seat: int,
                  actions: List[Action]) -> Action:
        """
        Level 2: override.
        """
        raise NotImplementedError()

    def search(self, state: Game, seat: int,
               actions: List[Action]) -> Action:
        """
        Level 3: override (defaults to level 2).
        """
        return self.heuristic(state, seat, actions)
