"""
The records writer against the reactor on one CPU (issue 36): a busy
reactor thread, and finished checkers games queued to the real
L{Recorder} at a steady rate, written by its adbapi thread to a fresh
SQLite file, both threads on one CPU as in C{bench/defaults.py}'s hub.

The reactor's work is a chain of calls, each some Python (about a
move's) and two system calls on a pipe, as a hub answering moves does;
it never sleeps (the reactor is polled with no timeout), so each time
the reactor thread is switched out of its own will it was waiting for
the GIL: the writer thread had it.  Printed per mode:

  - C{loop/s}: the reactor's calls per second (noisy on a shared
    machine);
  - C{GIL waits/s}: the reactor thread's voluntary context switches per
    second (waits for the GIL);
  - C{preempted/s}: its involuntary ones (the CPU given to another
    thread or process: the writer's C code runs without the GIL);
  - C{writer us/game}: the writer thread's CPU per game written;
  - C{writer wakeups/game}: its voluntary context switches per game.

Modes: C{at-once} (C{gatherSeconds=0}: a game is written as soon as no
write is under way, as every recorder did before issue 36's
gathering), C{gathered} (the hub's L{GATHER_SECONDS}; only where the
tree has it).  C{--tree} measures another checkout (its C{hub}), for a
before/after in one run:

    python bench/records_writer.py --rounds 3
    python bench/records_writer.py --tree ../main   # main's Python

Not a test: it prints figures.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def threadTimes():
    """
    The CPU seconds and voluntary and involuntary context switches of
    each of this process's threads: C{{tid: (cpu, switches, preempted)}}.
    """
    figures = {}
    for tid in os.listdir("/proc/self/task"):
        base = "/proc/self/task/%s/" % (tid,)
        try:
            with open(base + "stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(base + "status") as f:
                status = f.read()
        except OSError:
            continue
        switches = int(status.split("voluntary_ctxt_switches:")[1].split()[0])
        preempted = int(
            status.split("nonvoluntary_ctxt_switches:")[1].split()[0])
        ticks = os.sysconf("SC_CLK_TCK")
        figures[int(tid)] = ((int(fields[11]) + int(fields[12])) / ticks,
                             switches, preempted)
    return figures


def measure(args):
    """
    One mode in this process: print its figures as one JSON line.
    """
    import attr
    from twisted.internet import reactor, task

    from records_common import newRandom, syntheticRecord
    from hub.records import db, recorder

    cpus = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpus[0]})
    options = {}
    if args.measure == "gathered":
        options["gatherSeconds"] = recorder.GATHER_SECONDS
    elif "gatherSeconds" in recorder.Recorder.__init__.__code__.co_varnames:
        options["gatherSeconds"] = 0.0
    folder = tempfile.mkdtemp(prefix="gamehub-writer-")
    url = db.parseURL("sqlite:" + os.path.join(folder, "records.sqlite"))
    db.prepare(url)
    database = db.Database(url, reactor)
    writer = recorder.Recorder(database, reactor, **options)
    rng = newRandom(1)
    games = []
    while len(games) < 500:
        record = syntheticRecord(rng, 1.7e9)
        if record.kind == "checkers" and len(record.seats) == 2:
            seats = tuple(attr.evolve(seat, name=name) for seat, name
                          in zip(record.seats, ("alice", "bob")))
            # Its events' text made beforehand, as the hub's reactor does
            # when the game ends (RecordBuilder.finish).
            games.append(attr.evolve(record, seats=seats,
                                     eventsText=record.storedEvents()))
    mainThread = threading.get_native_id()
    readEnd, writeEnd = os.pipe()
    counts = {"calls": 0, "queued": 0}
    window = {}

    def work():
        total = 0
        for k in range(300):
            total += k * k
        os.write(writeEnd, b"x")
        os.read(readEnd, 1)
        counts["calls"] += 1
        reactor.callLater(0, work)

    def finish():
        writer.enqueue(games[counts["queued"] % len(games)])
        counts["queued"] += 1

    def begin():
        window.update(times=threadTimes(), calls=counts["calls"],
                      written=writer.written, at=time.perf_counter())

    def end():
        times = threadTimes()
        seconds = time.perf_counter() - window["at"]
        written = max(1, writer.written - window["written"])
        before = window["times"]
        mainCpu = times[mainThread][0] - before[mainThread][0]
        waits = times[mainThread][1] - before[mainThread][1]
        preempted = times[mainThread][2] - before[mainThread][2]
        others = [t for t in times if t != mainThread]
        writerCpu = sum(times[t][0] - before.get(t, (0, 0))[0]
                        for t in others)
        wakeups = sum(times[t][1] - before.get(t, (0, 0))[1]
                      for t in others)
        print(json.dumps({
            "mode": args.measure, "loop": counts["calls"] / seconds
            - window["calls"] / seconds, "mainCpu": mainCpu,
            "gilWaits": waits / seconds, "preempted": preempted / seconds,
            "written": written,
            "writerUs": 1e6 * writerCpu / written,
            "wakeups": wakeups / written}))
        sys.stdout.flush()
        reactor.stop()

    task.LoopingCall(finish).start(1.0 / args.games)
    reactor.callLater(0, work)
    reactor.callLater(args.warmup, begin)
    reactor.callLater(args.warmup + args.seconds, end)
    # (The reactor's shutdown stops the database's threads.)
    reactor.run()


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    p.add_argument("--tree", default=os.path.dirname(HERE),
                   help="the checkout whose hub is measured")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--warmup", type=float, default=1.0)
    p.add_argument("--games", type=float, default=60.0,
                   help="games finished per second")
    p.add_argument("--modes", default="at-once,gathered")
    p.add_argument("--measure", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    sys.path.insert(0, HERE)
    sys.path.insert(0, args.tree)
    if args.measure:
        measure(args)
        return 0
    from hub.records import recorder
    modes = [m for m in args.modes.split(",")
             if m != "gathered" or hasattr(recorder, "GATHER_SECONDS")]
    rows = {m: [] for m in modes}
    for number in range(args.rounds):
        for mode in (modes if number % 2 == 0 else modes[::-1]):
            done = subprocess.run(
                [sys.executable, os.path.abspath(__file__), "--measure",
                 mode, "--tree", args.tree, "--seconds", str(args.seconds),
                 "--warmup", str(args.warmup), "--games", str(args.games)],
                stdout=subprocess.PIPE, check=True)
            figures = json.loads(done.stdout.decode().splitlines()[-1])
            rows[mode].append(figures)
            print("round %d %-8s loop %7.0f/s  GIL waits %6.1f/s  "
                  "preempted %6.1f/s  writer %5.0f us/game  %5.2f "
                  "wakeups/game  load %.1f" % (
                      number + 1, mode, figures["loop"],
                      figures["gilWaits"], figures["preempted"],
                      figures["writerUs"],
                      figures["wakeups"], os.getloadavg()[0]), flush=True)
    print()
    print("| mode | reactor calls/s | reactor's GIL waits/s | reactor "
          "preempted/s | writer CPU per game | writer wakeups per game |")
    print("|---|---|---|---|---|---|")
    for mode in modes:
        def med(key):
            return statistics.median(f[key] for f in rows[mode])
        print("| %s | %.0f | %.1f | %.1f | %.0f us | %.2f |" % (
            mode, med("loop"), med("gilWaits"), med("preempted"),
            med("writerUs"),
            med("wakeups")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
