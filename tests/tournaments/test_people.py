"""
People in events (L{hub.web.play} with L{hub.tournaments.director}): a
logged-in entrant is told over C{/ws} that a game waits ("game-ready"),
when its room opens and at its C{hello}; joining that room seats the
entrant in the pairing's seat (colour) and nobody else, from the room of
the game before too; a game that waits no more is said gone
("game-gone"); a Splendor table, whose seats carry no names, is counted
for the accounts that the browser play seated.  A real director on
SQLite and PostgreSQL, a hub on a L{Clock}, in-memory browsers.
"""

from twisted.internet import defer
from twisted.trial.unittest import TestCase

from hub.tables import events
from hub.tournaments import store
from hub.tournaments.director import START_GRACE, Director

from tests.records import support
from tests.web.playsupport import PlayHub, playTurns
from tests.web.test_play_accounts import loggedIn


class PeopleTests:
    """
    Entrants who play from the browser, on the mixin's database.
    """

    def setUp(self):
        self.database = support.openDatabase(self, self.databaseURL())
        self.hub = PlayHub(director=self.makeDirector)
        self.addCleanup(self.hub.stop)
        self.director = self.hub.director
        self.addCleanup(self.director.stop)

    def makeDirector(self, hub):
        """
        The director of C{hub}'s pairings, over its protocols' policies.
        """
        policies = {kind: factory.policy
                    for kind, factory in hub.factories.items()}
        return Director(self.database, hub.lobby, hub.hub.clock,
                        policies.__getitem__)

    def write(self, interaction, *args):
        return self.database.runInteraction(interaction, *args, write=True)

    @defer.inlineCallbacks
    def startEvent(self, names, kind="gomoku", players=2):
        eventId = yield self.write(store.createEvent, "cup", kind,
                                   "round-robin", None, None, players,
                                   None, 0.0)
        for name in names:
            yield self.write(store.enter, eventId, name, 0.0, None, True)
        yield self.write(store.requestState, eventId, "start", 0.0)
        yield self.settle()
        return eventId

    @defer.inlineCallbacks
    def settle(self):
        yield self.director.poll()
        yield self.director.whenIdle()

    def account(self, name):
        browser = loggedIn(self.hub.browser(), name)
        browser.hello(None)
        return browser

    @defer.inlineCallbacks
    def test_toldWhenTheRoomOpens(self):
        """
        An entrant logged in and connected hears "game-ready" with the
        room, kind, seat and the play page's link as the director opens
        the room; a guest of the same name and another account do not.
        """
        alice, carol = self.account("Alice"), self.account("Carol")
        guest = self.hub.browser("Bob")
        eventId = yield self.startEvent(["Alice", "Bob"])
        ready = alice.of("game-ready")
        self.assertEqual(len(ready), 1)
        room = self.director.roomFor(eventId, "Alice")
        message = ready[0]
        self.assertEqual(
            (message["event"], message["kind"], message["room"]),
            (eventId, "gomoku", room))
        pairing = self.director.pairingOf("gomoku", room)
        self.assertEqual(message["seat"], pairing.index("Alice"))
        self.assertEqual(message["url"],
                         "/play?room=%s&kind=gomoku" % (room,))
        self.assertEqual(carol.of("game-ready"), [])
        self.assertEqual(guest.of("game-ready"), [])

    @defer.inlineCallbacks
    def test_toldAtHello(self):
        """
        An entrant who connects while a game waits is told at C{hello},
        after its welcome.
        """
        eventId = yield self.startEvent(["Alice", "Bob"])
        alice = self.account("alice")
        ready = alice.of("game-ready")
        self.assertEqual([m["room"] for m in ready],
                         [self.director.roomFor(eventId, "Alice")])
        self.assertEqual(alice.messages[0]["type"], "welcome")

    @defer.inlineCallbacks
    def test_joinSeatsThePairing(self):
        """
        Joining the room seats each entrant in the pairing's seat (the
        first seat plays black) and marks them ready; the director starts
        the game; a non-entrant account and a guest are refused
        (C{not-entrant}) and not seated.
        """
        eventId = yield self.startEvent(["Alice", "Bob"])
        room = self.director.roomFor(eventId, "Alice")
        seats = self.director.pairingOf("gomoku", room)
        carol, guest = self.account("Carol"), self.hub.browser("Alice")
        for intruder in (carol, guest):
            intruder.send({"type": "join", "kind": "gomoku", "room": room})
            self.assertEqual(intruder.errors(), ["not-entrant"])
            self.assertIsNone(intruder.player.room)
        browsers = {name: self.account(name) for name in reversed(seats)}
        for name in reversed(seats):
            browsers[name].send({"type": "join", "kind": "gomoku",
                                 "room": room})
        self.assertEqual([c for b in browsers.values() for c in b.errors()],
                         [])
        self.hub.clock.advance(START_GRACE)
        started = self.hub.recorder.ofType(events.GameStarted)[-1]
        self.assertEqual(tuple(s.name for s in started.seats), seats)
        for index, name in enumerate(seats):
            self.assertEqual(browsers[name].player.seat, index)
        self.assertEqual(self.director.roomFor(eventId, "Alice"), None)

    @defer.inlineCallbacks
    def test_splendorSeatsTheAccounts(self):
        """
        A 3-player Splendor event's table is played by the three
        accounts that joined its room from the browser: its seats
        ("player N" on the wire) are counted as theirs, and the result
        gives them their points.
        """
        names = ["Alice", "Bob", "Cid"]
        eventId = yield self.startEvent(names, "splendor", 3)
        room = self.director.roomFor(eventId, "Alice")
        browsers = [self.account(name) for name in names]
        for browser in browsers:
            self.assertEqual(browser.of("game-ready")[0]["room"], room)
            browser.send({"type": "join", "kind": "splendor", "room": room})
        self.assertEqual([c for b in browsers for c in b.errors()], [])
        live = self.director.rooms[("splendor", room)]
        self.assertIsNotNone(live.table)
        self.assertEqual(sorted(live.seats), names)
        playTurns(self.hub, browsers)
        yield self.director.whenIdle()
        snap = yield self.database.runInteraction(store.snapshot, eventId)
        game = [g for g in snap.games if g.round == 1][0]
        self.assertIsNotNone(game.points)
        self.assertEqual(sorted(game.seats), names)
        self.assertEqual(sorted(game.points), [0.0, 1.0, 2.0])

    @defer.inlineCallbacks
    def test_splendorStranger(self):
        """
        A Splendor room of an event is refused to an account that is not
        of its pairing; a Splendor join without a room still seats at the
        open table.
        """
        eventId = yield self.startEvent(["Alice", "Bob", "Cid"], "splendor",
                                        3)
        room = self.director.roomFor(eventId, "Alice")
        dan = self.account("Dan")
        dan.send({"type": "join", "kind": "splendor", "room": room})
        self.assertEqual(dan.errors(), ["not-entrant"])
        dan.clear()
        dan.send({"type": "join", "kind": "splendor"})
        self.assertEqual(dan.errors(), [])
        self.assertNotEqual(dan.player.room.name, room)


    @defer.inlineCallbacks
    def playRound(self, eventId, browsers):
        """
        The entrants (C{browsers} by name) join their game's room, the
        first in the pairing resigns, and the result is stored.

        @return: the room.
        """
        room = self.director.roomFor(eventId, "Alice")
        seats = self.director.pairingOf("gomoku", room)
        for name in seats:
            browsers[name].send({"type": "join", "kind": "gomoku",
                                 "room": room})
        self.hub.clock.advance(START_GRACE)
        browsers[seats[0]].send({"type": "resign"})
        yield self.settle()
        return room

    @defer.inlineCallbacks
    def test_laterGameFromTheLastOnesRoom(self):
        """
        After a gomoku game of an event, its players are still in its
        room (a gomoku room outlives its game); the next game's room is
        joined from there, the hub taking them out of the last one.
        """
        eventId = yield self.startEvent(["Alice", "Bob"])
        browsers = {name: self.account(name) for name in ("Alice", "Bob")}
        first = yield self.playRound(eventId, browsers)
        self.assertEqual(browsers["Alice"].player.room.name, first)
        second = yield self.playRound(eventId, browsers)
        self.assertNotEqual(second, first)
        self.assertEqual([c for b in browsers.values() for c in b.errors()],
                         [])
        self.assertEqual(len(self.hub.recorder.ofType(events.GameStarted)),
                         2)
        self.assertEqual(browsers["Alice"].player.room.name, second)

    @defer.inlineCallbacks
    def test_toldWhenTheGameIsGone(self):
        """
        An entrant told that a game waits is told that it is gone once
        it no longer does (it began, or, here, it was forfeited as a
        no-show); one told of nothing hears nothing.
        """
        alice, carol = self.account("Alice"), self.account("Carol")
        eventId = yield self.startEvent(["Alice", "Bob"])
        room = self.director.roomFor(eventId, "Alice")
        self.assertEqual(alice.of("game-gone"), [])
        self.director.rooms[("gomoku", room)].deadline.reset(0)
        self.hub.clock.advance(1)
        yield self.settle()
        self.assertEqual(alice.of("game-gone"), [
            {"type": "game-gone", "event": eventId, "kind": "gomoku",
             "room": room}])
        self.assertEqual(carol.of("game-gone"), [])


class SQLitePeopleTests(support.SQLiteMixin, PeopleTests, TestCase):
    pass


class PostgreSQLPeopleTests(support.PostgreSQLMixin, PeopleTests, TestCase):
    pass
