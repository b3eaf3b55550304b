"""
From a record alone the rules rebuild every position: 1,000 random games
of each kind are recorded, read back from the database and replayed, and
the final positions compared.

Until the tables' own C{replay} functions land, games are played at a
fake table (L{support.playRandomGame}) and replayed with the reference
replay of the tests; L{GameRecord.replay} hands the same events to
C{hub.tables.<kind>.replay}.
"""

import random

from twisted.internet import defer
from twisted.internet.task import Clock
from twisted.trial.unittest import TestCase

from hub.records import query
from hub.records.recorder import Recorder

from tests.records import support

GAMES = 1000


class ReplayTests(support.SQLiteMixin, TestCase):
    """
    Record, read back, replay, compare.
    """

    timeout = 900

    @defer.inlineCallbacks
    def replayAll(self, kind):
        database = support.openDatabase(self, self.databaseURL())
        recorder = Recorder(database, Clock(), batchSize=100)
        records = query.Records(database)
        rng = random.Random(kind)
        finals = []
        for _ in range(GAMES):
            table = support.playRandomGame(kind, [recorder], rng)
            finals.append(support.snapshot(kind, table.game))
        yield recorder.whenIdle()
        self.assertEqual(recorder.written, GAMES)
        ids = yield records.gameIdsSince(0, limit=GAMES)
        self.assertEqual(len(ids), GAMES)
        for gameId, final in zip(ids, finals):
            record = yield records.game(gameId)
            replayed = support.referenceReplay(record.tableEvents())
            self.assertEqual(support.snapshot(kind, replayed), final,
                             "game {} differs".format(gameId))

    def test_gomoku(self):
        return self.replayAll("gomoku")

    def test_checkers(self):
        return self.replayAll("checkers")

    def test_splendor(self):
        return self.replayAll("splendor")
