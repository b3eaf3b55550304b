"""
Display names never reach the legacy protocols (docs/accounts.md,
"Display names"): in the real C{twistd -n gamehub}, the account C{alice}
is given the display name 爱丽丝 with C{python -m hub.accounts
display-name}, then plays a whole gomoku game with her play key against
a guest over loopback sockets while a third client lists the rooms.  The
web face shows C{爱丽丝 (alice)} on the lobby, the live game's page, the
game's record and her page; no byte any legacy client receives holds the
display name, in UTF-8 or escaped in JSON.
"""

import json
import os
import shutil
import tempfile

from twisted.trial.unittest import SynchronousTestCase

from hub.wire import gomoku as wire

from tests.accounts.test_endtoend import PASSWORD, accountsCommand
from tests.endtoend import (
    TIMEOUT, GamehubServer, GomokuClient, GomokuSteps, waitUntil)
from tests.web.test_display_names import named

DISPLAY = "爱丽丝"


class RecordingClient(GomokuClient):
    """
    A gomoku client that keeps every byte the hub sent it.
    """

    def __init__(self, port):
        GomokuClient.__init__(self, port)
        self.bytesReceived = b""

    def recvSome(self):
        data = GomokuClient.recvSome(self)
        self.bytesReceived += data
        return data


def encodings(text):
    """
    The forms of C{text} a legacy client could be sent: its UTF-8 bytes,
    and each of its characters as UTF-8 and as a JSON escape.
    """
    forms = [text.encode("utf-8")]
    for c in text:
        forms += [c.encode("utf-8"), ("\\u%04x" % (ord(c),)).encode(),
                  ("\\u%04X" % (ord(c),)).encode()]
    return forms


class LegacyNeverSeesTests(GomokuSteps, SynchronousTestCase):
    """
    C{twistd -n gamehub --db sqlite:PATH}, gomoku and the web face.
    """

    def setUp(self):
        folder = tempfile.mkdtemp(prefix="gamehub-display-e2e-")
        self.addCleanup(shutil.rmtree, folder, True)
        self.url = "sqlite:" + os.path.join(folder, "hub.sqlite")
        out = accountsCommand(self.url, "add", "alice",
                              stdin=PASSWORD + "\n")
        self.key = out.strip().splitlines()[-1][len("key: "):]
        accountsCommand(self.url, "display-name", "alice", DISPLAY)
        self.server = GamehubServer(
            self, "--db", self.url, "--leaderboard-min-games", "1",
            "--announce", "no", games=("gomoku", "web"))
        self.base = "http://127.0.0.1:%d" % (self.server.port("web"),)
        self.port = self.server.port("gomoku")

    def get(self, path):
        import urllib.request
        with urllib.request.urlopen(self.base + path,
                                    timeout=TIMEOUT) as response:
            return response.read().decode("utf-8")

    def client(self, name):
        c = RecordingClient(self.port)
        self.addCleanup(c.close)
        c.send(wire.regMessage(name, c.nextSession(), wire.INVALID_TOKEN))
        reply = c.receive()
        self.assertEqual(reply["status"], wire.S_OK, reply)
        return c

    def startGame(self, owner, guest):
        owner.send(wire.roomOpMessage(wire.RO_ROOM_CREATE, "den", "",
                                      owner.nextSession()))
        self.expect(owner, wire.MSG_RESULT, status=0)
        self.joinAndStart(owner, guest, "den")

    def lobbyShows(self):
        """
        The hub now once its lobby shows alice's display name: it reads a
        name it does not hold for its next look, within a second.
        """
        def shown():
            now = json.loads(self.get("/api/hub"))
            members = [m for room in now["kinds"]["gomoku"]["rooms"]
                       for m in room["members"]]
            if any(m["name"] == "alice" and m["display"] == DISPLAY
                   for m in members):
                return now
            return None
        return waitUntil(shown, 10, "the lobby never showed alice's "
                         "display name", interval=0.2)

    def test_gomokuGame(self):
        """
        A whole game: the web face shows 爱丽丝 (alice) everywhere it
        shows alice; the legacy clients are sent C{alice} and never the
        display name.
        """
        alice = self.client("alice#" + self.key)
        guest = self.client("gst")
        watcher = self.client("watcher")
        self.startGame(alice, guest)
        now = self.lobbyShows()
        [game] = now["kinds"]["gomoku"]["games"]
        self.assertEqual(dict(zip(game["players"], game["displays"])),
                         {"alice": DISPLAY, "gst": None})
        self.assertIn(named(DISPLAY, "alice"), self.get("/"))
        self.assertIn(named(DISPLAY, "alice"), self.get(game["url"]))
        watcher.send(wire.requestMessage(wire.REQ_ROOM_LIST,
                                         watcher.nextSession()))
        rooms = self.expect(watcher, wire.MSG_ROOMLIST)["rooms"]
        self.assertEqual({r["owner"] for r in rooms}, {"alice"})
        for i in range(4):
            self.move(guest, alice, i, 7)
            self.move(alice, guest, i, 8)
        self.move(guest, alice, 4, 7)
        self.expect(guest, wire.MSG_GAME, state=3, ex=wire.GAME_RSLT_WIN)
        self.expect(alice, wire.MSG_GAME, state=3, ex=wire.GAME_RSLT_LOSE)
        self.server.waitForLog(r"recorded gomoku game \d+")
        page = self.get("/players/gomoku/alice")
        self.assertIn(named(DISPLAY, "alice"), page)
        player = json.loads(self.get("/api/players/gomoku/alice"))
        self.assertEqual((player["name"], player["display"]),
                         ("alice", DISPLAY))
        gameId = player["recent"][0]["id"]
        record = json.loads(self.get("/api/games/" + gameId))
        self.assertEqual({s["name"]: s["display"] for s in record["seats"]},
                         {"alice": DISPLAY, "gst": None})
        self.assertIn(named(DISPLAY, "alice"), self.get("/games/" + gameId))
        for client in (alice, guest, watcher):
            self.assertTrue(client.bytesReceived)
            for form in encodings(DISPLAY):
                self.assertNotIn(form, client.bytesReceived)
        self.assertIn(b"alice", guest.bytesReceived)
        self.assertIn(b"alice", watcher.bytesReceived)
