"""
Tests for L{hub.tap}: options and the service tree.
"""

import os
import shutil
import tempfile

from twisted.application.internet import StreamServerEndpointService
from twisted.internet.error import CannotListenError
from twisted.internet.protocol import Factory
from twisted.internet.testing import MemoryReactorClock
from twisted.python import usage
from twisted.trial.unittest import SynchronousTestCase

from hub import tap
from hub.limits import Limits, WebLimits
from hub.sessions import Sessions
from hub.thinkers.pool import BotPool, cpuCount
from hub.web.site import HubSite


def render(site, path):
    """
    Render C{path} on C{site}: C{(request, body)}.
    """
    from twisted.web.resource import getChildForRequest
    from twisted.web.test.requesthelper import DummyRequest
    request = DummyRequest(path.lstrip(b"/").split(b"/"))
    resource = getChildForRequest(site.resource, request)
    body = resource.render(request)
    if body is not None and not isinstance(body, int):
        request.write(body)
    return request, b"".join(request.written)


def parse(*argv):
    options = tap.Options()
    options.parseOptions(list(argv))
    return options


class OptionsTests(SynchronousTestCase):
    """
    Defaults and validation of C{twistd gamehub} options.
    """

    def test_defaults(self):
        """
        The defaults (docs/operations.md, "Options").
        """
        options = parse()
        self.assertEqual(
            (options["gomoku-port"], options["checkers-port"],
             options["splendor-port"], options["metrics-port"]),
            ("tcp:11011", "tcp:16666", "tcp:13204", "none"))
        self.assertEqual(options["grace-seconds"], 30)
        self.assertEqual(options["idle-seconds"], 0)
        self.assertEqual(options["gomoku-max-illegal"], 3)
        self.assertEqual(options["checkers-turn-seconds"], 15)
        self.assertFalse(options["checkers-four-players"])
        self.assertEqual(options["checkers-sizes"], (2, 3, 6))
        self.assertEqual(options["takeover"], "none")

    def test_checkersSizes(self):
        """
        --checkers-sizes takes a comma-separated list of player counts,
        sorted and without repeats; --checkers-four-players adds 4.
        """
        self.assertEqual(parse("--checkers-sizes", "6,1, 2,4,3,2")[
            "checkers-sizes"], (1, 2, 3, 4, 6))
        self.assertEqual(parse("--checkers-sizes", "1")["checkers-sizes"],
                         (1,))
        self.assertEqual(parse("--checkers-four-players")["checkers-sizes"],
                         (2, 3, 4, 6))
        self.assertEqual(parse("--checkers-four-players",
                               "--checkers-sizes", "1,4")["checkers-sizes"],
                         (1, 4))
        for bad in ("", "5", "2,7", "two", "0", "2,,3"):
            self.assertRaises(usage.UsageError, parse, "--checkers-sizes",
                              bad)

    def test_badValues(self):
        """
        Unknown takeover modes, bot levels and negative numbers are usage
        errors.
        """
        self.assertRaises(usage.UsageError, parse, "--takeover", "human")
        self.assertRaises(usage.UsageError, parse, "--bot-level", "4")
        self.assertRaises(usage.UsageError, parse, "--grace-seconds", "-1")
        self.assertRaises(usage.UsageError, parse, "--idle-seconds", "-1")
        self.assertRaises(usage.UsageError, parse, "--log-level", "loud")
        self.assertRaises(usage.UsageError, parse, "--frame-seconds", "-1")
        self.assertRaises(usage.UsageError, parse, "--max-send-buffer",
                          "lots")

    def test_proxiesAndHealth(self):
        """
        --trusted-proxies (default none) and --health-from (default the
        private ranges) are lists of CIDRs; a bad one is a usage error
        naming it.
        """
        options = parse()
        self.assertFalse(options["trusted-proxies"])
        self.assertTrue(options["health-from"].contains("10.1.2.3"))
        self.assertFalse(options["health-from"].contains("192.0.2.1"))
        options = parse("--trusted-proxies", "10.0.0.0/8, 127.0.0.1",
                        "--health-from", "192.0.2.0/24")
        self.assertTrue(options["trusted-proxies"].contains("127.0.0.1"))
        self.assertTrue(options["health-from"].contains("192.0.2.1"))
        self.assertFalse(options["health-from"].contains("127.0.0.1"))
        door = options.door(None)
        self.assertTrue(door.resolver.trusts("10.9.9.9"))
        for option in ("--trusted-proxies", "--health-from"):
            error = self.assertRaises(usage.UsageError, parse, option,
                                      "10.0.0.0/8,nonsense")
            self.assertIn(option, str(error))
            self.assertIn("nonsense", str(error))

    def test_limitDefaults(self):
        """
        The limits' defaults (docs/operations.md, "Limits").
        """
        options = parse()
        self.assertEqual(options.limits(), Limits(
            maxSendBuffer=256 * 1024, frameSeconds=20,
            maxConnections=10000, maxConnectionsPerIP=100,
            requestRate=100, requestBurst=200, requestOverdraft=200))
        self.assertEqual(options.webLimits(), WebLimits(
            maxConnectionsPerIP=64, maxStreamsPerIP=32, requestRate=20,
            requestBurst=100, requestOverdraft=100, descriptorReserve=128))
        self.assertEqual(options["log-level"], "info")


class BotOptionsTests(SynchronousTestCase):
    """
    The bots' worker pool and shares (docs/bots.md, docs/operations.md).
    """

    def test_defaults(self):
        """
        As many workers as CPUs, 64 moves may wait; 8 bots per address or
        account, 3 of them of level 3.
        """
        options = parse()
        self.assertEqual(options["bot-workers"], cpuCount())
        self.assertEqual(options["bot-queue"], 64)
        self.assertEqual((options["max-bots-per-ip"],
                          options["max-level3-bots-per-ip"]), (8, 3))

    def test_badValues(self):
        """
        No worker at all, or a negative number, is a usage error.
        """
        self.assertRaises(usage.UsageError, parse, "--bot-workers", "0")
        self.assertRaises(usage.UsageError, parse, "--bot-queue", "-1")
        self.assertRaises(usage.UsageError, parse, "--max-bots-per-ip",
                          "-1")

    def test_wiring(self):
        """
        The hub's pool is a child service on the hub's clock with the
        workers and queue asked for; every game's tables, and the web
        face's hints and room bots, think in it; the web face's room
        bots keep to the shares asked for.
        """
        top = tap.makeService(parse(
            "--db", "none", "--bot-workers", "3", "--bot-queue", "5",
            "--max-bots-per-ip", "4", "--max-level3-bots-per-ip", "1",
            "--web-port", "tcp:0"), MemoryReactorClock())
        pool = top.getServiceNamed("bots")
        self.assertIsInstance(pool, BotPool)
        self.assertIs(pool.clock, top.clock)
        self.assertEqual((pool.processes.size, pool.queueSize), (3, 5))
        self.assertIs(pool.processes.clock, top.clock)
        site = top.getServiceNamed("web-port").factory
        play = site.play
        self.assertIs(play.thinker, pool)
        self.assertEqual((play.shares.seats, play.shares.strong), (4, 1))
        self.assertEqual(sorted(play.games),
                         ["checkers", "gomoku", "splendor"])
        for kind, game in play.games.items():
            factory = top.getServiceNamed(kind + "-port").factory
            self.assertIs(factory.policy.options.thinker, pool, kind)
            # The web face's rooms are the protocol's, on its policy.
            self.assertIs(game.policy.options.thinker, pool, kind)


class ServiceTests(SynchronousTestCase):
    """
    L{tap.makeService} builds one listener per enabled protocol over one
    shared lobby and sessions.
    """

    def services(self, *argv):
        top = tap.makeService(parse("--db", "none", *argv),
                              MemoryReactorClock())
        return {s.name: s for s in top}

    def test_allProtocols(self):
        """
        By default the sessions service, the bots' worker pool, the three
        listeners, the web face, the LAN announcer and what says what
        they expose.
        """
        services = self.services()
        self.assertEqual(sorted(services), ["announce", "bots",
                                            "checkers-port",
                                            "exposure", "gomoku-port",
                                            "sessions",
                                            "splendor-port", "web",
                                            "web-port"])
        self.assertIsInstance(services["sessions"], Sessions)
        for name in ("checkers-port", "gomoku-port", "splendor-port"):
            self.assertIsInstance(services[name],
                                  StreamServerEndpointService)

    def test_sharedLobby(self):
        """
        Every protocol factory has the same lobby and sessions.
        """
        services = self.services()
        factories = [services[name].factory for name in
                     ("checkers-port", "gomoku-port", "splendor-port")]
        self.assertEqual(len({id(f.lobby) for f in factories}), 1)
        self.assertEqual({id(f.sessions) for f in factories},
                         {id(services["sessions"])})

    def test_checkersCompatibility(self):
        """
        The checkers compatibility flags reach the checkers factory; both
        are off by default.
        """
        factory = self.services()["checkers-port"].factory
        self.assertEqual((factory.errorNames, factory.joinSeats),
                         (False, False))
        factory = self.services(
            "--checkers-error-names",
            "--checkers-join-seats")["checkers-port"].factory
        self.assertEqual((factory.errorNames, factory.joinSeats),
                         (True, True))

    def test_checkersSizesReachThePolicy(self):
        """
        The checkers rooms start with the counts of --checkers-sizes, or
        the default's with 4 added by --checkers-four-players.
        """
        def counts(*argv):
            return self.services(*argv)["checkers-port"].factory.policy.counts
        self.assertEqual(counts(), {2, 3, 6})
        self.assertEqual(counts("--checkers-sizes", "1,2,3,4,6"),
                         {1, 2, 3, 4, 6})
        self.assertEqual(counts("--checkers-four-players"), {2, 3, 4, 6})

    def test_splendorSeed(self):
        """
        C{--splendor-seed} seeds the Splendor tables' random generator
        (the same seed, the same draws); without it, there is a fresh one.
        """
        def draws(*argv):
            factory = self.services(*argv)["splendor-port"].factory
            return [factory.policy.rng.random() for _ in range(3)]
        self.assertEqual(draws("--splendor-seed", "50"),
                         draws("--splendor-seed", "50"))
        self.assertNotEqual(draws("--splendor-seed", "50"),
                            draws("--splendor-seed", "51"))
        self.assertNotEqual(draws(), draws())

    def test_announce(self):
        """
        The announcer watches the game listeners; --announce no leaves
        it out, and anything but yes or no is a usage error.
        """
        services = self.services("--gomoku-port", "none")
        announcer = services["announce"]
        self.assertEqual(announcer.listeners, {
            "checkers": services["checkers-port"],
            "splendor": services["splendor-port"]})
        self.assertIs(announcer.webListener, services["web-port"])
        self.assertNotIn("announce", self.services("--announce", "no"))
        self.assertIs(parse("--announce", "No")["announce"], False)
        self.assertIs(parse()["announce"], True)
        self.assertRaises(usage.UsageError, parse, "--announce", "maybe")

    def test_timers(self):
        """
        The sessions get the grace and idle timeouts given.
        """
        sessions = self.services(
            "--grace-seconds", "5", "--idle-seconds", "600")["sessions"]
        self.assertEqual((sessions.graceSeconds, sessions.idleSeconds),
                         (5, 600))

    def test_none(self):
        """
        'none' disables a protocol.
        """
        services = self.services("--gomoku-port", "none",
                                 "--splendor-port", "NONE",
                                 "--web-port", "none")
        self.assertEqual(sorted(services), ["announce", "bots",
                                            "checkers-port", "exposure",
                                            "sessions"])

    def test_listens(self):
        """
        Starting the tree listens on each endpoint.
        """
        reactor = MemoryReactorClock()
        top = tap.makeService(parse("--db", "none",
                                    "--gomoku-port", "tcp:1234",
                                    "--checkers-port", "none",
                                    "--splendor-port", "none",
                                    "--web-port", "none"), reactor)
        top.startService()
        self.addCleanup(top.stopService)
        self.assertEqual([port[0] for port in reactor.tcpServers], [1234])

    def test_whenListening(self):
        """
        A listener tells its listening port once it listens, to those who
        asked before and after.
        """
        reactor = MemoryReactorClock()
        service = tap.listener("gomoku-port", "tcp:1234", Factory(),
                               reactor)
        early = service.whenListening()
        self.assertNoResult(early)
        service.startService()
        self.addCleanup(service.stopService)
        port = self.successResultOf(early)
        self.assertEqual(port.getHost().port, 1234)
        self.assertIs(self.successResultOf(service.whenListening()), port)

    def test_announceWebPort(self):
        """
        When the options have a --web-port and the tree a listener of
        that name, the announcer announces its port too.
        """
        reactor = MemoryReactorClock()
        options = parse("--db", "none")
        top = tap.makeService(options, reactor)
        self.assertIs(tap.makeAnnouncer(options, top, reactor).webListener,
                      top.getServiceNamed("web-port"))
        options = parse("--db", "none", "--web-port", "none")
        top = tap.makeService(options, reactor)
        self.assertIsNone(
            tap.makeAnnouncer(options, top, reactor).webListener)

    def test_metrics(self):
        """
        --metrics-port adds an HTTP listener serving the hub's gauges.
        """
        services = self.services("--metrics-port", "tcp:9464",
                                 "--web-max-connections-per-ip", "7")
        site = services["metrics-port"].factory
        # As limited as the web port (tests/web/test_limits.py).
        self.assertIsInstance(site, HubSite)
        self.assertEqual(site.gate.limits.maxConnectionsPerIP, 7)
        self.assertIn("metrics", services)
        request, body = render(site, b"/metrics")
        self.assertIn(request.responseCode, (None, 200))
        self.assertIn(b'gamehub_sessions{game="gomoku"} 0.0', body)
        self.assertIn(b'gamehub_rooms{game="checkers"} 0.0', body)
        self.assertIn(b"gamehub_limited_connections_total", body)

    def test_web(self):
        """
        --web-port (tcp:8080 by default) serves the web face: the lobby,
        the API and the metrics, over the hub's own lobby.
        """
        self.assertEqual(parse()["web-port"], "tcp:8080")
        services = self.services("--web-port", "tcp:8181")
        site = services["web-port"].factory
        request, body = render(site, b"/metrics")
        self.assertIn(b'gamehub_rooms{game="checkers"} 0.0', body)
        self.assertIn(b"gamehub_limited_connections_total", body)
        self.assertIs(site.web.lobby, services["gomoku-port"].factory.lobby)

    def test_metricsOnly(self):
        """
        The metrics listener answers /metrics only: 404 elsewhere.
        """
        site = self.services("--metrics-port", "tcp:9464")[
            "metrics-port"].factory
        for path in (b"/", b"/foo", b"/metrics/foo", b"/metricsx"):
            request, body = render(site, path)
            self.assertEqual(request.responseCode, 404, path)
            self.assertNotIn(b"gamehub_sessions", body)

    def test_limits(self):
        """
        The limit options reach the sessions every connection reads them
        from.
        """
        sessions = self.services(
            "--max-send-buffer", "1000", "--frame-seconds", "5",
            "--max-connections", "7", "--max-connections-per-ip", "3",
            "--request-rate", "9", "--request-burst", "11",
            "--request-overdraft", "13")["sessions"]
        self.assertEqual(sessions.limits, Limits(
            maxSendBuffer=1000, frameSeconds=5, maxConnections=7,
            maxConnectionsPerIP=3, requestRate=9, requestBurst=11,
            requestOverdraft=13))
        self.assertIs(sessions.gate.limits, sessions.limits)

    def test_webLimits(self):
        """
        The web port's limit options reach the web site's gate, which
        counts toward the sessions' gate.
        """
        services = self.services(
            "--web-max-connections-per-ip", "3", "--web-max-streams-per-ip",
            "4", "--web-request-rate", "5", "--web-request-burst", "6",
            "--web-request-overdraft", "7", "--web-fd-reserve", "8")
        gate = services["web-port"].factory.gate
        self.assertEqual(gate.limits, WebLimits(
            maxConnectionsPerIP=3, maxStreamsPerIP=4, requestRate=5,
            requestBurst=6, requestOverdraft=7, descriptorReserve=8))
        self.assertIs(gate.hubGate, services["sessions"].gate)
        self.assertEqual(gate.budget.reserve, 8)

    def test_backlog(self):
        """
        Every TCP listener gets a backlog of 1,024 unless its endpoint
        string names one.
        """
        reactor = MemoryReactorClock()
        top = tap.makeService(parse(
            "--gomoku-port", "tcp:1234", "--checkers-port",
            "tcp:1235:backlog=10", "--splendor-port", "none",
            "--metrics-port", "tcp:1236:interface=127.0.0.1"), reactor)
        top.startService()
        self.addCleanup(top.stopService)
        self.assertEqual(
            sorted((port[0], port[2]) for port in reactor.tcpServers),
            [(1234, 1024), (1235, 10), (1236, 1024), (8080, 1024)])

    def test_badEndpoints(self):
        """
        A bad endpoint string is one line naming the option and the
        problem, as a L{SystemExit} (status 1).
        """
        for option, value, problem in [
                ("gomoku-port", "tcp:notaport", "not a number"),
                ("checkers-port", "tcp:99999", "not a number"),
                ("metrics-port", "foo", "Unknown endpoint type")]:
            with self.assertRaises(SystemExit) as caught:
                self.services("--" + option, value)
            message = str(caught.exception.code)
            self.assertIn("--{} {!r}".format(option, value), message)
            self.assertIn(problem, message)
            self.assertNotIn("\n", message)

    def test_nothingServed(self):
        """
        With every game port 'none' there is nothing to serve.
        """
        with self.assertRaises(SystemExit) as caught:
            self.services("--gomoku-port", "none", "--checkers-port",
                          "none", "--splendor-port", "none",
                          "--metrics-port", "tcp:9464")
        self.assertIn("nothing would be served",
                      str(caught.exception.code))

    def test_cannotListen(self):
        """
        A port that cannot be listened on stops the start with one line
        naming the option and the reason.
        """
        class BusyReactor(MemoryReactorClock):
            def listenTCP(self, port, factory, backlog=50, interface=""):
                raise CannotListenError(interface, port,
                                        OSError(98, "Address in use"))
        top = tap.makeService(parse("--gomoku-port", "tcp:1234",
                                    "--checkers-port", "none",
                                    "--splendor-port", "none"),
                              BusyReactor())
        with self.assertRaises(SystemExit) as caught:
            top.privilegedStartService()
        message = str(caught.exception.code)
        self.assertIn("--gomoku-port 'tcp:1234': cannot listen", message)
        self.assertIn("Address in use", message)


class LogLevelTests(SynchronousTestCase):
    """
    Under C{twistd}, C{--log-level} filters the log twistd writes.
    """

    def test_filtered(self):
        """
        The hub gives its application the observer twistd would use
        (here a --logfile), behind a filter at --log-level.
        """
        import signal

        from twisted.application.service import Application
        from twisted.logger import ILogObserver, LogLevel
        from twisted.scripts.twistd import ServerOptions
        handler = signal.getsignal(signal.SIGUSR1)
        self.addCleanup(signal.signal, signal.SIGUSR1, handler)
        workdir = tempfile.mkdtemp(prefix="gamehub-log-")
        self.addCleanup(shutil.rmtree, workdir, True)
        path = os.path.join(workdir, "twistd.log")
        config = ServerOptions()
        config.parseOptions(["-n", "--pidfile=", "--logfile", path,
                             "gamehub", "--log-level", "warn"])
        top = tap.makeService(config.subOptions, MemoryReactorClock())
        application = Application("gamehub")
        top.setServiceParent(application)
        observer = application.getComponent(ILogObserver)
        for level, text in [(LogLevel.debug, "chatty"),
                            (LogLevel.info, "routine"),
                            (LogLevel.warn, "worrying"),
                            (LogLevel.error, "broken")]:
            observer({"log_level": level, "log_format": text,
                      "log_namespace": "test", "log_time": 0})
        with open(path) as f:
            written = f.read()
        self.assertNotIn("chatty", written)
        self.assertNotIn("routine", written)
        self.assertIn("worrying", written)
        self.assertIn("broken", written)

    def test_notUnderTwistd(self):
        """
        Options parsed alone (not by twistd) leave logging alone.
        """
        self.assertIsNone(tap.makeService(
            parse("--log-level", "error"), MemoryReactorClock()).logObserver)


class FreezeHeapTests(SynchronousTestCase):
    """
    Under C{twistd}, what start-up made is frozen out of the cyclic
    collector's full collections once the reactor runs.
    """

    def test_underTwistd(self):
        """
        L{tap.makeService} for C{twistd} asks the reactor to run
        L{tap.freezeHeap} once it runs; options parsed alone (tests) do
        not.
        """
        from twisted.scripts.twistd import ServerOptions
        config = ServerOptions()
        config.parseOptions(["-n", "--pidfile=", "--logfile", "-",
                             "gamehub", "--db", "none"])
        reactor = MemoryReactorClock()
        tap.makeService(config.subOptions, reactor)
        self.assertIn(tap.freezeHeap,
                      [hook[0] for hook in reactor.whenRunningHooks])
        reactor = MemoryReactorClock()
        tap.makeService(parse("--db", "none"), reactor)
        self.assertNotIn(tap.freezeHeap,
                         [hook[0] for hook in reactor.whenRunningHooks])

    def test_freezeHeap(self):
        """
        L{tap.freezeHeap} moves the objects alive now into the permanent
        generation, and collects the young generation after
        L{tap.GC_YOUNG} new objects (both undone here).
        """
        import gc
        self.addCleanup(gc.unfreeze)
        self.addCleanup(gc.set_threshold, *gc.get_threshold())
        kept = [[] for _ in range(10)]
        tap.freezeHeap()
        self.assertGreaterEqual(gc.get_freeze_count(), len(kept))
        self.assertEqual(gc.get_threshold()[0], tap.GC_YOUNG)


class VersionTests(SynchronousTestCase):
    """
    C{twistd gamehub --version} and C{hub.__version__} both tell the
    installed distribution's version.
    """

    def test_fromMetadata(self):
        """
        C{hub.__version__} is the version in the distribution's metadata.
        """
        from importlib.metadata import version
        import hub
        self.assertEqual(hub.__version__, version("gamehub"))
        from hub import __version__
        self.assertEqual(__version__, hub.__version__)

    def test_option(self):
        """
        C{--version} prints gamehub's version, then Twisted's, and exits
        with status 0.
        """
        import io
        import sys
        from twisted import copyright
        import hub
        out = io.StringIO()
        self.patch(sys, "stdout", out)
        with self.assertRaises(SystemExit) as raised:
            parse("--version")
        self.assertIn(raised.exception.code, (0, None))
        self.assertEqual(out.getvalue().splitlines(), [
            "gamehub version: " + hub.__version__,
            "Twisted version: " + copyright.version])


class EngineSandboxTests(SynchronousTestCase):
    """
    C{--engine-sandbox bwrap|none}, and where the engines' files go: the
    hub's data folder (its SQLite database's), never its working
    directory.
    """

    def test_choices(self):
        """
        bwrap by default; none; nothing else.
        """
        self.assertEqual(parse()["engine-sandbox"], "bwrap")
        self.assertEqual(parse("--engine-sandbox", "none")["engine-sandbox"],
                         "none")
        self.assertRaises(usage.UsageError, parse, "--engine-sandbox",
                          "docker")

    def launcher(self, *argv):
        folder = tempfile.mkdtemp(prefix="gamehub-tap-")
        self.addCleanup(shutil.rmtree, folder, True)
        path = os.path.join(folder, "data", "hub.sqlite")
        os.makedirs(os.path.dirname(path))
        top = tap.makeService(parse("--db", "sqlite:" + path, *argv),
                              MemoryReactorClock())
        director = top.getServiceNamed("tournaments").director
        return director.launcher, path

    def test_bwrapUnderTheDataFolder(self):
        """
        The engines' logs go to C{engines/logs} beside the database; the
        sandbox hides the database and the working directory, and shows
        nothing of the engines' folder.
        """
        from hub.sandbox.process import BwrapSandbox
        launcher, path = self.launcher()
        data = os.path.dirname(path)
        self.assertIsInstance(launcher.sandbox, BwrapSandbox)
        self.assertEqual(launcher.logRoot,
                         os.path.join(data, "engines", "logs"))
        self.assertEqual(launcher.sandbox.hidden, (path, os.getcwd()))
        self.assertEqual(launcher.sandbox.closed,
                         (os.path.join(data, "engines"),))

    def test_none(self):
        """
        C{none}: engines work in C{engines/work} beside the database.
        """
        from hub.sandbox.process import NoSandbox
        launcher, path = self.launcher("--engine-sandbox", "none")
        self.assertIsInstance(launcher.sandbox, NoSandbox)
        self.assertEqual(launcher.sandbox.workRoot, os.path.join(
            os.path.dirname(path), "engines", "work"))
