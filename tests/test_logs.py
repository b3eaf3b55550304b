"""
What the hub logs at info, in every protocol: no line per move, at most
one per game, lines about connections and rooms summarised under a flood,
and every player string escaped; the JSON format and its log file.
"""

import json
import os
import random
import shutil
import signal
import tempfile

from twisted.application.service import Application
from twisted.internet.testing import MemoryReactorClock
from twisted.logger import (
    ILogObserver, LogLevel, formatEvent, globalLogPublisher)
from twisted.scripts.twistd import ServerOptions
from twisted.trial.unittest import SynchronousTestCase

from hub import tap
from hub.limits import LOG_BURST, LOG_INTERVAL
from hub.logs import CHATTY, isChatty, jsonLine, levelFilter
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


class JSONLogTests(SynchronousTestCase):
    """
    C{--log-format json}: one event per line, through
    L{twisted.logger.eventAsJSON}, with the fields a log shipper indexes.
    """

    def setUp(self):
        self.capture = LogCapture(self)

    def jsonEvents(self):
        events, self.capture.events[:] = list(self.capture.events), []
        lines = [jsonLine(e) for e in events]
        for line in lines:
            self.assertTrue(line.endswith("\n"))
            self.assertEqual(line.count("\n"), 1)
        return [json.loads(line) for line in lines]

    def test_joinAndGameEnd(self):
        """
        A checkers join and the game's end carry game, room, player and
        event; the forged room id stays on one line, escaped in C{text}
        and whole in C{room}.
        """
        server = CheckersServer()
        forged = "r\nFAKE"
        a, b = server.connect(), server.connect()
        a.join(forged, "ann")
        b.join(forged, "bob")
        a.ready()
        b.ready()
        a.disconnect()
        b.disconnect()
        events = self.jsonEvents()
        [join] = [e for e in events if e.get("event") == "join"
                  and e.get("player") == "ann"]
        self.assertEqual(join["game"], "checkers")
        self.assertEqual(join["room"], forged)
        self.assertEqual(join["level"], "info")
        self.assertEqual(join["text"],
                         "'ann' joined checkers room 'r\\nFAKE'")
        self.assertIn("T", join["time"])
        ends = [e for e in events if e.get("event") in ("over", "abandoned")]
        self.assertEqual([(e["game"], e["room"]) for e in ends],
                         [("checkers", forged)])

    def test_registeredAndLost(self):
        """
        A gomoku registration and a player's drop carry the player.
        """
        hub = GomokuHarness()
        black, white, _, _ = hub.playing()
        black.drop()
        events = self.jsonEvents()
        [register] = [e for e in events if e.get("event") == "register"
                      and e["player"] == "alice"]
        self.assertEqual(register["game"], "gomoku")
        lost = [e for e in events if e.get("event") == "lost"]
        self.assertEqual([(e["game"], e["player"]) for e in lost],
                         [("gomoku", black.protocol.session.name)])

    def test_recorded(self):
        """
        A game recorded carries its game, room (table), players and id.
        """
        from hub.records.recorder import Recorder
        line = jsonLine({
            "log_level": LogLevel.info, "log_namespace": "t",
            "log_time": 0.0, "log_logger": Recorder.log,
            "log_format": "recorded {kind} game {gameId} of table {table!r}",
            "kind": "splendor", "gameId": 7, "table": "table-1",
            "players": ["a", "b"], "event": "recorded"})
        event = json.loads(line)
        self.assertEqual((event["game"], event["room"], event["gameId"],
                          event["players"], event["event"]),
                         ("splendor", "table-1", 7, ["a", "b"], "recorded"))
        self.assertEqual(event["time"], "1970-01-01T00:00:00+00:00")
        self.assertEqual(event["text"],
                         "recorded splendor game 7 of table 'table-1'")

    def test_otherKinds(self):
        """
        A C{kind} that names no game (a summary's) and a C{name} outside a
        game (the LAN announcement's) are not taken for a game or a
        player; values JSON cannot write are written as text.
        """
        event = json.loads(jsonLine({
            "log_level": LogLevel.info, "log_time": 0.0,
            "log_format": "{count} more {kind}", "count": 3,
            "kind": "players joined gomoku rooms", "name": "host",
            "peer": object(), "event": "summary"}))
        self.assertNotIn("game", event)
        self.assertNotIn("player", event)
        self.assertIn("object", event["peer"])

    def test_failure(self):
        """
        A failure's event carries its traceback.
        """
        from twisted.python.failure import Failure
        try:
            1 / 0
        except ZeroDivisionError:
            failure = Failure()
        event = json.loads(jsonLine({
            "log_level": LogLevel.critical, "log_time": 0.0,
            "log_format": "broken", "log_failure": failure}))
        self.assertIn("ZeroDivisionError", event["traceback"])
        self.assertEqual(event["level"], "critical")


class ChatterTests(SynchronousTestCase):
    """
    The hub's log filter (L{levelFilter}) counts the info lines of the
    bot pool's libraries (L{CHATTY}: ampoule, AMP) as debug.
    """

    def filtered(self, level, *events):
        seen = []
        observer = levelFilter(seen.append, level)
        for event in events:
            observer(event)
        return [(e["log_namespace"], e["log_level"]) for e in seen]

    def event(self, namespace, level=LogLevel.info):
        return {"log_namespace": namespace, "log_level": level,
                "log_format": "x", "log_time": 0.0}

    def test_info(self):
        """
        At C{--log-level info}, ampoule's and AMP's info lines are
        dropped, their warnings kept, and the hub's info lines kept.
        """
        self.assertEqual(self.filtered(
            LogLevel.info, self.event("ampoule.main"),
            self.event("twisted.protocols.amp"),
            self.event("ampoule.pool", LogLevel.warn),
            self.event("ampoulette"),
            self.event("hub.thinkers.pool.BotPool")), [
                ("ampoule.pool", LogLevel.warn),
                ("ampoulette", LogLevel.info),
                ("hub.thinkers.pool.BotPool", LogLevel.info)])

    def test_debug(self):
        """
        At C{--log-level debug} they are written, as debug; the event
        other observers see is unchanged.
        """
        event = self.event("ampoule.main")
        self.assertEqual(self.filtered(LogLevel.debug, event),
                         [("ampoule.main", LogLevel.debug)])
        self.assertEqual(event["log_level"], LogLevel.info)
        self.assertTrue(isChatty("ampoule"))
        self.assertIn("ampoule", CHATTY)


class FromThreadsReactor(MemoryReactorClock):
    """
    A memory reactor that keeps what is handed to its thread.

    @ivar fromThreads: the C{(f, args, kwargs)} of each C{callFromThread}.
    """

    def __init__(self):
        MemoryReactorClock.__init__(self)
        self.fromThreads = []

    def callFromThread(self, f, *args, **kwargs):
        self.fromThreads.append((f, args, kwargs))


class JSONLogFileTests(SynchronousTestCase):
    """
    C{twistd -n --logfile PATH gamehub --log-format json}: the JSON lines
    go to PATH, rotated as twistd's own log is (at 1 MB, and on
    C{SIGUSR1}).
    """

    def setUp(self):
        handler = signal.getsignal(signal.SIGUSR1)
        self.addCleanup(signal.signal, signal.SIGUSR1, handler)
        signal.signal(signal.SIGUSR1, signal.SIG_DFL)
        workdir = tempfile.mkdtemp(prefix="gamehub-log-")
        self.addCleanup(shutil.rmtree, workdir, True)
        self.path = os.path.join(workdir, "gamehub.log")

    def observer(self, *argv):
        config = ServerOptions()
        config.parseOptions(["-n", "--pidfile=", "--logfile", self.path,
                             "gamehub", "--db", "none"] + list(argv))
        self.reactor = FromThreadsReactor()
        top = tap.makeService(config.subOptions, self.reactor)
        application = Application("gamehub")
        top.setServiceParent(application)
        return application.getComponent(ILogObserver)

    def emit(self, observer, text, **fields):
        observer(dict(fields, log_level=LogLevel.info, log_format=text,
                      log_namespace="test", log_time=0.0))

    def lines(self, path):
        with open(path) as f:
            return [json.loads(line) for line in f]

    def test_logfile(self):
        """
        Events above --log-level are written to --logfile as JSON lines;
        SIGUSR1 rotates the file.
        """
        observer = self.observer("--log-format", "json",
                                 "--log-level", "info")
        self.emit(observer, "{player!r} joined", player="a\nb",
                  kind="gomoku", room="r", event="join")
        observer({"log_level": LogLevel.debug, "log_format": "chatty",
                  "log_time": 0.0})
        [event] = self.lines(self.path)
        self.assertEqual((event["player"], event["game"], event["event"]),
                         ("a\nb", "gomoku", "join"))
        self.assertEqual(event["text"], "'a\\nb' joined")
        os.kill(os.getpid(), signal.SIGUSR1)
        # os.kill runs the handler before it returns; the handler hands
        # the rotation to the hub's reactor's thread.
        self.assertFalse(os.path.exists(self.path + ".1"))
        [(rotate, args, kwargs)] = self.reactor.fromThreads
        rotate(*args, **kwargs)
        self.assertTrue(os.path.exists(self.path + ".1"))
        self.emit(observer, "after rotation")
        [event] = self.lines(self.path)
        self.assertEqual(event["text"], "after rotation")
        self.assertEqual(len(self.lines(self.path + ".1")), 1)

    def test_rotatedAtOneMegabyte(self):
        """
        The JSON log file is rotated at 1 MB, as twistd's text log.
        """
        observer = self.observer("--log-format", "json")
        padding = "x" * 1000
        for n in range(1100):
            self.emit(observer, "line {n} {padding}", n=n, padding=padding)
        rotated = []
        while os.path.exists("{}.{}".format(self.path, len(rotated) + 1)):
            rotated.append("{}.{}".format(self.path, len(rotated) + 1))
        self.assertTrue(rotated)
        for path in rotated:
            self.assertLessEqual(os.path.getsize(path), 1000000 + 5000)
            self.assertGreaterEqual(os.path.getsize(path), 1000000)
        lines = []
        for path in reversed(rotated):
            lines += self.lines(path)
        lines += self.lines(self.path)
        self.assertEqual([e["n"] for e in lines], list(range(1100)))

    def test_text(self):
        """
        The default, text, writes twistd's lines to --logfile.
        """
        observer = self.observer()
        self.emit(observer, "{player!r} joined", player="a\nb")
        with open(self.path) as f:
            written = f.read()
        self.assertIn("'a\\nb' joined", written)
        self.assertNotIn("{", written)

    def test_syslog(self):
        """
        --log-format json with --syslog is refused with one line.
        """
        config = ServerOptions()
        config.parseOptions(["-n", "--pidfile=", "--syslog", "gamehub",
                             "--db", "none", "--log-format", "json"])
        with self.assertRaises(SystemExit) as caught:
            tap.makeService(config.subOptions, MemoryReactorClock())
        self.assertIn("--syslog", str(caught.exception))

    def test_badFormat(self):
        """
        A --log-format other than text or json is a usage error.
        """
        from twisted.python import usage
        with self.assertRaises(usage.UsageError):
            tap.Options().parseOptions(["--log-format", "xml"])
