"""
Spectators of gamehub's web face (C{--web-port}), measured against the
players they watch.

Starts C{twistd -n gamehub} (gomoku and the web face, no records), drives
the players with C{bench/gomoku_load.py} against it, and opens event
streams (C{/api/games/ID/events}) from this process:

  - C{paced}: C{--games} games moving once a second; C{--spectators}
    streams all watch the first game.  Reports the latency from the hub
    playing a move (the move's C{at}) to each spectator reading it (p50,
    p99), the players' own move latency with and without the spectators,
    and the hub's memory per spectator (RSS before and after they
    connect).
  - C{saturate}: C{--games} games moving as fast as they can, with and
    without C{--spectators} streams spread over the running games (a
    stream whose game ends moves on to another one).  Reports moves/s.

Examples::

    python bench/web_spectators.py --mode paced --spectators 1000
    python bench/web_spectators.py --mode saturate --spectators 100

Not a test: it prints figures.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import gomoku_load  # noqa: E402


def rssKiB(pid):
    with open("/proc/%d/status" % (pid,)) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def startHub(profile=None):
    """
    The hub with gomoku and the web face on free loopback ports (under
    cProfile, its statistics saved to C{profile}, if given).
    """
    port, webPort = gomoku_load.freePort(), gomoku_load.freePort()
    log = os.path.join(tempfile.gettempdir(), "web_spectators_hub.log")
    twistdArgs = []
    if profile:
        twistdArgs = ["--profile=" + profile, "--profiler=cprofile",
                      "--savestats"]
    proc = gomoku_load.startHub(port, log, twistdArgs, extra=[
        "--web-port", "tcp:%d:interface=127.0.0.1" % (webPort,),
        "--db", "none", "--grace-seconds", "0"])
    gomoku_load.waitForPort(webPort, proc)
    return proc, port, webPort


def players(port, pid, mode, games, seconds, warmup):
    """
    Start C{gomoku_load.py} against the hub; its JSON figures come out of
    its stdout.
    """
    command = [sys.executable, os.path.join(HERE, "gomoku_load.py"),
               "--mode", mode, "--games", str(games), "--seconds",
               str(seconds), "--warmup", str(warmup), "--port", str(port),
               "--server-pid", str(pid), "--no-baseline", "--json",
               "--no-pin"]
    return subprocess.Popen(command, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)


def figures(proc):
    out, _ = proc.communicate()
    return json.loads(out.decode().strip().splitlines()[-1])["rounds"][0][
        "hub"]


class Spectators:
    """
    Event streams from this process, on its own reactor.
    """

    def __init__(self, reactor, webPort):
        from twisted.internet import protocol
        self.reactor = reactor
        self.webPort = webPort
        self.latencies = []
        self.streams = []
        self.games = []
        self.measuring = False
        self.follow = True
        # Saturate mode only counts bytes: a stream's frames need not be
        # split (the spectators share the 2 CPUs with the hub and the
        # players; browsers would be on other machines).
        self.parse = True
        self.received = 0
        bench = self

        class Stream(protocol.Protocol):
            def __init__(self, gameId):
                self.gameId = gameId
                self.buffer = b""

            def connectionMade(self):
                bench.streams.append(self)
                self.transport.write(
                    b"GET /api/games/%s/events HTTP/1.0\r\n\r\n"
                    % (self.gameId.encode(),))

            def dataReceived(self, data):
                if not bench.parse:
                    bench.received += len(data)
                    return
                received = time.time()
                self.buffer += data
                while b"\n\n" in self.buffer:
                    frame, self.buffer = self.buffer.split(b"\n\n", 1)
                    if frame.startswith(b"event: action\n") and \
                            bench.measuring:
                        data = json.loads(frame.split(b"data: ", 1)[1])
                        bench.latencies.append(
                            received - data["move"]["at"])

            def connectionLost(self, reason):
                if self in bench.streams:
                    bench.streams.remove(self)
                if bench.follow and bench.games:
                    bench.open(bench.games[len(bench.streams)
                                           % len(bench.games)])

        self.Stream = Stream

    def open(self, gameId):
        from twisted.internet.endpoints import TCP4ClientEndpoint
        from twisted.internet.protocol import Factory
        endpoint = TCP4ClientEndpoint(self.reactor, "127.0.0.1",
                                      self.webPort)
        return endpoint.connect(Factory.forProtocol(
            lambda: self.Stream(gameId)))

    def refreshGames(self):
        """
        A Deferred of the running games' ids.
        """
        from twisted.web.client import Agent, readBody
        d = Agent(self.reactor).request(
            b"GET", b"http://127.0.0.1:%d/api/games" % (self.webPort,))
        d.addCallback(readBody)

        def parsed(body):
            self.games = [g["id"] for g in json.loads(body)["games"]
                          if not g["over"]]
            return self.games
        return d.addCallback(parsed)


def pct(values, p):
    if not values:
        return None
    values = sorted(values)
    return round(values[min(len(values) - 1,
                            int(len(values) * p / 100))] * 1000, 2)


def runPaced(args):
    if os.environ.get("BENCH_DEBUG"):
        from twisted.logger import globalLogBeginner, textFileLogObserver
        globalLogBeginner.beginLoggingTo([textFileLogObserver(sys.stderr)])
    from twisted.internet import defer, reactor, task
    proc, port, webPort = startHub()
    results = {"mode": "paced", "games": args.games,
               "spectators": args.spectators, "seconds": args.seconds}
    try:
        results["alone"] = figures(players(port, proc.pid, "paced",
                                           args.games, args.seconds, 2))

        @defer.inlineCallbacks
        def watched():
            load = players(port, proc.pid, "paced", args.games,
                           args.seconds, args.warmup)
            spectators = Spectators(reactor, webPort)
            spectators.follow = False
            games = []
            while not games:
                yield task.deferLater(reactor, 0.2, lambda: None)
                games = yield spectators.refreshGames()
            before = rssKiB(proc.pid)
            for i in range(args.spectators):
                yield spectators.open(games[-1])
            while len(spectators.streams) < args.spectators:
                yield task.deferLater(reactor, 0.1, lambda: None)
            yield task.deferLater(reactor, 1.5, lambda: None)
            after = rssKiB(proc.pid)
            spectators.measuring = True
            while load.poll() is None:
                yield task.deferLater(reactor, 0.2, lambda: None)
            spectators.measuring = False
            results["watched"] = figures(load)
            results["rss_before_kib"] = before
            results["rss_after_kib"] = after
            results["kib_per_spectator"] = round(
                (after - before) / args.spectators, 2)
            results["streams_at_end"] = len(spectators.streams)
            lat = spectators.latencies
            results["spectator_deliveries"] = len(lat)
            results["spectator_p50_ms"] = pct(lat, 50)
            results["spectator_p99_ms"] = pct(lat, 99)
            results["spectator_max_ms"] = pct(lat, 100)
        d = watched()
        d.addErrback(lambda f: f.printTraceback())
        d.addBoth(lambda _: reactor.stop())
        reactor.run()
    finally:
        gomoku_load.stopProcess(proc)
    return results


def runSaturate(args):
    from twisted.internet import defer, reactor, task
    proc, port, webPort = startHub(args.profile)
    results = {"mode": "saturate", "games": args.games,
               "spectators": args.spectators, "seconds": args.seconds}
    try:
        results["alone"] = figures(players(port, proc.pid, "saturate",
                                           args.games, args.seconds, 2))

        @defer.inlineCallbacks
        def watched():
            load = players(port, proc.pid, "saturate", args.games,
                           args.seconds, args.warmup)
            spectators = Spectators(reactor, webPort)
            spectators.parse = args.parse
            games = []
            while not games:
                yield task.deferLater(reactor, 0.2, lambda: None)
                games = yield spectators.refreshGames()
            for i in range(args.spectators):
                spectators.open(games[i % len(games)])
            refresher = task.LoopingCall(spectators.refreshGames)
            refresher.start(0.5)
            counts = []
            while load.poll() is None:
                yield task.deferLater(reactor, 0.5, lambda: None)
                counts.append(len(spectators.streams))
            refresher.stop()
            spectators.follow = False
            results["watched"] = figures(load)
            results["streams_mean"] = round(statistics.mean(counts), 1)
            results["stream_bytes"] = spectators.received
        d = watched()
        d.addErrback(lambda f: f.printTraceback())
        d.addBoth(lambda _: reactor.stop())
        reactor.run()
    finally:
        gomoku_load.stopProcess(proc)
    alone = results["alone"]["per_second"]
    results["watched_over_alone"] = round(
        results["watched"]["per_second"] / alone, 3) if alone else None
    return results


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mode", choices=["paced", "saturate"], default="paced")
    p.add_argument("--spectators", type=int, default=None,
                   help="streams (default 1000 paced, 100 saturate)")
    p.add_argument("--games", type=int, default=None,
                   help="games (default 10 paced, 100 saturate)")
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--warmup", type=float, default=6.0,
                   help="seconds before the players' window opens (the "
                        "spectators connect in it)")
    p.add_argument("--profile", default=None,
                   help="saturate: run the hub under cProfile and save its "
                        "statistics to this file")
    p.add_argument("--parse", action="store_true",
                   help="saturate: split every stream's frames, as paced "
                        "mode does (by default only bytes are counted)")
    args = p.parse_args(argv)
    if args.spectators is None:
        args.spectators = 1000 if args.mode == "paced" else 100
    if args.games is None:
        args.games = 10 if args.mode == "paced" else 100
    gomoku_load.raiseFileLimit(args.spectators * 2 + args.games * 4 + 100)
    run = runPaced if args.mode == "paced" else runSaturate
    print(json.dumps(run(args), sort_keys=True, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
