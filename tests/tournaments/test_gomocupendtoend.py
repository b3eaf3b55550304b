"""
Gomocup brains end to end: the real hub (C{twistd -n gamehub}) runs a
gomoku round robin whose entrants are registered with C{engine register
--protocol gomocup} (the tests' brain, C{gomocupbrain.py}), beside the
hub's level-2 bot connecting over TCP; one brain crashes in each game.
"""

import io
import json
import os
import sqlite3
import sys
import tempfile
import urllib.request
import zipfile

from twisted.trial.unittest import SynchronousTestCase

from hub.records.codec import eventsFromText
from hub.wire.gomocup import parseOpenings, readPsq
from tests.endtoend import GamehubServer
from tests.tournaments.test_endtoend import (
    GAME_TIMEOUT, EndToEndMixin, botName)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BRAIN = os.path.join(HERE, "gomocupbrain.py")
EXAMPLES = os.path.join(ROOT, "examples", "engines")


class GomocupEndToEndTests(EndToEndMixin, SynchronousTestCase):

    def test_roundRobin(self):
        """
        A round robin of a fair brain, a level-2 bot, a stdio engine
        (the Python example) and a brain that exits at its second move:
        every game is played; the crashing brain's games end in
        C{crash} (or C{start}, once it crashed more than the limit) with
        its opponent winning; the others' games end on the board; the
        event page and the export show the fair brain's ABOUT.  The
        games between engines over standard streams start from an
        opening of the default list, a pair's two games from the same
        (the bot's, from the empty board: its protocol cannot say a
        position); each game's .psq export reads back to its stones.
        """
        server = GamehubServer(self, "--db", self.url,
                               games=("gomoku", "web"))
        self.webPort = server.port("web")
        eventId = int(self.cli(
            "create", "--name", "Brains", "--game", "gomoku", "--format",
            "round-robin", "--turn-ms", "5000", "--openings",
            "default").splitlines()[-1])
        for name, mode in (("pela", "fair"), ("crasher", "exit")):
            self.cli("engine", "register", name, "--protocol", "gomocup",
                     "--folder", HERE, "--", sys.executable, BRAIN, mode)
            self.cli("engine", "add", str(eventId), name)
        self.cli("engine", "register", "randompy", "--protocol", "stdio",
                 "--folder", EXAMPLES, "--", sys.executable,
                 os.path.join(EXAMPLES, "gomoku.py"))
        self.cli("engine", "add", str(eventId), "randompy")
        self.cli("engine", "add", str(eventId), botName("bot"), "--",
                 sys.executable, "-m", "hub.bots", "gomoku://{host}:{port}",
                 "--count", "1", "--name", "bot", "--room", "{room}",
                 "--level", "2", "--delay", "0", "--seed", "3")
        games = self.playedThrough(server, eventId, "Brains")
        self.assertEqual(len(games), 12)
        for game in games:
            seats = game["seats"]
            if "crasher" in seats:
                self.assertIn(game["result"], ("crash", "start"), game)
                self.assertEqual(game["points"][seats.index("crasher")],
                                 0.0, game)
            else:
                self.assertEqual(game["result"], "normal", game)
                self.assertEqual(sum(game["points"]), 1.0, game)
        # Crashed in its first four games, not started again after the
        # limit of three new processes.
        self.assertEqual(sorted(g["result"] for g in games
                                if "crasher" in g["seats"]),
                         ["crash"] * 4 + ["start"] * 2)
        data = json.loads(self.cli("export", str(eventId)))
        about = {e["name"]: e["about"] for e in data["entrants"]}
        self.assertEqual(about["pela"], {
            "name": "testbrain-fair", "version": "1.0",
            "author": "gamehub tests", "country": "CZ"})
        self.assertIsNone(about[botName("bot")])
        page = self.get("/tournaments/%d" % (eventId,))
        self.assertIn("<bdi>testbrain-fair</bdi> <bdi>1.0</bdi>, by "
                      "<bdi>gamehub tests</bdi> (<bdi>CZ</bdi>)", page)
        server.waitForLog(r"brain crasher of %d-\d+-\d+: crash "
                          r"\(exited with status 3\)" % (eventId,),
                          timeout=GAME_TIMEOUT)
        self.psqReadsBack(eventId)

    def psqReadsBack(self, eventId):
        """
        C{export EVENT --psq DIR} writes one record per game played,
        which reads back (L{readPsq}) to the stones the database holds
        for it, black's name first; the zip holds the same files.
        """
        folder = tempfile.mkdtemp(prefix="gamehub-psq-")
        self.addCleanup(__import__("shutil").rmtree, folder, True)
        out = self.cli("export", str(eventId), "--psq", folder)
        with sqlite3.connect(self.path) as db:
            rows = db.execute(
                "SELECT g.id, g.table_name, e.events FROM games g JOIN "
                "game_events e ON e.game_id = g.id WHERE g.event = ? "
                "ORDER BY g.id", (eventId,)).fetchall()
            seats = dict(((gameId, seat), name) for gameId, seat, name in
                         db.execute("SELECT game_id, seat, name FROM "
                                    "game_seats").fetchall())
            openings = {gameId: [tuple(s) for s in json.loads(p)["moves"]]
                        for gameId, p in db.execute(
                            "SELECT game_id, position FROM game_events")}
        self.assertTrue(rows)
        with open(os.path.join(ROOT, "hub", "tournaments",
                               "openings.txt")) as f:
            listed = [tuple(o) for o in parseOpenings(f)]
        byPair = {}
        for gameId, _, _ in rows:
            pair = frozenset((seats[(gameId, 0)], seats[(gameId, 1)]))
            if "bot1" in pair:
                self.assertEqual(openings[gameId], [])
            else:
                byPair.setdefault(pair, set()).add(tuple(openings[gameId]))
        self.assertEqual(len(byPair), 3)
        for pair, used in byPair.items():
            self.assertEqual(len(used), 1, pair)
            self.assertIn(list(used)[0], listed)
        self.assertEqual(out, "%d games written to %s\n" % (len(rows),
                                                            folder))
        for gameId, table, text in rows:
            with open(os.path.join(folder, table + ".psq")) as f:
                moves, times, names = readPsq(f.read())
            stored = openings[gameId] + [
                tuple(e["action"]) for e in eventsFromText(text)
                if e["type"] == "ActionPlayed"]
            self.assertEqual(moves, stored, table)
            self.assertEqual(len(times), len(moves))
            self.assertEqual(names, [seats[(gameId, 0)],
                                     seats[(gameId, 1)]])
        with zipfile.ZipFile(os.path.join(
                folder, "event-%d-psq.zip" % (eventId,))) as z:
            self.assertEqual(sorted(z.namelist()),
                             sorted(t + ".psq" for _, t, _ in rows))
            files = {name: z.read(name) for name in z.namelist()}
        # The event page's link: the same zip from the web face.
        page = self.get("/tournaments/%d" % (eventId,))
        link = "/api/tournaments/%d/games.psq.zip" % (eventId,)
        self.assertIn('href="%s"' % (link,), page)
        with urllib.request.urlopen("http://127.0.0.1:%d%s" % (
                self.webPort, link), timeout=30) as response:
            self.assertEqual(response.headers["Content-Type"],
                             "application/zip")
            with zipfile.ZipFile(io.BytesIO(response.read())) as z:
                self.assertEqual({name: z.read(name)
                                  for name in z.namelist()}, files)

