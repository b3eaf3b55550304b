"""
Accounts in the real C{twistd -n gamehub}, on a database made by
C{python -m hub.accounts} before the hub ever ran: keyed names play
checkers and gomoku through the bot client (C{--key}) and everyone else
sees the plain name; impostors are refused; an address banned with the
CLI while the hub runs is cut off in every protocol within 5 s; and no
key, password or hash leaks into the log, the records, the web face or
the metrics.
"""

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request

from twisted.trial.unittest import SynchronousTestCase

from hub.wire import checkers as cwire
from hub.wire import gomoku as gwire

from tests.bots.test_endtoend import botClient
from tests.web.test_guests import marked
from tests.endtoend import (
    TIMEOUT, BlockingClient, GamehubServer, GomokuClient)

PASSWORD = "Correct-Horse-Battery-9"
BAN_REACH = 5.0


def accountsCommand(url, *argv, stdin=""):
    """
    Run C{python -m hub.accounts --db url argv...}; its standard output.
    """
    process = subprocess.run(
        [sys.executable, "-m", "hub.accounts", "--db", url] + list(argv),
        input=stdin.encode(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        timeout=TIMEOUT)
    if process.returncode != 0:
        raise AssertionError(process.stderr.decode())
    return process.stdout.decode()


class CheckersLineClient(BlockingClient):
    """
    A blocking checkers client reading whole lines.
    """

    def __init__(self, port, source=None):
        BlockingClient.__init__(self, port, source=source)
        self.pending = b""

    def send(self, op, data1="", data2=""):
        self.sendBytes(cwire.encode(op, data1, data2))

    def receive(self):
        while b"\n" not in self.pending:
            data = self.recvSome()
            if not data:
                raise EOFError("server closed the connection")
            self.pending += data
        line, self.pending = self.pending.split(b"\n", 1)
        return cwire.decode(line + b"\n")


def closedWithin(client, seconds):
    """
    Whether the server closes C{client}'s connection within C{seconds}.
    """
    client.sock.settimeout(seconds)
    return client.isClosedByPeer()


class AccountsServerTests(SynchronousTestCase):
    """
    C{twistd -n gamehub --db sqlite:PATH} with the default C{--names
    accounts}.
    """

    def setUp(self):
        folder = tempfile.mkdtemp(prefix="gamehub-accounts-e2e-")
        self.addCleanup(shutil.rmtree, folder, True)
        self.path = os.path.join(folder, "hub.sqlite")
        self.url = "sqlite:" + self.path
        self.keys = {}
        for name in ("alice", "bob"):
            out = accountsCommand(self.url, "add", name,
                                  stdin=PASSWORD + "\n")
            self.keys[name] = out.strip().splitlines()[-1][len("key: "):]

    def startServer(self, *games):
        self.server = GamehubServer(
            self, "--db", self.url, "--leaderboard-min-games", "1",
            "--checkers-sizes", "3", "--announce", "no",
            games=tuple(games) + ("web",))
        self.base = "http://127.0.0.1:%d" % (self.server.port("web"),)

    def get(self, path):
        with urllib.request.urlopen(self.base + path,
                                    timeout=TIMEOUT) as response:
            return response.read().decode("utf-8")

    def play(self, *processes):
        outputs = []
        for process in processes:
            out, err = process.communicate(timeout=TIMEOUT * 6)
            self.assertEqual(process.returncode, 0, err.decode()[-2000:])
            outputs.append(out.decode())
        return outputs

    def secrets(self):
        """
        Every secret that must never leak: keys, the password, hashes and
        the server's HMAC secret.
        """
        connection = sqlite3.connect(self.path)
        try:
            rows = connection.execute(
                "SELECT password_hash, key_hash FROM accounts").fetchall()
            secret = connection.execute(
                "SELECT value FROM settings").fetchall()
        finally:
            connection.close()
        found = list(self.keys.values()) + [PASSWORD]
        for passwordHash, keyHash in rows:
            found += [passwordHash, passwordHash.split("$")[-1], keyHash]
        return found + [value for (value,) in secret]

    def assertNoLeak(self, kind, gameId, name):
        """
        No secret in the log, the records' tables, the pages, the JSON
        API or the metrics.
        """
        texts = {"log": "".join(self.server.output)}
        connection = sqlite3.connect(self.path)
        try:
            for table in ("games", "game_seats", "game_events", "ratings",
                          "audit"):
                texts[table] = repr(connection.execute(
                    "SELECT * FROM " + table).fetchall())
        finally:
            connection.close()
        for path in ("/", "/leaderboard/" + kind, "/api/leaderboard/" + kind,
                     "/players/%s/%s" % (kind, name),
                     "/api/players/%s/%s" % (kind, name),
                     "/games/%d" % (gameId,), "/api/games/%d" % (gameId,),
                     "/api/games", "/api/hub", "/metrics"):
            texts[path] = self.get(path)
        for secret in self.secrets():
            for where, text in texts.items():
                self.assertNotIn(secret, text, "a secret in " + where)

    def assertRecorded(self, kind, name):
        """
        The game is recorded with C{name} plain and no guest, the others
        as guests; C{name}'s rating moved, and the leaderboard lists
        C{name} only (guests are left out).

        @return: the game's id.
        """
        self.server.waitForLog(r"recorded %s game \d+" % (kind,))
        connection = sqlite3.connect(self.path)
        try:
            seats = connection.execute(
                "SELECT game_id, name, guest FROM game_seats").fetchall()
            rating = connection.execute(
                "SELECT mu, sigma, games, guest FROM ratings WHERE name = ?",
                (name,)).fetchone()
        finally:
            connection.close()
        self.assertEqual([guest for _, n, guest in seats if n == name], [0])
        self.assertTrue(all(guest == 1 for _, n, guest in seats
                            if n != name))
        mu, sigma, games, guest = rating
        self.assertEqual((games, guest), (1, 0))
        self.assertNotEqual((mu, sigma), (25.0, 25.0 / 3))
        player = json.loads(self.get("/api/players/%s/%s" % (kind, name)))
        self.assertEqual(player["games"], 1)
        self.assertIn(name, player["recent"][0]["players"])
        board = json.loads(self.get("/api/leaderboard/" + kind))
        self.assertEqual([s["name"] for s in board["standings"]], [name])
        gameId = seats[0][0]
        record = json.loads(self.get("/api/games/%d" % (gameId,)))
        self.assertIn(name, json.dumps(record))
        return gameId

    def test_checkers(self):
        """
        C{alice__KEY} plays a game of three through the bot client with
        C{--key}: the other clients' END_GAME_OP ranking says C{alice};
        the record, rating, pages and API say C{alice}; C{alice} without
        the key, or with a wrong key, is refused with INVALID_JOIN.
        """
        self.startServer("checkers")
        port = self.server.port("checkers")
        for name in ("alice", "Alice", "alice__0000000000"):
            impostor = CheckersLineClient(port)
            impostor.send(cwire.JOIN_ROOM_OP, "C", name)
            reply = impostor.receive()
            self.assertEqual((reply.op, reply.data1),
                             (cwire.ERROR_OP, str(cwire.INVALID_JOIN)))
            impostor.close()
        alice = botClient("checkers", port, "--count", "1", "--name",
                          "alice", "--key", self.keys["alice"], "--room",
                          "C")
        guests = botClient("checkers", port, "--count", "2", "--name",
                           "guest", "--room", "C")
        aliceOut, guestsOut = self.play(alice, guests)
        ranking = guestsOut.split("ranking", 1)[1].split()
        self.assertIn("alice", ranking)
        self.assertEqual(len(ranking), 3)
        self.assertIn("alice", aliceOut.split("ranking", 1)[1].split())
        self.assertNotIn(self.keys["alice"], aliceOut + guestsOut)
        gameId = self.assertRecorded("checkers", "alice")
        self.server.waitForLog(r"refused checkers name 'alice'")
        metrics = self.get("/metrics")
        self.assertIn('gamehub_names_refused_total{reason="taken"} 2.0',
                      metrics)
        self.assertIn('gamehub_names_refused_total{reason="wrong_key"} 1.0',
                      metrics)
        self.assertIn("gamehub_names_proven_total 1.0", metrics)
        self.assertNoLeak("checkers", gameId, "alice")

    def test_gomoku(self):
        """
        C{bob#KEY} plays gomoku through the bot client with C{--key}:
        another client's room list says C{bob}; the record, rating, pages
        and API too; C{bob} and a wrong key get status 258.  The pages
        mark the guest it played, never C{bob}.
        """
        self.startServer("gomoku")
        port = self.server.port("gomoku")
        for name in ("bob", "BOB", "bob#0000000000"):
            impostor = GomokuClient(port)
            impostor.send(gwire.regMessage(name, impostor.nextSession(),
                                           gwire.INVALID_TOKEN))
            self.assertEqual(impostor.receive()["status"],
                             gwire.S_PLAYER_EXISTS)
            impostor.close()
        watcher = GomokuClient(port)
        watcher.send(gwire.regMessage("watcher", watcher.nextSession(),
                                      gwire.INVALID_TOKEN))
        self.assertEqual(watcher.receive()["status"], gwire.S_OK)
        bob = botClient("gomoku", port, "--count", "1", "--name", "bob",
                        "--key", self.keys["bob"], "--room", "G",
                        "--delay", "0.3")
        self.server.waitForLog(r"joined gomoku room 'G'")
        watcher.send(gwire.requestMessage(gwire.REQ_ROOM_LIST,
                                          watcher.nextSession()))
        rooms = watcher.receive().get("rooms") or []
        self.assertEqual({r["owner"] for r in rooms if r["name"] == "G"},
                         {"bob"})
        guest = botClient("gomoku", port, "--count", "1", "--name", "gst",
                          "--room", "G")
        bobOut, guestOut = self.play(bob, guest)
        self.assertIn("bob ", bobOut)
        self.assertNotIn(self.keys["bob"], bobOut + guestOut)
        gameId = self.assertRecorded("gomoku", "bob")
        self.assertNoLeak("gomoku", gameId, "bob")
        self.assertGuestsMarked("gomoku", gameId, "bob")

    def assertGuestsMarked(self, kind, gameId, name):
        """
        The pages mark the guest C{name} played as a guest (the game's
        replay, a player's page), never the account C{name}; the
        leaderboard lists the account, unmarked, and not the guest.
        """
        record = json.loads(self.get("/api/games/%d" % (gameId,)))
        [guest] = [s["name"] for s in record["seats"] if s["guest"]]
        self.assertTrue(guest.startswith("gst"), guest)
        game = self.get("/games/%d" % (gameId,))
        self.assertTrue(marked(game.encode(), guest))
        self.assertFalse(marked(game.encode(), name))
        for player in (name, guest):
            page = self.get("/players/%s/%s" % (kind, player))
            self.assertTrue(marked(page.encode(), guest))
            self.assertFalse(marked(page.encode(), name))
            self.assertEqual('class="guest-note"' in page, player == guest)
        board = self.get("/leaderboard/" + kind)
        self.assertIn("<bdi>%s</bdi>" % (name,), board)
        self.assertFalse(marked(board.encode(), name))
        self.assertNotIn("<bdi>%s</bdi>" % (guest,), board)

    def test_banReachesEveryProtocol(self):
        """
        A ban of the loopback address made with the CLI while the hub
        runs closes a live connection of every protocol within 5 s, and
        new connections are closed at once; an unban lets them in again.
        """
        self.startServer("gomoku", "checkers", "splendor")
        gomoku = GomokuClient(self.server.port("gomoku"))
        gomoku.send(gwire.regMessage("carl", gomoku.nextSession(),
                                     gwire.INVALID_TOKEN))
        self.assertEqual(gomoku.receive()["status"], gwire.S_OK)
        checkers = CheckersLineClient(self.server.port("checkers"))
        checkers.send(cwire.JOIN_ROOM_OP, "R", "dora")
        self.assertEqual(checkers.receive().op, cwire.JOIN_ROOM_REPLY_OP)
        splendor = BlockingClient(self.server.port("splendor"))
        accountsCommand(self.url, "ban", "127.0.0.0/8", "--for", "10m",
                        "--reason", "test")
        banned = time.monotonic()
        for client in (gomoku, checkers, splendor):
            self.assertTrue(closedWithin(
                client, max(0.1, banned + BAN_REACH - time.monotonic())))
        for kind in ("gomoku", "checkers", "splendor"):
            late = BlockingClient(self.server.port(kind))
            self.assertTrue(closedWithin(late, BAN_REACH))
        accountsCommand(self.url, "unban", "127.0.0.0/8")
        # The hub says when its snapshot of the bans changes: the ban,
        # then the unban.
        self.server.waitForLog(r"bans now: 0 address range", count=1,
                               timeout=BAN_REACH + 1)
        again = CheckersLineClient(self.server.port("checkers"))
        try:
            again.send(cwire.JOIN_ROOM_OP, "R2", "dora")
            self.assertEqual(again.receive().op, cwire.JOIN_ROOM_REPLY_OP)
        finally:
            again.close()
        audit = accountsCommand(self.url, "audit")
        self.assertEqual([line.split()[2] for line in audit.splitlines()],
                         ["add", "add", "ban", "unban"])


def nineOf(key):
    """
    Every run of 9 characters of C{key}, in its case and swapped.
    """
    return {variant[i:i + 9] for variant in (key, key.swapcase())
            for i in range(len(key) - 8)}


def pending(client):
    """
    What C{client} was sent and has not read (after a moment's wait).
    """
    client.sock.settimeout(0.5)
    data = client.pending
    try:
        while True:
            more = client.sock.recv(65536)
            if not more:
                break
            data += more
    except OSError:
        pass
    return data.decode("utf-8", "replace")


class MistypedKeyTests(SynchronousTestCase):
    """
    docs/accounts.md, "Names": a name holding a separator is never a
    guest's, whatever follows it.
    """

    setUp = AccountsServerTests.setUp
    startServer = AccountsServerTests.startServer
    get = AccountsServerTests.get

    def test_mistypedKeysShownNowhere(self):
        """
        C{alice} with her key and one character more, one fewer, nothing
        after the separator, or in another case, through checkers and
        gomoku (and each protocol's form in the other): every one is
        refused as "taken", and neither the key nor 9 of its characters
        reach another client, a page, the JSON API, the metrics, a log
        line or a record.  Her key, right, is still taken afterwards from
        an address that has not failed.
        """
        self.startServer("checkers", "gomoku")
        key = self.keys["alice"]
        tails = [key + "x", key[:-1], "", key.swapcase()]
        cport, gport = self.server.port("checkers"), self.server.port(
            "gomoku")
        gwatch = GomokuClient(gport)
        gwatch.send(gwire.regMessage("gwatch", gwatch.nextSession(),
                                     gwire.INVALID_TOKEN))
        self.assertEqual(gwatch.receive()["status"], gwire.S_OK)
        cwatch = CheckersLineClient(cport)
        cwatch.send(cwire.JOIN_ROOM_OP, "R", "cwatch")
        self.assertEqual(cwatch.receive().op, cwire.JOIN_ROOM_REPLY_OP)
        for tail in tails:
            for separator in ("__", "#"):
                client = GomokuClient(gport)
                client.send(gwire.regMessage(
                    "alice" + separator + tail, client.nextSession(),
                    gwire.INVALID_TOKEN))
                self.assertEqual(client.receive()["status"],
                                 gwire.S_PLAYER_EXISTS, tail)
                client.close()
            if not tail.isalnum() and tail:
                continue
            client = CheckersLineClient(cport)
            client.send(cwire.JOIN_ROOM_OP, "R", "alice__" + tail)
            reply = client.receive()
            self.assertEqual((reply.op, reply.data1),
                             (cwire.ERROR_OP, str(cwire.INVALID_JOIN)), tail)
            client.close()
        gwatch.send(gwire.requestMessage(gwire.REQ_ROOM_LIST,
                                         gwatch.nextSession()))
        listed = gwatch.receive()
        # (From an address that has not failed: this one is past its
        # limit for alice.)
        right = CheckersLineClient(cport, source="127.0.0.2")
        right.send(cwire.JOIN_ROOM_OP, "R2", "alice__" + key)
        self.assertEqual(right.receive().op, cwire.JOIN_ROOM_REPLY_OP)
        right.close()
        self.server.waitForLog(r"refused gomoku name 'alice'")
        texts = {"log": "".join(self.server.output),
                 "gomoku watcher": repr([listed] + gwatch.received),
                 "checkers watcher": pending(cwatch)}
        gwatch.close()
        cwatch.close()
        connection = sqlite3.connect(self.path)
        try:
            tables = [name for (name,) in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")]
            for table in tables:
                texts[table] = repr(connection.execute(
                    "SELECT * FROM " + table).fetchall())
        finally:
            connection.close()
        for path in ("/", "/api/hub", "/api/games", "/metrics",
                     "/leaderboard/gomoku", "/leaderboard/checkers"):
            texts[path] = self.get(path)
        for where, text in texts.items():
            for run in nineOf(key):
                self.assertNotIn(run, text, "9 of the key's characters in "
                                 + where)
