"""
L{hub.tables.seatpilot.SeatPilot}: bot actions asked of a thinker and
played on an injected clock.
"""

from twisted.internet import defer
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase
from zope.interface import implementer

from hub.bots import botFor
from hub.games.checkers import CheckersGame
from hub.games.gomoku import GomokuGame
from hub.ihub import IThinker, NoThought
from hub.tables.seatpilot import SeatPilot
from hub.thinkers.inline import InlineThinker


class BrokenBot:
    """
    A bot that fails, or answers an illegal action.
    """

    level = 2

    def __init__(self, answer=None):
        self.answer = answer

    def chooseAction(self, state, seat):
        if self.answer is None:
            raise RuntimeError("broken")
        return self.answer


def thinking(bot):
    """
    An L{InlineThinker} whose every bot is C{bot}.
    """
    return InlineThinker(lambda kind, level, seed: bot)


@implementer(IThinker)
class HeldThinker:
    """
    A thinker whose answers the test gives: each question is kept with
    its Deferred.

    @ivar questions: C{(kind, level, seed, state, seat, deferred)}, in
        the order asked.
    @ivar cancelled: the questions whose Deferred was cancelled.
    """

    def __init__(self):
        self.questions = []
        self.cancelled = []

    def think(self, kind, level, seed, state, seat):
        question = [kind, level, seed, state.copy(), seat]
        d = defer.Deferred(lambda d: self.cancelled.append(question))
        question.append(d)
        self.questions.append(question)
        return d

    def answer(self, result, index=-1):
        d = self.questions[index][-1]
        if isinstance(result, Exception):
            d.errback(result)
        else:
            d.callback(result)


class SeatPilotTests(SynchronousTestCase):

    def setUp(self):
        self.clock = Clock()
        self.played = []

    def pilot(self, thinker, delay=0.5, kind="gomoku", level=2, seed=0):
        return SeatPilot(self.clock, thinker, kind, level, seed, delay)

    def play(self, game, seat):
        def play(action):
            self.played.append(action)
            game.apply(seat, action)
        return play

    def test_actsAfterDelay(self):
        """
        L{SeatPilot.turn} plays nothing at once; after C{delay} seconds it
        hands the bot's (legal) action to C{play}.
        """
        game = GomokuGame()
        pilot = self.pilot(InlineThinker(), delay=0.5)
        pilot.turn(game, 0, self.play(game, 0))
        self.assertTrue(pilot.pending)
        self.clock.advance(0.4)
        self.assertEqual(self.played, [])
        self.clock.advance(0.1)
        self.assertEqual(self.played, [(7, 7)])
        self.assertEqual(game.moves, [(7, 7)])
        self.assertFalse(pilot.pending)
        self.assertEqual(pilot.actions, 1)

    def test_asksAtOnce(self):
        """
        The thinker is asked when the turn starts, with the pilot's kind
        and level, a seed of the pilot's own and the seat; an answer that
        comes before the delay is over waits for it.
        """
        thinker = HeldThinker()
        game = GomokuGame()
        pilot = self.pilot(thinker, delay=1.0, level=3, seed=7)
        pilot.turn(game, 0, self.play(game, 0))
        [(kind, level, seed, state, seat, d)] = thinker.questions
        self.assertEqual((kind, level, seat), ("gomoku", 3, 0))
        self.assertEqual(state.moves, [])
        thinker.answer((3, 4))
        self.assertEqual(self.played, [])
        self.clock.advance(1.0)
        self.assertEqual(self.played, [(3, 4)])
        # Each question's seed is the pilot's own, and differs per move.
        pilot.turn(game, 1, self.play(game, 1))
        self.assertNotEqual(thinker.questions[1][2], seed)
        again = self.pilot(HeldThinker(), level=3, seed=7)
        again.turn(GomokuGame(), 0, self.play(game, 0))
        self.assertEqual(again.thinker.questions[0][2], seed)

    def test_answerAfterDelay(self):
        """
        An answer that comes after the delay is played when it comes.
        """
        thinker = HeldThinker()
        game = GomokuGame()
        pilot = self.pilot(thinker, delay=0.5)
        pilot.turn(game, 0, self.play(game, 0))
        self.clock.advance(3)
        self.assertEqual(self.played, [])
        self.assertTrue(pilot.pending)
        thinker.answer((2, 2))
        self.assertEqual(self.played, [(2, 2)])
        self.assertFalse(pilot.pending)

    def test_noThought(self):
        """
        A thinker that gives no answer (the pool full, late or without a
        worker) has the seat's first legal action played, once the delay
        is over.
        """
        for reason in (NoThought.FULL, NoThought.LATE, NoThought.LOST):
            thinker = HeldThinker()
            game = GomokuGame()
            del self.played[:]
            pilot = self.pilot(thinker, delay=0.5)
            pilot.turn(game, 0, self.play(game, 0))
            thinker.answer(NoThought(reason))
            self.assertEqual(self.played, [])
            self.clock.advance(0.5)
            self.assertEqual(self.played, [(0, 0)], reason)

    def test_stoppedThinker(self):
        """
        A thinker that stops (the hub stops) has nothing played.
        """
        thinker = HeldThinker()
        game = GomokuGame()
        pilot = self.pilot(thinker, delay=0)
        pilot.turn(game, 0, self.play(game, 0))
        thinker.answer(NoThought(NoThought.STOPPED))
        self.clock.advance(5)
        self.assertEqual(self.played, [])
        self.assertFalse(pilot.pending)
        self.assertEqual(self.clock.getDelayedCalls(), [])

    def test_botGetsCopy(self):
        """
        The bot chooses on a copy: the adapter's state changes only
        through C{play}.
        """
        seen = []

        class Spy:
            level = 1

            def chooseAction(self, state, seat):
                seen.append(state)
                return state.legalActions(seat)[0]

        game = GomokuGame()
        self.pilot(thinking(Spy()), 0).turn(game, 0, self.play(game, 0))
        self.clock.advance(0)
        self.assertIsNot(seen[0], game)

    def test_wholeGame(self):
        """
        Two pilots, each told at its seat's turn, play a checkers game to
        its end on the clock alone.
        """
        game = CheckersGame(2)
        pilots = [self.pilot(thinking(botFor("checkers", 2, seat)), 1.0,
                             "checkers")
                  for seat in (0, 1)]

        def play(action):
            seat = game.currentSeat
            game.apply(seat, action)
            if not game.isOver:
                nxt = game.currentSeat
                pilots[nxt].turn(game, nxt, play)

        pilots[0].turn(game, 0, play)
        for _ in range(1000):
            if game.isOver:
                break
            self.clock.advance(1.0)
        self.assertTrue(game.isOver)
        self.assertEqual(len(game.finished), 1)
        self.assertEqual(self.clock.getDelayedCalls(), [])

    def test_notItsTurnAnyMore(self):
        """
        When the scheduled time comes and the seat is not to act (someone
        else played, or the game ended), nothing is played.
        """
        game = GomokuGame()
        pilot = self.pilot(InlineThinker(), 1, level=1)
        pilot.turn(game, 0, self.play(game, 0))
        game.apply(0, (0, 0))
        self.clock.advance(1)
        self.assertEqual(self.played, [])

        game = GomokuGame()
        game.forfeit(1)
        pilot.turn(game, 0, self.play(game, 0))
        self.clock.advance(1)
        self.assertEqual(self.played, [])

    def test_stop(self):
        """
        L{SeatPilot.stop} cancels the turn under way (its timer and its
        question) and every later turn; L{SeatPilot.cancel} only the
        turn under way.
        """
        thinker = HeldThinker()
        game = GomokuGame()
        pilot = self.pilot(thinker, 1)
        pilot.turn(game, 0, self.play(game, 0))
        pilot.cancel()
        self.assertEqual(self.clock.getDelayedCalls(), [])
        self.assertEqual(len(thinker.cancelled), 1)
        self.assertFalse(pilot.pending)
        pilot.turn(game, 0, self.play(game, 0))
        pilot.stop()
        self.assertEqual(self.clock.getDelayedCalls(), [])
        self.assertEqual(len(thinker.cancelled), 2)
        pilot.turn(game, 0, self.play(game, 0))
        self.clock.advance(5)
        self.assertEqual(self.played, [])
        self.assertEqual(len(thinker.questions), 2)
        self.assertEqual(self.clock.getDelayedCalls(), [])

    def test_turnReplaces(self):
        """
        A second L{SeatPilot.turn} before the first acts replaces it: one
        action only, the second question's; the first is withdrawn.
        """
        thinker = HeldThinker()
        game = GomokuGame()
        pilot = self.pilot(thinker, 1)
        pilot.turn(game, 0, self.play(game, 0))
        pilot.turn(game, 0, self.play(game, 0))
        self.assertEqual(len(thinker.cancelled), 1)
        thinker.answer((5, 5))
        self.clock.advance(1)
        self.assertEqual(self.played, [(5, 5)])

    def test_failingBot(self):
        """
        A bot that raises, or answers an illegal action, is replaced by
        the first legal action; the failure is logged.
        """
        for bot in (BrokenBot(), BrokenBot((99, 99))):
            game = GomokuGame()
            del self.played[:]
            self.pilot(thinking(bot), 0).turn(game, 0, self.play(game, 0))
            self.clock.advance(0)
            self.assertEqual(self.played, [(0, 0)])
        self.assertEqual(len(self.flushLoggedErrors(RuntimeError)), 1)

    def test_failingThinker(self):
        """
        A thinker that raises instead of answering a Deferred is a
        failure like any: the first legal action, logged.
        """
        class Raising:
            def think(self, *args):
                raise ValueError("no")

        game = GomokuGame()
        self.pilot(Raising(), 0).turn(game, 0, self.play(game, 0))
        self.clock.advance(0)
        self.assertEqual(self.played, [(0, 0)])
        self.assertEqual(len(self.flushLoggedErrors(ValueError)), 1)

    def test_failingPlay(self):
        """
        An exception from C{play} is logged and does not reach the clock.
        """
        def play(action):
            raise ValueError("adapter broke")

        self.pilot(InlineThinker(), 0, level=1).turn(GomokuGame(), 0, play)
        self.clock.advance(0)
        self.assertEqual(len(self.flushLoggedErrors(ValueError)), 1)
