"""
How long C{twistd -n gamehub} takes to start with the defaults (SQLite
records on a fresh file, C{--names accounts}, the web face, the LAN
announcement) or with the options given: from the process's start until
every port it serves accepts a connection (the three games and the web
port, on free loopback ports), the median of C{--runs} starts, and the
process's CPU time by then.

    python bench/startup.py
    python bench/startup.py --runs 9 --bare
    # another tree, the same script:
    #   git archive COMMIT | tar -x -C COPY
    #   PYTHONPATH=COPY python bench/startup.py

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

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from gomoku_load import (cpuSeconds, freePort, stopProcess,  # noqa: E402
                         waitForPort)

BARE = ["--web-port", "none", "--announce", "no", "--db", "none",
        "--names", "open"]


def startOnce(folder, bare, timeout=60.0):
    """
    Start a hub, wait until its every port accepts: the seconds that took
    and the CPU seconds it used by then.
    """
    ports = {name: freePort() for name in
             ("gomoku", "checkers", "splendor", "web")}
    args = [os.path.join(os.path.dirname(sys.executable), "twistd"), "-n",
            "--pidfile=", "--logfile=" + os.path.join(folder, "twistd.log"),
            "gamehub"]
    for name in ("gomoku", "checkers", "splendor"):
        args += ["--%s-port" % (name,),
                 "tcp:%d:interface=127.0.0.1" % (ports[name],)]
    if bare:
        args += BARE
        del ports["web"]
    else:
        args += ["--db", "sqlite:" + os.path.join(folder, "hub.sqlite"),
                 "--web-port", "tcp:%d:interface=127.0.0.1" % (ports["web"],)]
    began = time.perf_counter()
    proc = subprocess.Popen(args, cwd=folder, stdin=subprocess.DEVNULL)
    try:
        for port in ports.values():
            waitForPort(port, proc, timeout, interval=0.005)
        return time.perf_counter() - began, cpuSeconds(proc.pid)
    finally:
        stopProcess(proc)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--bare", action="store_true",
                   help="the bare hub: " + " ".join(BARE))
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    walls, cpus = [], []
    for _ in range(args.runs):
        folder = tempfile.mkdtemp(prefix="gamehub-startup-")
        try:
            wall, cpu = startOnce(folder, args.bare)
        finally:
            shutil.rmtree(folder, True)
        walls.append(wall)
        cpus.append(cpu)
    results = {"runs": args.runs, "bare": args.bare,
               "seconds": [round(w, 3) for w in walls],
               "cpu_seconds": [round(c, 3) for c in cpus],
               "median_seconds": round(statistics.median(walls), 3),
               "median_cpu_seconds": round(statistics.median(cpus), 3)}
    if args.json:
        print(json.dumps(results, sort_keys=True))
    else:
        print("%s hub, %d starts: every port accepting after %.3f s "
              "(median; %s), %.3f CPU seconds by then" % (
                  "the bare" if args.bare else "the defaults'", args.runs,
                  results["median_seconds"],
                  " ".join("%.3f" % w for w in walls),
                  results["median_cpu_seconds"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
