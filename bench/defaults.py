"""
The hub as people run it against the bare hub (issue 36): CPU per move
and throughput of each feature alone and of the defaults, side by side.

Configurations (C{--configs} picks some, in this order):
  - C{bare}: C{--web-port none --announce no --db none --names open};
  - C{records}: the bare hub with SQLite records (a fresh file);
  - C{accounts}: records and C{--names accounts};
  - C{web}: the bare hub with the web face on a free loopback port,
    nobody connected to it;
  - C{announce}: the bare hub with C{--announce yes};
  - C{defaults}: everything on (records on a fresh SQLite file, accounts,
    the web face, the announcement);
  - C{baseline}: no hub: for gomoku, the JSON echo with the same C{<json>}
    framing (C{bench/gomoku_load.py}'s baseline); for checkers, the bare
    Twisted relay of C{bench/flood.py}.

Every configuration is measured in every round, the order reversed every
other round (A B C ..., then ... C B A), so that the machine's drift
weighs on all alike.  Each measurement starts a fresh C{twistd -n
gamehub} on free loopback ports (gomoku and checkers; Splendor off, and
the abuse limits off, as C{gomoku_load.py} starts it), pinned to one CPU,
and an independent load generator process pinned to the other:

  - gomoku: C{bench/gomoku_load.py --mode saturate --port P --server-pid
    PID} (C{--pairs} pairs of connections playing draws as fast as the
    moves come back);
  - checkers: the client of C{bench/flood.py cpu} (C{--rooms} two-player
    rooms playing noisy-greedy games as fast as the turns come), run by
    this script as a process of its own.

CPU per move is the hub process's user and system time (from
C{/proc/PID/stat}) over the moves of the window.  Each round's figures
are printed, then the table of the issue: each configuration's CPU per
move and moves per second against the bare hub's in the same round, the
median over the rounds (and their range).

    python bench/defaults.py --rounds 4 --seconds 10
    python bench/defaults.py --configs bare,web --games gomoku --json

Not a test: it prints figures.
"""

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

from gomoku_load import (cpuSeconds, cpusToPin, freePort,  # noqa: E402
                         raiseFileLimit, startHub, stopProcess, waitForPort)

BARE = ["--web-port", "none", "--announce", "no", "--db", "none",
        "--names", "open"]
#: What each configuration changes from the bare hub, and its label in
#: the table; "{db}" and "{web}" are a fresh SQLite URL and a free port.
CONFIGS = {
    "bare": ([], "bare (`" + " ".join(BARE) + "`)"),
    "records": (["--db", "{db}"], "+ SQLite records"),
    "accounts": (["--db", "{db}", "--names", "accounts"],
                 "+ records and `--names accounts`"),
    "web": (["--web-port", "{web}"], "+ web face on, nobody connected"),
    "announce": (["--announce", "yes"], "+ `--announce yes`"),
    "defaults": (["--db", "{db}", "--names", "accounts", "--web-port",
                  "{web}", "--announce", "yes"],
                 "the defaults, everything on"),
    "baseline": (None, "baseline: JSON echo (gomoku), bare relay "
                 "(checkers)"),
}
GAMES = ("gomoku", "checkers")


def hubArguments(config, folder):
    """
    The C{twistd gamehub} options of C{config}, its database in
    C{folder}.
    """
    changes = [a.format(db="sqlite:" + os.path.join(folder, "hub.sqlite"),
                        web="tcp:%d:interface=127.0.0.1" % (freePort(),))
               for a in CONFIGS[config][0]]
    return BARE + changes


def loadArguments(args):
    """
    The options every load generator here is given.
    """
    extra = ["--seconds", str(args.seconds), "--warmup", str(args.warmup)]
    if args.no_pin:
        extra.append("--no-pin")
    return extra


def pinTo(cpu):
    """
    A C{preexec_fn} pinning the child to C{cpu} (or None: no pinning).
    """
    if cpu is None:
        return None
    return lambda: os.sched_setaffinity(0, {cpu})


def runLoad(argv, cpu, timeout):
    """
    Run a load generator (this Python, C{argv}) pinned to C{cpu}; the
    JSON object of its last line of output.
    """
    done = subprocess.run([sys.executable] + argv, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, preexec_fn=pinTo(cpu),
                          timeout=timeout, check=True)
    return json.loads(done.stdout.decode().strip().splitlines()[-1])


def measureGomoku(args, config, pinned, folder):
    """
    One gomoku window against a fresh server of C{config}: a dict with
    C{cpu_us} (server CPU per move), C{per_second} and C{errors}.
    """
    load = [os.path.join(HERE, "gomoku_load.py"), "--mode", "saturate",
            "--games", str(args.pairs), "--json"] + loadArguments(args)
    timeout = args.seconds + args.warmup + 180
    loadCpu = pinned[1] if pinned else None
    if config == "baseline":
        figures = runLoad(load + ["--no-hub"], loadCpu, timeout)
        run = figures["rounds"][0]["baseline"]
    else:
        proc, _ = startServer(args, config, pinned, folder)
        try:
            figures = runLoad(load + ["--no-baseline", "--port",
                                      str(proc.gomokuPort), "--server-pid",
                                      str(proc.pid)], loadCpu, timeout)
        finally:
            stopProcess(proc)
        run = figures["rounds"][0]["hub"]
    return {"cpu_us": run["server_cpu_us_per_op"],
            "per_second": run["per_second"], "errors": run["errors"]}


def measureCheckers(args, config, pinned, folder):
    """
    One checkers window against a fresh server of C{config} (for the
    baseline, C{flood.py}'s relay): the same dict as L{measureGomoku}.
    """
    serverCpu = pinned[0] if pinned else None
    if config == "baseline":
        proc = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "flood.py"), "relay"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            preexec_fn=pinTo(serverCpu))
        port = int(proc.stdout.readline().split()[-1])
    else:
        proc, port = startServer(args, config, pinned, folder)
    try:
        argv = [os.path.abspath(__file__), "--checkers-client", str(port),
                "--server-pid", str(proc.pid), "--rooms", str(args.rooms)]
        if config == "baseline":
            argv.append("--relay")
        return runLoad(argv + loadArguments(args),
                       pinned[1] if pinned else None,
                       args.seconds + args.warmup + 180)
    finally:
        stopProcess(proc)
        if proc.stdout is not None:
            proc.stdout.close()


def startServer(args, config, pinned, folder):
    """
    A fresh C{twistd -n gamehub} of C{config}, serving gomoku and
    checkers on free loopback ports (its log and database in C{folder});
    the process (its C{gomokuPort} set) and the checkers port.
    """
    for name in os.listdir(folder):
        os.remove(os.path.join(folder, name))
    gomokuPort, checkersPort = freePort(), freePort()
    extra = hubArguments(config, folder) + [
        "--checkers-port", "tcp:%d:interface=127.0.0.1" % (checkersPort,)]
    proc = startHub(gomokuPort, os.path.join(folder, "twistd.log"),
                    extra=extra, cpu=pinned[0] if pinned else None)
    waitForPort(checkersPort, proc)
    proc.gomokuPort = gomokuPort
    return proc, checkersPort


# -- the checkers load generator (a process of its own) ----------------

def checkersClient(args):
    """
    Play C{args.rooms} checkers games against the server on port
    C{args.checkers_client} with C{bench/flood.py}'s client: warm up, then
    measure the window; print the figures as one JSON line.
    """
    import flood
    port, pid = args.checkers_client, args.server_pid
    games = flood.hubGames(port, args.rooms, random.Random(1))
    window = {}
    begin = time.perf_counter()

    def counted(move):
        def countedMove():
            sent = move()
            if "cpu" not in window:
                if time.perf_counter() - begin >= args.warmup:
                    window.update(cpu=cpuSeconds(pid), moves=0,
                                  start=time.perf_counter())
            else:
                window["moves"] += sent
            return sent
        return countedMove

    for game in games:
        game.move = counted(game.move)
    flood.playCheckers(games, args.warmup + args.seconds, args.relay)
    cpu, end = cpuSeconds(pid), time.perf_counter()
    for game in games:
        for sock in game.socks:
            sock.close()
    moves = max(1, window.get("moves", 0))
    print(json.dumps({
        "cpu_us": round(1e6 * (cpu - window.get("cpu", cpu)) / moves, 1),
        "per_second": round(moves / (end - window.get("start", begin)), 1),
        "errors": 0}))


# -- main ----------------------------------------------------------------

def parseArgs(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    p.add_argument("--rounds", type=int, default=2,
                   help="rounds; the order is reversed every other round")
    p.add_argument("--seconds", type=float, default=10.0,
                   help="length of each measured window")
    p.add_argument("--warmup", type=float, default=2.0,
                   help="seconds of play before each window")
    p.add_argument("--pairs", type=int, default=100,
                   help="gomoku: pairs of connections playing")
    p.add_argument("--rooms", type=int, default=100,
                   help="checkers: two-player rooms playing")
    p.add_argument("--configs", default=",".join(CONFIGS),
                   help="which configurations, comma-separated, of: "
                   + ", ".join(CONFIGS))
    p.add_argument("--games", default=",".join(GAMES),
                   help="which loads, comma-separated: gomoku, checkers")
    p.add_argument("--no-pin", action="store_true",
                   help="do not pin the hub to one CPU and the load "
                   "generator to another")
    p.add_argument("--json", action="store_true",
                   help="print the figures as one JSON object")
    p.add_argument("--checkers-client", type=int, default=None,
                   help=argparse.SUPPRESS)
    p.add_argument("--server-pid", type=int, default=None,
                   help=argparse.SUPPRESS)
    p.add_argument("--relay", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    args.configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    args.games = [g.strip() for g in args.games.split(",") if g.strip()]
    for name in args.configs:
        if name not in CONFIGS:
            p.error("unknown configuration %r" % (name,))
    for name in args.games:
        if name not in GAMES:
            p.error("unknown game %r" % (name,))
    return args


def ratio(figures, name, key):
    """
    C{name}'s C{key} over the bare hub's in one round's C{figures}, or
    None.
    """
    if name not in figures or "bare" not in figures \
            or not figures["bare"][key]:
        return None
    return round(figures[name][key] / figures["bare"][key], 3)


def summarise(results):
    """
    Add to C{results} each game's ratios per round and their medians.
    """
    for game in results["games"]:
        rounds = results["rounds"][game]
        table = results["table"][game] = {}
        for name in results["configs"]:
            row = table[name] = {}
            for key, figure in (("cpu_us", "cpu"), ("per_second", "rate")):
                values = [f[name][key] for f in rounds]
                row[figure] = statistics.median(values)
                ratios = [r for r in (ratio(f, name, key) for f in rounds)
                          if r is not None]
                if ratios:
                    row[figure + "_vs_bare"] = statistics.median(ratios)
                    row[figure + "_vs_bare_range"] = [min(ratios),
                                                      max(ratios)]


def main(argv):
    args = parseArgs(argv)
    if args.checkers_client is not None:
        checkersClient(args)
        return 0
    raiseFileLimit(4 * max(args.pairs, args.rooms) + 100)
    pinned = None if args.no_pin else cpusToPin()
    if pinned:
        # This process only waits; it keeps off the hub's CPU.
        os.sched_setaffinity(0, {pinned[1]})
    measure = {"gomoku": measureGomoku, "checkers": measureCheckers}
    results = {"configs": args.configs, "games": args.games,
               "pairs": args.pairs, "rooms": args.rooms,
               "seconds": args.seconds, "warmup": args.warmup,
               "pinned": pinned, "cpus": os.cpu_count(),
               "rounds": {game: [] for game in args.games}, "table": {},
               "load_average": []}
    folder = tempfile.mkdtemp(prefix="gamehub-defaults-")
    try:
        for number in range(args.rounds):
            order = args.configs if number % 2 == 0 else args.configs[::-1]
            for game in args.games:
                figures = {}
                results["rounds"][game].append(figures)
                for name in order:
                    figures[name] = measure[game](args, name, pinned,
                                                  folder)
                    if not args.json:
                        print("round %d %-8s %-8s %7.1f us/move %8.1f "
                              "moves/s  errors %d  load %.1f" % (
                                  number + 1, game, name,
                                  figures[name]["cpu_us"],
                                  figures[name]["per_second"],
                                  figures[name]["errors"],
                                  os.getloadavg()[0]), flush=True)
            results["load_average"].append(os.getloadavg())
    finally:
        shutil.rmtree(folder, True)
    summarise(results)
    if args.json:
        print(json.dumps(results, sort_keys=True))
    else:
        report(results)
    return 0


def report(results):
    """
    Print the issue's table for each game.
    """
    def times(row, figure):
        key = figure + "_vs_bare"
        if key not in row:
            return ""
        low, high = row[key + "_range"]
        spread = "" if low == high else " (%.2f-%.2f)" % (low, high)
        return "%.2fx%s" % (row[key], spread)

    where = (", hub on CPU %d, load generators on CPU %d"
             % tuple(results["pinned"]) if results["pinned"] else
             ", not pinned")
    for game in results["games"]:
        count = ("%d pairs" % (results["pairs"],) if game == "gomoku"
                 else "%d rooms" % (results["rooms"],))
        print()
        rounds = len(results["rounds"][game])
        print("%s, %s: medians over %d round%s of %ss windows after %ss "
              "warm-up%s" % (game, count, rounds, "s"[:rounds != 1],
                             results["seconds"], results["warmup"], where))
        print()
        print("| hub | CPU per move vs the bare hub | throughput vs the "
              "bare hub | CPU per move | moves/s |")
        print("|---|---|---|---|---|")
        for name in results["configs"]:
            row = results["table"][game][name]
            print("| %s | %s | %s | %.1f us | %.0f |" % (
                CONFIGS[name][1], times(row, "cpu"), times(row, "rate"),
                row["cpu"], row["rate"]))
        table = results["table"][game]
        if "baseline" in table and "cpu_vs_bare" in table["baseline"]:
            ratios = [f["bare"]["cpu_us"] / f["baseline"]["cpu_us"]
                      for f in results["rounds"][game]
                      if f["baseline"]["cpu_us"]]
            print()
            print("bare hub / %s, CPU per move: %.2fx (%.2f-%.2f)" % (
                "JSON echo" if game == "gomoku" else "bare relay",
                statistics.median(ratios), min(ratios), max(ratios)))
    print()
    print("load average after each round: " + "; ".join(
        "%.2f %.2f %.2f" % tuple(a) for a in results["load_average"]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
