"""
Arena benchmark: a gomoku arena of engines against C{twistd -n gamehub}
with its default options, and ordinary bot games of the same level over
TCP as the baseline, in the same run.

    python bench/arena.py                          # 64 engines, 10 min
    python bench/arena.py --minutes 1 --engines 16 # a short check
    python bench/arena.py --sandbox bwrap,none     # both, side by side
    python bench/arena.py --protocol tcp,gomocup,stdio  # engines' protocols

The hub runs with every default (C{--names accounts}, 100 connections
per address, the request rate...) but its ports and its SQLite file.
The arena (C{python -m hub.tournaments ... --format arena --minutes M})
has C{--engines} engine entrants, each the bot client at C{--level}::

    python -m hub.bots gomoku://{host}:{port} --name {name} --key-env
        --room {room} --level L --games 1 --delay D

which the hub's engine runner starts for each game (one process per
engine per game, on a private listener, with a one-time game key in
C{GAMEHUB_KEY}), in the engine sandbox of C{--sandbox} (bwrap, the
default; with C{bwrap,none} one arena in each, one after the other, each
on a fresh hub).  Measured from the start to the hub's "finished":

  - games finished (and how the others ended), moves (the recorded
    games' C{action_count}), and the hub's CPU (user + system, from
    C{/proc}) per move;
  - memory: the hub's RSS before the event and at its peak during it,
    over the most engines running at once (growth per engine), and the
    engines' own RSS (the hub's child processes, sampled every second).

With C{--protocol gomocup} or C{stdio} the entrants are the same bot
as engines over standard streams (C{bench/hubbrain.py}: a Gomocup brain,
or a stdio engine), which live for the whole event: one process each,
not one per game.

Then the baseline: C{--engines}/2 bot client processes, each two bots
in a room of its own playing game after game at the same level and
delay (C{python -m hub.bots ... --count 2 --games N}), for
C{--baseline-seconds}; the hub's CPU over that time per move of the
games recorded in it.  The ratio of the two CPU figures is what an
arena costs per move over ordinary play (its engines start a process
per game: the hub forks them, opens a listener per engine, and its
director pairs every 2 s).

Not a test: it prints figures (and a JSON line with all of them).
"""

import argparse
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from gomoku_load import (  # noqa: E402
    cpuSeconds, freePort, rssKiB, stopProcess, waitForPort)

#: Seconds the arena may run past its minutes (its last games).
OVERTIME = 600


def parseArgs(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--minutes", type=float, default=10.0,
                   help="the arena's duration (default 10)")
    p.add_argument("--engines", type=int, default=64,
                   help="engine entrants (default 64)")
    p.add_argument("--level", type=int, default=1, choices=(1, 2, 3),
                   help="the bots' level (default 1)")
    p.add_argument("--delay", type=float, default=0.0,
                   help="seconds a bot waits before each move, engines "
                        "and baseline alike (default 0)")
    p.add_argument("--baseline-seconds", type=float, default=None,
                   help="length of the baseline (default: the arena's "
                        "minutes, at most 120 s)")
    p.add_argument("--sandbox", default="bwrap",
                   help="the hub's --engine-sandbox: bwrap, none, or a "
                        "comma-separated list run in turn (default bwrap)")
    p.add_argument("--protocol", default="tcp",
                   help="the engines' protocol: tcp (the bot client, a "
                        "process per game), gomocup or stdio "
                        "(bench/hubbrain.py, a process per event), or a "
                        "comma-separated list run in turn (default tcp)")
    p.add_argument("--keep", action="store_true",
                   help="keep the working folder (the hub's log, the "
                        "database, the engines' logs)")
    return p.parse_args(argv)


def python(*argv):
    return [sys.executable] + list(argv)


def cli(url, *argv):
    """
    Run C{python -m hub.tournaments --db URL ARGV}; its standard output.
    """
    result = subprocess.run(
        python("-m", "hub.tournaments", "--db", url, *argv), cwd=ROOT,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    if result.returncode != 0:
        raise SystemExit("hub.tournaments %s: %s" % (
            argv[0], result.stderr.decode()))
    return result.stdout.decode()


def startHub(folder, url, sandbox="bwrap"):
    """
    C{twistd -n gamehub} with its default options but its ports (gomoku
    and the web face on free loopback ports, the others off) and its
    database, in C{folder}.

    @return: C{(process, gomoku port, log path)}.
    """
    twistd = os.path.join(os.path.dirname(sys.executable), "twistd")
    if not os.path.exists(twistd):
        twistd = shutil.which("twistd") or "twistd"
    port, web = freePort(), freePort()
    log = os.path.join(folder, "hub.log")
    process = subprocess.Popen(
        [twistd, "-n", "--pidfile=", "--logfile=" + log, "gamehub",
         "--gomoku-port", "tcp:%d:interface=127.0.0.1" % (port,),
         "--web-port", "tcp:%d:interface=127.0.0.1" % (web,),
         "--checkers-port", "none", "--splendor-port", "none",
         "--engine-sandbox", sandbox, "--db", url], cwd=folder,
        stdin=subprocess.DEVNULL)
    waitForPort(port, process, timeout=60)
    return process, port, log


def children(pid):
    """
    The process ids whose parent is C{pid}: the hub's engines, each
    with its tree (bwrap and all it started, or the engine alone).
    """
    parents = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % (entry,)) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents.setdefault(int(fields[1]), []).append(int(entry))
    return [(child, tree(child, parents))
            for child in parents.get(pid, [])]


def tree(pid, parents):
    found = [pid]
    for child in parents.get(pid, []):
        found.extend(tree(child, parents))
    return found


def rssOr0(pid):
    try:
        return rssKiB(pid)
    except (OSError, ValueError):
        return 0


def treeRss(pids):
    return sum(rssOr0(pid) for pid in pids)


def logged(path, pattern):
    """
    Whether the hub's log at C{path} has a line matching C{pattern}.
    """
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return re.search(pattern, f.read()) is not None
    except OSError:
        return False


def movesOf(path, where, params=()):
    """
    The recorded gomoku games matching C{where}: C{(games, moves)}.
    """
    connection = sqlite3.connect(path)
    try:
        return connection.execute(
            "SELECT COUNT(*), COALESCE(SUM(action_count), 0) FROM games "
            "WHERE kind = 'gomoku' AND " + where, params).fetchone()
    finally:
        connection.close()


def runArena(options, hub, url, dbPath, log, protocol="tcp"):
    """
    The arena, from its start to the hub's "finished".

    @return: its figures, a dict.
    """
    eventId = int(cli(url, "create", "--name", "Arena bench", "--game",
                      "gomoku", "--format", "arena", "--minutes",
                      "%g" % (options.minutes,)).splitlines()[-1])
    command = ["python", "-m", "hub.bots", "gomoku://{host}:{port}",
               "--name", "{name}", "--key-env", "--room", "{room}",
               "--level", str(options.level), "--games", "1", "--delay",
               "%g" % (options.delay,)]
    command[0] = sys.executable
    if protocol != "tcp":
        command = [sys.executable, os.path.join(HERE, "hubbrain.py"),
                   protocol, str(options.level)]
    for index in range(options.engines):
        if protocol == "tcp":
            cli(url, "engine", "add", str(eventId), "a%02d" % (index,),
                "--", *command)
        else:
            # Each entrant a registered engine of its own name.
            cli(url, "engine", "register", "a%02d" % (index,),
                "--protocol", protocol, "--folder", HERE, "--", *command)
            cli(url, "engine", "add", str(eventId), "a%02d" % (index,))
    time.sleep(3)
    idleRss = rssOr0(hub.pid)
    cpu0, t0 = cpuSeconds(hub.pid), time.monotonic()
    cli(url, "start", str(eventId))
    print("arena %d: %d engines, level %d, %g min; started" % (
        eventId, options.engines, options.level, options.minutes),
        flush=True)
    peakRss, peakEngines, engineSamples = idleRss, 0, []
    deadline = t0 + options.minutes * 60 + OVERTIME
    pattern = r"tournament %d \('Arena bench'\) finished" % (eventId,)
    nextReport = t0 + 60
    while not logged(log, pattern):
        if time.monotonic() > deadline or hub.poll() is not None:
            raise SystemExit("the arena did not finish (see %s)" % (log,))
        rss = rssOr0(hub.pid)
        engines = [treeRss(pids) for _, pids in children(hub.pid)]
        engines = [r for r in engines if r]
        if rss > peakRss:
            peakRss = rss
        peakEngines = max(peakEngines, len(engines))
        if engines:
            engineSamples.append(sum(engines) / len(engines))
        if time.monotonic() > nextReport:
            nextReport += 60
            print("  %.0f s: %d engines running, hub RSS %d KiB" % (
                time.monotonic() - t0, len(engines), rss), flush=True)
        time.sleep(1.0)
    cpu1, t1 = cpuSeconds(hub.pid), time.monotonic()
    export = json.loads(cli(url, "export", str(eventId)))
    pairings = [p for r in export["rounds"] for p in r["pairings"]
                if not p.get("bye")]
    results = {}
    for p in pairings:
        results[p["result"]] = results.get(p["result"], 0) + 1
    failed = {"engine-failed", "no-show", None}
    games, moves = movesOf(dbPath, "event = ?", (eventId,))
    return {
        "engines": options.engines,
        "protocol": protocol,
        "seconds": round(t1 - t0, 1),
        "games_per_minute": round(60.0 * sum(
            n for r, n in results.items() if r not in failed)
            / (t1 - t0), 1),
        "pairings": len(pairings),
        "games_finished": sum(n for r, n in results.items()
                              if r not in failed),
        "results": {str(k): v for k, v in sorted(
            results.items(), key=lambda kv: str(kv[0]))},
        "games_recorded": games,
        "moves": moves,
        "hub_cpu_s": round(cpu1 - cpu0, 2),
        "hub_cpu_us_per_move": round(1e6 * (cpu1 - cpu0) / moves, 1)
        if moves else None,
        "hub_rss_idle_kib": idleRss,
        "hub_rss_peak_kib": peakRss,
        "engines_at_once_max": peakEngines,
        "hub_rss_growth_per_engine_kib": round(
            (peakRss - idleRss) / peakEngines, 1) if peakEngines else None,
        "engine_rss_mean_kib": round(
            sum(engineSamples) / len(engineSamples), 1)
        if engineSamples else None,
    }


def runBaseline(options, hub, port, dbPath, folder):
    """
    Ordinary bot games of the same level over TCP for the baseline's
    seconds.

    @return: its figures, a dict.
    """
    seconds = options.baseline_seconds
    if seconds is None:
        seconds = min(120.0, options.minutes * 60)
    pairs = max(1, options.engines // 2)
    since = time.time()
    cpu0, t0 = cpuSeconds(hub.pid), time.monotonic()
    processes = []
    for index in range(pairs):
        out = open(os.path.join(folder, "baseline-%d.log" % (index,)), "wb")
        processes.append(subprocess.Popen(
            python("-m", "hub.bots", "gomoku://127.0.0.1:%d" % (port,),
                   "--count", "2", "--level", str(options.level),
                   "--games", "100000", "--delay", "%g" % (options.delay,),
                   "--name", "b%02d_" % (index,), "--room",
                   "base%d" % (index,)),
            cwd=ROOT, stdout=out, stderr=subprocess.STDOUT))
        out.close()
    print("baseline: %d bot pairs, level %d, %g s" % (
        pairs, options.level, seconds), flush=True)
    time.sleep(seconds)
    cpu1, t1 = cpuSeconds(hub.pid), time.monotonic()
    until = time.time()
    for process in processes:
        stopProcess(process)
    time.sleep(2)
    games, moves = movesOf(dbPath, "event IS NULL AND ended_at >= ? AND "
                           "ended_at <= ?", (since, until))
    return {
        "pairs": pairs,
        "seconds": round(t1 - t0, 1),
        "games_finished": games,
        "games_per_minute": round(60.0 * games / (t1 - t0), 1),
        "moves": moves,
        "hub_cpu_s": round(cpu1 - cpu0, 2),
        "hub_cpu_us_per_move": round(1e6 * (cpu1 - cpu0) / moves, 1)
        if moves else None,
    }


def report(sandbox, arena, baseline):
    sandbox = "%s/%s" % (sandbox, arena["protocol"])
    ratio = None
    if arena["hub_cpu_us_per_move"] and baseline["hub_cpu_us_per_move"]:
        ratio = round(arena["hub_cpu_us_per_move"]
                      / baseline["hub_cpu_us_per_move"], 2)
    print("%s arena: %%(games_finished)d games finished of %%(pairings)d "
          "pairings in %%(seconds)g s, %%(moves)d moves; hub CPU "
          "%%(hub_cpu_s)g s, %%(hub_cpu_us_per_move)s us/move, "
          "%%(games_per_minute)g games/min" % (sandbox,) % arena)
    print("  results %s" % (arena["results"],))
    print("  memory: hub RSS %(hub_rss_idle_kib)d KiB idle, "
          "%(hub_rss_peak_kib)d KiB peak with up to "
          "%(engines_at_once_max)d engines running: "
          "%(hub_rss_growth_per_engine_kib)s KiB per engine; an engine's "
          "own RSS (its tree) %(engine_rss_mean_kib)s KiB" % arena)
    print("%s baseline: %%(games_finished)d games, %%(moves)d moves in "
          "%%(seconds)g s by %%(pairs)d bot pairs; hub CPU %%(hub_cpu_s)g s, "
          "%%(hub_cpu_us_per_move)s us/move, %%(games_per_minute)g "
          "games/min" % (sandbox,) % baseline)
    print("%s arena / ordinary play, hub CPU per move: %s" % (sandbox,
                                                              ratio))
    return ratio


def main(argv):
    options = parseArgs(argv)
    results = {}
    for sandbox in options.sandbox.split(","):
        for protocol in options.protocol.split(","):
            folder = tempfile.mkdtemp(prefix="gamehub-arena-bench-")
            dbPath = os.path.join(folder, "hub.sqlite")
            url = "sqlite:" + dbPath
            hub, port, log = startHub(folder, url, sandbox)
            try:
                print("engine sandbox: %s, protocol %s" % (
                    sandbox, protocol), flush=True)
                arena = runArena(options, hub, url, dbPath, log, protocol)
                baseline = runBaseline(options, hub, port, dbPath, folder)
            finally:
                stopProcess(hub)
                if options.keep:
                    print("kept", folder)
                else:
                    shutil.rmtree(folder, True)
            key = sandbox if protocol == "tcp" else "%s/%s" % (sandbox,
                                                               protocol)
            results[key] = {"arena": arena, "baseline": baseline,
                            "ratio": report(sandbox, arena, baseline)}
    if "bwrap" in results and "none" in results:
        bwrap, none = results["bwrap"], results["none"]
        print("bwrap / none, hub CPU per move in the arena: %.2f" % (
            bwrap["arena"]["hub_cpu_us_per_move"]
            / none["arena"]["hub_cpu_us_per_move"]))
    print(json.dumps({"results": results, "level": options.level,
                      "delay": options.delay, "minutes": options.minutes}))


if __name__ == "__main__":
    main(sys.argv[1:])
