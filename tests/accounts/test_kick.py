"""
A kick mid-game in the real C{twistd -n gamehub --takeover bot}: the
kicked player's seat is played by a server bot and the game ends
normally.  Here the kick is the command line's ban of the player's
account, which closes its live connection within 5 s, the way a
moderator's kick closes it (the protocol's clean disconnect; the game's
own rules then apply); L{tests.accounts.test_adminkick} kicks through
the admin JSON API.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

from twisted.trial.unittest import SynchronousTestCase

from tests.accounts.test_endtoend import PASSWORD, accountsCommand
from tests.bots.test_endtoend import botClient
from tests.endtoend import TIMEOUT, GamehubServer

BAN_REACH = 5.0


def exportGames(url):
    """
    Every recorded game, as C{python -m hub.records export} gives them.
    """
    out = subprocess.run(
        [sys.executable, "-m", "hub.records", "--db", url, "export",
         "--since", "2000-01-01"], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, timeout=TIMEOUT, check=True).stdout
    return [json.loads(line) for line in out.decode().splitlines()]


class KickTakeoverTests(SynchronousTestCase):
    """
    C{--takeover bot}, C{--names accounts}, a checkers game of two.
    """

    def setUp(self):
        folder = tempfile.mkdtemp(prefix="gamehub-kick-")
        self.addCleanup(shutil.rmtree, folder, True)
        self.url = "sqlite:" + os.path.join(folder, "hub.sqlite")
        out = accountsCommand(self.url, "add", "alice",
                              stdin=PASSWORD + "\n")
        self.key = out.strip().splitlines()[-1][len("key: "):]
        self.server = GamehubServer(
            self, "--db", self.url, "--takeover", "bot", "--bot-delay",
            "0.05", "--grace-seconds", "1", "--checkers-sizes", "2",
            "--announce", "no", "--log-level", "debug",
            games=("checkers",))

    def test_kickedSeatTakenOver(self):
        """
        Alice (C{alice__KEY}) and a guest play; alice is cut off mid-game;
        a server bot takes her seat, the guest plays on to the end, and
        the record shows the takeover of alice's seat and a normal end.
        """
        port = self.server.port("checkers")
        alice = botClient("checkers", port, "--count", "1", "--name",
                          "alice", "--key", self.key, "--room", "K",
                          "--delay", "0.1")
        self.addCleanup(lambda: alice.poll() is None and alice.kill())
        guest = botClient("checkers", port, "--count", "1", "--name", "gst",
                          "--room", "K", "--delay", "0.1")
        self.addCleanup(lambda: guest.poll() is None and guest.kill())
        self.server.waitForLog(r"checkers game started in 'K'")
        accountsCommand(self.url, "ban", "alice", "--for", "10m",
                        "--reason", "kick")
        self.server.waitForLog(r"closing checkers connection of 'alice': "
                               r"banned", timeout=BAN_REACH)
        alice.communicate(timeout=TIMEOUT)
        self.assertNotEqual(alice.returncode, 0)
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
