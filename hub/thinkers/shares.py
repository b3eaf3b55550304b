"""
Fair shares of the bot pool: how many server bots one person may have
playing at once (docs/bots.md, "Fair shares").

The rule: the bots that the players of one address asked for, in all
their rooms together, are at most L{BotShares.seats}, and at most
L{BotShares.strong} of them of level 3 (a level-3 move costs about a
hundred times a level-2 one); the bots of one account, from whatever
address, are held to the same numbers.  A bot counts from the request
that seats it until it leaves its room.
"""

from typing import Iterable, Optional, Tuple

from zope.interface import Interface, implementer

LEVEL3 = 3


class TooManyBots(Exception):
    """
    The bots asked for would pass a share; C{strong} says whether it is
    the level-3 one, C{limit} its size.
    """

    def __init__(self, strong: bool, limit: int) -> None:
        Exception.__init__(self, strong, limit)
        self.strong = strong
        self.limit = limit

    def __str__(self) -> str:
        if self.strong:
            return "at most {} level-3 bots play for one player at " \
                   "once".format(self.limit)
        return "at most {} bots play for one player at once".format(
            self.limit)


class IBotShares(Interface):
    """
    The fair shares of the bot pool, as the web face checks them.
    """

    def check(playing: Iterable[Tuple[str, Optional[str], int]],
              address: str, account: Optional[str],
              levels: Iterable[int]) -> None:
        """
        Raise L{TooManyBots} if bots of C{levels} for the player at
        C{address} (as C{account}) would pass a share.
        """


@implementer(IBotShares)
class BotShares:
    """
    The shares of one hub.

    @ivar seats: the most bots per address and per account; 0 for no
        limit.
    @ivar strong: how many of those may be of level 3; 0 for no limit.
    """

    def __init__(self, seats: int = 8, strong: int = 3) -> None:
        self.seats = seats
        self.strong = strong

    def check(self, playing: Iterable[Tuple[str, Optional[str], int]],
              address: str, account: Optional[str],
              levels: Iterable[int]) -> None:
        """
        Refuse bots of C{levels} for the player at C{address} (logged in
        as C{account}, or None) if they would pass a share.

        @param playing: the C{(address, account, level)} of each bot that
            plays now.
        @raise TooManyBots: they would.
        """
        levels = list(levels)
        groups = [[level for a, b, level in playing if a == address]]
        if account is not None:
            groups.append([level for a, b, level in playing
                           if b == account])
        strong = sum(1 for level in levels if level >= LEVEL3)
        for held in groups:
            if self.seats and len(held) + len(levels) > self.seats:
                raise TooManyBots(False, self.seats)
            if self.strong and strong and strong + sum(
                    1 for level in held if level >= LEVEL3) > self.strong:
                raise TooManyBots(True, self.strong)
