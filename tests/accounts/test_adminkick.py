"""
A kick from C{/admin}'s JSON API mid-game in the real C{twistd -n gamehub
--takeover bot --names accounts}: an admin's API token lists the live
connections and kicks the one a TCP bot client plays through; the hub
closes it the protocol's clean way (its last bytes flushed, then a FIN,
never a reset), a server bot takes the seat, the game runs to its end
and is recorded with the takeover, and the audit names the admin.
"""

import json
import os
import select
import shutil
import socket
import tempfile
import threading
import urllib.request

from twisted.trial.unittest import SynchronousTestCase

from tests.accounts.test_endtoend import PASSWORD, accountsCommand
from tests.accounts.test_kick import exportGames
from tests.bots.test_endtoend import botClient
from tests.endtoend import TIMEOUT, GamehubServer


class Relay:
    """
    A loopback TCP relay to C{port} for one client, in a thread, that
    sees how the server ends the connection: C{"fin"} (an orderly close,
    recv gives b"") or C{"reset"}; C{tail} keeps the server's last bytes.
    """

    def __init__(self, testCase, port):
        self.port = port
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(1)
        self.listener.settimeout(TIMEOUT)
        self.address = self.listener.getsockname()[1]
        self.serverClosed = None
        self.tail = b""
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        testCase.addCleanup(self.listener.close)

    def _run(self):
        try:
            client, _ = self.listener.accept()
        except OSError:
            self.done.set()
            return
        server = socket.create_connection(("127.0.0.1", self.port),
                                          timeout=TIMEOUT)
        try:
            self._pump(client, server)
        finally:
            client.close()
            server.close()
            self.done.set()

    def _pump(self, client, server):
        while True:
            ready, _, _ = select.select([client, server], [], [], TIMEOUT)
            if not ready:
                return
            if server in ready:
                try:
                    data = server.recv(65536)
                except ConnectionResetError:
                    self.serverClosed = "reset"
                    return
                if not data:
                    self.serverClosed = "fin"
                    return
                self.tail = (self.tail + data)[-4096:]
                client.sendall(data)
            if client in ready:
                try:
                    data = client.recv(65536)
                except ConnectionResetError:
                    data = b""
                if not data:
                    return
                server.sendall(data)


class AdminKickTakeoverTests(SynchronousTestCase):
    """
    C{--takeover bot}, C{--names accounts}, the web face, a checkers game
    of two, an admin with an API token.
    """

    def setUp(self):
        folder = tempfile.mkdtemp(prefix="gamehub-adminkick-")
        self.addCleanup(shutil.rmtree, folder, True)
        self.url = "sqlite:" + os.path.join(folder, "hub.sqlite")
        out = accountsCommand(self.url, "add", "alice",
                              stdin=PASSWORD + "\n")
        self.key = out.strip().splitlines()[-1][len("key: "):]
        accountsCommand(self.url, "add", "root", "--role", "admin",
                        stdin=PASSWORD + "\n")
        out = accountsCommand(self.url, "token", "root")
        self.token = out.strip().splitlines()[-1][len("token: "):]
        self.server = GamehubServer(
            self, "--db", self.url, "--names", "accounts", "--takeover",
            "bot", "--bot-delay", "0.05", "--grace-seconds", "1",
            "--checkers-sizes", "2", "--announce", "no", "--log-level",
            "debug", games=("checkers", "web"))
        self.base = "http://127.0.0.1:%d" % (self.server.port("web"),)

    def api(self, path, body=None):
        """
        The JSON answer of the admin API at C{path}, as the admin (a POST
        of C{body} if given).
        """
        request = urllib.request.Request(
            self.base + "/api/admin/" + path,
            data=json.dumps(body).encode() if body is not None else None,
            headers={"Authorization": "Bearer " + self.token,
                     "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            self.assertEqual(response.status, 200)
            return json.loads(response.read().decode())

    def test_kickedSeatTakenOver(self):
        """
        Alice's bot client (C{alice__KEY}) and a guest's play; the admin
        kicks alice's connection through the API; the hub closes it
        cleanly, a server bot takes her seat, the guest plays on to the
        end, and the record shows the takeover and a normal end.
        """
        port = self.server.port("checkers")
        relay = Relay(self, port)
        alice = botClient("checkers", relay.address, "--count", "1",
                          "--name", "alice", "--key", self.key, "--room",
                          "K", "--delay", "0.1")
        self.addCleanup(lambda: alice.poll() is None and alice.kill())
        guest = botClient("checkers", port, "--count", "1", "--name", "gst",
                          "--room", "K", "--delay", "0.1")
        self.addCleanup(lambda: guest.poll() is None and guest.kill())
        self.server.waitForLog(r"checkers game started in 'K'")
        connections = self.api("connections")["connections"]
        [playing] = [c for c in connections if c["name"] == "alice"]
        self.assertEqual((playing["protocol"], playing["room"],
                          playing["guest"]), ("checkers", "K", False))
        self.assertNotIn(self.key, json.dumps(connections))
        self.api("kick", {"session": playing["session"],
                          "reason": "test kick"})
        self.assertTrue(relay.done.wait(TIMEOUT))
        self.assertEqual(relay.serverClosed, "fin")
        # Whole lines only: the hub flushed what it had written.
        self.assertTrue(relay.tail.endswith(b"\n"), relay.tail[-80:])
        _, err = alice.communicate(timeout=TIMEOUT)
        self.assertNotEqual(alice.returncode, 0)
        self.assertIn(b"the connection closed before the game ended", err)
        out, err = guest.communicate(timeout=TIMEOUT * 6)
        self.assertEqual(guest.returncode, 0, err.decode()[-2000:])
        ranking = out.decode().split("ranking", 1)[1].split()
        self.assertEqual(sorted(ranking), ["alice", "gst1"])
        self.server.waitForLog(r"recorded checkers game \d+")
        (game,) = exportGames(self.url)
        self.assertEqual(game["reason"], "normal")
        seats = {seat["name"]: seat for seat in game["seats"]}
        self.assertIsNotNone(seats["alice"]["takeover"])
        self.assertIsNone(seats["gst1"]["takeover"])
        taken = [event["seat"] for event in game["events"]
                 if event["type"] == "SeatTakenOver"]
        self.assertEqual(taken, [seats["alice"]["seat"]])
        kicks = [entry for entry in self.api("audit")["audit"]
                 if entry["action"] == "kick"]
        self.assertEqual([(e["actor"], e["reason"]) for e in kicks],
                         [("root", "test kick")])
        self.assertIn("alice", kicks[0]["target"])
