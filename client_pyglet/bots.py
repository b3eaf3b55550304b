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


CLASS_NAMES = {"gomoku": "GomokuBot", "checkers": "CheckersBot",
               "splendor": "SplendorBot"}


def makeBot(game, level, seed=None):
    """
    The bot of C{game} at C{level} from L{hub.bots} (its C{makeBot}, or
    the C{<Game>Bot} class of C{hub.bots.<game>}), else L{FirstLegalBot}.
    """
    if seed is None:
        seed = random.randrange(2 ** 31)
    try:
        bots = importlib.import_module("hub.bots")
    except ImportError:
        return FirstLegalBot(level, seed)
    factory = getattr(bots, "makeBot", None)
    if factory is not None:
        try:
            return factory(game, level, seed=seed)
        except (KeyError, ValueError, LookupError, TypeError):
            pass
    try:
        module = importlib.import_module("hub.bots." + game)
        cls = getattr(module, CLASS_NAMES[game])
        return cls(level, seed)
    except (ImportError, AttributeError, KeyError, ValueError, TypeError):
        return FirstLegalBot(level, seed)
