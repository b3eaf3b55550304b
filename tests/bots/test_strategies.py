"""
Every bot level returns a legal action on random reachable positions of
each game, and a bot's choices depend only on its seed and the position.
"""

from hypothesis import HealthCheck, given, settings, strategies as st
from twisted.trial.unittest import SynchronousTestCase
from zope.interface.verify import verifyObject

from hub.bots import KINDS, LEVELS, NoLegalAction, botFor
from hub.bots.checkers import CheckersBot
from hub.bots.gomoku import GomokuBot
from hub.bots.splendor import SplendorBot
from hub.games.gomoku import GomokuGame
from hub.ihub import IBot

from tests.bots.support import newGame, reachable

SETTINGS = dict(deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])


class LegalActionMixin:
    """
    For C{kind}: every level plays a legal action of the seat to act.
    """

    kind = None
    playerCounts = (2,)
    maxPlies = 100

    def checkLegal(self, players, seed, plies, level):
        game = reachable(self.kind, players, seed, plies)
        if game.isOver:
            return
        seat = game.currentSeat
        before = game.copy()
        action = botFor(self.kind, level, seed).chooseAction(game, seat)
        self.assertIn(action, game.legalActions(seat))
        # The bot does not change the position it is given.
        self.assertEqual(game.legalActions(seat), before.legalActions(seat))
        game.apply(seat, action)


def _legalTest(level, maxExamples):
    """
    A test that level C{level} plays legal actions on C{maxExamples}
    random reachable positions.
    """
    @settings(max_examples=maxExamples, **SETTINGS)
    @given(data=st.data())
    def test(self, data):
        players = data.draw(st.sampled_from(self.playerCounts), "players")
        seed = data.draw(st.integers(0, 2 ** 32 - 1), "seed")
        plies = data.draw(st.integers(0, self.maxPlies), "plies")
        self.checkLegal(players, seed, plies, level)
    test.__doc__ = ("Level %d returns a legal action on random reachable"
                    " positions." % (level,))
    return test


class GomokuLegalTests(LegalActionMixin, SynchronousTestCase):
    kind = "gomoku"
    maxPlies = 120

    test_level1 = _legalTest(1, 30)
    test_level2 = _legalTest(2, 30)
    test_level3 = _legalTest(3, 12)


class CheckersLegalTests(LegalActionMixin, SynchronousTestCase):
    kind = "checkers"
    playerCounts = (2, 3, 4, 6)
    maxPlies = 300

    test_level1 = _legalTest(1, 30)
    test_level2 = _legalTest(2, 30)
    test_level3 = _legalTest(3, 20)


class SplendorLegalTests(LegalActionMixin, SynchronousTestCase):
    kind = "splendor"
    playerCounts = (2, 3, 4)
    maxPlies = 150

    test_level1 = _legalTest(1, 30)
    test_level2 = _legalTest(2, 40)
    test_level3 = _legalTest(3, 25)


class InterfaceTests(SynchronousTestCase):
    """
    L{botFor} and the bot classes.
    """

    def test_botFor(self):
        """
        L{botFor} gives a bot of the kind's class at the level asked, and
        every one provides L{IBot}.
        """
        classes = {"gomoku": GomokuBot, "checkers": CheckersBot,
                   "splendor": SplendorBot}
        for kind in KINDS:
            for level in LEVELS:
                bot = botFor(kind, level, seed=3)
                self.assertIsInstance(bot, classes[kind])
                self.assertEqual(bot.level, level)
                verifyObject(IBot, bot)

    def test_unknown(self):
        """
        An unknown kind is a L{KeyError}, an unknown level a
        L{ValueError}.
        """
        self.assertRaises(KeyError, botFor, "chess", 1)
        self.assertRaises(ValueError, botFor, "gomoku", 4)
        self.assertRaises(ValueError, botFor, "gomoku", 0)

    def test_notToAct(self):
        """
        Asking for an action of a seat that is not to act raises
        L{NoLegalAction}.
        """
        game = newGame("gomoku")
        self.assertRaises(NoLegalAction,
                          botFor("gomoku", 2).chooseAction, game, 1)


class DeterminismTests(SynchronousTestCase):
    """
    A bot's choices depend only on its seed and the positions it sees.
    """

    def replay(self, kind, players, levels, seed, plies):
        game = newGame(kind, players, seed)
        bots = [botFor(kind, level, seed + k)
                for k, level in enumerate(levels)]
        actions = []
        while not game.isOver and len(actions) < plies:
            seat = game.currentSeat
            action = bots[seat].chooseAction(game, seat)
            actions.append(action)
            game.apply(seat, action)
        return actions

    def test_sameSeedSameGame(self):
        """
        Two runs with the same seeds play the same actions, at every
        level, for every game.
        """
        cases = [("gomoku", 2, (1, 2), 20), ("gomoku", 2, (3, 2), 12),
                 ("checkers", 3, (1, 2, 3), 30),
                 ("splendor", 3, (1, 2, 3), 30)]
        for kind, players, levels, plies in cases:
            for seed in (0, 5):
                self.assertEqual(
                    self.replay(kind, players, levels, seed, plies),
                    self.replay(kind, players, levels, seed, plies))

    def test_seedsDiffer(self):
        """
        Level 1 plays differently for different seeds.
        """
        games = {tuple(self.replay("gomoku", 2, (1, 1), seed, 10))
                 for seed in range(5)}
        self.assertGreater(len(games), 1)


@st.composite
def crowdedCheckers(draw):
    """
    A checkers position with pieces anywhere (in other seats' targets
    too), as C{CheckersGame.fromPosition} allows, and a seat to move.
    """
    from hub.games.checkers import CELLS, PLAYER_REGIONS, CheckersGame
    n = draw(st.sampled_from((2, 3, 6)))
    cells = draw(st.permutations(CELLS))
    pieces, k = {}, 0
    for seat in range(n):
        count = draw(st.integers(1, 10))
        pieces[seat] = cells[k:k + count]
        k += count
    return CheckersGame.fromPosition(PLAYER_REGIONS[n], pieces,
                                     draw(st.integers(0, n - 1)))


class CheckersAnyPositionTests(SynchronousTestCase):
    """
    The checkers bots on arbitrary positions (pieces parked in targets,
    walled-in pieces), not only reachable ones.
    """

    @settings(max_examples=40, **SETTINGS)
    @given(game=crowdedCheckers(), level=st.sampled_from(LEVELS),
           seed=st.integers(0, 1000))
    def test_legal(self, game, level, seed):
        """
        Every level returns one of the legal moves, if there is any.
        """
        seat = game.currentSeat
        legal = game.legalActions(seat)
        bot = botFor("checkers", level, seed)
        if not legal:
            self.assertRaises(NoLegalAction, bot.chooseAction, game, seat)
            return
        self.assertIn(bot.chooseAction(game, seat), legal)


class SplendorGiveBackTests(SynchronousTestCase):
    """
    A Splendor bot does not take gems only to give the same ones back
    when it is over the ten-token limit (the same position, a turn
    later: the hint suggested "take sapphire / discard sapphire" turn
    after turn).
    """

    def gaveBack(self, level, seeds, players=2):
        """
        Play whole games of bots at C{level}: the takes given back whole
        by the discard that follows, as C{(seed, seat, gems)}.
        """
        from hub.games.splendor import DISCARD_GEMS, GET_GEMS
        found = []
        for seed in seeds:
            game = newGame("splendor", players, seed)
            bots = [botFor("splendor", level, seed + k)
                    for k in range(players)]
            taken = {}
            while not game.isOver:
                seat = game.currentSeat
                action = bots[seat].chooseAction(game, seat)
                if action.kind == DISCARD_GEMS and \
                        sorted(action.gems) == taken.get(seat):
                    found.append((seed, seat, action.gems))
                taken.pop(seat, None)
                if action.kind == GET_GEMS:
                    taken[seat] = sorted(action.gems)
                game.apply(seat, action)
        return found

    def test_position(self):
        """
        Holding 10 tokens, with obsidian the gem its best card lacks, the
        level-2 bot (the hints' level) takes more than the obsidian it
        would give back.
        """
        from hub.games.splendor import GET_GEMS
        game = newGame("splendor", 2, 6)
        game.board = [[3, 10, 32, 1], [52, 56, 47, 61], [83, 86, 78, 75]]
        game.nobles = [93, 100, 98]
        game.bank = [2, 2, 0, 0, 2, 5]
        other, me = game.players
        other.tokens, other.bonuses, other.points = (
            [2, 0, 1, 1, 0, 0], [2, 1, 1, 0, 0], 1)
        me.tokens, me.bonuses, me.points = (
            [0, 2, 3, 3, 2, 0], [1, 0, 1, 0, 0], 3)
        game.currentSeat = 1
        bot = SplendorBot(2, seed=0)
        action = bot.chooseAction(game, 1)
        before = list(me.tokens)
        game.apply(1, action)
        game.apply(1, bot.chooseAction(game, 1))
        self.assertNotEqual((action.kind, me.tokens), (GET_GEMS, before))

    def test_heuristic(self):
        """
        Level 2, in 60 whole games.
        """
        self.assertEqual(self.gaveBack(2, range(60)), [])

    def test_search(self):
        """
        Level 3, in 6 whole games.
        """
        self.assertEqual(self.gaveBack(3, range(6)), [])


class Countdown:
    """
    A search's time (L{hub.bots.base.Bot.expired}) that runs out after
    C{asks} questions; it counts them.
    """

    def __init__(self, asks):
        self.asks = asks
        self.asked = 0

    def __call__(self):
        self.asked += 1
        return self.asked > self.asks


class DeadlineTests(SynchronousTestCase):
    """
    Level 3 answers when its time is up: the best action found so far,
    at worst level 2's.
    """

    def positions(self, kind):
        for seed in range(6):
            game = reachable(kind, 3 if kind != "gomoku" else 2, seed,
                             12 + 3 * seed)
            if not game.isOver:
                yield game

    def test_noTimeAtAll(self):
        """
        With its time up from the start, level 3 still plays a legal
        action, having asked the time only a few times.
        """
        for kind in KINDS:
            for game in self.positions(kind):
                seat = game.currentSeat
                time = Countdown(0)
                action = botFor(kind, 3, 1, expired=time).chooseAction(
                    game, seat)
                self.assertIn(action, game.legalActions(seat))
                self.assertLessEqual(time.asked, 3, kind)

    def test_gomokuStillWinsAndBlocks(self):
        """
        Out of time, level 3 of gomoku still takes a five, or blocks the
        opponent's: those come before the search.
        """
        game = GomokuGame()
        for x in range(4):
            game.apply(0, (x, 0))
            game.apply(1, (x, 5))
        bot = botFor("gomoku", 3, 0, expired=Countdown(0))
        self.assertEqual(bot.chooseAction(game, 0), (4, 0))
        game.apply(0, (9, 9))
        self.assertEqual(bot.chooseAction(game, 1), (4, 5))

    def test_stopsSoon(self):
        """
        A gomoku search whose time runs out mid-way stops within a few
        dozen positions, well short of its node budget, and plays a
        legal cell.
        """
        for game in self.positions("gomoku"):
            seat = game.currentSeat
            bot = botFor("gomoku", 3, 2, expired=Countdown(3))
            action = bot.chooseAction(game, seat)
            self.assertIn(action, game.legalActions(seat))
            self.assertLess(bot.nodes, 3 * bot.clockEvery + bot.clockEvery)

    def test_neverByDefault(self):
        """
        Without a time, the search ends by its own bounds: the same
        action as with a time that never runs out.
        """
        for kind in KINDS:
            for game in self.positions(kind):
                seat = game.currentSeat
                self.assertEqual(
                    botFor(kind, 3, 4).chooseAction(game, seat),
                    botFor(kind, 3, 4, expired=lambda: False).chooseAction(
                        game, seat))
