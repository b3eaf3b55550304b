"""
The pure layers type-check: C{mypy --strict}, configured in
C{pyproject.toml}'s C{[tool.mypy]}, finds nothing in C{hub/wire},
C{hub/games}, C{hub/tables}, C{hub/ihub.py}, browser play
(C{hub/web/play}), the records, lobby, sessions, accounts, connections,
protocols, tournaments, the heap's trimmer and L{hub.withouttls}
(C{[tool.mypy]}'s C{files}).

Each test runs mypy in a subprocess with its cache in a fresh temporary
folder, so a run starts cold (a few seconds) and leaves nothing behind.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

from twisted.trial.unittest import SynchronousTestCase

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: What [tool.mypy] checks, relative to the root of the repository.
TYPED = ("hub/wire", "hub/games", "hub/tables", "hub/ihub.py",
         "hub/web/play", "hub/records", "hub/lobby.py", "hub/sessions.py",
         "hub/accounts", "hub/connection", "hub/protocols",
         "hub/tournaments", "hub/heap.py", "hub/withouttls.py")


def typedModules():
    """
    The Python files of L{TYPED}.
    """
    found = []
    for path in TYPED:
        full = os.path.join(ROOT, path)
        if path.endswith(".py"):
            found.append(full)
            continue
        for folder, _, names in os.walk(full):
            found.extend(os.path.join(folder, name) for name in names
                         if name.endswith(".py"))
    return found


class TypesTests(SynchronousTestCase):
    """
    mypy runs with the project's configuration.
    """

    def setUp(self):
        self.workdir = tempfile.mkdtemp(prefix="gamehub-types-")
        self.addCleanup(shutil.rmtree, self.workdir, True)

    def mypy(self, *arguments):
        """
        Run mypy from the root of the repository (where it reads
        C{pyproject.toml}) with a cache of its own.

        @return: its exit code and everything it wrote.
        """
        done = subprocess.run(
            [sys.executable, "-m", "mypy", "--no-color-output",
             "--cache-dir", os.path.join(self.workdir, "cache")]
            + list(arguments),
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            universal_newlines=True, timeout=300)
        return done.returncode, done.stdout

    def test_pureLayers(self):
        """
        mypy, as C{[tool.mypy]} configures it, checks every module of the
        typed layers and finds no error.
        """
        code, output = self.mypy()
        self.assertEqual((code, re.findall(r"\S+\.py:\d+: .*", output)),
                         (0, []), output)
        match = re.search(r"Success: no issues found in (\d+) source files",
                          output)
        self.assertIsNotNone(match, output)
        self.assertEqual(int(match.group(1)), len(typedModules()))

    def test_strict(self):
        """
        The configuration is strict: a function without annotations is an
        error.
        """
        path = os.path.join(self.workdir, "untyped.py")
        with open(path, "w") as f:
            f.write("def double(x):\n    return x * 2\n")
        code, output = self.mypy(path)
        self.assertEqual(code, 1, output)
        self.assertIn("[no-untyped-def]", output)

    def test_annotated(self):
        """
        At least 70% of the functions under C{hub/} are fully annotated,
        as C{tools/annotations.py} counts them (issue 37).
        """
        done = subprocess.run(
            [sys.executable, os.path.join(ROOT, "tools", "annotations.py"),
             os.path.join(ROOT, "hub"), "--at-least", "70"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            universal_newlines=True, timeout=120)
        self.assertEqual(done.returncode, 0, done.stdout)
        share = float(re.search(r"\| all \| \d+ \| \d+ \| ([\d.]+)%",
                                done.stdout).group(1))
        self.assertGreaterEqual(share, 70.0)

