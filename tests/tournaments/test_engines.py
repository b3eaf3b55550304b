"""
The engine runner (L{hub.tournaments.engines}): placeholders, paths,
bounded logs, the per-address cap, and real engines (the bot client and
misbehaving programs) launched in real sandboxes (bwrap, and without one)
on private listeners of an in-process hub.
"""

import json
import os
import random
import shutil
import sys
import tempfile
import textwrap

import attr
from twisted.internet import defer, endpoints, reactor
from twisted.internet.address import IPv4Address
from twisted.internet.protocol import Protocol
from twisted.internet.task import Clock
from twisted.internet.error import ProcessDone
from twisted.internet.testing import MemoryReactor, StringTransport
from twisted.python.failure import Failure
from twisted.trial.unittest import SynchronousTestCase, TestCase
from zope.interface.verify import verifyObject

from hub.accounts import check
from hub.ihub import IStartPolicy
from hub.limits import ConnectionGate
from hub.lobby import Lobby, RoomObserver
from hub.service import Hub
from hub.sessions import Sessions
from hub.tables import events
from hub.tables import splendor as splendorTables
from hub.tables.base import TableOptions
from hub.wire import gomoku as gomokuWire
from hub.tap import Options, makeFactories
from hub.sandbox.process import BwrapSandbox, NoSandbox
from hub.tournaments import engines
from hub.tournaments.commands import KEY_VARIABLE, substitute
from hub.tournaments.engines import EngineFactory, EngineLauncher
from hub.tournaments.gamelog import (
    GameLog, fromPathPart, gamePath, pathPart)
from hub.tournaments.interfaces import (
    EngineFailed, EngineSpec, IGameLauncher)
from tests.sandbox.support import marked, waitFor

#: A bounded wait for real processes (the machine may be busy).
WAIT = 90
MB = 1024 * 1024
#: The engine that plays only illegal moves.
ILLEGAL = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "illegalengine.py")


def tempPath(case):
    """
    A new path in a fresh temporary folder outside the source tree (not
    trial's C{mktemp}, which under pytest writes into the working
    directory), removed after C{case}.
    """
    folder = tempfile.mkdtemp(prefix="gamehub-engines-")
    case.addCleanup(shutil.rmtree, folder, True)
    return os.path.join(folder, "temp")


@attr.s(frozen=True)
class Event:
    id = attr.ib()
    kind = attr.ib(default="gomoku")


@attr.s(frozen=True)
class Pairing:
    room = attr.ib()
    kind = attr.ib(default="gomoku")


@attr.s(frozen=True)
class Entrant:
    name = attr.ib()
    command = attr.ib(default=None)
    key = attr.ib(default=None)
    folder = attr.ib(default=None)
    cpuSeconds = attr.ib(default=30)
    memoryBytes = attr.ib(default=1024 * MB)

    @property
    def engine(self):
        """
        The registered engine it is (its own name), or None.
        """
        if self.command is None:
            return None
        return EngineSpec(self.name, tuple(self.command), self.folder,
                          cpuSeconds=self.cpuSeconds,
                          memoryBytes=self.memoryBytes)


def python(code):
    """
    The argv of C{python -c code}.
    """
    return [sys.executable, "-c", textwrap.dedent(code)]


def bot(kind, level=1):
    """
    An engine command line of the bot client, as an admin registers it.
    """
    return [sys.executable, "-m", "hub.bots", kind + "://{host}:{port}",
            "--count", "1", "--name", "{name}", "--room", "{room}",
            "--games", "1", "--level", str(level), "--delay", "0",
            "--timeout", str(WAIT)]


#: An engine that connects, sends only malformed frames, and reports
#: whether the hub closed it.
GARBAGE = python("""
    import socket, sys
    s = socket.create_connection((sys.argv[1], int(sys.argv[2])))
    print("connected", flush=True)
    for i in range(20):
        try:
            s.sendall(b"<this is no move %d>" % i)
        except OSError:
            break
    s.settimeout(30)
    try:
        while s.recv(4096):
            pass
    except socket.timeout:
        print("the hub kept me", flush=True)
        sys.exit(2)
    print("closed by the hub", flush=True)
    sys.exit(1)
""") + ["{host}", "{port}"]


#: An engine that connects, then waits.
CONNECTED = python("""
    import socket, sys, time
    s = socket.create_connection((sys.argv[1], int(sys.argv[2])))
    time.sleep(600)
""") + ["{host}", "{port}"]


#: An engine that connects, then hangs and ignores SIGTERM.
STUBBORN = python("""
    import signal, socket, sys, time
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    s = socket.create_connection((sys.argv[1], int(sys.argv[2])))
    print("connected, ignoring SIGTERM", flush=True)
    time.sleep(600)
""") + ["{host}", "{port}"]


class RoomSeatsTests(SynchronousTestCase):
    """
    A Splendor engines' game's room (L{engines.RoomSeats}) is no open
    table: the protocol's open seating seats nobody else there.
    """

    def setUp(self):
        self.clock = Clock()
        self.lobby = Lobby()
        self.sessions = Sessions(self.clock)
        policy = splendorTables.SplendorStartPolicy(
            self.lobby, self.clock, random.Random(3), TableOptions(),
            lambda room, table: None)
        self.seats = splendorTables.SplendorSeats(self.lobby, policy)

    def session(self):
        return self.sessions.connect("splendor", object())

    def test_strangerSeatedElsewhere(self):
        """
        Once an engine has made the pairing's room (two players, room
        for four), a player of the open seating is seated at another
        room, even when the cluster chose the engines' room for it; the
        second engine joins the engines' room.
        """
        roomSeats = engines.RoomSeats(self.seats, "engines-1", 2)
        first = self.session()
        roomSeats.seat(first, RoomObserver())
        [room] = self.lobby.rooms("splendor")
        self.assertFalse(room.policy.openTable)
        self.assertTrue(verifyObject(IStartPolicy, room.policy))
        stranger = self.session()
        self.seats.seat(stranger, RoomObserver())
        self.seats.seat(self.session(), RoomObserver(),
                        preferred="engines-1")
        self.assertEqual(len(room.members), 1)
        second = self.session()
        roomSeats.seat(second, RoomObserver())
        self.assertEqual([m.session for m in room.members], [first, second])


class SubstituteTests(SynchronousTestCase):
    """
    L{substitute} fills placeholders argument by argument.
    """

    def test_placeholders(self):
        """
        Each placeholder is replaced wherever it is in an argument.
        """
        self.assertEqual(
            substitute(["e", "gomoku://{host}:{port}", "--name", "{name}",
                        "--room={room}", "--key", "{key}"],
                       "127.0.0.1", 4321, "7-3-2", "alice", "K3Y"),
            ["e", "gomoku://127.0.0.1:4321", "--name", "alice",
             "--room=7-3-2", "--key", "K3Y"])

    def test_noShell(self):
        """
        A value with spaces or shell characters stays one argument, as it
        is; nothing is interpreted.
        """
        self.assertEqual(
            substitute(["run", "{name}"], "h", 1, "r", "a b; rm -rf ~ $X"),
            ["run", "a b; rm -rf ~ $X"])

    def test_otherBraces(self):
        """
        Braces that are not a placeholder are left alone, and a value
        holding a placeholder is not expanded again.
        """
        self.assertEqual(
            substitute(['{"x": 1}', "{nope}", "{name}"], "h", 1, "r",
                       "{key}", "secret"),
            ['{"x": 1}', "{nope}", "{key}"])

    def test_noKey(self):
        """
        Without a key, C{{key}} is empty.
        """
        self.assertEqual(substitute(["{key}"], "h", 1, "r", "n", None),
                         [""])


class PathTests(SynchronousTestCase):
    """
    Paths of logs and working folders are derived safely.
    """

    def test_traversal(self):
        """
        No part can climb out or hide: C{..}, C{/} and C{.} are encoded.
        """
        for text in ("..", "../../etc/passwd", "/etc", ".hidden", "a/b"):
            part = pathPart(text)
            self.assertNotIn("/", part)
            self.assertNotIn(".", part)
        root = tempPath(self)
        path = gamePath(root, 1, "..", "../../x", ".log")
        self.assertEqual(os.path.dirname(os.path.dirname(
            os.path.dirname(path))), os.path.realpath(root))

    def test_distinct(self):
        """
        Different names give different parts; plain names stay readable.
        """
        self.assertEqual(pathPart("bot_1-a"), "bot_1-a")
        self.assertNotEqual(pathPart("a.b"), pathPart("a_b"))
        self.assertNotEqual(pathPart("a%2Eb"), pathPart("a.b"))
        self.assertEqual(pathPart("é"), "%C3%A9")

    def test_roundTrip(self):
        """
        L{fromPathPart} gives back the text; what L{pathPart} cannot
        have made is refused.
        """
        for text in ("alice", "a.b", "..", "é/x%", "7-3-2", "%41"):
            self.assertEqual(fromPathPart(pathPart(text)), text)
        for part in ("", ".", "..", "a.b", "%41", "%zz", "a/b", "%4"):
            self.assertRaises(ValueError, fromPathPart, part)

    def test_empty(self):
        """
        An empty part is refused.
        """
        self.assertRaises(ValueError, pathPart, "")

    def test_engineLogTraversal(self):
        """
        L{EngineLauncher.engineLog} finds only logs under its root: a
        file beside the root cannot be read through C{..} names.
        """
        base = tempPath(self)
        os.makedirs(base)
        with open(os.path.join(base, "secret.log"), "wb") as f:
            f.write(b"not yours")
        launcher = EngineLauncher(reactor, Clock(), {},
                                  NoSandbox(reactor, base),
                                  os.path.join(base, "logs"))
        for event, room, name in [("..", "..", "secret"),
                                  ("../..", "x", "../secret"),
                                  ("", "", "")]:
            self.assertRaises(KeyError, launcher.engineLog, event, room,
                              name)

    def test_stopCancelsProbe(self):
        """
        A launcher stopped while its sandbox's probe runs (a hub stopped
        during its start-up) cancels the probe, which kills it, and is
        stopped once the probe has ended.
        """
        base = tempPath(self)
        cancelled = []
        ended = defer.Deferred()

        class SlowProbe(NoSandbox):
            def probe(self):
                def cancel(probing):
                    cancelled.append(probing)
                    probing.callback(None)
                # Cancelled, it waits for the probe's end.
                return defer.Deferred(cancel).addCallback(lambda _: ended)
        launcher = EngineLauncher(reactor, Clock(), {},
                                  SlowProbe(reactor, base),
                                  os.path.join(base, "logs"))
        launcher.startService()
        stopped = launcher.stopService()
        self.assertEqual(len(cancelled), 1)
        self.assertNoResult(stopped)
        ended.callback(None)
        self.successResultOf(stopped)


class GameLogTests(SynchronousTestCase):
    """
    L{GameLog} bounds and masks what an engine writes.
    """

    def read(self, path):
        with open(path, "rb") as f:
            return f.read()

    def test_cap(self):
        """
        Past the cap, output is dropped with one note, and the count of
        dropped bytes is written at the end.
        """
        path = tempPath(self)
        log = GameLog(path, cap=10)
        log.write(b"0123456")
        log.write(b"789abcdef")
        log.write(b"ghij")
        log.close("done")
        text = self.read(path)
        self.assertTrue(text.startswith(b"0123456789\n# [the log reached "
                                        b"10 bytes"))
        self.assertIn(b"# 10 bytes of output dropped past the 10-byte cap",
                      text)
        self.assertTrue(text.endswith(b"# done\n"))
        self.assertNotIn(b"abc", text)

    def test_keyMasked(self):
        """
        The key never reaches the file, even split across writes, and
        the text around it is kept.
        """
        path = tempPath(self)
        log = GameLog(path, secrets=["s3cr3tK3y"])
        log.note("argv: --key s3cr3tK3y")
        for chunk in (b"name alice#s3c", b"r3tK", b"3y won; s3", b"cr",
                      b"3tK3y!", b" s3cr"):
            log.write(chunk)
        log.close()
        text = self.read(path)
        self.assertNotIn(b"s3cr3tK3y", text)
        self.assertIn(b"# argv: --key [key]\n", text)
        self.assertIn(b"name alice#[key] won; [key]! s3cr", text)


def defaultOptions():
    """
    C{twistd gamehub}'s options with every default.
    """
    options = Options()
    options.parseOptions([])
    return options


class GateTests(SynchronousTestCase):
    """
    Engines' connections are exempt from the per-address cap: 64 engines
    from the loopback address are admitted, with the hub's default limits,
    after the address has used up its cap.
    """

    def test_sixtyFourEngines(self):
        """
        With C{--max-connections-per-ip 100} (the default) used up by
        ordinary connections from 127.0.0.1, a 101st ordinary one is
        refused, and 64 engine connections from 127.0.0.1 on private
        listeners are all admitted (and counted in all).
        """
        options = defaultOptions()
        self.assertEqual(options.limits().maxConnectionsPerIP, 100)
        clock = Clock()
        hub = Hub(clock, limits=options.limits())
        hub.startService()
        self.addCleanup(hub.stopService)
        gomoku = makeFactories(options, hub.lobby, hub.sessions,
                               hub.clock)["gomoku-port"]
        gate = hub.sessions.gate
        self.assertIsInstance(gate, ConnectionGate)
        ports = iter(range(20000, 30000))

        def connect(factory):
            address = IPv4Address("TCP", "127.0.0.1", next(ports))
            protocol = factory.buildProtocol(address)
            transport = StringTransport(peerAddress=address)
            protocol.makeConnection(transport)
            return transport

        ordinary = [connect(gomoku) for _ in range(100)]
        self.assertFalse(any(t.disconnecting for t in ordinary))
        self.assertTrue(connect(gomoku).disconnecting)
        launcher = EngineLauncher(clock, clock, {"gomoku": gomoku},
                                  NoSandbox(clock, tempPath(self)),
                                  tempPath(self))
        game = engines.EngineGame(launcher, Event(1), Pairing("1-1-1"),
                                  "gomoku")
        seats = [engines.EngineSeat(game, Entrant("e%d" % i, ["x"]))
                 for i in range(64)]
        for seat in seats:
            game.seats[seat.name] = seat
        transports = [connect(EngineFactory(gomoku.engineDoor(), seat))
                      for seat in seats]
        self.assertEqual([t.disconnecting for t in transports],
                         [False] * 64)
        self.assertEqual(gate.connections, 164)
        self.assertEqual([len(s.protocols) for s in seats], [1] * 64)


class FakeProcess:
    """
    The transport of a process that L{SpawningReactor} pretends to run.
    """

    pid = None

    def closeStdin(self):
        pass


def ended(handle):
    """
    The pretend process of C{handle} (a L{hub.sandbox.process.
    SandboxedProcess}) exits, if it has not.
    """
    if handle.protocol.running:
        handle.processEnded(Failure(ProcessDone(0)))


class SpawningReactor(MemoryReactor):
    """
    A L{MemoryReactor} that records C{spawnProcess} calls and connects
    each process protocol to a L{FakeProcess}.
    """

    def __init__(self):
        MemoryReactor.__init__(self)
        self.spawned = []

    def spawnProcess(self, protocol, executable, args=(), env=None,
                     path=None, **kwargs):
        self.spawned.append((protocol, args, env, path))
        transport = FakeProcess()
        protocol.makeConnection(transport)
        return transport


class GameKeyTests(SynchronousTestCase):
    """
    Under C{--names accounts} or C{closed}, the runner mints a one-time
    game key for each engine of a game (the director has no plain key to
    give: keys are stored hashed), fills C{{key}} and C{GAMEHUB_KEY} with
    it, keeps it out of the log, and takes it back when the game stops;
    the engine's private listener proves its name with it.
    """

    def setUp(self):
        from tests.accounts.test_check import withNames
        from tests.gomoku.support import GomokuHarness
        self.server = GomokuHarness()
        self.names, _ = withNames(self.server, "closed")
        self.reactor = SpawningReactor()
        self.clock = Clock()
        root = os.path.abspath(tempPath(self))
        self.launcher = EngineLauncher(
            self.reactor, self.clock, {"gomoku": self.server.factory},
            NoSandbox(self.reactor, os.path.join(root, "work")),
            os.path.join(root, "logs"))
        self.command = ["engine", "--name", "{name}", "--key", "{key}",
                        "--room", "{room}"]
        self.launches = []
        self.addCleanup(self.end)

    def launch(self, entrants=None):
        d = self.launcher.launch(Event(3), Pairing("3-2-1"), entrants or [
            Entrant("alice", self.command), Entrant("robot", self.command)])
        self.launches.append(d)
        return d

    def test_keysMinted(self):
        """
        Each engine gets a key of its own in its command line and its
        environment, and none in its log; the keys are those the name
        check holds for the game.
        """
        self.launch()
        self.assertEqual(len(self.reactor.spawned), 2)
        keys = []
        for (_, args, env, _), name in zip(self.reactor.spawned,
                                           ("alice", "robot")):
            argv = list(args[args.index("--") + 1:])
            key = env[KEY_VARIABLE]
            self.assertRegex(key, r"^[A-Za-z0-9]{10}$")
            self.assertEqual(argv, ["engine", "--name", name, "--key", key,
                                    "--room", "3-2-1"])
            log = self.launcher.engineLog(Event(3), "3-2-1", name)
            self.assertNotIn(key.encode(), log)
            self.assertIn(b"--key [key] --room 3-2-1", log)
            keys.append(key)
        self.assertNotEqual(keys[0], keys[1])
        self.assertEqual(len(self.names.gameKeys), 2)
        self.assertTrue(self.names.gameKeys.redeem("3-2-1", "alice",
                                                   keys[0]))

    def connect(self, index):
        """
        A gomoku connection to the private listener of engine C{index}.
        """
        from tests.gomoku.support import FakeConnection
        factory = self.reactor.tcpServers[index][1]
        return FakeConnection(*self.server.connectTo(factory))

    def test_privateListenerProves(self):
        """
        Under C{--names closed}, each engine registers with its game key
        on its private listener: the account as registered, the engine
        named by the admin as a guest; the launch fires.  The hub's public
        port refuses the same keys.
        """
        launched = self.launch()
        keys = [env[KEY_VARIABLE]
                for _, _, env, _ in self.reactor.spawned]
        public = self.server.connect()
        public.register("alice#" + keys[0])
        self.assertNoResult(launched)
        connections = []
        for index, (name, key) in enumerate(zip(("alice", "robot"), keys)):
            connection = self.connect(index)
            connection.register(name + "#" + key)
            connections.append(connection)
        sessions = [c.protocol.session for c in connections]
        self.assertEqual([(s.name, s.guest) for s in sessions],
                         [("Alice", False), ("robot", True)])
        self.assertEqual(self.names.refused[check.WRONG_KEY], 1)
        self.assertIsInstance(self.successResultOf(launched),
                              engines.EngineGame)
        self.assertEqual(len(self.names.gameKeys), 0)

    def test_othersNamesRefused(self):
        """
        On an engine's private listener, only its entrant's name can be
        registered: another entrant's, with that entrant's own game key
        or with none (a guest's name), is refused as taken, and does not
        use up that key.
        """
        self.launch()
        keys = [env[KEY_VARIABLE]
                for _, _, env, _ in self.reactor.spawned]
        for wire in ("robot#" + keys[1], "robot", "ROBOT", "alice#x"):
            connection = self.connect(0)
            connection.register(wire)
            answer, = connection.messages()
            self.assertEqual(answer["status"], gomokuWire.S_PLAYER_EXISTS,
                             wire)
            self.assertIsNone(connection.protocol.session.name, wire)
        connection = self.connect(1)
        connection.register("robot#" + keys[1])
        answer, = connection.messages()
        self.assertEqual(answer["status"], 0)

    def end(self):
        """
        The fake engines exit, and the game stops.
        """
        for d in self.launches:
            d.addErrback(lambda f: f.trap(EngineFailed))
        for handle, _, _, _ in self.reactor.spawned:
            ended(handle)
        self.launcher.stop(Pairing("3-2-1"))

    def test_revokedAtStop(self):
        """
        Keys not used when the game stops are taken back: the name check
        no longer holds them.
        """
        self.launch()
        self.assertEqual(len(self.names.gameKeys), 2)
        self.end()
        self.assertEqual(len(self.names.gameKeys), 0)

    def test_openNames(self):
        """
        Without a name check (C{--names open}) there is no key: C{{key}}
        is empty and C{GAMEHUB_KEY} unset.
        """
        self.server.factory.names = None
        self.launch()
        for _, args, env, _ in self.reactor.spawned:
            self.assertNotIn(KEY_VARIABLE, env)
            self.assertEqual(args[-4:], ["--key", "", "--room", "3-2-1"])

    def test_entrantsOwnKey(self):
        """
        A key the director gives an entrant (its own) is used as it is,
        and none is minted for it.
        """
        self.launch([Entrant("alice", self.command, key="Own0key123")])
        (_, args, env, _), = self.reactor.spawned
        self.assertEqual(env[KEY_VARIABLE], "Own0key123")
        self.assertIn("Own0key123", args)
        self.assertEqual(len(self.names.gameKeys), 0)


class GameWatcher:
    """
    A table listener of the hub: the games that ended, by room.
    """

    def __init__(self):
        self.ended = {}
        self.tables = {}
        self._waiting = {}

    def tableEvent(self, table, event):
        if isinstance(event, events.GameEnded):
            self.ended[table.name] = event
            self.tables[table.name] = table
            for d in self._waiting.pop(table.name, []):
                d.callback(event)

    def whenEnded(self, room):
        if room in self.ended:
            return defer.succeed(self.ended[room])
        d = defer.Deferred()
        self._waiting.setdefault(room, []).append(d)
        return d


def bounded(d, seconds=WAIT):
    """
    C{d}, failing with a timeout after C{seconds} of real time.
    """
    return d.addTimeout(seconds, reactor)


def inProcessHub(case):
    """
    A started in-process hub with the default options, stopped after
    C{case}, with a L{GameWatcher} of its tables.

    @return: C{(hub, watcher, factories)}.
    """
    options = defaultOptions()
    hub = Hub(reactor, limits=options.limits())
    hub.startService()
    case.addCleanup(lambda: hub.stopService() if hub.running else None)
    watcher = GameWatcher()
    hub.lobby.addTableListener(watcher)
    return hub, watcher, makeFactories(options, hub.lobby, hub.sessions,
                                       hub.clock)


class LaunchTests(TestCase):
    """
    Real engines on private listeners of an in-process hub with the
    default options.
    """

    timeout = 4 * WAIT

    def setUp(self):
        self.hub, self.watcher, self.factories = inProcessHub(self)
        self.crashes = []
        self.clock = reactor
        self.root = os.path.abspath(tempPath(self))

    def sandbox(self):
        """
        The engines' sandbox: bwrap, the hub's default.
        """
        return BwrapSandbox(reactor, closed=[self.root])

    def launcher(self, clock=None, **kwargs):
        launcher = EngineLauncher(
            reactor, clock or reactor, self.factories, self.sandbox(),
            os.path.join(self.root, "logs"),
            onCrash=lambda *a: self.crashes.append(a), **kwargs)
        launcher.startService()
        self.addCleanup(launcher.stopService)
        return launcher

    def test_interface(self):
        """
        The launcher provides the whole of the director's
        L{IGameLauncher}.
        """
        self.assertTrue(verifyObject(IGameLauncher, self.launcher()))

    @defer.inlineCallbacks
    def test_gomokuBots(self):
        """
        Two bot-client engines play their gomoku game to its end in the
        pairing's room, each exits by itself, each log says its result;
        stopping the game closes the private listeners.  (Within 256 MB
        of address space: the bot client needs no more.)
        """
        launcher = self.launcher()
        event, pairing = Event(5), Pairing("5-1-1")
        entrants = [Entrant("black", bot("gomoku"), memoryBytes=256 * MB),
                    Entrant("white", bot("gomoku"), memoryBytes=256 * MB)]
        game = yield bounded(launcher.launch(event, pairing, entrants))
        self.assertEqual(sorted(game.seats), ["black", "white"])
        listeners = {s.listener.listening for s in game.seats.values()}
        self.assertEqual(len(listeners), 2)
        ended = yield bounded(self.watcher.whenEnded("5-1-1"))
        self.assertIn(ended.winner, (0, 1))
        exits = yield bounded(defer.gatherResults(
            [s.process.ended for s in game.seats.values()]))
        self.assertEqual(exits, ["exited with status 0"] * 2)
        yield launcher.stop(pairing)
        for name in ("black", "white"):
            log = launcher.engineLog(event, "5-1-1", name)
            self.assertRegex(log.decode(),
                             r"game 1: gomoku room 5-1-1: .*(win|lose)")
            self.assertIn(b"RLIMIT_CPU 30s", log)
            self.assertTrue(log.endswith(
                b"# exited with status 0 (by itself)\n"))
        for seat in game.seats.values():
            self.assertFalse(seat.listener.listening.connected)
        self.assertEqual(self.crashes, [])
        self.assertEqual(launcher.games, {})

    @defer.inlineCallbacks
    def test_leaveAfterTheGame(self):
        """
        Stopped as the director stops them, the moment their game ended
        (before the hub has even sent its end), two bot engines still
        see the game's end and exit by themselves: no failure in their
        logs, winner or loser.
        """
        launcher = self.launcher()
        event, pairing = Event(21), Pairing("21-1-1")
        stopped = []

        class Director:
            def tableEvent(self, table, event):
                if isinstance(event, events.GameEnded):
                    stopped.append(launcher.stop(pairing, ended=True))

        # Told first, as the director may be, before the players.
        self.hub.lobby.tableListeners.insert(0, Director())
        game = yield bounded(launcher.launch(event, pairing, [
            Entrant("black", bot("gomoku")),
            Entrant("white", bot("gomoku"))]))
        exits = yield bounded(defer.gatherResults(
            [s.process.ended for s in game.seats.values()]))
        self.assertEqual(len(stopped), 1)
        self.assertEqual(exits, ["exited with status 0"] * 2)
        for name in ("black", "white"):
            log = launcher.engineLog(event, "21-1-1", name).decode()
            self.assertNotIn("failed", log)
            self.assertRegex(log, r"game 1: gomoku room 21-1-1: .*"
                                  r"(win|lose)")
            self.assertTrue(log.endswith(
                "# exited with status 0 (by itself)\n"), log)

    @defer.inlineCallbacks
    def test_leaveThenKilled(self):
        """
        An engine still there when the leave is over is stopped: its
        game ended, and after the launcher's leave (on its clock) it
        gets its SIGTERM.
        """
        clock = Clock()
        launcher = self.launcher(clock=clock, leaveSeconds=5)
        pairing = Pairing("21-1-2")
        game = yield bounded(launcher.launch(
            Event(21), pairing, [Entrant("s", CONNECTED)]))
        process = game.seats["s"].process
        launcher.stop(pairing, ended=True)
        clock.advance(4.9)
        self.assertTrue(process.running)
        self.assertFalse(process.stopping)
        clock.advance(0.1)
        how = yield bounded(process.ended)
        self.assertEqual(how, "killed by SIGTERM")

    @defer.inlineCallbacks
    def test_splendorBots(self):
        """
        Three Splendor bot engines (a protocol with no name and no room)
        are seated together at the pairing's room, which starts only
        with all three, and play to the end; each entrant's connection
        is known.
        """
        launcher = self.launcher()
        pairing = Pairing("6-1-1", "splendor")
        entrants = [Entrant(n, bot("splendor")) for n in ("a", "b", "c")]
        game = yield bounded(launcher.launch(Event(6, "splendor"), pairing,
                                             entrants))
        ended = yield bounded(self.watcher.whenEnded("6-1-1"))
        self.assertEqual(ended.reason, "normal")
        self.assertEqual(len(ended.ranking), 3)
        for seat in game.seats.values():
            self.assertEqual(len(seat.protocols), 1)
            self.assertEqual(
                launcher.entrantOf("6-1-1", seat.protocol.session.id),
                seat.name)
        yield bounded(defer.gatherResults(
            [s.process.ended for s in game.seats.values()]))
        self.assertEqual(self.crashes, [])

    @defer.inlineCallbacks
    def test_checkersBots(self):
        """
        Three checkers bot engines, each ready as soon as it is in the
        room, play one three-player game in the pairing's room (not a
        two-player game of the first two ready).
        """
        launcher = self.launcher()
        pairing = Pairing("17-1-1", "checkers")
        entrants = [Entrant(n, bot("checkers", level=2))
                    for n in ("a", "b", "c")]
        game = yield bounded(launcher.launch(Event(17, "checkers"), pairing,
                                             entrants))
        ended = yield bounded(self.watcher.whenEnded("17-1-1"))
        self.assertEqual(len(self.watcher.tables["17-1-1"].seats), 3)
        self.assertEqual(ended.reason, events.NORMAL)
        yield bounded(defer.gatherResults(
            [s.process.ended for s in game.seats.values()]))
        self.assertEqual(self.crashes, [])

    @defer.inlineCallbacks
    def test_crashAtStart(self):
        """
        An engine that exits at start fails the launch: L{EngineFailed}
        names it, and its log, readable by an admin, says how it ended.
        """
        launcher = self.launcher()
        pairing = Pairing("7-1-1")
        entrants = [Entrant("quitter",
                            python("import sys; print('bye'); "
                                   "sys.exit(3)")),
                    Entrant("person")]
        failure = yield bounded(self.assertFailure(
            launcher.launch(Event(7), pairing, entrants), EngineFailed))
        self.assertEqual(failure.name, "quitter")
        self.assertEqual(failure.reason,
                         "exited with status 3 before its game began")
        yield launcher.stop(pairing)
        self.assertEqual(launcher.engineLogs(Event(7)), [("7-1-1",
                                                          "quitter")])
        self.assertEqual(launcher.engineLogs(99), [])
        log = launcher.engineLog(Event(7), "7-1-1", "quitter")
        self.assertIn(b"bye\n", log)
        self.assertTrue(log.endswith(b"# exited with status 3 (by itself)"
                                     b"\n"))

    @defer.inlineCallbacks
    def test_cannotRun(self):
        """
        A command that cannot be run fails the launch too.
        """
        launcher = self.launcher()
        pairing = Pairing("7-1-2")
        failure = yield bounded(self.assertFailure(launcher.launch(
            Event(7), pairing, [Entrant("ghost", ["/nonexistent/engine"])]),
            EngineFailed))
        self.assertEqual(failure.reason,
                         "exited with status 127 before its game began")
        log = launcher.engineLog(Event(7), "7-1-2", "ghost")
        self.assertIn(b"cannot run '/nonexistent/engine'", log)

    @defer.inlineCallbacks
    def test_hangAtStart(self):
        """
        An engine that never connects fails the launch after the start
        timeout (on the launcher's clock), and is killed.
        """
        clock = Clock()
        launcher = self.launcher(clock=clock, startSeconds=30)
        pairing = Pairing("8-1-1")
        entrants = [Entrant("sleeper", python(
            "import time; print('sleeping', flush=True); time.sleep(600)"))]
        launched = launcher.launch(Event(8), pairing, entrants)
        seat = launcher.games["8-1-1"].seats["sleeper"]
        yield bounded(seat.process.outputSeen)
        clock.advance(29)
        self.assertNoResult(launched)
        clock.advance(1)
        failure = self.failureResultOf(launched, EngineFailed).value
        self.assertEqual(failure.reason, "not connected within 30s")
        how = yield bounded(seat.process.ended)
        self.assertEqual(how, "killed by SIGTERM")
        yield launcher.stop(pairing)
        self.assertEqual(clock.getDelayedCalls(), [])
        log = launcher.engineLog(Event(8), "8-1-1", "sleeper")
        self.assertIn(b"sleeping\n", log)
        self.assertTrue(log.endswith(
            b"# killed by SIGTERM (stopped by the runner)\n"))

    @defer.inlineCallbacks
    def test_hangInGame(self):
        """
        An engine that connects and then hangs, ignoring SIGTERM, is
        killed at stop: SIGTERM, then SIGKILL after the grace on the
        clock.
        """
        clock = Clock()
        launcher = self.launcher(clock=clock, grace=5)
        pairing = Pairing("8-1-2")
        game = yield bounded(launcher.launch(
            Event(8), pairing, [Entrant("stubborn", STUBBORN)]))
        process = game.seats["stubborn"].process
        yield bounded(process.outputSeen)
        stopped = launcher.stop(pairing)
        self.assertTrue(process.running)
        clock.advance(5)
        how = yield bounded(process.ended)
        self.assertEqual(how, "killed by SIGKILL")
        yield bounded(stopped)
        self.assertEqual(self.crashes, [])
        log = launcher.engineLog(Event(8), "8-1-2", "stubborn")
        self.assertIn(b"connected, ignoring SIGTERM\n", log)

    @defer.inlineCallbacks
    def test_garbage(self):
        """
        An engine that sends only malformed frames is closed by the hub
        (the protocol's own limit); it then exits with an error, which
        is reported as a crash of that entrant; its log says so.
        """
        launcher = self.launcher()
        pairing = Pairing("9-1-1")
        game = yield bounded(launcher.launch(
            Event(9), pairing, [Entrant("noise", GARBAGE)]))
        how = yield bounded(game.seats["noise"].process.ended)
        self.assertEqual(how, "exited with status 1")
        self.assertEqual(self.crashes, [(pairing, "noise",
                                         "exited with status 1")])
        log = launcher.engineLog(Event(9), "9-1-1", "noise")
        self.assertIn(b"closed by the hub\n", log)

    @defer.inlineCallbacks
    def test_illegalMoves(self):
        """
        An engine that plays only illegal moves (stones off the board)
        ends its game by the table's illegal-move limit, on its own turn,
        against a bot engine; both logs say so.
        """
        launcher = self.launcher()
        pairing = Pairing("9-1-2")
        entrants = [Entrant("cheat", [sys.executable, ILLEGAL, "{host}",
                                      "{port}", "{name}", "{room}"],
                            folder=os.path.dirname(ILLEGAL)),
                    Entrant("fair", bot("gomoku"))]
        game = yield bounded(launcher.launch(Event(9), pairing, entrants))
        ended = yield bounded(self.watcher.whenEnded("9-1-2"))
        self.assertEqual(ended.reason, events.ILLEGAL)
        yield bounded(defer.gatherResults(
            [s.process.ended for s in game.seats.values()]))
        cheat = launcher.engineLog(Event(9), "9-1-2", "cheat")
        self.assertIn(b"move refused 6\n", cheat)
        self.assertIn(b"game over", cheat)
        # Ended in error (no winner, as the protocol has it) on the
        # cheat's first turn (it is black, seat 0: the board is empty):
        # the director forfeits the seat to move.
        table = self.watcher.tables["9-1-2"]
        self.assertIsNone(ended.winner)
        self.assertTrue(table.game.isError)
        self.assertEqual(set(table.game.board), {0})
        self.assertTrue(table.seats[0].name.startswith("cheat"))
        fair = launcher.engineLog(Event(9), "9-1-2", "fair")
        # (The gomoku protocol tells both players "error" for this end.)
        self.assertIn(b"\ngame 1: gomoku room 9-1-2: fair", fair)

    @defer.inlineCallbacks
    def test_environment(self):
        """
        An engine has C{PATH}, C{HOME} (its working folder, where it
        starts) and its game's C{GAMEHUB_*} values, nothing of the hub's.
        """
        launcher = self.launcher()
        pairing = Pairing("10-1-1")
        launched = launcher.launch(Event(10), pairing, [Entrant(
            "env", python("import json, os; print(json.dumps("
                          "[dict(os.environ), os.getcwd()]))"))])
        yield bounded(self.assertFailure(launched, EngineFailed))
        lines = launcher.engineLog(Event(10), "10-1-1", "env").decode(
            ).splitlines()
        env, cwd = json.loads(lines[1])
        # (bwrap says where it started; Python may add LC_CTYPE.)
        self.assertEqual(set(env) - {"LC_CTYPE", "PWD"}, {
            "HOME", "PATH", "GAMEHUB_GAME", "GAMEHUB_HOST", "GAMEHUB_PORT",
            "GAMEHUB_ROOM", "GAMEHUB_NAME"})
        self.assertEqual((env["HOME"], cwd), ("/tmp", "/tmp"))
        self.assertEqual(
            [env[k] for k in ("GAMEHUB_GAME", "GAMEHUB_HOST", "GAMEHUB_PORT",
                              "GAMEHUB_ROOM", "GAMEHUB_NAME")],
            ["gomoku", "127.0.0.1", "11011", "10-1-1", "env"])

    @defer.inlineCallbacks
    def test_nothingLeftOnDisk(self):
        """
        What an engine writes goes with it: the launcher's folder holds
        its game's log only.
        """
        launcher = self.launcher()
        writer = launcher.launch(Event(15), Pairing("15-1-1"), [Entrant(
            "writer", python("open('book.txt', 'w').write('e4' * 1000)"))])
        yield bounded(self.assertFailure(writer, EngineFailed))
        found = [os.path.relpath(os.path.join(folder, name), self.root)
                 for folder, _, names in os.walk(self.root)
                 for name in names]
        self.assertEqual(found, ["logs/15/15-1-1/writer.log"])

    def test_seatedTwice(self):
        """
        A pairing that seats one engine entrant twice is refused.
        """
        launcher = self.launcher()
        failure = self.failureResultOf(launcher.launch(
            Event(16), Pairing("16-1-1"), [Entrant("a", ["x"]),
                                           Entrant("a", ["x"])]),
            EngineFailed).value
        self.assertEqual(failure.reason, "an entrant is seated twice in "
                                         "16-1-1")
        self.assertEqual(launcher.games, {})

    @defer.inlineCallbacks
    def test_keyNeverLogged(self):
        """
        An engine's key reaches its command line, never its log (not the
        runner's note of the command, not the engine's own output).
        """
        launcher = self.launcher()
        pairing = Pairing("11-1-1")
        launched = launcher.launch(Event(11), pairing, [Entrant(
            "keyed", python("import sys; print('my key is', sys.argv[1])")
            + ["{key}"], key="Zq8x7Wk2")])
        yield bounded(self.assertFailure(launched, EngineFailed))
        log = launcher.engineLog(Event(11), "11-1-1", "keyed")
        self.assertNotIn(b"Zq8x7Wk2", log)
        self.assertIn(b"my key is [key]\n", log)

    @defer.inlineCallbacks
    def test_stopService(self):
        """
        Stopping the launcher (the hub stopping) kills every engine of
        every game.
        """
        launcher = self.launcher()
        games = []
        for room in ("12-1-1", "12-1-2"):
            game = yield bounded(launcher.launch(
                Event(12), Pairing(room), [Entrant("s", CONNECTED)]))
            games.append(game)
        yield bounded(launcher.stopService())
        self.assertEqual(
            [g.seats["s"].process.ended.result for g in games],
            ["killed by SIGTERM"] * 2)
        self.assertEqual(launcher.games, {})

    @defer.inlineCallbacks
    def test_orphansKilled(self):
        """
        What an engine starts dies with it, even in a session of its
        own: its launch fails as it exits, and the sleeper it left is
        gone.
        """
        launcher = self.launcher()
        pairing = Pairing("13-1-1")
        marker = "orphan-%d" % (id(self),)
        launched = launcher.launch(Event(13), pairing, [Entrant(
            "forker", python("""
                import os, sys, time
                if os.fork() == 0:
                    os.setsid()
                    os.execvp("sleep", [sys.argv[1], "600"])
                time.sleep(1)
                sys.exit(5)
            """) + [marker])])
        failure = yield bounded(self.assertFailure(launched, EngineFailed))
        self.assertEqual(failure.reason,
                         "exited with status 5 before its game began")
        yield bounded(waitFor(lambda: not marked(marker, marker)), 10)

    @defer.inlineCallbacks
    def test_stopEvent(self):
        """
        Stopping an event kills its engines only; a second launch of a
        game that runs is refused meanwhile.
        """
        launcher = self.launcher()
        connect = CONNECTED
        first = yield bounded(launcher.launch(
            Event(19), Pairing("19-1-1"), [Entrant("s", connect)]))
        other = yield bounded(launcher.launch(
            Event(20), Pairing("20-1-1"), [Entrant("s", connect)]))
        again = self.failureResultOf(launcher.launch(
            Event(19), Pairing("19-1-1"), [Entrant("s", connect)]),
            EngineFailed).value
        self.assertEqual(again.reason, "game 19-1-1 is running already")
        yield bounded(launcher.stopEvent(Event(19)))
        self.assertEqual(first.seats["s"].process.ended.result,
                         "killed by SIGTERM")
        self.assertTrue(other.seats["s"].process.running)
        self.assertEqual(list(launcher.games), ["20-1-1"])

    @defer.inlineCallbacks
    def test_hubStops(self):
        """
        As a child service of the hub, on the hub's clock, the launcher
        is stopped with the hub: an engine that ignores SIGTERM gets its
        SIGKILL after the grace, and the hub's stop waits for it.
        """
        launcher = EngineLauncher(
            reactor, self.hub.clock, self.factories, self.sandbox(),
            os.path.join(self.root, "logs"), grace=0.5)
        launcher.setServiceParent(self.hub)
        game = yield bounded(launcher.launch(
            Event(18), Pairing("18-1-1"), [Entrant("stubborn", STUBBORN)]))
        process = game.seats["stubborn"].process
        yield bounded(process.outputSeen)
        yield bounded(self.hub.stopService())
        self.assertEqual(process.ended.result, "killed by SIGKILL")
        self.assertEqual(self.hub.clock.getDelayedCalls(), [])


class Silent(Protocol):
    """
    A client that connects and says nothing.
    """


class SixtyFourTests(TestCase):
    """
    A 64-engine event runs with the hub's default options: 64 engines
    connected from the hub's own address are all admitted, even with
    that address's cap used up by ordinary connections.
    """

    timeout = 4 * WAIT

    @defer.inlineCallbacks
    def test_sixtyFourEngines(self):
        """
        100 ordinary connections from 127.0.0.1 to the gomoku port (the
        default C{--max-connections-per-ip}) and a 101st refused; then
        32 games of 2 engines each launch, every engine connected and
        admitted; stopping kills all 64.
        """
        options = defaultOptions()
        hub = Hub(reactor, limits=options.limits())
        hub.startService()
        self.addCleanup(hub.stopService)
        factories = makeFactories(options, hub.lobby, hub.sessions,
                                  hub.clock)
        port = yield endpoints.serverFromString(
            reactor, "tcp:0:interface=127.0.0.1").listen(
                factories["gomoku-port"])
        self.addCleanup(port.stopListening)
        client = endpoints.TCP4ClientEndpoint(reactor, "127.0.0.1",
                                              port.getHost().port)
        ordinary = []
        for _ in range(101):
            protocol = yield endpoints.connectProtocol(client, Silent())
            ordinary.append(protocol)
        self.addCleanup(lambda: [p.transport.loseConnection()
                                 for p in ordinary])
        gate = hub.sessions.gate
        yield bounded(waitFor(lambda: gate.connections == 100 and not
                              ordinary[100].transport.connected))
        root = os.path.abspath(tempPath(self))
        launcher = EngineLauncher(
            reactor, reactor, factories, BwrapSandbox(reactor),
            os.path.join(root, "logs"))
        launcher.startService()
        self.addCleanup(launcher.stopService)
        idle = CONNECTED
        launches = [launcher.launch(Event(14), Pairing("14-1-%d" % board), [
            Entrant("e%d" % (2 * board), idle, memoryBytes=256 * MB),
            Entrant("e%d" % (2 * board + 1), idle, memoryBytes=256 * MB)])
            for board in range(1, 33)]
        games = yield bounded(defer.gatherResults(launches,
                                                  consumeErrors=True))
        self.assertEqual(len(games), 32)
        yield bounded(waitFor(lambda: gate.connections == 164))
        protocols = [seat.protocol for game in games
                     for seat in game.seats.values()]
        self.assertEqual(len(protocols), 64)
        self.assertTrue(all(p.transport.connected for p in protocols))
        yield bounded(launcher.stopService())
        self.assertEqual(
            {seat.process.ended.result for game in games
             for seat in game.seats.values()}, {"killed by SIGTERM"})
        yield bounded(waitFor(lambda: gate.connections == 100))


class SignalledProcess(FakeProcess):
    """
    A pretend process that a signal ends (its group is none: no process
    has the id L{pid}, above any kernel's C{pid_max}).
    """

    pid = 2 ** 31 - 1

    def __init__(self, protocol):
        self.protocol = protocol

    def signalProcess(self, name):
        ended(self.protocol)


class SignallingReactor(SpawningReactor):
    """
    A L{SpawningReactor} whose processes a signal ends.
    """

    def spawnProcess(self, protocol, executable, args=(), env=None,
                     path=None, **kwargs):
        self.spawned.append((protocol, args, env, path))
        transport = SignalledProcess(protocol)
        protocol.makeConnection(transport)
        return transport


class StartTurnTests(SynchronousTestCase):
    """
    Only so many games' engines start at once
    (C{EngineLauncher.starting}): a round of many engine games does not
    start every interpreter at the same moment, on a small machine, so
    that the first ones time out before the hub can answer them.
    """

    def setUp(self):
        from tests.gomoku.support import GomokuHarness
        self.server = GomokuHarness()
        self.reactor = SignallingReactor()
        self.clock = Clock()
        root = os.path.abspath(tempPath(self))
        self.launcher = EngineLauncher(
            self.reactor, self.clock, {"gomoku": self.server.factory},
            NoSandbox(self.reactor, os.path.join(root, "work")),
            os.path.join(root, "logs"), startingAtOnce=1)
        self.command = ["engine", "--room", "{room}"]
        self.games = []

    def launch(self, room):
        d = self.launcher.launch(Event(3), Pairing(room), [
            Entrant("a" + room, self.command),
            Entrant("b" + room, self.command)])
        d.addErrback(lambda f: f.trap(EngineFailed))
        self.games.append(room)
        return d

    def spawnedRooms(self):
        return [args[-1] for _, args, _, _ in self.reactor.spawned]

    def connect(self, index):
        from tests.gomoku.support import FakeConnection
        factory = self.reactor.tcpServers[index][1]
        return FakeConnection(*self.server.connectTo(factory))

    def tearDown(self):
        for handle, _, _, _ in self.reactor.spawned:
            ended(handle)
        for room in self.games:
            self.launcher.stop(Pairing(room))

    def test_oneGameStartsAtATime(self):
        """
        With one start turn, the second game's engines are spawned only
        once the first game's have all connected.
        """
        first = self.launch("3-1-1")
        self.launch("3-1-2")
        self.assertEqual(self.spawnedRooms(), ["3-1-1", "3-1-1"])
        self.connect(0)
        self.assertEqual(len(self.reactor.spawned), 2)
        self.connect(1)
        self.assertTrue(first.called)
        self.assertEqual(self.spawnedRooms(),
                         ["3-1-1", "3-1-1", "3-1-2", "3-1-2"])

    def test_turnBackWhenTheStartFails(self):
        """
        A game whose engines do not connect in time gives its turn back
        when it fails: the next game's engines start.
        """
        failed = self.launch("3-1-1")
        self.launch("3-1-2")
        self.clock.advance(self.launcher.startSeconds)
        self.assertTrue(failed.called)
        self.assertEqual(self.spawnedRooms()[2:], ["3-1-2", "3-1-2"])

    def test_turnBackWhenStopped(self):
        """
        A game stopped while its engines start, or while it waits its
        turn, holds no turn after.
        """
        self.launch("3-1-1")
        self.launch("3-1-2")
        self.launch("3-1-3")
        self.launcher.stop(Pairing("3-1-2"))
        self.launcher.stop(Pairing("3-1-1"))
        self.assertEqual(self.spawnedRooms()[2:], ["3-1-3", "3-1-3"])
        self.assertEqual(self.launcher.starting.tokens, 0)
        self.launcher.stop(Pairing("3-1-3"))
        self.assertEqual(self.launcher.starting.tokens, 1)
