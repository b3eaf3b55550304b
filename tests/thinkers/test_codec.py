"""
L{hub.games.codec}: a game's whole state and its actions as JSON, what
the hub and a bot worker send each other.
"""

import json
import random

from twisted.trial.unittest import SynchronousTestCase

from hub.bots import botFor
from hub.games import codec
from hub.games.checkers import CheckersGame
from hub.games.gomoku import GomokuGame
from hub.games.splendor import PlayerState, SplendorGame

from tests.bots.support import newGame

#: What a rebuilt state need not have: the deal's generator (only the
#: deal drew from it).
NOT_SENT = {"rng"}


def fields(game):
    """
    Every field of a rules object, those of its players by their slots.
    """
    out = {}
    for name, value in vars(game).items():
        if name in NOT_SENT:
            continue
        if isinstance(value, list) and value and isinstance(
                value[0], PlayerState):
            value = [{slot: getattr(p, slot) for slot in PlayerState.__slots__}
                     for p in value]
        out[name] = value
    return out


def incidents(game, rng):
    """
    Now and then what is no action: a seat eliminated or retired, a
    forfeit, illegal moves counted.
    """
    roll = rng.random()
    if isinstance(game, CheckersGame) and roll < 0.02:
        game.eliminate(rng.choice(game.activeSeats()))
    elif isinstance(game, GomokuGame) and roll < 0.05:
        game.refuse(game.currentSeat)
    elif isinstance(game, GomokuGame) and roll < 0.06:
        game.forfeit(game.currentSeat)
    elif isinstance(game, SplendorGame) and roll < 0.02:
        game.retire(game.currentSeat)


class StateTests(SynchronousTestCase):
    """
    L{codec.stateToJSON} and L{codec.stateFromJSON}.
    """

    def assertSameState(self, kind, game):
        data = json.loads(json.dumps(codec.stateToJSON(kind, game)))
        rebuilt = codec.stateFromJSON(kind, data)
        self.assertIs(type(rebuilt), type(game))
        self.assertEqual(fields(rebuilt), fields(game))
        seat = game.currentSeat
        if seat is not None:
            self.assertEqual(rebuilt.legalActions(seat),
                             game.legalActions(seat))
        return rebuilt

    def test_randomGames(self):
        """
        At every step of random games of each kind and size, with
        eliminations, forfeits and retirements, the state rebuilt from
        its JSON has every field of the original (a field added to a
        rules object and not sent fails here) and the same legal
        actions.
        """
        for kind, sizes in (("gomoku", (2,)), ("checkers", (2, 3, 6)),
                            ("splendor", (2, 3, 4))):
            for players in sizes:
                rng = random.Random("%s%d" % (kind, players))
                for number in range(3):
                    game = newGame(kind, players, seed=number)
                    bot = botFor(kind, 2, seed=number)
                    for _ in range(400):
                        self.assertSameState(kind, game)
                        if game.isOver:
                            break
                        incidents(game, rng)
                        if game.isOver:
                            continue
                        seat = game.currentSeat
                        game.apply(seat, rng.choice(
                            game.legalActions(seat)) if rng.random() < 0.5
                            else bot.chooseAction(game, seat))
                    self.assertSameState(kind, game)

    def test_playsOn(self):
        """
        A rebuilt state plays on exactly as the original: the same
        actions give the same states.
        """
        rng = random.Random(5)
        for kind in codec.KINDS:
            game = newGame(kind, 3 if kind != "gomoku" else 2, seed=1)
            for _ in range(20):
                seat = game.currentSeat
                game.apply(seat, rng.choice(game.legalActions(seat)))
            rebuilt = self.assertSameState(kind, game)
            for _ in range(20):
                if game.isOver:
                    break
                seat = game.currentSeat
                action = rng.choice(game.legalActions(seat))
                game.apply(seat, action)
                rebuilt.apply(seat, action)
                self.assertEqual(fields(rebuilt), fields(game))

    def test_notAState(self):
        """
        What is not a state of the kind is a L{ValueError}: a worker
        answers it as a bad question, never with an exception of its
        own.
        """
        good = {kind: codec.stateToJSON(kind, newGame(kind))
                for kind in codec.KINDS}
        bad = [("gomoku", []), ("gomoku", {}),
               ("gomoku", dict(good["gomoku"], moves=[[7, 7], [7, 7]])),
               ("gomoku", dict(good["gomoku"], moves=[[99, 0]])),
               ("gomoku", dict(good["gomoku"], moves=[[1]])),
               ("checkers", dict(good["checkers"], regions="AZ")),
               ("checkers", dict(good["checkers"], currentSeat=5)),
               ("checkers", dict(good["checkers"], active=[True])),
               ("checkers", dict(good["checkers"], pieces=[[[99, 99]]])),
               ("splendor", dict(good["splendor"], seats=7)),
               ("splendor", dict(good["splendor"], phase="dance")),
               ("splendor", dict(good["splendor"], players=[])),
               ("splendor", dict(good["splendor"], currentSeat=9)),
               ("chess", {})]
        for kind, data in bad:
            self.assertRaises(ValueError, codec.stateFromJSON, kind, data)


class ActionTests(SynchronousTestCase):
    """
    L{codec.actionToJSON} and L{codec.actionFromJSON}.
    """

    def test_roundTrip(self):
        """
        Every legal action of a few positions comes back from its JSON as
        itself.
        """
        rng = random.Random(2)
        for kind in codec.KINDS:
            game = newGame(kind, 2, seed=3)
            for _ in range(15):
                seat = game.currentSeat
                for action in game.legalActions(seat):
                    text = json.dumps(codec.actionToJSON(kind, action))
                    self.assertEqual(
                        codec.actionFromJSON(kind, json.loads(text)), action)
                game.apply(seat, rng.choice(game.legalActions(seat)))

    def test_notAnAction(self):
        """
        A value of another shape is a L{ValueError}.
        """
        for kind, value in (("gomoku", [1]), ("gomoku", None),
                            ("checkers", [[1, 2, 3]]), ("splendor", []),
                            ("splendor", {"op": "x"}), ("chess", [])):
            self.assertRaises(ValueError, codec.actionFromJSON, kind, value)
