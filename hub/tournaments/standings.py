"""
Scores and standings of an event: pure, no Twisted, no database.

A two-player game gives 1, 1/2 or 0; a game of N players gives its
places N-1 ... 0; a bye gives L{byePoints}.  Ties are broken by Buchholz
then Sonneborn-Berger (two players) or by direct encounters (tables of
N); entrants equal on every key share a rank.  Every rule, exactly:
docs/tournaments.md, "How it runs", "Scoring in full".
"""

from __future__ import annotations

from collections import defaultdict
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

import attr


@attr.s(frozen=True, auto_attribs=True)
class Game:
    """
    One game (or bye) of an event.

    @ivar round: The round, from 1.
    @ivar board: The board within the round, from 1 (byes: -1, -2...).
    @ivar seats: The entrants' names in seat order (one name for a bye).
    @ivar points: Points per seat, in seat order, once the game is over;
        L{None} while it is still to be played.
    """

    round: int
    board: int
    seats: Tuple[str, ...]
    points: Optional[Tuple[float, ...]] = None

    @property
    def bye(self) -> bool:
        """
        True for a bye (one seat, no opponent).
        """
        return len(self.seats) == 1

    @property
    def finished(self) -> bool:
        """
        True once the game has points.
        """
        return self.points is not None

    def pointsOf(self, name: str) -> float:
        """
        The points C{name} scored here (0 while unplayed).
        """
        if self.points is None:
            return 0.0
        return self.points[self.seats.index(name)]


def byePoints(tableSize: int) -> float:
    """
    What a bye is worth in an event of C{tableSize}-player games.
    """
    return 1.0 if tableSize == 2 else (tableSize - 1) / 2.0


def placementPoints(seatCount: int, ranking: Sequence[int]) -> \
        Tuple[float, ...]:
    """
    Points per seat of a finished game.

    @param seatCount: How many seats the game had.
    @param ranking: Seats from first to last (may be partial; seats not
        in it score 0).  Two-player games: a ranking of both seats is a
        win for the first; an empty ranking is a draw (1/2 each).
    """
    if seatCount == 2:
        if not ranking:
            return (0.5, 0.5)
        points = [0.0, 0.0]
        points[ranking[0]] = 1.0
        return tuple(points)
    points = [0.0] * seatCount
    for place, seat in enumerate(ranking):
        points[seat] = float(seatCount - 1 - place)
    return tuple(points)


def forfeitPoints(seatCount: int, forfeited: Iterable[int]) -> \
        Tuple[float, ...]:
    """
    Points per seat of a game forfeited by the seats in C{forfeited}
    (absent or whose engine failed): those score 0, and each present
    player scores as if it finished just above them (one point per
    forfeiter: a two-player forfeit is a win).  When every seat
    forfeits, nobody scores.
    """
    out = set(forfeited)
    present = [s for s in range(seatCount) if s not in out]
    if not present:
        return (0.0,) * seatCount
    share = float(len(out))
    return tuple(share if s not in out else 0.0 for s in range(seatCount))


@attr.s(frozen=True, auto_attribs=True)
class Standing:
    """
    One line of the standings.

    @ivar rank: From 1; entrants equal on every key share it.
    @ivar name: The entrant.
    @ivar points: Total points, byes included.
    @ivar tieBreaks: The tie-break values after points, in order.
    @ivar games: Games played (byes excluded).
    """

    rank: int
    name: str
    points: float
    tieBreaks: Tuple[float, ...]
    games: int


def points(names: Iterable[str], games: Iterable[Game]) -> Dict[str, float]:
    """
    Total points of each of C{names} over the finished C{games}.
    """
    total: Dict[str, float] = {name: 0.0 for name in names}
    for game in games:
        if game.points is None:
            continue
        for name, value in zip(game.seats, game.points):
            total[name] = total.get(name, 0.0) + value
    return total


def _twoPlayerKeys(names: Sequence[str], games: Sequence[Game],
                   total: Dict[str, float]) -> Dict[str, Tuple[float, ...]]:
    buchholz: Dict[str, float] = defaultdict(float)
    berger: Dict[str, float] = defaultdict(float)
    for game in games:
        if game.points is None or game.bye:
            continue
        for seat, name in enumerate(game.seats):
            for other, opponent in enumerate(game.seats):
                if other == seat:
                    continue
                buchholz[name] += total.get(opponent, 0.0)
                berger[name] += game.points[seat] * total.get(opponent, 0.0)
    return {name: (buchholz[name], berger[name]) for name in names}


def _directKeys(names: Sequence[str], games: Sequence[Game],
                total: Dict[str, float]) -> Dict[str, Tuple[float, ...]]:
    groups: Dict[float, Set[str]] = defaultdict(set)
    for name in names:
        groups[total[name]].add(name)
    direct: Dict[str, float] = defaultdict(float)
    for game in games:
        if game.points is None or game.bye:
            continue
        for seat, name in enumerate(game.seats):
            tied = groups[total[name]]
            for other, opponent in enumerate(game.seats):
                if (other != seat and opponent in tied
                        and game.points[seat] > game.points[other]):
                    direct[name] += 1
    return {name: (direct[name],) for name in names}


def standings(names: Sequence[str], games: Sequence[Game],
              tableSize: int = 2) -> List[Standing]:
    """
    The standings of an event, best first.

    @param names: Every entrant (withdrawn ones included, if they played).
    @param games: The event's games and byes; unfinished ones count for
        nothing.
    @param tableSize: Players per game: 2 for two-player tie-breaks,
        more for direct encounters.
    """
    total = points(names, games)
    played: Dict[str, int] = defaultdict(int)
    for game in games:
        if game.points is not None and not game.bye:
            for name in game.seats:
                played[name] += 1
    if tableSize == 2:
        keys = _twoPlayerKeys(names, games, total)
    else:
        keys = _directKeys(names, games, total)
    order = sorted(names, key=lambda n: (-total[n], [-k for k in keys[n]],
                                         n))
    result: List[Standing] = []
    previous = None
    rank = 0
    for index, name in enumerate(order):
        full = (total[name],) + keys[name]
        if full != previous:
            rank = index + 1
            previous = full
        result.append(Standing(rank, name, total[name], keys[name],
                               played[name]))
    return result


def crosstable(names: Sequence[str], games: Sequence[Game]) -> \
        Dict[str, Dict[str, float]]:
    """
    C{table[a][b]}: the points C{a} scored in finished games where C{b}
    also sat (two-player: against C{b}).
    """
    table: Dict[str, Dict[str, float]] = {n: {} for n in names}
    for game in games:
        if game.points is None or game.bye:
            continue
        for seat, name in enumerate(game.seats):
            row = table.setdefault(name, {})
            for opponent in game.seats:
                if opponent != name:
                    row[opponent] = row.get(opponent, 0.0) + \
                        game.points[seat]
    return table


def eventRatings(names: Iterable[str],
                 games: Iterable[Game]) -> Dict[str, Tuple[float, float]]:
    """
    Each entrant's rating over the event's games alone: OpenSkill's
    (L{hub.records.ratings}, as the hub's leaderboards), every entrant
    from the default, then the finished games (byes aside) in the order
    played, their places by points (equal points tie).

    @return: C{{name: (mu, sigma)}}, sigma the uncertainty.
    """
    from hub.records import ratings
    rated = {name: ratings.Rating() for name in names}
    for game in sorted(games, key=lambda g: (g.round, g.board)):
        if game.bye or game.points is None or len(game.seats) < 2:
            continue
        seats = [name for name in game.seats]
        for name in seats:
            rated.setdefault(name, ratings.Rating())
        places = [1 + sum(1 for other in game.points if other > mine)
                  for mine in game.points]
        after = ratings.rate([rated[name] for name in seats], places)
        for name, rating in zip(seats, after):
            rated[name] = rating
    return {name: (r.mu, r.sigma) for name, r in rated.items()}
