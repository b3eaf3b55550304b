"""
AI 托管, hints and the lobby pilot of C{--bot}, on a fake clock.
"""

from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from hub.bots import botFor
from hub.bots.checkers import CheckersBot
from hub.wire import checkers as cwire
from hub.wire import gomoku as wire

from client_pyglet import state as S
from client_pyglet.pilot import AutoPlayer, GomokuPilot, ReadyPilot
from client_pyglet.session import Options
from client_pyglet.state_checkers import CheckersState
from client_pyglet.state_gomoku import BLACK, GomokuState
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
        self.assertIsNone(self.auto.suggest())
        self.proto.dataReceived(
            cwire.encode(cwire.MOVE_OP, "A", "-2 6 0 4")
            + cwire.encode(cwire.START_TURN_OP, "D", "1656403207"))
        hint = self.auto.suggest()
        self.assertIn(hint, self.state.board.legalActions(
            self.state.mySeat()))
        self.assertEqual(take(self.transport), b"")

    def test_hubBotsUsed(self):
        """
        Without a bot given, the AutoPlayer uses hub.bots' bot of the game
        at its level.
        """
        auto = AutoPlayer(self.state, self.clock, 3)
        self.assertIsInstance(auto.bot, CheckersBot)
        self.assertEqual(auto.bot.level, 3)
        self.assertIs(auto.bot, auto.bot)


class GomokuPilotTests(SynchronousTestCase):
    """
    --bot walks the gomoku lobby: join or create, ready, start.
    """

    def setUp(self):
        self.clock = Clock()

    def pilot(self, name):
        state = GomokuState(name)
        GomokuPilot(state, self.clock, Options(game="gomoku", name=name,
                                               room="r1", bot=2))
        proto, transport = connect("gomoku", state)
        take(transport)
        proto.dataReceived(result(0, 1))
        take(transport)
        self.clock.advance(1)
        return state, proto, transport

    def test_joinThenCreate(self):
        """
        It joins --room; when there is no such room it creates it.
        """
        state, proto, transport = self.pilot("alice")
        sent = wire.decodeMessage(take(transport)[1:-1])
        self.assertEqual((sent["msg_type"], sent["type"]),
                         (wire.MSG_ROOM, wire.RO_ROOM_JOIN))
        proto.dataReceived(result(wire.S_ROOM_NOT_EXISTS, 3))
        self.clock.advance(1)
        sent = wire.decodeMessage(take(transport)[1:-1])
        self.assertEqual((sent["type"], sent["room"]["name"]),
                         (wire.RO_ROOM_CREATE, "r1"))

    def test_ownerStartsWhenGuestReady(self):
        """
        As owner it starts once the guest is ready.
        """
        state, proto, transport = self.pilot("alice")
        proto.dataReceived(result(wire.S_ROOM_NOT_EXISTS, 3))
        self.clock.advance(1)
        proto.dataReceived(result(0, 4))
        take(transport)
        room = wire.roomObject("r1", "alice", "bob", 16, 1, 1)
        proto.dataReceived(wire.encodeMessage(
            wire.roomMessage(wire.RI_PLAYER_JOIN, room, TOKEN, 4)))
        self.clock.advance(1)
        self.assertEqual(take(transport), b"")
        room["gs"] = 3
        proto.dataReceived(wire.encodeMessage(
            wire.roomMessage(wire.RI_PLAYER_STATE, room, TOKEN, 4)))
        self.clock.advance(1)
        sent = wire.decodeMessage(take(transport)[1:-1])
        self.assertEqual((sent["msg_type"], sent["target"]),
                         (wire.MSG_REQUEST, wire.REQ_GAME_START))

    def test_guestReadies(self):
        """
        As guest it sets itself ready.
        """
        state, proto, transport = self.pilot("bob")
        take(transport)
        proto.dataReceived(result(0, 3))
        room = wire.roomObject("r1", "alice", "bob", 16, 1, 1)
        proto.dataReceived(wire.encodeMessage(
            wire.roomMessage(wire.RI_PLAYER_JOIN, room, TOKEN, 3)))
        self.clock.advance(1)
        sent = wire.decodeMessage(take(transport)[1:-1])
        self.assertEqual((sent["msg_type"], sent["state"]),
                         (wire.MSG_STATE, wire.PLAYER_STATE_READY))
        self.assertEqual(state.myColour(), BLACK)


class ReadyPilotTests(SynchronousTestCase):
    """
    Checkers and Splendor: ready in the room, optionally once N are in.
    """

    def test_waitsForPlayers(self):
        """
        With --players 3 it readies only when three are in the room.
        """
        clock = Clock()
        state = CheckersState("alice")
        ReadyPilot(state, clock, Options(game="checkers", name="alice",
                                         bot=2, players=3))
        proto, transport = connect("checkers", state)
        state.join("r1")
        proto.dataReceived(cwire.encode(cwire.JOIN_ROOM_REPLY_OP, "bob",
                                        "0"))
        take(transport)
        clock.advance(1)
        self.assertEqual(take(transport), b"")
        proto.dataReceived(cwire.encode(cwire.JOIN_ROOM_OP, "carol"))
        clock.advance(1)
        self.assertEqual(take(transport),
                         cwire.encode(cwire.PLAYER_READY_OP, "alice"))
        self.assertEqual(state.phase, S.ROOM)
