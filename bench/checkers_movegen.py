"""
Chinese checkers benchmark: legal-move generation and simulated games.

    python bench/checkers_movegen.py [--quick]

Prints, all measured in the same run:
  - microseconds to generate every legal move (one path per origin and
    destination) of all of one player's pieces in a crowded mid-game
    position (six players, 39 of the 60 pieces in the central hexagon),
    for L{CheckersGame.movesOf}, for a naive generator written straight
    from the rule text (coordinates, a dict board, no tables), and for a
    plain iteration over a 121-entry dict (a floor for anything that
    looks at every cell);
  - whole simulated games per second: noisy-greedy play (which finishes
    games) for 2, 3 and 6 players, and uniformly random legal play (which
    practically never finishes) as plies per second.
"""

import os
import random
import sys
import time
import timeit

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

from hub.games import checkers as rules  # noqa: E402
from hub.games.checkers import CheckersGame  # noqa: E402

# Six players after 60 plies of noisy-greedy play (seed 20); A to move.
CROWDED = {
    0: [(-4, 7), (-4, 5), (-2, 5), (-1, 5), (-1, 4), (-3, 3), (-1, 1),
        (-4, 0), (2, -4), (4, -8)],
    1: [(-2, 4), (0, 3), (3, 3), (1, 2), (3, 2), (4, 0), (2, -1), (6, -3),
        (-3, -4), (2, -6)],
    2: [(-4, 4), (1, 3), (-2, 2), (0, 2), (3, -2), (5, -2), (-1, -3),
        (1, -3), (4, -3), (7, -4)],
    3: [(-4, 1), (3, 1), (2, 0), (0, -1), (3, -1), (0, -2), (-3, -3),
        (0, -4), (4, -5), (3, -6)],
    4: [(-3, 4), (-4, 3), (-4, 2), (-1, 2), (1, 1), (-2, -1), (2, -3),
        (-4, -4), (-2, -4), (3, -4)],
    5: [(-2, 6), (-7, 4), (-7, 3), (0, 1), (1, 0), (-1, -1), (1, -1),
        (-4, -2), (-2, -2), (1, -2)],
}


def naiveMoves(board, owner):
    """
    Every move of C{owner}'s pieces, from the rule text: C{board} maps
    each valid cell to its owner or None.
    """
    out = []
    for origin, who in board.items():
        if who != owner:
            continue
        x, y = origin
        for dx, dy in rules.DIRECTIONS:
            to = (x + dx, y + dy)
            if rules.isValidCell(*to) and board[to] is None:
                out.append((origin, to))

        def walk(path, seen):
            cx, cy = path[-1]
            for dx, dy in rules.DIRECTIONS:
                over = (cx + dx, cy + dy)
                land = (cx + 2 * dx, cy + 2 * dy)
                if (rules.isValidCell(*land) and board[land] is None
                        and board[over] is not None and land not in seen):
                    seen.add(land)
                    out.append(path + (land,))
                    walk(path + (land,), seen)
        walk((origin,), {origin})
    return out


def bestOf(f, number, repeat=5):
    """
    The best time per call of C{f}, in microseconds.
    """
    return min(timeit.repeat(f, number=number, repeat=repeat)) / number * 1e6


def noisyGreedy(game, rng):
    """
    A move gaining ground toward the target, with noise; None if blocked.
    """
    seat = game.currentSeat
    actions = game.legalActions(seat)
    if not actions:
        return None
    tip = rules.TIPS[rules.TARGET[game.regions[seat]]]
    return min(actions, key=lambda p: (
        rules.cellDistance(p[-1], tip) - rules.cellDistance(p[0], tip)
        + 1.5 * rng.random()))


def playGame(players, choose, rng, maxPlies):
    """
    Play one game; a blocked player times out.  Return the plies.
    """
    game = CheckersGame(players)
    while not game.isOver and game.plies < maxPlies:
        path = choose(game, rng)
        if path is None:
            game.timeout()
        else:
            game.apply(game.currentSeat, path)
    return game.plies, game.isOver


def uniform(game, rng):
    actions = game.legalActions(game.currentSeat)
    return rng.choice(actions) if actions else None


def main(quick=False):
    scale = 0.2 if quick else 1.0
    game = CheckersGame.fromPosition("ABCDEF", CROWDED, 0)
    board = {cell: game.pieceAt(cell) for cell in rules.CELLS}
    print("Chinese checkers move generation, crowded six-player position")
    print("python %s" % (sys.version.split()[0],))
    counts = [len(game.movesOf(s)) for s in range(6)]
    print("moves per player: %s" % (counts,))
    for seat in range(6):
        assert ({(p[0], p[-1]) for p in game.movesOf(seat)}
                == {(p[0], p[-1]) for p in naiveMoves(board, seat)})
    number = int(2000 * scale) or 1
    fast = [bestOf(lambda s=s: game.movesOf(s), number) for s in range(6)]
    naive = [bestOf(lambda s=s: naiveMoves(board, s), number // 4 or 1)
             for s in range(6)]
    plain = bestOf(lambda: [v for v in board.values() if v == 0], number)
    print("movesOf (all 10 pieces), us per position: "
          "mean %.1f, worst %.1f (A: %.1f)"
          % (sum(fast) / 6, max(fast), fast[0]))
    print("naive generator, us per position:          "
          "mean %.1f, worst %.1f (A: %.1f)"
          % (sum(naive) / 6, max(naive), naive[0]))
    print("plain iteration over a 121-cell dict: %.1f us" % (plain,))
    print("speed-up over naive: %.1fx" % (sum(naive) / sum(fast),))

    print()
    print("Simulated games (a blocked player times out)")
    for players, games in ((2, 40), (3, 30), (6, 20)):
        games = max(2, int(games * scale))
        rng = random.Random(players)
        started = time.perf_counter()
        plies = finished = 0
        for _ in range(games):
            n, over = playGame(players, noisyGreedy, rng, 5000)
            plies += n
            finished += over
        elapsed = time.perf_counter() - started
        print("%d players, noisy-greedy: %.1f games/s, %.0f plies/s, "
              "%.0f plies/game, %d/%d finished"
              % (players, games / elapsed, plies / elapsed, plies / games,
                 finished, games))
    for players in (2, 6):
        rng = random.Random(players)
        cap = int(2000 * scale)
        started = time.perf_counter()
        plies, over = playGame(players, uniform, rng, cap)
        elapsed = time.perf_counter() - started
        print("%d players, uniform random: %.0f plies/s (%d plies, %s)"
              % (players, plies / elapsed, plies,
                 "finished" if over else "capped, unfinished"))


if __name__ == "__main__":
    main("--quick" in sys.argv[1:])
