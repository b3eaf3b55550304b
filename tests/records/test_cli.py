"""
C{python -m hub.records}: leaderboard, history, show and export, over a
database of random games.
"""

import io
import json
import random
import re
import socket
import subprocess
import sys
import tempfile

from twisted.internet import defer, reactor
from twisted.internet.task import Clock
from twisted.python import usage
from twisted.trial.unittest import TestCase

from hub.records import cli, query
from hub.records.recorder import Recorder

from tests.records import support


class CommandTests(support.SQLiteMixin, TestCase):
    """
    The commands, run in-process on a SQLite file.
    """

    @defer.inlineCallbacks
    def setUp(self):
        self.url = self.databaseURL()
        database = support.openDatabase(self, self.url)
        recorder = Recorder(database, Clock())
        rng = random.Random(3)
        for i in range(6):
            support.playRandomGame("gomoku", [recorder], rng,
                                   names=["ann", "bob"], incidents=False)
        support.playRandomGame("splendor", [recorder], rng, seatCount=3)
        support.playRandomGame("checkers", [recorder], rng,
                               names=["ann", "bob", "cy"], seatCount=3)
        yield recorder.whenIdle()
        self.ids = sorted(recorder.confirmed)
        self.records = query.Records(database)
        database.close()

    def command(self, *argv):
        options = cli.Options()
        options.parseOptions(["--db", self.url] + list(argv))
        out = io.StringIO()
        d = cli.run(reactor, options, out)
        return d.addCallback(lambda _: out.getvalue().splitlines())

    @defer.inlineCallbacks
    def test_leaderboard(self):
        """
        A header, then one line per player, best first; the minimum of
        games filters.
        """
        lines = yield self.command("leaderboard", "gomoku",
                               "--leaderboard-min-games", "1")
        self.assertEqual(lines[0].split(), ["rank", "name", "ordinal", "mu",
                                            "sigma", "games", "wins"])
        self.assertEqual(len(lines), 3)
        self.assertEqual(lines[1].split()[0], "1")
        self.assertEqual(lines[1].split()[5], "6")
        lines = yield self.command("leaderboard", "gomoku",
                               "--leaderboard-min-games", "7")
        self.assertEqual(len(lines), 1)

    @defer.inlineCallbacks
    def test_emptyLeaderboardSaysWhy(self):
        """
        A leaderboard that lists nobody says why, in one line: nobody has
        the minimum of rated games yet, or no game is rated at all.
        """
        lines = yield self.command("leaderboard", "gomoku",
                                   "--leaderboard-min-games", "7")
        self.assertEqual(lines, [
            "No player has 7 rated gomoku games yet "
            "(--leaderboard-min-games 7); 2 players have played, none "
            "more than 6 rated games."])
        lines = yield self.command("leaderboard", "splendor")
        self.assertEqual(lines,
                         ["No rated splendor game has been recorded yet."])

    @defer.inlineCallbacks
    def test_history(self):
        """
        Newest first, with the opponents and the result.
        """
        lines = yield self.command("history", "checkers", "ann")
        self.assertEqual(len(lines), 1)
        self.assertIn("vs bob, cy", lines[0])
        lines = yield self.command("history", "gomoku", "bob", "--limit", "2")
        self.assertEqual([int(line.split()[0]) for line in lines],
                         self.ids[5:3:-1])

    @defer.inlineCallbacks
    def test_show(self):
        """
        The players, outcome and every move in notation.
        """
        lines = yield self.command("show", str(self.ids[0]))
        self.assertTrue(lines[0].startswith(
            "game {}: gomoku at table".format(self.ids[0])))
        moves = [line for line in lines if line.strip()[:1].isdigit()
                 and "." in line.split()[0]]
        self.assertTrue(moves)
        self.assertRegex(moves[0], r"1\.\s+[\d.]+s\s+ann\s+[a-o]\d+$")

    @defer.inlineCallbacks
    def test_showSplendorInWords(self):
        """
        A Splendor game's moves read in words, as the web's replay says
        them: "bought a level-2 ruby card (2 points)", never "buy #63".
        """
        lines = yield self.command("show", str(self.ids[6]))
        self.assertTrue(lines[0].startswith(
            "game {}: splendor at table".format(self.ids[6])))
        moves = [line for line in lines if re.match(r"\s+\d+\.", line)]
        self.assertTrue(moves)
        text = "\n".join(moves)
        self.assertRegex(text, r"took \w+")
        self.assertRegex(text, r"bought a level-[123] \w+ card")
        self.assertNotRegex(text, r"buy #|take |reserve #")

    @defer.inlineCallbacks
    def test_export(self):
        """
        One JSON line per game, by id or by date; the fields of
        docs/records.md.
        """
        lines = yield self.command("export", str(self.ids[1]))
        self.assertEqual(len(lines), 1)
        record = json.loads(lines[0])
        self.assertEqual(record["id"], self.ids[1])
        self.assertEqual(
            sorted(record),
            sorted(["format", "id", "kind", "table", "started", "ended",
                    "startedAt", "endedAt", "reason", "winner", "ranking",
                    "rated", "seats", "position", "events"]))
        self.assertEqual(sorted(record["seats"][0]),
                         sorted(["seat", "name", "playerId", "role",
                                 "botClient", "takeover", "place", "guest",
                                 "rating"]))
        lines = yield self.command("export", "--since", "1970-01-01")
        self.assertEqual([json.loads(line)["id"] for line in lines],
                         self.ids)
        lines = yield self.command("export", "--since", "2999-01-01T00:00Z")
        self.assertEqual(lines, [])

    def test_badArguments(self):
        """
        Unknown kinds, a missing file and an export without a choice are
        usage errors.
        """
        self.assertRaises(usage.UsageError, cli.Options().parseOptions,
                          ["--db", self.url, "leaderboard", "chess"])
        self.assertRaises(usage.UsageError, cli.Options().parseOptions,
                          ["--db", "sqlite:/nonexistent/x.sqlite",
                           "leaderboard", "gomoku"])
        self.assertRaises(usage.UsageError, cli.Options().parseOptions,
                          ["--db", self.url, "export"])
        self.assertRaises(usage.UsageError, cli.Options().parseOptions,
                          ["--db", "none", "show", "1"])


def runTool(*argv):
    """
    Run C{python -m hub.records} with C{argv}: its exit status, standard
    output and standard error (text).
    """
    done = subprocess.run(
        [sys.executable, "-m", "hub.records"] + list(argv),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60,
        cwd=tempfile.gettempdir())
    return (done.returncode, done.stdout.decode(), done.stderr.decode())


def closedPort():
    """
    A loopback port on which nothing listens.
    """
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ToolTests(TestCase):
    """
    The tool as a person runs it.
    """

    def test_helpIsPlainText(self):
        """
        C{--help}, of the tool and of a command, shows no epytext markup
        (C{C{...}}, C{L{...}}).
        """
        for argv in (["--help"], ["leaderboard", "--help"],
                     ["show", "--help"]):
            status, out, err = runTool(*argv)
            self.assertEqual(status, 0, err)
            self.assertNotRegex(out, r"\b[BCILU]\{", argv)
        self.assertIn("python -m hub.records: the records, read from the "
                      "command line.", runTool("--help")[1])

    def test_postgresDown(self):
        """
        A PostgreSQL server that cannot be reached is one line naming the
        database and the error, exit status 1, no traceback.
        """
        url = "postgresql://x@127.0.0.1:{}/db".format(closedPort())
        status, out, err = runTool("--db", url, "leaderboard", "gomoku")
        self.assertEqual(status, 1)
        self.assertEqual(out, "")
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertRegex(err, r"^hub.records: --db {}: cannot reach the "
                         r"records database: .*refused".format(
                             re.escape(url)))
