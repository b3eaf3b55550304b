"""
Helpers for the bot tests: reachable positions and whole games.
"""

import random

from hub.games.checkers import CheckersGame
from hub.games.gomoku import GomokuGame
from hub.games.splendor import SplendorGame


def newGame(kind, players=2, seed=0):
    """
    A fresh game of C{kind} for C{players} seats.
    """
    if kind == "gomoku":
        return GomokuGame()
    if kind == "checkers":
        return CheckersGame(players)
    return SplendorGame(players, random.Random(seed))


def reachable(kind, players, seed, plies):
    """
    The position after up to C{plies} uniformly random legal actions from
    the start (fewer if the game ends first).
    """
    rng = random.Random(seed)
    game = newGame(kind, players, seed)
    for _ in range(plies):
        if game.isOver:
            break
        seat = game.currentSeat
        game.apply(seat, rng.choice(game.legalActions(seat)))
    return game


def playOut(game, bots, maxPlies):
    """
    Let C{bots} (one per seat) play C{game} to its end, checking every
    action against the legal ones.

    @return: the number of actions played.
    @raise AssertionError: an illegal action, or no end after
        C{maxPlies} actions.
    """
    plies = 0
    while not game.isOver:
        if plies >= maxPlies:
            raise AssertionError("no end after %d actions" % (plies,))
        seat = game.currentSeat
        action = bots[seat].chooseAction(game, seat)
        if action not in game.legalActions(seat):
            raise AssertionError("illegal action %r" % (action,))
        game.apply(seat, action)
        plies += 1
    return plies
