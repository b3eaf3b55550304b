"""
The local bot of AI 托管 and of the "suggest" button.

The strategies live in L{hub.bots} (L{hub.ihub.IBot}); until a game has
one there, L{FirstLegalBot} stands in.
"""

import importlib
import random

from zope.interface import implementer

from hub.ihub import IBot


@implementer(IBot)
class FirstLegalBot:
    """
    Stand-in strategy: the first legal action (level 1: a random one).
    """

    def __init__(self, level=2, seed=None):
        self.level = level
        self._random = random.Random(seed)

    def chooseAction(self, state, seat):
        actions = state.legalActions(seat)
        if not actions:
            return None
        if self.level <= 1:
            return self._random.choice(actions)
        return actions[0]


def makeBot(game, level, seed=None):
    """
    The bot of C{game} at C{level} from L{hub.bots}, or L{FirstLegalBot}.
    """
    try:
        bots = importlib.import_module("hub.bots")
    except ImportError:
        return FirstLegalBot(level, seed)
    factory = getattr(bots, "makeBot", None)
    if factory is not None:
        try:
            return factory(game, level, seed=seed)
        except TypeError:
            return factory(game, level)
        except (KeyError, ValueError, LookupError):
            return FirstLegalBot(level, seed)
    return FirstLegalBot(level, seed)
