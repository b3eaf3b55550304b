"""
Gomoku throughput of a cluster of hub nodes on loopback.

Scenarios (C{--scenario}):
  - C{nodes}: in each round, three configurations, each on fresh nodes
    started with C{--cluster} over one private Redis:
      - C{one}: one node pinned to the first CPU;
      - C{same}: two nodes, one pinned to each CPU, sharing the gomoku
        port through C{reuseport:}, every pair's two players on the same
        node (target: at least 1.7x C{one});
      - C{split}: the same two nodes, every pair split across them (the
        guest joins a room homed on the other node: one forwarded hop);
        its throughput and p99 are reported against C{same}.
  - C{idle}: one node without C{--cluster} (C{alone}) against one with it
    and nothing to forward (C{cluster}); target: at most 5% slower.  As
    in C{bench/gomoku_load.py}, the node is on the first CPU and this load
    generator on the second.

The load is C{bench/gomoku_load.py}'s (imported, not copied): pairs play
the same 225-move draw in a loop, each game moving as soon as the
previous move reaches the opponent (or once per C{--interval} with
C{--mode paced}).  With C{reuseport:} the kernel, not the client, picks a
connection's node: this script opens connections, finds which node
accepted each one (the node's socket inodes in C{/proc/PID/fd} against
C{/proc/net/tcp}), and pairs them as the configuration needs.

Rounds alternate the order of the configurations; the summary gives the
median of each figure over the rounds and the load average, since the
machine may be shared.  Examples::

    python bench/cluster_load.py --scenario nodes --rounds 5
    python bench/cluster_load.py --scenario idle --rounds 6

Not a test: it prints figures.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import gomoku_load  # noqa: E402
from gomoku_load import (  # noqa: E402
    Bench, freePort, makeClientClasses, raiseFileLimit, startHub,
    stopProcess, waitForPort)

SCENARIOS = {
    "nodes": ("one", "same", "split"),
    "idle": ("alone", "cluster"),
}

# A connection kept only because it landed on a node with enough players:
# its loss is no error.
SPARE = types.SimpleNamespace(stopping=True)


def loadAverage():
    """
    The 1-minute load average.
    """
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


# -- servers -------------------------------------------------------------

def startRedis():
    """
    A private C{redis-server} on a free loopback port, without disk.

    @return: C{(url, process)}.
    """
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("redis-server is not installed (or use --redis)")
    port = freePort()
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no"],
        stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    waitForPort(port, proc)
    return "redis://127.0.0.1:{}/0".format(port), proc


def waitForLog(path, text, proc, timeout=20.0):
    """
    Block until C{text} appears in the log at C{path}.
    """
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("node exited with %s" % (proc.returncode,))
        try:
            with open(path) as f:
                if text in f.read():
                    return
        except OSError:
            pass
        time.sleep(0.05)
    raise RuntimeError("%r never appeared in %s" % (text, path))


def startNode(port, cpu, redis=None, name=None, reusePort=False):
    """
    Start one gamehub node serving gomoku on 127.0.0.1:C{port}, pinned to
    C{cpu}, records off; with C{redis}, a cluster node called C{name};
    with C{reusePort}, listening through C{reuseport:}.

    @return: the process, once it listens (and, as a node, links).
    """
    logPath = os.path.join(tempfile.gettempdir(),
                           "cluster_load_%s.log" % (name or "alone",))
    if os.path.exists(logPath):
        os.remove(logPath)
    extra = ["--db", "none"]
    if reusePort:
        extra += ["--gomoku-port",
                  "reuseport:%d:interface=127.0.0.1" % (port,)]
    if redis is not None:
        extra += ["--cluster", redis, "--node-id", name,
                  "--node-link", "tcp:0:interface=127.0.0.1"]
    proc = startHub(port, logPath, extra=extra, cpu=cpu)
    waitForLog(logPath, "starting on %d" % (port,), proc)
    if redis is not None:
        waitForLog(logPath, "links on", proc)
    return proc


# -- which node took a connection ------------------------------------------

def socketInodes(pid):
    """
    The inodes of the sockets process C{pid} holds.
    """
    inodes = set()
    fds = "/proc/%d/fd" % (pid,)
    for fd in os.listdir(fds):
        try:
            target = os.readlink(os.path.join(fds, fd))
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(int(target[8:-1]))
    return inodes


def acceptedPorts(pids, serverPort):
    """
    C{{clientPort: pid}} of the loopback connections to C{serverPort}
    that each process of C{pids} accepted.
    """
    owners = {}
    for pid in pids:
        for inode in socketInodes(pid):
            owners[inode] = pid
    found = {}
    with open("/proc/net/tcp") as f:
        next(f)
        for line in f:
            fields = line.split()
            local, remote, inode = fields[1], fields[2], int(fields[9])
            pid = owners.get(inode)
            if pid is not None and int(local.split(":")[1], 16) == serverPort:
                found[int(remote.split(":")[1], 16)] = pid
    return found


async def landedConnections(bench, port, pids, need, timeout=60.0):
    """
    Open connections to C{port} until each node has its share.

    @param need: C{{pid: connections wanted on that node}}.
    @return: C{{pid: [connection, ...]}}, exactly as many as C{need}
        asks; the connections left over stay open, marked spare.
    """
    from twisted.internet import defer, task
    from twisted.internet.endpoints import TCP4ClientEndpoint
    from twisted.internet.protocol import Factory
    pools = {pid: [] for pid in need}
    deadline = time.time() + timeout
    sem = defer.DeferredSemaphore(64)

    def connect(conn):
        endpoint = TCP4ClientEndpoint(bench.reactor, "127.0.0.1", port,
                                      timeout=30)
        d = sem.run(endpoint.connect, Factory.forProtocol(lambda: conn))
        bench.spares.append(conn)
        return d

    while True:
        short = sum(max(0, need[pid] - len(pools[pid])) for pid in need)
        if short == 0:
            return pools
        if time.time() > deadline:
            raise RuntimeError("the nodes never took their share")
        batch = [bench.Conn(bench, None, None)
                 for _ in range(short + short // 4 + 2)]
        await defer.gatherResults([connect(conn) for conn in batch],
                                  consumeErrors=True)
        # A connection the nodes have not accepted within a few seconds
        # (a busy machine) is left spare.
        settled = min(deadline, time.time() + 5.0)
        while True:
            landed = acceptedPorts(pids, port)
            where = [landed.get(conn.transport.getHost().port)
                     for conn in batch]
            if None not in where or time.time() > settled:
                break
            await task.deferLater(bench.reactor, 0.05, lambda: None)
        for conn, pid in zip(batch, where):
            if pid is not None and len(pools[pid]) < need[pid]:
                pools[pid].append(conn)
                bench.spares.remove(conn)
            else:
                conn.bench = SPARE


# -- one measured configuration --------------------------------------------

class ClusterBench(Bench):
    """
    One measured run against one or two nodes, whose pairs are placed on
    nodes as the configuration says.
    """

    def __init__(self, *args, **kwargs):
        Bench.__init__(self, *args, **kwargs)
        self.spares = []
        self.Conn, _, self.GameTable, _ = makeClientClasses()

    async def play(self, games, pids, placement):
        """
        Set up C{games} pairs, owner and guest placed on the nodes
        C{placement(index)} returns, then measure.
        """
        from twisted.internet import defer
        need = {pid: 0 for pid in pids}
        places = [placement(i) for i in range(games)]
        for owner, guest in places:
            need[owner] += 1
            need[guest] += 1
        setupStart = gomoku_load.now()
        pools = await landedConnections(self, self.port, pids, need)
        for i, (owner, guest) in enumerate(places):
            table = self.GameTable(self, "%s%d" % (self.tag, i))
            self.tables.append(table)
            for role, pid in (("owner", owner), ("guest", guest)):
                conn = pools[pid].pop()
                conn.table = table
                conn.role = role
                table.attach(conn)
        await defer.gatherResults([table.ready for table in self.tables],
                                  consumeErrors=True)
        result = {"connections": 2 * games,
                  "setup_seconds": round(gomoku_load.now() - setupStart, 2),
                  "load_average": loadAverage()}
        return await self.measure(pids, result)

    def close(self):
        Bench.close(self)
        for conn in self.spares:
            if conn.transport is not None:
                conn.transport.abortConnection()


async def runConfiguration(reactor, name, args, redis, tag):
    """
    Start the nodes of configuration C{name}, measure, stop them.
    """
    from twisted.internet.task import deferLater
    port = freePort()
    cpus = sorted(os.sched_getaffinity(0))
    procs = []
    try:
        if name == "alone":
            procs.append(startNode(port, cpus[0]))
        elif name == "cluster":
            procs.append(startNode(port, cpus[0], redis, tag + "a"))
        elif name == "one":
            procs.append(startNode(port, cpus[0], redis, tag + "a",
                                   reusePort=True))
        else:
            for i, node in enumerate("ab"):
                procs.append(startNode(port, cpus[i % len(cpus)], redis,
                                       tag + node, reusePort=True))
        pids = [proc.pid for proc in procs]
        if name == "split":
            # Half the rooms homed on each node, every guest on the other.
            def placement(i):
                return (pids[i % 2], pids[1 - i % 2])
        else:
            def placement(i):
                pid = pids[i % len(pids)]
                return (pid, pid)
        interval = args.interval if args.mode == "paced" else 0.0
        bench = ClusterBench(reactor, port, args.mode, interval,
                             args.warmup, args.seconds, tag=tag)
        try:
            return await bench.play(args.games, pids, placement)
        finally:
            bench.close()
            await deferLater(reactor, 0.5, lambda: None)
    finally:
        for proc in procs:
            stopProcess(proc)


# -- main ------------------------------------------------------------------

def parseArgs(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    p.add_argument("--scenario", choices=sorted(SCENARIOS), default="nodes")
    p.add_argument("--mode", choices=["saturate", "paced"],
                   default="saturate")
    p.add_argument("--games", type=int, default=100,
                   help="games (pairs of connections) in every "
                   "configuration")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--seconds", type=float, default=5.0,
                   help="length of each measured window")
    p.add_argument("--warmup", type=float, default=1.0)
    p.add_argument("--interval", type=float, default=1.0,
                   help="paced mode: seconds between moves of a game")
    p.add_argument("--redis", default=None,
                   help="redis://HOST:PORT/DB to use (default: start a "
                   "private redis-server)")
    p.add_argument("--json", action="store_true",
                   help="print the figures as one JSON object")
    return p.parse_args(argv)


FIGURES = ("per_second", "p50_ms", "p99_ms", "server_cpu_us_per_op",
           "server_cpu_pct", "client_cpu_pct", "other_cpu_pct",
           "load_average", "errors")


def median(rounds, config, figure):
    values = [r[config][figure] for r in rounds
              if config in r and r[config].get(figure) is not None]
    return statistics.median(values) if values else None


def summarize(results):
    """
    Medians over the rounds, and the ratios the targets are about.
    """
    rounds = results["rounds"]
    configs = SCENARIOS[results["scenario"]]
    medians = {c: {f: median(rounds, c, f) for f in FIGURES}
               for c in configs}
    ratios = {}

    def ratio(name, top, bottom, figure):
        values = [r[top][figure] / r[bottom][figure] for r in rounds
                  if r[bottom][figure]]
        ratios[name] = {"median": round(statistics.median(values), 3),
                        "rounds": [round(v, 3) for v in values]}
    if results["scenario"] == "nodes":
        ratio("same_over_one", "same", "one", "per_second")
        ratio("split_over_same", "split", "same", "per_second")
        ratio("split_p99_over_same", "split", "same", "p99_ms")
        ratio("same_cpu_per_move_over_one", "same", "one",
              "server_cpu_us_per_op")
        ratio("split_cpu_per_move_over_same", "split", "same",
              "server_cpu_us_per_op")
    else:
        ratio("cluster_over_alone", "cluster", "alone", "per_second")
        ratio("cluster_cpu_per_move_over_alone", "cluster", "alone",
              "server_cpu_us_per_op")
        ratio("cluster_p99_over_alone", "cluster", "alone", "p99_ms")
    results["medians"] = medians
    results["ratios"] = ratios


def report(results):
    """
    Print the figures for humans.
    """
    print("scenario %(scenario)s, mode %(mode)s, %(games)d games, %(count)d "
          "rounds, window %(seconds)ss after %(warmup)ss warm-up, "
          "%(cpus)d CPUs; load average %(load_before).2f before, "
          "%(load_after).2f after" % dict(results,
                                          count=len(results["rounds"])))
    for i, figures in enumerate(results["rounds"]):
        print(" round %d" % (i + 1,))
        for config in figures:
            r = figures[config]
            print("  %-7s %8.1f moves/s  p50 %6s ms  p99 %6s ms  server "
                  "%5s us/move (%3d%% CPU)  client %3d%%  others %3d%%  "
                  "load %.2f  errors %d" % (
                      config, r["per_second"], r["p50_ms"], r["p99_ms"],
                      r["server_cpu_us_per_op"], r["server_cpu_pct"],
                      r["client_cpu_pct"], r["other_cpu_pct"],
                      r["load_average"], r["errors"]))
    print(" medians")
    for config, r in results["medians"].items():
        print("  %-7s %8.1f moves/s  p50 %6s ms  p99 %6s ms  server "
              "%5s us/move  load %.2f" % (
                  config, r["per_second"], r["p50_ms"], r["p99_ms"],
                  r["server_cpu_us_per_op"], r["load_average"]))
    for name, r in results["ratios"].items():
        print("  %-32s median %.3f  (rounds: %s)" % (
            name, r["median"], ", ".join("%.3f" % v for v in r["rounds"])))


def main(argv):
    args = parseArgs(argv)
    configs = SCENARIOS[args.scenario]
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        raise SystemExit("needs two CPUs")
    raiseFileLimit(4 * args.games + 200)
    if args.scenario == "idle":
        # As gomoku_load: the node on the first CPU, the load on the second.
        os.sched_setaffinity(0, {cpus[1]})
    results = {"scenario": args.scenario, "mode": args.mode,
               "games": args.games, "rounds": [], "seconds": args.seconds,
               "warmup": args.warmup, "cpus": len(cpus),
               "load_before": loadAverage()}
    redisProc = None
    redis = args.redis
    if redis is None:
        redis, redisProc = startRedis()
    from twisted.internet import reactor
    from twisted.internet.defer import ensureDeferred
    failures = []

    async def runAll():
        for r in range(args.rounds):
            figures = {}
            results["rounds"].append(figures)
            order = configs if r % 2 == 0 else tuple(reversed(configs))
            for config in order:
                tag = "r%d%s_" % (r, config)
                figures[config] = await runConfiguration(
                    reactor, config, args, redis + "?prefix=" + tag, tag)
            results["rounds"][-1] = {c: figures[c] for c in configs}

    def done(result):
        if timer.active():
            timer.cancel()
        if hasattr(result, "printTraceback"):
            failures.append(result)
            result.printTraceback(file=sys.stderr)
        reactor.stop()

    def overtime():
        print("gave up: the run took longer than %ds" % (limit,),
              file=sys.stderr)
        failures.append("timeout")
        reactor.stop()

    limit = args.rounds * len(configs) * (90 + args.warmup + args.seconds)
    timer = reactor.callLater(limit, overtime)
    try:
        reactor.callWhenRunning(
            lambda: ensureDeferred(runAll()).addBoth(done))
        reactor.run()
    finally:
        if redisProc is not None:
            stopProcess(redisProc)
    if failures:
        return 1
    results["load_after"] = loadAverage()
    summarize(results)
    if args.json:
        print(json.dumps(results, sort_keys=True))
    else:
        report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
