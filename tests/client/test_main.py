"""
The client's command line (L{client_pyglet.__main__}).
"""

import contextlib
import io

from twisted.internet.task import Clock
from twisted.trial.unittest import SynchronousTestCase

from client_pyglet.__main__ import makeParser
from hub.client.session import ClientSession, Options


class ParserTests(SynchronousTestCase):
    """
    Bot levels are checked where they are given; options reach the
    session.
    """

    def parse(self, *args):
        return makeParser().parse_args(["gomoku://127.0.0.1:1"]
                                       + list(args))

    def test_levels(self):
        """
        --level and --bot take the levels of hub.bots, 1 to 3.
        """
        self.assertEqual(self.parse().level, 2)
        self.assertEqual(self.parse("--level", "3").level, 3)
        self.assertEqual(self.parse("--bot", "1").bot, 1)

    def test_unknownLevel(self):
        """
        A level hub.bots has no bot for is a usage error.
        """
        for option in ("--level", "--bot"):
            with contextlib.redirect_stderr(io.StringIO()) as err:
                self.assertRaises(SystemExit, self.parse, option, "4")
            self.assertIn("invalid choice", err.getvalue())

    def test_turnSeconds(self):
        """
        --turn-seconds (default the protocol's 15) reaches the checkers
        state, for its countdown.
        """
        self.assertEqual(self.parse().turn_seconds, 15)
        seconds = self.parse("--turn-seconds", "30").turn_seconds
        clock = Clock()
        session = ClientSession(clock, clock, Options(
            game="checkers", turnSeconds=seconds))
        self.assertEqual(session.state.turnSeconds, 30)


class WatchOptionTests(SynchronousTestCase):
    """
    --watch takes a game page's address and goes alone.
    """

    def run_main(self, *argv):
        from client_pyglet.__main__ import main
        with contextlib.redirect_stderr(io.StringIO()) as err:
            code = main(list(argv))
        return code, err.getvalue()

    def test_parsed(self):
        args = makeParser().parse_args(
            ["--watch", "http://h:8080/games/live-1"])
        self.assertEqual(args.watch, "http://h:8080/games/live-1")
        self.assertIsNone(args.url)

    def test_badAddress(self):
        """
        An address that is not a game page is a usage error (2).
        """
        code, err = self.run_main("--watch", "gomoku://h:1")
        self.assertEqual(code, 2)
        self.assertIn("not a game address", err)

    def test_alone(self):
        """
        --watch with a URL or --offline is a usage error.
        """
        for extra in (["gomoku://h:1"], ["--offline", "gomoku"]):
            code, err = self.run_main(
                "--watch", "http://h/games/1", *extra)
            self.assertEqual(code, 2)
            self.assertIn("--watch goes alone", err)
