"""
Reactor lag while bots think: a C{LoopingCall} every 10 ms in the hub's
process records how late it runs, while rooms of level-3 bots play gomoku
and checkers, and again while people play beside them.  Each figure is
taken for bots thinking on the reactor thread (C{inline}: what the hub
did before its worker pool, L{hub.thinkers.inline}) and in the pool
(C{pool}: L{hub.thinkers.pool}), side by side in one run.

    python bench/reactorlag.py                       # 20 rooms, 20 people
    python bench/reactorlag.py --rooms 20 --people 20 --seconds 20
    python bench/reactorlag.py --scenarios bots --thinkers pool

Each measurement runs a fresh hub in a child process (this script with
C{--serve}): a L{hub.service.Hub} on the real reactor, a gomoku listener
for the people, and C{--rooms} tables (half gomoku, half checkers, two
level-3 bots each, at the protocols' bot delays: 0.5 s and 1 s) whose
games start again as they end.  The people are C{bench/gomoku_load.py
--mode paced} in a process of their own: C{--people} games, a move every
C{--interval} seconds each, with the latency from a move sent to the
opponent's reading it.  Scenarios: C{bots} (the rooms alone), C{people}
(the rooms and the people) and C{alone} (the people without bots: the
move latency of an idle hub).

Not a test: it prints figures (C{--json} for one JSON object).
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

#: The probe's period (seconds).
PERIOD = 0.01


def percentile(values, p):
    """
    The C{p}th percentile of C{values} (nearest rank), or None.
    """
    if not values:
        return None
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1,
                      int(round(p / 100.0 * len(ordered) + 0.5)) - 1))
    return ordered[rank]


# -- the hub's side (--serve) ----------------------------------------------

class LagProbe:
    """
    A C{LoopingCall} every L{PERIOD} seconds that records how late each
    call runs (ms) against the grid it was scheduled on.
    """

    def __init__(self, reactor):
        from twisted.internet.task import LoopingCall
        self.reactor = reactor
        self.lags = []
        self.loop = LoopingCall(self.tick)
        self.loop.clock = reactor
        self.start = self.due = None

    def begin(self):
        self.start = self.due = self.reactor.seconds()
        self.loop.start(PERIOD, now=False)

    def tick(self):
        now = self.reactor.seconds()
        self.lags.append(max(0.0, now - self.due - PERIOD) * 1000)
        # The grid point LoopingCall schedules next (missed ones skipped).
        self.due = self.start + PERIOD * int((now - self.start) / PERIOD)

    def end(self):
        self.loop.stop()


class BotRooms:
    """
    Tables whose every seat a level-3 bot plays, started again as each
    game ends; counts the bots' moves.
    """

    def __init__(self, clock, thinker, rooms):
        self.clock = clock
        self.thinker = thinker
        self.moves = 0
        self.games = 0
        self.tables = []
        self.stopped = False
        for number in range(rooms):
            self.startTable("gomoku" if number % 2 == 0 else "checkers",
                            number)

    def startTable(self, kind, number):
        from hub.games.checkers import CheckersGame
        from hub.games.gomoku import colourOfSeat
        from hub.tables import events
        from hub.tables.base import TableOptions
        from hub.tables.checkers import CheckersTable
        from hub.tables.gomoku import GomokuTable
        if self.stopped:
            return
        name = "{}{}".format(kind, number)
        if kind == "gomoku":
            options = TableOptions(takeover="bot", botLevel=3, botDelay=0.5,
                                   thinker=self.thinker)
            seats = [events.Seat(s, "b%d" % s, s + 1, colourOfSeat(s))
                     for s in (0, 1)]
            table = GomokuTable(name, seats, self.clock, options)
        else:
            options = TableOptions(takeover="bot", botLevel=3, botDelay=1.0,
                                   turnSeconds=15, turnGrace=0.5,
                                   thinker=self.thinker)
            game = CheckersGame(2)
            seats = [events.Seat(s, "b%d" % s, s + 1, game.regionOfSeat(s))
                     for s in (0, 1)]
            table = CheckersTable(name, seats, game, self.clock, options)
        table.addListener(self)
        table.number = number
        self.tables.append(table)
        table.start()
        for seat in (0, 1):
            table.takeOver(seat, seed=number * 10 + seat, level=3)

    def tableEvent(self, table, event):
        from hub.tables import events
        if isinstance(event, events.ActionPlayed):
            self.moves += 1
        elif isinstance(event, events.GameEnded):
            self.games += 1
            self.tables.remove(table)
            self.clock.callLater(0.5, self.startTable, table.kind,
                                 table.number)

    def stop(self):
        self.stopped = True
        for table in self.tables:
            table.stop()


def serve(args):
    """
    The hub's process: print C{READY PORT}; then, on its standard input,
    C{GO} starts the measured window and C{END} ends it (the figures are
    printed as JSON), and the end of the input stops the hub.
    """
    from twisted.internet import reactor, stdio
    from twisted.internet.endpoints import TCP4ServerEndpoint
    from twisted.protocols.basic import LineReceiver

    from hub.protocols.gomoku import GomokuFactory
    from hub.service import Hub
    from hub.thinkers.inline import InlineThinker
    from hub.thinkers.pool import BotPool, WorkerProcesses

    hub = Hub(reactor)
    hub.startService()
    if args.thinker == "pool":
        thinker = BotPool(hub.clock, WorkerProcesses(args.workers,
                                                     hub.clock, reactor))
        thinker.setServiceParent(hub)
    else:
        thinker = InlineThinker()
    factory = GomokuFactory(hub.lobby, hub.sessions, hub.clock,
                            thinker=thinker)
    probe = LagProbe(reactor)
    figures = {"thinker": args.thinker, "rooms": args.rooms}
    state = {}

    def ready(port):
        if args.thinker == "pool" and not thinker.ready:
            reactor.callLater(0.1, ready, port)
            return
        state["rooms"] = BotRooms(hub.clock, thinker, args.rooms)
        print("READY", port.getHost().port, flush=True)

    def go():
        state["moves"] = state["rooms"].moves
        state["cpu"] = cpuTimes()
        if args.thinker == "pool":
            workersCPU(thinker)
        state["began"] = time.monotonic()
        probe.begin()

    def end():
        probe.end()
        rooms = state["rooms"]
        elapsed = time.monotonic() - state["began"]
        hubCPU, _ = [b - a for a, b in zip(state["cpu"], cpuTimes())]
        lags = probe.lags
        figures.update({
            "ticks": len(lags), "seconds": round(elapsed, 2),
            "lag_p50_ms": round(percentile(lags, 50), 2),
            "lag_p99_ms": round(percentile(lags, 99), 2),
            "lag_max_ms": round(max(lags), 2),
            "bot_moves_per_s": round((rooms.moves - state["moves"])
                                     / elapsed, 1),
            "hub_cpu_pct": round(100 * hubCPU / elapsed, 1),
            "workers_cpu_pct": round(100 * workersCPU(thinker) / elapsed, 1)
            if args.thinker == "pool" else 0.0})
        if args.thinker == "pool":
            figures["pool_outcomes"] = dict(thinker.outcomes)
        print(json.dumps(figures), flush=True)

    class Orders(LineReceiver):
        delimiter = b"\n"

        def lineReceived(self, line):
            {b"GO": go, b"END": end}[line.strip()]()

        def connectionLost(self, reason):
            state["rooms"].stop()
            hub.stopService().addBoth(lambda _: reactor.stop())

    endpoint = TCP4ServerEndpoint(reactor, args.port, interface="127.0.0.1")
    endpoint.listen(factory).addCallback(ready)
    stdio.StandardIO(Orders())
    reactor.run()


def people(args):
    """
    The people's process: C{--people} gomoku games paced by
    C{bench/gomoku_load.py}'s client; prints C{MEASURING} when its window
    opens, then its figures as JSON.
    """
    sys.path.insert(0, HERE)
    import gomoku_load
    from twisted.internet import reactor, task

    bench = gomoku_load.Bench(reactor, args.port, "paced", args.interval,
                              args.warmup, args.seconds,
                              tag="p%d_" % (os.getpid(),))

    def watch():
        if bench.stats.measuring:
            print("MEASURING", flush=True)
            loop.stop()
    loop = task.LoopingCall(watch)
    loop.start(0.01)
    result = {}

    def done(figures):
        result.update(figures)
        reactor.stop()

    def failed(failure):
        result["error"] = str(failure.value)
        reactor.stop()
    bench.run(args.people, "game", ("owner", "guest"), args.server_pid
              ).addCallbacks(done, failed)
    reactor.run()
    print(json.dumps(result), flush=True)


def cpuTimes():
    """
    CPU seconds of this process so far, and of its waited-for children.
    """
    me = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (me.ru_utime + me.ru_stime,
            children.ru_utime + children.ru_stime)


def workersCPU(pool, cache={}):
    """
    CPU seconds the pool's workers used since the last call (from
    C{/proc}; they are not waited for yet).
    """
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for pid in pool.processes.pids():
        try:
            with open("/proc/%d/stat" % (pid,)) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        used = (int(fields[11]) + int(fields[12])) / tick
        total += used - cache.get(pid, 0.0)
        cache[pid] = used
    return total


# -- the driver ----------------------------------------------------------------

def runOne(args, thinker, scenario):
    """
    One measurement: a fresh hub, and the people if the scenario has
    them; the hub measures the people's window (or, without people, the
    C{--seconds} after C{--warmup}).

    @return: the hub's figures, with the people's under C{"people"}.
    """
    rooms = 0 if scenario == "alone" else args.rooms
    hub = subprocess.Popen(
        [sys.executable, os.path.abspath(__file__), "--serve",
         "--thinker", thinker, "--rooms", str(rooms),
         "--workers", str(args.workers)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT, text=True)
    crowd = None
    try:
        line = hub.stdout.readline().split()
        if not line or line[0] != "READY":
            raise SystemExit("the hub did not start")
        port = int(line[1])
        if scenario == "bots":
            time.sleep(args.warmup)
            hub.stdin.write("GO\n")
            hub.stdin.flush()
            time.sleep(args.seconds)
        else:
            crowd = subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), "--people-serve",
                 "--port", str(port), "--server-pid", str(hub.pid),
                 "--people", str(args.people),
                 "--interval", str(args.interval),
                 "--seconds", str(args.seconds),
                 "--warmup", str(args.warmup)],
                stdout=subprocess.PIPE, cwd=ROOT, text=True)
            if crowd.stdout.readline().strip() != "MEASURING":
                raise SystemExit("the people did not start")
            hub.stdin.write("GO\n")
            hub.stdin.flush()
            crowdFigures = json.loads(crowd.stdout.readline())
            crowd.wait(timeout=60)
        hub.stdin.write("END\n")
        hub.stdin.flush()
        figures = json.loads(hub.stdout.readline())
        if crowd is not None:
            figures["people"] = peopleFigures(crowdFigures)
        hub.stdin.close()
        hub.wait(timeout=60)
        return figures
    finally:
        for process in (hub, crowd):
            if process is not None and process.poll() is None:
                process.kill()


def peopleFigures(hub):
    """
    The move latency figures of C{gomoku_load.py}'s L{Bench}.
    """
    return {"moves": hub["count"], "errors": hub["errors"],
            "move_p50_ms": hub["p50_ms"], "move_p99_ms": hub["p99_ms"],
            "move_max_ms": hub["max_ms"]}


def parseArgs(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rooms", type=int, default=20,
                   help="rooms of level-3 bots (half gomoku, half "
                   "checkers)")
    p.add_argument("--people", type=int, default=20,
                   help="gomoku games of people")
    p.add_argument("--interval", type=float, default=0.5,
                   help="seconds between a person's game's moves")
    p.add_argument("--seconds", type=float, default=20.0,
                   help="the measured window")
    p.add_argument("--warmup", type=float, default=3.0,
                   help="seconds of play before the window")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                   help="the pool's workers (default: the CPUs)")
    p.add_argument("--thinkers", nargs="+", default=["inline", "pool"],
                   choices=["inline", "pool"])
    p.add_argument("--scenarios", nargs="+",
                   default=["bots", "people", "alone"],
                   choices=["bots", "people", "alone"])
    p.add_argument("--json", action="store_true",
                   help="print the figures as one JSON object")
    p.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--thinker", default="pool", help=argparse.SUPPRESS)
    p.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--people-serve", action="store_true",
                   help=argparse.SUPPRESS)
    p.add_argument("--server-pid", type=int, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def main(argv):
    args = parseArgs(argv)
    if args.serve:
        serve(args)
        return 0
    if args.people_serve:
        people(args)
        return 0
    results = []
    if not args.json:
        print("{} CPUs, load average {:.2f} {:.2f} {:.2f}".format(
            os.cpu_count(), *os.getloadavg()), flush=True)
    for scenario in args.scenarios:
        thinkers = args.thinkers if scenario != "alone" else ["pool"]
        for thinker in thinkers:
            figures = runOne(args, thinker, scenario)
            figures["scenario"] = scenario
            results.append(figures)
            if not args.json:
                report(figures)
    if args.json:
        print(json.dumps({"runs": results, "cpus": os.cpu_count(),
                          "load": os.getloadavg()}))
    else:
        print("load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    return 0


def report(figures):
    people = figures.get("people") or {}
    latency = " ".join("{}={}".format(k, v) for k, v in people.items())
    print("{scenario:7} {thinker:6} rooms={rooms:<3} lag p50={lag_p50_ms}"
          " p99={lag_p99_ms} max={lag_max_ms} ms  bot moves/s="
          "{bot_moves_per_s}  hub cpu={hub_cpu_pct}% workers cpu="
          "{workers_cpu_pct}%".format(**figures), latency, flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
