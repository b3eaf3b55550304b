"""
Redis for the cluster tests.

C{.ci/run} starts a private C{redis-server} (no disk, a free loopback
port) and exports C{GAMEHUB_TEST_REDIS}.  Without it the tests that need
Redis skip, except on CI (C{CI=true}), where they fail.  L{PrivateRedis}
starts a test's own instance, for tests that stop and restart it.
"""

import collections
import os
import shutil
import socket
import time
import uuid

from twisted.trial.unittest import SkipTest

from tests.servers import freePort, spawnRedis

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
        self.process = spawnRedis(self.binary, self.port, timeout=TIMEOUT)

    def stop(self):
        """
        Stop the instance (its data goes with it).
        """
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(TIMEOUT)
        self.process = None


class ExpiryWatch:
    """
    Redis's key events of one database (keyspace notifications): by
    default expiries, or C{event} (C{"set"}: a key written, C{"zadd"}: a
    member added to a sorted set), subscribed to
    on its own connection: L{wait} blocks until given keys have had the
    event, without polling.
    """

    def __init__(self, url, event="expired"):
        from hub.cluster.directory import parseRedisURL
        host, port, db, self.prefix, _ = parseRedisURL(url)
        self.socket = socket.create_connection((host, port), timeout=TIMEOUT)
        self.reader = self.socket.makefile("rb")
        self.expired = collections.Counter()
        # The same flags for every watch: the setting is the server's, and
        # watches of the tests running at once share it.
        self.command("CONFIG", "SET", "notify-keyspace-events", "Ex$z")
        self.command("SUBSCRIBE", "__keyevent@{}__:{}".format(db, event))

    def command(self, *words):
        """
        Send one command; its reply.
        """
        request = b"*%d\r\n" % len(words)
        for word in words:
            word = word.encode()
            request += b"$%d\r\n%s\r\n" % (len(word), word)
        self.socket.sendall(request)
        return self.reply()

    def reply(self):
        line = self.reader.readline()
        if not line:
            raise AssertionError("Redis closed the connection")
        kind, rest = line[:1], line[1:-2]
        if kind == b"*":
            return [self.reply() for _ in range(int(rest))]
        if kind == b"$":
            size = int(rest)
            if size < 0:
                return None
            return self.reader.read(size + 2)[:-2].decode()
        if kind == b"-":
            raise AssertionError("Redis: " + rest.decode())
        return rest.decode()

    def wait(self, keys, timeout=TIMEOUT, times=1):
        """
        Block until each of C{keys} (without the prefix) has expired (or
        had the event watched C{times} times since the watch began: a
        room of the cluster is written when its name is claimed, then
        when its home node publishes it).

        @raise AssertionError: not within C{timeout} seconds.
        """
        wanted = {self.prefix + key for key in keys}

        def missing():
            return sorted(key for key in wanted
                          if self.expired[key] < times)
        deadline = time.monotonic() + timeout
        while missing():
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("keys did not expire: {}".format(
                    missing()))
            self.socket.settimeout(left)
            try:
                message = self.reply()
            except socket.timeout:
                continue
            if message and message[0] == "message":
                self.expired[message[2]] += 1

    def close(self):
        self.reader.close()
        self.socket.close()
