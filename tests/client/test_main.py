"""
The client's command line (L{client_pyglet.__main__}).
"""

import contextlib
import io

from twisted.trial.unittest import SynchronousTestCase

from client_pyglet.__main__ import makeParser


class ParserTests(SynchronousTestCase):
    """
    Bot levels are checked where they are given.
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
