"""
The gomoku protocol on StringTransport: every flow of spec section 7
byte for byte, every status code the server emits, games to a win for each
colour and to a draw, reconnection and forfeit on a Clock, disconnects in
every state, and bad frames.
"""

from twisted.trial.unittest import SynchronousTestCase

from hub.wire import gomoku as wire
from tests.gomoku.support import GomokuHarness
from tests.idletimeout import IdleTimeoutTestsMixin

NONE = wire.INVALID_U64


def result(status, session, token=NONE):
    """
    The exact bytes of a C{msg_result}.
    """
    return ('<{"msg_type":1,"result":"","session":%d,"status":%d,'
            '"token":%d}>' % (session, status, token)).encode()


def roomInfo(infoType, session, token, guest="", gs=1, oct=16, owner="alice",
             state=1, name="r"):
    """
    The exact bytes of a server C{msg_room}.
    """
    return ('<{"msg_type":5,"room":{"gs":%d,"guest":"%s","id":4294967295,'
            '"name":"%s","oct":%d,"owner":"%s","psw":"","state":%d},'
            '"session":%d,"token":%d,"type":%d}>' % (
                gs, guest, name, oct, owner, state, session, token,
                infoType)).encode()


def game(state, ex, session, token):
    """
    The exact bytes of a C{msg_game}.
    """
    return ('<{"ex":%d,"msg_type":9,"session":%d,"state":%d,"token":%d}>'
            % (ex, session, state, token)).encode()


def move(x, y, session, token):
    """
    The exact bytes of a C{msg_move} to the opponent.
    """
    return ('<{"chess":0,"msg_type":10,"session":%d,"token":%d,"x":%d,'
            '"y":%d}>' % (session, token, x, y)).encode()


def resync(session, token):
    """
    The room information both players get after a game: guest unready.
    """
    return roomInfo(3, session, token, guest="bob")


ALICE = 1000
BOB = 1001


class RegisterTests(SynchronousTestCase):
    """
    Spec 7.1 and the INIT state.
    """

    def setUp(self):
        self.hub = GomokuHarness()

    def test_register(self):
        """
        A good name gets result(0) carrying the new token and the session.
        """
        c = self.hub.connect()
        c.register("alice")
        self.assertEqual(c.raw(), result(0, 1, ALICE))

    def test_secondRegisterIgnored(self):
        """
        A second msg_reg after success gets no reply.
        """
        c = self.hub.registered("alice")
        c.register("other")
        self.assertEqual(c.raw(), b"")

    def test_nameTaken(self):
        """
        A name in use gets 258 with token -1.
        """
        self.hub.registered("alice")
        c = self.hub.connect()
        c.register("alice")
        self.assertEqual(c.raw(), result(258, 1))

    def test_badNameLengths(self):
        """
        Names of 0 or more than 35 bytes get 257; 35 bytes is fine.
        """
        c = self.hub.connect()
        c.register("")
        c.register("x" * 36)
        c.register("é" * 18)
        self.assertEqual(c.raw(), result(257, 1) + result(257, 2)
                         + result(257, 3))
        c.register("x" * 35)
        self.assertEqual(c.raw(), result(0, 4, ALICE))

    def test_nameWithBrackets(self):
        """
        A name with < and > (raw inside the JSON string) registers, and
        appears escaped in what the server sends.
        """
        owner = self.hub.connect()
        owner.sendBytes(b'<{"msg_type":3,"name":"a<b>c","session":1,'
                        b'"token":18446744073709551615}>')
        self.assertEqual(owner.raw(), result(0, 1, ALICE))
        owner.create("r")
        owner.raw()
        c = self.hub.registered("bob")
        c.roomList()
        self.assertIn(b'"owner":"a\\u003cb\\u003ec"', c.raw())

    def test_beforeRegistration(self):
        """
        Anything but msg_reg before registration gets 259 with the last
        register session; the fourth is closed without a reply.
        """
        c = self.hub.connect()
        c.roomList()
        c.sendBytes(b"<not json>")
        c.register("")
        c.sendBytes(b"<{}>")
        self.assertEqual(c.raw(), result(259, NONE) + result(259, NONE)
                         + result(257, 2) + result(259, 2))
        self.assertFalse(c.closed)
        c.sendBytes(b"<{}>")
        self.assertEqual(c.raw(), b"")
        self.assertTrue(c.closed)


class LobbyFlowTests(SynchronousTestCase):
    """
    Spec 7.2 to 7.8, byte for byte.
    """

    def setUp(self):
        self.hub = GomokuHarness()

    def test_emptyRoomList(self):
        """
        No rooms: rooms is null, and no result frame.
        """
        c = self.hub.registered("alice")
        c.roomList()
        self.assertEqual(
            c.raw(), b'<{"msg_type":4,"rooms":null,"session":2,'
                     b'"token":1000}>')

    def test_roomListHidesPassword(self):
        """
        Rooms are listed with every field and psw "".
        """
        owner = self.hub.registered("alice")
        owner.create("r", psw="secret")
        self.assertEqual(owner.raw(), result(0, 2, ALICE))
        c = self.hub.registered("bob")
        c.roomList()
        self.assertEqual(
            c.raw(), b'<{"msg_type":4,"rooms":[{"gs":1,"guest":"",'
                     b'"id":4294967295,"name":"r","oct":16,"owner":"alice",'
                     b'"psw":"","state":0}],"session":2,"token":1001}>')

    def test_createRefusals(self):
        """
        Bad name or password lengths get 513, an existing room 514.
        """
        owner = self.hub.registered("alice")
        owner.create("")
        owner.create("x" * 36)
        owner.create("r", psw="p" * 36)
        owner.create("r", psw="p" * 35)
        self.assertEqual(owner.raw(), result(513, 2, ALICE)
                         + result(513, 3, ALICE) + result(513, 4, ALICE)
                         + result(0, 5, ALICE))
        other = self.hub.registered("bob")
        other.create("r")
        self.assertEqual(other.raw(), result(514, 2, BOB))

    def test_join(self):
        """
        The owner hears of the join first; the joiner gets result(0), then
        the room information with the same session.
        """
        owner = self.hub.registered("alice")
        owner.create("r")
        owner.raw()
        guest = self.hub.registered("bob")
        guest.join("r")
        self.assertEqual(owner.raw(), roomInfo(1, 2, ALICE, guest="bob"))
        self.assertEqual(guest.raw(), result(0, 2, BOB)
                         + roomInfo(1, 2, BOB, guest="bob"))

    def test_joinRefusals(self):
        """
        Unknown room 515, full room 516 (and running 516), wrong password
        517.
        """
        owner = self.hub.registered("alice")
        owner.create("r", psw="pw")
        c = self.hub.registered("carol")
        c.join("nope")
        c.join("r", psw="no")
        self.assertEqual(c.raw(), result(515, 2, 1001) + result(517, 3, 1001))
        guest = self.hub.registered("bob")
        guest.join("r", psw="pw")
        c.join("r", psw="pw")
        self.assertEqual(c.raw(), result(516, 4, 1001))
        guest.ready()
        owner.start()
        c.join("r", psw="pw")
        self.assertEqual(c.raw(), result(516, 5, 1001))

    def test_readyAndUnready(self):
        """
        The owner gets room information type 3 first, then the guest
        result(0); unready works the same.
        """
        owner, guest = self.hub.pair(ready=False)
        guest.ready()
        self.assertEqual(owner.raw(),
                         roomInfo(3, 2, ALICE, guest="bob", gs=3))
        self.assertEqual(guest.raw(), result(0, 3, BOB))
        guest.ready(False)
        self.assertEqual(owner.raw(), roomInfo(3, 2, ALICE, guest="bob"))
        self.assertEqual(guest.raw(), result(0, 4, BOB))

    def test_readyRefusals(self):
        """
        The owner cannot set a guest state, nor may the guest send values
        other than 1 and 3: 519.
        """
        owner, guest = self.hub.pair(ready=False)
        owner.ready()
        guest.send(wire.stateMessage(2, guest.nextSession()))
        self.assertEqual(owner.raw(), result(519, 3, ALICE))
        self.assertEqual(guest.raw(), result(519, 3, BOB))

    def test_chessChange(self):
        """
        The guest hears of the owner's new colour first; then the owner
        gets result(0).  A non-owner or a bad colour gets 519.
        """
        owner, guest = self.hub.pair(ready=False)
        owner.chess(1)
        self.assertEqual(guest.raw(),
                         roomInfo(4, 2, BOB, guest="bob", oct=1))
        self.assertEqual(owner.raw(), result(0, 3, ALICE))
        guest.chess(16)
        owner.chess(2)
        self.assertEqual(guest.raw(), result(519, 3, BOB))
        self.assertEqual(owner.raw(), result(519, 4, ALICE))

    def test_chessChangeAlone(self):
        """
        The owner may change colour with no guest (the original crashed).
        """
        owner = self.hub.registered("alice")
        owner.create("r")
        owner.chess(1)
        self.assertEqual(owner.raw(), result(0, 2, ALICE)
                         + result(0, 3, ALICE))

    def test_createHonoursColour(self):
        """
        The create message's oct (1 or 16) is the owner's colour; any
        other value means 16.
        """
        a = self.hub.registered("alice")
        a.create("black", oct=1)
        b = self.hub.registered("bob")
        b.create("odd", oct=7)
        c = self.hub.registered("carol")
        c.roomList()
        data = c.raw()
        self.assertIn(b'"name":"black","oct":1,', data)
        self.assertIn(b'"name":"odd","oct":16,', data)

    def test_guestExits(self):
        """
        The owner hears the guest left (room open again), then the guest
        gets result(0) and is back in IDLE.
        """
        owner, guest = self.hub.pair(ready=True)
        guest.exit("r")
        self.assertEqual(owner.raw(), roomInfo(2, 2, ALICE, state=0))
        self.assertEqual(guest.raw(), result(0, 4, BOB))
        guest.roomList()
        self.assertIn(b'"msg_type":4', guest.raw())

    def test_ownerExits(self):
        """
        The guest becomes owner and keeps the room's colour.
        """
        owner, guest = self.hub.pair(ready=True)
        owner.exit("r")
        self.assertEqual(guest.raw(),
                         roomInfo(2, 3, BOB, owner="bob", state=0))
        self.assertEqual(owner.raw(), result(0, 3, ALICE))

    def test_soleOccupantExits(self):
        """
        The last one out closes the room.
        """
        owner = self.hub.registered("alice")
        owner.create("r")
        owner.exit("r")
        self.assertEqual(owner.raw(), result(0, 2, ALICE)
                         + result(0, 3, ALICE))
        owner.roomList()
        self.assertIn(b'"rooms":null', owner.raw())

    def test_start(self):
        """
        result(0) to the owner first, then msg_game(2, 0) to both, each
        with its own session echo.
        """
        owner, guest = self.hub.pair()
        owner.start()
        self.assertEqual(owner.raw(), result(0, 3, ALICE)
                         + game(2, 0, 3, ALICE))
        self.assertEqual(guest.raw(), game(2, 0, 3, BOB))

    def test_startRefusals(self):
        """
        A guest's start gets 259; no guest or a guest not ready 519.
        """
        owner = self.hub.registered("alice")
        owner.create("r")
        owner.start()
        self.assertEqual(owner.raw(), result(0, 2, ALICE)
                         + result(519, 3, ALICE))
        guest = self.hub.registered("bob")
        guest.join("r")
        owner.start()
        guest.start()
        self.assertEqual(guest.raw(), result(0, 2, BOB)
                         + roomInfo(1, 2, BOB, guest="bob")
                         + result(259, 3, BOB))
        self.assertIn(result(519, 4, ALICE), owner.raw())


class StateTests(SynchronousTestCase):
    """
    Spec 6.1: illegal operations, silent ignores, status 4, 5, 6, 3.
    """

    def setUp(self):
        self.hub = GomokuHarness()

    def test_idleIllegal(self):
        """
        In IDLE: a request other than the room list gets 5; a room
        operation other than create/join gets 6.
        """
        c = self.hub.registered("alice")
        c.start()
        c.exit()
        self.assertEqual(c.raw(), result(5, 2, ALICE) + result(6, 3, ALICE))

    def test_idleSilentIgnores(self):
        """
        In IDLE, msg_reg, msg_chess, msg_state, msg_game, msg_move and
        types 1 and 4 get no reply.
        """
        c = self.hub.registered("alice")
        c.register("x")
        c.chess(1)
        c.ready()
        c.send(wire.gameMessage(2, 0, NONE, 9))
        c.move(1, 1)
        c.send(wire.resultMessage(0, NONE, 9))
        c.send(wire.roomListMessage(None, NONE, 9))
        self.assertEqual(c.raw(), b"")

    def test_roomIllegal(self):
        """
        In ROOM: a room list request, or create/join, gets 6.
        """
        owner = self.hub.registered("alice")
        owner.create("r")
        owner.raw()
        owner.roomList()
        owner.create("s")
        self.assertEqual(owner.raw(), result(6, 3, ALICE)
                         + result(6, 4, ALICE))

    def test_illegalLimit(self):
        """
        The fourth status-6 reply is followed by status 3 and a close.
        """
        c = self.hub.registered("alice")
        for _ in range(3):
            c.exit()
        self.assertFalse(c.closed)
        c.exit()
        self.assertEqual(c.raw(), result(6, 2, ALICE) + result(6, 3, ALICE)
                         + result(6, 4, ALICE) + result(6, 5, ALICE)
                         + result(3, 5, ALICE))
        self.assertTrue(c.closed)

    def test_illegalLimitOption(self):
        """
        The limit is the factory's maxIllegal.
        """
        hub = GomokuHarness(maxIllegal=0)
        c = hub.registered("alice")
        c.exit()
        self.assertEqual(c.raw(), result(6, 2, ALICE) + result(3, 2, ALICE))
        self.assertTrue(c.closed)

    def test_invalidFrames(self):
        """
        After registration, an empty, non-JSON, single-quoted, unknown-type
        or unregister frame gets status 4 with session -1; none counts
        toward the limit.
        """
        c = self.hub.registered("alice")
        c.sendBytes(b"<>")
        c.sendBytes(b"<nonsense>")
        c.sendBytes(b"<{'msg_type':2}>")
        c.sendBytes(b'<{"msg_type":6,"session":5}>')
        c.sendBytes(b'<{"msg_type":11,"session":5}>')
        c.sendBytes(b'<[1,2]>')
        self.assertEqual(c.raw(), result(4, NONE, ALICE) * 6)
        self.assertFalse(c.closed)

    def test_junkSplitMerged(self):
        """
        Junk before a frame is dropped; a frame split byte by byte and two
        frames in one write both work.
        """
        c = self.hub.registered("alice")
        frame = wire.encodeMessage(wire.requestMessage(1, 7))
        for i in range(len(frame)):
            c.sendBytes(b"junk" if i == 0 else b"")
            c.sendBytes(frame[i:i + 1])
        c.sendBytes(frame + frame)
        self.assertEqual(len(c.messages()), 3)

    def test_oversizedFrame(self):
        """
        A frame over 64 KiB gets status 4 and the connection is closed;
        the server keeps serving others.
        """
        other = self.hub.registered("bob")
        c = self.hub.registered("alice")
        c.sendBytes(b'<{"msg_type":3,"name":"' + b"x" * 70000)
        self.assertEqual(c.raw(), result(4, NONE, BOB))
        self.assertTrue(c.closed)
        other.roomList()
        self.assertIn(b'"msg_type":4', other.raw())

    def test_wrongFieldTypes(self):
        """
        A negative token is an invalid frame; a string x is an illegal
        move; neither crashes the connection.
        """
        c = self.hub.registered("alice")
        c.sendBytes(b'<{"msg_type":2,"session":1,"target":1,"token":-1}>')
        self.assertEqual(c.raw(), result(4, NONE, ALICE))
        c.sendBytes(b'<{"msg_type":5,"session":2,"type":17,"room":5}>')
        self.assertEqual(c.raw(), result(6, 2, ALICE))


class GameTests(SynchronousTestCase):
    """
    Spec 7.9 and 7.10: moves, results, post-game state.
    """

    def setUp(self):
        self.hub = GomokuHarness()

    def test_firstMoves(self):
        """
        With default colours the guest is black and moves first: result(0)
        to the mover, msg_move (chess 0) to the opponent.
        """
        black, white, owner, guest = self.hub.playing()
        self.assertIs(black, guest)
        black.move(7, 7)
        self.assertEqual(black.raw(), result(0, 4, BOB))
        self.assertEqual(white.raw(), move(7, 7, 3, ALICE))
        white.move(7, 8)
        self.assertEqual(white.raw(), result(0, 4, ALICE))
        self.assertEqual(black.raw(), move(7, 8, 4, BOB))

    def test_outOfTurnAndIllegal(self):
        """
        Out of turn, occupied and off-board moves get 1025 at once and
        nothing is queued or forwarded.
        """
        black, white, _, _ = self.hub.playing()
        white.move(0, 0)
        self.assertEqual(white.raw(), result(1025, 4, ALICE))
        black.move(7, 7)
        black.raw()
        white.raw()
        white.move(7, 7)
        white.move(15, 0)
        white.move(4294967295, 3)
        self.assertEqual(white.raw(), result(1025, 5, ALICE)
                         + result(1025, 6, ALICE) + result(1025, 7, ALICE))
        self.assertEqual(black.raw(), b"")

    def test_clientMsgGameIgnored(self):
        """
        The msg_game(2, 0) that icc sends after each move, and exit or room
        list requests, are ignored silently in a game.
        """
        black, white, _, _ = self.hub.playing()
        black.send(wire.gameMessage(2, 0, NONE, 9))
        black.exit()
        black.roomList()
        self.assertEqual(black.raw(), b"")

    def play(self, black, white, blackMoves, whiteMoves):
        for i, (x, y) in enumerate(blackMoves):
            black.move(x, y)
            if i < len(whiteMoves):
                white.move(*whiteMoves[i])

    def test_blackWins(self):
        """
        Five in a row for black: result, msg_move, then msg_game(3, 1) to
        black and (3, 2) to white, each followed by the room information
        showing the guest unready.  Both stay, room FULL.
        """
        black, white, owner, guest = self.hub.playing()
        self.play(black, white, [(i, 0) for i in range(5)],
                  [(i, 1) for i in range(4)])
        self.assertTrue(black.raw().endswith(
            result(0, 8, BOB) + game(3, 1, 8, BOB) + resync(8, BOB)))
        self.assertTrue(white.raw().endswith(
            move(4, 0, 7, ALICE) + game(3, 2, 7, ALICE) + resync(7, ALICE)))
        owner.roomList()
        self.assertEqual(owner.raw(), result(6, 8, ALICE))
        c = self.hub.registered("carol")
        c.roomList()
        self.assertIn(b'"gs":1,"guest":"bob"', c.raw())
        guest.ready()
        owner.start()
        self.assertIn(game(2, 0, 9, ALICE), owner.raw())

    def test_whiteWins(self):
        """
        White (the owner by default) can win; overlines count.
        """
        black, white, owner, guest = self.hub.playing()
        self.play(black, white,
                  [(0, 5), (1, 5), (2, 5), (3, 9), (4, 9), (9, 9)],
                  [(0, 0), (1, 0), (2, 0), (4, 0), (5, 0), (3, 0)])
        self.assertTrue(white.raw().endswith(
            game(3, 1, 9, ALICE) + resync(9, ALICE)))
        self.assertTrue(black.raw().endswith(
            move(3, 0, 9, BOB) + game(3, 2, 9, BOB) + resync(9, BOB)))

    def test_ownerBlackMovesFirst(self):
        """
        An owner who picked black moves first.
        """
        black, white, owner, guest = self.hub.playing(oct=wire.CHESS_BLACK)
        self.assertIs(black, owner)
        owner.move(7, 7)
        self.assertEqual(owner.raw(), result(0, 4, ALICE))

    def test_draw(self):
        """
        A full board with no five is a draw: msg_game(3, 3) to both.
        """
        black, white, _, _ = self.hub.playing()
        # Pairs of columns alternate colours, shifted by one each row: no
        # five in any direction, 113 black and 112 white cells.
        cells = [(x, y) for y in range(15) for x in range(15)]
        blacks = [(x, y) for x, y in cells if ((x // 2) + y) % 2 == 0]
        whites = [(x, y) for x, y in cells if ((x // 2) + y) % 2 == 1]
        self.play(black, white, blacks, whites)
        self.assertTrue(black.raw().endswith(
            result(0, 116, BOB) + game(3, 3, 116, BOB) + resync(116, BOB)))
        self.assertTrue(white.raw().endswith(
            move(blacks[-1][0], blacks[-1][1], 115, ALICE)
            + game(3, 3, 115, ALICE) + resync(115, ALICE)))

    def test_sixIllegalMovesEndInError(self):
        """
        The sixth consecutive illegal move of the player to move ends the
        game with msg_game(3, 4) to both.
        """
        black, white, _, _ = self.hub.playing()
        for _ in range(6):
            black.move(99, 99)
        self.assertTrue(black.raw().endswith(
            result(1025, 9, BOB) + game(3, 4, 9, BOB) + resync(9, BOB)))
        self.assertEqual(white.raw(),
                         game(3, 4, 3, ALICE) + resync(3, ALICE))


class DisconnectTests(SynchronousTestCase):
    """
    Connection loss in every state, reconnection and forfeit.
    """

    def setUp(self):
        self.hub = GomokuHarness(graceSeconds=30)

    def test_initAndIdleFreeNames(self):
        """
        Dropping in INIT or IDLE frees everything at once.
        """
        c = self.hub.connect()
        c.drop()
        c = self.hub.registered("alice")
        c.drop()
        self.assertEqual(len(self.hub.sessions), 0)
        again = self.hub.connect()
        again.register("alice")
        self.assertEqual(again.raw(), result(0, 1, 1001))

    def test_ownerDropsInRoom(self):
        """
        An owner who drops in ROOM leaves: the guest becomes owner.
        """
        owner, guest = self.hub.pair()
        owner.drop()
        self.assertEqual(guest.raw(),
                         roomInfo(2, 3, BOB, owner="bob", state=0))
        self.assertIsNone(self.hub.sessions.byName("gomoku", "alice"))

    def test_guestDropsInRoom(self):
        """
        A guest who drops in ROOM leaves; the owner hears of it.
        """
        owner, guest = self.hub.pair()
        guest.drop()
        self.assertEqual(owner.raw(), roomInfo(2, 2, ALICE, state=0))

    def test_soleOwnerDrops(self):
        """
        The room of a sole owner who drops closes.
        """
        owner = self.hub.registered("alice")
        owner.create("r")
        owner.drop()
        self.assertEqual(self.hub.lobby.rooms("gomoku"), [])

    def test_forfeitAfterGrace(self):
        """
        A player lost mid-game who does not come back within the grace
        loses by forfeit: the opponent gets msg_game(3, 1), then the room
        information of the exit, and the name is free.
        """
        black, white, owner, guest = self.hub.playing()
        black.move(7, 7)
        white.raw()
        white.drop()
        self.hub.clock.advance(29)
        self.assertEqual(black.raw(), result(0, 4, BOB))
        self.assertIsNotNone(self.hub.sessions.byName("gomoku", "alice"))
        self.hub.clock.advance(1)
        self.assertEqual(black.raw(), game(3, 1, 4, BOB)
                         + roomInfo(2, 4, BOB, owner="bob", state=0))
        self.assertIsNone(self.hub.sessions.byName("gomoku", "alice"))
        self.assertEqual(self.hub.lobby.roomOf(
            self.hub.sessions.byName("gomoku", "bob")).names(), ["bob"])

    def test_guestForfeits(self):
        """
        The same for a guest lost mid-game.
        """
        black, white, owner, guest = self.hub.playing()
        guest.drop()
        self.hub.clock.advance(30)
        self.assertEqual(owner.raw(), game(3, 1, 3, ALICE)
                         + roomInfo(2, 3, ALICE, state=0))

    def test_reconnect(self):
        """
        msg_reg with the token and name within the grace resumes the
        player: result(0) with the same token, then the opponent's moves
        made meanwhile; the game goes on.
        """
        black, white, owner, guest = self.hub.playing()
        black.move(7, 7)
        black.raw()
        white.raw()
        black.drop()
        white.move(8, 8)
        self.assertEqual(white.raw(), result(0, 4, ALICE))
        self.hub.clock.advance(20)
        again = self.hub.connect()
        again.send(wire.regMessage("bob", 1, BOB))
        self.assertEqual(again.raw(), result(0, 1, BOB) + move(8, 8, 1, BOB))
        again.send(wire.moveMessage(0, 6, 6, NONE, 2))
        self.assertEqual(again.raw(), result(0, 2, BOB))
        self.assertEqual(white.raw(), move(6, 6, 4, ALICE))
        self.hub.clock.advance(60)
        self.assertEqual(white.raw(), b"")

    def test_reconnectWrongToken(self):
        """
        A wrong token cannot take the lost player's name.
        """
        black, white, owner, guest = self.hub.playing()
        black.drop()
        again = self.hub.connect()
        again.send(wire.regMessage("bob", 1, 12345))
        self.assertEqual(again.raw(), result(258, 1))

    def test_bothLost(self):
        """
        When both players are lost, the first to expire forfeits; the
        other gets the win when it comes back.
        """
        black, white, owner, guest = self.hub.playing()
        black.drop()
        self.hub.clock.advance(10)
        white.drop()
        self.hub.clock.advance(20)
        again = self.hub.connect()
        again.send(wire.regMessage("alice", 1, ALICE))
        self.assertEqual(again.raw(), result(0, 1, ALICE)
                         + game(3, 1, 1, ALICE)
                         + roomInfo(2, 1, ALICE, state=0))
        self.hub.clock.advance(60)
        self.assertEqual(len(self.hub.sessions), 1)

    def test_reconnectBeforeDropNoticed(self):
        """
        A msg_reg with the token of a live player takes the player over:
        the old connection is closed and the new one carries on in the same
        room.
        """
        owner, guest = self.hub.pair(ready=False)
        again = self.hub.connect()
        again.send(wire.regMessage("bob", 1, BOB))
        self.assertEqual(again.raw(), result(0, 1, BOB))
        self.assertTrue(guest.closed)
        guest.drop()
        self.assertEqual(owner.raw(), b"")
        again.send(wire.stateMessage(3, 2))
        self.assertEqual(again.raw(), result(0, 2, BOB))
        self.assertEqual(owner.raw(),
                         roomInfo(3, 2, ALICE, guest="bob", gs=3))


class IdleTimeoutTests(IdleTimeoutTestsMixin, SynchronousTestCase):
    """
    The idle timeout on gomoku connections.
    """

    def harness(self):
        return GomokuHarness()

    def speak(self, connection):
        connection.register("alice")

    def drop(self, connection):
        connection.drop()
