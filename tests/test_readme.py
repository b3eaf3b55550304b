"""
The README's set-up and test commands are the ones CI runs.
"""

import os
import re

from twisted.trial.unittest import SynchronousTestCase

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read(*path):
    with open(os.path.join(TOP, *path), encoding="utf-8") as f:
        return f.read()


class ReadmeTests(SynchronousTestCase):
    """
    README.md and .ci/run agree.
    """

    def test_ciRunsTheReadmeTestCommand(self):
        """
        The last command of .ci/run is the README's test command.
        """
        readme = read("README.md")
        blocks = re.findall(r"```sh\n(.*?)```", readme, re.S)
        testCommand = blocks[1].strip()
        ciLines = [line for line in read(".ci", "run").splitlines()
                   if line.strip() and not line.startswith("#")]
        self.assertEqual(ciLines[-1].strip(), testCommand)

    def test_setUpCommands(self):
        """
        The set-up block installs the extras and starts the server.
        """
        blocks = re.findall(r"```sh\n(.*?)```", read("README.md"), re.S)
        self.assertEqual(blocks[0].split("\n")[:2],
                         ['pip install -e ".[client,test]"',
                          "twistd -n gamehub"])


class SelfContainedTests(SynchronousTestCase):
    """
    The documents stand on their own.
    """

    def test_noPathsOutside(self):
        """
        Neither README.md nor docs/ points outside the repository.
        """
        for folder, _, files in os.walk(os.path.join(TOP, "docs")):
            for name in files:
                if name.endswith(".md"):
                    text = read(os.path.relpath(
                        os.path.join(folder, name), TOP))
                    self.assertNotIn("../shared", text, name)
        self.assertNotIn("../shared", read("README.md"))

    def test_linksExist(self):
        """
        Every relative link of README.md names a file of the repository.
        """
        for target in re.findall(r"\]\(([^)#:]+)\)", read("README.md")):
            self.assertTrue(os.path.exists(os.path.join(TOP, target)),
                            target)
