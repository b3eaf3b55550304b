"""
Tournament benchmark: the director's CPU to pair one Swiss round.

    python bench/swiss_pairing.py [--entrants 1000] [--rounds 9] [--seed 1]

Plays a Swiss of random results and prints, for each round, the process
CPU time of L{hub.tournaments.formats.swissRound}, with the rematches and
the largest colour imbalance so far (the issue asks for at most 200 ms a
round at 1,000 entrants, no rematch, colours within one).
"""

import argparse
import os
import random
import sys
import time
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

from hub.tournaments import formats  # noqa: E402
from hub.tournaments.standings import Game, placementPoints  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--entrants", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()
    rng = random.Random(options.seed)
    names = ["p%04d" % i for i in range(options.entrants)]
    games = []
    print("round  cpu ms  rematches  max |colour balance|")
    for round in range(1, options.rounds + 1):
        started = time.process_time()
        paired = formats.swissRound(names, games, round)
        elapsed = time.process_time() - started
        for game in paired:
            if game.points is None:
                game = Game(game.round, game.board, game.seats,
                            placementPoints(2, tuple(rng.sample((0, 1),
                                                                2))))
            games.append(game)
        pairs = Counter(frozenset(g.seats) for g in games if not g.bye)
        balance = max(abs(formats.colourBalance(n, games)) for n in names)
        print("%5d  %6.0f  %9d  %d" % (round, elapsed * 1000,
                                       sum(v - 1 for v in pairs.values()),
                                       balance))


if __name__ == "__main__":
    main()
