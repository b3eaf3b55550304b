"""
The lobby steps of C{--bot} and the bot client (L{hub.client.lobbyflow}):
enter the room, ready, start, on a fake clock.
"""

from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from hub.wire import checkers as cwire
from hub.wire import gomoku as wire

from hub.client import state as S
from hub.client.lobbyflow import ROOM_TRIES, DEFAULT_ROOM, LobbyFlow
from hub.client.session import ClientSession, Options
from hub.client.state_checkers import CheckersState
from hub.client.state_gomoku import BLACK, GomokuState
from tests.client.support import connect, take

TOKEN = 42


def result(status, session):
    return wire.encodeMessage(wire.resultMessage(status, TOKEN, session))


class GomokuLobbyTests(SynchronousTestCase):
    """
    --bot walks the gomoku lobby: join or create, ready, start.
    """

    def setUp(self):
        self.clock = Clock()

    def pilot(self, name):
        state = GomokuState(name)
        LobbyFlow(state, self.clock, "r1")
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

    def test_defaultRoom(self):
        """
        Without --room, every --bot client walks to the same room,
        L{DEFAULT_ROOM}: joined when it exists, else created.
        """
        for name in ("alice", "bob"):
            session = ClientSession(self.clock, self.clock, Options(
                game="gomoku", name=name, bot=2))
            self.addCleanup(session.stop)
            state = session.state
            self.assertEqual(session.lobby.room, DEFAULT_ROOM)
            proto, transport = connect("gomoku", state)
            take(transport)
            proto.dataReceived(result(0, 1))
            take(transport)
            self.clock.advance(1)
            sent = wire.decodeMessage(take(transport)[1:-1])
            self.assertEqual((sent["type"], sent["room"]["name"]),
                             (wire.RO_ROOM_JOIN, DEFAULT_ROOM))
            proto.dataReceived(result(wire.S_ROOM_NOT_EXISTS, 3))
            self.clock.advance(1)
            sent = wire.decodeMessage(take(transport)[1:-1])
            self.assertEqual((sent["type"], sent["room"]["name"]),
                             (wire.RO_ROOM_CREATE, DEFAULT_ROOM))

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


class ReadyTests(SynchronousTestCase):
    """
    Checkers and Splendor: ready in the room, optionally once N are in.
    """

    def test_waitsForPlayers(self):
        """
        With --players 3 it readies only when three are in the room.
        """
        clock = Clock()
        state = CheckersState("alice")
        LobbyFlow(state, clock, "r1", team=3)
        proto, transport = connect("checkers", state)
        clock.advance(1)
        self.assertEqual(take(transport),
                         cwire.encode(cwire.JOIN_ROOM_OP, "r1", "alice"))
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


class LobbyFailureTests(SynchronousTestCase):
    """
    A room that cannot be entered ends the lobby steps with one text.
    """

    def setUp(self):
        self.clock = Clock()
        self.failures = []
        self.state = GomokuState("alice")
        self.flow = LobbyFlow(self.state, self.clock, "r1",
                              onFailed=self.failures.append)
        self.proto, self.transport = connect("gomoku", self.state)
        self.proto.dataReceived(result(0, 1))
        take(self.transport)
        self.clock.advance(1)
        take(self.transport)

    def test_otherRefusal(self):
        """
        A refusal other than "exists" or "not there" (the room is full)
        fails at once, saying why, and no step follows.
        """
        self.proto.dataReceived(result(wire.S_ROOM_FULL, 3))
        self.assertEqual(self.failures,
                         ["could not enter room 'r1': the room is full "
                          "(516)"])
        self.clock.advance(10)
        self.assertEqual(take(self.transport), b"")

    def test_bounded(self):
        """
        A room that keeps appearing and vanishing is tried
        L{hub.client.lobbyflow.ROOM_TRIES} times, then given up.
        """
        session = 3
        for i in range(ROOM_TRIES + 1):
            status = (wire.S_ROOM_EXISTS if i % 2
                      else wire.S_ROOM_NOT_EXISTS)
            self.proto.dataReceived(result(status, session))
            self.clock.advance(1)
            session += 1
        self.assertEqual(self.failures, [
            "could not enter room 'r1' after %d tries" % (ROOM_TRIES,)])
