"""
The play page's screenshots in C{docs/}: every game (gomoku, checkers,
Splendor) mid-game at 1280x800 and at 390x844 (a phone), in English and
in Chinese, C{docs/play-KIND-WIDTHxHEIGHT-LANG.png}.

    python -m tests.web.screenshots [--out docs] [--splendor-seed 50]

It starts the real C{twistd -n gamehub} on free loopback ports
(L{tests.endtoend.GamehubServer}) and drives headless Chromium (as the
browser tests do, L{tests.web.test_browser.browser}): for each language
and game a new player (L{NAMES}) sits against bots of level 1 (Splendor's
table bot plays at the hub's C{--bot-level}, 2) and plays a few moves by
clicking the hint and the hinted point, as the browser tests do; each
picture is taken on the player's turn (checkers with a piece chosen).
The Splendor deal is seeded (C{--splendor-seed}) and the player takes
tokens, reserves a card and takes tokens again, so that tokens and a
card are in hand, then chooses a card.  The hub's bots and hints are
deterministic, so the pictures are the same from run to run.  It takes
about 40 seconds, and exits 1 (after saving the pictures) when a page
scrolls sideways or shows English words in Chinese (L{CHECK}).
"""

import argparse
import os
import sys
import time

from tests.endtoend import GamehubServer
from tests.web.test_browser import WAIT, browser

KINDS = ("gomoku", "checkers", "splendor")
SIZES = ((1280, 800), (390, 844))
LANGUAGES = ("en", "zh")
#: The player's name in each language and game (a new player each time:
#: the last one keeps its seat until its game ends).
NAMES = {"en": {"gomoku": "alice", "checkers": "bob", "splendor": "carol"},
         "zh": {"gomoku": "lihua", "checkers": "wangfang",
                "splendor": "zhangwei"}}
#: The level of the page's bots (gomoku, checkers).
LEVEL = "2"
#: The default Splendor deal: the pictures' in docs/ (the browser test's
#: once; L{tests.web.test_play_browser.SPLENDOR_SEED} is found again when
#: the bot changes, the pictures need no noble).
SPLENDOR_SEED = "50"
#: The player's moves before the picture.
MOVES = {"gomoku": 6, "checkers": 5}


#: What a picture must not show, looked for in the page: a page wider than
#: the screen (scrolling sideways), and on a Chinese page, English words
#: (a text missing from the catalogs) other than the players' names and
#: the decks' Roman numerals.
CHECK = """
const language = arguments[0];
const problems = [];
const root = document.documentElement;
if (root.scrollWidth > root.clientWidth) {
  problems.push(`scrolls sideways: ${root.scrollWidth} px in ` +
                `${root.clientWidth}`);
}
if (language !== "en") {
  const names = new Set(["gamehub", "English"]);
  for (const node of document.querySelectorAll("bdi, svg .name")) {
    for (const word of node.textContent.split(/\\s+/)) names.add(word);
  }
  const texts = [document.body.innerText].concat(Array.from(
    document.querySelectorAll("svg text"), node => node.textContent));
  const words = new Set();
  for (const text of texts) {
    for (const word of text.match(/[A-Za-z_][A-Za-z0-9_]+/g) || []) {
      if (!names.has(word) && !/^[IVX]+$/.test(word)) words.add(word);
    }
  }
  if (words.size) {
    problems.push("English on the page: " + Array.from(words).join(" "));
  }
}
return problems;
"""


class Cleanups:
    """
    What L{GamehubServer} wants of a test: cleanups, run by L{run}.
    """

    def __init__(self):
        self.cleanups = []

    def addCleanup(self, function, *args, **kwargs):
        self.cleanups.append((function, args, kwargs))

    def run(self):
        while self.cleanups:
            function, args, kwargs = self.cleanups.pop()
            function(*args, **kwargs)


def reportSaved(saved, started):
    """
    Print the pictures C{saved}, and on standard error how many in how
    long since C{started} (a L{time.monotonic}).
    """
    for path in saved:
        print(path)
    print("%d pictures in %.0f s" % (len(saved), time.monotonic() - started),
          file=sys.stderr)


class Photographer:
    """
    One Chromium playing on C{/play} of a hub at C{base}, saving pictures
    in C{out}.
    """

    def __init__(self, driver, base, out):
        self.driver = driver
        self.base = base
        self.out = out
        self.saved = []
        #: What looks wrong in the pictures (L{CHECK}).
        self.problems = []

    def wait(self, condition, message):
        from selenium.webdriver.support.ui import WebDriverWait
        return WebDriverWait(self.driver, WAIT, poll_frequency=0.05).until(
            lambda driver: condition(), message)

    def find(self, selector):
        from selenium.webdriver.common.by import By
        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def click(self, selector):
        """
        Click the first enabled element of C{selector} once there (the
        page redraws as messages come).
        """
        from selenium.common.exceptions import WebDriverException

        def clicked():
            for node in self.find(selector):
                try:
                    if node.is_enabled():
                        node.click()
                        return True
                except WebDriverException:
                    return False
            return False
        self.wait(clicked, "no " + selector + " to click")

    def type(self, selector, text):
        """
        Type C{text} into the field of C{selector} (drawn again if the
        page redraws meanwhile).
        """
        from selenium.common.exceptions import WebDriverException

        def typed():
            for node in self.find(selector):
                try:
                    node.clear()
                    node.send_keys(text)
                    return node.get_attribute("value") == text
                except WebDriverException:
                    return False
            return False
        self.wait(typed, "no " + selector + " to type in")

    def data(self, selector, name):
        from selenium.common.exceptions import WebDriverException
        found = self.find(selector)
        try:
            return found[0].get_attribute("data-" + name) if found else None
        except WebDriverException:
            return None

    def turn(self):
        return self.data("#status", "turn")

    def moves(self):
        moves = self.data("#board svg", "moves")
        return int(moves) if moves else -1

    def viewport(self, width, height):
        """
        Show the page as a screen of C{width} by C{height} CSS pixels (a
        phone's, touch and all, when narrow).
        """
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": 1,
            "mobile": width < 700})
        self.driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {
            "enabled": width < 700})

    def open(self, language, kind):
        """
        Open C{/play} in C{language} (the page's switch is a C{?lang=}
        link) as a new player, its name L{NAMES}C{[language][kind]}.
        """
        self.viewport(*SIZES[0])
        # Not the seat of the last game (kept in the tab's sessionStorage).
        self.driver.get(self.base + "/")
        self.driver.execute_script("sessionStorage.clear()")
        self.driver.get("%s/play?lang=%s" % (self.base, language))
        self.type("#name", NAMES[language][kind])
        self.click("#hello")
        self.wait(lambda: self.find("#new-gomoku"), "no new game buttons")

    def start(self, kind):
        from selenium.webdriver.support.ui import Select
        self.click("#pick-" + kind)
        self.wait(lambda: self.find(
            '#pick-%s[aria-pressed="true"]' % (kind,)), "not picked")
        Select(self.find("#level")[0]).select_by_value(LEVEL)
        if kind == "checkers":
            Select(self.find("#players")[0]).select_by_value("3")
        self.click("#new-" + kind)
        self.wait(lambda: self.find("#board svg." + kind), "no board")

    def ourTurn(self):
        self.wait(lambda: self.turn() == "yours", "never our turn")
        return self.moves()

    def played(self, before):
        self.wait(lambda: self.moves() > before, "the click played nothing")

    def playByHints(self, kind):
        for _ in range(MOVES[kind]):
            before = self.ourTurn()
            self.click("#hint")
            if kind == "checkers":
                self.click("#board .movable.hinted")
                self.click("#board .target.hinted")
            else:
                self.click("#board .spot.hinted")
            self.played(before)
        self.ourTurn()
        if kind == "checkers":
            # A piece chosen: its destinations are shown.
            self.click("#hint")
            self.click("#board .movable.hinted")
            self.wait(lambda: self.find("#board .target"), "no targets")

    def pickGems(self):
        """
        Click new gems until a take is offered, then take.
        """
        from selenium.common.exceptions import WebDriverException

        def picked():
            try:
                if [n for n in self.find("#take") if n.is_enabled()]:
                    return True
                fresh = [n for n in self.find("#take-picker .gem-button")
                         if n.is_enabled()
                         and n.get_attribute("aria-pressed") == "false"]
                if fresh:
                    fresh[0].click()
            except WebDriverException:
                pass
            return False
        self.wait(picked, "no take offered")
        self.click("#take")

    def playSplendor(self):
        # Tokens twice, a card reserved, then tokens again; the picture
        # shows a card chosen, with what can be done with it.
        for step in ("take", "take", "reserve", "take"):
            before = self.ourTurn()
            if step == "take":
                self.pickGems()
            else:
                self.click('#board .card-pick[data-level="2"]')
                self.click("#reserve")
            self.played(before)
        self.ourTurn()
        self.wait(lambda: self.find("#hand .hand-card"), "no card in hand")
        self.click("#board .card-pick")
        self.wait(lambda: self.find("#chosen button"), "no card chosen")

    def shoot(self, kind, language):
        for width, height in SIZES:
            self.viewport(width, height)
            self.driver.execute_script("window.scrollTo(0, 0)")
            # Laid out again at the new size before the picture.
            self.driver.execute_async_script(
                "requestAnimationFrame(() => requestAnimationFrame("
                "arguments[0]))")
            name = "play-%s-%dx%d-%s.png" % (kind, width, height, language)
            path = os.path.join(self.out, name)
            self.driver.save_screenshot(path)
            self.saved.append(path)
            self.problems.extend(
                "%s: %s" % (name, problem) for problem in
                self.driver.execute_script(CHECK, language))

    def game(self, kind, language):
        """
        Start a game of C{kind} against bots, play, take its pictures and
        resign.
        """
        self.start(kind)
        if kind == "splendor":
            self.playSplendor()
        else:
            self.playByHints(kind)
        self.shoot(kind, language)
        self.viewport(*SIZES[0])
        self.click("#resign")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default="docs",
                        help="the folder of the pictures (default: docs)")
    parser.add_argument("--splendor-seed", default=SPLENDOR_SEED,
                        help="the seed of the Splendor deal")
    parser.add_argument("--kinds", nargs="*", default=KINDS,
                        choices=KINDS, help="only these games")
    parser.add_argument("--languages", nargs="*", default=LANGUAGES,
                        choices=LANGUAGES, help="only these languages")
    options = parser.parse_args(argv)
    started = time.monotonic()
    cleanups = Cleanups()
    try:
        server = GamehubServer(
            cleanups, "--bot-delay", "0.05", "--splendor-seed",
            options.splendor_seed,
            games=("gomoku", "checkers", "splendor", "web"))
        driver = browser()
        cleanups.addCleanup(driver.quit)
        photographer = Photographer(
            driver, "http://127.0.0.1:%d" % (server.port("web"),),
            options.out)
        for language in options.languages:
            for kind in options.kinds:
                photographer.open(language, kind)
                photographer.game(kind, language)
    finally:
        cleanups.run()
    reportSaved(photographer.saved, started)
    for problem in photographer.problems:
        print("problem: " + problem, file=sys.stderr)
    return 1 if photographer.problems else 0


if __name__ == "__main__":
    sys.exit(main())
