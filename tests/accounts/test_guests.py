"""
Guests in the records: the seat's flag stored and read back, exported,
and the leaderboards that leave guests out (query, CLI), on SQLite and
PostgreSQL.
"""

import io
import json
import random

from twisted.internet import defer, reactor
from twisted.internet.task import Clock
from twisted.trial.unittest import TestCase

from hub.records import cli, query
from hub.records.export import recordToLine
from hub.records.recorder import Recorder

from tests.records import support


class GuestRecordsTests:
    """
    Two gomoku games between the account C{ann} and the guest C{bob}.
    """

    @defer.inlineCallbacks
    def setUp(self):
        self.url = self.databaseURL()
        self.database = support.openDatabase(self, self.url)
        self.ids = yield support.recordGuestGames(self.database)

    @defer.inlineCallbacks
    def test_flagStored(self):
        """
        Each seat keeps its guest flag, in the record and its export.
        """
        records = query.Records(self.database)
        record = yield records.game(self.ids[0])
        self.assertEqual({s.name: s.guest for s in record.seats},
                         {"ann": False, "bob": True})
        seats = json.loads(recordToLine(record))["seats"]
        self.assertEqual({s["name"]: s["guest"] for s in seats},
                         {"ann": False, "bob": True})

    @defer.inlineCallbacks
    def test_leaderboard(self):
        """
        Guests are left out unless asked for.
        """
        records = query.Records(self.database, leaderboardMinGames=1,
                                leaderboardGuests=False)
        board = yield records.leaderboard("gomoku")
        self.assertEqual([s.name for s in board], ["ann"])
        board = yield records.leaderboard("gomoku", guests=True)
        self.assertEqual(sorted(s.name for s in board), ["ann", "bob"])

    @defer.inlineCallbacks
    def test_emptyOfGuestsSaysWhy(self):
        """
        A leaderboard that lists nobody because only guests played says
        so, and how to list them.
        """
        database = support.openDatabase(self, self.databaseURL())
        recorder = Recorder(database, Clock())
        support.playRandomGame("checkers", [recorder], random.Random(3),
                               names=["cy", "dee"], incidents=False,
                               guests=("cy", "dee"))
        yield recorder.whenIdle()
        records = query.Records(database, leaderboardMinGames=1,
                                leaderboardGuests=False)
        self.assertEqual((yield records.leaderboard("checkers")), [])
        reason = yield records.whyEmpty("checkers")
        self.assertEqual(
            reason, "Only guests have played rated checkers games, and the "
            "leaderboard ranks accounts (--leaderboard-guests yes ranks "
            "guests too).")
        board = yield records.leaderboard("checkers", guests=True)
        self.assertEqual(sorted(s.name for s in board), ["cy", "dee"])

    @defer.inlineCallbacks
    def test_cli(self):
        """
        C{python -m hub.records leaderboard} leaves guests out unless
        C{--leaderboard-guests yes}.
        """
        def run(*argv):
            options = cli.Options()
            options.parseOptions(["--db", self.url, "leaderboard", "gomoku",
                                  "--leaderboard-min-games", "1"]
                                 + list(argv))
            out = io.StringIO()
            return cli.run(reactor, options, out).addCallback(
                lambda _: [line.split()[1]
                           for line in out.getvalue().splitlines()[1:]])

        self.assertEqual((yield run()), ["ann"])
        self.assertEqual(sorted((yield run("--leaderboard-guests", "yes"))),
                         ["ann", "bob"])


class SQLiteGuestRecordsTests(GuestRecordsTests, support.SQLiteMixin,
                              TestCase):
    """
    On SQLite.
    """


class PostgreSQLGuestRecordsTests(GuestRecordsTests, support.PostgreSQLMixin,
                                  TestCase):
    """
    On PostgreSQL.
    """
