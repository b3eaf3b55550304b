"""
Ratings: openskill's Plackett-Luce model (2 to 6 players, rankings and
ties), one rating per player name and game kind.

A player's standing on a leaderboard is the conservative ordinal
C{mu - 3 * sigma}: it rises with results and with certainty.
"""

from typing import List, Sequence

import attr
from openskill.models import PlackettLuce

MODEL = PlackettLuce()
MU = MODEL.mu
SIGMA = MODEL.sigma


def ordinal(mu: float, sigma: float) -> float:
    """
    The conservative estimate C{mu - 3 sigma} that leaderboards rank by.
    """
    return mu - 3.0 * sigma


@attr.s(frozen=True)
class Rating:
    """
    A player's rating in one kind of game.

    @ivar mu: the estimated skill.
    @ivar sigma: its uncertainty.
    """

    mu: float = attr.ib(default=MU)
    sigma: float = attr.ib(default=SIGMA)

    @property
    def ordinal(self) -> float:
        """
        C{mu - 3 sigma}.
        """
        return ordinal(self.mu, self.sigma)


def rate(ratings: Sequence[Rating],
         places: Sequence[int]) -> List[Rating]:
    """
    The new ratings after one game.

    @param ratings: each seat's L{Rating} before the game.
    @param places: each seat's place (1 first; equal places tie).
    @return: each seat's new L{Rating}, in seat order.
    """
    teams = [[MODEL.create_rating([r.mu, r.sigma])] for r in ratings]
    rated = MODEL.rate(teams, ranks=list(places))
    return [Rating(team[0].mu, team[0].sigma) for team in rated]
