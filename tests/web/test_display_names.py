"""
Display names on the web face (docs/accounts.md, "Display names"): set
and cleared on C{/account} (refusals in the page's language), shown
before the protocol name, each in its own C{<bdi>}, on the leaderboard, a
player's page, a game's page and the lobby, and beside C{"name"} as
C{"display"} in the JSON API; guests have none.  Over real SQLite and a
real HTTP port.
"""

import re

from twisted.internet import defer, reactor
from twisted.trial.unittest import TestCase

from hub.accounts.displays import DisplayNames
from hub.records import query
from hub.web.text import FSI, PDI

from tests.accounts import support as accountsupport
from tests.records import support
from tests.web import test_i18n_pages
from tests.web.accountsupport import AccountsWebMixin, Browser
from tests.web.support import WebHub, startGuestGame


def named(display, name):
    """
    How a page shows the account C{name} whose display name is
    C{display}.
    """
    return ('<span class="named"><bdi class="display">%s</bdi> '
            '(<bdi>%s</bdi>)</span>' % (display, name))


class RecordedTests(support.SQLiteMixin, TestCase):
    """
    Two recorded gomoku games between the account C{ann} (display name
    安妮) and the guest C{bob}.
    """

    @defer.inlineCallbacks
    def setUp(self):
        url = self.databaseURL()
        self.database = support.openDatabase(self, url)
        self.accounts = accountsupport.openAccounts(self, url)
        yield self.accounts.add("ann", "pw")
        yield self.accounts.setDisplayName("ann", "安妮")
        self.ids = yield support.recordGuestGames(self.database)
        self.web = WebHub(self, query.Records(self.database,
                                              leaderboardMinGames=1))
        self.displays = DisplayNames(self.accounts, reactor)
        self.web.web.displays = self.displays

    @defer.inlineCallbacks
    def test_leaderboard(self):
        """
        The leaderboard shows C{安妮 (ann)}; its JSON says C{"display"}
        beside the unchanged C{"name"}.
        """
        code, _, page = yield self.web.get("/leaderboard/gomoku")
        self.assertEqual(code, 200)
        self.assertIn(named("安妮", "ann"), page.decode("utf-8"))
        code, data = yield self.web.getJSON("/api/leaderboard/gomoku")
        self.assertEqual({s["name"]: s["display"]
                          for s in data["standings"]},
                         {"ann": "安妮", "bob": None})

    @defer.inlineCallbacks
    def test_playerPages(self):
        """
        A player's page shows the display name in its heading and title
        (isolated), and among its recent games' players; a guest has
        none.
        """
        code, _, page = yield self.web.get("/players/gomoku/ann")
        page = page.decode("utf-8")
        self.assertEqual(code, 200)
        heading = page.split("<h1>")[1].split("</h1>")[0]
        self.assertIn(named("安妮", "ann"), heading)
        title = re.search(r"<title>(.*)</title>", page).group(1)
        self.assertIn("%s安妮%s (%sann%s)" % (FSI, PDI, FSI, PDI), title)
        recent = page.split('class="recent"')[1]
        self.assertIn(named("安妮", "ann"), recent)
        self.assertIn("<bdi>bob</bdi>", recent)
        code, data = yield self.web.getJSON("/api/players/gomoku/ann")
        self.assertEqual((data["name"], data["display"]), ("ann", "安妮"))
        self.assertEqual(data["rating"]["display"], "安妮")
        self.assertEqual(data["recent"][0]["displays"], ["安妮", None])
        self.assertEqual(data["recent"][0]["players"], ["ann", "bob"])
        code, data = yield self.web.getJSON("/api/players/gomoku/bob")
        self.assertIsNone(data["display"])

    @defer.inlineCallbacks
    def test_gamePage(self):
        """
        A recorded game's page shows the display name in its heading and
        title; its API says it beside each account's seat, and a new
        display name once it changed.
        """
        path = "/games/%d" % (self.ids[0],)
        code, _, page = yield self.web.get(path)
        page = page.decode("utf-8")
        heading = page.split("<h1>")[1].split("</h1>")[0]
        self.assertIn(named("安妮", "ann"), heading)
        code, data = yield self.web.getJSON("/api" + path)
        self.assertEqual({s["name"]: s["display"] for s in data["seats"]},
                         {"ann": "安妮", "bob": None})
        yield self.accounts.setDisplayName("ann", "安妮二")
        self.displays.changed(["ann"])
        code, data = yield self.web.getJSON("/api" + path)
        self.assertEqual(data["seats"][0]["display"], "安妮二")

    @defer.inlineCallbacks
    def test_withoutAccounts(self):
        """
        A web face without accounts shows the names alone, and says
        C{"display": null}.
        """
        self.web.web.displays = None
        code, _, page = yield self.web.get("/leaderboard/gomoku")
        self.assertNotIn("安妮", page.decode("utf-8"))
        self.assertIn("<bdi>ann</bdi>", page.decode("utf-8"))
        code, data = yield self.web.getJSON("/api/leaderboard/gomoku")
        self.assertEqual([s["display"] for s in data["standings"]],
                         [None, None])


class HeldDisplays:
    """
    The display names the accounts C{shown} have, as
    L{hub.accounts.model.Accounts.displayNames} answers them.
    """

    def __init__(self, shown):
        self.shown = shown

    def displayNames(self, keys):
        return defer.succeed({k: v for k, v in self.shown.items()
                              if k in keys})


class LobbyTests(TestCase):
    """
    The hub now: a room and a running game between the account C{ann}
    (display name 安妮) and the guest C{bob}.
    """

    @defer.inlineCallbacks
    def test_lobbyAndLiveGame(self):
        """
        The lobby page, C{/api/hub} and the live game's page and JSON
        show ann's display name, never the guest's; a name the lobby did
        not hold yet is read for its next look.
        """
        web = WebHub(self)
        displays = DisplayNames(HeldDisplays({"ann": "安妮", "bob": "x"}),
                                web.hub.clock)
        web.web.displays = web.site.web.spectating.displays = displays
        web.web.lobbyFeed.displays = displays
        yield displays.lookup(["ann"])
        startGuestGame(web.hub)
        code, _, page = yield web.get("/")
        page = page.decode("utf-8")
        members = page.split('class="members"')[1]
        self.assertIn(named("安妮", "ann"), members)
        self.assertIn("<bdi>bob</bdi>", members)
        games = page.split('class="games"')[1].split("</ul>")[0]
        self.assertIn(named("安妮", "ann"), games)
        self.assertNotIn(">x<", page)
        code, now = yield web.getJSON("/api/hub")
        [den] = now["kinds"]["gomoku"]["rooms"]
        self.assertEqual([(m["name"], m["display"]) for m in den["members"]],
                         [("ann", "安妮"), ("bob", None)])
        [game] = now["kinds"]["gomoku"]["games"]
        self.assertEqual(dict(zip(game["players"], game["displays"])),
                         {"ann": "安妮", "bob": None})
        code, _, page = yield web.get("/games/" + den["game"])
        self.assertIn(named("安妮", "ann"), page.decode("utf-8"))
        code, data = yield web.getJSON("/api/games/" + den["game"])
        self.assertEqual({s["name"]: s["display"] for s in data["seats"]},
                         {"ann": "安妮", "bob": None})


class AccountPageTests(AccountsWebMixin, TestCase):
    """
    C{/account}'s display name form.
    """

    @defer.inlineCallbacks
    def setUp(self):
        yield self.setUpWeb()
        yield self.addAccount("lilei")
        yield self.addAccount("alice")
        self.browser = Browser(self.web)
        yield self.browser.login("lilei")

    def setDisplay(self, text):
        return self.browser.submit("/account", "/account/display-name",
                                   {"display": text})

    @defer.inlineCallbacks
    def test_setAndClear(self):
        """
        The form sets the display name (normalised), says so, shows it
        in the form and in "You are"; an empty one clears it.
        """
        code, _, page = yield self.browser.get("/account")
        self.assertIn('action="/account/display-name"', page)
        code, _, page = yield self.setDisplay(" 李\u3000雷 ")
        self.assertEqual(code, 200)
        self.assertIn("Your display name is now", page)
        self.assertIn(named("李 雷", "lilei"), page)
        self.assertIn('name="display" value="李 雷"', page)
        self.assertEqual((yield self.accounts.displayName("lilei")), "李 雷")
        code, _, page = yield self.setDisplay("")
        self.assertIn("Your display name is cleared.", page)
        self.assertIn("You are <bdi>lilei</bdi> (player).", page)
        self.assertIsNone((yield self.accounts.displayName("lilei")))
        audit = yield self.accounts.audit()
        self.assertEqual([(e.actor, e.action) for e in audit[-2:]],
                         [("lilei", "display-name")] * 2)

    @defer.inlineCallbacks
    def test_refusedInThePagesLanguage(self):
        """
        A refusal is said in the page's language (400), the text typed
        kept in the form, and the display name unchanged.
        """
        yield self.setDisplay("李雷")
        yield self.browser.get("/account?lang=zh")
        for text, said in [
                ("ALICE", "看起来像另一位玩家"),
                ("王" * 25, "显示名最多 24 个字符；这个有 25 个。"),
                ("李\u200b雷", "U+200B"),
                ("李雷 (alice)", "显示名不能包含括号")]:
            code, _, page = yield self.setDisplay(text)
            self.assertEqual(code, 400, text)
            self.assertIn('<html lang="zh">', page)
            self.assertIn(said, page)
            self.assertIn('class="message error"', page)
        self.assertIn("<bdi>alice</bdi>", (yield self.setDisplay("Alice"))[2])
        self.assertEqual((yield self.accounts.displayName("lilei")), "李雷")

    @defer.inlineCallbacks
    def test_csrf(self):
        """
        A POST without the page's CSRF token is refused (403), the display
        name unchanged.
        """
        code, _, _ = yield self.browser.request(
            b"POST", "/account/display-name", {"display": "李雷"})
        self.assertEqual(code, 403)
        self.assertIsNone((yield self.accounts.displayName("lilei")))

    @defer.inlineCallbacks
    def test_seenAtOnce(self):
        """
        A display name set on this hub is shown by its pages at once
        (the lobby's next look).
        """
        displays = self.web.site.web.displays
        self.assertIsNotNone(displays)
        yield displays.lookup(["lilei"])
        yield self.setDisplay("李雷")
        self.assertEqual((yield displays.lookup(["lilei"])),
                         {"lilei": "李雷"})


ZH = test_i18n_pages.ZH


class TournamentTests(AccountsWebMixin, TestCase):
    """
    An event's page and JSON, and the header's account link: the account
    C{ann} (display name C{安<b>妮}), the account C{bob} (none) and the
    guest C{visitor}, paired in round 1.
    """

    # (The module, not its test case: imported here, that would run
    # again.)
    director = test_i18n_pages.AccountPagesTests.director

    @defer.inlineCallbacks
    def setUp(self):
        from hub.tournaments import store
        from hub.tournaments.standings import Game
        yield self.setUpWeb()
        yield self.addAccount("ann")
        yield self.addAccount("bob")
        yield self.accounts.setDisplayName("ann", "安<b>妮")

        def write(interaction, *args):
            return self.accounts.database.runInteraction(
                interaction, *args, write=True)
        self.eventId = yield write(store.createEvent, "cup", "gomoku",
                                   "round-robin", None, None, 2, None, 0.0)
        yield write(store.enter, self.eventId, "ann", 0.0)
        yield write(store.enter, self.eventId, "bob", 0.0)
        yield write(store.enter, self.eventId, "visitor", 0.0, None, True)
        yield write(store.requestState, self.eventId, "start", 0.0)
        yield write(store.startRound, self.eventId, 1,
                    [Game(1, 1, ("ann", "visitor")),
                     Game(1, 2, ("bob", "ann"), (1.0, 0.0))], 0.0)
        self.path = "/tournaments/%d" % (self.eventId,)

    def assertShown(self, page):
        # ann's display name, escaped, before her name, each isolated, in
        # the standings (and the crosstable's heading), the pairings and
        # the entrants; bob and the guest by their names alone.
        shown = named("安&lt;b&gt;妮", "ann")
        self.assertNotIn("安<b>妮", page)
        standings = page.split('class="standings"')[1].split("</table>")[0]
        self.assertEqual(standings.count(shown), 2)
        pairings = page.split('class="pairings"')[1].split("</table>")[0]
        self.assertIn(shown, pairings)
        self.assertIn("<bdi>visitor</bdi>", pairings)
        entrants = page.split('class="entrants"')[1].split("</ul>")[0]
        self.assertIn(shown, entrants)
        self.assertIn("<li><bdi>bob</bdi></li>", entrants)

    @defer.inlineCallbacks
    def test_eventPage(self):
        """
        C{/tournaments/ID} shows ann's display name before her name,
        escaped and isolated, where it shows her, in both languages.
        """
        browser = Browser(self.web)
        code, _, page = yield browser.get(self.path)
        self.assertEqual(code, 200)
        self.assertShown(page)
        code, _, page = yield browser.request(b"GET", self.path,
                                              headers=ZH)
        self.assertIn('<html lang="zh">', page)
        self.assertShown(page)

    @defer.inlineCallbacks
    def test_eventJSON(self):
        """
        The event's JSON (its page's stream sends the same) says
        C{"display"} beside each entrant's and standing's C{"name"}, and
        C{"displays"} beside each pairing's C{"seats"}; a guest has none.
        """
        code, data = yield self.web.getJSON(
            "/api/tournaments/%d" % (self.eventId,))
        self.assertEqual(code, 200)
        self.assertEqual([(e["name"], e["display"])
                          for e in data["entrants"]],
                         [("ann", "安<b>妮"), ("bob", None),
                          ("visitor", None)])
        self.assertEqual({s["name"]: s["display"]
                          for s in data["standings"]},
                         {"ann": "安<b>妮", "bob": None, "visitor": None})
        self.assertEqual([(p["seats"], p["displays"])
                          for p in data["rounds"][0]["pairings"]],
                         [(["ann", "visitor"], ["安<b>妮", None]),
                          (["bob", "ann"], [None, "安<b>妮"])])

    @defer.inlineCallbacks
    def test_headerLink(self):
        """
        The header's account link of a logged-in account shows its
        display name before its name (escaped, isolated) on the event's
        page and the account's, in both languages; a new one at once.
        """
        browser = Browser(self.web)
        yield browser.login("ann")
        link = ('<a href="/account" class="account">%s</a>'
                % (named("安&lt;b&gt;妮", "ann"),))
        for path in (self.path, "/account"):
            for headers in (None, ZH):
                code, _, page = yield browser.request(b"GET", path,
                                                      headers=headers)
                self.assertEqual(code, 200, path)
                self.assertIn(link, page, path)
        code, _, page = yield browser.submit(
            "/account", "/account/display-name", {"display": "安妮"})
        self.assertIn('<a href="/account" class="account">%s</a>'
                      % (named("安妮", "ann"),), page)
        yield browser.login("bob")
        code, _, page = yield browser.get(self.path)
        self.assertIn('<a href="/account" class="account"><bdi>bob</bdi>'
                      '</a>', page)
