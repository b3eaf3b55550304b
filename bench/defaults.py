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
  - C{echo2} (gomoku only): the JSON echo sending each frame a second
    time, in a C{send} of its own, to a sink in the load generator
    (C{gomoku_load.py --echo-second-send}): the hub sends each move twice,
    to the mover and to the opponent, and the echo once.

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

With C{--together}, each configuration runs beside a bare hub of its
own, started with it and measured in the same seconds, the two servers
sharing the server CPU and the two load generators the other: the
machine's drift (10-20 % between windows of one hub on a shared VM)
weighs on both alike, and each ratio is taken within its pair.  The bare
hub beside a bare hub (C{bare}) shows how far apart two like hubs come
out.  (For the gomoku baseline, C{gomoku_load.py} pins its echo server
to the server CPU itself.)

CPU per move is the hub process's user and system time (from
C{/proc/PID/stat}) over the moves of the window.  Each round's figures
are printed, then the table of the issue: each configuration's CPU per
move and moves per second against the bare hub's in the same round, the
median over the rounds (and their range).

    python bench/defaults.py --rounds 4 --seconds 10
    python bench/defaults.py --configs bare,web --games gomoku --json
    python bench/defaults.py --together --rounds 6 --seconds 5

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
    "echo2": (None, "baseline: the JSON echo sending each frame a second "
              "time, as the hub sends each move twice"),
}
GAMES = ("gomoku", "checkers")
#: The configurations measured for some games only.
GAMES_OF = {"echo2": ("gomoku",)}


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


def pinTo(cpus):
    """
    A C{preexec_fn} pinning the child to C{cpus} (a CPU, or a set of them;
    or None: no pinning).
    """
    if cpus is None:
        return None
    if isinstance(cpus, int):
        cpus = {cpus}
    return lambda: os.sched_setaffinity(0, cpus)


class Launched:
    """
    One measurement under way: the servers started for it and its load
    generator (this Python, pinned), whose last line of output is a JSON
    object that C{pick} turns into the figures.
    """

    load = None

    def __init__(self, servers, argv, cpus, pick, timeout):
        self.servers = servers
        self.argv = argv
        self.cpus = cpus
        self.pick = pick
        self.timeout = timeout

    def start(self):
        """
        Start the load generator.
        """
        self.load = subprocess.Popen(
            [sys.executable] + self.argv, stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, preexec_fn=pinTo(self.cpus))
        return self

    def collect(self):
        """
        Wait for the load generator, stop the servers: a dict with
        C{cpu_us} (server CPU per move), C{per_second} and C{errors}.
        """
        try:
            if self.load is None:
                raise RuntimeError("the load generator was not started")
            out, _ = self.load.communicate(timeout=self.timeout)
            if self.load.returncode:
                raise subprocess.CalledProcessError(self.load.returncode,
                                                    self.load.args)
        finally:
            self.stop()
        return self.pick(json.loads(out.decode().strip().splitlines()[-1]))

    def stop(self):
        """
        Stop the load generator if it runs, and the servers.
        """
        if self.load is not None and self.load.poll() is None:
            self.load.kill()
            self.load.wait()
        for proc in self.servers:
            stopProcess(proc)
            if proc.stdout is not None:
                proc.stdout.close()


def launchGomoku(args, config, pinned, folder):
    """
    Start a gomoku measurement of C{config}: a fresh server (for the
    baseline, C{gomoku_load.py}'s own echo, pinned by it to the server's
    CPU) and C{gomoku_load.py --mode saturate} against it.
    """
    load = [os.path.join(HERE, "gomoku_load.py"), "--mode", "saturate",
            "--games", str(args.pairs), "--json"] + loadArguments(args)
    timeout = args.seconds + args.warmup + 180
    if config in ("baseline", "echo2"):
        # The load generator pins the echo server it starts to the first
        # CPU and itself to the second: it is given both.
        if config == "echo2":
            load.append("--echo-second-send")
        return Launched(
            [], load + ["--no-hub"], set(pinned) if pinned else None,
            lambda figures: pickGomoku(figures, "baseline"), timeout)
    proc, _ = startServer(args, config, pinned, folder)
    return Launched(
        [proc], load + ["--no-baseline", "--port", str(proc.gomokuPort),
                        "--server-pid", str(proc.pid)],
        pinned[1] if pinned else None,
        lambda figures: pickGomoku(figures, "hub"), timeout)


def pickGomoku(figures, name):
    run = figures["rounds"][0][name]
    return {"cpu_us": run["server_cpu_us_per_op"],
            "per_second": run["per_second"], "errors": run["errors"]}


def launchCheckers(args, config, pinned, folder):
    """
    Start a checkers measurement of C{config}: a fresh server (for the
    baseline, C{flood.py}'s relay) and this script's checkers client.
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
    argv = [os.path.abspath(__file__), "--checkers-client", str(port),
            "--server-pid", str(proc.pid), "--rooms", str(args.rooms)]
    if config == "baseline":
        argv.append("--relay")
    return Launched([proc], argv + loadArguments(args),
                    pinned[1] if pinned else None, lambda figures: figures,
                    args.seconds + args.warmup + 180)


def measureAlone(launch, args, config, pinned, folder):
    """
    One window of C{config} alone: its figures.
    """
    return launch(args, config, pinned, folder).start().collect()


def measureTogether(launch, args, config, pinned, folders, bareFirst):
    """
    One window of C{config} and one of a bare hub of its own, at the same
    moments, both servers on the server CPU and both load generators on
    the other: C{config}'s figures, with the bare hub's as C{bare_cpu_us}
    and C{bare_per_second}.
    """
    first = launch(args, "bare" if bareFirst else config, pinned,
                   folders[1 if bareFirst else 0])
    try:
        second = launch(args, config if bareFirst else "bare", pinned,
                        folders[0 if bareFirst else 1])
    except BaseException:
        first.stop()
        raise
    bare, other = (first, second) if bareFirst else (second, first)
    # The servers are up: the two loads start together.
    for launched in (bare, other) if bareFirst else (other, bare):
        launched.start()
    try:
        figures = other.collect()
    finally:
        bareFigures = bare.collect()
    figures["bare_cpu_us"] = bareFigures["cpu_us"]
    figures["bare_per_second"] = bareFigures["per_second"]
    figures["errors"] += bareFigures["errors"]
    return figures


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
    p.add_argument("--together", action="store_true",
                   help="run each configuration beside a bare hub of its "
                   "own, at the same moments, both servers on the server "
                   "CPU: the ratios are taken within the same seconds")
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
    C{name}'s C{key} over the bare hub's in one round's C{figures} (with
    C{--together}, its own bare hub's, in the same seconds), or None.
    """
    if name not in figures:
        return None
    bare = figures[name].get("bare_" + key)
    if bare is None and "bare" in figures:
        bare = figures["bare"][key]
    if not bare:
        return None
    return round(figures[name][key] / bare, 3)


def summarise(results):
    """
    Add to C{results} each game's ratios per round and their medians.
    """
    for game in results["games"]:
        rounds = results["rounds"][game]
        table = results["table"][game] = {}
        for name in results["configs"]:
            if game not in GAMES_OF.get(name, GAMES):
                continue
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
    launchers = {"gomoku": launchGomoku, "checkers": launchCheckers}
    results = {"configs": args.configs, "games": args.games,
               "pairs": args.pairs, "rooms": args.rooms,
               "seconds": args.seconds, "warmup": args.warmup,
               "together": args.together, "pinned": pinned, "cpus": os.cpu_count(),
               "rounds": {game: [] for game in args.games}, "table": {},
               "load_average": []}
    folder = tempfile.mkdtemp(prefix="gamehub-defaults-")
    folders = [os.path.join(folder, name) for name in ("hub", "bare")]
    for name in folders:
        os.mkdir(name)
    try:
        for number in range(args.rounds):
            order = args.configs if number % 2 == 0 else args.configs[::-1]
            for game in args.games:
                figures = {}
                results["rounds"][game].append(figures)
                for name in order:
                    if game not in GAMES_OF.get(name, GAMES):
                        continue
                    if args.together:
                        figures[name] = measureTogether(
                            launchers[game], args, name, pinned, folders,
                            number % 2 == 0)
                    else:
                        figures[name] = measureAlone(
                            launchers[game], args, name, pinned, folders[0])
                    if not args.json:
                        printRound(number, game, name, figures[name])
            results["load_average"].append(os.getloadavg())
    finally:
        shutil.rmtree(folder, True)
    summarise(results)
    if args.json:
        print(json.dumps(results, sort_keys=True))
    else:
        report(results)
    return 0


def printRound(number, game, name, figures):
    """
    Print one measurement's line (with C{--together}, its bare hub's
    figures after it).
    """
    line = "round %d %-8s %-8s %7.1f us/move %8.1f moves/s" % (
        number + 1, game, name, figures["cpu_us"], figures["per_second"])
    if "bare_cpu_us" in figures:
        line += "  | bare beside it %7.1f us/move %8.1f moves/s" % (
            figures["bare_cpu_us"], figures["bare_per_second"])
    print(line + "  errors %d  load %.1f" % (
        figures["errors"], os.getloadavg()[0]), flush=True)


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
    if results["together"]:
        where = (", each configuration beside a bare hub of its own at "
                 "the same moments (the ratios within a pair)" + where)
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
            if name not in results["table"][game]:
                continue
            row = results["table"][game][name]
            print("| %s | %s | %s | %.1f us | %.0f |" % (
                CONFIGS[name][1], times(row, "cpu"), times(row, "rate"),
                row["cpu"], row["rate"]))
        table = results["table"][game]
        for name, what in (("baseline", "JSON echo" if game == "gomoku"
                            else "bare relay"),
                           ("echo2", "JSON echo sending twice")):
            if name not in table or "cpu_vs_bare" not in table[name]:
                continue
            ratios = [1 / r for r in (
                ratio(f, name, "cpu_us")
                for f in results["rounds"][game]) if r]
            print()
            print("bare hub / %s, CPU per move: %.2fx (%.2f-%.2f)" % (
                what, statistics.median(ratios), min(ratios), max(ratios)))
    print()
    print("load average after each round: " + "; ".join(
        "%.2f %.2f %.2f" % tuple(a) for a in results["load_average"]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
