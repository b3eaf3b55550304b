"""
AI 托管 and hints (L{hub.client.autoplay}), on a fake clock.
"""

import threading

from twisted.internet import defer, reactor
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase, TestCase

from hub.bots import botFor
from hub.bots.checkers import CheckersBot
from hub.wire import checkers as cwire
from hub.wire import gomoku as wire

from hub.client import events as E
from hub.client.autoplay import AutoPlayer
from hub.client.session import threadedThinking
from hub.client.state_checkers import CheckersState
from hub.client.state_gomoku import WHITE, GomokuState
from tests.client.support import connect, take

TOKEN = 42


def result(status, session):
    return wire.encodeMessage(wire.resultMessage(status, TOKEN, session))


class AutoPlayerTests(SynchronousTestCase):
    """
    The local bot plays our turns while enabled, and suggests moves.
    """

    def setUp(self):
        self.clock = Clock()
        self.state = CheckersState("alice")
        self.proto, self.transport = connect("checkers", self.state)
        self.auto = AutoPlayer(self.state, self.clock, 2,
                               bot=botFor("checkers", 2, seed=1))
        self.state.join("r1")
        self.proto.dataReceived(
            cwire.encode(cwire.JOIN_ROOM_REPLY_OP, "bob", "1")
            + cwire.encode(cwire.START_GAME_OP, "bob alice", "A D")
            + cwire.encode(cwire.START_TURN_OP, "A", "1656403200"))
        take(self.transport)

    def test_playsOnlyOnOurTurn(self):
        """
        Enabled, it waits while others play and moves on our turn.
        """
        self.auto.setEnabled(True)
        self.clock.advance(1)
        self.assertEqual(take(self.transport), b"")
        self.proto.dataReceived(
            cwire.encode(cwire.MOVE_OP, "A", "-2 6 0 4")
            + cwire.encode(cwire.START_TURN_OP, "D", "1656403207"))
        self.clock.advance(1)
        sent = cwire.decode(take(self.transport))
        self.assertEqual((sent.op, sent.data1), (cwire.MOVE_OP, "D"))
        self.assertTrue(self.state.awaitingReply)

    def test_playFailureLogged(self):
        """
        A failure while playing the bot's move is logged, not lost in its
        Deferred; so is the random legal action played instead, which
        fails the same way here.
        """
        def broken(action):
            raise RuntimeError("cannot play")
        self.state.playAction = broken
        self.auto.setEnabled(True)
        self.proto.dataReceived(
            cwire.encode(cwire.MOVE_OP, "A", "-2 6 0 4")
            + cwire.encode(cwire.START_TURN_OP, "D", "1656403207"))
        self.clock.advance(1)
        self.assertEqual(len(self.flushLoggedErrors(RuntimeError)), 2)

    def test_offDoesNothing(self):
        """
        Disabled, it never plays.
        """
        self.proto.dataReceived(
            cwire.encode(cwire.MOVE_OP, "A", "-2 6 0 4")
            + cwire.encode(cwire.START_TURN_OP, "D", "1656403207"))
        self.clock.advance(5)
        self.assertEqual(take(self.transport), b"")

    def test_suggest(self):
        """
        suggest() gives the bot's legal move on our turn, None otherwise.
        """
        self.assertIsNone(self.successResultOf(self.auto.suggest()))
        self.ourTurn()
        hint = self.successResultOf(self.auto.suggest())
        self.assertIn(hint, self.state.board.legalActions(
            self.state.mySeat()))
        self.assertEqual(self.auto.hint, hint)
        self.assertEqual(take(self.transport), b"")

    def ourTurn(self):
        """
        bob (A) moves; it is alice's (D) turn.
        """
        self.proto.dataReceived(
            cwire.encode(cwire.MOVE_OP, "A", "-2 6 0 4")
            + cwire.encode(cwire.START_TURN_OP, "D", "1656403207"))

    def slowBot(self):
        """
        An AutoPlayer whose bot thinks until the test says: the list of
        (Deferred, f, args) of each request.
        """
        pending = []

        def think(f, *args):
            d = defer.Deferred()
            pending.append((d, f, args))
            return d
        auto = AutoPlayer(self.state, self.clock, 2, think=think,
                          bot=botFor("checkers", 2, seed=1))
        return auto, pending

    def test_suggestWaitsForBot(self):
        """
        The hint is set, and L{E.HintReady} emitted, when the bot
        answers.
        """
        auto, pending = self.slowBot()
        hints = []
        self.state.subscribe(
            lambda event: isinstance(event, E.HintReady)
            and hints.append(event))
        self.ourTurn()
        result = auto.suggest()
        self.assertNoResult(result)
        self.assertIsNone(auto.hint)
        d, f, args = pending.pop()
        d.callback(f(*args))
        self.assertEqual(self.successResultOf(result), auto.hint)
        self.assertIsNotNone(auto.hint)
        self.assertEqual(hints, [E.HintReady(auto.hint)])

    def test_staleSuggestionDropped(self):
        """
        An answer that comes after the position changed is no hint.
        """
        auto, pending = self.slowBot()
        self.ourTurn()
        result = auto.suggest()
        self.proto.dataReceived(
            cwire.encode(cwire.START_TURN_OP, "A", "1656403222"))
        d, f, args = pending.pop()
        d.callback(f(*args))
        self.assertIsNone(self.successResultOf(result))
        self.assertIsNone(auto.hint)

    def test_oneBotThinksAtATime(self):
        """
        A second request waits until the bot has answered the first.
        """
        auto, pending = self.slowBot()
        self.ourTurn()
        auto.suggest()
        auto.suggest()
        self.assertEqual(len(pending), 1)
        d, f, args = pending.pop()
        d.callback(f(*args))
        self.assertEqual(len(pending), 1)

    def test_playsWhenBotAnswers(self):
        """
        AI 托管 plays the bot's move when it comes, still on our turn.
        """
        auto, pending = self.slowBot()
        auto.setEnabled(True)
        self.ourTurn()
        self.clock.advance(1)
        self.assertEqual(take(self.transport), b"")
        d, f, args = pending.pop()
        d.callback(f(*args))
        sent = cwire.decode(take(self.transport))
        self.assertEqual((sent.op, sent.data1), (cwire.MOVE_OP, "D"))

    def test_staleMoveNotPlayed(self):
        """
        A move the bot found for a position that has changed since is not
        sent; the bot thinks again about the new one.
        """
        auto, pending = self.slowBot()
        auto.setEnabled(True)
        self.ourTurn()
        self.clock.advance(1)
        self.state.emit(E.Changed())
        d, f, args = pending.pop()
        d.callback(f(*args))
        self.assertEqual(take(self.transport), b"")
        self.clock.advance(1)
        d, f, args = pending.pop()
        d.callback(f(*args))
        sent = cwire.decode(take(self.transport))
        self.assertEqual((sent.op, sent.data1), (cwire.MOVE_OP, "D"))

    def test_hubBotsUsed(self):
        """
        Without a bot given, the AutoPlayer uses hub.bots' bot of the game
        at its level.
        """
        auto = AutoPlayer(self.state, self.clock, 3)
        self.assertIsInstance(auto.bot, CheckersBot)
        self.assertEqual(auto.bot.level, 3)
        self.assertIs(auto.bot, auto.bot)


    def test_gameOverBeforeServerSaysSo(self):
        """
        When the opponent's winning move has come but the server's end of
        game not yet, AI 托管 plays nothing (and no bot fails).
        """
        state = GomokuState("bob")
        proto, transport = connect("gomoku", state)
        proto.dataReceived(result(0, 1))
        room = wire.roomObject("r1", "alice", "bob", 16, 3, 1)
        proto.dataReceived(
            wire.encodeMessage(wire.roomMessage(wire.RI_PLAYER_JOIN, room,
                                                TOKEN, 2))
            + wire.encodeMessage(wire.gameMessage(2, 0, TOKEN, 3)))
        for i in range(5):
            state.game_.apply(0, (0, 2 * i))     # black (bob), no five
            state.game_.apply(1, (7, i))         # white: five in a row
        self.assertTrue(state.game_.isOver)
        self.assertTrue(state.isMyTurn())
        take(transport)
        auto = AutoPlayer(state, self.clock, 2,
                          bot=botFor("gomoku", 2, seed=1))
        auto.setEnabled(True)
        state.emit(E.Moved(1, (7, 4), WHITE))
        self.clock.advance(1)
        self.assertEqual(take(transport), b"")
        self.assertIsNone(self.successResultOf(auto.suggest()))


class ThreadedThinkingTests(TestCase):
    """
    With a real reactor the bot thinks in its thread pool.
    """

    def test_suggestInThread(self):
        """
        The hint is computed off the reactor thread and arrives on it.
        """
        threads = []
        state = CheckersState("alice")
        proto, transport = connect("checkers", state)
        state.join("r1")
        proto.dataReceived(
            cwire.encode(cwire.JOIN_ROOM_REPLY_OP, "", "")
            + cwire.encode(cwire.START_GAME_OP, "alice bob", "A D")
            + cwire.encode(cwire.START_TURN_OP, "A", "1656403200"))
        think = threadedThinking(reactor)

        def recordingThink(f, *args):
            def run(*args):
                threads.append(threading.current_thread())
                return f(*args)
            return think(run, *args)
        auto = AutoPlayer(state, Clock(), 2, think=recordingThink,
                          bot=botFor("checkers", 2, seed=1))

        def check(hint):
            self.assertIn(hint, state.board.legalActions(state.mySeat()))
            self.assertIs(threading.current_thread(),
                          threading.main_thread())
            self.assertIsNot(threads[0], threading.main_thread())
        return auto.suggest().addCallback(check)


class FailureTests(SynchronousTestCase):
    """
    A failure of the auto-player's bot or move is logged, never lost,
    and the game goes on.
    """

    def setUp(self):
        self.clock = Clock()
        self.state = CheckersState("alice")
        self.proto, self.transport = connect("checkers", self.state)
        self.state.join("r1")
        self.proto.dataReceived(
            cwire.encode(cwire.JOIN_ROOM_REPLY_OP, "bob", "1")
            + cwire.encode(cwire.START_GAME_OP, "bob alice", "A D")
            + cwire.encode(cwire.START_TURN_OP, "D", "1656403200"))
        take(self.transport)

    def test_botFails(self):
        """
        A bot that raises is logged, and a random legal move is played.
        """
        class Broken:
            def chooseAction(self, state, seat):
                raise RuntimeError("broken bot")
        auto = AutoPlayer(self.state, self.clock, 2, bot=Broken())
        auto.setEnabled(True)
        self.clock.advance(1)
        self.assertEqual(len(self.flushLoggedErrors(RuntimeError)), 1)
        sent = cwire.decode(take(self.transport))
        self.assertEqual((sent.op, sent.data1), (cwire.MOVE_OP, "D"))

    def test_moveFails(self):
        """
        A move that raises is logged (the Deferred's failure is not
        left unhandled).
        """
        auto = AutoPlayer(self.state, self.clock, 2,
                          bot=botFor("checkers", 2, seed=1))
        calls = []

        def broken(action):
            calls.append(action)
            raise ValueError("cannot send")
        self.state.playAction = broken
        auto.setEnabled(True)
        self.clock.advance(1)
        self.assertEqual(len(calls), 2)     # the bot's, then a random one
        self.assertEqual(len(self.flushLoggedErrors(ValueError)), 2)
