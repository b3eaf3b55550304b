"""
Chinese checkers against the real C{twistd -n gamehub} over loopback
sockets.
"""

import time

from twisted.trial.unittest import SynchronousTestCase

from hub.wire import checkers as wire
from tests.endtoend import BlockingClient, GamehubServer


class CheckersClient(BlockingClient):
    """
    A blocking checkers client built on L{hub.wire.checkers}.  Like the Qt
    clients it checks that every read holds whole lines only.

    @ivar reads: the raw bytes of every C{recv}.
    """

    def __init__(self, port, host="127.0.0.1"):
        BlockingClient.__init__(self, port, host)
        self.pending = []
        self.reads = []

    def send(self, op, data1="", data2=""):
        """
        Send one message.
        """
        self.sendBytes(wire.encode(op, data1, data2))

    def receiveRaw(self):
        """
        The next line the server sends, with its newline.
        """
        while not self.pending:
            data = self.recvSome()
            if not data:
                raise EOFError("server closed the connection")
            self.reads.append(data)
            if not data.endswith(b"\n"):
                raise AssertionError("a read ends mid-line: %r" % (data,))
            self.pending.extend(data.splitlines(True))
        return self.pending.pop(0)

    def receive(self):
        """
        The next message from the server.
        """
        return wire.decode(self.receiveRaw())


class CheckersEndToEndTests(SynchronousTestCase):
    """
    Whole flows through the installed plugin.
    """

    def setUp(self):
        self.server = GamehubServer(self, "--checkers-turn-seconds", "2",
                                    games=("checkers",))
        self.port = self.server.port("checkers")

    def client(self):
        c = CheckersClient(self.port)
        self.addCleanup(c.close)
        return c

    def expect(self, client, line):
        self.assertEqual(client.receiveRaw(), line)

    def test_gameOverSockets(self):
        """
        Join, bad name, ready, start, an out-of-turn and an illegal move, a
        legal move forwarded, a timeout and the ranking, byte for byte.
        """
        alice, bob = self.client(), self.client()
        alice.send(wire.JOIN_ROOM_OP, "r1", "a-b")
        self.expect(alice, b'{"data1":"400003","data2":"INVALID_JOIN: a '
                    b'name is 1 to 20 letters, digits or underscores",'
                    b'"op":200010}\n')
        alice.send(wire.JOIN_ROOM_OP, "r1", "alice")
        self.expect(alice, b'{"data1":"","data2":"","op":200001}\n')
        bob.send(wire.JOIN_ROOM_OP, "r1", "bob")
        self.expect(alice, b'{"data1":"bob","data2":"","op":200000}\n')
        self.expect(bob, b'{"data1":"alice","data2":"0","op":200001}\n')
        alice.send(wire.PLAYER_READY_OP, "alice")
        for c in (alice, bob):
            self.expect(c, b'{"data1":"alice","data2":"","op":200004}\n')
        before = int(time.time())
        bob.send(wire.PLAYER_READY_OP, "bob")
        for c in (alice, bob):
            self.expect(c, b'{"data1":"bob","data2":"","op":200004}\n')
            self.expect(c, b'{"data1":"alice bob","data2":"A D",'
                        b'"op":200005}\n')
            turn = c.receive()
            self.assertEqual(turn.op, wire.START_TURN_OP)
            self.assertEqual(turn.data1, "A")
            self.assertTrue(before <= int(turn.data2) <= time.time() + 1)
        bob.send(wire.MOVE_OP, "D", "4 -5 4 -4")
        self.expect(bob, b'{"data1":"400004","data2":"OUTTURN_MOVE: it is '
                    b'A\'s turn","op":200010}\n')
        alice.send(wire.MOVE_OP, "A", "-1 5 -1 3")
        self.expect(alice, b'{"data1":"400005","data2":"INVALID_MOVE: no '
                    b'piece to jump over at (-1,4)","op":200010}\n')
        alice.send(wire.MOVE_OP, "A", "-2 6 0 4")
        self.expect(bob, b'{"data1":"A","data2":"-2 6 0 4","op":200007}\n')
        for c in (alice, bob):
            turn = c.receive()
            self.assertEqual((turn.op, turn.data1), (wire.START_TURN_OP, "D"))
        # bob sends nothing: after two seconds he times out.
        for c in (alice, bob):
            self.expect(c, b'{"data1":"D","data2":"-1","op":200007}\n')
            self.expect(c, b'{"data1":"alice bob","data2":"","op":200009}\n')
        alice.send(wire.LEAVE_ROOM_OP, "r1", "alice")
        alice.send(wire.END_TURN_OP)
        alice.sendBytes(b"garbage\n")
        self.expect(alice, b'{"data1":"400006","data2":"INVALID_REQ: not '
                    b'JSON: JSONDecodeError","op":200010}\n')

    def test_oversizedLine(self):
        """
        A line over 8 KiB gets INVALID_REQ, then the server closes.
        """
        c = self.client()
        c.sendBytes(b"x" * 9000 + b"\n")
        self.expect(c, b'{"data1":"400006","data2":"INVALID_REQ: line too '
                    b'long","op":200010}\n')
        self.assertTrue(c.isClosedByPeer())

    def test_disconnectInLobby(self):
        """
        A client that drops in the lobby is a LEAVE for the others.
        """
        a, b = self.client(), self.client()
        a.send(wire.JOIN_ROOM_OP, "room", "a")
        self.expect(a, b'{"data1":"","data2":"","op":200001}\n')
        b.send(wire.JOIN_ROOM_OP, "room", "b")
        self.expect(a, b'{"data1":"b","data2":"","op":200000}\n')
        self.expect(b, b'{"data1":"a","data2":"0","op":200001}\n')
        b.close()
        self.expect(a, b'{"data1":"b","data2":"","op":200002}\n')
