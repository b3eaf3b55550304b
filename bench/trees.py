"""
Two trees of gamehub on the saturated benches, in one run: the rounds
alternate between the trees (A B B A ...), so that the machine's drift
weighs on both alike, and the medians are compared.

    python bench/trees.py --before /path/to/old/tree \\
        --before-python /path/to/old/venv/bin/python --rounds 5

Each tree is run with its own Python (a virtualenv with that tree
installed, so that its C{twistd gamehub} is that tree's):

  - gomoku: C{bench/gomoku_load.py --mode saturate --no-baseline --json}
    (100 games over loopback against the real C{twistd}); the hub's CPU
    per move and its moves per second;
  - checkers: C{bench/checkers_cpu.py} (the hub's CPU per move,
    in-process);
  - Splendor: the CPU seconds of C{bench/splendor_games.py --quick}
    (the same seeded random games, pure and through the protocol on
    C{StringTransport}, for 2, 3 and 4 players): CPU time, because its
    own games-per-second figures are wall-clock and swing with the
    machine's load.

Not a test: it prints figures.
"""

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
AFTER = os.path.dirname(HERE)


def run(python, tree, script, *args):
    """
    Run C{bench/script} of C{tree} with C{python}; its standard output.
    """
    return subprocess.run(
        [python, os.path.join(tree, "bench", script)] + list(args),
        cwd=tree, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        check=True, timeout=900).stdout.decode()


def gomoku(python, tree, seconds):
    """
    The hub's CPU per move (us) and moves per second, saturated.
    """
    out = run(python, tree, "gomoku_load.py", "--mode", "saturate",
              "--no-baseline", "--json", "--games", "100", "--seconds",
              str(seconds), "--warmup", "2", "--hub-args", "--db none")
    figures = json.loads(out.strip().splitlines()[-1])
    hub = figures["rounds"][0]["hub"]
    return hub["server_cpu_us_per_op"], hub["per_second"]


def checkers(python, tree):
    """
    The hub's CPU per checkers move (us), in-process.
    """
    out = run(python, tree, "checkers_cpu.py", "--rounds", "1", "--games",
              "100")
    return float(re.search(r"median: ([\d.]+) us/move", out).group(1))


def splendor(python, tree):
    """
    The CPU seconds (user and system) of C{splendor_games.py --quick}.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run(python, tree, "splendor_games.py", "--quick")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime
            + after.ru_stime - before.ru_stime)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--before", required=True, help="the older tree")
    p.add_argument("--before-python", required=True,
                   help="the Python that has the older tree installed")
    p.add_argument("--after", default=AFTER,
                   help="the newer tree (default: this one)")
    p.add_argument("--after-python", default=sys.executable)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--seconds", type=float, default=6)
    options = p.parse_args(argv)
    trees = {"before": (options.before_python, options.before),
             "after": (options.after_python, options.after)}
    figures = {name: {"gomoku_cpu": [], "gomoku_rate": [],
                      "checkers_cpu": [], "splendor_cpu": []}
               for name in trees}
    for number in range(options.rounds):
        order = ("before", "after") if number % 2 == 0 else (
            "after", "before")
        for name in order:
            python, tree = trees[name]
            cpu, rate = gomoku(python, tree, options.seconds)
            mine = figures[name]
            mine["gomoku_cpu"].append(cpu)
            mine["gomoku_rate"].append(rate)
            mine["checkers_cpu"].append(checkers(python, tree))
            mine["splendor_cpu"].append(splendor(python, tree))
            print("round %d %-6s gomoku %5.1f us/move %7.0f moves/s, "
                  "checkers %5.1f us/move, splendor %5.2f CPU s, "
                  "load %.1f" % (
                      number + 1, name, cpu, rate, mine["checkers_cpu"][-1],
                      mine["splendor_cpu"][-1], os.getloadavg()[0]))
            sys.stdout.flush()
    print()
    for key, better in (("gomoku_cpu", "lower"), ("gomoku_rate", "higher"),
                        ("checkers_cpu", "lower"),
                        ("splendor_cpu", "lower")):
        before = statistics.median(figures["before"][key])
        after = statistics.median(figures["after"][key])
        print("%-14s before %8.1f  after %8.1f  after/before %.3f "
              "(%s is better)" % (key, before, after, after / before,
                                  better))


if __name__ == "__main__":
    main(sys.argv[1:])
