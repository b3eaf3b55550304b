"""
The three tools (C{python -m hub.records}, C{hub.accounts},
C{hub.tournaments}) as a person runs them, through what they share
(L{hub.commandline}): their versions, plain help, mistakes and failures
in one line naming what is wrong, and output cut short by its reader.
"""

import os
import shutil
import subprocess
import sys
import tempfile

from twisted.python import usage
from twisted.trial.unittest import SynchronousTestCase, TestCase

from hub import commandline

TOOLS = ("hub.records", "hub.accounts", "hub.tournaments")
#: Epytext markup, which --help must not show.
MARKUP = r"\b[BCEGILMSUX]\{"


class ToolTests(TestCase):
    """
    Each tool in a process of its own, in a folder of its own.
    """

    def setUp(self):
        self.folder = tempfile.mkdtemp(prefix="gamehub-tools-")
        self.addCleanup(shutil.rmtree, self.folder, True)
        self.db = "sqlite:" + os.path.join(self.folder, "hub.sqlite")

    def tool(self, module, *argv, readOutput=True):
        """
        Run C{python -m module argv}: its exit status, standard output and
        standard error (text).  With C{readOutput} false its standard
        output is a pipe closed before it writes (C{| head} gone).
        """
        process = subprocess.Popen(
            [sys.executable, "-m", module] + list(argv),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=self.folder)
        if not readOutput:
            process.stdout.close()
            err = process.stderr.read()
            process.stderr.close()
            return process.wait(timeout=60), "", err.decode()
        out, err = process.communicate(timeout=60)
        return process.returncode, out.decode(), err.decode()

    def assertOneLine(self, result, status, pattern):
        """
        C{result} (of L{tool}) exits with C{status}, writes nothing to
        standard output, and one line matching C{pattern} to standard
        error.
        """
        code, out, err = result
        self.assertEqual((code, out), (status, ""), err)
        self.assertNotIn("Traceback", err)
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertRegex(err.strip(), pattern)

    def test_version(self):
        """
        C{--version} prints gamehub's version, then Twisted's.
        """
        from twisted import copyright
        from importlib.metadata import version
        for module in TOOLS:
            code, out, err = self.tool(module, "--version")
            self.assertEqual(code, 0, err)
            self.assertEqual(out.splitlines(), [
                "gamehub version: " + version("gamehub"),
                "Twisted version: " + copyright.version])

    def test_helpIsPlainText(self):
        """
        C{--help} of each tool and of its commands names the tool and the
        command and shows no epytext markup.
        """
        for argv, usageLine in [
                (["hub.accounts", "--help"],
                 "Usage: python -m hub.accounts [--db URL] COMMAND ..."),
                (["hub.accounts", "ban", "--help"],
                 "Usage: python -m hub.accounts [--db URL] ban NAME-or-CIDR "
                 "--for DURATION --reason TEXT"),
                (["hub.tournaments", "create", "--help"],
                 "Usage: python -m hub.tournaments [--db URL] create --name "
                 "NAME"),
                (["hub.tournaments", "engine", "add", "--help"],
                 "Usage: python -m hub.tournaments [--db URL] engine add "
                 "EVENT NAME [options] [-- COMMAND...]"),
                (["hub.records", "show", "--help"],
                 "Usage: python -m hub.records [--db URL] show GAME_ID")]:
            code, out, err = self.tool(*argv)
            self.assertEqual(code, 0, err)
            self.assertNotRegex(out, MARKUP)
            self.assertTrue(out.startswith(usageLine), out)
        out = self.tool("hub.accounts", "--help")[1]
        self.assertIn("python -m hub.accounts: the operator's accounts",
                      out)
        self.assertIn("Register an account; prints its key.",
                      self.tool("hub.accounts", "add", "--help")[1])

    def test_helpIntoClosedPipe(self):
        """
        C{--help} whose reader has gone (C{| head}) ends quietly: no
        C{BrokenPipeError} traceback, exit status 0.
        """
        for module in TOOLS:
            code, _, err = self.tool(module, "--help", readOutput=False)
            self.assertEqual((code, err), (0, ""), module)

    def test_outputIntoClosedPipe(self):
        """
        A command's output whose reader has gone ends quietly too.
        """
        code, _, err = self.tool(
            "hub.tournaments", "--db", self.db, "create", "--name", "Cup",
            "--game", "gomoku", "--format", "swiss", "--rounds", "3",
            readOutput=False)
        self.assertEqual((code, err), (0, ""))

    def test_argumentNotANumber(self):
        """
        A game's or an event's id that is no number is one line naming
        it, with the command's help (exit status 2), not a traceback.
        """
        self.assertOneLine(
            self.tool("hub.records", "--db", self.db, "show", "abc"), 2,
            r"^hub.records: GAME_ID is a positive whole number, not 'abc' "
            r"\(python -m hub.records show --help lists the options\)$")
        self.assertOneLine(
            self.tool("hub.records", "--db", self.db, "export", "x"), 2,
            r"^hub.records: GAME_ID is a positive whole number, not 'x'")
        self.assertOneLine(
            self.tool("hub.tournaments", "--db", self.db, "start", "x"), 2,
            r"^hub.tournaments: EVENT \(an event's id\) is a positive "
            r"whole number, not 'x'")

    def test_valueNamesItsOption(self):
        """
        A value an option refuses is one line naming the option and the
        value, in every tool.
        """
        self.assertOneLine(
            self.tool("hub.records", "--db", self.db, "leaderboard",
                      "gomoku", "--limit", "x"), 2,
            r"^hub.records: --limit 'x': not a whole number \(python -m "
            r"hub.records leaderboard --help lists the options\)$")
        self.assertOneLine(
            self.tool("hub.records", "--db", self.db, "history", "gomoku",
                      "ann", "--limit", "-5"), 2,
            r"^hub.records: --limit '-5': must be 1 or more")
        self.assertOneLine(
            self.tool("hub.records", "--db", self.db, "export", "--since",
                      "yesterday"), 2,
            r"^hub.records: --since 'yesterday': not a date")
        self.assertOneLine(
            self.tool("hub.accounts", "--db", self.db, "ban", "ann",
                      "--for", "2y", "--reason", "x"), 2,
            r"^hub.accounts: --for '2y': a duration is a number")
        self.assertOneLine(
            self.tool("hub.tournaments", "--db", self.db, "create",
                      "--name", "Cup", "--game", "gomoku", "--format",
                      "arena", "--minutes", "soon"), 2,
            r"^hub.tournaments: --minutes 'soon': not a number")

    def test_databaseCannotOpen(self):
        """
        A SQLite file in a folder that does not exist is one line naming
        the database and what is wrong, in every tool.
        """
        url = "sqlite:/nonexistent/x.sqlite"
        for argv in (["hub.accounts", "--db", url, "list"],
                     ["hub.tournaments", "--db", url, "start", "1"]):
            self.assertOneLine(
                self.tool(*argv), 1, r"^hub.(accounts|tournaments): --db "
                r"sqlite:/nonexistent/x.sqlite: cannot open the records "
                r"database: unable to open database file$")


class OptionsTests(SynchronousTestCase):
    """
    L{commandline.Options} and L{commandline.ToolOptions}, parsed in
    process.
    """

    def test_refusalNamesOption(self):
        """
        A coercion's C{ValueError} becomes a usage error naming the option
        and the value; the coercion's C{coerceDoc} is kept for the help.
        """
        def even(value):
            number = int(value)
            if number % 2:
                raise ValueError("must be even")
            return number
        even.coerceDoc = "An even number."

        class Options(commandline.Options):
            optParameters = [["count", None, 2, "How many.", even],
                             ["ratio", None, 1.0, "How much.", float],
                             ["name", None, "x", "Who."]]

        for argv, message in [
                (["--count", "3"], "--count '3': must be even"),
                (["--count", "three"], "--count 'three': not a whole number"),
                (["--ratio", "lots"], "--ratio 'lots': not a number")]:
            error = self.assertRaises(usage.UsageError,
                                      Options().parseOptions, argv)
            self.assertEqual(str(error), message)
        options = Options()
        options.parseOptions(["--count", "4", "--name", "ann"])
        self.assertEqual((options["count"], options["name"]), (4, "ann"))
        self.assertIn("An even number.", str(options))

    def test_commandUsage(self):
        """
        A command's usage line is its tool's, the command's name and its
        own words; its help says what the tool's list says of it.
        """
        class Show(commandline.ToolOptions):
            synopsis = "ID"

            def parseArgs(self, gameId):
                self["id"] = commandline.argumentNumber("ID", gameId)

        class Tool(commandline.ToolOptions):
            tool = "hub.example"
            toolSynopsis = "[--db URL]"
            subCommands = [["show", None, Show, "Show one game."]]

        options = Tool()
        self.assertEqual(options.getSynopsis(),
                         "Usage: python -m hub.example [--db URL] COMMAND ...")
        options.parseOptions(["show", "7"])
        self.assertEqual(options.subOptions["id"], 7)
        self.assertEqual(options.subOptions.getSynopsis(),
                         "Usage: python -m hub.example [--db URL] show ID")
        self.assertEqual(options.subOptions.longdesc, "Show one game.")
        self.assertNotIn("C{", options.subOptions.getUsage())
