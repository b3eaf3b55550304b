"""
Kicks and bans across a cluster: node a (a hub in this process, whose
L{hub.accounts.moderation.Moderation} the test calls as C{/admin} would)
and node b (the real C{twistd -n gamehub}) share a Redis and an accounts
database; a kick or a ban issued on node a closes a connection held on
node b within 2 s, through the moderation channel.
"""

import os
import shutil
import tempfile
import time

from twisted.internet import defer, reactor, threads
from twisted.trial.unittest import TestCase

from hub import tap
from hub.wire import gomoku as wire
from tests.accounts.test_endtoend import (
    PASSWORD, accountsCommand, closedWithin)
from tests.cluster.test_nodes import node
from tests.endtoend import GomokuClient
from tests.redisserver import sharedRedisURL

REACH = 2.0
LOOPBACK = "tcp:0:interface=127.0.0.1"


def inProcessNode(testCase, url, name, dbURL):
    """
    A cluster node running in this process on the reactor, with only
    gomoku; its L{Moderation}.
    """
    options = tap.Options()
    options.parseOptions([
        "--cluster", url, "--node-id", name, "--node-link", LOOPBACK,
        "--db", dbURL, "--gomoku-port", LOOPBACK, "--checkers-port", "none",
        "--splendor-port", "none", "--web-port", "none",
        "--metrics-port", "none", "--announce", "no"])
    top = tap.makeService(options, reactor)
    top.startService()
    testCase.addCleanup(top.stopService)
    return {service.name: service for service in top}["names"].moderation


class ClusterModerationTests(TestCase):
    """
    A moderator on node a, a player on node b.
    """

    timeout = 60

    def setUp(self):
        folder = tempfile.mkdtemp(prefix="gamehub-cluster-mod-")
        self.addCleanup(shutil.rmtree, folder, True)
        self.dbURL = "sqlite:" + os.path.join(folder, "hub.sqlite")
        out = accountsCommand(self.dbURL, "add", "alice",
                              stdin=PASSWORD + "\n")
        self.key = out.strip().splitlines()[-1][len("key: "):]
        url = sharedRedisURL()
        self.b = node(self, url, "b", "--db", self.dbURL, "--announce", "no")
        self.b.waitForLog("cluster node 'b' listens for moderation")
        self.moderation = inProcessNode(self, url, "a", self.dbURL)

    def register(self, name):
        client = GomokuClient(self.b.port("gomoku"))
        self.addCleanup(client.close)
        client.send(wire.regMessage(name, client.nextSession(),
                                    wire.INVALID_TOKEN))
        reply = client.receive()
        self.assertEqual(reply["status"], wire.S_OK)
        client.token = reply["token"]
        return client

    @defer.inlineCallbacks
    def assertClosedBy(self, client, issued, action):
        """
        Node b closes C{client} within L{REACH} of C{issued}, having
        heard C{action} from node a.
        """
        left = max(0.05, issued + REACH - time.monotonic())
        closed = yield threads.deferToThread(closedWithin, client, left)
        self.assertTrue(closed, "not closed within {} s".format(REACH))
        yield threads.deferToThread(
            self.b.waitForLog, r"cluster node 'b': {} from node 'a'".format(
                action), 1, REACH)

    @defer.inlineCallbacks
    def test_kick(self):
        """
        A kick by name issued on node a closes the guest's connection on
        node b; another connection on b stays.
        """
        carl = self.register("carl")
        dora = self.register("dora")
        issued = time.monotonic()
        yield self.moderation.kickName("gomoku", "carl", "mod", "test")
        yield self.assertClosedBy(carl, issued, "kick")
        dora.send(wire.requestMessage(wire.REQ_ROOM_LIST,
                                      dora.nextSession(), token=dora.token))
        self.assertIn("rooms", dora.receive())

    @defer.inlineCallbacks
    def test_ban(self):
        """
        A ban of an account issued on node a closes its keyed connection
        on node b.
        """
        alice = self.register("alice#" + self.key)
        issued = time.monotonic()
        yield self.moderation.ban("alice", 600, "test", "mod")
        yield self.assertClosedBy(alice, issued, "ban")
