"""
Bot benchmark: time per move for each game and level, and the strength
table (level 2 against level 1, level 3 against level 2, seats
alternated), all in one process on one core.

    python bench/bots.py                   # everything, 100 games a pair
    python bench/bots.py --games 20        # a quicker strength table
    python bench/bots.py --only timing     # or: --only strength
    python bench/bots.py --kinds gomoku checkers
    python bench/bots.py --only strength --kinds splendor --players 4

Game C{i} gives the stronger bot the seats C{k} with C{(k + i) % 2 == 0}
(seat 0 or 1 in a two-player game), the bots seeds derived from C{i}, and
Splendor a deck shuffle seeded by C{i}.  Gomoku is always two-player;
C{--players} sets the seats of checkers (2, 3 or 6) and Splendor (2 to 4).
A checkers game that reaches C{--max-plies} (a bot can be stuck behind
pieces a random player never moves out of its target) is adjudicated:
more pieces home wins, then less distance to go; the table counts these.
"""

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

from hub.bots import botFor  # noqa: E402
from hub.bots.checkers import Goal  # noqa: E402
from hub.games.checkers import CheckersGame  # noqa: E402
from hub.games.gomoku import GomokuGame  # noqa: E402
from hub.games.splendor import SplendorGame  # noqa: E402

KINDS = ("gomoku", "checkers", "splendor")
PAIRS = ((2, 1), (3, 2))


def newGame(kind, index, players=2):
    if kind == "gomoku":
        return GomokuGame()
    if kind == "checkers":
        return CheckersGame(players)
    return SplendorGame(players, random.Random(index))


def winnerOf(kind, game):
    """
    The winning seat of a finished or capped game, or None for a draw.
    """
    if kind == "gomoku":
        return game.winnerSeat
    if kind == "splendor":
        return game.winner
    if game.isOver:
        return game.ranking()[0]
    if game.finished:
        return game.finished[0]
    scores = sorted(((game.piecesInTarget(seat),
                      -Goal(game, seat).positionCost(game, seat), seat)
                     for seat in game.activeSeats()), reverse=True)
    if scores[0][:2] == scores[1][:2]:
        return None
    return scores[0][2]


def playGame(kind, levels, index, maxPlies, times=None):
    """
    One game, seat 0 played at C{levels[0]}, seat 1 at C{levels[1]}.

    @param times: if given, a dict level -> list that collects the
        seconds each C{chooseAction} took.
    @return: C{(winner seat or None, plies, capped)}.
    """
    game = newGame(kind, index, len(levels))
    bots = [botFor(kind, level, seed=1000 * index + seat)
            for seat, level in enumerate(levels)]
    plies = 0
    clock = time.perf_counter
    while not game.isOver and plies < maxPlies:
        seat = game.currentSeat
        started = clock()
        action = bots[seat].chooseAction(game, seat)
        if times is not None:
            times.setdefault(levels[seat], []).append(clock() - started)
        game.apply(seat, action)
        plies += 1
    return winnerOf(kind, game), plies, not game.isOver


def timing(kinds, games, maxPlies):
    """
    Print the time per move of every level, measured in games against
    level 2 (level 2 in self-play), seats alternated.
    """
    print("## time per move (ms): mean, 95th percentile, max")
    print("| game | level | moves | mean | p95 | max |")
    print("|---|---|---|---|---|---|")
    for kind in kinds:
        for level in (1, 2, 3):
            times = {}
            for i in range(games):
                levels = (level, 2) if i % 2 == 0 else (2, level)
                playGame(kind, levels, 10000 + i, maxPlies, times)
            ms = sorted(t * 1000 for t in times[level])
            p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
            print("| %s | %d | %d | %.2f | %.2f | %.2f |" % (
                kind, level, len(ms), statistics.mean(ms), p95, ms[-1]))
            sys.stdout.flush()


def strength(kinds, games, maxPlies, players=2):
    """
    Print the strength table: wins of the higher level over C{games}
    games per pair, seats alternated.  With more than two players, the
    higher level's fair share (its seats over all seats) is shown too.
    """
    print("## strength: %d games a pair, seats alternated" % (games,))
    print("| game | players | pair | higher wins | lower wins | draws | "
          "higher win rate | fair share | adjudicated | mean plies | "
          "seconds |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for kind in kinds:
        n = 2 if kind == "gomoku" else players
        for high, low in PAIRS:
            wins = losses = draws = capped = seats = 0
            plies = []
            started = time.perf_counter()
            for i in range(games):
                levels = tuple(high if (k + i) % 2 == 0 else low
                               for k in range(n))
                seats += levels.count(high)
                winner, count, cut = playGame(kind, levels, i, maxPlies)
                plies.append(count)
                capped += cut
                if winner is None:
                    draws += 1
                elif levels[winner] == high:
                    wins += 1
                else:
                    losses += 1
            print("| %s | %d | %d vs %d | %d | %d | %d | %.0f %% | %.0f %% "
                  "| %d | %.0f | %.0f |" % (
                      kind, n, high, low, wins, losses, draws,
                      100.0 * wins / games, 100.0 * seats / (games * n),
                      capped, statistics.mean(plies),
                      time.perf_counter() - started))
            sys.stdout.flush()


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=100,
                   help="games per pair in the strength table")
    p.add_argument("--timing-games", type=int, default=6,
                   help="games per game and level for the timing")
    p.add_argument("--kinds", nargs="+", choices=KINDS, default=KINDS)
    p.add_argument("--only", choices=("timing", "strength"))
    p.add_argument("--max-plies", type=int, default=2000,
                   help="checkers games are adjudicated past this")
    p.add_argument("--players", type=int, default=2,
                   help="seats of checkers (2, 3, 6) and Splendor (2-4) "
                        "games in the strength table (default 2)")
    options = p.parse_args(argv)
    print("python %s, %s" % (sys.version.split()[0], sys.platform))
    if options.only != "strength":
        timing(options.kinds, options.timing_games, options.max_plies)
    if options.only != "timing":
        strength(options.kinds, options.games, options.max_plies,
                 options.players)


if __name__ == "__main__":
    main()
