"""
The checkers client state machine, driven over a StringTransport.
"""

from twisted.trial.unittest import SynchronousTestCase

from hub.wire import checkers as wire

from hub.client import events as E
from hub.client import state as S
from hub.client.state_checkers import CheckersState
from tests.client.support import Recorder, connect, take


def line(op, data1="", data2=""):
    return wire.encode(op, data1, data2)


class CheckersStateTests(SynchronousTestCase):
    """
    Join, room, game and end as the spec's flows describe.
    """

    def setUp(self):
        self.state = CheckersState("alice")
        self.events = Recorder(self.state)
        self.proto, self.transport = connect("checkers", self.state)

    def feed(self, *lines):
        self.proto.dataReceived(b"".join(lines))

    def test_joinSendsJoinRoom(self):
        """
        Join is JOIN_ROOM_OP(room, name), byte for byte.
        """
        self.assertEqual(self.state.phase, S.LOBBY)
        self.state.join("r1")
        self.assertEqual(take(self.transport),
                         b'{"data1":"r1","data2":"alice","op":200000}\n')

    def test_answered(self):
        """
        A connection the server has not answered yet (checkers says
        nothing before Join) is not taken for a checkers server: the
        header says so until the first valid message.
        """
        self.assertTrue(self.state.connected)
        self.assertFalse(self.state.answered)
        self.assertEqual(self.state.connectionText(),
                         "port open, no answer yet")
        self.state.join("r1")
        self.feed(line(wire.JOIN_ROOM_REPLY_OP, "", ""))
        self.assertTrue(self.state.answered)
        self.assertEqual(self.state.connectionText(), "connected")

    def test_joinReplyListsMembers(self):
        """
        JOIN_ROOM_REPLY_OP gives the earlier members and their ready
        flags; we come last.
        """
        self.state.join("r1")
        self.feed(line(wire.JOIN_ROOM_REPLY_OP, "bob carol", "10"))
        self.assertEqual(self.state.phase, S.ROOM)
        self.assertEqual(self.state.members,
                         [["bob", True], ["carol", False],
                          ["alice", False]])

    def test_othersJoinLeaveReady(self):
        """
        JOIN_ROOM_OP, PLAYER_READY_OP and LEAVE_ROOM_OP update the list.
        """
        self.state.join("r1")
        self.feed(line(wire.JOIN_ROOM_REPLY_OP))
        self.feed(line(wire.JOIN_ROOM_OP, "bob"),
                  line(wire.PLAYER_READY_OP, "bob"),
                  line(wire.JOIN_ROOM_OP, "carol"),
                  line(wire.LEAVE_ROOM_OP, "carol"))
        self.assertEqual(self.state.members,
                         [["alice", False], ["bob", True]])

    def test_ready(self):
        """
        Ready is PLAYER_READY_OP(name, "").
        """
        self.state.join("r1")
        self.feed(line(wire.JOIN_ROOM_REPLY_OP))
        take(self.transport)
        self.state.setReady()
        self.assertEqual(take(self.transport),
                         b'{"data1":"alice","data2":"","op":200004}\n')

    def test_joinRefused(self):
        """
        ERROR_OP 400003 in the lobby is a readable join failure.
        """
        self.state.join("r1")
        self.feed(line(wire.ERROR_OP, "400003", "INVALID_JOIN: name"))
        self.assertEqual(self.state.phase, S.LOBBY)
        self.assertIn("join failed", self.state.messages[-1][1])
        self.assertIn(E.JoinFailed(wire.INVALID_JOIN), self.events.events)

    def start(self):
        self.state.join("r1")
        self.feed(line(wire.JOIN_ROOM_REPLY_OP))
        self.feed(line(wire.JOIN_ROOM_OP, "bob"))
        self.feed(line(wire.START_GAME_OP, "alice bob", "A D"),
                  line(wire.START_TURN_OP, "A", "1656403200"))
        take(self.transport)

    def test_startAndTurn(self):
        """
        START_GAME_OP gives regions; START_TURN_OP whose turn and when.
        """
        self.start()
        self.assertEqual(self.state.phase, S.GAME)
        self.assertEqual(self.state.myRegion(), "A")
        self.assertEqual(self.state.turnStarted, 1656403200)
        self.assertTrue(self.state.isMyTurn())
        self.assertEqual(len(self.state.board.destinations((-2, 6))), 2)

    def test_ownMove(self):
        """
        Our move is MOVE_OP(region, canonical path), applied at once.
        """
        self.start()
        self.state.move(((-2, 6), (0, 4)))
        self.assertEqual(take(self.transport),
                         b'{"data1":"A","data2":"-2 6 0 4","op":200007}\n')
        self.assertEqual(self.state.board.pieceAt((0, 4)), 0)
        self.assertEqual(self.events.events[-1],
                         E.Moved(0, ((-2, 6), (0, 4))))
        self.feed(line(wire.START_TURN_OP, "D", "1656403207"))
        self.assertFalse(self.state.isMyTurn())

    def test_illegalMoveNotSent(self):
        """
        A move the rules refuse is not sent.
        """
        self.start()
        self.state.move(((-1, 5), (-1, 3)))
        self.assertEqual(take(self.transport), b"")
        self.assertIn("illegal move", self.state.messages[-1][1])

    def test_refusedMoveUndone(self):
        """
        ERROR_OP 400005 after our move puts the piece back.
        """
        self.start()
        self.state.move(((-2, 6), (0, 4)))
        self.feed(line(wire.ERROR_OP, "400005", "INVALID_MOVE: no"))
        self.assertEqual(self.state.board.pieceAt((-2, 6)), 0)
        self.assertIsNone(self.state.board.pieceAt((0, 4)))
        self.assertTrue(self.state.isMyTurn())
        self.assertIn("move refused", self.state.messages[-1][1])

    def test_refusedMoveUndoneSymbolic(self):
        """
        The symbolic form of a server run with C{--checkers-error-names},
        C{"OUTTURN_MOVE"}, puts the piece back as well.
        """
        self.start()
        self.state.move(((-2, 6), (0, 4)))
        self.feed(line(wire.ERROR_OP, "OUTTURN_MOVE", "OUTTURN_MOVE: no"))
        self.assertEqual(self.state.board.pieceAt((-2, 6)), 0)
        self.assertIsNone(self.state.board.pieceAt((0, 4)))
        self.assertIn("move refused: not your turn",
                      self.state.messages[-1][1])

    def test_othersMove(self):
        """
        MOVE_OP from the server moves the other player's piece.
        """
        self.start()
        self.state.move(((-2, 6), (0, 4)))
        self.feed(line(wire.START_TURN_OP, "D", "1656403207"),
                  line(wire.MOVE_OP, "D", "4 -5 4 -4"))
        self.assertEqual(self.state.board.pieceAt((4, -4)), 1)
        self.assertEqual(self.state.lastPath, ((4, -5), (4, -4)))

    def test_timeoutEliminates(self):
        """
        MOVE_OP(region, "-1") removes that player's pieces.
        """
        self.start()
        self.state.move(((-2, 6), (0, 4)))
        self.feed(line(wire.START_TURN_OP, "D", "1656403207"),
                  line(wire.MOVE_OP, "D", "-1"))
        self.assertEqual(self.state.board.pieces(1), [])
        self.assertIn("ran out of time", self.state.messages[-1][1])

    def test_endGameRanking(self):
        """
        END_GAME_OP ends the game with the ranking.
        """
        self.start()
        self.feed(line(wire.END_TURN_OP),
                  line(wire.END_GAME_OP, "alice bob"))
        self.assertTrue(self.state.finishedMe)
        self.assertEqual(self.state.phase, S.OVER)
        self.assertEqual(self.state.ranking, ["alice", "bob"])

    def test_readableErrors(self):
        """
        Other errors show the code's meaning and the server's reason.
        """
        self.start()
        self.feed(line(wire.ERROR_OP, "400006", "INVALID_REQ: what"))
        self.assertEqual(
            self.state.messages[-1],
            ("error", "the server did not understand the request — "
                      "INVALID_REQ: what"))

    def test_splitLines(self):
        """
        A line split across reads is reassembled.
        """
        self.state.join("r1")
        data = line(wire.JOIN_ROOM_REPLY_OP, "bob", "1")
        for i in range(len(data)):
            self.proto.dataReceived(data[i:i + 1])
        self.assertEqual(self.state.phase, S.ROOM)
