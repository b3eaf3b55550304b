"""
The web face over real loopback requests: pages, the JSON API, the event
streams, escaping, and /metrics.
"""

import random

from twisted.internet import defer
from twisted.trial.unittest import TestCase

from hub.records import query
from tests.records.support import SQLiteMixin, openDatabase
from tests.web.support import WebHub, openRoom


def finishGomoku(web, name):
    """
    Play a gomoku game in room C{name} of C{web}'s hub to its end (its
    first player wins): its L{hub.web.live.LiveGame}.
    """
    room, _ = openRoom(web.hub, "gomoku", name,
                       [name + "-ann", name + "-bob"])
    web.hub.lobby.start(room)
    game = web.web.spectating.gameOf(room.table)
    for x in range(4):
        room.table.act(0, (x, 0))
        room.table.act(1, (x, 1))
    room.table.act(0, (4, 0))
    return game


class LobbyTests(TestCase):
    """
    C{/} and C{/api/hub}: the hub now.
    """

    @defer.inlineCallbacks
    def test_hubNow(self):
        """
        The API lists, per kind, the players online, the rooms with their
        members and ready flags, and the running games with their link.
        """
        web = WebHub(self)
        room, _ = openRoom(web.hub, "gomoku", "den", ["ann", "bob"])
        openRoom(web.hub, "checkers", "7", ["cy"], ready=False)
        web.hub.lobby.start(room)
        code, now = yield web.getJSON("/api/hub")
        self.assertEqual(code, 200)
        gomoku = now["kinds"]["gomoku"]
        self.assertEqual(gomoku["online"], 2)
        self.assertEqual(gomoku["players"], ["ann", "bob"])
        [den] = gomoku["rooms"]
        self.assertEqual(den["state"], "playing")
        self.assertEqual([(m["name"], m["ready"]) for m in den["members"]],
                         [("ann", True), ("bob", True)])
        [game] = gomoku["games"]
        self.assertEqual(game["url"], "/games/" + den["game"])
        self.assertEqual(game["players"], ["ann", "bob"])
        [seven] = now["kinds"]["checkers"]["rooms"]
        self.assertEqual((seven["state"], seven["members"][0]["ready"]),
                         ("waiting", False))

    @defer.inlineCallbacks
    def test_lobbyPageEscapes(self):
        """
        A room called C{<script>alert(1)</script>} shows as text, in the
        page and in the API; a room's password appears nowhere.
        """
        web = WebHub(self)
        evil = "<script>alert(1)</script>"
        openRoom(web.hub, "gomoku", evil, ["<b>bold</b>"],
                 password="hunter2")
        code, headers, page = yield web.get("/")
        self.assertEqual(code, 200)
        self.assertNotIn(b"<script>alert", page)
        self.assertIn(b"&lt;script&gt;alert(1)&lt;/script&gt;", page)
        self.assertNotIn(b"<b>bold", page)
        self.assertNotIn(b"hunter2", page)
        self.assertIn(b"default-src 'self'",
                      headers.getRawHeaders(b"content-security-policy")[0])
        code, headers, body = yield web.get("/api/hub")
        self.assertNotIn(b"<", body)
        self.assertNotIn(b"hunter2", body)
        self.assertIn(b'"locked":true', body)

    @defer.inlineCallbacks
    def test_lobbyStream(self):
        """
        The lobby's stream sends the hub now, then again when a room
        opens.
        """
        web = WebHub(self)
        web.web.lobbyFeed.interval = 0.05
        client = yield web.stream("/api/hub/events", self)
        first = yield client.waitFor("hub")
        self.assertEqual(first["kinds"]["splendor"]["rooms"], [])
        openRoom(web.hub, "splendor", "table 1", ["p1"])
        second = yield client.waitFor("hub", 2)
        self.assertEqual(
            [r["name"] for r in second["kinds"]["splendor"]["rooms"]],
            ["table 1"])

    @defer.inlineCallbacks
    def test_staticAndMetrics(self):
        """
        The scripts and the stylesheet are served by the hub; /metrics has
        the hub's gauges.
        """
        web = WebHub(self)
        for name in ("game.js", "lobby.js", "boards.js", "dom.js",
                     "hub.css"):
            code, headers, body = yield web.get("/static/" + name)
            self.assertEqual(code, 200, name)
            self.assertTrue(body)
        code, headers, body = yield web.get("/metrics")
        self.assertEqual(code, 200)
        self.assertIn(b'gamehub_rooms{game="gomoku"} 0.0', body)

    @defer.inlineCallbacks
    def test_notFound(self):
        """
        Unknown pages, games and API paths are 404s.
        """
        web = WebHub(self)
        for path in ("/nothing", "/games/live-99", "/games/",
                     "/api/games/live-99", "/api/games/live-99/events",
                     "/players/gomoku/ann", "/leaderboard/chess",
                     "/api/leaderboard/gomoku"):
            code, headers, body = yield web.get(path)
            self.assertEqual(code, 404, path)

    @defer.inlineCallbacks
    def test_missingGamePage(self):
        """
        Watching a missing game is a page that says so, with no game
        script left saying "Loading" above an HTTP error.
        """
        web = WebHub(self)
        code, headers, body = yield web.get("/games/live-99")
        self.assertEqual(code, 404)
        self.assertIn(b"No game live-99", body)
        self.assertNotIn(b"Loading", body)
        self.assertNotIn(b"game.js", body)

    @defer.inlineCallbacks
    def test_noTournaments(self):
        """
        Without a database, C{/tournaments} (which every header links to)
        is a 404 saying why; every page's header has the link.
        """
        web = WebHub(self)
        code, headers, body = yield web.get("/tournaments")
        self.assertEqual(code, 404)
        self.assertIn(b"This hub keeps no tournaments: it runs without a "
                      b"database (--db none).", body)
        for path in ("/tournaments", "/play", "/leaderboard/gomoku"):
            code, headers, body = yield web.get(path)
            self.assertIn(b'<a href="/tournaments" class="tournaments">'
                          b'tournaments</a>', body, path)


class GameTests(TestCase):
    """
    C{/games/ID}, C{/api/games/ID} and the game's stream.
    """

    def startGame(self, web, kind, names, name="room"):
        room, _ = openRoom(web.hub, kind, name, names)
        web.hub.lobby.start(room)
        game = web.web.spectating.gameOf(room.table)
        return room.table, game

    @defer.inlineCallbacks
    def test_snapshotMidGame(self):
        """
        A spectator arriving mid-game gets the position at once, then each
        action as it happens, with the view after it.
        """
        web = WebHub(self)
        table, game = self.startGame(web, "gomoku", ["ann", "bob"])
        table.act(0, (7, 7))
        table.act(1, (8, 8))
        client = yield web.stream("/api/games/%s/events" % game.id, self)
        snapshot = yield client.waitFor("snapshot")
        self.assertEqual([m["text"] for m in snapshot["moves"]],
                         ["h8", "i7"])
        self.assertEqual(snapshot["view"]["last"], [8, 8])
        self.assertEqual(snapshot["turn"]["seat"], 0)
        table.act(0, (6, 6))
        action = yield client.waitFor("action")
        self.assertEqual(action["move"]["action"], [6, 6])
        self.assertNotIn("view", action)
        self.assertEqual(action["turn"]["seat"], 1)
        turn = yield client.waitFor("turn")
        self.assertEqual(turn["seat"], 1)

    @defer.inlineCallbacks
    def test_endAndReplay(self):
        """
        At the end the spectators hear the result and their stream ends;
        the same address then serves the replay: one view per step.
        """
        web = WebHub(self)
        table, game = self.startGame(web, "gomoku", ["ann", "bob"])
        client = yield web.stream("/api/games/%s/events" % game.id, self)
        yield client.waitFor("snapshot")
        for x in range(4):
            table.act(0, (x, 0))
            table.act(1, (x, 1))
        table.act(0, (4, 0))
        end = yield client.waitFor("end")
        self.assertEqual(end["result"]["winnerName"], "ann")
        yield client.closed
        code, data = yield web.getJSON("/api/games/" + game.id)
        self.assertEqual(code, 200)
        self.assertFalse(data["live"])
        steps = data["replay"]["steps"]
        self.assertEqual(len(steps), 10)
        self.assertEqual(steps[0]["board"].count("."), 225)
        self.assertEqual(steps[3]["board"][:2], "bb")
        code, headers, page = yield web.get("/games/" + game.id)
        self.assertEqual(code, 200)
        self.assertIn(b'data-live="0"', page)

    @defer.inlineCallbacks
    def test_everyKind(self):
        """
        Games of every kind stream and end; their pages name the kind.
        """
        web = WebHub(self)
        rng = random.Random(5)
        for kind, names in (("gomoku", ["a", "b"]),
                            ("checkers", ["a", "b", "c"]),
                            ("splendor", ["a", "b", "c"])):
            table, game = self.startGame(web, kind, names, kind)
            code, headers, page = yield web.get("/games/" + game.id)
            self.assertIn(b'data-kind="' + kind.encode() + b'"', page)
            self.assertIn(b'data-live="1"', page)
            for _ in range(20):
                table.playOne(rng)
            code, data = yield web.getJSON("/api/games/" + game.id)
            self.assertEqual(len(data["moves"]), 20)
            self.assertTrue(data["live"])

    @defer.inlineCallbacks
    def test_forgottenGame(self):
        """
        A finished game pushed out of the live feed by later ones is gone
        (410), on its page and in the API; a game never started is still
        not found.
        """
        web = WebHub(self)
        web.web.spectating.maxFinished = 1
        old = finishGomoku(web, "one")
        finishGomoku(web, "two")
        code, headers, body = yield web.get("/games/" + old.id)
        self.assertEqual(code, 410)
        self.assertIn(b"Game %s has ended and is no longer kept."
                      % (old.id.encode(),), body)
        self.assertNotIn(b"game.js", body)
        code, data = yield web.getJSON("/api/games/" + old.id)
        self.assertEqual((code, data), (410, {"error": "gone"}))
        code, headers, body = yield web.get("/games/live-3")
        self.assertEqual(code, 404)

    @defer.inlineCallbacks
    def test_splendorReservedFaceDown(self):
        """
        Reserved Splendor cards show only their level.
        """
        web = WebHub(self)
        table, game = self.startGame(web, "splendor", ["a", "b"])
        card = table.game.board[0][0]
        table.act(0, ("fold_card", card, ()))
        code, data = yield web.getJSON("/api/games/" + game.id)
        self.assertEqual(data["view"]["players"][0]["reserved"],
                         [{"level": 1}])
        self.assertEqual(data["view"]["players"][0]["tokens"]["golden"], 1)


class LeaderboardTests(SQLiteMixin, TestCase):
    """
    An empty leaderboard says why, on its page and in the API.
    """

    @defer.inlineCallbacks
    def test_emptySaysWhy(self):
        """
        With no rated game yet, C{/api/leaderboard/KIND} keeps its fields
        and adds C{emptyReason}; the page shows the same sentence.
        """
        database = openDatabase(self, self.databaseURL())
        web = WebHub(self, query.Records(database, leaderboardMinGames=5))
        code, data = yield web.getJSON("/api/leaderboard/gomoku")
        self.assertEqual(code, 200)
        self.assertEqual(data, {
            "kind": "gomoku", "minGames": 5, "guests": True,
            "standings": [],
            "emptyReason": "No rated gomoku game has been recorded yet."})
        code, headers, page = yield web.get("/leaderboard/gomoku")
        self.assertEqual(code, 200)
        self.assertIn(b'id="empty-reason">No rated gomoku game has been '
                      b'recorded yet.<', page)


class RecordedLiveFeedTests(SQLiteMixin, TestCase):
    """
    With records, the live feed keeps a short tail of finished games:
    their replays are read from the records.
    """

    @defer.inlineCallbacks
    def test_shortTail(self):
        """
        The feed of a web face with records keeps
        L{live.RECORDED_FINISHED} finished games and
        L{live.RECORDED_FINISHED_ACTIONS} actions; a game pushed out is
        gone, its page pointing at its players' recent games.
        """
        from hub.web import live
        database = openDatabase(self, self.databaseURL())
        web = WebHub(self, query.Records(database))
        spectating = web.web.spectating
        self.assertEqual(
            (spectating.maxFinished, spectating.maxFinishedActions),
            (live.RECORDED_FINISHED, live.RECORDED_FINISHED_ACTIONS))
        self.assertEqual(
            (WebHub(self).web.spectating.maxFinished,
             WebHub(self).web.spectating.maxFinishedActions),
            (live.MAX_FINISHED, live.MAX_FINISHED_ACTIONS))
        spectating.maxFinished = 1
        for name in ("one", "two"):
            finishGomoku(web, name)
        code, headers, body = yield web.get("/games/live-1")
        self.assertEqual(code, 410)
        self.assertIn(b"Game live-1 has ended and is no longer kept live: "
                      b"its record is in its players' recent games.",
                      body)


class MovesTextTests(TestCase):
    """
    The lobby counts a game's moves in words.
    """

    def test_singular(self):
        from hub.web.pages import movesText
        self.assertEqual([movesText(n) for n in (0, 1, 2, 31)],
                         ["0 moves", "1 move", "2 moves", "31 moves"])
