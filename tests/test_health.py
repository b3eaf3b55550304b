"""
Tests for L{hub.health}: C{/healthz} and C{/readyz}, on the web port and on
the metrics port of a real hub.
"""

import json
import os
import shutil
import tempfile

from twisted.internet import defer, reactor
from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase, TestCase
from twisted.web.client import Agent, readBody

from hub import tap
from hub.health import Health
from tests.redisserver import freePort

TIMEOUT = 10


class HealthTests(SynchronousTestCase):
    """
    L{Health} runs its checks and says why it is not ready.
    """

    def ready(self, health):
        results = []
        health.ready().addCallback(results.append)
        self.assertEqual(len(results), 1)
        return results[0]

    def test_alive(self):
        """
        C{alive} says alive, with the seconds since the start.
        """
        clock = Clock()
        clock.advance(100)
        health = Health(clock)
        clock.advance(2.5)
        self.assertEqual(health.alive(), {"status": "alive", "uptime": 2.5})

    def test_ready(self):
        """
        Every check answering None: ready, each check "ok".
        """
        health = Health(Clock())
        health.addCheck("one", lambda: None)
        health.addCheck("two", lambda: defer.succeed(None))
        self.assertEqual(self.ready(health), (True, {
            "status": "ready", "checks": {"one": "ok", "two": "ok"}}))

    def test_reasons(self):
        """
        A check giving a reason, or failing, makes the hub unready; the
        reasons are listed.
        """
        health = Health(Clock())
        health.addCheck("fine", lambda: None)
        health.addCheck("db", lambda: "down")
        health.addCheck("broken", lambda: 1 / 0)
        ready, body = self.ready(health)
        self.assertFalse(ready)
        self.assertEqual(body["status"], "unready")
        self.assertEqual(body["checks"]["fine"], "ok")
        self.assertEqual(body["checks"]["db"], "down")
        self.assertIn("division", body["checks"]["broken"])
        self.assertEqual(body["reasons"][0], "db: down")

    def test_timeout(self):
        """
        A check that does not answer within C{checkSeconds} counts as
        not ready.
        """
        clock = Clock()
        health = Health(clock, checkSeconds=3)
        health.addCheck("slow", defer.Deferred)
        results = []
        health.ready().addCallback(results.append)
        clock.advance(2.9)
        self.assertEqual(results, [])
        clock.advance(0.2)
        [(ready, body)] = results
        self.assertFalse(ready)
        self.assertEqual(body["checks"]["slow"], "no answer within 3s")


class RealHub:
    """
    A hub from L{tap.makeService} listening on loopback with the web and
    metrics ports, on the real reactor; stopped at the test's cleanup.
    """

    def __init__(self, testCase, *argv):
        self.workdir = tempfile.mkdtemp(prefix="gamehub-health-")
        testCase.addCleanup(shutil.rmtree, self.workdir, True)
        loopback = "tcp:0:interface=127.0.0.1"
        options = tap.Options()
        options.parseOptions([
            "--gomoku-port", loopback, "--checkers-port", loopback,
            "--splendor-port", loopback, "--web-port", loopback,
            "--metrics-port", loopback, "--announce", "no",
            "--db", "sqlite:" + os.path.join(self.workdir, "g.sqlite")]
            + list(argv))
        self.hub = tap.makeService(options, reactor)
        self.hub.startService()
        self.stopped = False
        testCase.addCleanup(self.stop)
        self.agent = Agent(reactor)

    def stop(self):
        if not self.stopped:
            self.stopped = True
            return self.hub.stopService()

    @defer.inlineCallbacks
    def get(self, portName, path):
        """
        GET C{path} on the listener C{portName}: C{(code, type, JSON)}.
        """
        port = yield self.hub.getServiceNamed(portName).whenListening()
        url = "http://127.0.0.1:{}{}".format(port.getHost().port, path)
        d = self.agent.request(b"GET", url.encode())
        d.addTimeout(TIMEOUT, reactor)
        response = yield d
        body = yield readBody(response)
        kind = response.headers.getRawHeaders(b"content-type")[0]
        return (response.code, kind, json.loads(body))

    @defer.inlineCallbacks
    def listening(self):
        for service in self.hub:
            if hasattr(service, "whenListening"):
                yield service.whenListening()


class PortsTests(TestCase):
    """
    Both HTTP ports of a real hub answer C{/healthz} and C{/readyz}.
    """

    @defer.inlineCallbacks
    def test_healthzBothPorts(self):
        """
        C{/healthz} answers 200 and JSON on the web and metrics ports.
        """
        hub = RealHub(self)
        yield hub.listening()
        for port in ("web-port", "metrics-port"):
            code, kind, body = yield hub.get(port, "/healthz")
            self.assertEqual(code, 200, port)
            self.assertEqual(kind, b"application/json")
            self.assertEqual(body["status"], "alive")

    @defer.inlineCallbacks
    def test_readyBothPorts(self):
        """
        Listening, with its database reachable: C{/readyz} answers 200
        on both ports, naming the checks.
        """
        hub = RealHub(self)
        yield hub.listening()
        for port in ("web-port", "metrics-port"):
            code, kind, body = yield hub.get(port, "/readyz")
            self.assertEqual(code, 200, (port, body))
            self.assertEqual(body["status"], "ready")
            self.assertEqual(body["checks"], {
                "draining": "ok", "listening": "ok", "database": "ok"})

    @defer.inlineCallbacks
    def test_databaseUnreachable(self):
        """
        A PostgreSQL database at a closed port: C{/readyz} answers 503 on
        both ports with the reason, and C{/healthz} still 200.
        """
        url = "postgresql://gamehub@127.0.0.1:{}/gamehub".format(freePort())
        hub = RealHub(self, "--db", url)
        yield hub.listening()
        for port in ("web-port", "metrics-port"):
            code, kind, body = yield hub.get(port, "/readyz")
            self.assertEqual(code, 503, (port, body))
            self.assertEqual(body["status"], "unready")
            self.assertIn("unreachable", body["checks"]["database"])
            self.assertEqual(body["checks"]["listening"], "ok")
            self.assertTrue(body["reasons"][0].startswith("database: "))
            code, kind, body = yield hub.get(port, "/healthz")
            self.assertEqual(code, 200)

    @defer.inlineCallbacks
    def test_draining(self):
        """
        While the hub drains, C{/readyz} answers 503 on both ports (the
        web and metrics ports still listen), and C{/healthz} 200.
        """
        hub = RealHub(self)
        yield hub.listening()
        yield hub.hub.drain(5)
        for port in ("web-port", "metrics-port"):
            code, kind, body = yield hub.get(port, "/readyz")
            self.assertEqual(code, 503, (port, body))
            self.assertEqual(body["checks"]["draining"],
                             "the hub is draining")
            code, kind, body = yield hub.get(port, "/healthz")
            self.assertEqual(code, 200)


class ClusterReadinessTests(SynchronousTestCase):
    """
    The readiness check of a cluster node.
    """

    def test_registration(self):
        """
        Not ready until the node's presence is written; not ready while
        Redis does not answer.
        """
        from hub.cluster.service import ClusterService
        from hub.service import Hub
        clock = Clock()
        node = ClusterService(clock, Hub(clock), object(), "n1", "tcp:0")
        self.assertEqual(node.registrationProblem(),
                         "node 'n1' not registered yet")
        node.directory.registered = True
        self.assertIsNone(node.registrationProblem())
        node.directory.available = False
        self.assertEqual(node.registrationProblem(), "Redis does not answer")
