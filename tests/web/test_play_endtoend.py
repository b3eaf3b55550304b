"""
Browser play end to end: the real C{twistd -n gamehub}, a browser-protocol
client (autobahn's WebSocket client) and the TCP bot client
(C{python -m hub.bots}) at one checkers table; gomoku rooms shared with
gomoku-battle clients; a foreign origin refused over a real socket.
"""

import json
import os
import sys

from twisted.internet import defer, reactor
from twisted.internet.utils import getProcessOutputAndValue
from twisted.trial.unittest import TestCase
from twisted.web.client import Agent, readBody

from hub.wire import gomoku as gomokuWire
from tests.endtoend import GamehubServer, GomokuClient
from tests.web.wsclient import PlayClient

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


class PlayEndToEndTests(TestCase):
    """
    The WebSocket of a real hub.
    """

    timeout = 120

    def setUp(self):
        self.server = GamehubServer(
            self, "--checkers-turn-seconds", "30", "--bot-delay", "0.02",
            games=("gomoku", "checkers", "web"))
        self.web = self.server.port("web")
        self.origin = "http://127.0.0.1:{}".format(self.web)

    def client(self, origin=True):
        client = PlayClient(reactor, "ws://127.0.0.1:{}/ws".format(
            self.web), origin=self.origin if origin is True else origin)
        self.addCleanup(client.close)
        return client

    @defer.inlineCallbacks
    def hello(self, name):
        client = self.client()
        yield client.opened()
        client.send({"type": "hello", "version": 1, "name": name})
        yield client.waitType("welcome")
        return client

    @defer.inlineCallbacks
    def test_foreignOrigin(self):
        """
        Over a real socket, a foreign origin is refused before the
        WebSocket opens; the hub's own is let in.
        """
        foreign = self.client(origin="http://evil.example")
        yield self.assertFailure(foreign.opened(), ConnectionError)
        own = yield self.hello("alice")
        self.assertEqual(own.messages[0]["name"], "alice")

    @defer.inlineCallbacks
    def test_mixedCheckersTable(self):
        """
        A browser player makes checkers room r1 for three, a server bot
        fills one seat, the TCP bot client joins: the three play one game
        to its end, and the record names the browser player and the TCP
        bot.
        """
        browser = yield self.hello("webby")
        browser.send({"type": "create", "kind": "checkers", "room": "r1",
                      "players": 3})
        yield browser.waitFor(lambda m: m["type"] == "room" and m["room"])
        # (The bot plays at the level asked: 2, so that the game, with
        # a random level-1 TCP bot, ends in good time.)
        browser.send({"type": "bots", "count": 1, "level": 2})
        env = dict(os.environ, PYTHONPATH=ROOT)
        bot = getProcessOutputAndValue(
            sys.executable, [
                "-m", "hub.bots", "checkers://127.0.0.1:{}".format(
                    self.server.port("checkers")), "--room", "r1", "--count",
                "1", "--level", "1", "--delay", "0.01", "--name", "tcp"],
            env=env, path=ROOT)
        yield browser.waitFor(lambda m: m["type"] == "room" and m["room"]
                              and len(m["room"]["members"]) == 3)
        browser.autoPlay = "hint"
        browser.send({"type": "ready"})
        started = yield browser.waitType("event", "GameStarted")
        names = [s["name"] for s in started["seats"]]
        self.assertEqual(len(names), 3)
        self.assertIn("webby", names)
        tcpName = [n for n in names if n.startswith("tcp")][0]
        ended = yield browser.waitType("event", "GameEnded", timeout=100)
        self.assertEqual(ended["reason"], "normal")
        self.assertEqual(sorted(ended["names"]), sorted(names))
        out, err, code = yield bot
        self.assertEqual(code, 0, err)
        self.assertIn(b"checkers room r1: ranking", out)
        for name in ("webby", tcpName):
            record = yield self.recentGames(name)
            self.assertTrue(record, name)
            self.assertIn("webby", json.dumps(record))
            self.assertIn(tcpName, json.dumps(record))

    @defer.inlineCallbacks
    def recentGames(self, name):
        """
        The recent games of checkers player C{name}, from the JSON API,
        once the records have the game of room r1 (the hub logs it once
        written; the wait is bounded).
        """
        yield deferToThread(lambda: self.server.waitForLog(
            r"recorded checkers game \d+ of table 'r1'"))
        agent = Agent(reactor)
        url = "http://127.0.0.1:{}/api/players/checkers/{}".format(
            self.web, name)
        response = yield agent.request(b"GET", url.encode())
        body = yield readBody(response)
        data = json.loads(body) if response.code == 200 else None
        return data.get("recent") if data else None

    @defer.inlineCallbacks
    def test_gomokuRoomsShared(self):
        """
        A gomoku room made in the browser is in a gomoku-battle client's
        msg_room_list.
        """
        browser = yield self.hello("webby")
        browser.send({"type": "create", "kind": "gomoku", "room": "webroom"})
        yield browser.waitFor(lambda m: m["type"] == "room" and m["room"])
        rooms = yield deferToThread(self.gomokuRooms)
        self.assertEqual([r["name"] for r in rooms], ["webroom"])

    def gomokuRooms(self):
        client = GomokuClient(self.server.port("gomoku"))
        try:
            client.send(gomokuWire.regMessage("tcpguy", 1))
            client.receive()
            client.send(gomokuWire.requestMessage(gomokuWire.REQ_ROOM_LIST,
                                                  2))
            return client.receive()["rooms"]
        finally:
            client.close()


def deferToThread(f):
    from twisted.internet import threads
    return threads.deferToThread(f)
