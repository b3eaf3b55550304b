"""
The web face in a real browser: Debian's C{chromium} through
C{chromium-driver} and C{selenium}, headless, against the real C{twistd
-n gamehub} with bots playing a game of each kind.

Set C{GAMEHUB_SCREENSHOTS} to a folder to save the game pages' screenshots
there (C{docs/web-KIND.png}, which C{docs/web.md} shows; the README's
lobby is taken by L{tests.readmepictures}).
"""

import json
import os
import re
import subprocess
import sys

from twisted.trial.unittest import SkipTest, SynchronousTestCase

from tests.endtoend import GamehubServer

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu",
                  "--no-first-run", "--disable-background-networking")
WAIT = 90
BOT_DELAY = "0.15"
SEATS = {"gomoku": 2, "checkers": 2, "splendor": 2}
#: The status line of a game page while it runs, and at its end: the
#: seat's name (group C{name}) and its colour or region, or a draw.
TO_MOVE = r"^To move: (?P<name>.+?)( \(\w+( [A-F])?\))?$"
GAME_OVER = (r"^Game over: ((?P<name>.+?)( \(\w+( [A-F])?\))? won \(\w+\)"
             r"|a draw)$")


def missing(why):
    """
    Skip for lack of C{why}, except on CI (C{CI=true}), which must have
    everything: fail there.
    """
    if os.environ.get("CI") == "true":
        raise AssertionError("CI must provide " + why)
    raise SkipTest(why + " is needed")


def browser(acceptLanguage=None, mobileEmulation=None):
    """
    A headless Chromium driven by selenium, whose element made stale by
    a redraw is always a C{StaleElementReferenceException} (see
    L{staleNodeErrors}).

    @param acceptLanguage: its C{Accept-Language} (Chromium's own by
        default).
    @param mobileEmulation: Chromium's C{mobileEmulation} option, if any.
    """
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing("selenium (the test extras)")
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        missing("Debian's chromium and chromium-driver")
    options = webdriver.ChromeOptions()
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    if mobileEmulation is None:
        options.add_argument("--window-size=1400,1000")
    else:
        options.add_experimental_option("mobileEmulation", mobileEmulation)
    if acceptLanguage is not None:
        options.add_argument("--accept-lang=" + acceptLanguage)
        options.add_experimental_option(
            "prefs", {"intl.accept_languages": acceptLanguage})
    options.binary_location = CHROMIUM

    class Chromium(webdriver.Chrome):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.error_handler = staleNodeErrors()

    return Chromium(service=Service(CHROMEDRIVER), options=options)


#: What chromedriver says, as an "unknown error", when an element it was
#: asked about left the document between its lookup and the question
#: (the page replaced by the next one): a stale element by another name.
STALE_NODE = "does not belong to the document"


def staleNodeErrors():
    """
    A selenium error handler that raises chromedriver's L{STALE_NODE}
    error as the C{StaleElementReferenceException} it is, so that the
    tests' waits, which ask a stale element again, ask this one again
    too.
    """
    from selenium.common.exceptions import (
        StaleElementReferenceException, WebDriverException)
    from selenium.webdriver.remote.errorhandler import ErrorHandler

    class StaleNodeErrors(ErrorHandler):
        def check_response(self, response):
            try:
                super().check_response(response)
            except StaleElementReferenceException:
                raise
            except WebDriverException as error:
                if STALE_NODE not in (error.msg or ""):
                    raise
                raise StaleElementReferenceException(
                    error.msg, error.screen, error.stacktrace) from error

    return StaleNodeErrors()


def bots(kind, port, *args):
    """
    Start C{python -m hub.bots} against the server.
    """
    command = [sys.executable, "-m", "hub.bots",
               "%s://127.0.0.1:%d" % (kind, port), "--delay", BOT_DELAY,
               "--count", str(SEATS[kind]), "--seed", "7"] + list(args)
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.Popen(command, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, cwd=ROOT, env=env)


class StaleNodeErrorsTests(SynchronousTestCase):
    """
    L{staleNodeErrors} on chromedriver's answers, as CI got them.
    """

    def setUp(self):
        try:
            from selenium.common import exceptions
        except ImportError:
            missing("selenium (the test extras)")
        self.exceptions = exceptions
        self.handler = staleNodeErrors()

    def answer(self, error, message):
        return {"status": 500, "value": json.dumps({"value": {
            "error": error, "message": message, "stacktrace": ""}})}

    def test_nodeLeftTheDocument(self):
        """
        The inspector's "Node with given id does not belong to the
        document", which chromedriver sends as an unknown error, is a
        stale element.
        """
        message = ('unknown error: unhandled inspector error: {"code":'
                   '-32000,"message":"Node with given id does not belong '
                   'to the document"}')
        error = self.assertRaises(
            self.exceptions.StaleElementReferenceException,
            self.handler.check_response,
            self.answer("unknown error", message))
        self.assertIn(STALE_NODE, error.msg)

    def test_otherErrorsUnchanged(self):
        """
        Any other unknown error, and a stale element, are raised as
        selenium raises them; a success raises nothing.
        """
        error = self.assertRaises(
            self.exceptions.WebDriverException, self.handler.check_response,
            self.answer("unknown error", "unknown error: chrome crashed"))
        self.assertIs(type(error), self.exceptions.WebDriverException)
        self.assertRaises(
            self.exceptions.StaleElementReferenceException,
            self.handler.check_response,
            self.answer("stale element reference", "stale element"))
        self.handler.check_response({"status": 0, "value": None})


class PageActions:
    """
    What a browser test does on a page through C{self.driver}: find
    elements and click them, with the test's own bounded C{wait}.
    """

    #: How often C{wait} asks its condition again, in seconds.
    pollInterval = 0.1

    def wait(self, condition, message):
        """
        C{condition}'s first true result within C{WAIT} seconds; an
        element made stale by a redraw while C{condition} reads it is
        asked for again at the next poll.
        """
        from selenium.common.exceptions import StaleElementReferenceException
        from selenium.webdriver.support.ui import WebDriverWait
        return WebDriverWait(
            self.driver, WAIT, poll_frequency=self.pollInterval,
            ignored_exceptions=(StaleElementReferenceException,)).until(
            lambda driver: condition(), message)

    def find(self, selector):
        from selenium.webdriver.common.by import By
        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def click(self, selector):
        """
        Click the first element of C{selector} once it is there (the page
        redraws as messages come: a stale or covered element is looked
        up again).
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


class BrowserTests(PageActions, SynchronousTestCase):
    """
    A spectator's browser follows a bots' game of each kind from the
    lobby to the replay.
    """

    def setUp(self):
        self.driver = browser()
        self.addCleanup(self.driver.quit)

    def startServer(self, *kinds, extra=()):
        # The bots play as guests (no accounts): listed with
        # --leaderboard-guests yes.
        self.server = GamehubServer(self, "--leaderboard-min-games", "1",
                                    "--leaderboard-guests", "yes",
                                    *extra, games=tuple(kinds) + ("web",))
        self.base = "http://127.0.0.1:%d" % (self.server.port("web"),)

    def startBots(self, kind, *args):
        process = bots(kind, self.server.port(kind), *args)

        def stop():
            if process.poll() is None:
                process.kill()
            process.wait()
        self.addCleanup(stop)
        return process

    def screenshot(self, name):
        folder = os.environ.get("GAMEHUB_SCREENSHOTS")
        if folder:
            self.driver.save_screenshot(os.path.join(folder, name))

    def boardData(self, name):
        [board] = self.find("#board")
        return board.get_attribute("data-" + name)

    def svgData(self, name):
        boards = self.find("#board svg")
        return boards[0].get_attribute("data-" + name) if boards else None

    def watchFromLobby(self, kind):
        """
        Open the lobby, wait for the kind's game to be listed (the page
        updates by itself), and follow its link.
        """
        self.driver.get(self.base + "/")
        links = "#kind-%s .games a.watch" % (kind,)
        self.wait(lambda: self.find(links), "the lobby lists no game")
        self.assertIn("vs", self.find(links)[0].text)
        href = self.find(links)[0].get_attribute("href")
        self.driver.get(href)
        return href

    def statusAndSeats(self):
        """
        The status line's text and the seat list's names, read at once
        (the page redraws both as turns pass).
        """
        return self.driver.execute_script(
            "const status = document.getElementById('status');"
            "return [status ? status.innerText : '', Array.from("
            "document.querySelectorAll('#seats li.seat bdi'),"
            " node => node.innerText)];")

    def checkStatus(self, pattern):
        """
        The status line, once it matches C{pattern} (whose group C{name}
        is a seat's name), names that seat as the seat list does: its
        name, never a script's object.
        """
        seen = []

        def matched():
            seen[:] = [self.statusAndSeats()]
            return re.match(pattern, seen[0][0])
        self.wait(matched, "the status never matched %r" % (pattern,))
        status, seats = seen[0]
        self.assertNotIn("[object", status)
        name = re.match(pattern, status).group("name")
        if name is not None:
            self.assertIn(name, seats, status)

    def followGame(self, kind, count):
        """
        The board shows and changes as moves arrive, the status naming
        the player to move; the result shows at the end, naming the
        winner.
        """
        self.wait(lambda: self.find("#board svg"), "no board")
        first = int(self.boardData("ply"))
        self.wait(lambda: int(self.boardData("ply")) > first + 2,
                  "the board did not change")
        self.assertTrue(self.find("#moves li"))
        self.assertIn("watching", self.find("#spectators")[0].text)
        self.checkStatus(TO_MOVE)
        self.screenshot("web-%s.png" % (kind,))
        self.wait(lambda: self.find("#status.over"), "no result shown")
        self.checkStatus(GAME_OVER)

    def checkFive(self):
        """
        A gomoku game won by five in a row: the five (or more) stones of
        the winner's last move are marked, in one line.
        """
        self.wait(lambda: len(self.find("#board svg .win")) >= 5,
                  "the winning five is not marked")
        cells = [tuple(map(int, e.get_attribute("data-cell").split(",")))
                 for e in self.find("#board svg .win")]
        stones = {e.get_attribute("data-cell")
                  for e in self.find("#board svg .stone")}
        self.assertTrue(all("%d,%d" % cell in stones for cell in cells))
        (x0, y0), (x1, y1) = cells[0], cells[1]
        step = (x1 - x0, y1 - y0)
        self.assertTrue(all(
            (x - x0) * step[1] == (y - y0) * step[0] for x, y in cells),
            cells)

    def checkReplay(self, kind, count):
        """
        The replay steps back to the first position and forward again, and
        each step draws the position after that many moves.
        """
        self.wait(lambda: self.find("#controls #slider"), "no replay")
        last = int(self.find("#slider")[0].get_attribute("max"))
        self.assertGreater(last, 2)
        self.find("#first")[0].click()
        self.wait(lambda: self.boardData("step") == "0", "no first step")
        self.assertEqual(self.svgData(count), self.initial(kind))
        self.find("#forward")[0].click()
        self.wait(lambda: self.boardData("step") == "1", "no step forward")
        self.find("#forward")[0].click()
        self.wait(lambda: self.boardData("step") == "2", "no step forward")
        if kind == "gomoku":
            self.assertEqual(self.svgData(count), "2")
        self.find("#back")[0].click()
        self.wait(lambda: self.boardData("step") == "1", "no step back")
        if kind == "gomoku":
            self.assertEqual(self.svgData(count), "1")
        self.find("#last")[0].click()
        self.wait(lambda: self.boardData("step") == str(last),
                  "no last step")
        self.assertIn("move %d / %d" % (last, last),
                      self.find("#step")[0].text)
        self.checkStatus(GAME_OVER)
        if kind == "gomoku":
            self.checkFive()
            self.find("#back")[0].click()
            self.wait(lambda: self.boardData("step") == str(last - 1),
                      "no step back")
            self.assertEqual(self.find("#board svg .win"), [])

    def checkOnPhone(self, kind):
        """
        The replay on a phone's screen: the status names the winner, and
        a gomoku game's five is marked.
        """
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": 390, "height": 844, "deviceScaleFactor": 1,
            "mobile": True})
        self.addCleanup(self.driver.execute_cdp_cmd,
                        "Emulation.clearDeviceMetricsOverride", {})
        self.driver.refresh()
        self.wait(lambda: self.find("#controls #slider"), "no replay")
        self.assertEqual(
            self.driver.execute_script("return window.innerWidth"), 390)
        self.checkStatus(GAME_OVER)
        if kind == "gomoku":
            self.checkFive()

    @staticmethod
    def initial(kind):
        return {"gomoku": "0", "checkers": "20", "splendor": "0"}[kind]

    def checkLeaderboard(self, kind):
        """
        The leaderboard lists both bots; a bot's page lists the game.
        """
        self.driver.get(self.base + "/leaderboard/" + kind)
        self.wait(lambda: len(self.find("#leaderboard tbody tr")) == 2,
                  "the leaderboard does not list the bots")
        names = [e.text for e in self.find("#leaderboard tbody a")]
        self.assertTrue(all(n.startswith("web%s" % kind) for n in names),
                        names)
        self.find("#leaderboard tbody a")[0].click()
        self.wait(lambda: self.find("table.recent tbody tr"),
                  "the player page lists no game")
        self.find("table.recent tbody a")[0].click()
        self.wait(lambda: self.find("#controls #slider"),
                  "the stored game has no replay")

    #: A Splendor move in the move list: the seat, then the move in words.
    SPLENDOR_MOVE = re.compile(
        r".+: (took|bought a level-[123] \w+ card|reserved a level-[123] "
        r"\w+ card|reserved a card from the level-[123] deck|gave back"
        r"|was visited by a noble \(3 points\))")

    def checkSplendorWords(self):
        """
        The replay's move list says each Splendor move in words (a bought
        card by its level and colour), never by a card's number.
        """
        texts = self.driver.execute_script(
            "return Array.from(document.querySelectorAll('#moves li'),"
            " node => node.innerText)")
        self.assertGreater(len(texts), 2)
        for text in texts:
            self.assertRegex(text, self.SPLENDOR_MOVE)
            self.assertNotIn("#", text)
        self.assertTrue(any(": bought a level-" in t for t in texts), texts)

    def checkRegionSeats(self):
        """
        A checkers seat says its colour on the board beside its region's
        letter: the two players are red A and green D.
        """
        texts = self.driver.execute_script(
            "return Array.from(document.querySelectorAll('#seats li.seat'),"
            " node => node.innerText)")
        self.assertEqual(len(texts), 2, texts)
        self.assertIn("(red A)", texts[0])
        self.assertIn("(green D)", texts[1])

    def playAndWatch(self, kind, count):
        self.startServer(kind)
        self.startBots(kind, "--name", "web" + kind)
        self.watchFromLobby(kind)
        self.followGame(kind, count)
        if kind == "gomoku":
            self.checkFive()
        self.checkReplay(kind, count)
        if kind == "splendor":
            self.checkSplendorWords()
        if kind == "checkers":
            self.checkRegionSeats()
        self.checkOnPhone(kind)
        if kind != "splendor":
            self.server.waitForLog(r"recorded %s game" % (kind,))
            self.checkLeaderboard(kind)

    def test_gomoku(self):
        """
        A gomoku game: stones appear, the result shows, the winning five
        is marked (at the end only), the replay steps; on a phone's
        screen too.
        """
        self.playAndWatch("gomoku", "stones")

    def test_checkers(self):
        """
        A checkers game of two bots, followed, replayed (its seats by
        colour), on a phone too.
        """
        self.playAndWatch("checkers", "pieces")

    def test_splendor(self):
        """
        A Splendor game of two bots, followed, replayed (its moves in
        words), on a phone too (Splendor games are not rated: its
        protocol carries no names).
        """
        self.playAndWatch("splendor", "cards")

    def test_lobby(self):
        """
        The lobby lists the games of every kind and a waiting room, and
        updates itself as they come.
        """
        self.startServer("gomoku", "checkers", "splendor")
        self.driver.get(self.base + "/")
        for kind in ("gomoku", "checkers", "splendor"):
            self.startBots(kind, "--games", "3")
        waiting = bots("gomoku", self.server.port("gomoku"), "--count", "1",
                       "--room", "<b>waiting</b>\x1b\u202e",
                       "--name", "early")
        self.addCleanup(lambda: (waiting.kill(), waiting.wait()))
        for kind in ("gomoku", "checkers", "splendor"):
            selector = "#kind-%s .games a.watch" % (kind,)
            self.wait(lambda: self.find(selector), "%s not listed" % kind)
        # As text, isolated, its ESC and right-to-left override replaced.
        self.wait(lambda: any(
            "<b>waiting</b>\ufffd\ufffd" == e.text
            for e in self.find(".room-name > bdi")),
            "the waiting room is not listed as text")
