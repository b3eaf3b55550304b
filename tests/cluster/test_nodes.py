"""
Two real C{twistd -n gamehub} nodes of one cluster on loopback, over a
real Redis: games across nodes, names, the room list, resuming through
another node, a node killed, Redis stopped.
"""

import signal
import subprocess
import sys

from twisted.trial.unittest import TestCase

from hub.wire import gomoku as wire
from tests.endtoend import GamehubServer, GomokuClient
from tests.redisserver import ExpiryWatch, PrivateRedis, sharedRedisURL

BOT_TIMEOUT = 120


def node(testCase, url, name, *extra):
    """
    A gamehub node of the cluster at C{url}.
    """
    return GamehubServer(testCase, "--cluster", url, "--node-id", name,
                         "--node-link", "tcp:0:interface=127.0.0.1", *extra)


def bots(kind, port, *args):
    """
    Start C{python -m hub.bots} against C{port}.
    """
    return subprocess.Popen(
        [sys.executable, "-m", "hub.bots",
         "{}://127.0.0.1:{}".format(kind, port), "--delay", "0.02",
         "--timeout", str(BOT_TIMEOUT)] + list(args),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def finished(process):
    """
    Wait for a bot process; its output, or a failure if it failed.
    """
    output, _ = process.communicate(timeout=BOT_TIMEOUT + 30)
    text = output.decode("utf-8", "replace")
    if process.returncode != 0:
        raise AssertionError("bots failed:\n" + text)
    return text


def register(port, name, token=wire.INVALID_TOKEN):
    """
    A gomoku client that sent msg_reg, and the answer.
    """
    client = GomokuClient(port)
    client.send({"msg_type": wire.MSG_REG, "name": name, "token": token,
                 "session": client.nextSession()})
    return client, client.receive()


def request(client, message):
    message["token"] = client.token
    message["session"] = client.nextSession()
    client.send(message)
    return client.receive()


def createRoom(client, name):
    return request(client, {"msg_type": wire.MSG_ROOM,
                            "type": wire.RO_ROOM_CREATE,
                            "room": wire.roomObject(name, "", "", 1, 0, 0)})


def roomList(client):
    reply = request(client, {"msg_type": wire.MSG_REQUEST,
                             "target": wire.REQ_ROOM_LIST})
    return sorted(room["name"] for room in reply["rooms"] or ())


class TwoNodes(TestCase):
    """
    Two nodes sharing a Redis.
    """

    ttl = 2

    def setUp(self):
        url = self.url = sharedRedisURL(self.ttl)
        self.a = node(self, url, "a")
        self.b = node(self, url, "b")
        for server in (self.a, self.b):
            server.waitForLog("cluster node .* links on")

    def test_gomokuAcrossNodes(self):
        """
        A gomoku player on node a and one on node b play a whole game in
        the room created on a.
        """
        first = bots("gomoku", self.a.port("gomoku"), "--count", "1",
                     "--room", "r1", "--name", "a_")
        self.a.waitForLog(r"joined gomoku room 'r1'")
        second = bots("gomoku", self.b.port("gomoku"), "--count", "1",
                      "--room", "r1", "--name", "b_")
        self.assertIn("after", finished(second))
        self.assertIn("after", finished(first))
        self.a.waitForLog(r"'b_1' joined gomoku room 'r1'")

    def test_checkersAcrossNodes(self):
        """
        Checkers players on two nodes play in one room.
        """
        first = bots("checkers", self.a.port("checkers"), "--count", "1",
                     "--room", "c1")
        self.a.waitForLog(r"joined checkers room 'c1'")
        second = bots("checkers", self.b.port("checkers"), "--count", "1",
                      "--room", "c1")
        self.assertIn("ranking", finished(second))
        finished(first)
        self.a.waitForLog(r"joined checkers room 'c1'", count=2)

    def test_splendorAcrossNodes(self):
        """
        A Splendor player who arrives on node b is seated at node a's open
        table, and they play a whole game.
        """
        first = bots("splendor", self.a.port("splendor"), "--count", "1")
        self.a.waitForLog(r"joined splendor room 'table-a-1'")
        second = bots("splendor", self.b.port("splendor"), "--count", "1")
        finished(second)
        finished(first)
        self.a.waitForLog(r"joined splendor room 'table-a-1'", count=2)

    def test_namesUnique(self):
        """
        A gomoku name held on one node is refused on the other.
        """
        alice, reply = register(self.a.port("gomoku"), "alice")
        self.assertEqual(reply["status"], wire.S_OK)
        other, reply = register(self.b.port("gomoku"), "alice")
        self.assertEqual(reply["status"], wire.S_PLAYER_EXISTS)
        alice.close()
        other.close()

    def test_roomListSame(self):
        """
        Every node lists the rooms of every node.
        """
        clients = []
        for server, name in ((self.a, "ann"), (self.b, "bob")):
            client, reply = register(server.port("gomoku"), name)
            client.token = reply["token"]
            clients.append(client)
        self.assertEqual(createRoom(clients[0], "ra")["status"], wire.S_OK)
        self.assertEqual(createRoom(clients[1], "rb")["status"], wire.S_OK)
        viewers = []
        for server, name in ((self.a, "v1"), (self.b, "v2")):
            client, reply = register(server.port("gomoku"), name)
            client.token = reply["token"]
            viewers.append(client)
        self.assertEqual(roomList(viewers[0]), ["ra", "rb"])
        self.assertEqual(roomList(viewers[1]), ["ra", "rb"])
        # A room name is unique across the cluster too.
        self.assertEqual(createRoom(viewers[1], "ra")["status"],
                         wire.S_ROOM_EXISTS)
        for client in clients + viewers:
            client.close()

    def test_resumeThroughOtherNode(self):
        """
        A gomoku player resumes their session, with its token, through a
        node other than the one holding it.
        """
        carol, reply = register(self.a.port("gomoku"), "carol")
        token = reply["token"]
        again, reply = register(self.b.port("gomoku"), "carol", token)
        self.assertEqual(reply["status"], wire.S_OK)
        self.assertEqual(reply["token"], token)
        self.assertTrue(carol.isClosedByPeer())
        again.token = token
        self.assertEqual(createRoom(again, "rc")["status"], wire.S_OK)
        self.a.waitForLog(r"'carol' joined gomoku room 'rc'")
        again.close()

    def test_killedNodeLeavesNothing(self):
        """
        A node killed mid-game: after the TTL its names and rooms are
        gone, and a game on the other node finishes.
        """
        game = bots("gomoku", self.a.port("gomoku"), "--count", "2",
                    "--room", "live", "--name", "g_")
        dave, reply = register(self.b.port("gomoku"), "dave")
        dave.token = reply["token"]
        self.assertEqual(createRoom(dave, "rk")["status"], wire.S_OK)
        expiries = ExpiryWatch(self.url)
        self.addCleanup(expiries.close)
        self.b.kill()
        viewer, reply = register(self.a.port("gomoku"), "viewer")
        viewer.token = reply["token"]
        # Redis tells when b's keys expire (a TTL after b's last renewal).
        expiries.wait(["name:gomoku:dave", "rooms:gomoku:rk"])
        client, reply = register(self.a.port("gomoku"), "dave")
        client.close()
        self.assertEqual(reply["status"], wire.S_OK)
        self.assertNotIn("rk", roomList(viewer))
        self.assertIn("after", finished(game))
        viewer.close()
        dave.close()


class RedisStops(TestCase):
    """
    Redis stops mid-game and comes back.
    """

    def test_redisStopsAndReturns(self):
        """
        Games under way finish without Redis; a new cross-node request is
        refused with the protocol's error; once Redis is back the nodes
        register what they hold again.
        """
        redis = PrivateRedis(self)
        a = node(self, redis.url(2), "a")
        b = node(self, redis.url(2), "b")
        for server in (a, b):
            server.waitForLog("cluster node .* links on")
        first = bots("gomoku", a.port("gomoku"), "--count", "1",
                     "--room", "r1", "--name", "a_", "--delay", "0.1")
        a.waitForLog(r"joined gomoku room 'r1'")
        second = bots("gomoku", b.port("gomoku"), "--count", "1",
                      "--room", "r1", "--name", "b_", "--delay", "0.1")
        a.waitForLog(r"gomoku game started in 'r1'|'b_1' joined")
        erin, reply = register(a.port("gomoku"), "erin")
        self.assertEqual(reply["status"], wire.S_OK)
        redis.stop()
        self.assertIn("after", finished(second))
        self.assertIn("after", finished(first))
        client, reply = register(b.port("gomoku"), "frank")
        self.assertEqual(reply["status"], wire.S_ERROR)
        client.close()
        for server in (a, b):
            server.waitForLog(r"Redis at 127\.0\.0\.1:\d+ is unreachable "
                            r"\(.*\); meanwhile this node keeps serving")
        redis.start()
        # Each node says when Redis answers it again; a's first answer is
        # its renewal, which writes its names (erin) back.
        a.waitForLog(r"Redis at \S+ answers again")
        b.waitForLog(r"Redis at \S+ answers again")
        client, reply = register(b.port("gomoku"), "erin")
        client.close()
        self.assertEqual(reply["status"], wire.S_PLAYER_EXISTS)
        client, reply = register(b.port("gomoku"), "frank")
        self.assertEqual(reply["status"], wire.S_OK)
        client.close()
        erin.close()


class RollingRestart(TestCase):
    """
    One node of two drains (C{--drain-seconds}) and restarts; the other
    node's games go on untouched.
    """

    def test_restartOneNode(self):
        """
        SIGTERM to node a: a withdraws (its waiting room leaves the
        cluster's room list, a Splendor player arriving at b is seated at
        b, not at a's open table) and ends its stalled game at the
        deadline; node b's game, started before, ends normally and is
        recorded.  A restarted node a takes new rooms again.
        """
        from urllib.request import urlopen
        url = sharedRedisURL(2)
        web = ("gomoku", "checkers", "splendor", "web")
        a = GamehubServer(self, "--cluster", url, "--node-id", "a",
                          "--drain-seconds", "5", "--announce", "no",
                          "--checkers-turn-seconds", "100", games=web)
        b = node(self, url, "b", "--announce", "no")
        for server in (a, b):
            server.waitForLog("cluster: registered in Redis")

        def readyz():
            try:
                with urlopen("http://127.0.0.1:{}/readyz".format(
                        a.port("web")), timeout=30) as response:
                    return response.status
            except OSError as e:
                return getattr(e, "code", None)
        self.assertEqual(readyz(), 200)

        # On a: a game that will not end in time, a waiting gomoku room,
        # and an open Splendor table.
        stalled = bots("checkers", a.port("checkers"), "--count", "2",
                       "--room", "ca", "--delay", "60")
        lone = bots("splendor", a.port("splendor"), "--count", "1",
                    "--delay", "60")
        for process in (stalled, lone):
            self.addCleanup(process.kill)
        a.waitForLog(r"joined checkers room 'ca'", count=2)
        a.waitForLog(r"joined splendor room 'table-a-1'")
        owner, reply = register(a.port("gomoku"), "wanda")
        owner.token = reply["token"]
        # A room is in the room list once its node has added it to the
        # kind's index (a sorted set: Redis's "zadd" event on that key).
        published = ExpiryWatch(url, "zadd")
        self.addCleanup(published.close)
        self.assertEqual(createRoom(owner, "wa")["status"], wire.S_OK)
        published.wait(["rooms:gomoku"])
        viewer, reply = register(b.port("gomoku"), "viv")
        viewer.token = reply["token"]
        self.assertIn("wa", roomList(viewer))
        # On b: a game under way.
        game = bots("gomoku", b.port("gomoku"), "--count", "2", "--room",
                    "rb", "--name", "b_", "--delay", "0.3")
        b.waitForLog(r"joined gomoku room 'rb'", count=2)

        a.process.send_signal(signal.SIGTERM)
        a.waitForLog(r"withdrew: \d+ waiting room")
        # b's game is still under way while a drains.
        self.assertNotIn("of table 'rb'", "".join(b.output))
        self.assertEqual(readyz(), 503)
        self.assertNotIn("wa", roomList(viewer))
        arriving = bots("splendor", b.port("splendor"), "--count", "2",
                        "--delay", "0.02")
        finished(arriving)
        b.waitForLog(r"joined splendor room 'table-b-1'", count=2)
        self.assertNotIn("joined splendor room 'table-a-1'",
                         "".join(b.output))

        a.process.wait(30)
        a.stop()
        log = "".join(a.output)
        self.assertIn("drain over: 1 game(s) still running are ended as "
                      "abandoned", log)
        self.assertIn("recorded checkers game", log)
        self.assertNotIn("Traceback", log)
        owner.close()

        self.assertIn("after", finished(game))
        b.waitForLog(r"recorded gomoku game \d+ of table 'rb' \(normal")
        again = node(self, url, "a", "--announce", "no")
        again.waitForLog("cluster: registered in Redis")
        client, reply = register(again.port("gomoku"), "wilma")
        client.token = reply["token"]
        published = ExpiryWatch(url, "zadd")
        self.addCleanup(published.close)
        self.assertEqual(createRoom(client, "wa2")["status"], wire.S_OK)
        published.wait(["rooms:gomoku"])
        self.assertIn("wa2", roomList(viewer))
        client.close()
        viewer.close()
