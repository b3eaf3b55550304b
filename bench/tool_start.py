"""
The CPU a gamehub process costs before it does anything: C{python -m
TOOL --help} for the bot client and the three tools, the best of
C{--runs} (the process's user and system time), for this tree and, with
C{--baseline COPY}, for another checkout of the same run beside it.
The tests start these processes by the hundred (every tool call, bot
and engine).

    python bench/tool_start.py
    # the tree before, the same run:
    #   git archive COMMIT | tar -x -C COPY
    python bench/tool_start.py --baseline COPY

Not a test: it prints figures.
"""

import argparse
import os
import resource
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = ("hub.bots", "hub.tournaments", "hub.records", "hub.accounts")


def cpuSeconds(tool, tree):
    """
    The user and system seconds of one C{python -m tool --help} run with
    C{tree} first on its path.
    """
    env = dict(os.environ, PYTHONPATH=tree)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    # From the tree itself: C{-m} puts the working directory first.
    subprocess.run([sys.executable, "-m", tool, "--help"], env=env,
                   cwd=tree, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True, timeout=60)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime
            - before.ru_utime - before.ru_stime)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    p.add_argument("--runs", type=int, default=12)
    p.add_argument("--baseline", default=None,
                   help="another checkout, measured in the same run")
    args = p.parse_args()
    trees = [("this tree", ROOT)]
    if args.baseline:
        trees.insert(0, ("baseline", os.path.abspath(args.baseline)))
    print("| tool | " + " | ".join(name for name, _ in trees) + " |")
    print("|---" * (len(trees) + 1) + "|")
    for tool in TOOLS:
        best = []
        for name, tree in trees:
            best.append(min(cpuSeconds(tool, tree)
                            for _ in range(args.runs)))
        print("| `python -m {} --help` | ".format(tool) + " | ".join(
            "{:.0f} ms".format(1000 * b) for b in best) + " |")


if __name__ == "__main__":
    main()
