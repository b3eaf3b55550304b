"""
C{/play} on a phone, in headless Chromium emulating a 360 x 740 screen:
nothing is wider than the screen, every control is a touch target of at
least 40 px, and each game can be started and played by the keyboard
alone (Tab to a control or a board point, Enter on it); and the lobby as
the start of play: pick a game, make a room, fill it with bots of a
chosen level, quick play into another client's room.
"""

from twisted.trial.unittest import SynchronousTestCase

from tests.endtoend import GamehubServer
from tests.web.test_browser import WAIT, browser

WIDTH, HEIGHT = 360, 740
#: The smallest touch target, in CSS pixels.
TARGET = 40
#: Tab presses allowed to reach one control.
MAX_TABS = 600

#: The layout as the page has it now: how wide the document is, the
#: screen's width, and the controls smaller than a finger (shown ones).
MEASURE = """
const small = [];
const selector = "#play button, #play select, #play input, #play a, nav a";
for (const node of document.querySelectorAll(selector)) {
  const box = node.getBoundingClientRect();
  if (box.width === 0 && box.height === 0) continue;
  if (box.width < arguments[0] || box.height < arguments[0]) {
    small.push([node.id || node.className || node.textContent,
                Math.round(box.width), Math.round(box.height)]);
  }
}
const board = document.querySelector("#board svg");
return {scrollWidth: document.documentElement.scrollWidth,
        innerWidth: window.innerWidth, small: small,
        board: board ? board.getBoundingClientRect().right : 0};
"""

#: The board's points: the pitch between neighbours and the size of a
#: point's hit area (both in CSS pixels).
POINTS = """
const spots = Array.from(document.querySelectorAll(arguments[0]));
const boxes = spots.map(spot => spot.getBoundingClientRect());
if (boxes.length < 2) return null;
boxes.sort((a, b) => a.top - b.top || a.left - b.left);
const row = boxes.filter(box => Math.abs(box.top - boxes[0].top) < 1);
const pitch = row.length > 1 ? row[1].left - row[0].left : null;
return {pitch: pitch, size: Math.min(boxes[0].width, boxes[0].height),
        count: boxes.length};
"""


def phone():
    """
    A headless Chromium emulating a 360 x 740 phone screen (touch).
    """
    return browser(mobileEmulation={
        "deviceMetrics": {"width": WIDTH, "height": HEIGHT,
                          "pixelRatio": 2.0, "touch": True}})


class PhoneTests(SynchronousTestCase):
    """
    C{/play} at 360 x 740.
    """

    def setUp(self):
        self.driver = phone()
        self.addCleanup(self.driver.quit)
        self.server = GamehubServer(self, "--bot-delay", "0.05",
                                    games=("gomoku", "checkers", "splendor",
                                           "web"))
        self.base = "http://127.0.0.1:%d" % (self.server.port("web"),)

    # The page.

    def wait(self, condition, message):
        from selenium.webdriver.support.ui import WebDriverWait
        return WebDriverWait(self.driver, WAIT, poll_frequency=0.05).until(
            lambda driver: condition(), message)

    def find(self, selector):
        from selenium.webdriver.common.by import By
        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def data(self, selector, name):
        from selenium.common.exceptions import StaleElementReferenceException
        found = self.find(selector)
        try:
            return found[0].get_attribute("data-" + name) if found else None
        except StaleElementReferenceException:
            return None

    def turn(self):
        return self.data("#status", "turn")

    def moves(self):
        value = self.data("#board svg", "moves")
        return int(value) if value is not None else -1

    def focused(self, selector):
        return self.driver.execute_script(
            "const a = document.activeElement;"
            "return !!a && a !== document.body && a.matches(arguments[0]);",
            selector)

    def press(self, key):
        from selenium.webdriver.common.action_chains import ActionChains
        ActionChains(self.driver).send_keys(key).perform()

    def tabTo(self, selector):
        """
        Press Tab until the focus is on an element of C{selector} (the
        page redraws as messages come: the element may come later).
        """
        from selenium.webdriver.common.keys import Keys

        def reached():
            for _ in range(MAX_TABS):
                if self.focused(selector):
                    return True
                self.press(Keys.TAB)
            return self.focused(selector)
        self.wait(reached, "Tab never reached " + selector)

    def enterOn(self, selector):
        """
        Tab to C{selector} and press Enter on it.
        """
        from selenium.webdriver.common.keys import Keys
        self.tabTo(selector)
        self.press(Keys.ENTER)

    def checkLayout(self, where):
        """
        Nothing is wider than the screen, and every shown control is at
        least L{TARGET} px each way.
        """
        layout = self.driver.execute_script(MEASURE, TARGET)
        self.assertEqual(layout["innerWidth"], WIDTH, where)
        self.assertLessEqual(layout["scrollWidth"], layout["innerWidth"],
                             where)
        self.assertLessEqual(layout["board"], layout["innerWidth"], where)
        self.assertEqual(layout["small"], [], where)

    def helloByKeyboard(self, kind, name):
        """
        Open C{/play?kind=KIND}, type the name and press Enter.
        """
        from selenium.webdriver.common.keys import Keys
        self.driver.get(self.base + "/play?kind=" + kind)
        self.tabTo("#name")
        self.press(name)
        self.press(Keys.ENTER)
        self.wait(lambda: self.find("#quick-play"), "no lobby")
        self.checkLayout("the lobby")

    def waitForOurTurn(self):
        self.wait(lambda: self.turn() == "yours", "never our turn")
        self.checkLayout("our turn")

    def movedFrom(self, before):
        self.wait(lambda: self.moves() > before or self.turn() == "over",
                  "the keyboard played nothing")

    # The games.

    def test_gomokuByKeyboard(self):
        """
        Gomoku against a bot, by the keyboard alone: Enter on "Play a
        bot" (the game starts at once), then Tab to an intersection and
        Enter.  The
        15 x 15 board scales to the screen; a point's hit area is its
        whole cell (the points tile the board, so a tap plays the
        nearest intersection): at 360 px a cell is about 21 px, below
        40, which a tap still hits without zooming.
        """
        self.helloByKeyboard("gomoku", "thumb")
        self.enterOn("#new-gomoku")
        self.waitForOurTurn()
        points = self.driver.execute_script(POINTS, "#board .spot")
        self.assertEqual(points["count"], 225)
        self.assertGreaterEqual(points["size"], points["pitch"] - 0.5)
        before = self.moves()
        self.enterOn("#board .spot")
        self.movedFrom(before)
        self.checkLayout("after a move")

    def test_checkersByKeyboard(self):
        """
        Checkers against a bot: Enter on "Play a bot", then Tab to a piece
        that can move, Enter, Tab to a destination, Enter.
        """
        self.helloByKeyboard("checkers", "thumb")
        self.enterOn("#new-checkers")
        self.waitForOurTurn()
        before = self.moves()
        self.enterOn("#board .movable")
        self.enterOn("#board .target")
        self.movedFrom(before)
        self.checkLayout("after a move")

    def test_splendorByKeyboard(self):
        """
        Splendor against a bot: Enter on "Play a bot", then Enter on Hint
        (which chooses a move) and on the button that plays it.
        """
        self.helloByKeyboard("splendor", "thumb")
        self.enterOn("#new-splendor")
        self.waitForOurTurn()
        before = self.moves()
        self.enterOn("#hint")
        self.wait(lambda: self.find(
            "#splendor-actions button.primary:enabled, #chosen .buy"),
            "the hint chose nothing")
        self.enterOn("#splendor-actions button.primary:enabled, "
                     "#chosen .buy")
        self.movedFrom(before)
        self.checkLayout("after a move")

    # The lobby.

    def test_roomWithBotsOfALevel(self):
        """
        Pick checkers (by the keyboard), choose 3 players, create a room,
        fill it with bots of level 3: the room has two bots, and once
        ready the game starts with them playing at level 3.
        """
        from selenium.webdriver.support.ui import Select
        self.helloByKeyboard("gomoku", "thumb")
        self.enterOn("#pick-checkers")
        self.wait(lambda: self.find('#pick-checkers[aria-pressed="true"]'),
                  "checkers not picked")
        Select(self.find("#players")[0]).select_by_value("3")
        Select(self.find("#level")[0]).select_by_value("3")
        self.enterOn("#create-room")
        self.wait(lambda: self.find("#fill-bots"), "no room")
        self.checkLayout("a waiting room")
        self.enterOn("#fill-bots")
        self.enterOn("#ready")
        self.wait(lambda: self.turn() in ("yours", "theirs"), "no game")
        self.wait(lambda: len(self.find("#seats li")) == 3, "no seats")
        self.wait(lambda: len(self.find("#seats li .tag")) >= 3,
                  "the bots are not marked")
        # The bots are named after their level.
        seats = self.find("#seats")[0].text
        self.assertEqual(seats.count("bot3_"), 2, seats)
        self.server.waitForLog(r"'thumb' joined checkers room 'thumb'")
        self.checkLayout("a game of three")

    def test_quickPlayJoinsARoom(self):
        """
        A gomoku-battle client's room waits for a guest; Quick play with
        gomoku picked joins it (the fullest open room), and the room's
        players are listed in the lobby before.
        """
        from tests.cluster.test_nodes import createRoom, register
        from hub.wire import gomoku as wire
        client, reply = register(self.server.port("gomoku"), "tcpowner")
        self.addCleanup(client.close)
        self.assertEqual(reply["status"], wire.S_OK)
        client.token = reply["token"]
        self.assertEqual(createRoom(client, "tcproom")["status"], wire.S_OK)
        self.helloByKeyboard("gomoku", "thumb")
        self.wait(lambda: self.find('#open-rooms li[data-room="tcproom"]'),
                  "the room is not listed")
        listed = self.find('#open-rooms li[data-room="tcproom"]')[0].text
        self.assertIn("tcpowner", listed)
        self.enterOn("#quick-play")
        self.wait(lambda: self.find("#ready"), "not in the room")
        self.server.waitForLog(r"'thumb' joined gomoku room 'tcproom'")
