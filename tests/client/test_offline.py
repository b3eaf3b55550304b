"""
Offline play, the start screen's pieces and the room's bots, without a
window: plans and counts, the user's config file, host:port parsing, the
LAN hub list, bots added by a session (on a fake), and a real offline
hub on loopback where in-process bots play a game to the end.
"""

import os
import tempfile

from twisted.internet import defer, reactor
from twisted.trial.unittest import SynchronousTestCase, TestCase

from hub.client import offline as O
from hub.client.localhub import OfflineHub
from hub.client.botseats import BotSeats
from hub.client.session import ClientSession, Options
from hub.client.userdirs import UserConfig, configDir, dataDir, recordsURL
from tests.client.support import FakeEndpoint


class PlanTests(SynchronousTestCase):
    """
    Player counts, seats and levels of offline games.
    """

    def test_autoCount(self):
        """
        Auto is the least allowed count at or above the people.
        """
        self.assertEqual(O.autoCount(1), 1)
        self.assertEqual(O.autoCount(1, (2, 3, 4, 6)), 2)
        self.assertEqual(O.autoCount(4), 4)
        self.assertEqual(O.autoCount(5), 6)
        self.assertEqual(O.autoCount(5, (2, 3, 6)), 6)
        self.assertRaises(ValueError, O.autoCount, 7)

    def test_checkersSeat(self):
        """
        Our seat is our place in the join order, which gives the region;
        the other seats are bots at their levels.
        """
        plan = O.checkersPlan(3, mySeat=1, levels=[1, 2, 3])
        self.assertEqual(plan.regions(), ("A", "C", "E"))
        self.assertEqual([s.human for s in plan.seats],
                         [False, True, False])
        self.assertEqual([s.level for s in plan.seats], [1, 2, 3])

    def test_checkersHotSeat(self):
        """
        Further people sit after the first; auto fits the count to them.
        """
        plan = O.checkersPlan(None, mySeat=3, humans=5)
        self.assertEqual(plan.count, 6)
        self.assertEqual([s.human for s in plan.seats],
                         [True, True, False, True, True, True])

    def test_checkersSolitaire(self):
        """
        One player alone is the 1-player race from region A.
        """
        plan = O.checkersPlan(1)
        self.assertEqual(plan.regions(), ("A",))
        self.assertEqual(len(plan.humans), 1)

    def test_badPlans(self):
        self.assertRaises(ValueError, O.checkersPlan, 5)
        self.assertRaises(ValueError, O.checkersPlan, 2, humans=3)
        self.assertRaises(ValueError, O.splendorPlan, 5)

    def test_splendorAndGomoku(self):
        plan = O.splendorPlan(4, levels=3)
        self.assertEqual([s.human for s in plan.seats],
                         [True, False, False, False])
        self.assertEqual(plan.seats[3].level, 3)
        plan = O.gomokuPlan("white", 1)
        self.assertEqual(plan.colour, "white")
        self.assertEqual(plan.seats[1].level, 1)

    def test_supportedCounts(self):
        """
        The offline hub starts checkers games of every count it offers,
        4 and the 1-player race among them.
        """
        self.assertEqual(O.supportedCheckersCounts(), (1, 2, 3, 4, 6))


class UserConfigTests(SynchronousTestCase):
    """
    The remembered name and where things go.
    """

    def test_dirs(self):
        env = {"XDG_CONFIG_HOME": "/c", "XDG_DATA_HOME": "/d"}
        self.assertEqual(configDir(env), "/c/gamehub")
        self.assertEqual(dataDir(env), "/d/gamehub")
        self.assertEqual(recordsURL(env), "sqlite:/d/gamehub/offline.sqlite")
        home = os.path.expanduser("~")
        self.assertEqual(configDir({}),
                         os.path.join(home, ".config", "gamehub"))

    def test_roundTrip(self):
        """
        A name set is read back by a new config; a missing or broken file
        is no settings.
        """
        d = tempfile.mkdtemp()
        self.addCleanup(__import__("shutil").rmtree, d)
        path = os.path.join(d, "sub", "client.json")
        self.assertEqual(UserConfig(path).load().values, {})
        UserConfig(path).load().set("name", "alice")
        self.assertEqual(UserConfig(path).load().get("name"), "alice")
        with open(path, "w") as f:
            f.write("{broken")
        self.assertEqual(UserConfig(path).load().values, {})


class StartPiecesTests(SynchronousTestCase):
    """
    The start screen's address field and hub list (no window needed).
    """

    def test_parseAddress(self):
        from client_pyglet.lan import parseAddress
        self.assertEqual(parseAddress("h:1234", "gomoku"), ("h", 1234))
        self.assertEqual(parseAddress(" h ", "checkers"), ("h", 16666))
        self.assertEqual(parseAddress("splendor://h:9", "checkers"),
                         ("h", 9))
        self.assertRaises(ValueError, parseAddress, "", "gomoku")
        self.assertRaises(ValueError, parseAddress, "h:x", "gomoku")

    def test_hubEntries(self):
        """
        Hubs as dicts or objects, in a list or a dict, become sorted
        entries; no browser is no hubs.
        """
        from client_pyglet.lan import HubEntry, hubEntries

        class Hub:
            name = "b-hub"
            addresses = ["10.0.0.2"]
            ports = {"checkers": "16666"}

        class Browser:
            hubs = {"x": Hub(),
                    "y": {"name": "a-hub", "host": "10.0.0.1",
                          "ports": {"gomoku": 11011}}}
        self.assertEqual(hubEntries(None), [])
        self.assertEqual(hubEntries(Browser()), [
            HubEntry("a-hub", "10.0.0.1", {"gomoku": 11011}),
            HubEntry("b-hub", "10.0.0.2", {"checkers": 16666})])


class FakeBotSeats:
    """
    Records the bots a session asks for.
    """

    def __init__(self):
        self.added = []
        self.bots = []
        self.stopped = False

    def add(self, level, room=None, team=1, name=None):
        self.added.append((level, room, team))
        bot = type("Bot", (), {"name": "bot%d" % (len(self.added),)})()
        self.bots.append(bot)
        return bot

    def stop(self):
        self.stopped = True


class RoomBotsTests(SynchronousTestCase):
    """
    Add bot and Fill with bots of a checkers room.
    """

    def session(self):
        from twisted.internet.task import Clock
        s = ClientSession(Clock(), Clock(),
                          Options(game="checkers", name="alice", level=2))
        s.endpoint = FakeEndpoint()
        s._botSeats = FakeBotSeats()
        s.state.roomId = "r"
        s.state.members = [["alice", False]]
        return s

    def test_fill(self):
        """
        Fill adds the missing players, each ready once all are there.
        """
        s = self.session()
        s.fillWithBots(4, level=3)
        self.assertEqual(s._botSeats.added, [(3, "r", 4)] * 3)
        s.stop()
        self.assertTrue(s._botSeats.stopped)

    def test_addOne(self):
        s = self.session()
        s.addBot(1)
        self.assertEqual(s._botSeats.added, [(1, "r", 1)])
        self.assertIn("bot1", s.state.messages[-1][1])

    def test_fullRoom(self):
        s = self.session()
        s.state.members = [["m%d" % i, False] for i in range(6)]
        self.assertEqual(s.fillWithBots(6), [])

    def test_names(self):
        """
        Bot names are valid checkers names and differ.
        """
        import random
        seats = BotSeats(None, "checkers", "h", 1,
                         rng=random.Random(0))
        names = [seats.newName("F") for _ in range(200)] + [
            seats.newName() for _ in range(5)]
        self.assertEqual(len(set(names)), 205)
        from hub.protocols.checkers import isValidName
        self.assertTrue(all(isValidName(n) for n in names))


class OfflineHubTests(TestCase):
    """
    A real offline hub on loopback, bots seated in join order.
    """

    timeout = 120

    @defer.inlineCallbacks
    def test_botsPlayThrough(self):
        """
        The hub listens on 127.0.0.1 only, on ports the OS picked;
        three in-process bots sit in join order (regions A C E), play
        a game to the end, and it is recorded.
        """
        d = tempfile.mkdtemp()
        self.addCleanup(__import__("shutil").rmtree, d)
        db = "sqlite:" + os.path.join(d, "data", "offline.sqlite")
        hub = OfflineHub(reactor, dbURL=db)
        ports = yield hub.start()
        self.addCleanup(hub.stop)
        self.assertEqual(sorted(ports), ["checkers", "gomoku", "splendor"])
        for port in hub._listening:
            self.assertEqual(port.getHost().host, "127.0.0.1")
        self.assertEqual(hub.factories["checkers"].policy.counts,
                         frozenset(O.CHECKERS_COUNTS))
        plan = O.checkersPlan(3, levels=2, humans=0)
        seats = BotSeats(reactor, "checkers", "127.0.0.1",
                         ports["checkers"], delay=0)
        self.addCleanup(seats.stop)
        bots = yield O.seatPlayers(plan, seats, None, "offline")
        self.assertEqual([b.state.myRegion() or b.name[4] for b in bots],
                         ["A", "C", "E"])
        states = yield defer.gatherResults([b.done for b in bots])
        self.assertEqual(len(states[0].ranking), 3)
        yield hub.stop()
        self.assertTrue(os.path.exists(db[len("sqlite:"):]))
