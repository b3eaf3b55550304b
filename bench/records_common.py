"""
What the records benchmarks share: synthetic records (the storage does not
check the rules, so a game is a plausible list of events) and a database
from a URL.
"""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

from hub.records.record import GameRecord, SeatRecord, places  # noqa: E402
from hub.tables import events  # noqa: E402

NAMES = ["player{:04d}".format(i) for i in range(1000)]


def syntheticRecord(rng, startedAt):
    """
    One plausible finished game: gomoku (50%), checkers (35%) or Splendor
    (15%), 40 to 120 actions, players from a pool of 1,000 names.
    """
    roll = rng.random()
    kind = ("gomoku" if roll < 0.5 else "checkers" if roll < 0.85
            else "splendor")
    count = 2 if kind == "gomoku" else rng.choice((2, 3))
    if kind == "splendor":
        names = ["player {}".format(rng.randrange(10 ** 5))
                 for _ in range(count)]
    else:
        names = rng.sample(NAMES, count)
    kept, t = [], 0.0
    for ply in range(rng.randrange(40, 120)):
        t += rng.random() * 4
        if kind == "gomoku":
            action = [rng.randrange(15), rng.randrange(15)]
        elif kind == "checkers":
            action = [[rng.randrange(-4, 5), rng.randrange(-4, 5)]
                      for _ in range(rng.randrange(2, 5))]
        else:
            action = {"op": "get_gems", "card": 0,
                      "gems": {"diamond": 1, "ruby": 1, "onyx": 1}}
        kept.append({"type": "ActionPlayed", "t": round(t, 3),
                     "seat": ply % count, "action": action, "byBot": False})
    ranking = tuple(rng.sample(range(count), count))
    kept.append({"type": "GameEnded", "t": round(t, 3), "reason": "normal",
                 "ranking": list(ranking), "winner": ranking[0]})
    seatPlaces = places(count, events.NORMAL, ranking, ranking[0])
    seats = tuple(SeatRecord(i, names[i], i + 1, None, False, None, None,
                             seatPlaces[i]) for i in range(count))
    return GameRecord(None, kind, "table{}".format(rng.randrange(100)),
                      startedAt, startedAt + t, events.NORMAL, ranking[0],
                      ranking, seats, {}, kept)


def median(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))]


def newRandom(seed=0):
    return random.Random(seed)
