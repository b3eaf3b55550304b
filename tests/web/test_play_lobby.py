"""
Tests for the lobby side of L{hub.web.play}: bots at the level asked
for, playing a bot at once, quick play, and rooms made in the browser on
a node of a cluster (claimed in the room directory, the other nodes'
rooms in the lobby).
"""

from twisted.internet import defer
from twisted.trial.unittest import SynchronousTestCase

from hub.cluster.directory import DirectoryUnavailable
from hub.web import play as playing
from hub.web.remoterooms import RemoteRooms, remoteRoom

from tests.web.playsupport import HubNowFeed, PlayHub, playTurns


def pilotLevels(browser):
    """
    The level of the bot playing each seat taken over at the browser
    player's table, by seat.
    """
    table = browser.player.table
    return {seat: pilot.level
            for seat, pilot in table.takeover.pilots.items()}


class BotLevelTests(SynchronousTestCase):
    """
    Bots that fill seats play at the level the message asks for, not at
    the hub's C{--bot-level} (here 2).
    """

    def setUp(self):
        self.hub = PlayHub(botLevel=2)
        self.addCleanup(self.hub.stop)

    def test_checkersLevel(self):
        """
        A checkers room made with bots of level 1 (then one of level 3):
        each bot's seat is played by a bot of that level, and the
        C{SeatTakenOver} events say so.
        """
        for level in (1, 3):
            browser = self.hub.browser("alice{}".format(level))
            browser.send({"type": "create", "kind": "checkers",
                          "room": "r{}".format(level), "players": 3,
                          "seat": 1, "bots": True, "level": level})
            self.hub.clock.advance(0)
            self.assertEqual(pilotLevels(browser), {0: level, 2: level})
            self.assertEqual(
                [(e["seat"], e["level"])
                 for e in browser.of("event", "SeatTakenOver")],
                [(0, level), (2, level)])
            browser.send({"type": "resign"})

    def test_gomokuLevel(self):
        """
        A gomoku room filled by the C{bots} message at level 3: its bot
        plays at level 3, to the end of the game.
        """
        browser = self.hub.browser("alice")
        browser.send({"type": "create", "kind": "gomoku", "room": "g",
                      "seat": 0})
        browser.send({"type": "bots", "count": 1, "level": 3})
        browser.send({"type": "start"})
        self.hub.clock.advance(0)
        self.assertEqual(pilotLevels(browser), {1: 3})
        playTurns(self.hub, [browser])
        self.assertIsNotNone(browser.last("event", "GameEnded"))

    def test_splendorLevel(self):
        """
        Splendor bots asked at level 1 play at level 1.
        """
        browser = self.hub.browser("alice")
        browser.send({"type": "join", "kind": "splendor"})
        browser.send({"type": "bots", "count": 2, "level": 1})
        browser.send({"type": "ready"})
        self.hub.clock.advance(0)
        levels = pilotLevels(browser)
        self.assertEqual(sorted(levels.values()), [1, 1])
        self.assertNotIn(browser.player.seat, levels)

    def test_takeoverStillHubLevel(self):
        """
        A seat taken over because its player is gone is still played at
        the hub's C{--bot-level}.
        """
        hub = PlayHub(botLevel=3, takeover="bot", graceSeconds=1)
        self.addCleanup(hub.stop)
        alice, bob = hub.browser("alice"), hub.browser("bob")
        alice.send({"type": "create", "kind": "gomoku", "room": "g",
                    "seat": 0})
        bob.send({"type": "join", "kind": "gomoku", "room": "g"})
        bob.send({"type": "ready"})
        alice.send({"type": "start"})
        seat = bob.player.seat
        bob.drop()
        hub.clock.advance(2)
        self.assertEqual(pilotLevels(alice), {seat: 3})


class PlayABotTests(SynchronousTestCase):
    """
    One way to play a bot: C{create} with C{bots} seats the player and
    bots of the level asked for, and starts the game at once, in every
    game.
    """

    def setUp(self):
        self.hub = PlayHub()
        self.addCleanup(self.hub.stop)

    def test_startsAtOnce(self):
        """
        Gomoku, checkers and Splendor against bots start with no ready
        and no start; the room message before the game lists the bots,
        ready (but gomoku's owner, who starts).
        """
        for kind, players in (("gomoku", 2), ("checkers", 3),
                              ("splendor", 3)):
            browser = self.hub.browser("eager_" + kind)
            browser.send({"type": "create", "kind": kind, "room": "r",
                          "players": players, "seat": 0, "bots": True,
                          "level": 1})
            self.assertEqual(browser.errors(), [])
            started = browser.last("event", "GameStarted")
            self.assertIsNotNone(started, kind)
            self.assertEqual(len(started["seats"]), players)
            self.assertEqual(sum(s["bot"] for s in started["seats"]),
                             players - 1)
            rooms = [m["room"] for m in browser.of("room")]
            bots = [m for m in rooms[-1]["members"] if m["bot"]]
            self.assertEqual(len(bots), players - 1, kind)
            self.assertTrue(all(m["ready"] for m in bots))
            self.hub.clock.advance(0)
            self.assertEqual(pilotLevels(browser),
                             {s["index"]: 1 for s in started["seats"]
                              if s["bot"]})
            browser.send({"type": "resign"})

    def test_seatChosen(self):
        """
        The player sits in the seat asked for, the bots in the others.
        """
        browser = self.hub.browser("alice")
        browser.send({"type": "create", "kind": "checkers", "room": "r",
                      "players": 3, "seat": 2, "bots": True})
        self.assertEqual(browser.last("event", "GameStarted")["you"], 2)
        other = self.hub.browser("bob")
        other.send({"type": "create", "kind": "gomoku", "room": "g",
                    "seat": 1, "bots": True})
        self.assertEqual(other.last("event", "GameStarted")["you"], 1)

    def test_splendorTableApart(self):
        """
        A Splendor game against bots is at a table of its own: a player
        waiting at the open table is not seated with the bots, and one
        seated after the game began sits at the open table.
        """
        waiting = self.hub.browser("waiting")
        waiting.send({"type": "join", "kind": "splendor"})
        browser = self.hub.browser("alice")
        browser.send({"type": "create", "kind": "splendor", "players": 2,
                      "bots": True})
        self.assertIsNotNone(browser.last("event", "GameStarted"))
        self.assertNotEqual(browser.player.room, waiting.player.room)
        later = self.hub.browser("later")
        later.send({"type": "join", "kind": "splendor"})
        self.assertIs(later.player.room, waiting.player.room)


class QuickPlayTests(SynchronousTestCase):
    """
    C{quick}: the fullest open room of the kind, or a new one.
    """

    def setUp(self):
        self.hub = PlayHub()
        self.addCleanup(self.hub.stop)

    def test_makesARoom(self):
        """
        With no open room, quick play makes one named after the player,
        waiting for others (no bots); the next quick player joins it.
        """
        alice = self.hub.browser("alice")
        alice.send({"type": "quick", "kind": "checkers", "players": 3})
        room = alice.last("room")["room"]
        self.assertEqual((room["name"], room["players"],
                          len(room["members"])), ("alice", 3, 1))
        bob = self.hub.browser("bob")
        bob.send({"type": "quick", "kind": "checkers"})
        self.assertEqual(bob.last("room")["room"]["name"], "alice")
        self.assertEqual(bob.errors(), [])

    def test_fullestRoom(self):
        """
        Quick play joins the fullest open room: not a room with fewer
        members, not a locked one, not a running one.
        """
        for name, members in (("two", 2), ("one", 1), ("locked", 3)):
            for i in range(members):
                browser = self.hub.browser("{}{}".format(name, i))
                message = {"type": "join", "kind": "checkers", "room": name}
                if i == 0:
                    message.update(type="create", players=6)
                    if name == "locked":
                        message["password"] = "secret"
                else:
                    message["password"] = "secret" if name == "locked" \
                        else ""
                browser.send(message)
                self.assertEqual(browser.errors(), [])
        carol = self.hub.browser("carol")
        carol.send({"type": "quick", "kind": "checkers"})
        self.assertEqual(carol.last("room")["room"]["name"], "two")

    def test_gomokuTakesTheOpenRoom(self):
        """
        Gomoku: quick play joins a room waiting for its guest, and makes
        a new one (under a free name) when every room has two players.
        """
        alice = self.hub.browser("alice")
        alice.send({"type": "quick", "kind": "gomoku"})
        self.assertEqual(alice.last("room")["room"]["ownerSeat"], 1)
        bob = self.hub.browser("bob")
        bob.send({"type": "quick", "kind": "gomoku"})
        self.assertEqual(bob.last("room")["room"]["name"], "alice")
        alice2 = self.hub.browser("carol")
        alice2.send({"type": "quick", "kind": "gomoku", "seat": 0})
        room = alice2.last("room")["room"]
        self.assertEqual((room["name"], room["ownerSeat"]), ("carol", 0))

    def test_freeName(self):
        """
        A new room takes the player's name, or the first free
        C{NAME-N}.
        """
        other = self.hub.browser("zed")
        other.send({"type": "create", "kind": "checkers", "room": "alice",
                    "players": 2, "password": "x"})
        alice = self.hub.browser("alice")
        alice.send({"type": "quick", "kind": "checkers"})
        self.assertEqual(alice.last("room")["room"]["name"], "alice-2")

    def test_splendor(self):
        """
        Splendor's quick play seats the player as C{join} does.
        """
        alice = self.hub.browser("alice")
        alice.send({"type": "quick", "kind": "splendor"})
        self.assertEqual(alice.last("room")["room"]["kind"], "splendor")

    def test_inRoom(self):
        """
        A player already in a room is told to leave it first.
        """
        alice = self.hub.browser("alice")
        alice.send({"type": "quick", "kind": "gomoku"})
        alice.send({"type": "quick", "kind": "gomoku"})
        self.assertEqual(alice.errors(), [playing.IN_ROOM])


class FakeDirectory:
    """
    A cluster's room directory in memory (L{hub.cluster.directory}): who
    homes each room name, and the rooms listed.
    """

    node = "here"

    def __init__(self):
        self.owners = {}
        self.listed = {"gomoku": [], "checkers": []}
        self.failing = False
        self.pending = None

    def claimRoom(self, kind, name):
        if self.failing:
            return defer.fail(DirectoryUnavailable("down"))
        owner = self.owners.setdefault((kind, name), self.node)
        if self.pending is not None:
            self.pending.append((owner, defer.Deferred()))
            return self.pending[-1][1]
        return defer.succeed(owner)

    def releaseRoom(self, kind, name):
        self.owners.pop((kind, name), None)

    def listRooms(self, kind):
        return defer.succeed(self.listed[kind])


class ClusterTests(SynchronousTestCase):
    """
    With a cluster, a room made in the browser is claimed in the room
    directory first, and the lobby shows the other nodes' rooms.
    """

    def setUp(self):
        self.directory = FakeDirectory()
        self.hub = PlayHub(directory=self.directory, lobbyFeed=HubNowFeed)
        self.addCleanup(self.hub.stop)

    def test_claimed(self):
        """
        A room made here is claimed for this node, and made once the
        directory says it is ours.
        """
        self.directory.pending = []
        alice = self.hub.browser("alice")
        alice.send({"type": "create", "kind": "gomoku", "room": "g1"})
        self.assertEqual(self.directory.owners, {("gomoku", "g1"): "here"})
        self.assertIsNone(self.hub.lobby.room("gomoku", "g1"))
        [(owner, d)] = self.directory.pending
        d.callback(owner)
        self.assertEqual(alice.last("room")["room"]["name"], "g1")
        self.assertIsNotNone(self.hub.lobby.room("gomoku", "g1"))

    def test_otherNodesName(self):
        """
        A name another node homes is refused (C{room-exists}); so is every
        room while the directory is unavailable (C{unavailable}), and no
        room is made.
        """
        self.directory.owners[("checkers", "c1")] = "there"
        alice = self.hub.browser("alice")
        alice.send({"type": "create", "kind": "checkers", "room": "c1",
                    "players": 2})
        self.directory.failing = True
        alice.send({"type": "quick", "kind": "checkers"})
        self.assertEqual(alice.errors(), [playing.ROOM_EXISTS,
                                          playing.UNAVAILABLE])
        self.assertEqual(self.hub.lobby.allRooms(), [])
        self.assertIsNone(alice.player.session)

    def test_released(self):
        """
        A claim whose room could not be made (the player's name is in it
        already: here a bot's) is released.
        """
        alice = self.hub.browser("bot2_1")
        alice.send({"type": "create", "kind": "checkers", "room": "c1",
                    "players": 3, "seat": 1, "bots": True})
        self.assertEqual(alice.errors(), [playing.NAME_IN_ROOM])
        self.assertEqual(self.directory.owners, {})

    def test_remoteRooms(self):
        """
        The lobby message carries the rooms of the other nodes (not this
        node's own, which are in the hub now); joining one of them is
        refused with C{other-node}.
        """
        self.directory.listed["gomoku"] = [
            {"n": 1, "running": False, "node": "b",
             "info": {"name": "tcp", "owner": "bob", "guest": "",
                      "oct": 1, "gs": 0, "state": 0, "psw": "",
                      "id": 0}},
            {"n": 1, "running": False, "node": "here",
             "info": {"name": "mine", "owner": "me", "guest": ""}}]
        self.directory.listed["checkers"] = [
            {"n": 2, "running": True, "node": "b",
             "info": {"name": "c", "members": ["x", "y"], "capacity": 6,
                      "players": None, "locked": False, "running": True}},
            {"n": 0, "running": False, "node": "b"}]
        alice = self.hub.browser("alice")
        alice.send({"type": "lobby"})
        alice.send({"type": "lobby"})
        remote = alice.last("lobby")["remote"]
        self.assertEqual(remote, {
            "gomoku": [{"name": "tcp", "node": "b", "running": False,
                        "members": ["bob"], "capacity": 2,
                        "locked": False}],
            "checkers": [{"name": "c", "node": "b", "running": True,
                          "members": ["x", "y"], "capacity": 6,
                          "locked": False}]})
        self.assertIn("gomoku", alice.last("lobby")["kinds"])
        alice.send({"type": "join", "kind": "gomoku", "room": "tcp"})
        self.assertEqual(alice.errors(), [playing.OTHER_NODE])
        self.assertIsNone(alice.player.session)


class RemoteRoomsTests(SynchronousTestCase):
    """
    L{RemoteRooms} reads the directory at most once per C{maxAge}.
    """

    def test_readOncePerAge(self):
        from twisted.internet.task import Clock
        clock = Clock()
        directory = FakeDirectory()
        calls = []
        listRooms = directory.listRooms

        def counted(kind):
            calls.append(kind)
            return listRooms(kind)
        directory.listRooms = counted
        remote = RemoteRooms(directory, clock, maxAge=1.0)
        remote.current()
        remote.current()
        self.assertEqual(calls, ["gomoku", "checkers"])
        clock.advance(1)
        remote.current()
        self.assertEqual(len(calls), 4)

    def test_noSummary(self):
        """
        A room without a summary is left out.
        """
        self.assertIsNone(remoteRoom("checkers", {"n": 0, "node": "b"}))
