"""
Tests for L{hub.protocols.checkers}: the flows, errors and decisions of
docs/protocols/checkers.md, on L{StringTransport} with a L{Clock}.
"""

from twisted.trial.unittest import SynchronousTestCase
from zope.interface.verify import verifyObject

from hub.bots import botFor
from hub.tables.seatpilot import SeatPilot
from hub.thinkers.inline import InlineThinker
from hub.games import checkers as rules
from hub.ihub import IStartPolicy
from hub.protocols.checkers import (
    WIRE_REGIONS, CheckersStartPolicy, isValidName)
from hub.wire import checkers as wire
from hub.wire.checkers import (
    END_GAME_OP, END_TURN_OP, ERROR_OP, JOIN_ROOM_OP, JOIN_ROOM_REPLY_OP,
    LEAVE_ROOM_OP, MOVE_OP, PLAYER_READY_OP, START_GAME_OP, START_TURN_OP)

from tests.idletimeout import IdleTimeoutTestsMixin
from .support import START_TIME, Server, message

STAMP = str(int(START_TIME))


def error(code):
    """
    The first field pair of an ERROR_OP with C{code}: (op, data1).
    """
    return (ERROR_OP, str(code))


def kinds(messages):
    """
    (op, data1) of each message, reasons of errors left out.
    """
    return [(m.op, m.data1) for m in messages]


class CodecThroughProtocolTests(SynchronousTestCase):
    """
    Checklist 1: the input side through the protocol.
    """

    def setUp(self):
        self.server = Server()
        self.client = self.server.connect()

    def test_exactBytes(self):
        """
        The server writes exactly the Qt form, one message per write.
        """
        self.client.sendRaw(b'{"data1":"r1","data2":"alice","op":200000}\n')
        self.assertEqual(self.client.transport.writes,
                         [b'{"data1":"","data2":"","op":200001}\n'])

    def test_keyOrderAndCrLf(self):
        """
        Keys in another order and a CR LF ending are accepted.
        """
        self.client.sendRaw(b'{"op":200000,"data2":"alice","data1":"r1"}\r\n')
        self.assertEqual(self.client.received(),
                         [message(JOIN_ROOM_REPLY_OP)])

    def test_mergedLines(self):
        """
        Two messages in one packet are both handled.
        """
        self.client.sendRaw(wire.encode(JOIN_ROOM_OP, "r1", "alice")
                            + wire.encode(PLAYER_READY_OP, "alice"))
        self.assertEqual(self.client.received(),
                         [message(JOIN_ROOM_REPLY_OP),
                          message(PLAYER_READY_OP, "alice")])

    def test_splitLine(self):
        """
        One message in two packets is reassembled.
        """
        data = wire.encode(JOIN_ROOM_OP, "r1", "alice")
        self.client.sendRaw(data[:10])
        self.assertEqual(self.client.received(), [])
        self.client.sendRaw(data[10:])
        self.assertEqual(self.client.received(),
                         [message(JOIN_ROOM_REPLY_OP)])

    def test_byteByByte(self):
        """
        A message sent one byte at a time is reassembled.
        """
        for i, byte in enumerate(wire.encode(JOIN_ROOM_OP, "r1", "alice")):
            self.client.sendRaw(bytes([byte]))
        self.assertEqual(self.client.received(),
                         [message(JOIN_ROOM_REPLY_OP)])

    def test_emptyLines(self):
        """
        Empty lines are skipped silently.
        """
        self.client.sendRaw(b"\n\r\n  \n")
        self.assertEqual(self.client.received(), [])

    def test_wrongTypes(self):
        """
        Number-typed data fields read as empty strings: a join with a
        numeric name is a bad name.
        """
        self.client.sendRaw(b'{"data1":"r1","data2":5,"op":200000}\n')
        self.assertEqual(kinds(self.client.received()),
                         [error(wire.INVALID_JOIN)])

    def test_garbage(self):
        """
        Unparsable lines get INVALID_REQ and the connection stays.
        """
        for line in [b"hello", b"{}", b"[1,2]", b'{"op":200000}',
                     b'{"data1":"","data2":"","op":"200000"}', b"\xff\xfe"]:
            self.client.sendRaw(line + b"\n")
            received = self.client.received()
            self.assertEqual(len(received), 1, line)
            self.assertEqual(received[0].op, ERROR_OP)
            self.assertEqual(received[0].data1, "400006")
            self.assertTrue(received[0].data2.startswith("INVALID_REQ"))
        self.assertFalse(self.client.closed)
        self.client.join("r1", "alice")
        self.assertEqual(self.client.received(),
                         [message(JOIN_ROOM_REPLY_OP)])

    def test_oversizedLine(self):
        """
        A line over 8 KiB gets INVALID_REQ and the connection is closed.
        """
        self.client.sendRaw(b"x" * (wire.MAX_LINE_LENGTH + 1) + b"\n")
        self.assertEqual(kinds(self.client.received()),
                         [error(wire.INVALID_REQ)])
        self.assertTrue(self.client.closed)

    def test_oversizedPartialLine(self):
        """
        More than 8 KiB without a newline is refused at once: nothing is
        buffered without bound.
        """
        self.client.sendRaw(b"x" * 5000)
        self.assertFalse(self.client.closed)
        self.client.sendRaw(b"x" * 5000)
        self.assertEqual(kinds(self.client.received()),
                         [error(wire.INVALID_REQ)])
        self.assertTrue(self.client.closed)

    def test_longestLine(self):
        """
        A line of exactly 8 KiB is still read.
        """
        line = wire.encode(JOIN_ROOM_OP, "r1", "alice")[:-1]
        pad = b" " * (wire.MAX_LINE_LENGTH - len(line))
        self.client.sendRaw(pad + line + b"\n")
        self.assertEqual(self.client.received(),
                         [message(JOIN_ROOM_REPLY_OP)])
        self.assertFalse(self.client.closed)

    def test_tcpNoDelay(self):
        """
        Accepted connections get TCP_NODELAY.
        """
        self.assertTrue(self.client.transport.noDelay)


class JoinTests(SynchronousTestCase):
    """
    Checklist 2: the join flow.
    """

    def setUp(self):
        self.server = Server()

    def test_firstAndSecond(self):
        """
        The first joiner gets empty lists, the second gets alice and her
        status; alice hears of bob.
        """
        alice, bob = self.server.connect(), self.server.connect()
        alice.join("r1", "alice")
        self.assertEqual(alice.rawLines(),
                         [b'{"data1":"","data2":"","op":200001}\n'])
        bob.join("r1", "bob")
        self.assertEqual(alice.rawLines(),
                         [b'{"data1":"bob","data2":"","op":200000}\n'])
        self.assertEqual(bob.rawLines(),
                         [b'{"data1":"alice","data2":"0","op":200001}\n'])

    def test_joinSeats(self):
        """
        With C{joinSeats} the other members hear the joiner's 1-based seat
        in data2; the joiner's own reply is unchanged.
        """
        server = Server(joinSeats=True)
        alice, bob, carol = [server.connect() for _ in range(3)]
        alice.join("r1", "alice")
        bob.join("r1", "bob")
        self.assertEqual(alice.rawLines(), [
            b'{"data1":"","data2":"","op":200001}\n',
            b'{"data1":"bob","data2":"2","op":200000}\n'])
        carol.join("r1", "carol")
        self.assertEqual(alice.rawLines(),
                         [b'{"data1":"carol","data2":"3","op":200000}\n'])
        self.assertEqual(bob.rawLines(), [
            b'{"data1":"alice","data2":"0","op":200001}\n',
            b'{"data1":"carol","data2":"3","op":200000}\n'])
        self.assertEqual(carol.rawLines(), [
            b'{"data1":"alice bob","data2":"00","op":200001}\n'])

    def test_readyStatus(self):
        """
        A ready member shows as 1 in the status string.
        """
        clients = [self.server.connect() for _ in range(3)]
        clients[0].join("r1", "player1")
        clients[1].join("r1", "player02")
        clients[1].ready()
        clients[2].join("r1", "carol")
        self.assertEqual(clients[2].received(),
                         [message(JOIN_ROOM_REPLY_OP, "player1 player02",
                                  "01")])

    def test_badNames(self):
        """
        21 characters, a dash, an empty name or non-ASCII letters are
        INVALID_JOIN.
        """
        client = self.server.connect()
        for name in ["a" * 21, "a-b", "", "b\u00f6b", "a b", "bob\n"]:
            client.join("r1", name)
            self.assertEqual(kinds(client.received()),
                             [error(wire.INVALID_JOIN)], name)
        self.assertIsNone(self.server.room("r1"))
        client.join("r1", "a" * 20)
        self.assertEqual(client.received(), [message(JOIN_ROOM_REPLY_OP)])
        self.assertTrue(isValidName("A_z_09"))

    def test_emptyRoomId(self):
        """
        An empty room id is INVALID_JOIN; any other string is a room.
        """
        client = self.server.connect()
        client.join("", "alice")
        self.assertEqual(kinds(client.received()),
                         [error(wire.INVALID_JOIN)])
        client.join("\u623f\u95f4 1", "alice")
        self.assertEqual(client.received(), [message(JOIN_ROOM_REPLY_OP)])

    def test_longRoomId(self):
        """
        A room id of more than 64 characters (the 8,000 C{<} that made the
        web lobby 4.8 MB, or 65 CJK characters) is INVALID_JOIN and makes
        no room; 64 characters make one.
        """
        client = self.server.connect()
        for roomId in ["<" * 8000, "\u623f" * 65]:
            client.join(roomId, "alice")
            [refusal] = client.received()
            self.assertEqual(kinds([refusal]), [error(wire.INVALID_JOIN)])
            self.assertIn("at most 64", refusal.data2)
            self.assertIsNone(self.server.room(roomId))
        client.join("\u623f" * 64, "alice")
        self.assertEqual(client.received(), [message(JOIN_ROOM_REPLY_OP)])

    def test_duplicateName(self):
        """
        A name already in the room is INVALID_JOIN; the same name in
        another room is fine.
        """
        alice, other, third = [self.server.connect() for _ in range(3)]
        alice.join("r1", "alice")
        other.join("r1", "alice")
        self.assertEqual(kinds(other.received()),
                         [error(wire.INVALID_JOIN)])
        third.join("r2", "alice")
        self.assertEqual(third.received(), [message(JOIN_ROOM_REPLY_OP)])
        self.assertEqual(alice.received(), [message(JOIN_ROOM_REPLY_OP)])

    def test_seventh(self):
        """
        The seventh joiner is INVALID_JOIN.
        """
        clients = [self.server.connect() for _ in range(7)]
        for i, client in enumerate(clients[:6]):
            client.join("r1", "p%d" % (i,))
        clients[6].join("r1", "p6")
        self.assertEqual(kinds(clients[6].received()),
                         [error(wire.INVALID_JOIN)])
        self.assertEqual(len(self.server.room("r1").members), 6)

    def test_running(self):
        """
        Joining a running room is ROOM_IS_RUNNING.
        """
        self.server.startGame(["alice", "bob"])
        late = self.server.connect()
        late.join("r1", "carol")
        self.assertEqual(kinds(late.received()),
                         [error(wire.ROOM_IS_RUNNING)])

    def test_alreadyInRoom(self):
        """
        A second JOIN from a member is OTHER_ERROR and changes nothing.
        """
        alice = self.server.connect()
        alice.join("r1", "alice")
        alice.received()
        alice.join("r2", "alice2")
        self.assertEqual(kinds(alice.received()),
                         [error(wire.OTHER_ERROR)])
        self.assertEqual(self.server.room("r1").names(), ["alice"])
        self.assertIsNone(self.server.room("r2"))

    def test_leaveCompactsOrder(self):
        """
        LEAVE goes to the remaining members only; the order compacts and
        a later joiner sees it.
        """
        a, b, c, d = [self.server.connect() for _ in range(4)]
        a.join("r1", "a")
        b.join("r1", "b")
        c.join("r1", "c")
        for client in (a, b, c):
            client.received()
        b.leave("r1", "b")
        self.assertEqual(a.received(), [message(LEAVE_ROOM_OP, "b")])
        self.assertEqual(c.received(), [message(LEAVE_ROOM_OP, "b")])
        self.assertEqual(b.received(), [])
        d.join("r1", "d")
        self.assertEqual(d.received(),
                         [message(JOIN_ROOM_REPLY_OP, "a c", "00")])

    def test_leaveReversedFields(self):
        """
        The leaver is known by connection, whatever its fields say.
        """
        a, b = self.server.connect(), self.server.connect()
        a.join("r1", "a")
        b.join("r1", "b")
        a.received()
        b.send(LEAVE_ROOM_OP, "b", "r1")
        self.assertEqual(a.received(), [message(LEAVE_ROOM_OP, "b")])

    def test_rejoinAfterLeave(self):
        """
        A connection that left may join again under another name.
        """
        a = self.server.connect()
        a.join("r1", "a")
        a.leave()
        self.assertIsNone(self.server.room("r1"))
        a.join("r2", "z")
        self.assertEqual(kinds(a.received()),
                         [(JOIN_ROOM_REPLY_OP, ""), (JOIN_ROOM_REPLY_OP, "")])

    def test_leaveOutsideRoom(self):
        """
        LEAVE from a connection in no room is ignored silently.
        """
        a = self.server.connect()
        a.leave("r1", "a")
        self.assertEqual(a.received(), [])


class StartTests(SynchronousTestCase):
    """
    Checklist 3: ready and start.
    """

    def _start(self, count, **kwargs):
        server = Server(**kwargs)
        names = ["p%d" % (i,) for i in range(count)]
        clients = [server.connect() for _ in names]
        for name, client in zip(names, clients):
            client.join("r1", name)
        for client in clients:
            client.received()
        for name, client in zip(names, clients):
            client.ready(name)
        return server, names, clients

    def test_readyEcho(self):
        """
        READY goes to every member, the sender included, with the
        server's name for the sender.
        """
        server, names, clients = self._start(1)
        other = server.connect()
        other.join("r1", "q")
        clients[0].received()
        other.received()
        other.ready("somebody")
        self.assertEqual(other.received()[0], message(PLAYER_READY_OP, "q"))
        self.assertEqual(clients[0].received()[0],
                         message(PLAYER_READY_OP, "q"))

    def test_readyIdempotent(self):
        """
        READY again is echoed again and changes nothing else.
        """
        server, names, clients = self._start(1)
        clients[0].received()
        clients[0].ready()
        self.assertEqual(clients[0].received(),
                         [message(PLAYER_READY_OP, "p0")])

    def test_startCounts(self):
        """
        2, 3 and 6 ready players start with regions by join order, then
        START_TURN A with a ten-digit seconds timestamp.
        """
        for count, regions in [(2, "A D"), (3, "A C E"),
                               (6, "A B C D E F")]:
            server, names, clients = self._start(count)
            for client in clients:
                received = client.received()
                self.assertEqual(
                    received[-2:],
                    [message(START_GAME_OP, " ".join(names), regions),
                     message(START_TURN_OP, "A", STAMP)])
                self.assertEqual(len(received[-1].data2), 10)
                self.assertEqual(received[:-2].count(
                    message(PLAYER_READY_OP, names[-1])), 1)

    def test_startBytes(self):
        """
        The start messages byte for byte.
        """
        server, names, clients = self._start(2)
        self.assertEqual(
            clients[1].rawLines(),
            [b'{"data1":"p0","data2":"","op":200004}\n',
             b'{"data1":"p1","data2":"","op":200004}\n',
             b'{"data1":"p0 p1","data2":"A D","op":200005}\n',
             b'{"data1":"A","data2":"1656403200","op":200006}\n'])

    def test_noStartFourFive(self):
        """
        Four or five ready players do not start.
        """
        for count in (1, 4, 5):
            server, names, clients = self._start(count)
            self.assertIsNone(server.room("r1").game)
            ops = {m.op for m in clients[0].received()}
            self.assertEqual(ops, {PLAYER_READY_OP})

    def test_fourPlayersOption(self):
        """
        With fourPlayers, four ready players start as A B D E.
        """
        server, names, clients = self._start(4, fourPlayers=True)
        self.assertEqual(clients[0].received()[-2:],
                         [message(START_GAME_OP, "p0 p1 p2 p3", "A B D E"),
                          message(START_TURN_OP, "A", STAMP)])

    def test_everySize(self):
        """
        With sizes 1, 2, 3, 4 and 6 a player alone starts on READY, as
        region A; four start as A B D E; five do not start.
        """
        sizes = (1, 2, 3, 4, 6)
        server, names, clients = self._start(1, sizes=sizes)
        self.assertEqual(clients[0].received()[-2:],
                         [message(START_GAME_OP, "p0", "A"),
                          message(START_TURN_OP, "A", STAMP)])
        server, names, clients = self._start(4, sizes=sizes)
        self.assertEqual(clients[0].received()[-2:],
                         [message(START_GAME_OP, "p0 p1 p2 p3", "A B D E"),
                          message(START_TURN_OP, "A", STAMP)])
        server, names, clients = self._start(5, sizes=sizes)
        self.assertIsNone(server.room("r1").game)

    def test_solitaireEnds(self):
        """
        A game of one ends when its ten pieces are home: END_GAME_OP
        ranks the one name, and the room is gone.
        """
        server, names, clients = self._start(1, sizes=(1, 2, 3, 6))
        client = clients[0]
        client.received()
        table = server.table("r1")
        target = sorted(rules.REGION_CELLS["D"])
        table.game = rules.CheckersGame.fromPosition(
            "A", {0: [c for c in target if c != (1, -5)] + [(1, -4)]})
        client.move("A", "1 -4 1 -5")
        self.assertEqual(client.received(),
                         [message(END_TURN_OP),
                          message(END_GAME_OP, "p0")])
        self.assertIsNone(server.room("r1"))

    def test_solitaireTimesOut(self):
        """
        The turn limit holds for a player alone: out of time, they are
        out and END_GAME_OP ranks them alone.
        """
        server, names, clients = self._start(1, sizes=(1,))
        client = clients[0]
        client.received()
        server.clock.advance(16)
        self.assertEqual(client.received(),
                         [message(MOVE_OP, "A", wire.TIMEOUT_PATH),
                          message(END_GAME_OP, "p0")])

    def test_notAllReady(self):
        """
        No start until everyone is ready.
        """
        server = Server()
        a, b = server.connect(), server.connect()
        a.join("r1", "a")
        b.join("r1", "b")
        a.ready()
        self.assertIsNone(server.room("r1").game)

    def unreadyThird(self):
        """
        A room of three where the first two are ready and the third is
        not; every message so far is read.
        """
        server = Server()
        a, b, c = [server.connect() for _ in range(3)]
        for name, client in zip("abc", (a, b, c)):
            client.join("r1", name)
        a.ready()
        b.ready()
        for client in (a, b, c):
            client.received()
        return server, a, b, c

    def test_startAfterUnreadyLeaves(self):
        """
        When the only unready member leaves, the ready members left start
        at once: LEAVE, then START_GAME and START_TURN.
        """
        server, a, b, c = self.unreadyThird()
        c.leave()
        for client in (a, b):
            self.assertEqual(client.received(), [
                message(LEAVE_ROOM_OP, "c"),
                message(START_GAME_OP, "a b", "A D"),
                message(START_TURN_OP, "A", STAMP)])
        self.assertEqual(c.received(), [])
        self.assertTrue(server.room("r1").running)

    def test_startAfterUnreadyDrops(self):
        """
        The same when the unready member's connection drops.
        """
        server, a, b, c = self.unreadyThird()
        c.disconnect()
        self.assertEqual(b.received(), [
            message(LEAVE_ROOM_OP, "c"),
            message(START_GAME_OP, "a b", "A D"),
            message(START_TURN_OP, "A", STAMP)])

    def test_noStartAfterReadyLeaves(self):
        """
        When a ready member leaves and the others are not all ready, or
        their count is not allowed, nothing starts.
        """
        server, a, b, c = self.unreadyThird()
        a.leave()
        self.assertEqual(b.received(), [message(LEAVE_ROOM_OP, "a")])
        self.assertFalse(server.room("r1").running)
        server, names, clients = self._start(4)
        late = server.connect()
        late.join("r1", "late")
        clients[0].received()
        late.leave()
        self.assertEqual(clients[0].received(),
                         [message(LEAVE_ROOM_OP, "late")])
        self.assertFalse(server.room("r1").running)

    def test_wireRegions(self):
        """
        The wire's region letters are the rules' regions, one for one,
        and every seat's role has one.
        """
        self.assertEqual(sorted(WIRE_REGIONS), list(rules.REGION_LETTERS))
        self.assertEqual(sorted(WIRE_REGIONS.values()),
                         list(rules.REGION_LETTERS))
        self.assertEqual(WIRE_REGIONS,
                         {letter: letter for letter in "ABCDEF"})

    def test_policy(self):
        """
        The start policy provides L{IStartPolicy} and starts by itself.
        """
        policy = CheckersStartPolicy()
        self.assertTrue(verifyObject(IStartPolicy, policy))
        self.assertTrue(policy.autoStart)
        self.assertEqual(policy.counts, {2, 3, 6})
        self.assertEqual(CheckersStartPolicy(True).counts, {2, 3, 4, 6})
        self.assertEqual(CheckersStartPolicy(sizes=(1, 4)).counts, {1, 4})
        self.assertEqual(CheckersStartPolicy(True, sizes=(1,)).counts,
                         {1, 4})
        self.assertRaises(ValueError, CheckersStartPolicy, sizes=(2, 5))

    def test_readyWrongState(self):
        """
        READY outside a room is NOT_IN_ROOM; during a game it is
        ROOM_IS_RUNNING.
        """
        server = Server()
        lone = server.connect()
        lone.ready()
        self.assertEqual(kinds(lone.received()), [error(wire.NOT_IN_ROOM)])
        a, b = server.startGame(["a", "b"])
        b.ready()
        self.assertEqual(kinds(b.received()), [error(wire.ROOM_IS_RUNNING)])
        self.assertEqual(a.received(), [])


class TurnTests(SynchronousTestCase):
    """
    Checklist 4, 5 and 6: turns, moves and forwarding.
    """

    def test_cycleTwo(self):
        """
        Two players: A, D, A, D.
        """
        server = Server()
        a, d = server.startGame(["alice", "bob"])
        a.move("A", "-1 5 -1 4")
        self.assertEqual(a.received(),
                         [message(START_TURN_OP, "D", STAMP)])
        self.assertEqual(d.received(),
                         [message(MOVE_OP, "A", "-1 5 -1 4"),
                          message(START_TURN_OP, "D", STAMP)])
        d.move("D", "1 -5 1 -4")
        self.assertEqual(d.received()[-1], message(START_TURN_OP, "A",
                                                   STAMP))
        self.assertEqual(a.received(),
                         [message(MOVE_OP, "D", "1 -5 1 -4"),
                          message(START_TURN_OP, "A", STAMP)])

    def test_cycleThree(self):
        """
        Three players: A, C, E, A.
        """
        server = Server()
        a, c, e = server.startGame(["a", "c", "e"])
        a.move("A", "-1 5 -1 4")
        c.move("C", "5 -1 4 -1")
        e.move("E", "-4 -1 -4 0")
        starts = [m.data1 for m in a.received() if m.op == START_TURN_OP]
        self.assertEqual(starts, ["C", "E", "A"])

    def test_timestampFollowsClock(self):
        """
        Each START_TURN carries the clock's whole seconds at that turn.
        """
        server = Server()
        a, d = server.startGame(["alice", "bob"])
        server.clock.advance(7)
        a.move("A", "-2 6 0 4")
        self.assertEqual(d.received(),
                         [message(MOVE_OP, "A", "-2 6 0 4"),
                          message(START_TURN_OP, "D",
                                  str(int(START_TIME + 7)))])

    def test_workedExamples(self):
        """
        The illegal worked examples of test_rules get INVALID_MOVE, change
        nothing and forward nothing; the legal ones are forwarded.
        """
        from .test_rules import WORKED_EXAMPLES
        for text, legal, why in WORKED_EXAMPLES + [("-1 5 -1", False,
                                                    "odd count")]:
            server = Server()
            a, d = server.startGame(["alice", "bob"])
            a.move("A", text)
            if legal:
                self.assertEqual(d.received()[0],
                                 message(MOVE_OP, "A", text), why)
                self.assertEqual(a.received(),
                                 [message(START_TURN_OP, "D", STAMP)], why)
            else:
                self.assertEqual(kinds(a.received()),
                                 [error(wire.INVALID_MOVE)], why)
                self.assertEqual(d.received(), [], why)
                self.assertEqual(server.table("r1").game.currentSeat, 0)

    def test_errorBytes(self):
        """
        The errors of the first example of docs/protocols/checkers.md,
        byte for byte.
        """
        server = Server()
        a, d = server.startGame(["alice", "bob"])
        d.move("D", "4 -5 4 -4")
        self.assertEqual(d.rawLines(), [
            b'{"data1":"400004","data2":"OUTTURN_MOVE: it is A\'s turn",'
            b'"op":200010}\n'])
        a.move("A", "-1 5 -1 3")
        self.assertEqual(a.rawLines(), [
            b'{"data1":"400005","data2":"INVALID_MOVE: no piece to jump'
            b' over at (-1,4)","op":200010}\n'])

    def test_errorNames(self):
        """
        With C{errorNames} the code's name is data1, byte for byte.
        """
        server = Server(errorNames=True)
        a, d = server.startGame(["alice", "bob"])
        d.move("D", "4 -5 4 -4")
        self.assertEqual(d.rawLines(), [
            b'{"data1":"OUTTURN_MOVE","data2":"OUTTURN_MOVE: it is A\'s'
            b' turn","op":200010}\n'])
        other = server.connect()
        other.join("r2", "bad name")
        self.assertEqual(other.rawLines()[0][:40],
                         b'{"data1":"INVALID_JOIN","data2":"INVALID')

    def test_illegalKeepsTimer(self):
        """
        Illegal attempts do not reset the turn clock.
        """
        server = Server()
        a, d = server.startGame(["alice", "bob"])
        server.clock.advance(10)
        a.move("A", "-1 5 -1 3")
        server.clock.advance(5)
        self.assertEqual(kinds(a.received()), [error(wire.INVALID_MOVE)])
        server.clock.advance(0.5)
        self.assertEqual(a.received()[0], message(MOVE_OP, "A", "-1"))

    def test_outOfTurn(self):
        """
        D on A's turn is OUTTURN_MOVE, for any path.
        """
        server = Server()
        a, d = server.startGame(["alice", "bob"])
        d.move("D", "1 -5 1 -4")
        self.assertEqual(kinds(d.received()), [error(wire.OUTTURN_MOVE)])
        self.assertEqual(a.received(), [])

    def test_duplicateMove(self):
        """
        The same move sent twice: the second is OUTTURN_MOVE and changes
        nothing.
        """
        server = Server()
        a, d = server.startGame(["alice", "bob"])
        a.move("A", "-1 5 -1 4")
        a.move("A", "-1 5 -1 4")
        self.assertEqual(kinds(a.received()),
                         [(START_TURN_OP, "D"), error(wire.OUTTURN_MOVE)])
        self.assertEqual(server.table("r1").game.currentSeat, 1)

    def test_nonMember(self):
        """
        A move from a connection in no room is NOT_IN_ROOM.
        """
        server = Server()
        server.startGame(["alice", "bob"])
        stranger = server.connect()
        stranger.move("A", "-1 5 -1 4")
        self.assertEqual(kinds(stranger.received()),
                         [error(wire.NOT_IN_ROOM)])

    def test_moveInLobby(self):
        """
        A move in a room that is not playing is ROOM_NOT_RUNNING.
        """
        server = Server()
        a = server.connect()
        a.join("r1", "a")
        a.received()
        a.move("A", "-1 5 -1 4")
        self.assertEqual(kinds(a.received()),
                         [error(wire.ROOM_NOT_RUNNING)])

    def test_wrongRegion(self):
        """
        data1 naming another region is INVALID_MOVE; an empty data1 is
        accepted; the server's region is forwarded.
        """
        server = Server()
        a, d = server.startGame(["alice", "bob"])
        a.move("D", "-1 5 -1 4")
        self.assertEqual(kinds(a.received()), [error(wire.INVALID_MOVE)])
        a.move("", "-1 5 -1 4")
        self.assertEqual(d.received()[0], message(MOVE_OP, "A", "-1 5 -1 4"))

    def test_canonicalPath(self):
        """
        The forwarded path is canonical: single spaces, no padding.
        """
        server = Server()
        a, b, c = server.startGame(["a", "b", "c"])
        a.move("A", "  -2\t6   0 4 ")
        for other in (b, c):
            self.assertEqual(other.rawLines()[0],
                             b'{"data1":"A","data2":"-2 6 0 4","op":200007}'
                             b'\n')
        self.assertEqual(kinds(a.received()), [(START_TURN_OP, "C")])

    def test_chainForwarded(self):
        """
        A jump chain is forwarded whole.
        """
        server = Server()
        a, d = server.startGame(["alice", "bob"])
        server.setPosition("r1", {0: [(0, 0)], 1: [(1, 0), (2, 1), (1, 2)]})
        a.move("A", "0 0 2 0 2 2 0 2")
        self.assertEqual(d.received()[0],
                         message(MOVE_OP, "A", "0 0 2 0 2 2 0 2"))


class TimeoutTests(SynchronousTestCase):
    """
    Checklist 7: timeouts.
    """

    def test_timeoutTwo(self):
        """
        Nothing from A for 15 s (+ grace): MOVE_OP(A, "-1") to both, then
        END_GAME with bob first.
        """
        server = Server()
        a, d = server.startGame(["alice", "bob"])
        server.clock.advance(15)
        self.assertEqual(a.received(), [])
        server.clock.advance(0.5)
        for client in (a, d):
            self.assertEqual(client.rawLines(), [
                b'{"data1":"A","data2":"-1","op":200007}\n',
                b'{"data1":"bob alice","data2":"","op":200009}\n'])
        self.assertIsNone(server.room("r1"))
        self.assertEqual(server.clock.getDelayedCalls(), [])

    def test_turnSeconds(self):
        """
        turnSeconds sets the limit.
        """
        server = Server(turnSeconds=3, turnGrace=0)
        a, b, c = server.startGame(["a", "b", "c"])
        server.clock.advance(2.9)
        self.assertEqual(a.received(), [])
        server.clock.advance(0.1)
        self.assertEqual(kinds(a.received()),
                         [(MOVE_OP, "A"), (START_TURN_OP, "C")])

    def test_timeoutThree(self):
        """
        In three players the game goes on without the timed-out player,
        whose pieces are gone and whose cells are free.
        """
        server = Server()
        a, c, e = server.startGame(["a", "c", "e"])
        server.clock.advance(15.5)
        stamp = str(int(START_TIME + 15.5))
        for client in (a, c, e):
            self.assertEqual(client.received(),
                             [message(MOVE_OP, "A", "-1"),
                              message(START_TURN_OP, "C", stamp)])
        game = server.table("r1").game
        for cell in rules.REGION_CELLS["A"]:
            self.assertIsNone(game.pieceAt(cell))
        c.move("C", "5 -1 4 -1")
        e.move("E", "-4 -1 -4 0")
        self.assertEqual(kinds(a.received())[-1], (START_TURN_OP, "C"))
        a.move("A", "-1 5 -1 4")
        self.assertEqual(kinds(a.received()), [error(wire.OUTTURN_MOVE)])

    def test_moveCancelsTimer(self):
        """
        A legal move stops the mover's clock; the next player gets a
        full turn.
        """
        server = Server()
        a, d = server.startGame(["alice", "bob"])
        server.clock.advance(14)
        a.move("A", "-1 5 -1 4")
        server.clock.advance(15)
        self.assertEqual(server.table("r1").game.currentSeat, 1)
        server.clock.advance(0.5)
        self.assertIsNone(server.room("r1"))
        self.assertEqual(d.received()[-1],
                         message(END_GAME_OP, "alice bob"))


class FinishTests(SynchronousTestCase):
    """
    Checklist 8: winning, the last player, END_GAME and dissolution.
    """

    def _nearlyDone(self, server, roomId="r1", three=True):
        target = sorted(rules.REGION_CELLS["D"])
        pieces = {0: [c for c in target if c != (1, -5)] + [(1, -4)]}
        if three:
            pieces.update({1: [(5, -1)], 2: [(-4, -1)]})
        else:
            pieces[1] = [(0, 4)]
        return server.setPosition(roomId, pieces)

    def test_winTwo(self):
        """
        A's last piece arrives: MOVE to D, END_TURN to A only, then
        END_GAME to both.
        """
        server = Server()
        a, d = server.startGame(["alice", "bob"])
        self._nearlyDone(server, three=False)
        a.move("A", "1 -4 1 -5")
        self.assertEqual(a.rawLines(), [
            b'{"data1":"","data2":"","op":200008}\n',
            b'{"data1":"alice bob","data2":"","op":200009}\n'])
        self.assertEqual(d.rawLines(), [
            b'{"data1":"A","data2":"1 -4 1 -5","op":200007}\n',
            b'{"data1":"alice bob","data2":"","op":200009}\n'])
        self.assertIsNone(server.room("r1"))

    def test_winThreeContinues(self):
        """
        In three players the winner gets END_TURN and is skipped; the
        game goes on; a timeout then ends it: alice carol bob.
        """
        server = Server()
        a, c, e = server.startGame(["alice", "bob", "carol"])
        self._nearlyDone(server)
        a.move("A", "1 -4 1 -5")
        self.assertEqual(a.received(),
                         [message(END_TURN_OP),
                          message(START_TURN_OP, "C", STAMP)])
        self.assertEqual(c.received(),
                         [message(MOVE_OP, "A", "1 -4 1 -5"),
                          message(START_TURN_OP, "C", STAMP)])
        c.move("C", "5 -1 4 -1")
        self.assertEqual(kinds(e.received())[-1], (START_TURN_OP, "E"))
        e.move("E", "-4 -1 -4 0")
        self.assertEqual(kinds(e.received())[-1], (START_TURN_OP, "C"))
        a.received()
        a.move("A", "1 -5 1 -4")
        self.assertEqual(kinds(a.received()), [error(wire.OUTTURN_MOVE)])
        c.received()
        e.received()
        server.clock.advance(15.5)
        for client in (a, c, e):
            self.assertEqual(client.received(),
                             [message(MOVE_OP, "C", "-1"),
                              message(END_GAME_OP, "alice carol bob")])
        self.assertIsNone(server.room("r1"))

    def test_afterEnd(self):
        """
        After END_GAME the members are in no room: LEAVE is ignored,
        READY and MOVE are NOT_IN_ROOM, and they may join again.
        """
        server = Server()
        a, d = server.startGame(["alice", "bob"])
        server.clock.advance(15.5)
        a.received()
        a.leave("r1", "alice")
        self.assertEqual(a.received(), [])
        a.ready()
        a.move("A", "-1 5 -1 4")
        self.assertEqual(kinds(a.received()),
                         [error(wire.NOT_IN_ROOM), error(wire.NOT_IN_ROOM)])
        a.join("r1", "alice")
        self.assertEqual(a.received(), [message(JOIN_ROOM_REPLY_OP)])
        self.assertIsNone(server.table("r1"))


class DisconnectTests(SynchronousTestCase):
    """
    Checklist 9: LEAVE and disconnects, in the lobby and mid-game.
    """

    def test_lobbyDisconnect(self):
        """
        A disconnect in the lobby is a LEAVE to the others.
        """
        server = Server()
        a, b = server.connect(), server.connect()
        a.join("r1", "a")
        b.join("r1", "b")
        a.received()
        b.disconnect()
        self.assertEqual(a.received(), [message(LEAVE_ROOM_OP, "b")])
        self.assertEqual(server.room("r1").names(), ["a"])
        a.disconnect()
        self.assertIsNone(server.room("r1"))
        self.assertEqual(len(server.sessions), 0)

    def test_disconnectOnOwnTurn(self):
        """
        The player to move drops: LEAVE then MOVE(-1) at once, then the
        next turn.
        """
        server = Server()
        a, c, e = server.startGame(["a", "c", "e"])
        a.disconnect()
        self.assertEqual(c.received(),
                         [message(LEAVE_ROOM_OP, "a"),
                          message(MOVE_OP, "A", "-1"),
                          message(START_TURN_OP, "C", STAMP)])
        self.assertEqual(a.received(), [])

    def test_disconnectBeforeTurn(self):
        """
        A player who drops keeps the seat until its turn, then is
        eliminated by START_TURN then MOVE(-1).
        """
        server = Server()
        a, c, e = server.startGame(["a", "c", "e"])
        c.disconnect()
        self.assertEqual(a.received(), [message(LEAVE_ROOM_OP, "c")])
        a.move("A", "-1 5 -1 4")
        self.assertEqual(e.received(),
                         [message(LEAVE_ROOM_OP, "c"),
                          message(MOVE_OP, "A", "-1 5 -1 4"),
                          message(START_TURN_OP, "C", STAMP),
                          message(MOVE_OP, "C", "-1"),
                          message(START_TURN_OP, "E", STAMP)])

    def test_leaveMidGameEndsTwo(self):
        """
        In two players, the other leaving ends the game at their turn:
        END_GAME ranks the leaver last.
        """
        server = Server()
        a, d = server.startGame(["alice", "bob"])
        d.leave("r1", "bob")
        self.assertEqual(a.received(), [message(LEAVE_ROOM_OP, "bob")])
        a.move("A", "-1 5 -1 4")
        self.assertEqual(a.received(),
                         [message(START_TURN_OP, "D", STAMP),
                          message(MOVE_OP, "D", "-1"),
                          message(END_GAME_OP, "alice bob")])
        self.assertEqual(d.received(), [])

    def test_everyoneLeaves(self):
        """
        When every member has gone, the room and its timer go.
        """
        server = Server()
        a, c, e = server.startGame(["a", "c", "e"])
        c.disconnect()
        e.disconnect()
        a.disconnect()
        self.assertIsNone(server.room("r1"))
        self.assertEqual(server.clock.getDelayedCalls(), [])

    def test_eliminatedStays(self):
        """
        A timed-out player still in the room keeps hearing the game.
        """
        server = Server()
        a, c, e = server.startGame(["a", "c", "e"])
        server.clock.advance(15.5)
        a.received()
        c.move("C", "5 -1 4 -1")
        self.assertEqual(kinds(a.received()),
                         [(MOVE_OP, "C"), (START_TURN_OP, "E")])


class IgnoredTests(SynchronousTestCase):
    """
    Checklist 10: ops a client should not send.
    """

    def test_ignored(self):
        """
        Client END_TURN_OP and CHECK_OP are ignored; server-only ops are
        INVALID_REQ; none changes the game.
        """
        server = Server()
        a, d = server.startGame(["alice", "bob"])
        a.send(END_TURN_OP)
        a.send(wire.CHECK_OP, "A")
        a.send(123456, "x", "y")
        self.assertEqual(a.received(), [])
        for op in (START_GAME_OP, START_TURN_OP, END_GAME_OP, ERROR_OP,
                   JOIN_ROOM_REPLY_OP):
            a.send(op, "A", "1")
            self.assertEqual(kinds(a.received()), [error(wire.INVALID_REQ)])
        self.assertEqual(d.received(), [])
        game = server.table("r1").game
        self.assertEqual((game.currentSeat, game.plies), (0, 0))
        a.move("A", "-1 5 -1 4")
        self.assertEqual(d.received()[0], message(MOVE_OP, "A", "-1 5 -1 4"))


class TakeoverTests(SynchronousTestCase):
    """
    With takeover="bot", a bot plays the seat of a player who left.
    """

    def test_botPlays(self):
        """
        The departed player's turns are played by a bot after a delay.
        """
        server = Server(takeover="bot", botDelay=1.0)
        a, d = server.startGame(["alice", "bob"])
        d.disconnect()
        a.move("A", "-1 5 -1 4")
        self.assertEqual(kinds(a.received()),
                         [(LEAVE_ROOM_OP, "bob"), (START_TURN_OP, "D")])
        server.clock.advance(1.0)
        received = a.received()
        self.assertEqual(kinds(received),
                         [(MOVE_OP, "D"), (START_TURN_OP, "A")])
        path = wire.parsePath(received[0].data2)
        self.assertEqual(server.table("r1").game.pieceAt(path[-1]), 1)

    def test_botOnOwnTurn(self):
        """
        A player who leaves on their own turn is replaced at once.
        """
        server = Server(takeover="bot", botDelay=0.5)
        a, c, e = server.startGame(["a", "c", "e"])
        a.leave()
        server.clock.advance(0.5)
        self.assertEqual(kinds(c.received()),
                         [(LEAVE_ROOM_OP, "a"), (MOVE_OP, "A"),
                          (START_TURN_OP, "C")])

    def test_defaultBot(self):
        """
        By default the seat is played by hub.bots' checkers bot at
        C{botLevel}, seeded with the seat, in a L{SeatPilot} that waits
        C{botDelay} (thinking in the caller's thread: the hub gives its
        factories its pool); its move is legal and forward.
        """
        server = Server(takeover="bot", botLevel=3, botDelay=0.5)
        a, d = server.startGame(["alice", "bob"])
        game = server.table("r1").game
        d.disconnect()
        a.move("A", "-1 5 -1 4")
        pilot = server.table("r1").takeover.pilots[1]
        self.assertIsInstance(pilot, SeatPilot)
        self.assertIsInstance(pilot.thinker, InlineThinker)
        self.assertEqual(pilot.thinker.botFactory, botFor)
        self.assertEqual((pilot.kind, pilot.level, pilot.seed, pilot.delay),
                         ("checkers", 3, 1, 0.5))
        self.assertTrue(pilot.pending)
        legal = game.legalActions(1)
        server.clock.advance(0.5)
        moved = [m for m in a.received() if m.op == MOVE_OP][0]
        path = wire.parsePath(moved.data2)
        self.assertIn(path, legal)
        tip = rules.TIPS["A"]
        self.assertLess(rules.cellDistance(path[-1], tip),
                        rules.cellDistance(path[0], tip))

    def test_noLegalMove(self):
        """
        A departed seat without a legal move is eliminated at once, even
        when a bot would play it.
        """
        server = Server(takeover="bot")
        a, c, e = server.startGame(["a", "c", "e"])
        server.setPosition("r1", {
            0: [(7, -3), (7, -4), (6, -2), (-1, 5)],
            1: [(8, -4)],
            2: [(6, -4), (-4, -1)]}, currentSeat=1)
        a.received()
        c.disconnect()
        self.assertEqual(a.received(), [
            message(LEAVE_ROOM_OP, "c"),
            message(MOVE_OP, "C", "-1"),
            message(START_TURN_OP, "E", STAMP)])
        self.assertEqual(server.table("r1").takeover.pilots, {})

    def test_noBotsAmongThemselves(self):
        """
        Once nobody connected is still playing, departed seats are
        eliminated at their turn instead of played by bots.
        """
        server = Server(takeover="bot")
        a, c, e = server.startGame(["a", "c", "e"])
        target = sorted(rules.REGION_CELLS["D"])
        server.setPosition("r1", {
            0: [cell for cell in target if cell != (1, -5)] + [(1, -4)],
            1: [(5, -1)], 2: [(-4, -1)]})
        c.disconnect()
        e.disconnect()
        a.received()
        a.move("A", "1 -4 1 -5")
        self.assertEqual(a.received(), [
            message(END_TURN_OP),
            message(START_TURN_OP, "C", STAMP),
            message(MOVE_OP, "C", "-1"),
            message(END_GAME_OP, "a e c")])
        self.assertEqual(server.clock.getDelayedCalls(), [])

    def brokenBotPlays(self, chooseAction):
        """
        Start a game of three whose second player leaves and is played
        by a bot choosing with C{chooseAction}; the first player moves.

        @return: what the first player received when the bot moved, the
            first legal path of the bot's seat, and the game.
        """
        class Broken:
            level = 1

        Broken.chooseAction = chooseAction
        server = Server(takeover="bot", thinker=InlineThinker(
            lambda kind, level, seed: Broken()))
        a, c, e = server.startGame(["a", "c", "e"])
        c.disconnect()
        a.move("A", "-1 5 -1 4")
        a.received()
        game = server.table("r1").game
        first = game.legalActions(1)[0]
        server.clock.advance(1.0)
        return a.received(), first, game

    def test_brokenBot(self):
        """
        A bot that raises has the seat's first legal move played
        instead; the error is logged, not raised into the reactor.
        """
        def chooseAction(bot, state, seat):
            raise RuntimeError("boom")

        received, first, game = self.brokenBotPlays(chooseAction)
        self.assertEqual(received,
                         [message(MOVE_OP, "C", wire.formatPath(first)),
                          message(START_TURN_OP, "E",
                                  str(int(START_TIME + 1)))])
        self.assertEqual(len(self.flushLoggedErrors(RuntimeError)), 1)
        self.assertFalse(game.isEliminated(1))

    def test_illegalBotMove(self):
        """
        A bot that chooses an illegal path has the seat's first legal
        move played instead.
        """
        def chooseAction(bot, state, seat):
            return ((0, 0), (5, 5))

        received, first, game = self.brokenBotPlays(chooseAction)
        self.assertEqual(received[0],
                         message(MOVE_OP, "C", wire.formatPath(first)))
        self.assertFalse(game.isEliminated(1))

    def test_nothingAfterAbort(self):
        """
        When everyone left while a bot's move is pending, the bot is
        stopped: no timer stays behind.
        """
        server = Server(takeover="bot")
        a, c, e = server.startGame(["a", "c", "e"])
        c.disconnect()
        a.move("A", "-1 5 -1 4")
        pilot = server.table("r1").takeover.pilots[1]
        self.assertTrue(pilot.pending)
        a.disconnect()
        e.disconnect()
        self.assertFalse(pilot.pending)
        self.assertEqual(server.clock.getDelayedCalls(), [])

    def test_nothingAfterEndGame(self):
        """
        When a bot's move ends the game, every bot is stopped: END_GAME_OP
        is the last message and no timer stays behind.
        """
        home = rules.REGION_CELLS["A"]
        last = (-1, 5)

        class Finisher:
            level = 1

            def chooseAction(self, state, seat):
                return ((-1, 4), last)

        server = Server(takeover="bot", thinker=InlineThinker(
            lambda kind, level, seed: Finisher()))
        a, d = server.startGame(["alice", "bob"])
        server.setPosition("r1", {
            0: [(1, 1), (2, 1)],
            1: [cell for cell in sorted(home) if cell != last]
            + [(-1, 4)]})
        d.disconnect()
        a.move("A", "1 1 1 0")
        table = server.table("r1")
        pilot = table.takeover.pilots[1]
        self.assertTrue(pilot.pending)
        server.clock.advance(1.0)
        received = a.received()
        self.assertEqual(received[-2:], [
            message(MOVE_OP, "D", "-1 4 -1 5"),
            message(END_GAME_OP, "bob alice")])
        self.assertIsNone(server.table("r1"))
        self.assertEqual(server.clock.getDelayedCalls(), [])
        pilot.turn(table.game, 1, self.fail)
        self.assertFalse(pilot.pending)


class IdleTimeoutTests(IdleTimeoutTestsMixin, SynchronousTestCase):
    """
    The idle timeout on checkers connections.
    """

    def harness(self):
        return Server()

    def speak(self, connection):
        connection.join("r1", "alice")

    def drop(self, connection):
        connection.disconnect()
