"""
A feature asked for without its extra stops with one line saying what to
install (L{hub.extras}), for C{twistd gamehub --db postgresql://…},
C{--cluster}, C{python -m hub.records --db postgresql://…} and the desktop
client.  The extra's module is made unimportable in a fresh interpreter
(C{sys.modules[name] = None}) before the command runs.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from unittest.mock import patch

from twisted.trial.unittest import SynchronousTestCase

from hub import extras
from tests.endtoend import TIMEOUT

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: A password in a URL given on the command line: it must not be echoed.
SECRET = "s3cretpw"
POSTGRES_URL = "postgresql://gamehub:{}@127.0.0.1:1/gamehub".format(SECRET)

#: Runs the command sys.argv[2:] (twistd, a module's name, or -c and
#: code) with the modules named in sys.argv[1] (comma-separated) made
#: unimportable.
PRELUDE = """
import runpy, sys
for name in sys.argv[1].split(","):
    sys.modules[name] = None
command, sys.argv = sys.argv[2], sys.argv[2:]
if command == "-c":
    exec(sys.argv[1])
elif command == "twistd":
    from twisted.scripts.twistd import run
    run()
else:
    runpy.run_module(command, run_name="__main__", alter_sys=True)
"""


class RequireTests(SynchronousTestCase):
    """
    L{extras.require}.
    """

    def test_present(self):
        """
        An installed extra's module is returned.
        """
        import psycopg
        self.assertIs(extras.require("postgres", "gamehub", "x"), psycopg)

    def test_missing(self):
        """
        A missing one is a L{SystemExit} with the one line.
        """
        with patch.dict(sys.modules, {"txredisapi": None}):
            with self.assertRaises(SystemExit) as raised:
                extras.require("cluster", "gamehub", "--cluster")
        self.assertEqual(
            str(raised.exception),
            "gamehub: --cluster needs: pip install 'gamehub[cluster]'")

    def test_everyExtra(self):
        """
        The extras named here are those of C{pyproject.toml}'s feature
        extras.
        """
        import tomllib
        with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
            project = tomllib.load(f)["project"]
        declared = set(project["optional-dependencies"]) - {"test"}
        self.assertEqual(set(extras.EXTRAS), declared)


class OneLineTests(SynchronousTestCase):
    """
    Each command, without the extra its options need, prints one line and
    exits non-zero: no traceback, no usage, no password.
    """

    def runWithout(self, module, *command):
        """
        Run C{command} with C{module} unimportable, in a temporary folder;
        return its exit status and output lines.
        """
        workdir = tempfile.mkdtemp(prefix="gamehub-extras-")
        self.addCleanup(shutil.rmtree, workdir, True)
        env = dict(os.environ)
        env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
        env.setdefault("DISPLAY", ":0")
        done = subprocess.run(
            [sys.executable, "-c", PRELUDE, module] + list(command),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=workdir,
            env=env, timeout=TIMEOUT)
        return done.returncode, done.stdout.decode("utf-8").splitlines()

    def assertOneLine(self, result, expected):
        status, lines = result
        self.assertNotEqual(status, 0)
        self.assertEqual(lines, [expected])

    def test_postgres(self):
        """
        C{twistd gamehub --db postgresql://…} without psycopg.
        """
        self.assertOneLine(
            self.runWithout("psycopg", "twistd", "-n", "--pidfile=",
                            "gamehub", "--announce", "no", "--db",
                            POSTGRES_URL),
            "gamehub: --db postgresql://... needs: "
            "pip install 'gamehub[postgres]'")

    def test_recordsPostgres(self):
        """
        C{python -m hub.records --db postgresql://…} without psycopg.
        """
        self.assertOneLine(
            self.runWithout("psycopg", "hub.records", "--db", POSTGRES_URL,
                            "leaderboard", "gomoku"),
            "hub.records: --db postgresql://... needs: "
            "pip install 'gamehub[postgres]'")

    def test_cluster(self):
        """
        C{twistd gamehub --cluster} without txredisapi.
        """
        self.assertOneLine(
            self.runWithout(
                "txredisapi", "twistd", "-n", "--pidfile=", "gamehub",
                "--announce", "no", "--db", "none", "--cluster",
                "redis://:{}@127.0.0.1:1/0".format(SECRET)),
            "gamehub: --cluster needs: pip install 'gamehub[cluster]'")

    def test_client(self):
        """
        C{python -m client_pyglet} without pyglet.
        """
        self.assertOneLine(
            self.runWithout("pyglet", "client_pyglet", "--offline",
                            "gomoku"),
            "client_pyglet: the desktop client needs: "
            "pip install 'gamehub[client]'")

    def test_bareHub(self):
        """
        The default service tree (SQLite records, the web face, the LAN
        announcement) is built with none of the extras importable.
        """
        status, lines = self.runWithout(
            ",".join(extras.EXTRAS.values()), "-c", BARE_HUB)
        self.assertEqual(status, 0, lines)
        names = set(lines[-1].split())
        for name in ("gomoku-port", "checkers-port", "splendor-port",
                     "records", "web-port", "announce"):
            self.assertIn(name, names)


#: Builds twistd gamehub's default service tree on a fake reactor and
#: prints the names of its services.
BARE_HUB = """
from twisted.internet.testing import MemoryReactorClock
from hub import tap
options = tap.Options()
options.parseOptions([])
top = tap.makeService(options, MemoryReactorClock())
print(" ".join(sorted(s.name for s in top if s.name)))
"""
