"""
An L{hub.ihub.IThinker} that thinks at once, in the caller's thread: for
tests and for programs that serve one user.  The hub never uses it; it
thinks in its worker pool (L{hub.thinkers.pool}).
"""

from typing import Any, Callable

from twisted.internet import defer
from twisted.internet.defer import Deferred
from zope.interface import implementer

from hub.bots import botFor
from hub.ihub import IBot, IGameRules, IThinker


@implementer(IThinker)
class InlineThinker:
    """
    Asks C{botFactory(kind, level, seed)} (L{hub.bots.botFor} by default)
    for its action on a copy of the state, before L{think} returns.
    """

    def __init__(self,
                 botFactory: Callable[[str, int, int], IBot] = botFor) -> None:
        self.botFactory = botFactory

    def think(self, kind: str, level: int, seed: int, state: IGameRules,
              seat: int) -> "Deferred[Any]":
        try:
            bot = self.botFactory(kind, level, seed)
            return defer.succeed(bot.chooseAction(state.copy(), seat))
        except Exception:
            return defer.fail()
