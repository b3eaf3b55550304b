"""
Without accounts, in the real C{twistd -n gamehub}: C{--names open} (on a
records database) and C{--db none} run as before accounts: no login,
register, account or admin page nor any link to one, and any name plays,
a keyed form too, as the plain name it is.
"""

import shutil
import tempfile
import urllib.error
import urllib.request

from twisted.trial.unittest import SynchronousTestCase

from hub.wire import gomoku as gwire

from tests.endtoend import TIMEOUT, GamehubServer, GomokuClient

ACCOUNT_PATHS = ("/login", "/register", "/logout", "/account", "/admin",
                 "/admin/audit", "/api/admin/connections")
PAGES = ("/", "/play")


class WithoutAccountsServerTests(SynchronousTestCase):
    """
    The web face and the gomoku port of a hub without accounts.
    """

    def assertAsBefore(self, *options, pages=PAGES):
        server = GamehubServer(self, "--announce", "no", *options,
                               games=("gomoku", "web"))
        base = "http://127.0.0.1:%d" % (server.port("web"),)
        for path in pages:
            with urllib.request.urlopen(base + path,
                                        timeout=TIMEOUT) as response:
                page = response.read().decode("utf-8")
            for word in ACCOUNT_PATHS[:5]:
                self.assertNotIn('href="%s' % (word,), page, (path, word))
        for path in ACCOUNT_PATHS:
            with self.assertRaises(urllib.error.HTTPError) as raised:
                urllib.request.urlopen(base + path, timeout=TIMEOUT)
            self.assertEqual(raised.exception.code, 404, path)
        client = GomokuClient(server.port("gomoku"))
        try:
            client.send(gwire.regMessage("alice#0000000000",
                                         client.nextSession(),
                                         gwire.INVALID_TOKEN))
            self.assertEqual(client.receive()["status"], gwire.S_OK)
        finally:
            client.close()
        server.waitForLog(r"'alice#0000000000'")

    def test_namesOpen(self):
        """
        C{--names open} on a records database.
        """
        folder = tempfile.mkdtemp(prefix="gamehub-open-")
        self.addCleanup(shutil.rmtree, folder, True)
        self.assertAsBefore("--names", "open", "--db",
                            "sqlite:" + folder + "/hub.sqlite",
                            pages=PAGES + ("/leaderboard/gomoku",))

    def test_noDatabase(self):
        """
        C{--db none}, with the default C{--names accounts} (no records:
        no leaderboard either).
        """
        self.assertAsBefore("--db", "none")
