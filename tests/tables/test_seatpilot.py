"""
L{hub.tables.seatpilot.SeatPilot}: scheduled bot actions on an injected clock.
"""

from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from hub.bots import botFor
from hub.tables.seatpilot import SeatPilot
from hub.games.checkers import CheckersGame
from hub.games.gomoku import GomokuGame


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


class SeatPilotTests(SynchronousTestCase):

    def setUp(self):
        self.clock = Clock()
        self.played = []

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
        pilot = SeatPilot(self.clock, botFor("gomoku", 2), delay=0.5)
        pilot.turn(game, 0, self.play(game, 0))
        self.assertTrue(pilot.pending)
        self.clock.advance(0.4)
        self.assertEqual(self.played, [])
        self.clock.advance(0.1)
        self.assertEqual(self.played, [(7, 7)])
        self.assertEqual(game.moves, [(7, 7)])
        self.assertFalse(pilot.pending)
        self.assertEqual(pilot.actions, 1)

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
        SeatPilot(self.clock, Spy(), 0).turn(game, 0, self.play(game, 0))
        self.clock.advance(0)
        self.assertIsNot(seen[0], game)

    def test_wholeGame(self):
        """
        Two pilots, each told at its seat's turn, play a checkers game to
        its end on the clock alone.
        """
        game = CheckersGame(2)
        pilots = [SeatPilot(self.clock, botFor("checkers", 2, seat), 1.0)
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
        pilot = SeatPilot(self.clock, botFor("gomoku", 1), 1)
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
        L{SeatPilot.stop} cancels the scheduled action and every later
        turn; L{SeatPilot.cancel} only the scheduled one.
        """
        game = GomokuGame()
        pilot = SeatPilot(self.clock, botFor("gomoku", 2), 1)
        pilot.turn(game, 0, self.play(game, 0))
        pilot.cancel()
        self.assertEqual(self.clock.getDelayedCalls(), [])
        pilot.turn(game, 0, self.play(game, 0))
        pilot.stop()
        self.assertEqual(self.clock.getDelayedCalls(), [])
        pilot.turn(game, 0, self.play(game, 0))
        self.clock.advance(5)
        self.assertEqual(self.played, [])
        self.assertEqual(self.clock.getDelayedCalls(), [])

    def test_turnReplaces(self):
        """
        A second L{SeatPilot.turn} before the first acts replaces it: one
        action only.
        """
        game = GomokuGame()
        pilot = SeatPilot(self.clock, botFor("gomoku", 2), 1)
        pilot.turn(game, 0, self.play(game, 0))
        pilot.turn(game, 0, self.play(game, 0))
        self.clock.advance(1)
        self.assertEqual(len(self.played), 1)

    def test_failingBot(self):
        """
        A bot that raises, or answers an illegal action, is replaced by
        the first legal action; the failure is logged.
        """
        for bot in (BrokenBot(), BrokenBot((99, 99))):
            game = GomokuGame()
            del self.played[:]
            SeatPilot(self.clock, bot, 0).turn(game, 0, self.play(game, 0))
            self.clock.advance(0)
            self.assertEqual(self.played, [(0, 0)])
        self.assertEqual(len(self.flushLoggedErrors(RuntimeError)), 1)

    def test_failingPlay(self):
        """
        An exception from C{play} is logged and does not reach the clock.
        """
        def play(action):
            raise ValueError("adapter broke")

        SeatPilot(self.clock, botFor("gomoku", 1), 0).turn(
            GomokuGame(), 0, play)
        self.clock.advance(0)
        self.assertEqual(len(self.flushLoggedErrors(ValueError)), 1)
