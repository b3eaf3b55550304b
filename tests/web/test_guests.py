"""
Guests marked on the web pages (issue 21): a name that is no account's
carries a C{guest} mark wherever a page shows it from the records or the
hub now (the leaderboard, a player's page, a game's page, the lobby's
rooms and games), and an account's name never does; over real SQLite and
a real HTTP port.
"""

import re

from twisted.internet import defer
from twisted.trial.unittest import TestCase

from hub.records import query

from tests.records import support
from tests.web.support import WebHub, openRoom, startGuestGame

MARK = '<span class="tag guest">guest</span>'


def marked(page, name):
    """
    Whether C{page} (bytes) shows C{name} with the guest mark after it.
    """
    return re.search(re.escape("<bdi>%s</bdi>" % (name,)) + r"(</a>)? " +
                     re.escape(MARK), page.decode("utf-8")) is not None


def shown(page, name):
    """
    Whether C{page} (bytes) shows C{name}.
    """
    return ("<bdi>%s</bdi>" % (name,)) in page.decode("utf-8")


class RecordedGuestsTests(support.SQLiteMixin, TestCase):
    """
    Two gomoku games between the account C{ann} and the guest C{bob}.
    """

    @defer.inlineCallbacks
    def setUp(self):
        self.database = support.openDatabase(self, self.databaseURL())
        self.ids = yield support.recordGuestGames(self.database)

    def site(self, guests):
        return WebHub(self, query.Records(self.database,
                                          leaderboardMinGames=1,
                                          leaderboardGuests=guests))

    @defer.inlineCallbacks
    def test_leaderboard(self):
        """
        With C{--leaderboard-guests yes} the leaderboard lists the guest,
        marked, and the account unmarked; by default only the account.
        """
        code, _, page = yield self.site(True).get("/leaderboard/gomoku")
        self.assertEqual(code, 200)
        self.assertTrue(marked(page, "bob"))
        self.assertTrue(shown(page, "ann"))
        self.assertFalse(marked(page, "ann"))
        code, _, page = yield self.site(False).get("/leaderboard/gomoku")
        self.assertTrue(shown(page, "ann"))
        self.assertFalse(shown(page, "bob"))
        self.assertNotIn(MARK.encode(), page)

    @defer.inlineCallbacks
    def test_playerPages(self):
        """
        A guest's page says it is a guest's; an account's does not; both
        mark the guest among their recent games' players.
        """
        web = self.site(False)
        code, _, page = yield web.get("/players/gomoku/bob")
        self.assertEqual(code, 200)
        self.assertIn(b'class="guest-note"', page)
        self.assertTrue(marked(page, "bob"))
        self.assertFalse(marked(page, "ann"))
        code, _, page = yield web.get("/players/gomoku/ann")
        self.assertEqual(code, 200)
        self.assertNotIn(b'class="guest-note"', page)
        self.assertTrue(marked(page, "bob"))
        self.assertFalse(marked(page, "ann"))
        code, data = yield web.getJSON("/api/players/gomoku/bob")
        self.assertTrue(data["guest"])
        self.assertEqual(data["recent"][0]["guests"], [False, True])

    @defer.inlineCallbacks
    def test_gamePage(self):
        """
        A recorded game's page (its replay) marks the guest's seat in its
        heading and title; its API says which seat is a guest's.
        """
        web = self.site(False)
        code, _, page = yield web.get("/games/%d" % (self.ids[0],))
        self.assertEqual(code, 200)
        self.assertTrue(marked(page, "bob"))
        self.assertFalse(marked(page, "ann"))
        title = re.search(r"<title>(.*)</title>", page.decode()).group(1)
        self.assertIn("bob\u2069 (guest)", title)
        self.assertNotIn("ann\u2069 (guest)", title)
        code, data = yield web.getJSON("/api/games/%d" % (self.ids[0],))
        self.assertEqual({s["name"]: s["guest"] for s in data["seats"]},
                         {"ann": False, "bob": True})


class LiveGuestsTests(TestCase):
    """
    The hub now: a room and a running game between the account C{ann}
    and the guest C{bob}.
    """

    @defer.inlineCallbacks
    def test_lobbyAndLiveGame(self):
        """
        The lobby page marks the guest among the room's members and the
        running game's players, and the live game's page in its heading;
        the account is not marked.
        """
        web = WebHub(self)
        room = startGuestGame(web.hub)
        self.assertTrue(room.running)
        code, _, page = yield web.get("/")
        self.assertEqual(code, 200)
        members = page.split(b'class="members"')[1]
        self.assertTrue(marked(members, "bob"))
        self.assertFalse(marked(members, "ann"))
        games = page.split(b'class="games"')[1].split(b"</ul>")[0]
        self.assertTrue(marked(games, "bob"))
        self.assertFalse(marked(games, "ann"))
        code, now = yield web.getJSON("/api/hub")
        [den] = now["kinds"]["gomoku"]["rooms"]
        self.assertEqual([m["guest"] for m in den["members"]],
                         [False, True])
        code, _, page = yield web.get("/games/" + den["game"])
        self.assertEqual(code, 200)
        self.assertTrue(marked(page, "bob"))
        self.assertFalse(marked(page, "ann"))

    @defer.inlineCallbacks
    def test_noGuestsWithoutAccounts(self):
        """
        Where no name is checked (C{--names open}: no session is a
        guest's), nobody is marked.
        """
        web = WebHub(self)
        room, _ = openRoom(web.hub, "gomoku", "den", ["ann", "bob"])
        code, _, page = yield web.get("/")
        self.assertTrue(shown(page, "bob"))
        self.assertNotIn(MARK.encode(), page)
