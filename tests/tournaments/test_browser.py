"""
The issue's fifth test, in a real browser (Debian's C{chromium} through
C{selenium}, headless) against the real C{twistd -n gamehub}: a person
registers, enters an event from its page (C{/tournaments/ID}), the event
is started (the CLI), the page tells the person their game is ready,
they click it, and play the gomoku game against an engine entrant (a
level-1 C{hub.bots}) by clicking, to its end; still on the play page,
they are told over C{/ws} that the second game (a round robin's other
colour) is ready, click its button and play it; the event's standings
then show both results.  Another person plays each game from its link on
the event's page, going back to it after each.
"""

import csv
import io
import json
import sys

from twisted.trial.unittest import SynchronousTestCase

from tests.endtoend import GamehubServer
from tests.tournaments.test_endtoend import EndToEndMixin
from tests.web import test_accounts_browser as accounts
from tests.web import test_play_browser as playing
from tests.web.test_browser import browser

# (Modules, not their test cases: imported here, those would run again.)
PASSWORD = accounts.PASSWORD

#: The most of our moves a game may take.
MOVES = 120


class EventInBrowserTests(EndToEndMixin, SynchronousTestCase):
    """
    A person in a tournament event, from the browser.
    """

    # The pages' helpers of the accounts' and the play page's tests.
    find = accounts.AccountsBrowserTests.find
    one = accounts.AccountsBrowserTests.one
    wait = accounts.AccountsBrowserTests.wait
    fill = accounts.AccountsBrowserTests.fill
    heading = accounts.AccountsBrowserTests.heading
    mainText = accounts.AccountsBrowserTests.mainText
    open = accounts.AccountsBrowserTests.open
    click = playing.PlayPageTests.click
    statusData = playing.PlayPageTests.statusData
    moves = playing.PlayPageTests.moves
    screenshot = playing.PlayPageTests.screenshot

    def setUp(self):
        EndToEndMixin.setUp(self)
        self.driver = browser()
        self.addCleanup(self.driver.quit)
        self.server = GamehubServer(self, "--db", self.url, "--announce",
                                    "no", games=("gomoku", "web"))
        self.webPort = self.server.port("web")
        self.base = "http://127.0.0.1:%d" % (self.webPort,)

    def standings(self):
        """
        The standings table of the event's page: C{{name: (points,
        games)}}.
        """
        rows = {}
        for row in self.find("table.standings tbody tr.standing"):
            cells = [c.text for c in row.find_elements("css selector",
                                                       "td")]
            name = row.find_element("css selector",
                                    "td bdi:not(.display)").text
            rows[name] = (float(cells[2] or 0), int(cells[3]))
        return rows

    def guestsShown(self):
        """
        The names the standings table marks as guests'.
        """
        return [row.find_element("css selector",
                                 "td bdi:not(.display)").text
                for row in self.find("table.standings tbody tr.standing")
                if row.find_elements("css selector", ".tag.guest")]

    def playGame(self):
        """
        Play our game by clicking (the hint, then the hinted point) to
        its end.
        """
        for _ in range(MOVES):
            self.wait(lambda: self.statusData("turn") in ("yours", "over"),
                      "never our turn")
            if self.statusData("turn") == "over":
                break
            before = self.moves()
            self.click("#hint")
            self.click("#board .spot.hinted")
            self.wait(lambda: self.moves() > before
                      or self.statusData("turn") == "over",
                      "the click played nothing")
        self.wait(lambda: self.statusData("turn") == "over",
                  "the game never ended")

    def enterEvent(self, name):
        """
        Create a gomoku round robin called C{name} with an engine entrant
        (a level-1 C{hub.bots}); a person registers (and is logged in) as
        erin and enters it from its page.

        @return: the event's id and its page's path.
        """
        eventId = int(self.cli(
            "create", "--name", name, "--game", "gomoku",
            "--format", "round-robin").splitlines()[-1])
        self.cli("engine", "add", str(eventId), "robot1", "--",
                 sys.executable, "-m", "hub.bots", "gomoku://{host}:{port}",
                 "--count", "1", "--name", "robot", "--room", "{room}",
                 "--level", "1", "--delay", "0", "--seed", "5")
        page = "/tournaments/%d" % (eventId,)
        self.open("/register")
        self.fill("form.register", name="erin", password=PASSWORD,
                  again=PASSWORD)
        self.wait(lambda: self.heading() == "Registered", "not registered")
        self.open(page)
        self.click("#entry-enter")
        self.wait(lambda: self.find("#entry-withdraw"), "not entered")
        return eventId, page

    def test_enterAndPlay(self):
        eventId, page = self.enterEvent("People cup")
        # erin's display name, shown before her name on the event's page
        # and in the header, as the page's script redraws it too.
        self.open("/account")
        self.fill("form.display-name-form", display="艾琳")
        self.wait(lambda: "艾琳" in self.mainText(), "no display name")
        self.open(page)
        self.assertIn("艾琳 (erin)", self.one("ul.entrants").text)
        self.assertEqual(self.one("nav a.account").text, "艾琳 (erin)")
        self.assertTrue(self.one("#game-ready").get_attribute("hidden"))

        # The event starts: the page says the game is ready.
        self.cli("start", str(eventId))
        self.wait(lambda: self.find("#game-ready a.play-game"),
                  "never told the game is ready")
        # The round the stream brought, drawn by the page's script.
        self.assertIn("艾琳 (erin)", self.one("table.pairings").text)
        self.assertIn("艾琳 (erin)", self.one("table.standings").text)
        notice = self.one("#game-ready")
        self.assertFalse(notice.get_attribute("hidden"))
        room = "%d-1-1" % (eventId,)
        self.assertIn(room, notice.text)
        self.screenshot("tournament-game-ready.png")

        # The link opens the play page in the room, seated as paired.
        self.click("#game-ready a.play-game")
        self.wait(lambda: "/play?" in self.driver.current_url,
                  "not on the play page")
        self.wait(lambda: self.statusData("turn") in ("yours", "theirs"),
                  "the game never began")
        # Seated in the pairing's seat: black is its first.
        pairing = json.loads(self.cli("export", str(eventId)))[
            "rounds"][0]["pairings"][0]
        seats = [item.text for item in self.find("#seats li")]
        self.assertIn("erin", seats[pairing["seats"].index("erin")])
        self.playGame()

        # Still on /play, the person hears over /ws that the second game
        # (the other colour) is ready, and clicks its button.
        self.wait(lambda: self.find("#game-ready button.play-game"),
                  "not told of the second game")
        self.assertIn("%d-2-1" % (eventId,), self.one("#game-ready").text)
        self.screenshot("tournament-play-game-ready.png")
        self.click("#game-ready button.play-game")
        self.wait(lambda: self.statusData("turn") in ("yours", "theirs"),
                  "the second game never began")
        self.assertTrue(self.one("#game-ready").get_attribute("hidden"))
        self.playGame()

        # The standings show the result, on the page and in the CSV.
        self.open(page)
        self.wait(lambda: self.standings().get("erin", (0, 0))[1] == 2,
                  "the results are not in the standings")
        shown = self.standings()
        self.assertEqual(sorted(shown), ["erin", "robot1"])
        # The engine's name is no account's: a guest; erin's is hers.
        self.assertEqual(self.guestsShown(), ["robot1"])
        self.assertEqual(sum(points for points, _ in shown.values()), 2.0)
        self.wait(lambda: not self.find("#game-ready a.play-game"),
                  "still told a game is ready")
        table = csv.DictReader(io.StringIO(self.cli(
            "standings", str(eventId), "--csv")))
        self.assertEqual({r["name"]: float(r["points"]) for r in table},
                         {n: p for n, (p, _) in shown.items()})
        self.assertIn(self.one("#tournament .state").text, ("finished",))
        self.screenshot("tournament-after.png")

    def test_laterGamesByTheirLinks(self):
        """
        Each game of an event is joined by its link on the event's page,
        as a person goes back to it after each game: the later games too
        (the hub takes the entrant out of the room of the game before,
        over), with no error shown and no notice of a game that waits no
        more.
        """
        eventId, page = self.enterEvent("Links cup")
        self.cli("start", str(eventId))
        for round in (1, 2):
            room = "%d-%d-1" % (eventId, round)
            self.open(page)
            link = '#game-ready a.play-game[data-room="%s"]' % (room,)
            self.wait(lambda: self.find(link), "no link to " + room)
            self.click(link)
            self.wait(lambda: "/play?" in self.driver.current_url,
                      "not on the play page")
            self.wait(lambda: self.statusData("turn") in ("yours",
                                                          "theirs"),
                      "game %d never began" % (round,))
            self.assertEqual(self.one("#error").text, "")
            # No game waits for erin now.
            self.wait(lambda: self.one("#game-ready").get_attribute(
                "hidden"), "told of a game that waits no more")
            self.playGame()
