"""
Playing in a real browser: headless Chromium (as L{tests.web.test_browser}
drives it) plays whole gomoku, checkers and Splendor games against server
bots on C{/play} by clicking, reloads the page mid-game and keeps its
seat, and joins a gomoku-battle client's room.
"""

import os

from twisted.trial.unittest import SynchronousTestCase

from tests.endtoend import GamehubServer
from tests.web.test_browser import WAIT, PageActions, bots, browser

MOVES = 120
#: The seed of the Splendor deal under which the clicks of
#: L{PlayPageTests.test_wholeSplendorGameByClicking} against the level-2
#: room bot (the page's default level) lead to a discard and to a choice
#: between two nobles (found by L{tests.web.splendorseeds}, which plays
#: the same clicks against the rules and the bot, asked as the hub's
#: pool asks it, offline).
SPLENDOR_SEED = "36"


class PlayPageTests(PageActions, SynchronousTestCase):
    """
    C{/play} in Chromium.
    """

    def setUp(self):
        self.driver = browser()
        self.addCleanup(self.driver.quit)
        self.server = GamehubServer(self, "--bot-delay", "0.05",
                                    "--splendor-seed", SPLENDOR_SEED,
                                    games=("gomoku", "checkers", "splendor",
                                           "web"))
        self.base = "http://127.0.0.1:%d" % (self.server.port("web"),)

    pollInterval = 0.05

    def statusText(self):
        """
        The status line's text, or None while it is being redrawn.
        """
        from selenium.common.exceptions import StaleElementReferenceException
        found = self.find("#status")
        try:
            return found[0].text if found else None
        except StaleElementReferenceException:
            return None

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
        text = self.wait(self.statusText, "no status")
        self.assertIn(text, ("You won!", "You lost.", "Draw."))
        self.assertEqual(process.wait(WAIT), 0)

    def test_wholeCheckersGameByClicking(self):
        """
        A two-player checkers game against a level-1 bot, played by
        clicking the hint, the hinted piece and the hinted destination,
        to its end; the player's seat reads "red A".
        """
        self.driver.get(self.base + "/play")
        self.wait(lambda: self.find("#name"), "no name field")
        self.find("#name")[0].send_keys("jumper")
        self.click("#hello")
        self.click("#pick-checkers")
        self.click("#new-checkers")
        self.wait(lambda: self.find("#board svg.checkers"), "no board")
        # The seats by their colours on the board, not letters only.
        self.wait(lambda: [li.text.startswith("jumper (red A)")
                           for li in self.find("#seats li")][:1] == [True],
                  "the seat is not red A")
        self.playByHints(moves=400, pieces=True,
                         shot="web-play-checkers.png")
        text = self.wait(self.statusText, "no status")
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
        self.click("#pick-gomoku")
        self.click("#new-gomoku")
        reloaded = self.playByHints(reload=True, shot="web-play-gomoku.png")
        self.assertTrue(reloaded)
        text = self.wait(self.statusText, "no status")
        self.assertIn(text, ("You won!", "You lost.", "Draw."))
        if text != "Draw.":
            self.assertGreaterEqual(len(self.find("#board .win")), 5)
        self.assertEqual(self.find("#seats li")[0].text.split()[0],
                         "clicker")

    def enterAs(self, name):
        """
        Open C{/play} as a new player called C{name} (the tab's earlier
        player forgotten on a page that does not play).
        """
        self.driver.get(self.base + "/")
        self.driver.execute_script("sessionStorage.clear()")
        self.driver.get(self.base + "/play")
        self.wait(lambda: self.find("#name"), "no name field")
        self.find("#name")[0].send_keys(name)
        self.click("#hello")

    def seatTexts(self):
        """
        The seat list's items' texts, or None while it is redrawn.
        """
        from selenium.common.exceptions import StaleElementReferenceException
        try:
            return [item.text for item in self.find("#seats li")]
        except StaleElementReferenceException:
            return None

    def test_playABotStartsAtOnce(self):
        """
        In each game, "Play a bot" (after picking the game and a bot
        level) seats the player and a bot of that level and starts the
        game at once, with no other click; the seat list shows the bot.
        """
        from selenium.webdriver.support.ui import Select
        for kind in ("gomoku", "checkers", "splendor"):
            self.enterAs("eager_" + kind)
            self.click("#pick-" + kind)
            self.wait(lambda: self.find(
                '#pick-%s[aria-pressed="true"]' % (kind,)), "not picked")
            # A number of players is asked for the games that have a
            # choice only: never beside gomoku.
            self.assertEqual(bool(self.find("#players")), kind != "gomoku",
                             kind)
            Select(self.find("#level")[0]).select_by_value("1")
            self.click("#new-" + kind)
            self.wait(lambda: self.statusData("turn") in ("yours",
                                                          "theirs"),
                      "the %s game never began: %r" % (
                          kind, self.statusText()))
            seats = self.wait(self.seatTexts, "no seats")
            self.assertEqual(len(seats), 2, seats)
            self.assertEqual(len(self.find("#seats li .tag.bot")), 1)
            self.assertEqual(len([text for text in seats
                                  if text.endswith("you")]), 1, seats)
            self.assertEqual(self.find("#ready, #start, #fill-bots"), [])

    def test_seatListWhileWaiting(self):
        """
        While a room waits for its game, the seat list shows its members
        as they come: a checkers room for 3 made with "Create a room"
        lists its maker, then the bots "Fill with bots" seats, each the
        moment it is seated and ready; the game starts when the maker is
        ready.
        """
        from selenium.webdriver.support.ui import Select
        self.enterAs("waiter")
        self.click("#pick-checkers")
        self.wait(lambda: self.find('#pick-checkers[aria-pressed="true"]'),
                  "not picked")
        Select(self.find("#players")[0]).select_by_value("3")
        self.click("#create-room")
        self.wait(lambda: self.seatTexts() and len(self.seatTexts()) == 1,
                  "the maker is not in the seat list")
        self.assertIn("waiter", self.seatTexts()[0])
        self.assertEqual(self.statusText(), "Waiting for the game to start.")
        self.click("#fill-bots")
        self.wait(lambda: len(self.find("#seats li .tag.bot")) == 2,
                  "the bots are not in the seat list")
        self.assertEqual(len(self.find("#seats li .tag.ready")), 2)
        self.assertEqual(self.statusText(), "Waiting for the game to start.")
        self.click("#ready")
        self.wait(lambda: self.statusData("turn") in ("yours", "theirs"),
                  "the game never began")

    def enabled(self, selector):
        """
        The elements of C{selector} that are enabled now.
        """
        from selenium.common.exceptions import StaleElementReferenceException
        found = []
        for node in self.find(selector):
            try:
                if node.is_enabled():
                    found.append(node)
            except StaleElementReferenceException:
                pass
        return found

    def cards(self, selector):
        """
        The C{data-card} of each element of C{selector}, looked up again
        while the page redraws.
        """
        from selenium.common.exceptions import StaleElementReferenceException
        for _ in range(50):
            try:
                return [node.get_attribute("data-card")
                        for node in self.find(selector)]
            except StaleElementReferenceException:
                pass
        raise AssertionError("the page never stopped redrawing")

    def pickGems(self, verb):
        """
        Click gem buttons, a new gem first, until the C{verb} button
        (C{#take} or C{#discard}) plays the pick, then click it.
        """
        for _ in range(12):
            if self.enabled("#" + verb):
                break
            fresh = [node for node in self.enabled(".gem-button")
                     if node.get_attribute("aria-pressed") == "false"]
            (fresh or self.enabled(".gem-button"))[0].click()
        self.click("#" + verb)

    def splendorTurn(self, taking):
        """
        Play one Splendor turn of ours by clicking: a noble when several
        qualify, tokens back when over 10; else, with C{taking}, tokens
        when a take is legal; else a card to buy (board or hand), else
        tokens, else a reserve.

        @return: what was done.
        """
        if self.find(".noble-choice"):
            # Only the nobles that qualify are offered (as buttons, and
            # on the board), nothing else.
            self.assertGreaterEqual(len(self.find(".noble-choice")), 2)
            self.assertEqual(len(self.find("#board .noble-pick")),
                             len(self.find(".noble-choice")))
            self.assertEqual(self.find(
                "#take-picker, #board .card-pick, #board .deck-pick"), [])
            self.screenshot("web-play-splendor-noble.png")
            self.click(".noble-choice")
            return "noble"
        if self.find("#discard-picker"):
            # Only giving back is offered, once the pick is complete.
            self.assertEqual(self.find("#take-picker, #board .pick"), [])
            self.assertEqual(self.enabled("#discard"), [])
            self.pickGems("discard")
            return "discard"
        canTake = bool(self.enabled("#take-picker .gem-button"))
        if taking and canTake:
            self.pickGems("take")
            return "take"
        if self.enabled(".hand-card.buyable"):
            self.click(".hand-card.buyable")
            self.click("#chosen .buy")
            return "buy"
        if self.find("#board .card-pick.buyable"):
            self.click("#board .card-pick.buyable")
            self.click("#chosen .buy")
            return "buy"
        if canTake:
            self.pickGems("take")
            return "take"
        self.click("#board .pick")
        self.click("#reserve")
        return "reserve"

    def test_wholeSplendorGameByClicking(self):
        """
        A two-player Splendor game against a server bot (Play a bot:
        the bot at the page's level, 2 by default), played to its end
        by clicking: tokens are taken until more than 10 must be given back
        (the discard, by clicking gem buttons), then cards are bought
        from the board or the hand whenever one is offered. A noble
        choice, when several nobles qualify at once, is made by clicking
        one: the deal is seeded (L{SPLENDOR_SEED}) so that all three
        happen.  Once, a card is chosen with the keyboard (Enter on it);
        on the first turn, the hint button preselects the hint.
        """
        # The screenshot's size: a 1280x800 page.
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": 1280, "height": 800, "deviceScaleFactor": 1,
            "mobile": False})
        self.driver.get(self.base + "/play")
        self.wait(lambda: self.find("#name"), "no name field")
        self.find("#name")[0].send_keys("jeweller")
        self.click("#hello")
        self.click("#pick-splendor")
        self.click("#new-splendor")
        self.wait(lambda: self.find("#board svg.splendor"), "no board")
        done = []
        shot = "web-play-splendor.png"
        for _ in range(300):
            self.wait(lambda: self.statusData("turn") in ("yours", "over"),
                      "never our turn")
            if self.statusData("turn") == "over":
                break
            if shot is not None and "discard" in done and self.find(
                    "#board .card-pick.buyable"):
                # By keyboard: Enter on the focused card.
                from selenium.webdriver.common.keys import Keys
                self.find("#board .card-pick.buyable")[0].send_keys(
                    Keys.ENTER)
                self.wait(lambda: self.find("#chosen .buy"),
                          "Enter chose no card")
                self.screenshot(shot)
                shot = None
            if not done:
                # The hint preselects the bot's action; cleared, the
                # seeded game goes on as planned.
                self.click("#hint")
                self.wait(lambda: self.enabled("#take") or self.find(
                    "#chosen button, #board .pick.hinted"), "no hint")
                if self.enabled("#take-clear"):
                    self.click("#take-clear")
            before = self.moves()
            done.append(self.splendorTurn("discard" not in done))
            self.wait(lambda: self.moves() > before
                      or self.statusData("turn") == "over",
                      "the click played nothing")
        self.wait(lambda: self.statusData("turn") == "over",
                  "the game never ended")
        text = self.wait(self.statusText, "no status")
        self.assertIn(text, ("You won!", "You lost."))
        self.assertIn("discard", done)
        self.assertIn("buy", done)
        self.assertIn("noble", done)

    def test_splendorReserveAndBuyFromHand(self):
        """
        Splendor by clicking: a blind reserve (a deck, then Reserve) and
        a face-up one (a level-1 card, then Reserve) put the cards in
        the player's hand, face up; tokens are taken until a reserved
        card is offered for sale, and it is bought from the hand.
        """
        self.driver.get(self.base + "/play")
        self.wait(lambda: self.find("#name"), "no name field")
        self.find("#name")[0].send_keys("reserver")
        self.click("#hello")
        self.click("#pick-splendor")
        self.click("#new-splendor")

        def ourTurn():
            self.wait(lambda: self.statusData("turn") == "yours",
                      "never our turn")
            return self.moves()

        def played(before):
            self.wait(lambda: self.moves() > before, "nothing played")

        before = ourTurn()
        self.click('#board .deck-pick[data-level="1"]')
        self.click("#reserve")
        played(before)
        self.wait(lambda: len(self.cards("#hand .hand-card")) == 1,
                  "the blind reserve is not in the hand")
        before = ourTurn()
        level1 = self.cards('#board .card-pick[data-level="1"]')
        self.click('#board .card-pick[data-card="%s"]' % (level1[0],))
        self.click("#reserve")
        played(before)
        self.wait(lambda: len(self.cards("#hand .hand-card")) == 2,
                  "the face-up reserve is not in the hand")
        self.assertIn(level1[0], self.cards("#hand .hand-card"))
        for _ in range(12):
            before = ourTurn()
            if self.cards("#hand .hand-card.buyable"):
                break
            self.pickGems("take")
            played(before)
        bought = self.cards("#hand .hand-card.buyable")[0]
        self.click('#hand .hand-card[data-card="%s"]' % (bought,))
        self.click("#chosen .buy")
        played(before)
        self.wait(lambda: bought not in self.cards("#hand .hand-card"),
                  "the card bought is still in the hand")
