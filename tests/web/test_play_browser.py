"""
Playing in a real browser: headless Chromium (as L{tests.web.test_browser}
drives it) plays whole gomoku and checkers games against server bots on
C{/play} by clicking, reloads the page mid-game and keeps its seat, and
joins a gomoku-battle client's room.
"""

import os

from twisted.trial.unittest import SynchronousTestCase

from tests.endtoend import GamehubServer
from tests.web.test_browser import WAIT, bots, browser

MOVES = 120


class PlayPageTests(SynchronousTestCase):
    """
    C{/play} in Chromium.
    """

    def setUp(self):
        self.driver = browser()
        self.addCleanup(self.driver.quit)
        self.server = GamehubServer(self, "--bot-delay", "0.05",
                                    games=("gomoku", "checkers", "web"))
        self.base = "http://127.0.0.1:%d" % (self.server.port("web"),)

    def wait(self, condition, message):
        from selenium.webdriver.support.ui import WebDriverWait
        return WebDriverWait(self.driver, WAIT, poll_frequency=0.05).until(
            lambda driver: condition(), message)

    def find(self, selector):
        from selenium.webdriver.common.by import By
        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def click(self, selector):
        """
        Click the element of C{selector} once it is there (the page
        redraws as messages come: a stale element is looked up again).
        """
        from selenium.common.exceptions import (
            ElementClickInterceptedException, StaleElementReferenceException)

        def clicked():
            found = self.find(selector)
            if not found:
                return False
            try:
                found[0].click()
            except (StaleElementReferenceException,
                    ElementClickInterceptedException):
                return False
            return True
        self.wait(clicked, "no " + selector + " to click")

    def statusData(self, name):
        found = self.find("#status")
        try:
            return found[0].get_attribute("data-" + name) if found else None
        except Exception:
            return None

    def moves(self):
        found = self.find("#board svg")
        try:
            return int(found[0].get_attribute("data-moves")) if found else -1
        except Exception:
            return -1

    def screenshot(self, name):
        """
        Save the page as C{name} in C{GAMEHUB_SCREENSHOTS}, if set.
        """
        folder = os.environ.get("GAMEHUB_SCREENSHOTS")
        if folder:
            self.driver.save_screenshot(os.path.join(folder, name))

    def playByHints(self, moves=MOVES, reload=False, pieces=False,
                    shot=None):
        """
        Play each of our turns by clicking the hint button, then the
        hinted point, until the game is over; with C{reload}, reload the
        page once in the middle and check the seat is kept.

        @return: whether the page was reloaded.
        """
        reloaded = False
        for _ in range(moves):
            self.wait(lambda: self.statusData("turn") in ("yours", "over"),
                      "never our turn")
            if self.statusData("turn") == "over":
                break
            before = self.moves()
            if reload and before >= 6 and not reloaded:
                reloaded = True
                self.driver.refresh()
                self.wait(lambda: self.moves() == before,
                          "the reloaded page lost the game")
                self.wait(lambda: self.statusData("turn") == "yours",
                          "the reloaded page lost the turn")
            self.click("#hint")
            if shot is not None and before >= 8:
                self.wait(lambda: self.find("#board .hinted"), "no hint")
                self.screenshot(shot)
                shot = None
            if pieces:
                # Checkers: the piece, then its destination.
                self.click("#board .movable.hinted")
                self.click("#board .target.hinted")
            else:
                self.click("#board .spot.hinted")
            self.wait(lambda: self.moves() > before
                      or self.statusData("turn") == "over",
                      "the click played nothing")
        self.wait(lambda: self.statusData("turn") == "over",
                  "the game never ended")
        return reloaded

    def test_joinTCPRoom(self):
        """
        A gomoku-battle client's room (the TCP bot client's) is listed in
        the page; the browser player clicks Join and Ready, the bot
        starts, and they play to the end.
        """
        process = bots("gomoku", self.server.port("gomoku"), "--count",
                       "1", "--room", "tcproom", "--level", "1")

        def stop():
            if process.poll() is None:
                process.kill()
            process.wait()
        self.addCleanup(stop)
        self.driver.get(self.base + "/play")
        self.wait(lambda: self.find("#name"), "no name field")
        self.find("#name")[0].send_keys("joiner")
        self.click("#hello")
        self.wait(lambda: any("tcproom" in li.text for li in
                              self.find("#open-rooms li")),
                  "the TCP room is not listed")
        self.click("#open-rooms button.join")
        self.click("#ready")
        self.playByHints()
        text = self.find("#status")[0].text
        self.assertIn(text, ("You won!", "You lost.", "Draw."))
        self.assertEqual(process.wait(WAIT), 0)

    def test_wholeCheckersGameByClicking(self):
        """
        A two-player checkers game against a level-1 bot, played by
        clicking the hint, the hinted piece and the hinted destination,
        to its end.
        """
        self.driver.get(self.base + "/play")
        self.wait(lambda: self.find("#name"), "no name field")
        self.find("#name")[0].send_keys("jumper")
        self.click("#hello")
        self.click("#new-checkers")
        self.click("#ready")
        self.wait(lambda: self.find("#board svg.checkers"), "no board")
        self.playByHints(moves=400, pieces=True,
                         shot="web-play-checkers.png")
        text = self.find("#status")[0].text
        self.assertIn(text, ("You won!", "You lost."))
        self.assertGreater(self.moves(), 10)

    def test_wholeGameByClicking(self):
        """
        Enter a name, start a game against a level-1 bot, and play each
        turn by clicking the hint button and then the hinted point; a
        reload in the middle resumes the seat; the game ends with the
        result shown and, when someone won, the five highlighted.
        """
        self.driver.get(self.base + "/")
        self.click("nav a.play")
        self.wait(lambda: self.find("#name"), "no name field")
        self.find("#name")[0].send_keys("clicker")
        self.click("#hello")
        self.click("#new-gomoku")
        self.click("#start")
        reloaded = self.playByHints(reload=True, shot="web-play-gomoku.png")
        self.assertTrue(reloaded)
        text = self.find("#status")[0].text
        self.assertIn(text, ("You won!", "You lost.", "Draw."))
        if text != "Draw.":
            self.assertGreaterEqual(len(self.find("#board .win")), 5)
        self.assertEqual(self.find("#seats li")[0].text.split()[0],
                         "clicker")
