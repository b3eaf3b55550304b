"""
The gomoku client state machine, driven over a StringTransport.
"""

from twisted.python.failure import Failure
from twisted.internet.error import ConnectionLost
from twisted.trial.unittest import SynchronousTestCase

from hub.wire import gomoku as wire

from hub.client import events as E
from hub.client import state as S
from hub.client.state_gomoku import BLACK, WHITE, GomokuState
from tests.client.support import Recorder, connect, take

TOKEN = 5866427716917013316
NONE = wire.INVALID_U64


def frame(obj):
    return wire.encodeMessage(obj)


def result(status, session, token=TOKEN):
    return frame(wire.resultMessage(status, token, session))


def roomInfo(kind, guest="bob", gs=1, oct_=WHITE, owner="alice",
             session=2):
    return frame(wire.roomMessage(
        kind, wire.roomObject("r1", owner, guest, oct_, gs, 1), TOKEN,
        session))


class GomokuStateTests(SynchronousTestCase):
    """
    Registration, lobby, room and game as the spec's flows describe.
    """

    def setUp(self):
        self.state = GomokuState("alice")
        self.events = Recorder(self.state)
        self.proto, self.transport = connect("gomoku", self.state)

    def feed(self, data):
        self.proto.dataReceived(data)

    def register(self):
        take(self.transport)
        self.feed(result(0, 1))
        take(self.transport)

    def test_registersOnConnect(self):
        """
        The first frame is msg_reg, byte for byte as docs/games.md shows.
        """
        self.assertEqual(
            take(self.transport),
            b'<{"msg_type":3,"name":"alice","session":1,'
            b'"token":18446744073709551615}>')
        self.assertEqual(self.state.phase, S.CONNECTING)

    def test_registeredAsksForRooms(self):
        """
        result(0) gives the token, the lobby, and a room list request.
        """
        take(self.transport)
        self.feed(result(0, 1))
        self.assertEqual(self.state.token, TOKEN)
        self.assertEqual(self.state.phase, S.LOBBY)
        self.assertEqual(
            take(self.transport),
            b'<{"msg_type":2,"oper":0,"session":2,"target":1,'
            b'"token":18446744073709551615}>')

    def test_registerFailure(self):
        """
        A refused name shows a readable error.
        """
        take(self.transport)
        self.feed(result(258, 1, NONE))
        self.assertIn("that name is taken", self.state.messages[-1][1])
        self.assertNotEqual(self.state.phase, S.LOBBY)

    def test_roomList(self):
        """
        msg_roomlist (null or a list) becomes C{rooms}.
        """
        self.register()
        self.feed(frame(wire.roomListMessage(None, TOKEN, 2)))
        self.assertEqual(self.state.rooms, [])
        room = wire.roomObject("r1", "bob", "", 16, 1, 0)
        self.feed(frame(wire.roomListMessage([room], TOKEN, 2)))
        self.assertEqual(self.state.rooms, [room])
        self.assertIn(E.RoomsListed, self.events.types())
        self.assertEqual(self.state.pending, {})

    def test_createWithColourAndPassword(self):
        """
        create sends the room object with the chosen colour and password;
        result(0) puts us in the room as owner.
        """
        self.register()
        self.state.createRoom("r1", "pw", BLACK)
        self.assertEqual(
            take(self.transport),
            b'<{"msg_type":5,"room":{"gs":1,"guest":"","id":4294967295,'
            b'"name":"r1","oct":1,"owner":"","psw":"pw","state":0},'
            b'"session":3,"token":18446744073709551615,"type":17}>')
        self.feed(result(0, 3))
        self.assertEqual(self.state.phase, S.ROOM)
        self.assertTrue(self.state.isOwner())
        self.assertEqual(self.state.myColour(), BLACK)

    def test_createFailure(self):
        """
        A refused create stays in the lobby with the reason.
        """
        self.register()
        self.state.createRoom("r1")
        self.feed(result(514, 3))
        self.assertEqual(self.state.phase, S.LOBBY)
        self.assertIn("already exists", self.state.messages[-1][1])
        self.assertEqual(self.events.events[-1],
                         E.RoomFailed(wire.S_ROOM_EXISTS))

    def ownerWithGuest(self):
        self.register()
        self.state.createRoom("r1", "", WHITE)
        self.feed(result(0, 3))
        self.feed(roomInfo(wire.RI_PLAYER_JOIN))
        take(self.transport)

    def test_guestJoinsAndReadies(self):
        """
        Room information updates the room: guest, ready flag.
        """
        self.ownerWithGuest()
        self.assertEqual(self.state.room["guest"], "bob")
        self.feed(roomInfo(wire.RI_PLAYER_STATE, gs=3))
        self.assertEqual(self.state.room["gs"], 3)

    def test_ownerSwitchesColourAndStarts(self):
        """
        The owner's colour switch and start requests.
        """
        self.ownerWithGuest()
        self.state.setColour(BLACK)
        self.assertEqual(
            take(self.transport),
            b'<{"msg_type":7,"session":4,"token":18446744073709551615,'
            b'"type":1}>')
        self.feed(result(0, 4))
        self.assertEqual(self.state.myColour(), BLACK)
        self.state.startGame()
        self.assertEqual(
            take(self.transport),
            b'<{"msg_type":2,"oper":0,"session":5,"target":2,'
            b'"token":18446744073709551615}>')

    def startAsWhiteOwner(self):
        self.ownerWithGuest()
        self.feed(roomInfo(wire.RI_PLAYER_STATE, gs=3))
        self.state.startGame()
        self.feed(result(0, 4))
        self.feed(frame(wire.gameMessage(2, 0, TOKEN, 4)))
        take(self.transport)

    def test_gameStartsBlackFirst(self):
        """
        msg_game(2) starts the game; black (the guest here) moves first.
        """
        self.startAsWhiteOwner()
        self.assertEqual(self.state.phase, S.GAME)
        self.assertFalse(self.state.isMyTurn())
        self.feed(frame(wire.moveMessage(0, 7, 7, TOKEN, 4)))
        self.assertEqual(self.state.stone(7, 7), BLACK)
        self.assertEqual(self.state.lastMove, (7, 7))
        self.assertTrue(self.state.isMyTurn())

    def test_ownMoveNeedsTheServersYes(self):
        """
        Our move is sent, and placed once result(0) answers it.
        """
        self.startAsWhiteOwner()
        self.feed(frame(wire.moveMessage(0, 7, 7, TOKEN, 4)))
        self.state.move(8, 8)
        self.assertEqual(
            take(self.transport),
            b'<{"chess":0,"msg_type":10,"session":5,'
            b'"token":18446744073709551615,"x":8,"y":8}>')
        self.assertEqual(self.state.stone(8, 8), 0)
        self.feed(result(0, 5))
        self.assertEqual(self.state.stone(8, 8), WHITE)
        self.assertFalse(self.state.isMyTurn())

    def test_illegalMoveRefused(self):
        """
        result(1025) leaves the board as it was, with a readable error.
        """
        self.startAsWhiteOwner()
        self.feed(frame(wire.moveMessage(0, 7, 7, TOKEN, 4)))
        self.state.move(8, 8)
        self.feed(result(1025, 5))
        self.assertEqual(self.state.stone(8, 8), 0)
        self.assertIn("illegal move", self.state.messages[-1][1])
        self.assertTrue(self.state.isMyTurn())

    def test_noMoveOutOfTurn(self):
        """
        Out of turn nothing is sent.
        """
        self.startAsWhiteOwner()
        self.state.move(1, 1)
        self.assertEqual(take(self.transport), b"")

    def test_gameEnds(self):
        """
        msg_game(3, ex) ends the game with the result.
        """
        self.startAsWhiteOwner()
        self.feed(frame(wire.gameMessage(3, 1, TOKEN, 4)))
        self.assertEqual(self.state.phase, S.OVER)
        self.assertEqual(self.state.result, "win")
        self.state.backToRoom()
        self.assertEqual(self.state.phase, S.ROOM)
        self.assertEqual(self.state.room["gs"], 1)

    def test_guestFlow(self):
        """
        Join, then ready and unready as the guest.
        """
        self.state = GomokuState("bob")
        self.proto, self.transport = connect("gomoku", self.state)
        self.register()
        self.state.joinRoom("r1", "pw")
        self.assertEqual(
            take(self.transport),
            b'<{"msg_type":5,"room":{"gs":1,"guest":"","id":4294967295,'
            b'"name":"r1","oct":16,"owner":"","psw":"pw","state":0},'
            b'"session":3,"token":18446744073709551615,"type":18}>')
        self.feed(result(0, 3))
        self.feed(roomInfo(wire.RI_PLAYER_JOIN, session=3))
        self.assertEqual(self.state.phase, S.ROOM)
        self.assertFalse(self.state.isOwner())
        self.assertEqual(self.state.myColour(), BLACK)
        self.state.setReady(True)
        self.assertEqual(
            take(self.transport),
            b'<{"msg_type":8,"session":4,"state":3,'
            b'"token":18446744073709551615}>')
        self.feed(result(0, 4))
        self.assertEqual(self.state.room["gs"], 3)
        self.state.setReady(False)
        self.assertIn(b'"state":1', take(self.transport))

    def test_joinFailure(self):
        """
        A wrong password is reported.
        """
        self.register()
        self.state.joinRoom("r1", "bad")
        self.feed(result(517, 3))
        self.assertIn("wrong password", self.state.messages[-1][1])

    def test_splitAndMergedFrames(self):
        """
        Frames split across reads and merged in one read both arrive.
        """
        take(self.transport)
        data = result(0, 1) + frame(wire.roomListMessage(None, TOKEN, 2))
        for i in range(len(data)):
            self.feed(data[i:i + 1])
        self.assertEqual(self.state.phase, S.LOBBY)
        self.assertIn(E.RoomsListed, self.events.types())

    def test_reconnectWithToken(self):
        """
        After a dropped connection mid-game, a new connection sends
        msg_reg with the name and token; the same token back resumes the
        game, and replayed moves land on the board.
        """
        self.startAsWhiteOwner()
        self.proto.connectionLost(Failure(ConnectionLost()))
        self.assertIn(E.Lost(), self.events.events)
        self.assertEqual(self.state.phase, S.GAME)
        self.assertFalse(self.state.connected)
        self.proto, self.transport = connect("gomoku", self.state)
        self.assertEqual(
            take(self.transport),
            b'<{"msg_type":3,"name":"alice","session":5,'
            b'"token":5866427716917013316}>')
        self.feed(result(0, 5))
        self.feed(frame(wire.moveMessage(0, 7, 7, TOKEN, 5)))
        self.assertEqual(self.state.phase, S.GAME)
        self.assertEqual(self.state.stone(7, 7), BLACK)
        self.assertTrue(self.state.isMyTurn())
        self.assertIn("reconnected", self.state.messages[-1][1])

    def test_reconnectTooLate(self):
        """
        A new token means the old player is gone: back to the lobby.
        """
        self.startAsWhiteOwner()
        self.proto.connectionLost(Failure(ConnectionLost()))
        self.proto, self.transport = connect("gomoku", self.state)
        take(self.transport)
        self.feed(result(0, 5, token=1234))
        self.assertEqual(self.state.phase, S.LOBBY)
        self.assertEqual(self.state.token, 1234)
        self.assertIsNone(self.state.room)

    def test_moveLostInFlight(self):
        """
        A move whose answer was lost with the connection is placed when
        the server's replay shows the opponent replied to it.
        """
        self.startAsWhiteOwner()
        self.feed(frame(wire.moveMessage(0, 7, 7, TOKEN, 4)))
        self.state.move(8, 8)
        self.proto.connectionLost(Failure(ConnectionLost()))
        self.proto, self.transport = connect("gomoku", self.state)
        take(self.transport)
        self.feed(result(0, 6))
        self.feed(frame(wire.moveMessage(0, 9, 9, TOKEN, 6)))
        self.assertEqual(self.state.stone(8, 8), WHITE)
        self.assertEqual(self.state.stone(9, 9), BLACK)
        self.assertTrue(self.state.isMyTurn())

    def test_noRequestWhileDisconnected(self):
        """
        A move tried while the connection is down is not recorded as
        pending, so it cannot block the turn after the resume.
        """
        self.startAsWhiteOwner()
        self.feed(frame(wire.moveMessage(0, 7, 7, TOKEN, 4)))
        self.proto.connectionLost(Failure(ConnectionLost()))
        self.state.move(8, 8)
        self.assertFalse(self.state.awaitingReply)
        self.assertIn("not connected", self.state.messages[-1][1])
        self.proto, self.transport = connect("gomoku", self.state)
        take(self.transport)
        self.feed(result(0, 5))
        self.state.move(8, 8)
        self.assertIn(b'"x":8', take(self.transport))
