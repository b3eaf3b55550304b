"""
The gate and the routes of each protocol on in-memory transports, over a
directory and node links faked in memory: what is served here, answered
from the directory, refused, or forwarded (with its preface), and the gate
stepping out of the data path while a room plays.
"""

import json

from twisted.internet import defer
from twisted.internet.address import IPv4Address
from twisted.internet.task import Clock
from twisted.trial.unittest import TestCase
from zope.interface.verify import verifyObject

from hub.cluster.directory import DirectoryUnavailable
from hub.cluster.gate import GatedFactory, GateKeeper
from hub.cluster.link import LinkClient, LinkServerFactory
from hub.cluster.routes import CheckersRoute, GomokuRoute, SplendorRoute
from hub.cluster.service import ClusterService
from hub.ihub import IClusterPeer, IClusterRoomList
from hub.protocols.checkers import CheckersFactory
from hub.protocols.gomoku import GomokuFactory
from hub.protocols.splendor import SplendorFactory
from hub.service import Hub
from hub.wire import checkers as checkersWire
from hub.wire import gomoku as wire
from hub.wire import splendor as splendorWire
from tests.harness import RecordingTransport, ServerHarness

HERE = "here"
THERE = "there"


class FakeDirectory:
    """
    The directory's calls a route makes, answered from memory.

    @ivar owners: C{{("name" or "room", kind, name): node}}.
    @ivar failing: when True, every call fails as if Redis were down.
    """

    node = HERE

    def __init__(self):
        self.owners = {}
        self.failing = False
        self.rooms = []
        self.seated = None
        self.handedOver = []
        self.expected = []
        self.failures = 0

    def countFailure(self):
        self.failures += 1

    def answer(self, value):
        if self.failing:
            return defer.fail(DirectoryUnavailable("down"))
        return defer.succeed(value)

    def claimName(self, kind, name):
        return self.answer(self.owners.setdefault(("name", kind, name),
                                                  self.node))

    def releaseName(self, kind, name):
        self.owners.pop(("name", kind, name), None)

    def claimRoom(self, kind, name):
        return self.answer(self.owners.setdefault(("room", kind, name),
                                                  self.node))

    def releaseRoom(self, kind, name):
        self.owners.pop(("room", kind, name), None)

    def lookupRoom(self, kind, name):
        return self.answer(self.owners.get(("room", kind, name)))

    def listRooms(self, kind):
        return self.answer(self.rooms)

    def seat(self, kind, capacity):
        return self.answer(self.seated)

    def handOverName(self, kind, name):
        self.handedOver.append(name)

    def expectName(self, kind, name):
        self.expected.append(name)


class FakeCluster:
    """
    A cluster node whose links are opened by the test.

    @ivar links: C{[(node, gate, Deferred)]} of every link asked for.
    """

    def __init__(self):
        self.directory = FakeDirectory()
        self.links = []
        self.forwarded = 0
        self.served = 0
        self.gatedFactories = {}

    def countForwarded(self):
        self.forwarded += 1

    def countServed(self):
        self.served += 1

    def connectLink(self, node, gate):
        d = defer.Deferred()
        self.links.append((node, gate, d))
        return d


class GateHarness:
    """
    One protocol's factory behind gates, over a fresh hub and a
    L{FakeCluster}; its lobby steps gates out as a node's does.
    """

    def __init__(self, testCase, factoryClass, routeClass):
        self.server = ServerHarness(factoryClass)
        testCase.addCleanup(self.server.stop)
        self.server.lobby.addWatcher(GateKeeper())
        self.cluster = FakeCluster()
        self.directory = self.cluster.directory
        self.factory = GatedFactory(self.cluster, self.server.factory,
                                    routeClass)
        self.cluster.gatedFactories[routeClass.kind] = self.factory
        self.port = 41000

    def connect(self):
        """
        A gate on a transport that reads into it, as TCP's does.

        @return: C{(gate, transport)}.
        """
        self.port += 1
        gate = self.factory.buildProtocol(
            IPv4Address("TCP", "127.0.0.1", self.port))
        transport = RecordingTransport()
        transport.protocol = gate
        gate.makeConnection(transport)
        return gate, transport

    def linkIn(self, preface):
        """
        A link from another node, as the home node's link listener
        serves it, sent C{preface}.

        @return: C{(linkServer, transport)}.
        """
        self.port += 1
        server = LinkServerFactory(self.cluster).buildProtocol(
            IPv4Address("TCP", "127.0.0.1", self.port))
        transport = RecordingTransport()
        transport.protocol = server
        server.makeConnection(transport)
        server.dataReceived(json.dumps(preface).encode() + b"\n")
        return server, transport

    def link(self, index=-1):
        """
        Open the link asked for: its L{LinkClient} and its transport.
        """
        node, gate, d = self.cluster.links[index]
        relay = LinkClient(gate)
        transport = RecordingTransport()
        relay.makeConnection(transport)
        d.callback(relay)
        return relay, transport


def frames(transport):
    """
    The gomoku messages written to C{transport} so far, and clear it.
    """
    scanner = wire.FrameScanner()
    messages = [wire.decodeMessage(f) for f in scanner.feed(
        transport.value())]
    transport.clear()
    return messages


def receive(transport, message):
    """
    Deliver a gomoku C{message} as the transport would: to its protocol.
    """
    transport.protocol.dataReceived(wire.encodeMessage(message))


class GomokuRouteTests(TestCase):
    """
    Gomoku: names, the room list, rooms, resuming, stepping out.
    """

    def setUp(self):
        self.harness = GateHarness(self, GomokuFactory, GomokuRoute)
        self.directory = self.harness.directory

    def register(self, name, token=wire.INVALID_TOKEN):
        gate, transport = self.harness.connect()
        receive(transport, wire.regMessage(name, 1, token))
        return gate, transport, frames(transport)

    def test_nameClaimed(self):
        """
        A new name is claimed in the directory for this node, then the
        adapter registers it.
        """
        gate, transport, [reply] = self.register("ann")
        self.assertEqual(reply["status"], wire.S_OK)
        self.assertEqual(self.directory.owners[("name", "gomoku", "ann")],
                         HERE)
        self.assertIsNotNone(
            self.harness.server.sessions.byName("gomoku", "ann"))

    def test_nameHeldElsewhere(self):
        """
        A name another node holds is refused, as a name taken here is.
        """
        self.directory.owners[("name", "gomoku", "bob")] = THERE
        gate, transport, [reply] = self.register("bob")
        self.assertEqual(reply["status"], wire.S_PLAYER_EXISTS)
        self.assertIsNone(
            self.harness.server.sessions.byName("gomoku", "bob"))

    def test_directoryDown(self):
        """
        Without the directory a new name gets the protocol's error reply.
        """
        self.directory.failing = True
        gate, transport, [reply] = self.register("cid")
        self.assertEqual(reply["status"], wire.S_ERROR)
        self.assertFalse(transport.disconnecting)

    def test_resumeForwarded(self):
        """
        A msg_reg with a token for a name held elsewhere is forwarded: the
        link's preface carries the kind and the msg_reg itself; the bytes
        then flow both ways unchanged, and the adapter here is done.
        """
        self.directory.owners[("name", "gomoku", "dan")] = THERE
        gate, transport = self.harness.connect()
        request = wire.encodeMessage(wire.regMessage("dan", 1, 1234))
        gate.dataReceived(request)
        self.assertEqual(transport.value(), b"")
        self.assertTrue(transport.producerState == "paused")
        [(node, _, _)] = self.harness.cluster.links
        self.assertEqual(node, THERE)
        relay, linkTransport = self.harness.link()
        line, rest = linkTransport.value().split(b"\n", 1)
        preface = json.loads(line)
        self.assertEqual(preface["kind"], "gomoku")
        self.assertEqual(preface["data"].encode("latin-1"), request)
        self.assertEqual(rest, b"")
        self.assertEqual(self.harness.cluster.forwarded, 1)
        gate.dataReceived(b"<later>")
        self.assertTrue(linkTransport.value().endswith(b"<later>"))
        relay.dataReceived(b"<from home>")
        self.assertEqual(transport.value(), b"<from home>")
        self.assertIsNone(gate.inner.session.peer)

    def test_forwardedWhileBacklogged(self):
        """
        A connection whose writer holds the transport's producer slot
        (its peer was slow to read) is handed over all the same: the
        relay takes the slot through the transport's control.
        """
        self.directory.owners[("name", "gomoku", "dan")] = THERE
        gate, transport = self.harness.connect()
        writer = gate.inner.writer
        gate.control.registerProducer(writer, False)
        writer.buffered = True
        gate.dataReceived(wire.encodeMessage(wire.regMessage("dan", 1, 1234)))
        relay, linkTransport = self.harness.link()
        self.assertIsNotNone(gate.relay)
        self.assertIsNot(transport.producer, writer)
        self.assertTrue(transport.streaming)
        self.assertEqual(transport.producerState, "producing")
        # The link's full buffer pauses reading from the player.
        linkTransport.producer.pauseProducing()
        self.assertEqual(transport.producerState, "paused")
        linkTransport.producer.resumeProducing()
        self.assertEqual(transport.producerState, "producing")

    def test_joinForwarded(self):
        """
        Joining a room homed elsewhere forwards the connection with the
        player's name, token and id; the name is handed over, not
        released.
        """
        gate, transport, [reply] = self.register("eve")
        self.directory.owners[("room", "gomoku", "far")] = THERE
        session = gate.inner.session
        receive(transport, wire.roomOpMessage(wire.RO_ROOM_JOIN, "far", "",
                                              2, token=reply["token"]))
        relay, linkTransport = self.harness.link()
        preface = json.loads(linkTransport.value().split(b"\n", 1)[0])
        self.assertEqual((preface["name"], preface["token"],
                          preface["player"]),
                         ("eve", session.token, session.id))
        self.assertEqual(self.directory.handedOver, ["eve"])

    def test_unreachableNode(self):
        """
        A room whose node cannot be reached gets the error reply; the
        connection stays, served here.
        """
        gate, transport, [reply] = self.register("fay")
        self.directory.owners[("room", "gomoku", "gone")] = THERE
        receive(transport, wire.roomOpMessage(wire.RO_ROOM_JOIN, "gone", "",
                                              2, token=reply["token"]))
        self.harness.cluster.links[0][2].errback(LookupError("not alive"))
        [answer] = frames(transport)
        self.assertEqual(answer["status"], wire.S_ERROR)
        self.assertEqual(transport.producerState, "producing")

    def test_roomListFromDirectory(self):
        """
        The room list is the directory's, the rooms of every node.
        """
        gate, transport, [reply] = self.register("gus")
        room = wire.roomObject("r9", "x", "", 1, 0, 0)
        self.directory.rooms = [{"n": 1, "info": room}]
        receive(transport, wire.requestMessage(wire.REQ_ROOM_LIST, 2,
                                               token=reply["token"]))
        [listing] = frames(transport)
        self.assertEqual([r["name"] for r in listing["rooms"]], ["r9"])

    def test_roomNameTakenElsewhere(self):
        """
        Creating a room whose name another node homes is refused.
        """
        gate, transport, [reply] = self.register("hal")
        self.directory.owners[("room", "gomoku", "dup")] = THERE
        receive(transport, wire.roomOpMessage(
            wire.RO_ROOM_CREATE, "dup", "", 2, token=reply["token"]))
        [answer] = frames(transport)
        self.assertEqual(answer["status"], wire.S_ROOM_EXISTS)

    def test_stepsOutWhilePlaying(self):
        """
        While their room plays, both players' transports read straight
        into the adapters; when the game ends the gates are back.
        """
        owner, ownerT, [ownerReply] = self.register("ida")
        guest, guestT, [guestReply] = self.register("jon")
        receive(ownerT, wire.roomOpMessage(wire.RO_ROOM_CREATE, "rp", "", 2,
                                           token=ownerReply["token"]))
        receive(guestT, wire.roomOpMessage(wire.RO_ROOM_JOIN, "rp", "", 2,
                                           token=guestReply["token"]))
        receive(guestT, wire.stateMessage(wire.PLAYER_STATE_READY, 3,
                                          guestReply["token"]))
        self.assertIs(ownerT.protocol, owner)
        receive(ownerT, wire.requestMessage(wire.REQ_GAME_START, 3,
                                            token=ownerReply["token"]))
        self.assertIs(ownerT.protocol, owner.inner)
        self.assertIs(guestT.protocol, guest.inner)
        # The guest (black) makes five in a row.
        for i in range(5):
            receive(guestT, wire.moveMessage(
                wire.CHESS_BLANK, i, 0, guestReply["token"], 10 + i))
            if i < 4:
                receive(ownerT, wire.moveMessage(
                    wire.CHESS_BLANK, i, 1, ownerReply["token"], 10 + i))
        self.assertIs(ownerT.protocol, owner)
        self.assertIs(guestT.protocol, guest)
        ended = [m for m in frames(guestT) if "ex" in m]
        self.assertEqual(len(ended), 2)

    def test_linkStepsOutWhilePlaying(self):
        """
        On the home node, a player relayed by another node's link has the
        link's transport read straight into the adapter while the room
        plays, and into the link server again once the game ends.
        """
        owner, ownerT, [ownerReply] = self.register("ned")
        link, linkT = self.harness.linkIn({
            "kind": "gomoku",
            "data": wire.encodeMessage(wire.regMessage("oli", 1)).decode(
                "latin-1")})
        guest = link.gate
        [guestReply] = frames(linkT)
        self.assertEqual(guestReply["status"], wire.S_OK)
        receive(ownerT, wire.roomOpMessage(wire.RO_ROOM_CREATE, "rk", "", 2,
                                           token=ownerReply["token"]))
        receive(linkT, wire.roomOpMessage(wire.RO_ROOM_JOIN, "rk", "", 2,
                                          token=guestReply["token"]))
        receive(linkT, wire.stateMessage(wire.PLAYER_STATE_READY, 3,
                                         guestReply["token"]))
        receive(ownerT, wire.requestMessage(wire.REQ_GAME_START, 3,
                                            token=ownerReply["token"]))
        self.assertIs(linkT.protocol, guest.inner)
        for i in range(5):
            receive(linkT, wire.moveMessage(
                wire.CHESS_BLANK, i, 0, guestReply["token"], 10 + i))
            if i < 4:
                receive(ownerT, wire.moveMessage(
                    wire.CHESS_BLANK, i, 1, ownerReply["token"], 10 + i))
        self.assertIs(linkT.protocol, link)
        self.assertEqual(len([m for m in frames(linkT) if "ex" in m]), 2)

    def test_leaverStepsIn(self):
        """
        A player who leaves a running room has the gate back (their next
        join may be another node's), while the others' stay out.
        """
        owner, ownerT, [ownerReply] = self.register("kim")
        guest, guestT, [guestReply] = self.register("lou")
        receive(ownerT, wire.roomOpMessage(wire.RO_ROOM_CREATE, "rl", "", 2,
                                           token=ownerReply["token"]))
        receive(guestT, wire.roomOpMessage(wire.RO_ROOM_JOIN, "rl", "", 2,
                                           token=guestReply["token"]))
        room = self.harness.server.lobby.room("gomoku", "rl")
        room.table = object()
        self.harness.server.lobby._notify(room, "readyChanged",
                                          room.members[0])
        self.assertIs(guestT.protocol, guest.inner)
        self.harness.server.lobby.leave(guest.inner.session)
        self.assertIs(guestT.protocol, guest)
        self.assertIs(ownerT.protocol, owner.inner)
        room.table = None
        self.harness.server.lobby.leave(owner.inner.session)
        self.assertIs(ownerT.protocol, owner)

    def test_noStepOutWithBytesWaiting(self):
        """
        A gate holding bytes that wait for the directory stays in the
        data path.
        """
        gate, transport = self.harness.connect()
        self.directory.answer = lambda value: defer.Deferred()
        gate.dataReceived(wire.encodeMessage(wire.regMessage("max", 1)))
        gate.dataReceived(b"<more")
        self.assertFalse(gate.stepOut())
        self.assertIs(transport.protocol, gate)


class CheckersRouteTests(TestCase):
    """
    Checkers: a JOIN of a room homed elsewhere is forwarded.
    """

    def setUp(self):
        self.harness = GateHarness(self, CheckersFactory, CheckersRoute)
        self.directory = self.harness.directory

    def test_joinHere(self):
        """
        A JOIN of a new room claims it for this node; the adapter joins.
        """
        gate, transport = self.harness.connect()
        gate.dataReceived(checkersWire.encode(checkersWire.JOIN_ROOM_OP,
                                              "r1", "ann"))
        self.assertEqual(
            self.directory.owners[("room", "checkers", "r1")], HERE)
        self.assertIsNotNone(
            self.harness.server.lobby.roomOf(gate.inner.session))

    def test_joinForwarded(self):
        """
        A JOIN of a room another node homes is forwarded with the line.
        """
        self.directory.owners[("room", "checkers", "r2")] = THERE
        gate, transport = self.harness.connect()
        line = checkersWire.encode(checkersWire.JOIN_ROOM_OP, "r2", "bob")
        gate.dataReceived(line)
        relay, linkTransport = self.harness.link()
        preface = json.loads(linkTransport.value().split(b"\n", 1)[0])
        self.assertEqual(preface["kind"], "checkers")
        self.assertEqual(preface["data"].encode("latin-1"), line)

    def test_directoryDown(self):
        """
        Without the directory a JOIN gets an error line.
        """
        self.directory.failing = True
        gate, transport = self.harness.connect()
        gate.dataReceived(checkersWire.encode(checkersWire.JOIN_ROOM_OP,
                                              "r3", "cid"))
        self.assertIn(b"the room directory is unavailable",
                      transport.value())
        self.assertIsNone(
            self.harness.server.lobby.roomOf(gate.inner.session))


class AdoptTests(TestCase):
    """
    The home node adopts a forwarded player through the adapter's
    L{hub.ihub.IClusterPeer}.
    """

    def setUp(self):
        self.harness = GateHarness(self, GomokuFactory, GomokuRoute)
        self.directory = self.harness.directory

    def linkIn(self, name, token):
        return self.harness.linkIn({"kind": "gomoku", "name": name,
                                    "token": token, "player": 5,
                                    "data": ""})

    def test_adopted(self):
        """
        A gomoku player forwarded with its name and token is registered
        here, its name expected from the other node.
        """
        link, transport = self.linkIn("pia", "77")
        session = link.gate.inner.session
        self.assertEqual((session.name, session.token), ("pia", 77))
        self.assertIs(self.harness.server.sessions.byName("gomoku", "pia"),
                      session)
        self.assertEqual(self.directory.expected, ["pia"])
        self.assertFalse(transport.disconnecting)

    def test_nameHeldHere(self):
        """
        A name a session here holds cannot be adopted: the link closes.
        """
        gate, transport = self.harness.connect()
        receive(transport, wire.regMessage("pia", 1))
        link, linkTransport = self.linkIn("pia", "77")
        self.assertIsNone(link.gate)
        self.assertTrue(linkTransport.disconnecting)

    def test_failureLogged(self):
        """
        A preface the adapter cannot take (a token that is no number) is
        logged with its failure, not dropped silently, and the link
        closes.
        """
        link, transport = self.linkIn("quin", "not a token")
        self.assertEqual(len(self.flushLoggedErrors(ValueError)), 1)
        self.assertIsNone(link.gate)
        self.assertTrue(transport.disconnecting)


class ClusterPeerTests(TestCase):
    """
    What the routes ask of an adapter, they ask through
    L{hub.ihub.IClusterPeer}: never its states.
    """

    def test_everyAdapterProvides(self):
        """
        The three adapters' connections provide every method of
        L{IClusterPeer}.
        """
        for factoryClass, routeClass in [(GomokuFactory, GomokuRoute),
                                         (CheckersFactory, CheckersRoute),
                                         (SplendorFactory, SplendorRoute)]:
            gate, _ = GateHarness(self, factoryClass,
                                  routeClass).connect()
            self.assertTrue(verifyObject(IClusterPeer, gate.inner))

    def test_gomokuPhases(self):
        """
        A gomoku player is routable before and after its C{msg_reg} and
        until it takes a room; registered past its C{msg_reg}; its name
        is handed over while it is outside a room only.
        """
        harness = GateHarness(self, GomokuFactory, GomokuRoute)
        gate, transport = harness.connect()
        peer = IClusterPeer(gate.inner)
        self.assertEqual((peer.routable(), peer.registered(),
                          peer.handOverName()), (True, False, None))
        receive(transport, wire.regMessage("pia", 1))
        [reply] = frames(transport)
        self.assertEqual((peer.routable(), peer.registered(),
                          peer.handOverName()), (True, True, "pia"))
        receive(transport, wire.roomOpMessage(
            wire.RO_ROOM_CREATE, "rq", "", 2, token=reply["token"]))
        self.assertEqual((peer.routable(), peer.registered(),
                          peer.handOverName()), (False, True, None))

    def test_roomListFromFactory(self):
        """
        The cluster publishes a gomoku room with what the factory's
        L{IClusterRoomList} shows of it, and a checkers room with its
        summary (the browsers' lobby lists it); Splendor, whose tables
        have no name a player picks, has no summary.
        """
        hub = Hub(Clock())
        cluster = ClusterService(Clock(), hub, None, "n1", "tcp:0")
        gomoku = GomokuFactory(hub.lobby, hub.sessions, hub.clock)
        checkers = CheckersFactory(hub.lobby, hub.sessions, hub.clock)
        cluster.gate("gomoku", gomoku)
        cluster.gate("checkers", checkers)
        summaries = cluster.directory.summaries
        self.assertEqual(sorted(summaries), ["checkers", "gomoku"])
        self.assertTrue(IClusterRoomList.providedBy(gomoku))
        self.assertEqual(summaries["gomoku"], gomoku.roomSummary)
        self.assertEqual(summaries["checkers"], checkers.roomSummary)

    def test_routesImportNoAdapter(self):
        """
        L{hub.cluster.routes} imports no protocol adapter.
        """
        import ast
        import hub.cluster.routes
        with open(hub.cluster.routes.__file__, encoding="utf-8") as f:
            tree = ast.parse(f.read())
        imported = [node.module for node in ast.walk(tree)
                    if isinstance(node, ast.ImportFrom)]
        imported += [alias.name for node in ast.walk(tree)
                     if isinstance(node, ast.Import)
                     for alias in node.names]
        self.assertEqual(
            [name for name in imported if name.startswith("hub.protocols")],
            [])


class GateFailureTests(TestCase):
    """
    A failure while the gate waits for the cluster is logged, never lost,
    and the connection is read again.
    """

    def setUp(self):
        self.harness = GateHarness(self, CheckersFactory, CheckersRoute)
        self.directory = self.harness.directory

    def join(self, gate, room, name):
        gate.dataReceived(checkersWire.encode(checkersWire.JOIN_ROOM_OP,
                                              room, name))

    def assertReadAgain(self, gate, transport):
        self.assertEqual(len(self.flushLoggedErrors(RuntimeError)), 1)
        self.assertEqual(transport.producerState, "producing")
        self.assertFalse(gate.waiting)
        self.assertFalse(gate.control.readingPaused())

    def test_decisionFails(self):
        """
        A route's decision that fails is logged, the message goes to the
        adapter (as a node alone would handle it) and reading resumes.
        """
        gate, transport = self.harness.connect()
        gate.route.decide = lambda message: defer.fail(
            RuntimeError("routing broke"))
        self.join(gate, "r1", "ann")
        self.assertReadAgain(gate, transport)
        self.assertIsNotNone(
            self.harness.server.lobby.roomOf(gate.inner.session))

    def test_actingOnDecisionFails(self):
        """
        What runs after a decision (here the route's C{after}) failing is
        logged, not lost, and the gate goes on handing the adapter what
        follows.
        """
        gate, transport = self.harness.connect()

        def broken(roomId):
            raise RuntimeError("after broke")
        gate.route._unused = broken
        line = checkersWire.encode(checkersWire.JOIN_ROOM_OP, "r1", "ann")
        gate.dataReceived(line + checkersWire.encode(
            checkersWire.PLAYER_READY_OP))
        self.assertReadAgain(gate, transport)
        [member] = self.harness.server.lobby.roomOf(
            gate.inner.session).members
        self.assertTrue(member.ready)

    def test_connectingFails(self):
        """
        Opening the link raising at once is logged and the connection is
        read again, served here.
        """
        self.directory.owners[("room", "checkers", "r2")] = THERE
        gate, transport = self.harness.connect()

        def connectLink(node, gate):
            raise RuntimeError("no links today")
        self.harness.cluster.connectLink = connectLink
        self.join(gate, "r2", "bob")
        self.assertReadAgain(gate, transport)

    def test_handOverFails(self):
        """
        A failure while handing over to a reached node (gate.py's
        C{connected}) is logged and the connection read again.
        """
        self.directory.owners[("room", "checkers", "r2")] = THERE
        gate, transport = self.harness.connect()

        def handingOver(message):
            raise RuntimeError("hand-over broke")
        gate.route.handingOver = handingOver
        self.join(gate, "r2", "bob")
        self.harness.link()
        self.assertReadAgain(gate, transport)
        self.assertIsNone(gate.relay)


class SplendorRouteTests(TestCase):
    """
    Splendor: INIT seats at the cluster's newest open table.
    """

    def setUp(self):
        self.harness = GateHarness(self, SplendorFactory, SplendorRoute)
        self.directory = self.harness.directory

    def test_seatedElsewhere(self):
        """
        An INIT seated at a table homed elsewhere is forwarded with the
        table's name in the preface.
        """
        self.directory.seated = ("table-there-1", THERE)
        gate, transport = self.harness.connect()
        frame = splendorWire.packClientFrame(splendorWire.INIT, 0)
        gate.dataReceived(frame)
        relay, linkTransport = self.harness.link()
        preface = json.loads(linkTransport.value().split(b"\n", 1)[0])
        self.assertEqual((preface["kind"], preface["table"]),
                         ("splendor", "table-there-1"))
        self.assertEqual(preface["data"].encode("latin-1"), frame)

    def test_seatedHere(self):
        """
        An INIT seated at a table of this node sits there.
        """
        lobby = self.harness.server.lobby
        first, _ = self.harness.connect()
        first.dataReceived(splendorWire.packClientFrame(splendorWire.INIT, 0))
        table = lobby.roomOf(first.inner.session)
        self.directory.seated = (table.name, HERE)
        gate, transport = self.harness.connect()
        gate.dataReceived(splendorWire.packClientFrame(splendorWire.INIT, 0))
        self.assertIs(lobby.roomOf(gate.inner.session), table)
        self.assertEqual(self.harness.cluster.links, [])

    def test_directoryDown(self):
        """
        Without the directory the player is seated here.
        """
        self.directory.failing = True
        gate, transport = self.harness.connect()
        gate.dataReceived(splendorWire.packClientFrame(splendorWire.INIT, 0))
        self.assertEqual(self.harness.cluster.links, [])
        self.assertIsNotNone(
            self.harness.server.lobby.roomOf(gate.inner.session))
