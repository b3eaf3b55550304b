"""
C{twistd -n gamehub} as an operator meets it: a bad option value or a
busy port is one line naming the option and the problem (exit status 1,
no traceback); the metrics listener answers C{/metrics} only; the
connection cap closes connections over it.
"""

import re
import shutil
import socket
import subprocess
import tempfile
import urllib.error
import urllib.request

from twisted.trial.unittest import TestCase

from tests.endtoend import TIMEOUT, GamehubServer, twistdCommand


#: What every run here leaves out unless the test names it (later options
#: win): no database file, no web port, no LAN announcement.
QUIET = ["--db", "none", "--web-port", "none", "--announce", "no"]


class ErrorTests(TestCase):
    """
    Each mistake is one line and a non-zero exit.
    """

    def gamehub(self, *args):
        """
        Run C{twistd -n gamehub} with C{args}; return its exit status and
        its output lines (stdout and stderr together).
        """
        workdir = tempfile.mkdtemp(prefix="gamehub-cli-")
        self.addCleanup(shutil.rmtree, workdir, True)
        done = subprocess.run(
            twistdCommand() + ["-n", "--pidfile=", "gamehub"] + QUIET
            + list(args),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=workdir,
            timeout=TIMEOUT)
        return done.returncode, done.stdout.decode().splitlines()

    def assertOneLine(self, args, expected, before=0):
        """
        C{args} exits non-zero with one line matching C{expected} (after
        C{before} lines of twistd's own log), and no traceback.
        """
        status, lines = self.gamehub(*args)
        self.assertNotEqual(status, 0)
        self.assertNotIn("Traceback", "\n".join(lines))
        self.assertEqual(len(lines), before + 1, lines)
        self.assertRegex(lines[-1], expected)

    def test_notAPort(self):
        self.assertOneLine(
            ["--gomoku-port", "tcp:notaport"],
            r"^gamehub: --gomoku-port 'tcp:notaport': port 'notaport' is "
            r"not a number")

    def test_portOutOfRange(self):
        self.assertOneLine(
            ["--checkers-port", "tcp:99999"],
            r"^gamehub: --checkers-port 'tcp:99999': port '99999' is not a "
            r"number from 0 to 65535$")

    def test_badMetricsPort(self):
        self.assertOneLine(
            ["--metrics-port", "foo"],
            r"^gamehub: --metrics-port 'foo': Unknown endpoint type")

    def test_nothingServed(self):
        self.assertOneLine(
            ["--gomoku-port", "none", "--checkers-port", "none",
             "--splendor-port", "none"],
            r"^gamehub: every --<game>-port is 'none': nothing would be "
            r"served$")

    def test_unknownOption(self):
        """
        An unknown option is the error alone, with where to find the
        options, instead of the whole usage before it.
        """
        self.assertOneLine(
            ["--bogus"],
            r"^gamehub: option --bogus not recognized \(twistd gamehub "
            r"--help lists the options\)$")

    def test_badValue(self):
        """
        A value that postOptions refuses is one line too.
        """
        self.assertOneLine(
            ["--db", "mysql://x"],
            r"^gamehub: --db must be .*, not 'mysql://x' \(twistd gamehub "
            r"--help lists the options\)$")

    def test_refusedValue(self):
        """
        A value an option's type refuses is one line naming the option and
        the value, not Twisted's "Parameter type enforcement failed".
        """
        self.assertOneLine(
            ["--grace-seconds", "-5"],
            r"^gamehub: --grace-seconds '-5': must not be negative "
            r"\(twistd gamehub --help lists the options\)$")
        self.assertOneLine(
            ["--checkers-turn-seconds", "soon"],
            r"^gamehub: --checkers-turn-seconds 'soon': not a whole number ")

    def test_databaseCannotOpen(self):
        """
        A SQLite file in a folder that does not exist is one line.
        """
        self.assertOneLine(
            ["--db", "sqlite:/nonexistent/dir/x.sqlite"],
            r"^gamehub: --db sqlite:/nonexistent/dir/x.sqlite: cannot open "
            r"the records database: unable to open database file$")

    def test_portInUse(self):
        """
        A port in use is found once twistd has begun logging: its two
        start lines, then the one line.
        """
        busy = socket.socket()
        self.addCleanup(busy.close)
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        desc = "tcp:{}:interface=127.0.0.1".format(busy.getsockname()[1])
        self.assertOneLine(
            ["--gomoku-port", desc, "--checkers-port", "none",
             "--splendor-port", "none"],
            r"gamehub: --gomoku-port '{}': cannot listen: .*Address already "
            r"in use".format(re.escape(desc)), before=2)


class RunningTests(TestCase):
    """
    A running hub's metrics listener and connection cap.
    """

    def test_metricsOnly(self):
        """
        --metrics-port answers /metrics, and 404 on any other path.
        """
        server = GamehubServer(
            self, "--metrics-port", "tcp:0:interface=127.0.0.1",
            games=("gomoku",))
        server.waitForLog(r"MetricsSite starting on \d+")
        port = int(re.search(r"MetricsSite starting on (\d+)",
                             "".join(server.output)).group(1))
        url = "http://127.0.0.1:{}".format(port)
        with urllib.request.urlopen(url + "/metrics", timeout=TIMEOUT) as r:
            self.assertEqual(r.status, 200)
            self.assertIn(b"gamehub_sessions", r.read())
        for path in ("/", "/other"):
            with self.assertRaises(urllib.error.HTTPError) as caught:
                urllib.request.urlopen(url + path, timeout=TIMEOUT)
            self.assertEqual(caught.exception.code, 404)

    def test_connectionCap(self):
        """
        With --max-connections 1 a second connection is closed at once;
        the refusal is logged.
        """
        server = GamehubServer(self, "--max-connections", "1",
                               games=("checkers",))
        first = socket.create_connection(
            ("127.0.0.1", server.port("checkers")), timeout=TIMEOUT)
        self.addCleanup(first.close)
        second = socket.create_connection(
            ("127.0.0.1", server.port("checkers")), timeout=TIMEOUT)
        self.addCleanup(second.close)
        self.assertEqual(second.recv(10), b"")
        server.waitForLog(r"too many connections \(--max-connections\)")


class VersionTests(TestCase):
    """
    C{twistd -n gamehub --version}.
    """

    def test_version(self):
        """
        It prints gamehub's version (the distribution's), then Twisted's,
        and exits 0.
        """
        from importlib.metadata import version
        from twisted import copyright
        done = subprocess.run(
            twistdCommand() + ["-n", "gamehub", "--version"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            cwd=tempfile.gettempdir(), timeout=TIMEOUT)
        self.assertEqual(done.returncode, 0)
        self.assertEqual(done.stdout.decode().splitlines(), [
            "gamehub version: " + version("gamehub"),
            "Twisted version: " + copyright.version])
