"""
Fakes for gomoku protocol tests: the shared L{ServerHarness} with the
gomoku factory and deterministic tokens, and client connections on it.
"""

import itertools

from twisted.internet.error import ConnectionDone
from twisted.python.failure import Failure

from hub.protocols.gomoku import GomokuFactory
from hub.wire import gomoku as wire
from tests.harness import ServerHarness

FIRST_TOKEN = 1000


class FakeConnection:
    """
    One client connection to the protocol under test.
    """

    def __init__(self, protocol, transport):
        self.protocol = protocol
        self.transport = transport
        self.scanner = wire.FrameScanner()
        self.session = 0

    def sendBytes(self, data):
        """
        Deliver raw bytes to the server.
        """
        self.protocol.dataReceived(data)

    def send(self, message):
        """
        Deliver one message (a dict) to the server.
        """
        self.sendBytes(wire.encodeMessage(message))

    def nextSession(self):
        """
        The next request session number (1, 2, 3... as icc counts).
        """
        self.session += 1
        return self.session

    def raw(self):
        """
        Every byte the server wrote since the last call.
        """
        data = self.transport.value()
        self.transport.clear()
        return data

    def messages(self):
        """
        Every message the server wrote since the last call, decoded.
        """
        return [wire.decodeMessage(p) for p in self.scanner.feed(self.raw())]

    def drop(self):
        """
        The connection is lost.
        """
        self.protocol.connectionLost(Failure(ConnectionDone()))

    @property
    def closed(self):
        """
        Whether the server closed the connection.
        """
        return self.transport.disconnecting

    # What the original client sends.

    def register(self, name, token=wire.INVALID_TOKEN):
        self.send(wire.regMessage(name, self.nextSession(), token))

    def roomList(self):
        self.send(wire.requestMessage(wire.REQ_ROOM_LIST, self.nextSession()))

    def create(self, room, psw="", oct=wire.CHESS_WHITE):
        self.send(wire.roomOpMessage(wire.RO_ROOM_CREATE, room, psw,
                                     self.nextSession(), oct))

    def join(self, room, psw=""):
        self.send(wire.roomOpMessage(wire.RO_ROOM_JOIN, room, psw,
                                     self.nextSession()))

    def exit(self, room=""):
        self.send(wire.roomOpMessage(wire.RO_ROOM_EXIT, room, "",
                                     self.nextSession()))

    def ready(self, ready=True):
        state = wire.PLAYER_STATE_READY if ready else \
            wire.PLAYER_STATE_PREPARE
        self.send(wire.stateMessage(state, self.nextSession()))

    def chess(self, colour):
        self.send(wire.chessMessage(colour, self.nextSession()))

    def start(self):
        self.send(wire.requestMessage(wire.REQ_GAME_START,
                                      self.nextSession()))

    def move(self, x, y):
        self.send(wire.moveMessage(0, x, y, wire.INVALID_TOKEN,
                                   self.nextSession()))


class GomokuHarness(ServerHarness):
    """
    The shared harness over a L{GomokuFactory}, with tokens counted from
    L{FIRST_TOKEN}; L{connect} gives L{FakeConnection}s.
    """

    def __init__(self, graceSeconds=30, **factoryOptions):
        tokens = itertools.count(FIRST_TOKEN)
        ServerHarness.__init__(self, GomokuFactory, graceSeconds=graceSeconds,
                               randomBits=lambda bits: next(tokens),
                               **factoryOptions)

    def connect(self):
        """
        A new client connection.
        """
        return FakeConnection(*ServerHarness.connect(self))

    def registered(self, name):
        """
        A connection that registered C{name} (its reply consumed).
        """
        connection = self.connect()
        connection.register(name)
        connection.raw()
        return connection

    def pair(self, oct=wire.CHESS_WHITE, ready=True):
        """
        An owner in room "r" with a (ready) guest; replies consumed.
        """
        owner = self.registered("alice")
        guest = self.registered("bob")
        owner.create("r", oct=oct)
        guest.join("r")
        if ready:
            guest.ready()
        owner.raw()
        guest.raw()
        return owner, guest

    def playing(self, oct=wire.CHESS_WHITE):
        """
        An owner and a guest in a started game: (black, white, owner,
        guest).
        """
        owner, guest = self.pair(oct)
        owner.start()
        owner.raw()
        guest.raw()
        if oct == wire.CHESS_BLACK:
            return owner, guest, owner, guest
        return guest, owner, owner, guest
