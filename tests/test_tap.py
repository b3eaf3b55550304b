"""
Tests for L{hub.tap}: options and the service tree.
"""

from twisted.application.internet import StreamServerEndpointService
from twisted.internet.testing import MemoryReactorClock
from twisted.python import usage
from twisted.trial.unittest import SynchronousTestCase

from hub import tap
from hub.sessions import Sessions


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
        The defaults of specs/README.md and the issues.
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
        self.assertEqual(options["takeover"], "none")

    def test_badValues(self):
        """
        Unknown takeover modes, bot levels and negative numbers are usage
        errors.
        """
        self.assertRaises(usage.UsageError, parse, "--takeover", "human")
        self.assertRaises(usage.UsageError, parse, "--bot-level", "4")
        self.assertRaises(usage.UsageError, parse, "--grace-seconds", "-1")
        self.assertRaises(usage.UsageError, parse, "--idle-seconds", "-1")


class ServiceTests(SynchronousTestCase):
    """
    L{tap.makeService} builds one listener per enabled protocol over one
    shared lobby and sessions.
    """

    def services(self, *argv):
        top = tap.makeService(parse(*argv), MemoryReactorClock())
        return {s.name: s for s in top}

    def test_allProtocols(self):
        """
        By default the sessions service, the three listeners and the web
        face.
        """
        services = self.services()
        self.assertEqual(sorted(services), ["checkers-port", "gomoku-port",
                                            "sessions", "splendor-port",
                                            "web", "web-port"])
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
        self.assertEqual(sorted(services), ["checkers-port", "sessions"])

    def test_listens(self):
        """
        Starting the tree listens on each endpoint.
        """
        reactor = MemoryReactorClock()
        top = tap.makeService(parse("--gomoku-port", "tcp:1234",
                                    "--checkers-port", "none",
                                    "--splendor-port", "none",
                                    "--web-port", "none"), reactor)
        top.startService()
        self.addCleanup(top.stopService)
        self.assertEqual([port[0] for port in reactor.tcpServers], [1234])

    def test_metrics(self):
        """
        --metrics-port adds an HTTP listener serving the hub's gauges.
        """
        services = self.services("--metrics-port", "tcp:9464")
        site = services["metrics-port"].factory
        from twisted.web.test.requesthelper import DummyRequest
        request = DummyRequest([b""])
        body = site.resource.render_GET(request)
        self.assertIn(b'gamehub_sessions{game="gomoku"} 0.0', body)
        self.assertIn(b'gamehub_rooms{game="checkers"} 0.0', body)

    def test_web(self):
        """
        --web-port (tcp:8080 by default) serves the web face: the lobby,
        the API and the metrics, over the hub's own lobby.
        """
        self.assertEqual(parse()["web-port"], "tcp:8080")
        services = self.services("--web-port", "tcp:8181")
        site = services["web-port"].factory
        from twisted.web.test.requesthelper import DummyRequest
        request = DummyRequest([b"metrics"])
        resource = site.getResourceFor(request)
        self.assertIn(b'gamehub_rooms{game="checkers"} 0.0',
                      resource.render(request))
        self.assertIs(site.web.lobby, services["gomoku-port"].factory.lobby)
