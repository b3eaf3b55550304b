"""
What the hub logs at info, in every protocol: no line per move, at most
one per game, lines about connections and rooms summarised under a flood,
and every player string escaped.
"""

import random

from twisted.logger import LogLevel, formatEvent, globalLogPublisher
from twisted.trial.unittest import SynchronousTestCase

from hub.limits import LOG_BURST, LOG_INTERVAL
from hub.wire import checkers as checkersWire
from tests.checkers.support import Server as CheckersServer
from tests.gomoku.support import GomokuHarness
from tests.splendor.support import Harness as SplendorHarness
from tests.splendor.test_protocol import current


class LogCapture:
    """
    The events of the global log publisher while a test runs.
    """

    def __init__(self, testCase):
        self.events = []
        globalLogPublisher.addObserver(self.events.append)
        testCase.addCleanup(globalLogPublisher.removeObserver,
                            self.events.append)

    def infoLines(self):
        """
        The lines at info level or above so far, formatted, and forget
        them.
        """
        events, self.events[:] = list(self.events), []
        return [formatEvent(e) for e in events
                if e.get("log_level", LogLevel.info) >= LogLevel.info]

    def allLines(self):
        """
        Every line so far, formatted, and forget them.
        """
        events, self.events[:] = list(self.events), []
        return [formatEvent(e) for e in events]


class PerMoveTests(SynchronousTestCase):
    """
    Moves write nothing at info in any protocol; a game at most one line.
    """

    def setUp(self):
        self.capture = LogCapture(self)

    def test_gomoku(self):
        """
        A whole gomoku game, from start to win, writes no line at info.
        """
        hub = GomokuHarness()
        black, white, owner, guest = hub.playing()
        self.capture.infoLines()
        for x in range(5):
            black.move(x, 0)
            if x < 4:
                white.move(x, 1)
        self.assertIn(b'"state":3', black.raw())
        self.assertEqual(self.capture.infoLines(), [])

    def test_checkers(self):
        """
        Forty checkers moves write no line at info.
        """
        server = CheckersServer()
        clients = server.startGame(["alice", "bob"])
        table = server.table("r1")
        self.capture.infoLines()
        for _ in range(40):
            seat = table.game.currentSeat
            path = table.game.legalActions(seat)[0]
            clients[seat].move(table.game.regions[seat],
                               checkersWire.formatPath(path))
        self.assertTrue(server.room("r1").running)
        self.assertEqual(self.capture.infoLines(), [])

    def test_splendor(self):
        """
        Forty Splendor actions write no line at info.
        """
        h = SplendorHarness()
        conns = h.table(2)
        rng = random.Random(1)
        self.capture.infoLines()
        for _ in range(40):
            actor, game = current(h, conns)
            actor.act(rng.choice(game.legalActions(game.currentSeat)))
            for c in conns:
                c.pump()
        self.assertEqual(self.capture.infoLines(), [])


class FloodTests(SynchronousTestCase):
    """
    Lines about joins and connections are summarised under a flood.
    """

    def setUp(self):
        self.capture = LogCapture(self)

    def test_joinLeavePairs(self):
        """
        2,000 checkers JOIN+LEAVE pairs within one interval write the
        first L{LOG_BURST} joins, then one line counting the rest.
        """
        server = CheckersServer()
        client = server.connect()
        for _ in range(2000):
            client.join("r", "p")
            client.leave("r", "p")
        lines = self.capture.infoLines()
        self.assertEqual(lines, ["'p' joined checkers room 'r'"] * LOG_BURST)
        server.clock.advance(LOG_INTERVAL)
        self.assertEqual(self.capture.infoLines(), [
            "{} more players joined checkers rooms in the last 10s".format(
                2000 - LOG_BURST)])
        self.assertEqual(server.pendingCalls(), [])
        client.join("r", "p")
        self.assertEqual(self.capture.infoLines(),
                         ["'p' joined checkers room 'r'"])

    def test_registrations(self):
        """
        A flood of gomoku registrations is summarised the same way.
        """
        hub = GomokuHarness()
        for n in range(500):
            hub.connect().register("p%d" % (n,))
        lines = self.capture.infoLines()
        self.assertEqual(len(lines), LOG_BURST)
        hub.clock.advance(LOG_INTERVAL)
        self.assertEqual(self.capture.infoLines(), [
            "{} more gomoku players registered in the last 10s".format(
                500 - LOG_BURST)])

    def test_closingSummarised(self):
        """
        Connections closed for too long a line are summarised too.
        """
        server = CheckersServer()
        for _ in range(100):
            server.connect().sendRaw(
                b"x" * (checkersWire.MAX_LINE_LENGTH + 10))
        self.assertEqual(len(self.capture.infoLines()), 1)
        server.clock.advance(LOG_INTERVAL)
        self.assertEqual(self.capture.infoLines(), [
            "99 more checkers connections sent too long a line in the "
            "last 10s"])

    def test_flushedOnStop(self):
        """
        Stopping the hub writes the summaries under way.
        """
        server = CheckersServer()
        client = server.connect()
        for _ in range(LOG_BURST + 5):
            client.join("r", "p")
            client.leave("r", "p")
        self.capture.infoLines()
        server.stop()
        self.assertIn("5 more players joined checkers rooms in the last 10s",
                      self.capture.infoLines())


class ForgedLineTests(SynchronousTestCase):
    """
    A checkers room id or name with control characters stays one escaped
    log line, at every level.
    """

    def test_checkersRoom(self):
        """
        Joins, a game started and ended, a leave and a drop: every line
        carrying the room id has it escaped.
        """
        capture = LogCapture(self)
        server = CheckersServer()
        forged = "r\nFAKE [admin] pw\x1b[2J\x07"
        a, b = server.connect(), server.connect()
        a.join(forged, "a")
        b.join(forged, "b")
        a.ready()
        b.ready()
        a.leave()
        b.disconnect()
        lines = capture.allLines()
        self.assertTrue([line for line in lines if "FAKE" in line])
        for line in lines:
            self.assertNotIn("\n", line)
            self.assertNotIn("\x1b", line)
            self.assertNotIn("\x07", line)
