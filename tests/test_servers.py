"""
The private servers a pytest run starts for itself (L{tests.servers}).
"""

import os
import shutil
import socket

from twisted.trial.unittest import SkipTest, SynchronousTestCase

from tests import servers


class WhenTests(SynchronousTestCase):
    """
    A server is started only when the run needs it and lacks it.
    """

    def test_overlaps(self):
        """
        A run holds a folder's tests when a path is the folder, inside it,
        or above it.
        """
        records = os.path.join(servers.TOP, "tests", "records")
        for paths in ([servers.TOP], [os.path.join(servers.TOP, "tests")],
                      [records],
                      [os.path.join(records, "test_store.py") + "::X"]):
            self.assertTrue(servers.overlaps(paths, records), paths)
        for paths in ([], [os.path.join(servers.TOP, "tests", "cluster")],
                      [os.path.join(servers.TOP, "tests", "test_tap.py")]):
            self.assertFalse(servers.overlaps(paths, records), paths)

    def test_givenOrNotNeeded(self):
        """
        Nothing is started when the variables are set (as .ci/run sets
        them), when the run does not need the server, or when turned off.
        """
        private = servers.PrivateServers()
        given = {servers.POSTGRES_ENV: "postgresql://ci",
                 servers.REDIS_ENV: "redis://ci"}
        environ = dict(given)
        private.start([servers.TOP], environ)
        self.assertEqual((private.started, environ), ([], given))
        environ = {}
        private.start([os.path.join(servers.TOP, "tests", "test_tap.py")],
                      environ)
        self.assertEqual((private.started, environ), ([], {}))
        environ = {servers.SWITCH_ENV: "no"}
        private.start([servers.TOP], environ)
        self.assertEqual(private.started, [])
        self.assertEqual(sorted(environ), [servers.SWITCH_ENV])


class FailureTests(SynchronousTestCase):
    """
    A server that fails to start is reported, not fatal to the run.
    """

    def test_reported(self):
        def broken():
            raise RuntimeError("no luck")
        self.patch(servers, "startRedis", broken)
        self.patch(servers.shutil, "which", lambda name: "/bin/true")
        private = servers.PrivateServers()
        environ = {servers.POSTGRES_ENV: "postgresql://given"}
        private.start([servers.TOP], environ)
        self.assertEqual(private.started, [])
        self.assertEqual(private.problems,
                         [servers.REDIS_ENV + ": no luck"])
        self.assertNotIn(servers.REDIS_ENV, environ)


class RedisTests(SynchronousTestCase):
    """
    L{servers.startRedis} starts a Redis that answers, and stops it.
    """

    def test_startAndStop(self):
        binary = shutil.which("redis-server")
        if binary is None:
            raise SkipTest("redis-server is not installed")
        url, stop = servers.startRedis(binary)
        self.addCleanup(stop)
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        self.assertTrue(servers._answers(port))
        stop()
        with self.assertRaises(OSError):
            socket.create_connection(("127.0.0.1", port), 1).close()

    def test_exitReported(self):
        """
        A C{redis-server} that exits before it says it accepts connections
        is reported at once, with no waiting out the timeout.
        """
        with self.assertRaises(RuntimeError) as caught:
            servers.spawnRedis("/bin/false", servers.freePort())
        self.assertIn("did not start", str(caught.exception))
