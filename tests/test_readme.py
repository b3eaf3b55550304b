"""
The README's set-up and test commands are the ones CI runs.
"""

import os
import re
import textwrap

from twisted.trial.unittest import SynchronousTestCase

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read(*path):
    with open(os.path.join(TOP, *path), encoding="utf-8") as f:
        return f.read()


def shBlocks(readme):
    """
    The C{sh} code blocks of C{readme} (indented ones too), in order.
    """
    return [textwrap.dedent(block) for block in re.findall(
        r"^ *```sh\n(.*?)^ *```", readme, re.S | re.M)]


def blockAfter(readme, words):
    """
    The first C{sh} block after C{words} in C{readme}.
    """
    return shBlocks(readme[readme.index(words):])[0]


class ReadmeTests(SynchronousTestCase):
    """
    README.md and .ci/run agree.
    """

    def test_ciRunsTheReadmeTestCommand(self):
        """
        The last command of .ci/run is the README's test command.
        """
        testCommand = blockAfter(read("README.md"), "Run every test:").strip()
        ciLines = [line for line in read(".ci", "run").splitlines()
                   if line.strip() and not line.startswith("#")]
        self.assertEqual(ciLines[-1].strip(), testCommand)

    def test_setUpCommands(self):
        """
        The set-up block works on a fresh Debian or Ubuntu machine: it
        makes and activates a virtualenv, installs the extras and starts
        the server.
        """
        lines = shBlocks(read("README.md"))[0].strip().split("\n")
        self.assertEqual(lines,
                         ["sudo apt-get install -y python3-venv "
                          "libicu-dev pkg-config g++",
                          "python3 -m venv venv && . venv/bin/activate",
                          'pip install -e ".[client,test]"',
                          "twistd -n gamehub"])

    def test_testPrerequisites(self):
        """
        The README's list of system packages for the tests is the one
        .ci/run installs.
        """
        block = blockAfter(read("README.md"), "## Tests")
        words = block.replace("\\\n", " ").split()
        self.assertEqual(words[:4], ["sudo", "apt-get", "install", "-y"])
        ci = re.search(r'SYSTEM_PACKAGES="([^"]*)"', read(".ci", "run"))
        self.assertEqual(sorted(words[4:]), sorted(ci.group(1).split()))
        self.assertIn("chromium", words)

    def test_quickStart(self):
        """
        The quick start names the web page, a bot game and the client.
        """
        readme = read("README.md")
        start = readme.index("## Quick start")
        quick = readme[start:readme.index("\n## ", start)]
        self.assertIn("http://127.0.0.1:8080", quick)
        lines = blockAfter(quick, "2.").strip().split("\n")
        self.assertTrue(lines[0].startswith(
            "python -m hub.bots gomoku://127.0.0.1:11011 "))
        self.assertTrue(lines[1].startswith(
            "python -m client_pyglet gomoku://127.0.0.1:11011 "))


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
        Every relative link of README.md and of the pages of docs/ names a
        file or folder of the repository, and a link to a heading of a
        page names one it has.
        """
        pages = ["README.md"] + documents()
        for page in pages:
            folder = os.path.dirname(page)
            for target, anchor in links(read(page)):
                path = os.path.normpath(os.path.join(folder, target))
                self.assertTrue(os.path.exists(os.path.join(TOP, path)),
                                "{}: {}".format(page, target))
                if anchor and path.endswith(".md"):
                    self.assertIn(anchor, anchors(read(path)),
                                  "{}: {}#{}".format(page, target, anchor))

    def test_anchorsInPage(self):
        """
        Every link of README.md and docs/ to a heading of the same page
        names one it has.
        """
        for page in ["README.md"] + documents():
            text = read(page)
            for anchor in re.findall(r"\]\(#([^)]+)\)", text):
                self.assertIn(anchor, anchors(text),
                              "{}: #{}".format(page, anchor))

    def test_anchors(self):
        """
        L{anchors} names headings as GitHub does.
        """
        self.assertEqual(
            anchors("# A page\n```\n# not a heading\n```\n"
                    "## Web port (`bench/web_poll.py`)\n"
                    "## The test suite and `.ci/run`\n"),
            {"a-page", "web-port-benchweb_pollpy",
             "the-test-suite-and-cirun"})


def documents():
    """
    The Markdown pages of docs/, relative to the top of the repository.
    """
    found = []
    for folder, _, files in os.walk(os.path.join(TOP, "docs")):
        for name in sorted(files):
            if name.endswith(".md"):
                found.append(os.path.relpath(os.path.join(folder, name),
                                             TOP))
    return sorted(found)


def links(text):
    """
    The relative links of the Markdown C{text} (images too), as
    C{(target, anchor)}; C{anchor} is None without a C{#}.
    """
    found = []
    for target in re.findall(r"\]\(([^)#:\s]+)(?:#([^)\s]*))?\)", text):
        found.append((target[0], target[1] or None))
    return found


def anchors(text):
    """
    The anchors GitHub gives the headings of the Markdown C{text} (outside
    fenced code): lower case, punctuation but hyphens and underscores
    dropped, spaces made hyphens.
    """
    found = set()
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        heading = re.match(r"#{1,6} +(.*?) *#*$", line)
        if heading and not fenced:
            title = heading.group(1).strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found
