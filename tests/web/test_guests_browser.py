"""
Guests marked by the pages' scripts, in a real browser (headless
Chromium) against the real C{twistd -n gamehub --names accounts}: the
account C{ann} (the bot client with C{--key}) plays gomoku against a
guest; the lobby, redrawn by C{lobby.js}, and the game's seat list,
drawn by C{game.js}, mark the guest and not C{ann}.
"""

import os
import shutil
import tempfile

from twisted.trial.unittest import SynchronousTestCase

from tests.accounts.test_endtoend import PASSWORD, accountsCommand
from tests.bots.test_endtoend import botClient
from tests.web import test_browser


class GuestsInTheBrowserTests(test_browser.PageActions, SynchronousTestCase):
    """
    A game between an account and a guest, watched.
    """

    # The browser and the server as the spectator's browser tests have
    # them (not their tests).
    setUp = test_browser.BrowserTests.setUp
    startServer = test_browser.BrowserTests.startServer

    def test_guestMarked(self):
        """
        The lobby's running game and the game page's seats mark the guest
        with a C{guest} tag, never the account.
        """
        folder = tempfile.mkdtemp(prefix="gamehub-guests-browser-")
        self.addCleanup(shutil.rmtree, folder, True)
        url = "sqlite:" + os.path.join(folder, "hub.sqlite")
        out = accountsCommand(url, "add", "ann", stdin=PASSWORD + "\n")
        key = out.strip().splitlines()[-1][len("key: "):]
        self.startServer("gomoku", extra=("--db", url, "--names",
                                          "accounts"))
        port = self.server.port("gomoku")
        for process in (
                botClient("gomoku", port, "--count", "1", "--name", "ann",
                          "--key", key, "--room", "G", "--delay", "0.4"),
                botClient("gomoku", port, "--count", "1", "--name", "gst",
                          "--room", "G", "--delay", "0.4")):
            self.addCleanup(lambda p=process: p.poll() is None and p.kill())
        self.driver.get(self.base + "/")
        # Read in one go: lobby.js redraws the lists every second.
        read = self.driver.execute_script
        listed = []

        def gameListed():
            found = read("""
                if (!document.querySelector("#lobby[data-updated]")) {
                  return null;
                }
                const a = document.querySelector(
                  "#kind-gomoku .games a.watch");
                return a && {text: a.textContent, href: a.href,
                  guests: [...a.querySelectorAll(".tag.guest")].map(
                    t => t.textContent),
                  marked: [...a.querySelectorAll("bdi")].filter(
                    b => b.nextSibling && b.nextSibling.nextSibling &&
                      b.nextSibling.nextSibling.classList &&
                      b.nextSibling.nextSibling.classList.contains("guest")
                  ).map(b => b.textContent)};""")
            listed[:] = [found] if found else []
            return found
        # lobby.js has drawn the hub now (its mark), with the game.
        self.wait(gameListed, "the lobby lists no game")
        [game] = listed
        self.assertEqual(game["guests"], ["guest"])
        self.assertIn("ann", game["text"])
        [guest] = game["marked"]
        self.assertTrue(guest.startswith("gst"), guest)
        self.driver.get(game["href"])
        seats = {}

        def seatsDrawn():
            found = read("""
                return [...document.querySelectorAll("#seats li")].map(
                  li => [li.querySelector("bdi").textContent,
                         [...li.querySelectorAll(".tag.guest")].map(
                           t => t.textContent)]);""")
            seats.clear()
            seats.update(dict(found or []))
            return len(seats) == 2
        self.wait(seatsDrawn, "no seats drawn")
        self.assertEqual(seats, {"ann": [], guest: ["guest"]})
