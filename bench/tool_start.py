"""
The CPU and memory a gamehub process costs before it does anything:
C{python -m TOOL --help} for the bot client and the three tools, and a
bot worker's start (its bootstrap, up to the call of its main loop): the
best of C{--runs} (the process's user and system time, and its peak
resident memory), for this tree and, with C{--baseline COPY}, for
another checkout of the same run beside it.  The tests start these
processes by the hundred (every tool call, bot, engine and hub's
workers).

    python bench/tool_start.py
    # the tree before, the same run:
    #   git archive COMMIT | tar -x -C COPY
    python bench/tool_start.py --baseline COPY

Not a test: it prints figures.
"""

import argparse
import ast
import os
import resource
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = ("hub.bots", "hub.tournaments", "hub.records", "hub.accounts")
#: Ends a measured program: its peak resident memory (KiB) on the last
#: line of standard error.
PEAK = """\
import resource, sys
sys.stderr.write("\\n%d\\n" % resource.getrusage(
    resource.RUSAGE_SELF).ru_maxrss)
"""
#: Runs a tool as C{python -m TOOL --help} does.
RUN_TOOL = """\
import runpy, sys
sys.argv = [{tool!r}, "--help"]
try:
    runpy.run_module({tool!r}, run_name="__main__", alter_sys=True)
except SystemExit:
    pass
"""


def workerStart(tree):
    """
    C{tree}'s bot worker bootstrap, without its main loop.
    """
    path = os.path.join(tree, "hub", "thinkers", "worker.py")
    with open(path) as f:
        module = ast.parse(f.read())
    for node in module.body:
        if (isinstance(node, ast.Assign)
                and getattr(node.targets[0], "id", None) == "BOOTSTRAP"):
            return ast.literal_eval(node.value).replace("main()", "pass")
    raise SystemExit("no BOOTSTRAP in " + path)


def measure(program, tree):
    """
    The user and system seconds, and the peak resident KiB, of one
    C{python -c program} run (then L{PEAK}) with C{tree} first on its
    path.
    """
    env = dict(os.environ, PYTHONPATH=tree)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-c", program + PEAK],
                          env=env, cwd=tree, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, check=True, timeout=60)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime
            - before.ru_utime - before.ru_stime,
            int(done.stderr.split()[-1]))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    p.add_argument("--runs", type=int, default=12)
    p.add_argument("--baseline", default=None,
                   help="another checkout, measured in the same run")
    args = p.parse_args()
    trees = [("this tree", ROOT)]
    if args.baseline:
        trees.insert(0, ("baseline", os.path.abspath(args.baseline)))
    print("| process | " + " | ".join(name for name, _ in trees) + " |")
    print("|---" * (len(trees) + 1) + "|")
    programs = [("`python -m {} --help`".format(tool),
                 lambda tree, tool=tool: RUN_TOOL.format(tool=tool))
                for tool in TOOLS]
    programs.append(("a bot worker's start", workerStart))
    for label, program in programs:
        best = []
        for name, tree in trees:
            runs = [measure(program(tree), tree) for _ in range(args.runs)]
            best.append((min(cpu for cpu, _ in runs),
                         min(rss for _, rss in runs)))
        print("| {} | ".format(label) + " | ".join(
            "{:.0f} ms, {:.1f} MiB".format(1000 * cpu, rss / 1024)
            for cpu, rss in best) + " |")


if __name__ == "__main__":
    main()
