"""
Shared fakes for the checkers protocol tests: the shared server harness
with the checkers factory, and clients on its recording transports.
"""

import random

from hub.games import checkers as rules
from hub.protocols.checkers import CheckersFactory
from hub.wire import checkers as wire
from tests.harness import ServerHarness

# 2022-06-28 08:00:00 UTC, the timestamp of the examples of
# docs/protocols/checkers.md, plus a fraction that the server must drop.
START_TIME = 1656403200.75


class Client:
    """
    One fake connection: sends lines, reads what the server wrote.
    """

    def __init__(self, server, protocol, transport):
        self.server = server
        self.protocol = protocol
        self.transport = transport
        self._read = 0

    def sendRaw(self, data):
        """
        Deliver raw bytes to the server.
        """
        self.protocol.dataReceived(data)

    def send(self, op, data1="", data2=""):
        """
        Send one well-formed message.
        """
        self.sendRaw(wire.encode(op, data1, data2))

    def join(self, room, name):
        self.send(wire.JOIN_ROOM_OP, room, name)

    def ready(self, name=""):
        self.send(wire.PLAYER_READY_OP, name)

    def move(self, region, path):
        self.send(wire.MOVE_OP, region, path)

    def leave(self, room="", name=""):
        self.send(wire.LEAVE_ROOM_OP, room, name)

    def rawLines(self):
        """
        The writes since the last read, each checked to be one whole
        message line.
        """
        writes = self.transport.writes[self._read:]
        self._read = len(self.transport.writes)
        for data in writes:
            assert data.endswith(b"\n") and data.count(b"\n") == 1, data
        return writes

    def received(self):
        """
        The messages since the last read, as L{wire.Message}s.
        """
        return [wire.decode(line) for line in self.rawLines()]

    def disconnect(self):
        """
        Drop the connection.
        """
        self.transport.loseConnection()
        self.protocol.connectionLost(None)

    @property
    def closed(self):
        return self.transport.disconnecting


class Server(ServerHarness):
    """
    A checkers factory on the shared L{ServerHarness}, from L{START_TIME}.
    """

    def __init__(self, **kwargs):
        ServerHarness.__init__(self, CheckersFactory, startTime=START_TIME,
                               **kwargs)

    def connect(self):
        """
        A new connected L{Client}.
        """
        protocol, transport = ServerHarness.connect(self)
        return Client(self, protocol, transport)

    def room(self, roomId):
        return self.lobby.room("checkers", roomId)

    def table(self, roomId):
        """
        The running table of C{roomId}, or None.
        """
        room = self.room(roomId)
        return room.table if room is not None else None

    def startGame(self, names, roomId="r1"):
        """
        Connect, join and ready one client per name; return the clients
        with their received messages cleared.
        """
        clients = []
        for name in names:
            client = self.connect()
            client.join(roomId, name)
            clients.append(client)
        for name, client in zip(names, clients):
            client.ready(name)
        for client in clients:
            client.received()
        return clients

    def setPosition(self, roomId, pieces, currentSeat=0):
        """
        Replace the game at the running table of C{roomId} by a
        constructed position (same regions).
        """
        table = self.table(roomId)
        table.game = rules.CheckersGame.fromPosition(
            table.game.regions, pieces, currentSeat)
        return table.game


def message(op, data1="", data2=""):
    """
    The L{wire.Message} a test expects.
    """
    return wire.Message(op, data1, data2)


def errorOf(code):
    """
    Whether a message is ERROR_OP with C{code} (reason ignored).
    """
    def check(m):
        return m.op == wire.ERROR_OP and m.data1 == str(code)
    return check


class Mirror:
    """
    A client-side copy of the game, kept from the messages one client
    receives (as a real client would).
    """

    def __init__(self, names, regions, seed=0):
        self.random = random.Random(seed)
        self.names = names
        self.regions = regions
        self.game = rules.CheckersGame(regions=regions)

    def seatOfRegion(self, region):
        return self.regions.index(region)

    def onMove(self, region, data2):
        seat = self.seatOfRegion(region)
        assert seat == self.game.currentSeat, (region, self.game)
        if data2 == wire.TIMEOUT_PATH:
            self.game.timeout()
        else:
            self.game.apply(seat, wire.parsePath(data2))

    def choose(self, seat):
        """
        A noisy greedy move for C{seat}, or None if it is blocked.
        """
        actions = self.game.legalActions(seat)
        if not actions:
            return None
        tip = rules.TIPS[rules.TARGET[self.regions[seat]]]
        return min(actions, key=lambda p: (
            rules.cellDistance(p[-1], tip) - rules.cellDistance(p[0], tip)
            + 1.5 * self.random.random()))
