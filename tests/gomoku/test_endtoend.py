"""
Gomoku against the real C{twistd -n gamehub} over loopback sockets.
"""

from twisted.trial.unittest import SynchronousTestCase

from hub.wire import gomoku as wire
from tests.endtoend import GamehubServer, GomokuClient, GomokuSteps


class GomokuEndToEndTests(GomokuSteps, SynchronousTestCase):
    """
    Whole flows through the installed plugin.
    """

    def setUp(self):
        self.server = GamehubServer(self, games=("gomoku",))
        self.port = self.server.port("gomoku")

    def client(self, name):
        c = GomokuClient(self.port)
        self.addCleanup(c.close)
        c.send(wire.regMessage(name, c.nextSession()))
        reply = c.receive()
        self.assertEqual((reply["msg_type"], reply["status"]),
                         (wire.MSG_RESULT, wire.S_OK))
        c.token = reply["token"]
        return c

    def startGame(self):
        owner = self.client("alice")
        guest = self.client("bob")
        owner.send(wire.roomOpMessage(wire.RO_ROOM_CREATE, "room1", "pw",
                                      owner.nextSession()))
        self.expect(owner, wire.MSG_RESULT, status=0)
        guest.send(wire.roomOpMessage(wire.RO_ROOM_JOIN, "room1", "bad",
                                      guest.nextSession()))
        self.expect(guest, wire.MSG_RESULT, status=wire.S_ROOM_ILLEGAL_ACCESS)
        self.joinAndStart(owner, guest, "room1", "pw")
        return owner, guest

    def test_fullGame(self):
        """
        Register, list, create with a password, join, ready, start and a
        game to a win for black (the guest), with the result to each.
        """
        owner, guest = self.startGame()
        for i in range(4):
            self.move(guest, owner, i, 7)
            self.move(owner, guest, i, 8)
        self.move(guest, owner, 4, 7)
        self.expect(guest, wire.MSG_GAME, state=3, ex=wire.GAME_RSLT_WIN)
        self.expect(owner, wire.MSG_GAME, state=3, ex=wire.GAME_RSLT_LOSE)

    def test_reconnect(self):
        """
        A player whose connection drops mid-game comes back with its token
        (whether or not the server has noticed the drop yet) and plays on.
        """
        owner, guest = self.startGame()
        self.move(guest, owner, 7, 7)
        token = guest.token
        guest.close()
        again = GomokuClient(self.port)
        self.addCleanup(again.close)
        again.send(wire.regMessage("bob", 1, token))
        self.expect(again, wire.MSG_RESULT, status=0, token=token)
        self.move(owner, again, 8, 8)
        self.move(again, owner, 6, 6)

    def test_junkDoesNotHurtOthers(self):
        """
        Oversized and malformed frames close or answer that connection
        only; others keep playing.
        """
        owner, guest = self.startGame()
        bad = GomokuClient(self.port)
        self.addCleanup(bad.close)
        bad.sendBytes(b"<" + b"x" * 70000)
        self.assertTrue(bad.isClosedByPeer())
        self.move(guest, owner, 7, 7)
