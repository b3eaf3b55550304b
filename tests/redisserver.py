"""
Redis for the cluster tests.

C{.ci/run} starts a private C{redis-server} (no disk, a free loopback
port) and exports C{GAMEHUB_TEST_REDIS}.  Without it the tests that need
Redis skip, except on CI (C{CI=true}), where they fail.  L{PrivateRedis}
starts a test's own instance, for tests that stop and restart it.
"""

import os
import shutil
import socket
import subprocess
import time
import uuid

from twisted.trial.unittest import SkipTest

TIMEOUT = 10.0


def _missing(why):
    if os.environ.get("CI") == "true":
        raise AssertionError("CI must provide Redis: " + why)
    raise SkipTest(why)


def sharedRedisURL(ttl=None):
    """
    The URL of the run's Redis with a key prefix of this test's own (and
    C{ttl}, if given).
    """
    url = os.environ.get("GAMEHUB_TEST_REDIS")
    if not url:
        _missing("GAMEHUB_TEST_REDIS is not set")
    url += "?prefix=t{}:".format(uuid.uuid4().hex[:12])
    if ttl is not None:
        url += "&ttl={}".format(ttl)
    return url


def freePort():
    """
    A TCP port free on loopback now.
    """
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PrivateRedis:
    """
    A C{redis-server} of one test on a free loopback port, without disk,
    stopped at the test's cleanup.
    """

    def __init__(self, testCase):
        self.binary = shutil.which("redis-server")
        if self.binary is None or not os.environ.get("GAMEHUB_TEST_REDIS"):
            _missing("redis-server or GAMEHUB_TEST_REDIS is missing")
        self.port = freePort()
        self.process = None
        testCase.addCleanup(self.stop)
        self.start()

    def url(self, ttl=None):
        """
        The URL of this instance.
        """
        url = "redis://127.0.0.1:{}/0".format(self.port)
        return url if ttl is None else url + "?ttl={}".format(ttl)

    def start(self):
        """
        Start (again) on the same port; return once it answers.
        """
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1",
             "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port),
                                              timeout=1) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.05)
        raise AssertionError("redis-server did not start")

    def stop(self):
        """
        Stop the instance (its data goes with it).
        """
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(TIMEOUT)
        self.process = None
