"""
C{bench/defaults.py} (issue 36) runs to the end with its smallest
settings.  A smoke test only: the figures it prints are the machine's,
and no bound is put on them.
"""

import os
import subprocess
import sys

from twisted.trial.unittest import TestCase

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(TOP, "bench", "defaults.py")


class DefaultsBenchTests(TestCase):
    """
    The benchmark against real C{twistd -n gamehub} processes, each on
    free loopback ports.
    """

    def runBench(self, *arguments):
        """
        Run the script for one round of about a second a configuration,
        with two gomoku pairs and two checkers rooms, and C{arguments}:
        check that it exits 0, and give its output and the first cell of
        each row of its tables.
        """
        done = subprocess.run(
            [sys.executable, SCRIPT, "--rounds", "1", "--seconds", "1",
             "--warmup", "0.5", "--pairs", "2", "--rooms", "2"]
            + list(arguments),
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=TOP,
            timeout=300)
        output = done.stdout.decode()
        self.assertEqual(done.returncode, 0, output)
        rows = [line.split(" | ")[0] for line in output.splitlines()
                if line.startswith("| ") and "---" not in line]
        return output, rows

    def test_smallestRun(self):
        """
        The bare hub and the defaults: the script prints, for each game,
        a line per configuration and a row of the table per
        configuration.
        """
        output, rows = self.runBench("--configs", "bare,defaults")
        self.assertEqual(
            rows,
            ["| hub", "| bare (`--web-port none --announce no --db none "
             "--names open`)", "| the defaults, everything on"] * 2,
            output)
        for game in ("gomoku", "checkers"):
            self.assertEqual(
                len([line for line in output.splitlines()
                     if line.startswith("round 1 " + game)]), 2, output)

    def test_together(self):
        """
        With C{--together}, each configuration runs beside a bare hub of
        its own: each round's line gives both hubs' figures, and the
        table has a row per configuration.
        """
        output, rows = self.runBench("--together", "--configs",
                                     "bare,records", "--games", "gomoku")
        rounds = [line for line in output.splitlines()
                  if line.startswith("round 1 gomoku")]
        self.assertEqual(len(rounds), 2, output)
        for line in rounds:
            self.assertIn("| bare beside it", line)
        self.assertIn("beside a bare hub of its own", output)
        self.assertEqual(rows, ["| hub", "| bare (`--web-port none "
                                "--announce no --db none --names open`)",
                                "| + SQLite records"], output)
