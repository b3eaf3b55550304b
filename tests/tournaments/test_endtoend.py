"""
A tournament end to end: the real hub (C{twistd -n gamehub}) runs a
4-entrant gomoku round robin created with the CLI; the games are played
by C{python -m hub.bots} processes the test starts, each joining the
room its pairing was given (C{EVENT-ROUND-BOARD}, from the hub's log)
with C{--room}.  The standings the CLI prints as CSV are those the
recorded games (with the event's id) make.
"""

import ast
import http.client
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request

from twisted.trial.unittest import SynchronousTestCase

from tests.endtoend import GamehubServer, waitUntil

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
GAME_TIMEOUT = 120
#: The engine that plays only illegal moves (the engine runner's tests').
ILLEGAL = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "illegalengine.py")
#: hub.bots names its one bot PREFIX + "1" (seat 1).
PREFIXES = ("alpha", "bravo", "charlie", "delta")


def botName(prefix):
    return prefix + "1"


class EndToEndMixin:
    """
    A database file, the CLI, the web API and bot processes.
    """

    def setUp(self):
        folder = tempfile.mkdtemp(prefix="gamehub-tournament-e2e-")
        self.addCleanup(shutil.rmtree, folder, True)
        self.path = os.path.join(folder, "hub.sqlite")
        self.url = "sqlite:" + self.path

    def playedThrough(self, server, eventId, name):
        """
        Start event C{eventId} (called C{name}), wait until it finished,
        and give its exported pairings that were played (not byes).
        """
        self.cli("start", str(eventId))
        server.waitForLog(r"tournament %d \('%s'\) finished"
                          % (eventId, re.escape(name)),
                          timeout=GAME_TIMEOUT * 3)
        data = json.loads(self.cli("export", str(eventId)))
        return [p for r in data["rounds"] for p in r["pairings"]
                if not p["bye"]]

    def cli(self, *argv):
        result = subprocess.run(
            [sys.executable, "-m", "hub.tournaments", "--db", self.url]
            + list(argv), cwd=ROOT, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr)
        return result.stdout.decode()

    def get(self, path):
        with urllib.request.urlopen("http://127.0.0.1:%d%s" % (
                self.webPort, path), timeout=30) as response:
            return response.read().decode("utf-8")

    def frames(self, path):
        """
        The Server-Sent Events of C{path}: a generator of C{(event,
        data)}, each read within 60 s.
        """
        connection = http.client.HTTPConnection("127.0.0.1", self.webPort,
                                                timeout=60)
        self.addCleanup(connection.close)
        connection.request("GET", path)
        response = connection.getresponse()
        self.assertEqual(response.status, 200)
        event = None
        while True:
            line = response.fp.readline().decode("utf-8").rstrip("\n")
            if line.startswith("event: "):
                event = line[len("event: "):]
            elif line.startswith("data: "):
                yield event, json.loads(line[len("data: "):])

    def bot(self, port, room, name, level, delay=0):
        prefix = name[:-len("1")]
        return subprocess.Popen(
            [sys.executable, "-m", "hub.bots",
             "gomoku://127.0.0.1:%d" % (port,), "--count", "1", "--room",
             room, "--name", prefix, "--level", str(level), "--delay",
             str(delay),
             "--seed", "7", "--timeout", str(GAME_TIMEOUT)],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)



class RoundRobinEndToEndTests(EndToEndMixin, SynchronousTestCase):
    """
    The CLI creates and starts the event; the hub picks it up and runs it
    to the end.
    """

    def test_roundRobin(self):
        """
        Six rounds of two games each, then the event is finished and the
        CSV standings agree with the recorded games and with the web's.
        Before each game, the JSON API names the room each entrant is to
        join; the event's stream pushes the first results.
        """
        server = GamehubServer(self, "--db", self.url,
                               games=("gomoku", "web"))
        port = server.port("gomoku")
        self.webPort = server.port("web")
        eventId = int(self.cli(
            "create", "--name", "Bots cup", "--game", "gomoku", "--format",
            "round-robin").splitlines()[-1])
        for prefix in PREFIXES:
            self.cli("enter", "--guest", str(eventId), botName(prefix))
        started = time.monotonic()
        self.cli("start", str(eventId))
        levels = {botName(p): level for p, level in zip(PREFIXES,
                                                         (3, 2, 2, 1))}
        opened = re.compile(r"tournament %d: room (%d-(\d+)-\d+) opened for "
                            r"(\[.*?\])" % (eventId, eventId))
        for round in range(1, 7):
            server.waitForLog(r"tournament %d: room %d-%d-2 opened"
                              % (eventId, eventId, round))
            if round == 1:
                # Picked up within the 2 s poll (and the CLI's start-up).
                self.assertLess(time.monotonic() - started, 30)
            rooms = [(m.group(1), ast.literal_eval(m.group(3)))
                     for m in opened.finditer("".join(server.output))
                     if int(m.group(2)) == round]
            self.assertEqual(len(rooms), 2)
            for room, seats in rooms:
                for name in seats:
                    nextRoom = json.loads(self.get(
                        "/api/tournaments/%d/next?name=%s" % (eventId,
                                                              name)))
                    self.assertEqual(nextRoom["room"], room)
            if round == 1:
                # The event page's stream: the event at once, then again
                # once a game of the round has a result.
                stream = self.frames("/api/tournaments/%d/events"
                                     % (eventId,))
                event, data = next(stream)
                self.assertEqual((event, data["currentRound"]),
                                 ("tournament", 1))
            bots = [self.bot(port, room, name, levels[name])
                    for room, seats in rooms for name in seats]
            if round == 1:
                for event, data in stream:
                    results = [p["points"] for r in data["rounds"]
                               for p in r["pairings"]]
                    if any(points is not None for points in results):
                        break
                stream.close()
            for bot in bots:
                output, _ = bot.communicate(timeout=GAME_TIMEOUT)
                self.assertEqual(bot.returncode, 0, output)
        server.waitForLog(r"tournament %d \('Bots cup'\) finished"
                          % (eventId,))
        csv = self.cli("standings", str(eventId), "--csv").splitlines()
        self.assertEqual(csv[0], "rank,name,points")
        self.assertEqual(len(csv), 5)
        shown = {line.split(",")[1]: float(line.split(",")[2])
                 for line in csv[1:]}
        web = json.loads(self.get("/api/tournaments/%d" % (eventId,)))
        self.assertEqual(web["state"], "finished")
        self.assertEqual([(s["rank"], s["name"], s["points"])
                          for s in web["standings"]],
                         [(int(line.split(",")[0]), line.split(",")[1],
                           float(line.split(",")[2])) for line in csv[1:]])
        self.assertEqual(
            self.get("/api/tournaments/%d/standings.csv" % (eventId,)),
            "\n".join(csv) + "\n")
        page = self.get("/tournaments/%d" % (eventId,))
        self.assertIn("Bots cup", page)
        for name in shown:
            self.assertIn(name, page)
        listing = json.loads(self.get("/api/tournaments"))
        self.assertEqual([e["id"] for e in listing["tournaments"]],
                         [eventId])
        self.assertIn("Bots cup", self.get("/tournaments"))
        # The points of the recorded games of the event.
        server.stop()
        connection = sqlite3.connect(self.path)
        try:
            rows = connection.execute(
                "SELECT g.id, g.winner, s.seat, s.name FROM games g JOIN "
                "game_seats s ON s.game_id = g.id WHERE g.event = ?",
                (eventId,)).fetchall()
        finally:
            connection.close()
        expected = {name: 0.0 for name in shown}
        games = set()
        for gameId, winner, seat, name in rows:
            games.add(gameId)
            if winner is None:
                expected[name] += 0.5
            elif winner == seat:
                expected[name] += 1.0
        self.assertEqual(len(games), 12)
        self.assertEqual(shown, expected)
        points = [float(line.split(",")[2]) for line in csv[1:]]
        self.assertEqual(points, sorted(points, reverse=True))
        self.assertEqual(sum(points), 12.0)


class RestartEndToEndTests(EndToEndMixin, SynchronousTestCase):
    """
    The hub stopped (SIGTERM) in the middle of a tournament game and
    started again on the same database plays that game again, then goes
    on to the end.
    """

    def test_restart(self):
        """
        A 2-entrant round robin (two games): the first game is cut off
        by a SIGTERM; the restarted hub opens its room again, and the
        event ends with two results.
        """
        server = GamehubServer(self, "--db", self.url,
                               games=("gomoku", "web"))
        eventId = int(self.cli(
            "create", "--name", "Restart cup", "--game", "gomoku",
            "--format", "round-robin").splitlines()[-1])
        names = [botName(p) for p in PREFIXES[:2]]
        for name in names:
            self.cli("enter", "--guest", str(eventId), name)
        self.cli("start", str(eventId))
        first = "%d-1-1" % (eventId,)
        server.waitForLog(r"tournament %d: room %s opened" % (eventId,
                                                              first))
        self.webPort = server.port("web")
        stream = self.frames("/api/tournaments/%d/events" % (eventId,))
        # Slow bots: the game is under way when the hub stops.
        bots = [self.bot(server.port("gomoku"), first, name, 1, delay=0.5)
                for name in names]
        for event, data in stream:
            if data["rounds"][0]["pairings"][0].get("live"):
                break
        stream.close()
        server.stop()
        for bot in bots:
            bot.communicate(timeout=GAME_TIMEOUT)
        # The game was under way: the records kept it as abandoned.
        connection = sqlite3.connect(self.path)
        try:
            cut = connection.execute(
                "SELECT reason FROM games WHERE table_name = ?",
                (first,)).fetchall()
        finally:
            connection.close()
        self.assertEqual(cut, [("abandoned",)])
        snapshot = json.loads(self.cli("export", str(eventId)))
        self.assertEqual([p["points"] for r in snapshot["rounds"]
                          for p in r["pairings"]], [None, None])
        again = GamehubServer(self, "--db", self.url,
                              games=("gomoku", "web"))
        port = again.port("gomoku")
        for round in (1, 2):
            room = "%d-%d-1" % (eventId, round)
            again.waitForLog(r"tournament %d: room %s opened"
                             % (eventId, room))
            bots = [self.bot(port, room, name, 2) for name in names]
            for bot in bots:
                output, _ = bot.communicate(timeout=GAME_TIMEOUT)
                self.assertEqual(bot.returncode, 0, output)
        again.waitForLog(r"tournament %d \('Restart cup'\) finished"
                         % (eventId,))
        snapshot = json.loads(self.cli("export", str(eventId)))
        results = [p["points"] for r in snapshot["rounds"]
                   for p in r["pairings"]]
        self.assertEqual(len(results), 2)
        self.assertEqual([sum(points) for points in results], [1.0, 1.0])
        self.assertEqual(snapshot["state"], "finished")


class EnginesEndToEndTests(EndToEndMixin, SynchronousTestCase):
    """
    Engine entrants registered with C{engine add}: the hub's director has
    its engine runner start them for each of their games.
    """

    def test_engines(self):
        """
        A 3-entrant gomoku round robin of engines, one of which cannot
        start: the two that run play each other twice, the broken one
        forfeits its four games, and the event finishes.
        """
        server = GamehubServer(self, "--db", self.url, games=("gomoku",))
        eventId = int(self.cli(
            "create", "--name", "Engine cup", "--game", "gomoku",
            "--format", "round-robin").splitlines()[-1])
        for prefix in PREFIXES[:2]:
            self.cli("engine", "add", str(eventId), botName(prefix), "--",
                     sys.executable, "-m", "hub.bots",
                     "gomoku://{host}:{port}", "--count", "1", "--name",
                     prefix, "--room", "{room}", "--level", "1", "--delay",
                     "0", "--seed", "3")
        self.cli("engine", "add", str(eventId), "broken", "--",
                 sys.executable, "-c", "raise SystemExit(3)")
        games = self.playedThrough(server, eventId, "Engine cup")
        self.assertEqual(len(games), 6)
        broken = [p for p in games if "broken" in p["seats"]]
        self.assertEqual({p["result"] for p in broken}, {"engine-failed"})
        for game in broken:
            self.assertEqual(game["points"][game["seats"].index("broken")],
                             0.0)
        played = [p for p in games if "broken" not in p["seats"]]
        self.assertEqual(len(played), 2)
        self.assertNotIn("engine-failed", {p["result"] for p in played})
        self.assertEqual([sum(p["points"]) for p in played], [1.0, 1.0])


class SplendorEnginesEndToEndTests(EndToEndMixin, SynchronousTestCase):
    """
    A Splendor event of engines: the protocol carries no names, so the
    runner's private listeners tell the director who sat where.
    """

    def test_splendorTable(self):
        """
        Three Splendor engines at one 3-player table: the game is played
        and scored 2, 1, 0 by placement (in some order).
        """
        server = GamehubServer(self, "--db", self.url,
                               games=("splendor",))
        eventId = int(self.cli(
            "create", "--name", "Gem cup", "--game", "splendor",
            "--format", "round-robin", "--players-per-table",
            "3").splitlines()[-1])
        for prefix in PREFIXES[:3]:
            self.cli("engine", "add", str(eventId), prefix, "--",
                     sys.executable, "-m", "hub.bots",
                     "splendor://{host}:{port}", "--count", "1",
                     "--level", "2", "--delay", "0", "--seed", "5")
        self.cli("start", str(eventId))
        server.waitForLog(r"tournament %d \('Gem cup'\) finished"
                          % (eventId,), timeout=GAME_TIMEOUT * 2)
        data = json.loads(self.cli("export", str(eventId)))
        games = [p for r in data["rounds"] for p in r["pairings"]]
        self.assertEqual(len(games), 1)
        self.assertEqual(sorted(games[0]["seats"]),
                         sorted(PREFIXES[:3]))
        self.assertEqual(sorted(games[0]["points"]), [0.0, 1.0, 2.0])
        self.assertNotIn(games[0]["result"],
                         ("engine-failed", "no-show", None))


class SwissEnginesEndToEndTests(EndToEndMixin, SynchronousTestCase):
    """
    The issue's first test: an 8-engine gomoku Swiss of 5 rounds with
    C{hub.bots} engines at levels 1 to 3.
    """

    def test_swiss(self):
        """
        No rematch, colours within one, the level-3 engines above the
        level-1 engines, and the web's standings are the CSV's.
        """
        server = GamehubServer(self, "--db", self.url,
                               games=("gomoku", "web"))
        self.webPort = server.port("web")
        eventId = int(self.cli(
            "create", "--name", "Swiss engines", "--game", "gomoku",
            "--format", "swiss", "--rounds", "5").splitlines()[-1])
        levels = {}
        for index, level in enumerate((3, 3, 2, 2, 2, 2, 1, 1)):
            prefix = "e%dl%d" % (index, level)
            levels[botName(prefix)] = level
            self.cli("engine", "add", str(eventId), botName(prefix), "--",
                     sys.executable, "-m", "hub.bots",
                     "gomoku://{host}:{port}", "--count", "1", "--name",
                     prefix, "--room", "{room}", "--level", str(level),
                     "--delay", "0", "--seed", str(index))
        self.cli("start", str(eventId))
        server.waitForLog(r"tournament %d \('Swiss engines'\) finished"
                          % (eventId,), timeout=GAME_TIMEOUT * 5)
        data = json.loads(self.cli("export", str(eventId)))
        games = [p for r in data["rounds"] for p in r["pairings"]]
        self.assertEqual(len(games), 20)
        self.assertEqual(
            {p["result"] for p in games} & {"engine-failed", "no-show"},
            set())
        pairs = [frozenset(p["seats"]) for p in games]
        self.assertEqual(len(set(pairs)), 20)
        for name in levels:
            balance = sum(1 if p["seats"][0] == name else -1
                          for p in games if name in p["seats"])
            self.assertLessEqual(abs(balance), 1)
        csv = self.cli("standings", str(eventId), "--csv").splitlines()
        points = {line.split(",")[1]: float(line.split(",")[2])
                  for line in csv[1:]}
        self.assertGreater(
            min(points[n] for n, level in levels.items() if level == 3),
            max(points[n] for n, level in levels.items() if level == 1))
        web = json.loads(self.get("/api/tournaments/%d" % (eventId,)))
        self.assertEqual([(s["rank"], s["name"], s["points"])
                          for s in web["standings"]],
                         [(int(line.split(",")[0]), line.split(",")[1],
                           float(line.split(",")[2])) for line in csv[1:]])


class TablesEndToEndTests(EndToEndMixin, SynchronousTestCase):
    """
    The issue's second test: multi-player events of engines.
    """

    def engines(self, eventId, kind, count, level=2):
        """
        Register C{count} C{hub.bots} engines of C{kind}; their names.
        """
        names = []
        for index in range(count):
            prefix = "%s%d" % (kind[:3], index)
            # Splendor's seats have no names: any entrant name will do.
            name = botName(prefix) if kind != "splendor" else prefix
            names.append(name)
            room = ["--room", "{room}"] if kind != "splendor" else []
            self.cli("engine", "add", str(eventId), name, "--",
                     sys.executable, "-m", "hub.bots",
                     "%s://{host}:{port}" % (kind,), "--count", "1",
                     "--name", prefix, *room, "--level", str(level),
                     "--delay", "0", "--seed", str(index))
        return names

    def test_checkersRoundRobin(self):
        """
        Six checkers engines in a round robin of 3-player tables: every
        group of three plays once (20 games, two tables a round), each
        scored 2, 1, 0 by placement.
        """
        server = GamehubServer(self, "--db", self.url,
                               games=("checkers",))
        eventId = int(self.cli(
            "create", "--name", "Star cup", "--game", "checkers",
            "--format", "round-robin", "--players-per-table", "3",
            "--turn-seconds", "10").splitlines()[-1])
        names = self.engines(eventId, "checkers", 6)
        self.cli("start", str(eventId))
        server.waitForLog(r"tournament %d \('Star cup'\) finished"
                          % (eventId,), timeout=GAME_TIMEOUT * 10)
        data = json.loads(self.cli("export", str(eventId)))
        games = [p for r in data["rounds"] for p in r["pairings"]]
        self.assertEqual(len(games), 20)
        self.assertEqual(len({frozenset(p["seats"]) for p in games}), 20)
        self.assertEqual({len(r["pairings"]) for r in data["rounds"]}, {2})
        for game in games:
            self.assertEqual(sorted(game["points"]), [0.0, 1.0, 2.0])
        self.assertEqual(sorted(s["name"] for s in data["standings"]),
                         sorted(names))
        self.assertEqual(sum(s["points"] for s in data["standings"]), 60.0)

    def test_splendorFour(self):
        """
        A 4-player Splendor event of four engines: one table, scored 3,
        2, 1, 0 by placement.
        """
        server = GamehubServer(self, "--db", self.url,
                               games=("splendor",))
        eventId = int(self.cli(
            "create", "--name", "Four gems", "--game", "splendor",
            "--format", "swiss", "--rounds", "1", "--players-per-table",
            "4").splitlines()[-1])
        self.engines(eventId, "splendor", 4)
        self.cli("start", str(eventId))
        server.waitForLog(r"tournament %d \('Four gems'\) finished"
                          % (eventId,), timeout=GAME_TIMEOUT * 2)
        data = json.loads(self.cli("export", str(eventId)))
        games = [p for r in data["rounds"] for p in r["pairings"]]
        self.assertEqual(len(games), 1)
        self.assertEqual(sorted(games[0]["points"]), [0.0, 1.0, 2.0, 3.0])


class MisbehavingEnginesEndToEndTests(EndToEndMixin, SynchronousTestCase):
    """
    The issue's third test: engines that crash at start, hang, or play
    only illegal moves forfeit their games, and the event ends.
    """

    def test_misbehaving(self):
        """
        A 4-engine gomoku round robin with a 3 s turn clock: the fair
        engine wins all its six games; the crashing one's games are
        forfeited at start, the hanging one loses on time, the cheating
        one by the illegal-move limit.
        """
        server = GamehubServer(self, "--db", self.url, games=("gomoku",))
        eventId = int(self.cli(
            "create", "--name", "Rogues", "--game", "gomoku", "--format",
            "round-robin", "--turn-seconds", "3").splitlines()[-1])
        bot = [sys.executable, "-m", "hub.bots", "gomoku://{host}:{port}",
               "--count", "1", "--room", "{room}", "--level", "1",
               "--seed", "1"]
        self.cli("engine", "add", str(eventId), botName("fair"), "--",
                 *bot, "--name", "fair", "--delay", "0")
        self.cli("engine", "add", str(eventId), botName("hang"), "--",
                 *bot, "--name", "hang", "--delay", "600")
        self.cli("engine", "add", str(eventId), "crash", "--",
                 sys.executable, "-c", "raise SystemExit(3)")
        # (Its own folder, shown to it read-only in its sandbox.)
        self.cli("engine", "add", str(eventId), "cheat", "--folder",
                 os.path.dirname(ILLEGAL), "--", sys.executable, ILLEGAL,
                 "{host}", "{port}", "{name}", "{room}")
        self.cli("start", str(eventId))
        server.waitForLog(r"tournament %d \('Rogues'\) finished"
                          % (eventId,), timeout=GAME_TIMEOUT * 2)
        data = json.loads(self.cli("export", str(eventId)))
        games = [p for r in data["rounds"] for p in r["pairings"]]
        self.assertEqual(len(games), 12)

        def between(a, b):
            return [p for p in games if set(p["seats"]) == {a, b}]

        fair, hang = botName("fair"), botName("hang")
        for other, reason in ((hang, "timeout"), ("crash", "engine-failed"),
                              ("cheat", "illegal")):
            for game in between(fair, other):
                self.assertEqual(game["result"], reason, game)
                self.assertEqual(game["points"][game["seats"].index(fair)],
                                 1.0, game)
        for game in games:
            if "crash" in game["seats"]:
                self.assertEqual(game["result"], "engine-failed")
        standings = data["standings"]
        self.assertEqual((standings[0]["name"], standings[0]["points"]),
                         (fair, 6.0))


class ClosedNamesEnginesEndToEndTests(EndToEndMixin, SynchronousTestCase):
    """
    Engines under C{--names closed}: the director cannot recover an
    account's play key (keys are stored hashed), so its engine runner
    mints a one-time game key for each engine of each game and fills
    C{{key}} (and C{GAMEHUB_KEY}) with it; with it, each engine proves
    its name on its game's private listener.  No key reaches a log.
    """

    def test_gameKeys(self):
        """
        A 3-engine gomoku round robin under C{--names closed}: the
        account C{Alice} (entered as C{alice}: the account's spelling is
        kept) with C{--key {key}}, the account C{bob} with C{--key-env},
        and C{robot}, no account's, with C{--key {key}}: all six games
        are played (no failed start, no no-show) and recorded under
        those names, the accounts' as no guests'; neither the hub's log
        nor the engines' logs hold a key.
        """
        from tests.accounts.test_endtoend import PASSWORD, accountsCommand
        keys = []
        for name in ("Alice", "bob"):
            out = accountsCommand(self.url, "add", name,
                                  stdin=PASSWORD + "\n")
            keys.append(out.strip().splitlines()[-1][len("key: "):])
        server = GamehubServer(self, "--db", self.url, "--names", "closed",
                               games=("gomoku",))
        eventId = int(self.cli(
            "create", "--name", "Closed cup", "--game", "gomoku",
            "--format", "round-robin").splitlines()[-1])
        # The example, as it is (a key: one bot, --count 1).
        bot = [sys.executable, "-m", "hub.bots", "gomoku://{host}:{port}",
               "--name", "{name}", "--key", "{key}", "--room", "{room}",
               "--level", "1", "--games", "1"]
        fast = ["--delay", "0", "--seed", "2"]
        self.assertIn("Alice entered", self.cli(
            "engine", "add", str(eventId), "alice", "--", *bot, *fast))
        self.cli("engine", "add", str(eventId), "bob", "--",
                 *bot[:6], "--key-env", *bot[8:], *fast)
        self.cli("engine", "add", str(eventId), "robot", "--", *bot, *fast)
        games = self.playedThrough(server, eventId, "Closed cup")
        self.assertEqual(len(games), 6)
        self.assertEqual(
            {p["result"] for p in games} & {"engine-failed", "no-show",
                                            None}, set(), games)
        self.assertEqual({n for p in games for n in p["seats"]},
                         {"Alice", "bob", "robot"})
        connection = sqlite3.connect(self.path)
        try:
            seats = set(connection.execute(
                "SELECT name, guest FROM game_seats").fetchall())
        finally:
            connection.close()
        self.assertEqual(seats, {("Alice", 0), ("bob", 0), ("robot", 1)})
        # Under the hub's data folder (its database's), nothing in its
        # working directory.
        logs = os.path.join(os.path.dirname(self.path), "engines", "logs",
                            str(eventId))
        self.assertEqual(os.listdir(server.workdir), [])

        def engineLogs():
            texts = {}
            for room in os.listdir(logs):
                for file in os.listdir(os.path.join(logs, room)):
                    with open(os.path.join(logs, room, file), "rb") as f:
                        texts[room + "/" + file] = f.read().decode()
            return texts
        # The event is over once its last game is recorded; that game's
        # engines leave, and their logs get their last line, after it.
        ended = re.compile(r"\n# .* \((by itself|stopped by the runner)\)"
                           r"\n$")
        waitUntil(lambda: all(ended.search(text)
                              for text in engineLogs().values()),
                  GAME_TIMEOUT, lambda: "engine logs not closed: {}".format(
                      engineLogs()))
        texts = dict(engineLogs(), hub="".join(server.output))
        self.assertEqual(len(texts), 1 + 12)
        keyed = re.compile(r"(#|--key )[A-Za-z0-9]{10}\b")
        for where, text in texts.items():
            self.assertIsNone(keyed.search(text), where)
            for key in keys:
                self.assertNotIn(key, text, where)
            if "/Alice" in where or "/robot" in where:
                self.assertIn("--key [key] ", text, where)
            if where != "hub":
                # Each engine saw its game to its end, winners and
                # losers alike, and left by itself: no failure logged.
                self.assertRegex(text, r"^# .* engine ", where)
                self.assertRegex(text, r"\ngame 1: gomoku room ", where)
                self.assertNotIn("failed", text, where)
                self.assertTrue(text.endswith(
                    "# exited with status 0 (by itself)\n"), where)


class PerAddressEndToEndTests(EndToEndMixin, SynchronousTestCase):
    """
    Engines connect from the hub's own machine, through private
    listeners whose connections never count toward
    C{--max-connections-per-ip}: an event runs more engines at once than
    that cap allows one address, while the public port keeps the cap for
    every other client of that address.
    """

    def metric(self, name, labels=""):
        for line in self.get("/metrics").splitlines():
            if line.startswith(name + labels + " "):
                return float(line.split()[-1])
        return 0.0

    def test_moreEnginesThanTheCap(self):
        """
        With C{--max-connections-per-ip 3}, an 8-engine Swiss round plays
        its 4 games at once (8 engine connections from 127.0.0.1; under
        the default C{--names accounts} their names, no account's, are
        proven with their game keys, C{--key-env}); while
        they play, 3 plain connections from 127.0.0.1 to the public port
        are admitted and a 4th is refused; every game is played.
        """
        from tests.endtoend import BlockingClient
        server = GamehubServer(self, "--db", self.url,
                               "--max-connections-per-ip", "3",
                               games=("gomoku", "web"))
        self.webPort = server.port("web")
        eventId = int(self.cli(
            "create", "--name", "Crowd", "--game", "gomoku", "--format",
            "swiss", "--rounds", "1").splitlines()[-1])
        for index in range(8):
            self.cli("engine", "add", str(eventId), "e%d" % (index,), "--",
                     sys.executable, "-m", "hub.bots",
                     "gomoku://{host}:{port}", "--count", "1", "--name",
                     "{name}", "--room", "{room}", "--level", "1",
                     "--delay", "0.3", "--seed", str(index), "--key-env")
        self.cli("start", str(eventId))
        running = '{game="gomoku"}'
        waitUntil(
            lambda: self.metric("gamehub_games_running", running) >= 4,
            GAME_TIMEOUT, "the 4 games never ran at once")
        self.assertGreaterEqual(
            self.metric("gamehub_sessions", running), 8)
        plain = [BlockingClient(server.port("gomoku")) for _ in range(4)]
        self.addCleanup(lambda: [c.close() for c in plain])
        self.assertTrue(plain[3].isClosedByPeer())
        for client in plain[:3]:
            client.sock.settimeout(0.5)
            self.assertFalse(client.isClosedByPeer())
        self.assertEqual(self.metric(
            "gamehub_limited_connections_total",
            '{limit="max-connections-per-ip"}'), 1.0)
        # The engines were playing all along.
        self.assertEqual(self.metric("gamehub_games_running", running), 4)
        server.waitForLog(r"tournament %d \('Crowd'\) finished"
                          % (eventId,), timeout=GAME_TIMEOUT * 3)
        data = json.loads(self.cli("export", str(eventId)))
        games = [p for r in data["rounds"] for p in r["pairings"]]
        self.assertEqual(len(games), 4)
        self.assertEqual(
            {p["result"] for p in games} & {"engine-failed", "no-show",
                                            None}, set(), games)
