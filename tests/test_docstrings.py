"""
Module docstrings are short: each says the module's one job and what a
reader cannot see in its code, in at most L{MAX_LINES} lines, and points
to C{docs/} for the rest (C{docs/development.md}, "Conventions").

A docstring's length is the number of its lines from the first that
holds text to the last, blank lines between them included, as read from
the source with L{ast} (no module is imported).
"""

import ast
import os

from twisted.trial.unittest import SynchronousTestCase

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: The folders whose modules are checked, relative to the repository.
FOLDERS = ("hub", "client_pyglet")

#: The most lines a module docstring may have.
MAX_LINES = 15


def modules() -> list[str]:
    """
    The paths, relative to the repository, of every module under
    L{FOLDERS}, sorted.
    """
    found = []
    for folder in FOLDERS:
        for parent, dirs, files in os.walk(os.path.join(ROOT, folder)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in files:
                if name.endswith(".py"):
                    found.append(os.path.relpath(
                        os.path.join(parent, name), ROOT))
    return sorted(found)


def docstringLines(source: str) -> int:
    """
    How many lines the module docstring of C{source} has, from its first
    line of text to its last; 0 when it has none.
    """
    docstring = ast.get_docstring(ast.parse(source), clean=False)
    if not docstring or not docstring.strip():
        return 0
    return len(docstring.strip().splitlines())


class DocstringLengthTests(SynchronousTestCase):
    """
    No module docstring under C{hub/} and C{client_pyglet/} is longer than
    L{MAX_LINES} lines.
    """

    def test_counting(self) -> None:
        """
        The count starts at the first line of text and ends at the last,
        blank lines between included; a module without a docstring has 0.
        """
        self.assertEqual(docstringLines('"""\nOne.\n\nTwo.\n"""\n'), 3)
        self.assertEqual(docstringLines('"""One."""\n'), 1)
        self.assertEqual(docstringLines("x = 1\n"), 0)

    def test_modulesFound(self) -> None:
        """
        The walk finds the modules of both folders.
        """
        found = modules()
        self.assertIn(os.path.join("hub", "lobby.py"), found)
        self.assertIn(os.path.join("client_pyglet", "__init__.py"), found)

    def test_short(self) -> None:
        """
        Every module docstring has at most L{MAX_LINES} lines; a failure
        names each longer one and its length.
        """
        long = []
        for path in modules():
            with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                lines = docstringLines(f.read())
            if lines > MAX_LINES:
                long.append(f"{path}: {lines} lines")
        self.assertEqual(
            long, [],
            f"module docstrings longer than {MAX_LINES} lines"
            " (move the rest to docs/):\n" + "\n".join(long))
