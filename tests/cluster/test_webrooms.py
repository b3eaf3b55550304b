"""
Rooms made in the browser on a node of a cluster: two real C{twistd -n
gamehub} nodes over a real Redis, browser-protocol clients on their web
faces, and gomoku-battle and checkers TCP clients on the other node.
"""

import os
import sys
import time

from twisted.internet import defer, reactor, threads
from twisted.internet.utils import getProcessOutputAndValue
from twisted.trial.unittest import TestCase

from hub.wire import gomoku as wire
from tests.cluster.test_nodes import createRoom, register, roomList
from tests.endtoend import GamehubServer, waitUntil
from tests.redisserver import sharedRedisURL
from tests.web.wsclient import welcomed

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
#: Seconds a room may take to reach the other node's lists.
PUBLISHED = 30


def webNode(testCase, url, name):
    """
    A gamehub node of the cluster at C{url}, with its web face.
    """
    return GamehubServer(testCase, "--cluster", url, "--node-id", name,
                         "--node-link", "tcp:0:interface=127.0.0.1",
                         "--bot-delay", "0.02",
                         games=("gomoku", "checkers", "splendor", "web"))


def eventually(check, what):
    """
    Call C{check()} until it is true, for at most L{PUBLISHED} seconds
    (blocking: run it in a thread).
    """
    waitUntil(check, PUBLISHED, what)


class WebRoomsInACluster(TestCase):
    """
    Two nodes sharing a Redis; browsers on their web faces.
    """

    timeout = 240

    def setUp(self):
        url = sharedRedisURL(2)
        self.a = webNode(self, url, "a")
        self.b = webNode(self, url, "b")
        for server in (self.a, self.b):
            server.waitForLog("cluster: registered in")

    def browser(self, server, name):
        return welcomed(self, reactor, server, name)

    @defer.inlineCallbacks
    def remoteRooms(self, client, kind, node):
        """
        Ask for the lobby until the rooms of C{kind} it lists from
        C{node} are there; their names.
        """
        deadline = time.monotonic() + PUBLISHED
        while True:
            client.send({"type": "lobby"})
            lobby = yield client.waitFor(
                lambda m: m["type"] == "lobby", seen=False)
            names = sorted(room["name"] for room in
                           lobby.get("remote", {}).get(kind, ())
                           if room["node"] == node)
            if names or time.monotonic() > deadline:
                return names
            yield threads.deferToThread(time.sleep, 0.2)

    @defer.inlineCallbacks
    def test_gomokuRoomsBothWays(self):
        """
        A gomoku room made in the browser on node a is in the
        msg_room_list of a gomoku-battle client on node b, whose own
        room is in the browser's lobby (from node b); neither name can be
        taken again on the other node.
        """
        browser = yield self.browser(self.a, "webby")
        browser.send({"type": "create", "kind": "gomoku",
                      "room": "webroom"})
        yield browser.waitFor(lambda m: m["type"] == "room" and m["room"])
        client, reply = register(self.b.port("gomoku"), "tcpbob")
        self.addCleanup(client.close)
        client.token = reply["token"]
        yield threads.deferToThread(
            eventually, lambda: "webroom" in roomList(client),
            "the browser's room is not in node b's msg_room_list")
        self.assertEqual(createRoom(client, "tcproom")["status"], wire.S_OK)
        self.assertEqual((yield self.remoteRooms(browser, "gomoku", "b")),
                         ["tcproom"])
        # The names are the cluster's.
        second, reply = register(self.b.port("gomoku"), "tcpcarl")
        self.addCleanup(second.close)
        second.token = reply["token"]
        self.assertEqual(createRoom(second, "webroom")["status"],
                         wire.S_ROOM_EXISTS)
        other = yield self.browser(self.a, "carol")
        other.send({"type": "create", "kind": "gomoku", "room": "tcproom"})
        error = yield other.waitType("error")
        self.assertEqual(error["code"], "room-exists")
        other.send({"type": "join", "kind": "gomoku", "room": "tcproom"})
        error = yield other.waitFor(lambda m: m["type"] == "error"
                                    and m is not error)
        self.assertEqual(error["code"], "other-node")

    @defer.inlineCallbacks
    def test_checkersRoomAcrossNodes(self):
        """
        A checkers room made in the browser on node a is in the lobby of
        a browser on node b; a TCP bot connected to node b joins it (its
        connection handed to node a) and the two play a whole game.
        """
        browser = yield self.browser(self.a, "webby")
        browser.send({"type": "create", "kind": "checkers", "room": "webc",
                      "players": 2})
        yield browser.waitFor(lambda m: m["type"] == "room" and m["room"])
        watcher = yield self.browser(self.b, "viewer")
        self.assertEqual((yield self.remoteRooms(watcher, "checkers", "a")),
                         ["webc"])
        env = dict(os.environ, PYTHONPATH=ROOT)
        bot = getProcessOutputAndValue(
            sys.executable, [
                "-m", "hub.bots", "checkers://127.0.0.1:{}".format(
                    self.b.port("checkers")), "--room", "webc", "--count",
                "1", "--level", "2", "--delay", "0.01", "--name", "tcp"],
            env=env, path=ROOT)
        yield browser.waitFor(lambda m: m["type"] == "room" and m["room"]
                              and len(m["room"]["members"]) == 2)
        browser.autoPlay = "hint"
        browser.send({"type": "ready"})
        started = yield browser.waitType("event", "GameStarted")
        self.assertEqual(len(started["seats"]), 2)
        ended = yield browser.waitType("event", "GameEnded", timeout=150)
        self.assertEqual(ended["reason"], "normal")
        out, err, code = yield bot
        self.assertEqual(code, 0, err)
        self.assertIn(b"checkers room webc: ranking", out)
