"""
What every board of C{/play} shows besides the game, in Chromium, by what
the user sees: checkers moves (the bots' and ours) sliding along their
paths on the play page and on the watch page, the turn clock counting
down from the table's, the hint highlighted on all three boards, the
seats of bots and of players a bot took over marked apart, and the
result with a link that opens the game's replay.
"""

import json

from twisted.trial.unittest import SynchronousTestCase

from tests.endtoend import GamehubServer
from tests.web.test_browser import PageActions, bots, browser
from tests.web import test_play_browser

#: A checkers turn on the hubs of these tests, longer than the default so
#: that the clock shown cannot be a client's own 15 s.
TURN_SECONDS = 40

#: Records every cell the moving piece of a checkers animation reaches,
#: with its path, as window.hops ([path, cell] each, in order): a
#: MutationObserver on the board, which only watches the page.
WATCH_HOPS = """
window.hops = [];
const board = document.getElementById("board");
new MutationObserver(records => {
  const touched = new Set();
  for (const record of records) {
    if (record.type === "attributes") {
      const node = record.target;
      if (node.classList.contains("moving")) {
        window.hops.push([node.getAttribute("data-path"), record.oldValue]);
        touched.add(node);
      }
      continue;
    }
    for (const node of record.addedNodes) {
      if (node.nodeType !== 1) continue;
      const found = node.classList.contains("moving") ? [node]
          : [...node.querySelectorAll(".moving")];
      for (const moving of found) touched.add(moving);
    }
  }
  for (const node of touched) {
    window.hops.push([node.getAttribute("data-path"),
                      node.getAttribute("data-cell")]);
  }
}).observe(board, {childList: true, subtree: true, attributes: true,
                   attributeFilter: ["data-cell"], attributeOldValue: true});
"""


def animations(hops):
    """
    The animations seen in C{hops} (L{WATCH_HOPS}'s record): each as
    C{(path, cells)}, the path as cells C{"x,y"} and the cells the moving
    piece reached, in order, each once.
    """
    seen = []
    for path, cell in hops:
        if not seen or seen[-1][0] != path:
            seen.append((path, []))
        cells = seen[-1][1]
        if cell is not None and (not cells or cells[-1] != cell):
            cells.append(cell)
    return [(["%d,%d" % tuple(c) for c in json.loads(path)], cells)
            for path, cells in seen]


class BoardTests(PageActions, SynchronousTestCase):
    """
    The boards of C{/play} (and the watch page) in Chromium.
    """

    # The play page's tests' helpers (not their tests).
    _page = test_play_browser.PlayPageTests
    pollInterval = _page.pollInterval
    statusData = _page.statusData
    moves = _page.moves

    def setUp(self):
        self.driver = browser()
        self.addCleanup(self.driver.quit)

    def serve(self, *extra):
        """
        Start the hub with C{extra} options and its web face.
        """
        self.server = GamehubServer(
            self, "--bot-delay", "0.3", "--checkers-turn-seconds",
            str(TURN_SECONDS), *extra,
            games=("gomoku", "checkers", "splendor", "web"))
        self.base = "http://127.0.0.1:%d" % (self.server.port("web"),)

    def enter(self, name):
        """
        Open C{/play} as a new player called C{name}.
        """
        from selenium.common.exceptions import StaleElementReferenceException
        # Forget the tab's earlier player (its resume token) on a page
        # that does not play.
        self.driver.get(self.base + "/")
        self.driver.execute_script("sessionStorage.clear()")
        self.driver.get(self.base + "/play")

        def typed():
            try:
                field = self.find("#name")
                if not field:
                    return False
                field[0].clear()
                field[0].send_keys(name)
                return field[0].get_attribute("value") == name
            except StaleElementReferenceException:
                return False
        self.wait(typed, "no name field")
        self.click("#hello")
        self.wait(lambda: self.find("#status"), "not welcome")

    def attribute(self, selector, name):
        """
        The attribute C{name} of the first element of C{selector}, or
        None (looked up again while the page redraws).
        """
        from selenium.common.exceptions import StaleElementReferenceException
        for _ in range(50):
            found = self.find(selector)
            if not found:
                return None
            try:
                return found[0].get_attribute(name)
            except StaleElementReferenceException:
                pass
        raise AssertionError("the page never stopped redrawing")

    def text(self, selector):
        from selenium.common.exceptions import StaleElementReferenceException
        for _ in range(50):
            try:
                return " ".join(node.text for node in self.find(selector))
            except StaleElementReferenceException:
                pass
        raise AssertionError("the page never stopped redrawing")

    def hops(self):
        return animations(self.driver.execute_script(
            "return window.hops || []"))

    def ourTurn(self):
        """
        Wait for our turn (or the end): True if it is ours.
        """
        self.wait(lambda: self.statusData("turn") in ("yours", "over"),
                  "never our turn")
        return self.statusData("turn") == "yours"

    def playHintedCheckers(self):
        """
        Play one checkers turn of ours: the hint, its piece, its target.
        """
        before = self.moves()
        self.click("#hint")
        self.click("#board .movable.hinted")
        self.click("#board .target.hinted")
        self.wait(lambda: self.moves() > before
                  or self.statusData("turn") == "over",
                  "the click played nothing")

    def checkAnimations(self, seen):
        """
        Each animation in C{seen} took its piece through every cell of
        its path, in order.
        """
        for path, cells in seen:
            self.assertEqual(cells, path)

    def test_checkersMovesAnimatedAlongTheirPaths(self):
        """
        On C{/play}, every checkers move, the bot's and ours, slides its
        piece through every cell of its path in order (a jump chain's
        intermediate cells included), and the last move stays marked
        once it has arrived.
        """
        # The bots move more slowly than the longest jump chain slides
        # (240 ms a hop), so that no move cuts the one before short.
        self.serve("--bot-delay", "2.5")
        self.enter("slider")
        self.click("#pick-checkers")
        self.click("#new-checkers")
        self.wait(lambda: self.find("#board svg.checkers"), "no board")
        self.driver.execute_script(WATCH_HOPS)
        for _ in range(80):
            if not self.ourTurn():
                break
            seen = self.hops()
            if len(seen) >= 6 and any(len(path) > 2 for path, _ in seen):
                break
            self.playHintedCheckers()
        self.wait(lambda: not self.find("#board .moving"),
                  "the last animation never ended")
        seen = self.hops()
        self.assertEqual(len(seen), self.moves())
        self.checkAnimations(seen)
        self.assertTrue(any(len(path) > 2 for path, _ in seen),
                        "no jump chain was animated")
        # The last move is still drawn, along its path, its piece shown.
        self.assertTrue(self.find("#board polyline.path"))
        self.assertTrue(self.find("#board circle.last"))
        self.assertEqual(self.find("#board .piece.arriving"), [])

    def test_spectatorsSeeMovesAnimated(self):
        """
        On the watch page of a checkers game between two TCP bots, each
        move slides along its path too, and the turn clock is the
        table's.
        """
        self.serve()
        process = bots("checkers", self.server.port("checkers"),
                       "--delay", "0.6")

        def stop():
            if process.poll() is None:
                process.kill()
            process.wait()
        self.addCleanup(stop)
        games = []

        def running():
            self.driver.get(self.base + "/api/games")
            text = self.driver.find_element("tag name", "body").text
            games[:] = [g for g in json.loads(text)["games"]
                        if g["kind"] == "checkers" and not g["over"]]
            return games
        self.wait(running, "the bots' game never started")
        self.driver.get(self.base + games[0]["url"])
        self.wait(lambda: self.find("#board svg.checkers"), "no board")
        self.driver.execute_script(WATCH_HOPS)
        self.wait(lambda: len(self.hops()) >= 4 and any(
            len(path) > 2 for path, _ in self.hops()[:-1]),
                  "no jump chain was animated")
        seen = self.hops()[:-1]
        self.checkAnimations(seen)
        # The watch page's turn clock is the table's too.
        self.wait(lambda: self.attribute("#turn-clock", "data-timed")
                  == "yes", "no turn clock on the watch page")
        seconds = int(self.attribute("#turn-clock", "data-seconds"))
        self.assertTrue(TURN_SECONDS - 10 < seconds <= TURN_SECONDS,
                        seconds)

    def test_reducedMotion(self):
        """
        With C{prefers-reduced-motion}, a move is not animated: the piece
        is at once where it went, the move marked.
        """
        self.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
            "features": [{"name": "prefers-reduced-motion",
                          "value": "reduce"}]})
        self.serve()
        self.enter("still")
        self.click("#pick-checkers")
        self.click("#new-checkers")
        self.wait(lambda: self.find("#board svg.checkers"), "no board")
        self.driver.execute_script(WATCH_HOPS)
        for _ in range(2):
            self.assertTrue(self.ourTurn())
            self.playHintedCheckers()
        self.wait(lambda: self.moves() >= 3, "the bot never moved")
        self.assertEqual(self.hops(), [])
        self.assertTrue(self.find("#board polyline.path"))

    def test_turnClock(self):
        """
        The turn clock shows the seconds left on the checkers table's
        clock (its 40 s, no client's 15) and counts down; a gomoku room,
        which has no turn clock, says so and counts the turn's seconds.
        """
        self.serve()
        self.enter("timer")
        self.click("#pick-checkers")
        self.click("#new-checkers")
        self.assertTrue(self.ourTurn())
        self.wait(lambda: self.attribute("#turn-clock", "data-timed")
                  == "yes", "no turn clock")
        first = int(self.attribute("#turn-clock", "data-seconds"))
        self.assertTrue(TURN_SECONDS - 10 < first <= TURN_SECONDS, first)
        self.assertIn("%d s left" % (first,), self.text("#turn-clock"))
        self.wait(lambda: int(self.attribute("#turn-clock", "data-seconds")
                              or first) < first,
                  "the clock does not count down")
        self.enter("untimed")
        self.click("#pick-gomoku")
        self.click("#new-gomoku")
        self.wait(lambda: self.attribute("#turn-clock", "data-timed")
                  == "no", "no turn clock in gomoku")
        self.assertIn("No time limit", self.text("#turn-clock"))

    def test_hintAndClockOnEveryBoard(self):
        """
        On each board, the turn clock is shown, and clicking the hint
        button on our turn highlights the hint (gomoku's point, checkers'
        piece and destination, Splendor's action); a room's bot is
        marked as a bot.
        """
        self.serve()
        for name, kind, hinted in [
                ("hinter1", "gomoku", "#board .spot.hinted"),
                ("hinter2", "checkers", "#board .movable.hinted"),
                ("hinter3", "splendor",
                 "#board .hinted, #actions .hinted")]:
            self.enter(name)
            self.click("#pick-" + kind)
            self.click("#new-" + kind)
            self.wait(lambda: self.ourTurn(), "never our turn")
            # The turn clock is shown on every board: the table's (only
            # checkers rooms have one), or no time limit.
            self.wait(lambda: self.attribute("#turn-clock", "data-timed")
                      == ("yes" if kind == "checkers" else "no"),
                      "no turn clock on the %s board" % (kind,))
            self.assertTrue(self.find("#turn-clock")[0].is_displayed())
            self.assertEqual(self.find(hinted), [])
            self.click("#hint")
            self.wait(lambda: [node for node in self.find(hinted)
                               if node.is_displayed()],
                      "no hint shown on the %s board" % (kind,))
            if kind == "checkers":
                self.click("#board .movable.hinted")
                self.wait(lambda: self.find("#board .target.hinted"),
                          "no hinted destination")
            marks = self.text("#seats .tag.bot")
            self.assertIn("bot", marks)
            self.assertNotIn("took over", marks)

    def test_takenOverSeatThenResultAndReplay(self):
        """
        A gomoku-battle client's seat that a bot takes over when it is
        gone is marked "bot (took over NAME)"; the game is played to its
        end, the result shown, and the replay link opens the replay,
        whose player list marks the seat so too.
        """
        self.serve("--takeover", "bot", "--grace-seconds", "1")
        process = bots("gomoku", self.server.port("gomoku"), "--count",
                       "1", "--room", "tcproom", "--level", "1")

        def stop():
            if process.poll() is None:
                process.kill()
            process.wait()
        self.addCleanup(stop)
        self.enter("stayer")
        self.wait(lambda: "tcproom" in self.text("#open-rooms li"),
                  "the TCP room is not listed")
        self.click("#open-rooms button.join")
        self.click("#ready")
        self.assertTrue(self.ourTurn())
        # A player of the TCP client: no bot that the hub knows of.
        self.assertEqual(self.find("#seats .tag.bot"), [])
        # Read at once in the page, which may redraw the seats meanwhile.
        other = [seat for seat, text in self.driver.execute_script(
            "return [...document.querySelectorAll('#seats li')].map("
            "li => [li.dataset.seat, li.textContent])")
                 if "stayer" not in text]
        name = self.text('#seats li[data-seat="%s"] bdi' % (other[0],))
        stop()
        self.wait(lambda: self.find("#seats .tag.taken-over"),
                  "the seat taken over is not marked")
        self.assertEqual(self.text("#seats .tag.taken-over"),
                         "bot (took over %s)" % (name,))
        for _ in range(120):
            if not self.ourTurn():
                break
            before = self.moves()
            self.click("#hint")
            self.click("#board .spot.hinted")
            self.wait(lambda: self.moves() > before
                      or self.statusData("turn") == "over",
                      "the click played nothing")
        self.wait(lambda: self.statusData("turn") == "over",
                  "the game never ended")
        self.assertIn(self.text("#status"),
                      ("You won!", "You lost.", "Draw."))
        self.assertEqual(self.find("#turn-clock:not([hidden])"), [])
        moves = self.moves()
        self.click("#replay")
        self.wait(lambda: self.find("#slider"), "no replay controls")
        self.wait(lambda: self.text("#step") == "move %d / %d" % (
            moves, moves), "the replay is not the game's")
        self.click("#first")
        self.wait(lambda: self.text("#step") == "move 0 / %d" % (moves,),
                  "the replay does not step back")
        # The replay's player list marks the seat taken over too.
        self.assertEqual(self.text("#seats .tag.taken-over"),
                         "bot (took over %s)" % (name,))

