"""
Tests for L{hub.wire.gomocup}: every command the hub sends, byte for
byte as the Gomocup protocol's text writes it, and the brain's lines.
"""

from twisted.trial.unittest import SynchronousTestCase

from hub.wire import gomocup


class CommandTests(SynchronousTestCase):
    """
    Each command the manager sends, as the protocol's text spells it
    ("START [size]", "INFO [key] [value]", "BEGIN", "TURN [X],[Y]",
    "BOARD" ... "DONE", "RESTART", "ABOUT", "END").
    """

    def test_start(self):
        """
        C{START 15}: the hub's board size.
        """
        self.assertEqual(gomocup.start(), b"START 15\n")
        self.assertEqual(gomocup.start(20), b"START 20\n")

    def test_info(self):
        """
        C{INFO key value}, one line; a key that is not one, or a value
        that breaks the line, is refused.
        """
        self.assertEqual(gomocup.info("timeout_turn", 5000),
                         b"INFO timeout_turn 5000\n")
        self.assertEqual(gomocup.info("folder", "/tmp/x"),
                         b"INFO folder /tmp/x\n")
        self.assertRaises(ValueError, gomocup.info, "bad key", 1)
        self.assertRaises(ValueError, gomocup.info, "folder", "a\nTURN 1,1")

    def test_infosAtTheStart(self):
        """
        The INFO lines of a game: the limits only when there are some,
        then max_memory, game_type 1 (a brain opponent), rule 0
        (freestyle) and folder.
        """
        self.assertEqual(
            gomocup.infos(5000, 180000, 170000, 83886080, "/w"),
            b"INFO timeout_turn 5000\nINFO timeout_match 180000\n"
            b"INFO time_left 170000\nINFO max_memory 83886080\n"
            b"INFO game_type 1\nINFO rule 0\nINFO folder /w\n")
        self.assertEqual(
            gomocup.infos(None, None, None, 0, "/w"),
            b"INFO max_memory 0\nINFO game_type 1\nINFO rule 0\n"
            b"INFO folder /w\n")

    def test_begin(self):
        self.assertEqual(gomocup.begin(), b"BEGIN\n")

    def test_turn(self):
        """
        C{TURN x,y}: the opponent's move, zero-based.
        """
        self.assertEqual(gomocup.turn(7, 0), b"TURN 7,0\n")

    def test_board(self):
        """
        C{BOARD}, C{x,y,field} in the order played (1 the stones of the
        brain to move, 2 its opponent's), C{DONE}.
        """
        moves = [(7, 7), (8, 8), (6, 6)]
        self.assertEqual(
            gomocup.board(moves, toMove=1),
            b"BOARD\n7,7,2\n8,8,1\n6,6,2\nDONE\n")
        self.assertEqual(
            gomocup.board(moves[:2], toMove=0),
            b"BOARD\n7,7,1\n8,8,2\nDONE\n")
        self.assertEqual(gomocup.board([], 0), b"BOARD\nDONE\n")

    def test_restartAboutEnd(self):
        self.assertEqual(gomocup.restart(), b"RESTART\n")
        self.assertEqual(gomocup.about(), b"ABOUT\n")
        self.assertEqual(gomocup.end(), b"END\n")


class ReplyTests(SynchronousTestCase):
    """
    What a brain answers.
    """

    def test_ok(self):
        self.assertEqual(gomocup.parse("OK"), gomocup.Reply(gomocup.OK))
        self.assertEqual(gomocup.parse(" ok "), gomocup.Reply(gomocup.OK))

    def test_move(self):
        """
        C{x,y} is a move, spaces allowed around its parts.
        """
        self.assertEqual(gomocup.parse("7,8").move, (7, 8))
        self.assertEqual(gomocup.parse(" 10 , 3 ").move, (10, 3))
        self.assertEqual(gomocup.parse("-1,3").move, (-1, 3))
        self.assertFalse(gomocup.moveOnBoard((-1, 3)))
        self.assertFalse(gomocup.moveOnBoard((15, 3)))
        self.assertTrue(gomocup.moveOnBoard((14, 0)))

    def test_keywords(self):
        """
        MESSAGE, DEBUG, UNKNOWN, ERROR and SUGGEST lines, whatever the
        command waited for.
        """
        for line, kind, text in [
                ("MESSAGE depth 5", gomocup.MESSAGE, "depth 5"),
                ("DEBUG eval=3", gomocup.DEBUG, "eval=3"),
                ("UNKNOWN what", gomocup.UNKNOWN, "what"),
                ("ERROR out of memory", gomocup.ERROR, "out of memory")]:
            reply = gomocup.parse(line, askedAbout=True)
            self.assertEqual((reply.kind, reply.text), (kind, text))
        self.assertEqual(gomocup.parse("SUGGEST 3,4").move, (3, 4))

    def test_other(self):
        """
        Anything else is L{gomocup.OTHER} (an unparsable move).
        """
        self.assertEqual(gomocup.parse("h8").kind, gomocup.OTHER)
        self.assertEqual(gomocup.parse("7,7,1").kind, gomocup.OTHER)

    def test_about(self):
        """
        When ABOUT was asked, a plain line is its answer, with its
        C{key="value"} pairs.
        """
        line = ('name="Pela", version="9.0", author="Petr Lastovicka", '
                'country="Czech Republic"')
        reply = gomocup.parse(line, askedAbout=True)
        self.assertEqual(reply.kind, gomocup.ABOUT)
        self.assertEqual(gomocup.parseAbout(reply.text), {
            "name": "Pela", "version": "9.0",
            "author": "Petr Lastovicka", "country": "Czech Republic"})
        self.assertEqual(gomocup.parseAbout("Just a name"),
                         {"name": "Just a name"})
        self.assertEqual(gomocup.parseAbout(""), {})

    def test_escape(self):
        """
        A line for a log: control characters escaped, bounded.
        """
        self.assertEqual(gomocup.escape("a\x1b[2Jb\\"), "a\\x1b[2Jb\\\\")
        self.assertEqual(gomocup.escape("x" * 600, 10), "x" * 10 + "...")


class LineSplitterTests(SynchronousTestCase):
    """
    L{gomocup.LineSplitter}: LF or CRLF, split writes, bounded lines.
    """

    def test_lfAndCrlf(self):
        splitter = gomocup.LineSplitter()
        self.assertEqual(splitter.feed(b"OK\r\n7,7\nMESS"), ["OK", "7,7"])
        self.assertEqual(splitter.feed(b"AGE hi\r"), [])
        self.assertEqual(splitter.feed(b"\n"), ["MESSAGE hi"])

    def test_overlong(self):
        """
        A line past the cap is cut to the cap; the rest until its end is
        dropped and counted; the next line is whole.
        """
        splitter = gomocup.LineSplitter(maxLine=10)
        self.assertEqual(splitter.feed(b"D" * 25), ["D" * 10])
        self.assertEqual(splitter.feed(b"D" * 5 + b"\n3,3\n"), ["3,3"])
        self.assertEqual(splitter.dropped, 20)
        self.assertEqual(splitter.feed(b"E" * 15 + b"\n"), ["E" * 10])
        self.assertEqual(splitter.dropped, 25)

    def test_badBytes(self):
        self.assertEqual(gomocup.LineSplitter().feed(b"\xff1,2\n"),
                         ["\ufffd1,2"])


class MatchClockTests(SynchronousTestCase):
    """
    L{gomocup.MatchClock}: a turn limit, a match bank, the tolerance.
    """

    def test_noLimits(self):
        clock = gomocup.MatchClock(None, None)
        self.assertFalse(clock.limited)
        self.assertIsNone(clock.deadlineMs())
        self.assertFalse(clock.charge(10 ** 9))

    def test_turnLimit(self):
        """
        A turn lasting its limit plus the tolerance is in time; one more
        millisecond is lost on time.
        """
        clock = gomocup.MatchClock(1000, None, toleranceMs=250)
        self.assertEqual(clock.deadlineMs(), 1250)
        self.assertFalse(clock.charge(1250))
        self.assertTrue(clock.charge(1251))

    def test_matchBank(self):
        """
        Every turn comes out of the bank; a turn may not last longer
        than what is left.
        """
        clock = gomocup.MatchClock(5000, 6000, toleranceMs=100)
        self.assertEqual(clock.allowanceMs(), 5000)
        self.assertFalse(clock.charge(4000))
        self.assertEqual(clock.leftMs, 2000)
        self.assertEqual(clock.allowanceMs(), 2000)
        self.assertTrue(clock.charge(2101))
        self.assertEqual(clock.leftMs, 0)


class OpeningTests(SynchronousTestCase):
    """
    L{gomocup.parseOpenings}: the hub's notation, one opening a line.
    """

    def test_parse(self):
        self.assertEqual(
            gomocup.parseOpenings(["# three stones", "h8 i9, g7", "",
                                   "a15 o1  # corners"]),
            [[(7, 7), (8, 6), (6, 8)], [(0, 0), (14, 14)]])

    def test_bad(self):
        self.assertRaisesRegex(ValueError, "line 2", gomocup.parseOpenings,
                               ["h8", "z9"])
        self.assertRaisesRegex(ValueError, "twice", gomocup.parseOpenings,
                               ["h8 h8"])
