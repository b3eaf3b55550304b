"""
Login flood benchmark: does a flood of password checks (argon2id, off the
reactor thread) raise the gomoku players' latency?

A hub runs in this process (C{hub.tap.makeService} on the reactor:
C{--names accounts} on a SQLite database); C{bench/gomoku_load.py --mode
paced --port ...} plays paced games against it from another process and
reports the players' p50/p99 (a move written to the opponent reading
it).  Each round measures twice, with and without the flood (the order
flips every round): the flood keeps C{--concurrency} calls of
L{hub.accounts.model.Accounts.checkPassword} in flight, alternately right
and wrong passwords of a registered account; argon2 runs where a hub's
accounts run it (L{hub.accounts.hashing.HashingPool}: one thread of its
own at a lower priority), as for a web login.

    python bench/login_flood.py --games 200 --interval 0.1 --rounds 2

Target: the flood raises the players' p99 by at most 2 ms.  Not a test:
it prints figures.
"""

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from twisted.internet import defer, task, utils  # noqa: E402

from hub import tap  # noqa: E402

PASSWORD = "flood-password-1"


class Flood:
    """
    Keeps C{concurrency} password checks in flight while C{on}.
    """

    def __init__(self, accounts, concurrency):
        self.accounts = accounts
        self.concurrency = concurrency
        self.on = False
        self.done = 0
        self.inFlight = 0
        self._idle = None

    def start(self):
        self.on = True
        self.done = 0
        for _ in range(self.concurrency):
            self._next()

    def _next(self):
        if not self.on:
            if self.inFlight == 0 and self._idle is not None:
                idle, self._idle = self._idle, None
                idle.callback(None)
            return
        self.inFlight += 1
        password = PASSWORD if self.done % 2 else "wrong-" + PASSWORD
        d = self.accounts.checkPassword("flood", password)

        def finished(result):
            self.inFlight -= 1
            self.done += 1
            self._next()
        d.addBoth(finished)

    def stop(self):
        """
        Stop; a Deferred that fires once no check is in flight.
        """
        self.on = False
        if self.inFlight == 0:
            return defer.succeed(None)
        self._idle = defer.Deferred()
        return self._idle


def startHub(reactor, url):
    options = tap.Options()
    options.parseOptions([
        "--db", url, "--names", "accounts",
        "--gomoku-port", "tcp:0:interface=127.0.0.1",
        "--checkers-port", "none", "--splendor-port", "none",
        "--web-port", "none", "--metrics-port", "none", "--announce", "no",
        # The load comes from one address: measure the hub, not its
        # abuse limits (as bench/gomoku_load.py does).
        "--max-connections", "0", "--max-connections-per-ip", "0",
        "--request-rate", "0"])
    top = tap.makeService(options, reactor)
    top.startService()
    return top, top.getServiceNamed("gomoku-port")


@defer.inlineCallbacks
def players(port, options):
    """
    One paced run of C{bench/gomoku_load.py} against C{port}: its hub
    figures.
    """
    out = yield utils.getProcessOutput(sys.executable, [
        os.path.join(HERE, "gomoku_load.py"), "--mode", "paced",
        "--port", str(port), "--server-pid", str(os.getpid()),
        "--no-baseline", "--no-pin", "--json",
        "--games", str(options.games), "--interval", str(options.interval),
        "--seconds", str(options.seconds), "--warmup", str(options.warmup)],
        env=os.environ, errortoo=False)
    return json.loads(out.decode().strip().splitlines()[-1])["rounds"][0][
        "hub"]


@defer.inlineCallbacks
def run(reactor, options):
    folder = tempfile.mkdtemp(prefix="login-flood-")
    try:
        url = "sqlite:" + os.path.join(folder, "hub.sqlite")
        top, listening = startHub(reactor, url)
        accounts = top.getServiceNamed("names").accounts
        yield accounts.add("flood", PASSWORD)
        port = yield listening.whenListening()
        flood = Flood(accounts, options.concurrency)
        rows = []
        for r in range(options.rounds):
            order = (False, True) if r % 2 == 0 else (True, False)
            for flooding in order:
                if flooding:
                    flood.start()
                began = time.perf_counter()
                figures = yield players(port.getHost().port, options)
                elapsed = time.perf_counter() - began
                logins = flood.done
                if flooding:
                    yield flood.stop()
                rows.append((r, flooding, figures, logins / elapsed))
                print("round %d %-9s p50 %6.3f ms  p99 %7.3f ms  max %7.2f "
                      "ms  %7.1f moves/s  errors %d  logins %.1f/s" % (
                          r + 1, "flood" if flooding else "no flood",
                          figures["p50_ms"], figures["p99_ms"],
                          figures["max_ms"], figures["per_second"],
                          figures["errors"],
                          logins / elapsed if flooding else 0))
                sys.stdout.flush()
        yield top.stopService()
    finally:
        shutil.rmtree(folder, True)
    rises = []
    for r in range(options.rounds):
        p99 = {flooding: figures["p99_ms"]
               for (n, flooding, figures, _) in rows if n == r}
        rises.append(p99[True] - p99[False])
    print("%d games at %.3f s a move, %d checks in flight (the hub's "
          "hashing pool), %d CPUs" % (options.games, options.interval,
                                      options.concurrency, os.cpu_count()))
    print("p99 rise under the flood: %s ms; median %.3f ms (target <= 2)" % (
        ", ".join("%.3f" % (x,) for x in rises), statistics.median(rises)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--interval", type=float, default=0.1)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=4,
                        help="password checks kept in flight")
    options = parser.parse_args()
    task.react(run, [options])


if __name__ == "__main__":
    main()
