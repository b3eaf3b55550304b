"""
From a record alone the rules rebuild every position: 1,000 random games
of each kind are played at real tables (L{hub.tables}), recorded by the
real L{Recorder} into a SQLite file, read back, and replayed by the
table module's own C{replay} (L{GameRecord.replay}); the final positions
and a few intermediate ones are compared.

The players are level-1 bots (checkers players mostly step forward and
Splendor players mostly buy, so that games end); now and then a seat
drops, is taken over by a bot, retires, times out, or plays illegal moves
(L{support.playRandomGame}).
"""

import collections
import random

from twisted.internet import defer
from twisted.internet.task import Clock
from twisted.trial.unittest import TestCase
from zope.interface import implementer

from hub.ihub import ITableListener
from hub.records import codec, query
from hub.records.recorder import Recorder
from hub.tables import events

from tests.records import support

GAMES = 1000
# The actions after which a game's position is kept, to compare with the
# replay of the record up to there.
PROBED_ACTIONS = (1, 7, 30, 90)


@implementer(ITableListener)
class Probe:
    """
    Keeps the position of each table's game after a few of its actions,
    with how many kept events the record holds up to there.

    @ivar positions: per table, C{(keptEvents, snapshot)} pairs.
    """

    def __init__(self):
        self.positions = collections.defaultdict(list)
        self.kept = {}
        self.actions = {}

    def tableEvent(self, table, event):
        if isinstance(event, events.GameStarted):
            self.kept[table] = self.actions[table] = 0
            return
        if codec.isKept(event):
            self.kept[table] += 1
        if isinstance(event, events.ActionPlayed):
            self.actions[table] += 1
            if self.actions[table] in PROBED_ACTIONS:
                self.positions[table].append(
                    (self.kept[table], support.snapshot(table.kind,
                                                        table.game)))


def features(record):
    """
    What else happened in C{record}'s game: C{"takeover"} (a bot took a
    seat over), C{"settled"} (a retirement settled a pending discard or
    noble choice).
    """
    found = set()
    if any(seat.takeoverPly is not None for seat in record.seats):
        found.add("takeover")
    for one, other in zip(record.events, record.events[1:]):
        if (one["type"] == "SeatEliminated"
                and other["type"] == "ActionPlayed"
                and other["seat"] == one["seat"]):
            found.add("settled")
    return found


class ReplayTests(support.SQLiteMixin, TestCase):
    """
    Play, record, read back, replay, compare.
    """

    timeout = 300

    @defer.inlineCallbacks
    def replayAll(self, kind):
        database = support.openDatabase(self, self.databaseURL())
        recorder = Recorder(database, Clock(), batchSize=100)
        records = query.Records(database)
        probe = Probe()
        rng = random.Random(kind)
        played = []
        for _ in range(GAMES):
            table = support.playRandomGame(kind, [recorder, probe], rng)
            played.append((support.snapshot(kind, table.game),
                           probe.positions.pop(table, [])))
        yield recorder.whenIdle()
        self.assertEqual((recorder.written, recorder.dropped), (GAMES, 0))
        ids = yield records.gameIdsSince(0, limit=GAMES)
        self.assertEqual(ids, sorted(recorder.confirmed))
        reasons = collections.Counter()
        for gameId, (final, probed) in zip(ids, played):
            record = yield records.game(gameId)
            reasons[record.reason] += 1
            reasons.update(features(record))
            self.assertEqual(support.snapshot(kind, record.replay()), final,
                             "game {} differs".format(gameId))
            tableEvents = record.tableEvents()
            for kept, position in probed:
                self.assertEqual(
                    support.snapshot(kind, support.replayed(
                        tableEvents[:kept + 1])), position,
                    "game {} differs after event {}".format(gameId, kept))
        return reasons

    @defer.inlineCallbacks
    def test_gomoku(self):
        """
        Gomoku games, won, forfeited, taken over and ended on the
        illegal-move limit, replay exactly.
        """
        reasons = yield self.replayAll("gomoku")
        for reason in (events.NORMAL, events.FORFEIT, events.ILLEGAL,
                       "takeover"):
            self.assertGreater(reasons[reason], 0)

    @defer.inlineCallbacks
    def test_checkers(self):
        """
        Checkers games of 2, 3 and 6 seats with timeouts, eliminations
        and takeovers replay exactly.
        """
        reasons = yield self.replayAll("checkers")
        for reason in (events.NORMAL, events.TIMEOUT, events.FORFEIT,
                       events.ABANDONED, "takeover"):
            self.assertGreater(reasons[reason], 0)

    @defer.inlineCallbacks
    def test_splendor(self):
        """
        Splendor games with retirements (their pending discards and noble
        choices settled) and takeovers replay exactly.
        """
        reasons = yield self.replayAll("splendor")
        for reason in (events.NORMAL, events.FORFEIT, "takeover",
                       "settled"):
            self.assertGreater(reasons[reason], 0)
