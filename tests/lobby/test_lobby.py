"""
Tests for L{hub.lobby}.
"""

from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase
from zope.interface import implementer
from zope.interface.verify import verifyObject

from hub import lobby as L
from hub.ihub import ILobby, IRoomObserver, IStartPolicy
from hub.sessions import Sessions


@implementer(IStartPolicy)
class CountPolicy:
    """
    Starts when C{count} members are all ready.
    """

    def __init__(self, count, autoStart):
        self.count = count
        self.autoStart = autoStart

    def canStart(self, room):
        return len(room.members) == self.count and room.allReady

    def newTable(self, room):
        return StubTable(("game", tuple(room.names())))


class StubTable:
    """
    A table that only remembers what the lobby did with it.
    """

    def __init__(self, game):
        self.game = game
        self.listeners = []
        self.hears = []
        self.started = False
        self.stopped = False

    def addListener(self, listener, hears=None):
        self.listeners.append(listener)
        self.hears.append(hears)

    def start(self):
        self.started = True

    def stop(self):
        self.stopped = True


class RecordingObserver(L.RoomObserver):
    """
    Records every event as a tuple, under its owner's name.
    """

    def __init__(self, log, name):
        self.log = log
        self.name = name

    def memberJoined(self, room, actor):
        self.log.append((self.name, "joined", actor.name))

    def memberLeft(self, room, actor, previousOwner):
        self.log.append((self.name, "left", actor.name, previousOwner.name))

    def readyChanged(self, room, actor):
        self.log.append((self.name, "ready", actor.name, actor.ready))

    def roleChanged(self, room, actor):
        self.log.append((self.name, "role", actor.name, actor.role))

    def gameStarted(self, room):
        self.log.append((self.name, "started", room.game,
                         room.table.started))

    def gameEnded(self, room, game):
        self.log.append((self.name, "ended", game))


class LobbyTests(SynchronousTestCase):
    """
    Rooms: membership order, owner, ready flags, seats, passwords,
    capacity, start policies and events.
    """

    def setUp(self):
        self.sessions = Sessions(Clock())
        self.lobby = L.Lobby()
        self.events = []

    def player(self, name, kind="checkers"):
        session = self.sessions.connect(kind, None)
        session.name = name
        return session, RecordingObserver(self.events, name)

    def test_interfaces(self):
        """
        The lobby and the no-op observer provide their interfaces.
        """
        verifyObject(ILobby, self.lobby)
        verifyObject(IRoomObserver, L.RoomObserver())

    def test_createAndJoinOrder(self):
        """
        Members are kept in join order; the creator owns the room; every
        member's observer hears of a join, the joiner's included.
        """
        a, oa = self.player("a")
        b, ob = self.player("b")
        room = self.lobby.createRoom("checkers", "r1", a, oa,
                                     CountPolicy(2, True), 6)
        self.assertIs(self.lobby.join("checkers", "r1", b, ob), room)
        self.assertEqual(room.names(), ["a", "b"])
        self.assertIs(room.owner.session, a)
        self.assertIs(self.lobby.roomOf(b), room)
        self.assertEqual(self.events, [
            ("a", "joined", "a"),
            ("a", "joined", "b"), ("b", "joined", "b")])

    def test_roomsPerKind(self):
        """
        Rooms of different kinds may share a name and are listed apart.
        """
        a, oa = self.player("a")
        b, ob = self.player("b", "gomoku")
        r1 = self.lobby.createRoom("checkers", "x", a, oa, None, 6)
        r2 = self.lobby.createRoom("gomoku", "x", b, ob, None, 2)
        self.assertEqual(self.lobby.rooms("checkers"), [r1])
        self.assertEqual(self.lobby.rooms("gomoku"), [r2])
        self.assertIs(self.lobby.room("gomoku", "x"), r2)

    def test_joinRefusals(self):
        """
        Each refusal has its own exception, checked in the documented
        order.
        """
        a, oa = self.player("a")
        self.lobby.createRoom("checkers", "r", a, oa, CountPolicy(2, False),
                              2, password="pw")
        self.assertRaises(L.AlreadyInRoom, self.lobby.join,
                          "checkers", "r", a, oa)
        self.assertRaises(L.RoomExists, self.lobby.createRoom,
                          "checkers", "r", self.player("z")[0], None,
                          None, 2)
        b, ob = self.player("b")
        self.assertRaises(L.RoomNotFound, self.lobby.join,
                          "checkers", "nope", b, ob)
        a2, oa2 = self.player("a")
        self.assertRaises(L.NameInRoom, self.lobby.join,
                          "checkers", "r", a2, oa2)
        self.assertRaises(L.WrongPassword, self.lobby.join,
                          "checkers", "r", b, ob, password="no")
        self.lobby.join("checkers", "r", b, ob, password="pw")
        c, oc = self.player("c")
        self.assertRaises(L.RoomFull, self.lobby.join, "checkers", "r", c,
                          oc, password="pw")

    def runningRoom(self):
        """
        Room "r" of players a and b, whose auto-starting game is
        running.
        """
        a, oa = self.player("a")
        b, ob = self.player("b")
        room = self.lobby.createRoom("checkers", "r", a, oa,
                                     CountPolicy(2, True), 6)
        self.lobby.join("checkers", "r", b, ob)
        self.lobby.setReady(a, True)
        self.lobby.setReady(b, True)
        return room

    def test_joinRunning(self):
        """
        A running room refuses joins before anything else.
        """
        room = self.runningRoom()
        self.assertTrue(room.running)
        c, oc = self.player("c")
        self.assertRaises(L.RoomRunning, self.lobby.join,
                          "checkers", "r", c, oc)

    def test_autoStart(self):
        """
        An auto-start policy starts the game right after the ready event
        that allows it, and everybody hears of it.
        """
        a, oa = self.player("a")
        b, ob = self.player("b")
        room = self.lobby.createRoom("checkers", "r", a, oa,
                                     CountPolicy(2, True), 6)
        self.lobby.join("checkers", "r", b, ob)
        del self.events[:]
        self.lobby.setReady(a, True)
        self.assertFalse(room.running)
        self.lobby.setReady(b, True)
        self.assertEqual(room.game, ("game", ("a", "b")))
        self.assertEqual(self.events, [
            ("a", "ready", "a", True), ("b", "ready", "a", True),
            ("a", "ready", "b", True), ("b", "ready", "b", True),
            ("a", "started", room.game, False),
            ("b", "started", room.game, False)])
        self.assertTrue(room.table.started)
        self.assertRaises(L.RoomRunning, self.lobby.setReady, a, False)

    def test_tableListeners(self):
        """
        Every table started after L{Lobby.addTableListener} has the
        listener before it starts; L{Lobby.stopTables} stops the running
        tables.
        """
        listener = object()
        self.lobby.addTableListener(listener)
        a, oa = self.player("a")
        room = self.lobby.createRoom("checkers", "r", a, oa,
                                     CountPolicy(1, True), 6)
        self.lobby.setReady(a, True)
        self.assertEqual(room.table.listeners, [listener])
        self.lobby.stopTables()
        self.assertTrue(room.table.stopped)

    def test_tableListenerOfSomeRooms(self):
        """
        A listener given with C{follows} gets the tables of the rooms
        C{follows} accepts as their game starts, and no other.
        """
        listener, everywhere = object(), object()
        asked = []

        def follows(room):
            asked.append(room.name)
            return room.name == "mine"
        self.lobby.addTableListener(listener, follows=follows)
        self.lobby.addTableListener(everywhere)
        rooms = {}
        for name in ("mine", "other"):
            p, o = self.player(name + "-player")
            rooms[name] = self.lobby.createRoom(
                "checkers", name, p, o, CountPolicy(1, True), 6)
            self.lobby.setReady(p, True)
        self.assertEqual(asked, ["mine", "other"])
        self.assertEqual(rooms["mine"].table.listeners,
                         [listener, everywhere])
        self.assertEqual(rooms["other"].table.listeners, [everywhere])

    def test_tableListenerHears(self):
        """
        A listener given with C{hears} is given to each table with it
        (it hears only those events); one given without, with None.
        """
        some, every = object(), object()
        self.lobby.addTableListener(some, hears=[str, int])
        self.lobby.addTableListener(every)
        a, oa = self.player("a")
        room = self.lobby.createRoom("checkers", "r", a, oa,
                                     CountPolicy(1, True), 6)
        self.lobby.setReady(a, True)
        self.assertEqual(room.table.listeners, [some, every])
        self.assertEqual(room.table.hears, [frozenset([str, int]), None])

    def test_manualStart(self):
        """
        Without auto-start, L{Lobby.start} starts when the policy allows.
        """
        a, oa = self.player("a")
        b, ob = self.player("b")
        room = self.lobby.createRoom("gomoku", "r", a, oa,
                                     CountPolicy(2, False), 2)
        self.lobby.join("gomoku", "r", b, ob)
        self.assertRaises(L.CannotStart, self.lobby.start, room)
        self.lobby.setReady(a, True)
        self.lobby.setReady(b, True)
        self.assertFalse(room.running)
        self.lobby.start(room)
        self.assertTrue(room.running)
        self.assertRaises(L.RoomRunning, self.lobby.start, room)

    def test_endGame(self):
        """
        Ending a game detaches it and makes everyone unready; members stay.
        """
        room = self.runningRoom()
        game = room.game
        del self.events[:]
        self.lobby.endGame(room)
        self.assertIsNone(room.game)
        self.assertEqual([m.ready for m in room.members], [False, False])
        self.assertEqual(self.events, [("a", "ended", game),
                                       ("b", "ended", game)])

    def test_leaveTransfersOwnership(self):
        """
        When the owner leaves, the next member in join order owns the room;
        the remaining members hear of it, the leaver does not.
        """
        a, oa = self.player("a")
        b, ob = self.player("b")
        c, oc = self.player("c")
        room = self.lobby.createRoom("checkers", "r", a, oa, None, 6)
        self.lobby.join("checkers", "r", b, ob)
        self.lobby.join("checkers", "r", c, oc)
        del self.events[:]
        self.assertIs(self.lobby.leave(a), room)
        self.assertIs(room.owner.session, b)
        self.assertEqual(room.names(), ["b", "c"])
        self.assertIsNone(self.lobby.roomOf(a))
        self.assertEqual(self.events, [("b", "left", "a", "a"),
                                       ("c", "left", "a", "a")])

    def test_lastLeaveClosesRoom(self):
        """
        The room closes when its last member leaves, freeing the name.
        """
        a, oa = self.player("a")
        self.lobby.createRoom("checkers", "r", a, oa, None, 6)
        self.lobby.leave(a)
        self.assertEqual(self.lobby.rooms("checkers"), [])
        self.assertIsNone(self.lobby.leave(a))
        self.lobby.createRoom("checkers", "r", a, oa, None, 6)

    def test_dissolve(self):
        """
        Dissolving a room takes everyone out at once.
        """
        a, oa = self.player("a")
        b, ob = self.player("b")
        room = self.lobby.createRoom("checkers", "r", a, oa, None, 6)
        self.lobby.join("checkers", "r", b, ob)
        self.lobby.dissolve(room)
        self.assertIsNone(self.lobby.roomOf(a))
        self.assertIsNone(self.lobby.roomOf(b))
        self.assertEqual(self.lobby.rooms("checkers"), [])

    def test_setRole(self):
        """
        Role data is per member and announced.
        """
        a, oa = self.player("a")
        self.lobby.createRoom("gomoku", "r", a, oa, None, 2, role=16)
        self.assertEqual(self.lobby.memberOf(a).role, 16)
        self.lobby.setRole(a, 1)
        self.assertEqual(self.events[-1], ("a", "role", "a", 1))
        b, _ = self.player("b")
        self.assertRaises(L.NotInRoom, self.lobby.setRole, b, 1)
        self.assertRaises(L.NotInRoom, self.lobby.setReady, b, True)

    def test_brokenObserverDoesNotStopOthers(self):
        """
        An observer that raises is logged; the others still hear the event.
        """
        class Broken(L.RoomObserver):
            def memberJoined(self, room, actor):
                raise RuntimeError("boom")

        a, _ = self.player("a")
        b, ob = self.player("b")
        self.lobby.createRoom("checkers", "r", a, Broken(), None, 6)
        self.lobby.join("checkers", "r", b, ob)
        self.assertEqual(self.events, [("b", "joined", "b")])
        self.assertEqual(len(self.flushLoggedErrors(RuntimeError)), 2)


class OpenRoomTests(SynchronousTestCase):
    """
    L{L.Lobby.openRoom}: an empty room that waits for its players (the
    tournament director's).
    """

    def setUp(self):
        self.sessions = Sessions(Clock())
        self.lobby = L.Lobby()
        self.changed = []
        self.closed = []
        self.lobby.addWatcher(self)

    def roomChanged(self, room):
        self.changed.append(room.name)

    def roomClosed(self, room):
        self.closed.append(room.name)

    def player(self, name):
        session = self.sessions.connect("gomoku", None)
        session.name = name
        return session

    def test_emptyUntilJoined(self):
        """
        The room is listed with no member and no owner, with its
        settings; the first to join owns it; the watchers hear of it.
        """
        room = self.lobby.openRoom("gomoku", "1-1-1", CountPolicy(2, False),
                                   2, settings={"x": 1})
        self.assertEqual((room.members, room.owner, room.settings),
                         ([], None, {"x": 1}))
        self.assertEqual(self.lobby.rooms("gomoku"), [room])
        self.assertEqual(self.changed, ["1-1-1"])
        a = self.player("a")
        self.lobby.join("gomoku", "1-1-1", a, L.RoomObserver())
        self.assertIs(room.owner.session, a)

    def test_closesWhenLeft(self):
        """
        Like any room, it closes when its last member leaves.
        """
        self.lobby.openRoom("gomoku", "r", CountPolicy(2, False), 2)
        a = self.player("a")
        self.lobby.join("gomoku", "r", a, L.RoomObserver())
        self.lobby.leave(a)
        self.assertIsNone(self.lobby.room("gomoku", "r"))
        self.assertEqual(self.closed, ["r"])

    def test_refusals(self):
        """
        A room of that name exists: L{L.RoomExists}; draining:
        L{L.Draining}.
        """
        self.lobby.openRoom("gomoku", "r", CountPolicy(2, False), 2)
        self.assertRaises(L.RoomExists, self.lobby.openRoom, "gomoku", "r",
                          CountPolicy(2, False), 2)
        self.lobby.draining = True
        self.assertRaises(L.Draining, self.lobby.openRoom, "gomoku", "s",
                          CountPolicy(2, False), 2)

    def test_gomokuListing(self):
        """
        A gomoku room opened empty is listed with an empty owner name.
        """
        from hub.protocols.gomoku_players import roomObjectOf
        from hub.tables.gomoku import OWNER_SEAT
        room = self.lobby.openRoom("gomoku", "r", CountPolicy(2, False), 2,
                                   settings={OWNER_SEAT: 0})
        listed = roomObjectOf(room)
        self.assertEqual(listed["name"], "r")
        self.assertEqual(listed["owner"], "")
