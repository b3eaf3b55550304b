"""
C{python -m hub.accounts token NAME} and C{invite}: the web face's
secrets made from the command line, printed once on the last line, kept
only as their hash, and audited.
"""

from twisted.internet import defer, reactor
from twisted.trial.unittest import TestCase

from hub.accounts.websessions import WebSessions, secretHash
from hub.records import db

from tests.accounts import support
from tests.accounts import test_cli


class WebCommandLineTests(support.SQLiteMixin, TestCase):
    """
    C{token} and C{invite}.
    """

    setUp = test_cli.CommandLineTests.setUp
    run_ = test_cli.CommandLineTests.run_
    assertOneLineError = test_cli.CommandLineTests.assertOneLineError

    def rows(self, sql):
        connection = db.connect(db.parseURL(self.url))
        try:
            return connection.cursor().execute(sql).fetchall()
        finally:
            connection.close()

    @defer.inlineCallbacks
    def test_token(self):
        """
        C{token NAME} prints C{token: TOKEN} on its last line; the
        database keeps only its hash; it authenticates as that account;
        the audit says so.
        """
        self.run_("add", "root", "--role", "admin", stdin="pw\n")
        code, out, err = self.run_("token", "root")
        self.assertEqual((code, err), (0, ""))
        last = out.strip().splitlines()[-1]
        self.assertTrue(last.startswith("token: "), out)
        token = last[len("token: "):]
        self.assertEqual(self.rows("SELECT token_hash FROM api_tokens"),
                         [(secretHash(token),)])
        database = db.Database(db.parseURL(self.url), reactor)
        self.addCleanup(database.close)
        sessions = WebSessions(database, reactor)
        self.addCleanup(sessions.stop)
        visitor = yield sessions.tokenVisitor(token)
        self.assertEqual((visitor.name, visitor.role), ("root", "admin"))
        code, out, _ = self.run_("audit")
        self.assertIn("token", out)
        self.assertNotIn(token, out)

    def test_tokenOfNobody(self):
        """
        A token for no account is a one-line error.
        """
        self.assertOneLineError(self.run_("token", "nobody"), "nobody")

    def test_invite(self):
        """
        C{invite} prints C{invite: CODE}; only its hash is kept.
        """
        code, out, err = self.run_("invite")
        self.assertEqual((code, err), (0, ""))
        last = out.strip().splitlines()[-1]
        self.assertTrue(last.startswith("invite: "), out)
        code = last[len("invite: "):]
        self.assertEqual(
            self.rows("SELECT code_hash, used_by FROM invites"),
            [(secretHash(code), None)])

    def test_tokensListRevoke(self):
        """
        C{token NAME --days N --label TEXT} sets the expiry and the name;
        C{tokens} lists id, account, name, made, last used and expiry
        (never the token); C{revoke-token ID} ends it, audited; a bad id
        or number of days is a one-line error.
        """
        self.run_("add", "root", "--role", "admin", stdin="pw\n")
        code, out, _ = self.run_("token", "root", "--days", "2",
                                 "--label", "deploy")
        token = out.strip().splitlines()[-1][len("token: "):]
        [(made, expires)] = self.rows(
            "SELECT created_at, expires_at FROM api_tokens")
        self.assertEqual(expires - made, 2 * 86400)
        code, listed, err = self.run_("tokens")
        self.assertEqual((code, err), (0, ""))
        tokenId = secretHash(token)[:12]
        [header, line] = listed.splitlines()
        self.assertEqual(header.split(), ["id", "name", "label", "created",
                                          "last", "used", "expires"])
        self.assertEqual(line.split()[:3], [tokenId, "root", "deploy"])
        self.assertNotIn(token, listed)
        self.assertOneLineError(self.run_("revoke-token", "nothex"), "id")
        self.assertOneLineError(self.run_("token", "root", "--days", "0"),
                                "--days")
        code, out, err = self.run_("revoke-token", tokenId)
        self.assertEqual((code, err), (0, ""))
        self.assertEqual(self.rows("SELECT * FROM api_tokens"), [])
        _, audit, _ = self.run_("audit")
        self.assertEqual([line.split()[2] for line in audit.splitlines()],
                         ["add", "token", "revoke-token"])
        self.assertNotIn(token, audit)
