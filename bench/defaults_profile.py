"""
Where the hub's CPU per gomoku move goes, the defaults against the bare
hub (issue 36): each configuration of C{bench/defaults.py} runs under
cProfile (C{twistd --profile}), driven by C{bench/gomoku_load.py
--mode saturate}; the reactor thread's time is summed by area (records,
web, tournaments, accounts, logging, the protocol and tables, Twisted,
the rest) and shown per move (the moves counted by the table's
C{played}), with the top functions by their own time.  The cyclic
collector's work is timed apart (its callbacks, installed in the hub by a
C{sitecustomize} module): collections and their time per move, by
generation, from the hub's start (its heap frozen); cProfile lays that
time on whichever call allocated.

    python bench/defaults_profile.py --seconds 10
    python bench/defaults_profile.py --configs bare,web --top 15

cProfile slows every call alike: compare the areas, not the absolute
figures.  Not a test: it prints figures.
"""

import argparse
import json
import os
import pstats
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from defaults import CONFIGS, hubArguments  # noqa: E402

# The areas, by the first of these path fragments a function's file has.
AREAS = (
    ("records", ("hub/records/",)),
    ("web", ("hub/web/",)),
    ("tournaments", ("hub/tournaments/",)),
    ("accounts", ("hub/accounts/",)),
    ("logging", ("twisted/logger/", "hub/logs.py")),
    ("hub: protocols, tables, games, wire, connection", ("hub/",)),
    ("Twisted", ("twisted/",)),
)


# Times the hub's collections; written out every half second of them
# (the hub may not run its exit handlers).
SITECUSTOMIZE = """
import gc, json, os, sys, time
_figures = {"collections": [0, 0, 0], "seconds": [0.0, 0.0, 0.0]}
_began = [0.0, 0.0]
_frozen = [False]

def _timed(phase, info):
    now = time.perf_counter()
    if not _frozen[0] and gc.get_freeze_count():
        # Counted from the hub's start (tap.freezeHeap), not before.
        _frozen[0] = True
        _figures.update(collections=[0, 0, 0], seconds=[0.0, 0.0, 0.0])
    if phase == "start":
        _began[0] = now
        return
    generation = info["generation"]
    _figures["collections"][generation] += 1
    _figures["seconds"][generation] += now - _began[0]
    if now - _began[1] > 0.5:
        _began[1] = now
        with open(os.environ["GAMEHUB_GC_FIGURES"], "w") as f:
            json.dump(_figures, f)

if os.path.basename(sys.argv[0]) == "twistd":
    gc.callbacks.append(_timed)
"""


def areaOf(path, name):
    """
    The name of the area of the function C{name} defined in C{path}.
    """
    if name == "<built-in method gc.collect>":
        return "the start-up's full collection (once, tap.freezeHeap)"
    for name, fragments in AREAS:
        if any(f in path for f in fragments):
            return name
    return "the rest (builtins, the standard library)"


def profile(config, args, folder):
    """
    Run C{config} under the profiler: C{(stats, moves, collector)}.
    """
    statsPath = os.path.join(folder, config + ".prof")
    site = os.path.join(folder, "site")
    os.makedirs(site, exist_ok=True)
    with open(os.path.join(site, "sitecustomize.py"), "w") as f:
        f.write(SITECUSTOMIZE)
    gcPath = os.path.join(folder, config + ".gc.json")
    env = dict(os.environ, GAMEHUB_GC_FIGURES=gcPath,
               PYTHONPATH=os.pathsep.join(
                   [site] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    hubArgs = " ".join(hubArguments(config, folder))
    subprocess.run(
        [sys.executable, os.path.join(HERE, "gomoku_load.py"), "--mode",
         "saturate", "--no-baseline", "--games", str(args.pairs),
         "--seconds", str(args.seconds), "--warmup", str(args.warmup),
         "--profile", statsPath, "--hub-args", hubArgs, "--json"]
        + (["--no-pin"] if args.no_pin else []),
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=True,
        timeout=args.seconds + args.warmup + 300, env=env)
    stats = pstats.Stats(statsPath).stats
    moves = sum(s[1] for (path, _, name), s in stats.items()
                if name == "played" and path.endswith("hub/tables/gomoku.py"))
    with open(gcPath) as f:
        collector = json.load(f)
    return stats, moves, collector


def report(config, stats, moves, collector, top):
    """
    Print C{config}'s areas and top functions, in µs a move.
    """
    areas = {}
    for (path, _, function), s in stats.items():
        name = areaOf(path, function)
        areas[name] = areas.get(name, 0.0) + s[2]
    total = sum(areas.values())
    print("\n%s: %d moves, %.1f µs a move under the profiler" % (
        config, moves, total * 1e6 / moves))
    print("| area | µs a move |\n|---|---|")
    for name, spent in sorted(areas.items(), key=lambda a: -a[1]):
        print("| %s | %.2f |" % (name, spent * 1e6 / moves))
    print("\n| collector, generation | collections / 1000 moves | µs a move "
          "|\n|---|---|---|")
    for generation in range(3):
        print("| %d | %.2f | %.2f |" % (
            generation,
            collector["collections"][generation] * 1000.0 / moves,
            collector["seconds"][generation] * 1e6 / moves))
    print("\n| function (own time) | calls a move | µs a move |")
    print("|---|---|---|")
    rows = sorted(stats.items(), key=lambda item: -item[1][2])[:top]
    for (path, line, name), s in rows:
        where = path.split("site-packages/")[-1].split("t-cost/")[-1]
        print("| %s:%d %s | %.2f | %.2f |" % (
            where, line, name, s[1] / moves, s[2] * 1e6 / moves))
    return areas


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--configs", default="bare,defaults",
                   help="comma-separated, of: " + ", ".join(
                       c for c in CONFIGS if c != "baseline"))
    p.add_argument("--pairs", type=int, default=100)
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--warmup", type=float, default=2.0)
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--no-pin", action="store_true")
    args = p.parse_args(argv)
    folder = tempfile.mkdtemp(prefix="defaults-profile-")
    try:
        for config in args.configs.split(","):
            stats, moves, collector = profile(config, args, folder)
            report(config, stats, moves, collector, args.top)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
