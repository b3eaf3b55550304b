"""
The engine sandbox's start cost: programs started one after the other,
each run to its end, in bwrap and without a sandbox (C{--engine-sandbox
none}), alternating rounds of each in the same run.

    python bench/sandbox_start.py                  # 5 rounds of 20
    python bench/sandbox_start.py --rounds 3 --starts 10

For each sandbox and program (C{true}: the sandbox's own cost; C{python
-c pass}: with an interpreter's start, as an engine's), per start: the
wall time from the spawn to the end (median and 90th percentile), and
the CPU of this process (it is the hub here: the spawn, the pipes, the
reactor; C{getrusage}).  (The started processes' CPU is not reported:
what runs in bwrap's pid namespace is reaped by bwrap's own first
process, and C{RUSAGE_CHILDREN} does not see all of it.)  Not a test:
it prints figures and a JSON line.
"""

import argparse
import json
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from twisted.internet import defer, reactor  # noqa: E402
from twisted.internet.protocol import ProcessProtocol  # noqa: E402

from hub.sandbox.confine import Confinement  # noqa: E402
from hub.sandbox.process import BwrapSandbox, NoSandbox  # noqa: E402

PROGRAMS = {"true": ["true"], "python": [sys.executable, "-c", "pass"]}


class Ended(ProcessProtocol):
    def __init__(self):
        self.ended = defer.Deferred()

    def processEnded(self, reason):
        self.ended.callback(None)


def usage():
    me = resource.getrusage(resource.RUSAGE_SELF)
    return me.ru_utime + me.ru_stime


@defer.inlineCallbacks
def rounds(options, sandboxes):
    found = {(s, p): {"wall": [], "hub": []}
             for s in sandboxes for p in PROGRAMS}
    for round in range(options.rounds):
        for name, sandbox in sandboxes.items():
            for program, argv in PROGRAMS.items():
                figures = found[(name, program)]
                for _ in range(options.starts):
                    before, began = usage(), time.monotonic()
                    ended = Ended()
                    sandbox.spawn(ended, Confinement(argv))
                    yield ended.ended
                    after = usage()
                    figures["wall"].append(time.monotonic() - began)
                    figures["hub"].append(after - before)
    return found


def summary(values):
    values = sorted(values)
    return {"median_ms": round(1000 * statistics.median(values), 2),
            "p90_ms": round(1000 * values[int(0.9 * (len(values) - 1))], 2),
            "mean_ms": round(1000 * statistics.mean(values), 2)}


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--starts", type=int, default=20)
    options = p.parse_args(argv)
    folder = tempfile.mkdtemp(prefix="gamehub-sandbox-bench-")
    sandboxes = {"none": NoSandbox(reactor, os.path.join(folder, "work")),
                 "bwrap": BwrapSandbox(reactor)}
    result = {}

    def done(found):
        for (name, program), figures in sorted(found.items()):
            row = {"wall": summary(figures["wall"]),
                   "hub_cpu": summary(figures["hub"])}
            result["%s %s" % (name, program)] = row
            print("%-5s %-6s wall %6.2f ms (p90 %6.2f), hub CPU %5.2f ms "
                  "(mean)" % (name, program, row["wall"]["median_ms"],
                              row["wall"]["p90_ms"],
                              row["hub_cpu"]["mean_ms"]))
        for program in PROGRAMS:
            b = result["bwrap " + program]
            n = result["none " + program]
            print("bwrap - none, %s: wall %+.2f ms (median), hub CPU "
                  "%+.2f ms (mean)" % (
                      program,
                      b["wall"]["median_ms"] - n["wall"]["median_ms"],
                      b["hub_cpu"]["mean_ms"] - n["hub_cpu"]["mean_ms"]))
        print(json.dumps(result, sort_keys=True))

    def failed(failure):
        failure.printTraceback()

    d = rounds(options, sandboxes)
    d.addCallbacks(done, failed)
    d.addBoth(lambda _: (sandboxes["bwrap"].cleanUp(),
                         shutil.rmtree(folder, True), reactor.stop()))
    reactor.run()


if __name__ == "__main__":
    main(sys.argv[1:])
