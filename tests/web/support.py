"""
What the web's tests share: a hub with its web face on a loopback port,
rooms whose tables are L{FakeTable}s, and HTTP helpers that read bounded.
"""

import json

from twisted.internet import defer, protocol, reactor
from twisted.internet.address import IPv4Address
from twisted.internet.endpoints import TCP4ClientEndpoint
from twisted.internet.testing import StringTransport
from twisted.web.client import Agent, readBody
from zope.interface import implementer

from hub.ihub import IPeer
from hub.lobby import RoomObserver
from hub.service import Hub
from hub.tables.gomoku import GomokuStartPolicy
from hub.web.site import webSite
from tests.web.fakes import FakeTable
from tests.web.playsupport import playGames

TIMEOUT = 10


class FakePolicy:
    """
    A start policy that starts when asked, on a L{FakeTable}.
    """

    autoStart = False

    def __init__(self, clock, seed=1):
        self.clock = clock
        self.seed = seed

    def canStart(self, room):
        return len(room.members) >= 2

    def newTable(self, room):
        for index, member in enumerate(room.members):
            member.seat = index
        return FakeTable(room.kind, room.name, room.names(), self.clock,
                         self.seed)


@implementer(IPeer)
class Peer:
    """
    The adapter side of a fake session: from C{host}, a live connection on
    a L{StringTransport}; without one, no connection.
    """

    def __init__(self, host=None):
        self.transport = None if host is None else StringTransport(
            peerAddress=IPv4Address("TCP", host, 4000))

    def peerAddress(self):
        return None if self.transport is None else \
            self.transport.getPeer().host

    def connectionOpen(self):
        return self.transport is not None and \
            not self.transport.disconnecting

    def closeConnection(self):
        if self.transport is not None:
            self.transport.loseConnection()


def openRoom(hub, kind, name, players, password="", ready=True):
    """
    A room of C{kind} with C{players} in it (ready unless asked not).
    """
    sessions = []
    room = None
    for player in players:
        session = hub.sessions.connect(kind, Peer())
        hub.sessions.claimName(session, player)
        sessions.append(session)
        if room is None:
            room = hub.lobby.createRoom(kind, name, session, RoomObserver(),
                                        FakePolicy(hub.clock), 6, password)
        else:
            hub.lobby.join(kind, name, session, RoomObserver(),
                           password=password)
        if ready:
            hub.lobby.setReady(session, True)
    return room, sessions


def startGuestGame(hub):
    """
    Start, in C{hub}'s lobby, a gomoku game in the room C{den} between
    C{ann} (its owner) and the guest C{bob}, both legacy connections.

    @return: the room.
    """
    ann = hub.sessions.connect("gomoku", Peer())
    hub.sessions.claimName(ann, "ann")
    bob = hub.sessions.connect("gomoku", Peer())
    hub.sessions.claimName(bob, "bob")
    bob.guest = True
    room = hub.lobby.createRoom("gomoku", "den", ann, RoomObserver(),
                                GomokuStartPolicy(hub.clock), 2)
    hub.lobby.join("gomoku", "den", bob, RoomObserver())
    hub.lobby.setReady(bob, True)
    hub.lobby.start(room)
    return room


def afterCalls(testCase, obj, name, count=1):
    """
    Wait, at most L{TIMEOUT} seconds, for C{count} calls of C{obj}'s
    method C{name} (wrapped for the rest of the test): an event, no
    polling.

    @return: a Deferred that fires a reactor turn after the C{count}th
        call returned (once its caller, a C{connectionLost}, has too).
    """
    method = getattr(obj, name)
    calls = []
    done = defer.Deferred()

    def counted(*args, **kwargs):
        result = method(*args, **kwargs)
        calls.append(None)
        if len(calls) == count:
            reactor.callLater(0, done.callback, None)
        return result
    testCase.patch(obj, name, counted)
    return done.addTimeout(TIMEOUT, reactor)


class WebHub:
    """
    A hub and its web face listening on a loopback port, stopped at the
    test's cleanup.

    @param hub: the hub (default: a new one, on C{clock}).
    @param clock: the new hub's clock (the site's idle timeouts and the
        feeds' timers run on it); the reactor by default.
    """

    def __init__(self, testCase, records=None, limits=None, hub=None,
                 auth=None, clock=None, factories=None, director=None,
                 door=None):
        if hub is None:
            hub = Hub(reactor if clock is None else clock)
        self.hub = hub
        self.site, self.service = webSite(self.hub, records, limits=limits,
                                          auth=auth,
                                          games=(None if factories is None
                                                 else playGames(factories)),
                                          director=director, door=door)
        self.web = self.site.web
        self.hub.startService()
        self.service.startService()
        self.port = reactor.listenTCP(0, self.site, interface="127.0.0.1")
        testCase.addCleanup(self.stop)
        self.agent = Agent(reactor)

    def stop(self):
        d = defer.maybeDeferred(self.service.stopService)
        d.addCallback(lambda _: self.port.stopListening())
        d.addCallback(lambda _: self.hub.stopService())
        return d

    def url(self, path):
        return "http://127.0.0.1:%d%s" % (self.port.getHost().port, path)

    @defer.inlineCallbacks
    def get(self, path):
        """
        GET C{path}: C{(code, headers, body)}.
        """
        response = yield self.agent.request(b"GET", self.url(path).encode())
        body = yield readBody(response)
        return (response.code, response.headers, body)

    @defer.inlineCallbacks
    def getJSON(self, path):
        code, headers, body = yield self.get(path)
        return (code, json.loads(body))

    def stream(self, path, testCase, headers=b""):
        """
        Open a raw event stream: a L{StreamClient} once connected.

        @param headers: more request header lines, each ending in CRLF.
        """
        endpoint = TCP4ClientEndpoint(reactor, "127.0.0.1",
                                      self.port.getHost().port)
        d = endpoint.connect(StreamFactory(path, headers))

        def connected(client):
            testCase.addCleanup(client.transport.abortConnection)
            return client
        return d.addCallback(connected)


class StreamClient(protocol.Protocol):
    """
    Reads a Server-Sent Events response, raw; tells waiters of each
    message.
    """

    def __init__(self, path, headers=b""):
        self.path = path
        self.headers = headers
        self.buffer = b""
        self.messages = []
        self.waiters = []
        self.closed = defer.Deferred()

    def connectionMade(self):
        self.transport.write(
            b"GET " + self.path.encode() + b" HTTP/1.0\r\n"
            b"Host: 127.0.0.1\r\nAccept: text/event-stream\r\n" +
            self.headers + b"\r\n")

    def dataReceived(self, data):
        self.buffer += data
        while b"\n\n" in self.buffer:
            block, self.buffer = self.buffer.split(b"\n\n", 1)
            fields = {}
            for line in block.split(b"\n"):
                if line.startswith(b"event: "):
                    fields["event"] = line[7:].decode()
                elif line.startswith(b"data: "):
                    fields["data"] = json.loads(line[6:])
            if "event" in fields:
                self.messages.append((fields["event"], fields.get("data")))
                self._check()

    def _check(self):
        for waiter in list(self.waiters):
            event, count, d = waiter
            seen = [m for m in self.messages if m[0] == event]
            if len(seen) >= count:
                self.waiters.remove(waiter)
                d.callback(seen[count - 1][1])

    def waitFor(self, event, count=1):
        """
        A Deferred of the data of the C{count}th message C{event}.
        """
        d = defer.Deferred()
        self.waiters.append((event, count, d))
        self._check()
        return d.addTimeout(TIMEOUT, reactor)

    def connectionLost(self, reason):
        self.closed.callback(None)


class StreamFactory(protocol.Factory):
    def __init__(self, path, headers=b""):
        self.path = path
        self.headers = headers

    def buildProtocol(self, addr):
        return StreamClient(self.path, self.headers)
