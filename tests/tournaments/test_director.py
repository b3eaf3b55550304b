"""
The tournament director (L{hub.tournaments.director}) on a real lobby,
real gomoku tables and a real database (SQLite, PostgreSQL), with its
clock a L{Clock}: pairings open rooms named C{EVENT-ROUND-BOARD}, table
results become points, no-shows and failed engines forfeit, pause holds
the next round, and a restarted director replays cut-off games.
"""

import itertools

from twisted.internet import defer
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase, TestCase
from zope.interface import implementer
from zope.interface.verify import verifyObject

from hub.lobby import Lobby, RoomObserver
from hub.sessions import Session
from hub.tables import events
from hub.tables.base import TableOptions
from hub.tables.checkers import CheckersStartPolicy
from hub.tables.gomoku import GomokuStartPolicy
from hub.tournaments import catalog, store
from hub.tournaments.director import START_GRACE, Director
from hub.tournaments.interfaces import EngineFailed, IGameLauncher
from hub.tournaments.standings import standings

from tests.records import support

SHOW = 60.0


@implementer(IGameLauncher)
class FakeLauncher:
    """
    An L{IGameLauncher} that records its calls; engines named in
    C{failing} fail to start.
    """

    def __init__(self, failing=(), problem=None):
        self.failing = set(failing)
        self.sessions = {}
        self.launched = []
        self.stopped = []
        self.ended = []
        self.eventsStopped = []
        self.trouble = problem

    def problem(self):
        return self.trouble

    def launch(self, event, pairing, entrants):
        self.launched.append((event, pairing, tuple(entrants)))
        for entrant in entrants:
            if entrant.name in self.failing:
                return defer.fail(EngineFailed(entrant.name, "exit 1"))
        return defer.succeed(None)

    def stop(self, pairing, ended=False):
        self.stopped.append(pairing)
        if ended:
            self.ended.append(pairing)

    def entrantOf(self, room, playerId):
        return self.sessions.get(playerId)

    def stopEvent(self, event):
        self.eventsStopped.append(event.id)
        return defer.succeed(None)

    def endOf(self, eventId, room):
        return {}

    def abouts(self, eventId):
        return {}


class FakeLauncherTests(SynchronousTestCase):
    """
    The director's tests' launcher is one as the director sees it.
    """

    def test_interface(self):
        """
        L{FakeLauncher} provides the whole L{IGameLauncher}.
        """
        self.assertTrue(verifyObject(IGameLauncher, FakeLauncher()))


class DirectorTests:
    """
    The director against one database dialect (the mixin's).
    """

    def setUp(self):
        self.database = support.openDatabase(self, self.databaseURL())
        self.clock = Clock()
        self.clock.advance(1000)
        self.ids = itertools.count(1)
        self.lobby, self.director = self.newDirector()

    def newDirector(self, launcher=None):
        lobby = Lobby()
        policies = {"gomoku": GomokuStartPolicy(self.clock, TableOptions()),
                    "checkers": CheckersStartPolicy(clock=self.clock)}
        director = Director(self.database, lobby, self.clock,
                            policies.__getitem__, launcher=launcher,
                            showSeconds=SHOW)
        self.addCleanup(director.stop)
        self.addCleanup(lobby.stopTables)
        return lobby, director

    def write(self, interaction, *args, **kwargs):
        return self.database.runInteraction(interaction, *args, write=True,
                                            **kwargs)

    @defer.inlineCallbacks
    def newEvent(self, names, format="round-robin", rounds=None,
                 engines=(), minutes=None, protocols=None):
        """
        An event of C{names}; those in C{engines} are registered engines,
        over the protocol C{protocols} gives them (by default C{tcp}).
        """
        protocols = protocols or {}
        eventId = yield self.write(store.createEvent, "cup", "gomoku",
                                   format, rounds, minutes, 2, None, 0.0)
        for name in names:
            if name in engines:
                yield self.write(catalog.register, name, ["engine", name],
                                 0.0, protocol=protocols.get(name, "tcp"))
            yield self.write(store.enter, eventId, name, 0.0,
                             name if name in engines else None, True)
        return eventId

    @defer.inlineCallbacks
    def settle(self, director=None):
        """
        Let the director read the database and store what it must.
        """
        director = director or self.director
        yield director.poll()
        yield director.whenIdle()

    def session(self, name):
        return Session(next(self.ids), "gomoku", None, name=name)

    def play(self, room, winner, lobby=None):
        """
        Seat the room's pairing (its first seat joins first), start the
        game, and have the loser resign: C{winner} wins.
        """
        lobby = lobby or self.lobby
        live = self.director.rooms[("gomoku", room)]
        sessions = [self.session(n) for n in live.game.seats]
        for session in sessions:
            lobby.join("gomoku", room, session, RoomObserver())
        lobby.setReady(sessions[1], True)
        found = lobby.room("gomoku", room)
        lobby.start(found)
        table = found.table
        loser = [s.name for s in table.seats if s.name != winner][0]
        table.drop([s.index for s in table.seats if s.name == loser][0])
        for session in sessions:
            lobby.leave(session)
        return table

    def openRooms(self, lobby=None):
        return sorted(room.name for room in
                      (lobby or self.lobby).rooms("gomoku"))

    @defer.inlineCallbacks
    def test_roundRobin(self):
        """
        A 4-entrant round robin opens each round's rooms, takes each
        game's result from its table, and finishes after 6 rounds with
        the standings its results make.
        """
        eventId = yield self.newEvent(["ann", "bob", "cid", "dan"])
        yield self.write(store.requestState, eventId, "start",
                         self.clock.seconds())
        yield self.settle()
        strength = {"ann": 4, "bob": 3, "cid": 2, "dan": 1}
        for round in range(1, 7):
            rooms = self.openRooms()
            self.assertEqual(rooms, ["%d-%d-1" % (eventId, round),
                                     "%d-%d-2" % (eventId, round)])
            for room in rooms:
                seats = self.director.rooms[("gomoku", room)].game.seats
                self.play(room, max(seats, key=strength.get))
            yield self.settle()
        snap = yield self.database.runInteraction(store.snapshot, eventId)
        self.assertEqual(snap.event.state, store.FINISHED)
        table = standings(snap.names(), snap.games)
        self.assertEqual([(s.name, s.points) for s in table],
                         [("ann", 6.0), ("bob", 4.0), ("cid", 2.0),
                          ("dan", 0.0)])
        self.assertEqual(self.openRooms(), [])

    @defer.inlineCallbacks
    def test_seatsAsPaired(self):
        """
        The pairing's first seat plays black whoever joins first.
        """
        eventId = yield self.newEvent(["ann", "bob"])
        yield self.write(store.requestState, eventId, "start",
                         self.clock.seconds())
        yield self.settle()
        room = "%d-1-1" % (eventId,)
        live = self.director.rooms[("gomoku", room)]
        first, second = live.game.seats
        sessions = [self.session(second), self.session(first)]
        for session in sessions:
            self.lobby.join("gomoku", room, session, RoomObserver())
        self.lobby.setReady(sessions[1], True)
        found = self.lobby.room("gomoku", room)
        self.lobby.start(found)
        self.assertEqual([s.name for s in found.table.seats],
                         [first, second])

    @defer.inlineCallbacks
    def readyRoom(self, eventId, owner, guest):
        """
        Start event C{eventId}; C{owner} then C{guest} join its first
        gomoku room, and the guest is ready: the room.
        """
        yield self.write(store.requestState, eventId, "start",
                         self.clock.seconds())
        yield self.settle()
        name = "%d-1-1" % (eventId,)
        sessions = [self.session(owner), self.session(guest)]
        for session in sessions:
            self.lobby.join("gomoku", name, session, RoomObserver())
        self.lobby.setReady(sessions[1], True)
        return self.lobby.room("gomoku", name)

    @defer.inlineCallbacks
    def test_ownerDoesNotStart(self):
        """
        A gomoku room whose players are all there, the guest ready, is
        started by the director when its owner has not started it within
        the grace.
        """
        eventId = yield self.newEvent(["ann", "bob"])
        room = yield self.readyRoom(eventId, "ann", "bob")
        name = room.name
        self.clock.advance(START_GRACE - 0.1)
        self.assertFalse(room.running)
        self.clock.advance(0.1)
        self.assertTrue(room.running)
        self.assertIs(self.director.rooms[("gomoku", name)].table,
                      room.table)

    @defer.inlineCallbacks
    def ownerEngine(self, protocol):
        """
        A pairing of two engines whose room is owned by the one over
        C{protocol}, the other there and ready: the room.
        """
        self.lobby, self.director = self.newDirector(FakeLauncher())
        eventId = yield self.newEvent(["brain", "bot"],
                                      engines={"brain", "bot"},
                                      protocols={"brain": protocol})
        room = yield self.readyRoom(eventId, "brain", "bot")
        self.assertEqual(room.owner.name, "brain")
        return room

    @defer.inlineCallbacks
    def test_streamOwnerStartsAtOnce(self):
        """
        A room owned by an engine over standard streams (a Gomocup brain,
        seated by the hub; it never starts a game) is started by the
        director as soon as its other player is there and ready, not
        after L{START_GRACE}.
        """
        room = yield self.ownerEngine("gomocup")
        self.clock.advance(0)
        self.assertTrue(room.running)

    @defer.inlineCallbacks
    def test_connectedOwnerGivenTheGrace(self):
        """
        A room owned by a connected engine (which may start the game, as
        C{hub.bots} does) waits L{START_GRACE} for it, as for a person.
        """
        room = yield self.ownerEngine("tcp")
        self.clock.advance(START_GRACE - 0.1)
        self.assertFalse(room.running)
        self.clock.advance(0.1)
        self.assertTrue(room.running)

    @defer.inlineCallbacks
    def test_onlyThePairing(self):
        """
        Nobody else can start a pairing's game: the room's policy wants
        exactly its players.
        """
        eventId = yield self.newEvent(["ann", "bob"])
        yield self.write(store.requestState, eventId, "start",
                         self.clock.seconds())
        yield self.settle()
        room = self.lobby.room("gomoku", "%d-1-1" % (eventId,))
        owner, stranger = self.session("ann"), self.session("eve")
        self.lobby.join("gomoku", room.name, owner, RoomObserver())
        self.lobby.join("gomoku", room.name, stranger, RoomObserver())
        self.lobby.setReady(stranger, True)
        self.assertFalse(room.policy.canStart(room))

    @defer.inlineCallbacks
    def test_followsOnlyPairings(self):
        """
        The director listens to the tables of its pairings' rooms only:
        another room's game does not tell it of its moves.
        """
        eventId = yield self.newEvent(["ann", "bob"])
        yield self.write(store.requestState, eventId, "start",
                         self.clock.seconds())
        yield self.settle()
        ann, bob = self.session("ann"), self.session("bob")
        self.lobby.createRoom("gomoku", "casual", ann, RoomObserver(),
                              GomokuStartPolicy(self.clock, TableOptions()),
                              2)
        self.lobby.join("gomoku", "casual", bob, RoomObserver())
        room = self.lobby.room("gomoku", "casual")
        self.lobby.setReady(ann, True)
        self.lobby.setReady(bob, True)
        self.lobby.start(room)
        self.assertIsNotNone(room.table)
        self.assertNotIn(self.director, room.table.listeners)
        table = self.play("%d-1-1" % (eventId,), "ann")
        self.assertIn(self.director, table.listeners)

    @defer.inlineCallbacks
    def test_swiss(self):
        """
        A 5-entrant Swiss of 3 rounds: a bye each round (worth 1), no
        rematch, then finished.
        """
        names = ["ann", "bob", "cid", "dan", "eve"]
        eventId = yield self.newEvent(names, "swiss", rounds=3)
        yield self.write(store.requestState, eventId, "start",
                         self.clock.seconds())
        yield self.settle()
        for round in range(1, 4):
            rooms = self.openRooms()
            self.assertEqual(len(rooms), 2)
            for room in rooms:
                seats = self.director.rooms[("gomoku", room)].game.seats
                self.play(room, min(seats))
            yield self.settle()
        snap = yield self.database.runInteraction(store.snapshot, eventId)
        self.assertEqual(snap.event.state, store.FINISHED)
        games = [g for g in snap.games if not g.bye]
        self.assertEqual(len(games), 6)
        pairs = [frozenset(g.seats) for g in games]
        self.assertEqual(len(set(pairs)), len(pairs))
        byes = [g for g in snap.games if g.bye]
        self.assertEqual(len(byes), 3)
        self.assertEqual(len({g.seats[0] for g in byes}), 3)
        self.assertEqual({snap.reasons[(g.round, g.board)] for g in byes},
                         {"bye"})

    @defer.inlineCallbacks
    def test_noShow(self):
        """
        When the deadline passes, an entrant not in the room forfeits:
        the one present wins.
        """
        eventId = yield self.newEvent(["ann", "bob"])
        yield self.write(store.requestState, eventId, "start",
                         self.clock.seconds())
        yield self.settle()
        room = "%d-1-1" % (eventId,)
        self.lobby.join("gomoku", room, self.session("bob"), RoomObserver())
        self.clock.advance(SHOW)
        yield self.director.whenIdle()
        snap = yield self.database.runInteraction(store.snapshot, eventId)
        game = [g for g in snap.games if g.round == 1][0]
        self.assertEqual(dict(zip(game.seats, game.points)),
                         {"ann": 0.0, "bob": 1.0})
        self.assertEqual(snap.reasons[(1, 1)], "no-show")

    @defer.inlineCallbacks
    def test_engineFails(self):
        """
        An engine that fails to start forfeits its game; the launcher is
        told each pairing with an engine, and to stop it after, and the
        event's end (L{IGameLauncher.stopEvent}).
        """
        launcher = FakeLauncher(failing={"bot"})
        self.lobby, self.director = self.newDirector(launcher)
        eventId = yield self.newEvent(["ann", "bot"], engines={"bot"})
        yield self.write(store.requestState, eventId, "start",
                         self.clock.seconds())
        yield self.settle()
        # Both rounds (one game each) forfeited: the event is over.
        self.assertEqual(len(launcher.launched), 2)
        event, pairing, entrants = launcher.launched[0]
        self.assertEqual(pairing.room, "%d-1-1" % (eventId,))
        self.assertEqual(event.kind, "gomoku")
        self.assertEqual({e.name: e.engine and e.engine.command
                          for e in entrants},
                         {"ann": None, "bot": ("engine", "bot")})
        snap = yield self.database.runInteraction(store.snapshot, eventId)
        self.assertEqual(snap.event.state, store.FINISHED)
        for game in snap.games:
            self.assertEqual(dict(zip(game.seats, game.points)),
                             {"ann": 1.0, "bot": 0.0})
            self.assertEqual(snap.reasons[(game.round, game.board)],
                             "engine-failed")
        self.assertEqual(launcher.stopped,
                         [p for _, p, _ in launcher.launched])
        self.assertEqual(launcher.eventsStopped, [eventId])

    @defer.inlineCallbacks
    def test_namelessSeats(self):
        """
        Seats without the entrants' names (Splendor's "player N") are
        the entrants whose engines' connections they are, as the
        launcher says; the room starts with as many members as seats.
        """
        launcher = FakeLauncher()
        self.lobby, self.director = self.newDirector(launcher)
        eventId = yield self.newEvent(["ann", "bob"],
                                      engines={"ann", "bob"})
        yield self.write(store.requestState, eventId, "start",
                         self.clock.seconds())
        yield self.settle()
        room = "%d-1-1" % (eventId,)
        seats = self.director.rooms[("gomoku", room)].game.seats
        sessions = [Session(next(self.ids), "gomoku", None) for _ in seats]
        for session, name in zip(sessions, seats):
            launcher.sessions[session.id] = name
            self.lobby.join("gomoku", room, session, RoomObserver())
        self.lobby.setReady(sessions[1], True)
        found = self.lobby.room("gomoku", room)
        self.lobby.start(found)
        table = found.table
        winner = table.seats[0].playerId
        table.drop(1)
        yield self.settle()
        snap = yield self.database.runInteraction(store.snapshot, eventId)
        game = [g for g in snap.games if g.round == 1][0]
        self.assertEqual(dict(zip(game.seats, game.points)),
                         {launcher.sessions[winner]: 1.0,
                          [n for n in seats
                           if n != launcher.sessions[winner]][0]: 0.0})
        # Its engines may leave by themselves: the game ended.
        self.assertEqual([p.room for p in launcher.ended], [room])

    @defer.inlineCallbacks
    def test_noSandbox(self):
        """
        An event with an engine does not begin while the launcher cannot
        start engines (bwrap is missing): it is paused, with one line
        saying why; the operator resumes it once that is fixed.
        """
        launcher = FakeLauncher(problem="the engine sandbox needs "
                                        "bubblewrap: apt-get install ...")
        self.lobby, self.director = self.newDirector(launcher)
        eventId = yield self.newEvent(["ann", "bot"], engines={"bot"})
        yield self.write(store.requestState, eventId, "start",
                         self.clock.seconds())
        from twisted.logger import formatEvent, globalLogPublisher
        seen = []
        globalLogPublisher.addObserver(seen.append)
        self.addCleanup(globalLogPublisher.removeObserver, seen.append)
        yield self.settle()
        logged = [formatEvent(e) for e in seen]
        snap = yield self.database.runInteraction(store.snapshot, eventId)
        self.assertEqual((snap.event.state, snap.event.startedAt),
                         (store.PAUSED, None))
        self.assertEqual(launcher.launched, [])
        self.assertIn("tournament %d ('cup') cannot start: the engine "
                      "sandbox needs bubblewrap: apt-get install ..."
                      % (eventId,), logged)
        launcher.trouble = None
        yield self.write(store.requestState, eventId, "resume",
                         self.clock.seconds())
        yield self.settle()
        self.assertEqual(len(launcher.launched), 1)

    @defer.inlineCallbacks
    def test_pauseHoldsNextRound(self):
        """
        A paused event plays out its round but begins no other until it
        resumes.
        """
        eventId = yield self.newEvent(["ann", "bob"])
        yield self.write(store.requestState, eventId, "start",
                         self.clock.seconds())
        yield self.settle()
        yield self.write(store.requestState, eventId, "pause",
                         self.clock.seconds())
        yield self.settle()
        self.play("%d-1-1" % (eventId,), "ann")
        yield self.settle()
        self.assertEqual(self.openRooms(), [])
        yield self.write(store.requestState, eventId, "resume",
                         self.clock.seconds())
        yield self.settle()
        self.assertEqual(self.openRooms(), ["%d-2-1" % (eventId,)])

    @defer.inlineCallbacks
    def test_restartReplays(self):
        """
        A director started anew (the hub restarted) resumes at the
        current round and opens again the rooms of its unfinished games
        only.
        """
        eventId = yield self.newEvent(["ann", "bob", "cid", "dan"])
        yield self.write(store.requestState, eventId, "start",
                         self.clock.seconds())
        yield self.settle()
        first, second = self.openRooms()
        self.play(first, "ann" if "ann" in first else "bob")
        # The second game starts, then the hub stops.
        live = self.director.rooms[("gomoku", second)]
        sessions = [self.session(n) for n in live.game.seats]
        for session in sessions:
            self.lobby.join("gomoku", second, session, RoomObserver())
        self.lobby.setReady(sessions[1], True)
        self.lobby.start(self.lobby.room("gomoku", second))
        yield self.settle()
        self.director.stop()
        self.lobby.stopTables()
        lobby, director = self.newDirector()
        self.lobby, self.director = lobby, director
        yield self.settle()
        self.assertEqual(self.openRooms(), [second])
        snap = yield self.database.runInteraction(store.snapshot, eventId)
        self.assertEqual(snap.event.currentRound, 1)

    @defer.inlineCallbacks
    def test_drainingOpensNothing(self):
        """
        While the hub drains, no room opens and nothing is forfeited: the
        restarted hub plays those games.
        """
        eventId = yield self.newEvent(["ann", "bob"])
        self.lobby.draining = True
        yield self.write(store.requestState, eventId, "start",
                         self.clock.seconds())
        yield self.settle()
        self.clock.advance(SHOW * 2)
        yield self.director.whenIdle()
        self.assertEqual(self.openRooms(), [])
        snap = yield self.database.runInteraction(store.snapshot, eventId)
        self.assertEqual([g.points for g in snap.games if g.round == 1],
                         [None])

    @defer.inlineCallbacks
    def test_withdrawal(self):
        """
        A withdrawn entrant plays out the game it is paired for, and is
        paired no more in a Swiss.
        """
        eventId = yield self.newEvent(["ann", "bob", "cid", "dan"], "swiss",
                                      rounds=2)
        yield self.write(store.requestState, eventId, "start",
                         self.clock.seconds())
        yield self.settle()
        yield self.write(store.withdraw, eventId, "dan")
        yield self.settle()
        for room in self.openRooms():
            seats = self.director.rooms[("gomoku", room)].game.seats
            self.play(room, min(seats))
        yield self.settle()
        snap = yield self.database.runInteraction(store.snapshot, eventId)
        second = [g for g in snap.games if g.round == 2]
        self.assertNotIn("dan", [n for g in second for n in g.seats])
        self.assertEqual(len([g for g in second if g.bye]), 1)

    @defer.inlineCallbacks
    def test_roundRobinWithdrawal(self):
        """
        In a round robin, the games of a withdrawn entrant not yet begun
        are forfeited to its opponents as their rounds come.
        """
        eventId = yield self.newEvent(["ann", "bob", "cid", "dan"])
        yield self.write(store.requestState, eventId, "start",
                         self.clock.seconds())
        yield self.settle()
        yield self.write(store.withdraw, eventId, "dan")
        yield self.settle()
        for room in self.openRooms():
            seats = self.director.rooms[("gomoku", room)].game.seats
            self.play(room, min(seats))
        yield self.settle()
        snap = yield self.database.runInteraction(store.snapshot, eventId)
        second = [g for g in snap.games if g.round == 2]
        withDan = [g for g in second if "dan" in g.seats][0]
        self.assertEqual(snap.reasons[(2, withDan.board)], "withdrawn")
        self.assertEqual(withDan.pointsOf("dan"), 0.0)
        self.assertEqual(sum(withDan.points), 1.0)
        self.assertEqual(len(self.openRooms()), 1)

    @defer.inlineCallbacks
    def test_arena(self):
        """
        An arena pairs whoever is free at once, until its time is up;
        then the games under way end it.
        """
        eventId = yield self.newEvent(["ann", "bob", "cid", "dan"], "arena",
                                      minutes=0.5)
        yield self.write(store.requestState, eventId, "start",
                         self.clock.seconds())
        yield self.settle()
        first = self.openRooms()
        self.assertEqual(first, ["%d-1-1" % (eventId,),
                                 "%d-1-2" % (eventId,)])
        table = self.play(first[0], "ann" if "ann" in first[0] else "bob")
        yield self.settle()
        # Its two players are free again: paired at once.
        rooms = self.openRooms()
        self.assertEqual(rooms, [first[1], "%d-2-1" % (eventId,)])
        self.assertEqual(
            sorted(self.director.rooms[("gomoku", rooms[1])].game.seats),
            sorted(s.name for s in table.seats))
        self.clock.advance(31)
        yield self.settle()
        for room in rooms:
            seats = self.director.rooms[("gomoku", room)].game.seats
            self.play(room, min(seats))
        yield self.settle()
        self.assertEqual(self.openRooms(), [])
        snap = yield self.database.runInteraction(store.snapshot, eventId)
        self.assertEqual(snap.event.state, store.FINISHED)
        self.assertEqual(len(snap.games), 3)
        self.assertEqual(sum(sum(g.points) for g in snap.games), 3.0)

    @defer.inlineCallbacks
    def test_tablesOfThree(self):
        """
        A checkers round robin of 3-player tables: the room starts only
        with its three players, with the event's turn clock, and the
        placements give 2, 1 and 0 points.
        """
        eventId = yield self.write(store.createEvent, "three", "checkers",
                                   "round-robin", None, None, 3, 15.0, 0.0)
        for name in ("ann", "bob", "cid"):
            yield self.write(store.enter, eventId, name, 0.0, None, True)
        yield self.write(store.requestState, eventId, "start",
                         self.clock.seconds())
        yield self.settle()
        name = "%d-1-1" % (eventId,)
        room = self.lobby.room("checkers", name)
        seats = self.director.rooms[("checkers", name)].game.seats
        sessions = [Session(next(self.ids), "checkers", None, name=n)
                    for n in seats]
        for session in sessions[:2]:
            self.lobby.join("checkers", name, session, RoomObserver())
            self.lobby.setReady(session, True)
        self.assertIsNone(room.table)
        self.lobby.join("checkers", name, sessions[2], RoomObserver())
        self.lobby.setReady(sessions[2], True)
        table = room.table
        self.assertEqual(table.options.turnSeconds, 15.0)
        table.end(events.NORMAL, (2, 0, 1), 2)
        yield self.settle()
        snap = yield self.database.runInteraction(store.snapshot, eventId)
        self.assertEqual(snap.event.state, store.FINISHED)
        game = snap.games[0]
        self.assertEqual(dict(zip(game.seats, game.points)),
                         {seats[2]: 2.0, seats[0]: 1.0, seats[1]: 0.0})

    @defer.inlineCallbacks
    def test_eventOfRoom(self):
        """
        The director names the event of its rooms (for the recorder) and
        the room an entrant should join next.
        """
        eventId = yield self.newEvent(["ann", "bob"])
        yield self.write(store.requestState, eventId, "start",
                         self.clock.seconds())
        yield self.settle()
        room = "%d-1-1" % (eventId,)
        self.assertEqual(self.director.eventOfRoom("gomoku", room), eventId)
        self.assertIsNone(self.director.eventOfRoom("gomoku", "other"))
        self.assertEqual(self.director.roomFor(eventId, "bob"), room)
        self.assertIsNone(self.director.roomFor(eventId, "zed"))


class UnreachableDatabaseTests(TestCase):
    """
    A director whose database cannot be reached says so once, as a
    warning, and that it answers again; it logs no error.
    """

    def test_saidOnce(self):
        import sqlite3
        from twisted.logger import LogLevel, globalLogPublisher
        from twisted.python.failure import Failure
        seen = []
        globalLogPublisher.addObserver(seen.append)
        self.addCleanup(globalLogPublisher.removeObserver, seen.append)
        director = Director.__new__(Director)
        refused = Failure(sqlite3.OperationalError("unable to open"))
        director._pollFailed(refused)
        director._pollFailed(refused)
        director._polled(None)
        said = [(e["log_level"], e["log_format"]) for e in seen
                if e.get("log_namespace", "").startswith(
                    "hub.tournaments")]
        self.assertEqual([level for level, _ in said],
                         [LogLevel.warn, LogLevel.info])
        self.assertIn("unreachable", said[0][1])
        self.assertIn("answers again", said[1][1])
        self.assertEqual(self.flushLoggedErrors(), [])


class SQLiteDirectorTests(support.SQLiteMixin, DirectorTests, TestCase):
    pass


class PostgreSQLDirectorTests(support.PostgreSQLMixin, DirectorTests,
                              TestCase):
    pass
