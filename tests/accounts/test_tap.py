"""
C{--names} and C{--leaderboard-guests} of C{twistd gamehub}: the name
service in the tree and given to every protocol factory, or nothing at
all with C{--names open} or C{--db none}.
"""

import os
import shutil
import tempfile

from twisted.internet.testing import MemoryReactorClock
from twisted.python import usage
from twisted.trial.unittest import SynchronousTestCase

from hub import tap
from hub.accounts.check import NameService

PORTS = ["--gomoku-port", "tcp:0", "--checkers-port", "tcp:0",
         "--splendor-port", "tcp:0", "--web-port", "none",
         "--announce", "no"]


def parse(*argv):
    options = tap.Options()
    options.parseOptions(list(argv))
    return options


class NamesOptionsTests(SynchronousTestCase):
    """
    The options and the service tree.
    """

    def setUp(self):
        folder = tempfile.mkdtemp(prefix="gamehub-tap-")
        self.addCleanup(shutil.rmtree, folder, True)
        self.url = "sqlite:" + os.path.join(folder, "hub.sqlite")

    def services(self, *argv):
        top = tap.makeService(parse(*(PORTS + list(argv))),
                              MemoryReactorClock())
        self.addCleanup(top.stopService)
        top.startService()
        return {s.name: s for s in top}

    def factories(self, services):
        return [services[name].factory for name in
                ("gomoku-port", "checkers-port", "splendor-port")]

    def test_defaults(self):
        """
        C{accounts}, guests off the leaderboards.
        """
        options = parse()
        self.assertEqual(options["names"], "accounts")
        self.assertIs(options["leaderboard-guests"], False)

    def test_refusals(self):
        """
        Other values are refused.
        """
        self.assertRaises(usage.UsageError, parse, "--names", "some")
        self.assertRaises(usage.UsageError, parse, "--leaderboard-guests",
                          "maybe")
        self.assertRaises(usage.UsageError, parse, "--names", "closed",
                          "--db", "none")

    def test_accounts(self):
        """
        The name service is in the tree, with what it starts from read at
        start,
        and every factory has it; the records leave guests out.
        """
        services = self.services("--db", self.url)
        names = services["names"]
        self.assertIsInstance(names, NameService)
        self.assertEqual(names.mode, "accounts")
        self.assertTrue(names.ready())
        for factory in self.factories(services):
            self.assertIs(factory.names, names)
        self.assertIs(services["records"].records.leaderboardGuests, False)
        services = self.services("--db", self.url, "--names", "closed",
                                 "--leaderboard-guests", "yes")
        self.assertEqual(services["names"].mode, "closed")
        self.assertIs(services["records"].records.leaderboardGuests, True)

    def test_openOrNoDatabase(self):
        """
        C{--names open} and C{--db none} check no name, as before
        accounts; with C{open} the leaderboards list everyone.
        """
        for argv in (["--db", self.url, "--names", "open"],
                     ["--db", "none"]):
            services = self.services(*argv)
            self.assertNotIn("names", services)
            for factory in self.factories(services):
                self.assertIsNone(factory.names)
        services = self.services("--db", self.url, "--names", "open")
        self.assertIs(services["records"].records.leaderboardGuests, True)
