"""
C{python -m hub.tournaments} (L{hub.tournaments.cli}): the contract
scripts rely on.
"""

import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

from twisted.trial.unittest import SynchronousTestCase

from hub.records import db
from hub.tournaments import cli, store
from hub.tournaments.standings import Game

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


class CLITests(SynchronousTestCase):
    """
    The commands, run in this process on a fresh SQLite file.
    """

    def setUp(self):
        folder = tempfile.mkdtemp(prefix="gamehub-tournaments-")
        self.addCleanup(shutil.rmtree, folder, True)
        self.url = "sqlite:" + os.path.join(folder, "hub.sqlite")

    def run_(self, *argv):
        out = io.StringIO()
        cli.main(["--db", self.url] + list(argv), out)
        return out.getvalue()

    def fails(self, *argv):
        err = io.StringIO()
        stderr, sys.stderr = sys.stderr, err
        try:
            with self.assertRaises(SystemExit) as caught:
                self.run_(*argv)
        finally:
            sys.stderr = stderr
        return caught.exception.code, err.getvalue()

    def create(self, *extra):
        out = self.run_("create", "--name", "Spring cup", "--game",
                        "gomoku", "--format", "round-robin", *extra)
        return int(out.strip().splitlines()[-1])

    def test_createPrintsId(self):
        """
        C{create} prints the new event's id on its last line.
        """
        self.assertEqual(self.create(), 1)
        self.assertEqual(self.create(), 2)

    def test_createChecks(self):
        """
        A Swiss without rounds, an arena without minutes, a table size
        the game has not: refused, exit status 1.
        """
        code, err = self.fails("create", "--name", "x", "--game", "gomoku",
                               "--format", "swiss")
        self.assertEqual(code, 1)
        self.assertIn("--rounds", err)
        code, err = self.fails("create", "--name", "x", "--game", "gomoku",
                               "--format", "arena")
        self.assertIn("--minutes", err)
        code, err = self.fails("create", "--name", "x", "--game",
                               "checkers", "--format", "round-robin",
                               "--players-per-table", "5")
        self.assertIn("2/3/4/6", err)
        code, err = self.fails("create", "--name", "x", "--game", "chess",
                               "--format", "swiss", "--rounds", "3")
        self.assertIn("chess", err)

    def test_options(self):
        """
        Every option of C{create} is stored.
        """
        eventId = int(self.run_(
            "create", "--name", "Multi", "--game", "checkers", "--format",
            "swiss", "--rounds", "5", "--players-per-table", "3",
            "--turn-seconds", "20").splitlines()[-1])
        event = store.runBlocking(db.parseURL(self.url), store.getEvent,
                                  eventId)
        self.assertEqual((event.kind, event.format, event.rounds,
                          event.tableSize, event.turnSeconds, event.state),
                         ("checkers", "swiss", 5, 3, 20.0, "created"))

    def test_entryAndLifecycle(self):
        """
        enter, engine add, withdraw, start, pause and resume change the
        stored event; a start in the wrong state is refused.
        """
        eventId = self.create()
        self.run_("enter", "--guest", str(eventId), "ann")
        self.run_("enter", "--guest", str(eventId), "bob")
        self.run_("engine", "add", str(eventId), "bot", "--", "python",
                  "-m", "hub.bots", "gomoku://{host}:{port}", "--room",
                  "{room}")
        self.run_("withdraw", str(eventId), "bob")
        entrants = store.runBlocking(db.parseURL(self.url), store.entrants,
                                     eventId)
        self.assertEqual(
            [(e.name, e.engine and e.engine.command, e.withdrawn)
             for e in entrants],
            [("ann", None, False), ("bob", None, True),
             ("bot", ("python", "-m", "hub.bots", "gomoku://{host}:{port}",
                      "--room", "{room}"), False)])
        self.assertIn("running", self.run_("start", str(eventId)))
        self.assertIn("paused", self.run_("pause", str(eventId)))
        self.assertIn("running", self.run_("resume", str(eventId)))
        code, err = self.fails("start", str(eventId))
        self.assertEqual(code, 1)
        self.assertIn("not created", err)

    def test_entrantsAreAccounts(self):
        """
        C{enter} takes an account (under its own spelling); another name
        is refused unless entered as a guest's.
        """
        from hub.accounts.store import insertAccount
        eventId = self.create()
        store.runBlocking(db.parseURL(self.url), insertAccount, "Alice",
                          "alice", "hash", "keyhash", "player", 0.0)
        self.assertEqual(self.run_("enter", str(eventId), "ALICE"),
                         "Alice entered event 1\n")
        code, err = self.fails("enter", str(eventId), "mallory")
        self.assertEqual(code, 1)
        self.assertIn("mallory is no account", err)
        self.assertIn("as a guest",
                      self.run_("enter", "--guest", str(eventId), "mallory"))
        entrants = store.runBlocking(db.parseURL(self.url), store.entrants,
                                     eventId)
        self.assertEqual([e.name for e in entrants], ["Alice", "mallory"])

    def test_startNeedsEntrants(self):
        """
        An event with fewer entrants than a table seats cannot start.
        """
        eventId = self.create()
        self.run_("enter", "--guest", str(eventId), "ann")
        code, err = self.fails("start", str(eventId))
        self.assertIn("needs at least 2", err)

    def test_standingsCSV(self):
        """
        C{standings EVENT --csv}: a C{rank,name,points} header, then one
        line per entrant, best first (ann above cid on Buchholz).
        """
        eventId = self.create()
        for name in ("ann", "bob", "cid"):
            self.run_("enter", "--guest", str(eventId), name)
        store.runBlocking(db.parseURL(self.url), store.addPairings, eventId,
                          [Game(1, 1, ("ann", "bob"), (0.0, 1.0)),
                           Game(1, 2, ("cid", "ann"), (0.5, 0.5))], 0.0)
        self.assertEqual(
            self.run_("standings", str(eventId), "--csv"),
            "rank,name,points\n1,bob,1\n2,ann,0.5\n3,cid,0.5\n")

    def test_export(self):
        """
        C{export} prints the event as JSON, without engine commands.
        """
        eventId = self.create()
        self.run_("enter", "--guest", str(eventId), "ann")
        self.run_("engine", "add", str(eventId), "bot", "--", "secret-cmd")
        data = json.loads(self.run_("export", str(eventId)))
        self.assertEqual(data["name"], "Spring cup")
        self.assertEqual(data["entrants"][1],
                         {"name": "bot", "entry": 2, "engine": True,
                          "withdrawn": False, "guest": True,
                          "about": None})
        self.assertNotIn("secret-cmd", json.dumps(data))

    def test_usage(self):
        """
        An unknown event id or no command: a usage error (status 2).
        """
        code, _ = self.fails("start", "nope")
        self.assertEqual(code, 2)
        code, _ = self.fails()
        self.assertEqual(code, 2)
        code, err = self.fails("start", "99")
        self.assertEqual(code, 1)
        self.assertIn("no event 99", err)

    def test_module(self):
        """
        C{python -m hub.tournaments} runs the CLI.
        """
        result = subprocess.run(
            [sys.executable, "-m", "hub.tournaments", "--db", self.url,
             "create", "--name", "Cup", "--game", "gomoku", "--format",
             "swiss", "--rounds", "3"], cwd=ROOT, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.decode().splitlines()[-1], "1")
