"""
C{--registration} of C{twistd gamehub}, and the web face's accounts in
the service tree: there with C{--names accounts} and a database, absent
with C{--names open} or C{--db none}.
"""

from twisted.python import usage
from twisted.trial.unittest import SynchronousTestCase

from hub.web.auth import WebAuth

from tests.accounts import test_tap
from tests.accounts.test_tap import parse

WEB = ["--web-port", "tcp:0:interface=127.0.0.1"]


class RegistrationOptionTests(SynchronousTestCase):
    """
    The option and the tree.
    """

    setUp = test_tap.NamesOptionsTests.setUp
    services = test_tap.NamesOptionsTests.services

    def site(self, *argv):
        return self.services(*(list(argv) + WEB))["web-port"].factory

    def test_default(self):
        """
        Registration is open by default; other values are refused.
        """
        self.assertEqual(parse()["registration"], "open")
        self.assertEqual(parse("--registration", "invite")["registration"],
                         "invite")
        self.assertRaises(usage.UsageError, parse, "--registration", "some")

    def test_withAccounts(self):
        """
        With accounts the site has a L{WebAuth} over the hub's moderation,
        registration as asked, and its logins in the metrics.
        """
        site = self.site("--db", self.url, "--registration", "invite")
        self.assertIsInstance(site.auth, WebAuth)
        self.assertEqual(site.auth.registration, "invite")
        self.assertIsNotNone(site.auth.moderation)

    def test_without(self):
        """
        C{--names open} and C{--db none}: no accounts on the web face.
        """
        self.assertIsNone(self.site("--db", self.url, "--names",
                                    "open").auth)
        self.assertIsNone(self.site("--db", "none", "--names",
                                    "open").auth)
