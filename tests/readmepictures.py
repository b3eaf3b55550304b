"""
The README's two pictures, taken again after a change to what they show:
C{docs/web-lobby.png} (the web face's lobby) and C{docs/client-checkers.png}
(a checkers game in the desktop client).

    xvfb-run -a python -m tests.readmepictures [--out docs]

It starts the real C{twistd -n gamehub} with a database on free loopback
ports (L{tests.endtoend.GamehubServer}), an account C{dora} (made with
C{python -m hub.accounts}) waiting in a gomoku room, and bots playing a
game of each kind (C{python -m hub.bots}, as guests); three desktop
clients (C{python -m client_pyglet --bot 2}: alice, bob and carol) play
a three-player checkers game to its end, alice's window saved then.
Meanwhile headless Chromium (as the browser tests drive it,
L{tests.web.test_browser.browser}) shows the lobby at 1400x860 once
every kind has a game a few moves in, and saves it.  It takes one to
three minutes, needs a display for the client's window (C{xvfb-run}),
and exits 1 saying why when a step does not happen in time.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

from tests.endtoend import TIMEOUT, GamehubServer
from tests.web.screenshots import Cleanups, reportSaved
from tests.web.test_browser import ROOT, WAIT, browser

#: The lobby's picture, in CSS pixels.
LOBBY_SIZE = (1400, 860)
#: The account waiting in a gomoku room, and its room.
ACCOUNT, ROOM = "dora", "lounge"
#: The desktop clients' players, in seat order: the first one's window is
#: the picture.
CLIENTS = ("alice", "bob", "carol")
#: Seconds the clients' checkers game may take.
GAME_TIMEOUT = 300
#: Moves every kind's game has played when the lobby is pictured.
MOVES = 3
#: The bots of each kind (python -m hub.bots arguments after the URL).
BOTS = {"gomoku": ["--count", "2", "--games", "5", "--delay", "1"],
        "checkers": ["--count", "3", "--room", "star", "--games", "5",
                     "--delay", "0.5"],
        "splendor": ["--count", "2", "--games", "5", "--delay", "1"]}

#: The lobby's games' move counts by kind, and its gomoku rooms' names.
LOBBY_STATE = """
const counts = {};
for (const section of document.querySelectorAll("section.kind")) {
  counts[section.id.replace("kind-", "")] = Array.from(
    section.querySelectorAll(".games .count"), node => node.textContent);
}
return [counts, Array.from(
  document.querySelectorAll("#kind-gomoku .room-name"),
  node => node.textContent)];
"""


def environment(**extra):
    """
    This process's environment, the source tree first on the path.
    """
    env = dict(os.environ, PYTHONUNBUFFERED="1", **extra)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return env


class Pictures:
    """
    The hub, its players and the browser, for the two pictures.
    """

    def __init__(self, cleanups, out):
        self.cleanups = cleanups
        self.out = out
        self.folder = tempfile.mkdtemp(prefix="gamehub-readme-")
        cleanups.addCleanup(shutil.rmtree, self.folder, True)
        self.url = "sqlite:" + os.path.join(self.folder, "hub.sqlite")
        self.saved = []

    def spawn(self, argv, env=None, log=None):
        """
        Start C{python argv...}, stopped (killed) at the end.
        """
        output = subprocess.DEVNULL
        if log is not None:
            output = open(os.path.join(self.folder, log), "wb")
            self.cleanups.addCleanup(output.close)
        process = subprocess.Popen(
            [sys.executable] + argv, stdout=output, stderr=subprocess.STDOUT,
            cwd=ROOT, env=env or environment())

        def stop():
            if process.poll() is None:
                process.kill()
            process.wait()
        self.cleanups.addCleanup(stop)
        return process

    def startHub(self):
        made = subprocess.run(
            [sys.executable, "-m", "hub.accounts", "--db", self.url, "add",
             ACCOUNT], input=b"a-password-for-the-picture\n",
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT,
            env=environment())
        if made.returncode != 0:
            raise SystemExit("readmepictures: " + made.stderr.decode())
        self.key = made.stdout.decode().split("key: ")[-1].strip()
        self.server = GamehubServer(
            self.cleanups, "--db", self.url, "--announce", "no",
            games=("gomoku", "checkers", "splendor", "web"))
        self.base = "http://127.0.0.1:%d" % (self.server.port("web"),)

    def address(self, kind):
        return "%s://127.0.0.1:%d" % (kind, self.server.port(kind))

    def startPlayers(self):
        """
        The clients (first: the server's log says when each is seated),
        the bots of each kind, and the account in its room.
        """
        self.clients = []
        self.shot = os.path.join(self.folder, "client.png")
        for i, name in enumerate(CLIENTS):
            argv = ["-m", "client_pyglet", self.address("checkers"),
                    "--name", name, "--room", "demo", "--players",
                    str(len(CLIENTS)), "--bot", "2", "--exit-after-game"]
            if i == 0:
                argv += ["--screenshot", self.shot]
            self.clients.append(self.spawn(argv, log=name + ".log"))
            # Seated in the order of CLIENTS (and of their colours).
            self.server.waitForLog(r"joined checkers room", count=i + 1)
        for kind, argv in BOTS.items():
            self.spawn(["-m", "hub.bots", self.address(kind)] + argv)
        self.spawn(["-m", "hub.bots", self.address("gomoku"), "--name",
                    ACCOUNT, "--key-env", "--room", ROOM, "--delay", "1"],
                   env=environment(GAMEHUB_KEY=self.key))

    def lobby(self):
        """
        The lobby, once every kind's game is a few moves in and the
        account's room is listed.
        """
        from selenium.common.exceptions import TimeoutException
        from selenium.webdriver.support.ui import WebDriverWait
        driver = browser()
        self.cleanups.addCleanup(driver.quit)
        width, height = LOBBY_SIZE
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1,
            "mobile": False})
        driver.get(self.base + "/")

        def ready(driver):
            # Read in one script: the page redraws itself as games go on.
            counts, rooms = driver.execute_script(LOBBY_STATE)
            return ROOM in rooms and all(
                any(int(text.split()[0]) >= MOVES for text in
                    counts.get(kind, [])) for kind in BOTS)
        try:
            WebDriverWait(driver, WAIT, poll_frequency=0.2).until(ready)
        except TimeoutException:
            raise SystemExit("readmepictures: the lobby never showed a game "
                             "of each kind and the account's room")
        self.save(driver.get_screenshot_as_png(), "web-lobby.png")

    def clientGame(self):
        """
        alice's window at the end of the clients' game.
        """
        deadline = time.monotonic() + GAME_TIMEOUT
        for process, name in zip(self.clients, CLIENTS):
            try:
                code = process.wait(max(1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                raise SystemExit("readmepictures: the clients' game did not "
                                 "end in %d s" % (GAME_TIMEOUT,))
            if code != 0:
                raise SystemExit("readmepictures: %s's client exited with "
                                 "%s (its log: %s)" % (name, code, self.log(
                                     name)))
        with open(self.shot, "rb") as f:
            self.save(f.read(), "client-checkers.png")

    def log(self, name):
        with open(os.path.join(self.folder, name + ".log"), "rb") as f:
            return f.read().decode("utf-8", "replace")[-2000:]

    def save(self, png, name):
        path = os.path.join(self.out, name)
        with open(path, "wb") as f:
            f.write(png)
        self.saved.append(path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.path.join(ROOT, "docs"),
                        help="the folder of the pictures (default: docs)")
    options = parser.parse_args(argv)
    if not os.environ.get("DISPLAY"):
        print("readmepictures: the desktop client needs a display: run it "
              "under xvfb-run -a", file=sys.stderr)
        return 1
    started = time.monotonic()
    cleanups = Cleanups()
    try:
        pictures = Pictures(cleanups, options.out)
        pictures.startHub()
        pictures.startPlayers()
        pictures.lobby()
        pictures.clientGame()
    finally:
        cleanups.run()
    reportSaved(pictures.saved, started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
