"""
The shape of browser play (L{hub.web.play}): one module per game behind
L{IGamePlay}, the lobby and the tables reached through the interfaces of
L{hub.ihub} (each collaborator checked with C{verifyObject}), no web
module that branches on the game kind, none too long to hold in mind,
and the play object built whole by the composition root.
"""

import ast
import os
import re
import tempfile

from twisted.internet.testing import MemoryReactorClock
from twisted.trial.unittest import SynchronousTestCase
from zope.interface.verify import verifyObject

from hub import tap
from hub.ihub import (
    ICheckersPeer, IGomokuPeer, IRoomObserver, ISeating, ISplendorPeer,
    IStartPolicy, ITableListener)
from hub.protocols.checkers import CheckersProtocol
from hub.protocols.gomoku_players import GomokuPlayer
from hub.protocols.splendor import SplendorProtocol
from hub.tournaments.policy import TournamentPolicy
from hub.tournaments.interfaces import IGameReadyListener
from hub.web.play.game import IGamePlay
from hub.web.play.player import RoomBot, WebPlayer

from tests.test_tap import parse
from tests.web.playsupport import PlayHub

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
#: The most lines of a module under hub/.
MOST_LINES = 900
#: The most times a module under hub/web/ compares a game kind.
MOST_KIND_TESTS = 3
KIND_TEST = re.compile(
    r"""[!=]=\s*["'](?:gomoku|checkers|splendor)["']"""
    r"""|["'](?:gomoku|checkers|splendor)["']\s*[!=]=""")


def pythonFiles(folder):
    for top, dirs, names in os.walk(os.path.join(ROOT, folder)):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in names:
            if name.endswith(".py"):
                path = os.path.join(top, name)
                yield os.path.relpath(path, ROOT), path


class InterfacesTests(SynchronousTestCase):
    """
    Each collaborator of browser play provides the interface it is
    reached through.
    """

    def setUp(self):
        self.hub = PlayHub()
        self.addCleanup(self.hub.stop)

    def test_policies(self):
        """
        The protocols' start policies, and a tournament's, are whole
        L{IStartPolicy}s: C{memberLeft}, C{autoStart}, C{options} and
        C{playerCounts} included.
        """
        for kind, factory in self.hub.factories.items():
            policy = factory.policy
            verifyObject(IStartPolicy, policy)
            verifyObject(IStartPolicy, TournamentPolicy(policy, ["a", "b"]))
        self.assertEqual(
            sorted(self.hub.factories["splendor"].policy.playerCounts),
            [2, 3, 4])
        self.assertEqual(
            TournamentPolicy(self.hub.factories["gomoku"].policy,
                             ["a", "b"], 30).options.turnSeconds, 30)

    def test_seating(self):
        """
        Splendor's seating is an L{ISeating}.
        """
        verifyObject(ISeating, self.hub.factories["splendor"].seats)

    def test_games(self):
        """
        Each game's module is an L{IGamePlay} of its kind.
        """
        for kind, game in self.hub.play.games.items():
            verifyObject(IGamePlay, game)
            self.assertEqual(game.kind, kind)

    def test_players(self):
        """
        A browser player is a room observer and a table listener; a room
        bot a room observer; neither hears a legacy protocol's frames (no
        peer interface).
        """
        player = WebPlayer(self.hub.play, "a", True, b"k")
        bot = RoomBot(self.hub.play, 1)
        verifyObject(IRoomObserver, player)
        verifyObject(ITableListener, player)
        verifyObject(IRoomObserver, bot)
        for peer in (ICheckersPeer, IGomokuPeer, ISplendorPeer):
            self.assertFalse(peer.providedBy(player))
            self.assertFalse(peer.providedBy(bot))

    def test_legacyPeers(self):
        """
        The legacy protocols' observers are their protocols' peers.
        """
        self.assertTrue(ICheckersPeer.implementedBy(CheckersProtocol))
        self.assertTrue(IGomokuPeer.implementedBy(GomokuPlayer))
        self.assertTrue(ISplendorPeer.implementedBy(SplendorProtocol))

    def test_tournamentListener(self):
        """
        The browser play hears the director's events and rooms.
        """
        verifyObject(IGameReadyListener, self.hub.play)


class ShapeTests(SynchronousTestCase):
    """
    What a reader of the web face holds in mind.
    """

    def test_kindTests(self):
        """
        No module under hub/web/ compares a game kind more than 3 times:
        what differs by game is asked of the game's module, or of a table
        by kind.
        """
        over = {}
        for name, path in pythonFiles("hub/web"):
            with open(path, encoding="utf-8") as f:
                count = len(KIND_TEST.findall(f.read()))
            if count > MOST_KIND_TESTS:
                over[name] = count
        self.assertEqual(over, {})

    def test_noKindTestInPlay(self):
        """
        Browser play (hub/web/play/ and its scripts) asks the registry,
        never compares a kind.
        """
        found = []
        for name, path in pythonFiles("hub/web/play"):
            with open(path, encoding="utf-8") as f:
                found.extend((name, m) for m in KIND_TEST.findall(f.read()))
        static = os.path.join(ROOT, "hub", "web", "static")
        for name in sorted(os.listdir(static)):
            if name.startswith("play") and name.endswith(".js"):
                with open(os.path.join(static, name), encoding="utf-8") as f:
                    found.extend((name, m) for m in re.findall(
                        r"""[!=]==\s*["'](?:gomoku|checkers|splendor)["']""",
                        f.read()))
        self.assertEqual(found, [])

    def test_moduleSizes(self):
        """
        No module under hub/ is over L{MOST_LINES} lines.
        """
        over = {}
        for name, path in pythonFiles("hub"):
            with open(path, encoding="utf-8") as f:
                lines = sum(1 for _ in f)
            if lines > MOST_LINES:
                over[name] = lines
        self.assertEqual(over, {})

    def test_noFactoryInWeb(self):
        """
        No web module reaches into a protocol factory (its C{policy},
        C{seats}) or a policy's private parts: the web face is given the
        policies and the seating, as interfaces; browser play asks no
        collaborator what it has (C{hasattr}, C{getattr} with a
        default).
        """
        found = []
        for name, path in pythonFiles("hub/web"):
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read(), path)
            for node in ast.walk(tree):
                if isinstance(node, ast.Attribute) and (
                        node.attr in ("factories", "seats")
                        and isinstance(node.value, ast.Subscript)
                        or node.attr.startswith("_")
                        and isinstance(node.value, ast.Attribute)
                        and node.value.attr == "policy"):
                    found.append((name, node.lineno))
                if isinstance(node, ast.Name) and node.id == "factories":
                    found.append((name, node.lineno))
                if "play" in name and isDuckTest(node):
                    found.append((name, node.lineno))
        self.assertEqual(found, [])


def isDuckTest(node):
    """
    Whether C{node} asks an object what it has: C{hasattr(...)}, or
    C{getattr(x, name, default)} but on C{type(self)} (a handler looked
    up by name).
    """
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        return False
    if node.func.id == "hasattr":
        return True
    if node.func.id != "getattr" or len(node.args) < 3:
        return False
    target = node.args[0]
    return not (isinstance(target, ast.Call)
                and isinstance(target.func, ast.Name)
                and target.func.id == "type")


class CompositionRootTests(SynchronousTestCase):
    """
    L{tap.makeService} builds the browser play whole, its collaborators
    passed to its constructor.
    """

    def webPlay(self, *argv):
        top = tap.makeService(parse(*argv), MemoryReactorClock())
        services = {s.name: s for s in top}
        return services, services["web-port"].factory.play

    def test_wired(self):
        """
        The play's games are over the protocols' own start policies and
        Splendor's seating, its lobby and sessions the hub's.
        """
        services, play = self.webPlay("--db", "none")
        factories = {kind: services[kind + "-port"].factory
                     for kind in ("gomoku", "checkers", "splendor")}
        for kind, factory in factories.items():
            self.assertIs(play.games[kind].policy, factory.policy)
        self.assertIs(play.games["splendor"].seating,
                      factories["splendor"].seats)
        self.assertIs(play.lobby, factories["gomoku"].lobby)
        self.assertIs(play.sessions, services["sessions"])
        self.assertIsNone(play.tournaments)

    def test_withTournaments(self):
        """
        With records, the tournament director is the play's pairings from
        the start, and tells it of its events.
        """
        folder = tempfile.mkdtemp()
        self.addCleanup(__import__("shutil").rmtree, folder, True)
        services, play = self.webPlay(
            "--db", "sqlite:" + os.path.join(folder, "hub.sqlite"))
        director = play.tournaments.director
        self.assertIn(play, director.listeners)
        self.assertIs(director.lobby, play.lobby)
