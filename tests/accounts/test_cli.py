"""
C{python -m hub.accounts}: the contract scripts rely on, run as a real
process against a database the hub never opened.
"""

import os
import subprocess
import sys

from twisted.trial.unittest import TestCase

from hub.accounts import names
from hub.records import db

from tests.accounts import support

TIMEOUT = 60


class CommandLineTests(support.SQLiteMixin, TestCase):
    """
    Each command, its output and its one-line errors.
    """

    def setUp(self):
        self.url = self.databaseURL()

    def run_(self, *argv, stdin=""):
        process = subprocess.run(
            [sys.executable, "-m", "hub.accounts", "--db", self.url]
            + list(argv), input=stdin.encode(), stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, timeout=TIMEOUT,
            env=dict(os.environ, PYTHONWARNINGS="ignore"))
        return (process.returncode, process.stdout.decode(),
                process.stderr.decode())

    def assertOneLineError(self, result, *words):
        code, out, err = result
        self.assertNotEqual(code, 0)
        self.assertEqual(out, "")
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertNotIn("Traceback", err)
        for word in words:
            self.assertIn(word, err)

    def keyOf(self, out):
        last = out.strip().splitlines()[-1]
        self.assertTrue(last.startswith("key: "), out)
        key = last[len("key: "):]
        self.assertEqual(len(key), names.KEY_LENGTH)
        return key

    def test_addBeforeTheHubRan(self):
        """
        C{add} creates and migrates the database, reads the password from
        standard input, and prints the key on its last line only; the
        password and its hash are never printed.
        """
        code, out, err = self.run_("add", "alice", "--role", "admin",
                                   stdin="s3cret pass\n")
        self.assertEqual((code, err), (0, ""))
        key = self.keyOf(out)
        self.assertEqual(out.count(key), 1)
        connection = db.connect(db.parseURL(self.url))
        try:
            cursor = connection.cursor()
            cursor.execute("SELECT MAX(version) FROM schema_migrations")
            self.assertEqual(cursor.fetchone()[0], db.latestVersion())
            cursor.execute("SELECT password_hash, key_hash FROM accounts")
            hashes = cursor.fetchone()
        finally:
            connection.close()
        code, listed, _ = self.run_("list")
        code2, audit, _ = self.run_("audit")
        for text in (out, listed, audit):
            self.assertNotIn("s3cret", text)
            for secret in hashes:
                self.assertNotIn(secret, text)
        self.assertIn("alice", listed)
        self.assertIn("admin", listed)
        self.assertNotIn(key, listed + audit)

    def test_keyPasswdRole(self):
        """
        C{key} prints a new key; C{passwd} and C{role} change the account.
        """
        _, out, _ = self.run_("add", "bob", stdin="pw\n")
        first = self.keyOf(out)
        code, out, _ = self.run_("key", "BOB")
        self.assertEqual(code, 0)
        self.assertNotEqual(self.keyOf(out), first)
        code, out, _ = self.run_("passwd", "bob", stdin="other\n")
        self.assertEqual(code, 0)
        self.assertNotIn("other", out)
        self.assertEqual(self.run_("role", "bob", "moderator")[0], 0)
        _, listed, _ = self.run_("list")
        self.assertIn("moderator", listed)
        _, audit, _ = self.run_("audit")
        self.assertEqual([line.split()[2] for line in audit.splitlines()],
                         ["add", "key", "passwd", "role"])

    def test_banUnban(self):
        """
        C{ban} takes a name or a CIDR, a duration and a reason; C{unban}
        lifts it; both are listed and audited.
        """
        self.run_("add", "carl", stdin="pw\n")
        self.assertEqual(self.run_("ban", "carl", "--for", "2h", "--reason",
                                   "spam")[0], 0)
        self.assertEqual(self.run_("ban", "198.51.100.0/24", "--for", "30s",
                                   "--reason", "flood")[0], 0)
        _, listed, _ = self.run_("list")
        self.assertIn("(spam)", listed)
        self.assertIn("address 198.51.100.0/24", listed)
        self.assertEqual(self.run_("unban", "198.51.100.0/24")[0], 0)
        self.assertEqual(self.run_("unban", "carl")[0], 0)
        _, listed, _ = self.run_("list")
        self.assertNotIn("spam", listed)
        self.assertNotIn("198.51.100", listed)
        _, audit, _ = self.run_("audit")
        self.assertEqual([line.split()[2] for line in audit.splitlines()],
                         ["add", "ban", "ban", "unban", "unban"])

    def test_errors(self):
        """
        Every refusal is one line on standard error, without a traceback.
        """
        self.run_("add", "dan", stdin="pw\n")
        self.assertOneLineError(self.run_("add", "DAN", stdin="pw\n"),
                                "exists")
        self.assertOneLineError(self.run_("add", "a__b", stdin="pw\n"),
                                "'__'")
        self.assertOneLineError(self.run_("add", "eve", stdin=""),
                                "empty")
        self.assertOneLineError(self.run_("key", "nobody"), "no account")
        self.assertOneLineError(self.run_("role", "dan", "king"), "role")
        self.assertOneLineError(self.run_("ban", "dan", "--for", "2y",
                                          "--reason", "x"), "duration")
        self.assertOneLineError(self.run_("ban", "dan", "--for", "2h"),
                                "--reason")
        self.assertOneLineError(self.run_("unban", "10.0.0.0/8"), "no ban")
        result = subprocess.run(
            [sys.executable, "-m", "hub.accounts", "--db",
             "postgresql://nobody@127.0.0.1:1/none", "list"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
        self.assertOneLineError((result.returncode, result.stdout.decode(),
                                 result.stderr.decode()))
