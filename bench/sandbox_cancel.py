"""
Probes of the bwrap sandbox cancelled while bwrap sets the sandbox up (a
hub stopped during its start-up), one after the other, each after a
random wait: how many were left hanging (the probe not ended within
C{--bound} seconds: a process of the sandbox's outlived bwrap, holding
its pipes) and which processes were left.  Run several at once to load
the machine:

    python bench/sandbox_cancel.py --probes 3000 --within 0.004 &
    python bench/sandbox_cancel.py --probes 3000 --within 0.008

Each process left is killed, and the run goes on.  Not a test: it
prints figures and a JSON line.
"""

import argparse
import json
import os
import random
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from twisted.internet import defer, reactor, task  # noqa: E402

from hub.sandbox.process import BwrapSandbox  # noqa: E402


def leftBwraps():
    """
    The pids and states of the live processes whose command is bwrap's
    and whose parent is gone (their parent is now pid 1).
    """
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % (name,), "rb") as f:
                command = f.read().split(b"\0")[0]
            with open("/proc/%s/stat" % (name,)) as f:
                state, parent = f.read().rsplit(")", 1)[1].split()[:2]
        except OSError:
            continue
        if command.endswith(b"bwrap") and state != "Z" and parent == "1":
            found.append((int(name), state))
    return found


@defer.inlineCallbacks
def run(args):
    rng = random.Random(args.seed)
    hung, left, began = 0, [], time.perf_counter()
    for n in range(args.probes):
        sandbox = BwrapSandbox(reactor)
        probing = sandbox.probe()
        yield task.deferLater(reactor, rng.uniform(0, args.within),
                              lambda: None)
        probing.cancel()
        probing.addTimeout(args.bound, reactor)
        try:
            yield probing
        except defer.CancelledError:
            pass
        except defer.TimeoutError:
            hung += 1
            for pid, state in leftBwraps():
                left.append(pid)
                print("probe %d hung: bwrap %d (%s) left" % (n, pid, state))
                os.kill(pid, signal.SIGKILL)
        sandbox.cleanUp()
    seconds = time.perf_counter() - began
    print("%d probes cancelled within %.1f ms of their start, %d hung, "
          "%.1f s" % (args.probes, 1000 * args.within, hung, seconds))
    print(json.dumps({"probes": args.probes, "hung": hung, "left": left,
                      "seconds": round(seconds, 1)}))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    p.add_argument("--probes", type=int, default=1000)
    p.add_argument("--within", type=float, default=0.006,
                   help="the longest wait before a cancel, in seconds")
    p.add_argument("--bound", type=float, default=3.0,
                   help="seconds a cancelled probe may take to end")
    p.add_argument("--seed", type=int, default=None)
    args = p.parse_args()
    problem = BwrapSandbox(reactor).problem()
    if problem is not None:
        raise SystemExit(problem)
    d = run(args)
    d.addErrback(lambda f: print(f.getTraceback()))
    d.addBoth(lambda _: reactor.stop())
    reactor.run()


if __name__ == "__main__":
    main()
