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
  - C{saturate}: two hubs side by side on one CPU, each with
    C{--games} games moving as fast as they can; in each round
    C{--spectators} streams, spread over the running games of one of
    them (the two take turns), follow their games as a browser would
    (HTTP/1.1 kept alive; a stream whose game ends goes on to one of the
    newest games this process knows to run, refreshed every 0.5 s, and
    one that finds its game already over waits for the next refresh).
    Reports both hubs' moves/s and CPU per move in the same moments.

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


def startHub(profile=None, cpu=None, name="hub"):
    """
    The hub with gomoku and the web face on free loopback ports (under
    cProfile, its statistics saved to C{profile}, if given; pinned to
    C{cpu}, if given), logging to C{hubLog(name)}.
    """
    port, webPort = gomoku_load.freePort(), gomoku_load.freePort()
    log = hubLog(name)
    twistdArgs = []
    if profile:
        twistdArgs = ["--profile=" + profile, "--profiler=cprofile",
                      "--savestats"]
    proc = gomoku_load.startHub(port, log, twistdArgs, extra=[
        "--web-port", "tcp:%d:interface=127.0.0.1" % (webPort,),
        "--db", "none", "--grace-seconds", "0",
        # Every spectator comes from this one address: measure the
        # streams, not the web port's limits per address.
        "--web-max-connections-per-ip", "0", "--web-max-streams-per-ip",
        "0", "--web-request-rate", "0"], cpu=cpu)
    gomoku_load.waitForPort(webPort, proc)
    return proc, port, webPort


def hubLog(name):
    """
    The log file of the hub called C{name}, in the temporary directory.
    """
    return os.path.join(tempfile.gettempdir(),
                        "web_spectators_%s.log" % (name,))


def streamsCut(name):
    """
    How many event streams the hub called C{name} has cut for reading
    too slowly, from its log.
    """
    with open(hubLog(name)) as f:
        return sum("cut a slow event stream" in line for line in f)


def players(port, pid, mode, games, seconds, warmup, pin=False):
    """
    Start C{gomoku_load.py} against the hub; its JSON figures come out of
    its stdout.  With C{pin}, it pins the hub to the first CPU and itself
    to the second.
    """
    command = [sys.executable, os.path.join(HERE, "gomoku_load.py"),
               "--mode", mode, "--games", str(games), "--seconds",
               str(seconds), "--warmup", str(warmup), "--port", str(port),
               "--server-pid", str(pid), "--no-baseline", "--json"]
    if not pin:
        command.append("--no-pin")
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
        # Bytes received by the saturated streams (which only count them:
        # the spectators share the 2 CPUs with the hub and the players,
        # where browsers would be on other machines).
        self.received = 0
        # Streams opened, and those whose game was already over (the list
        # of running games is refreshed every 0.5 s).
        self.opened = 0
        self.late = 0
        # Games this process saw end: a spectator does not go back to
        # them, as a person who saw the result would not.
        self.ended = set()
        # Saturate mode: how many streams to keep open (each on a running
        # game, spread over them), and how many are connecting.
        self.wanted = 0
        self.connecting = 0
        self.waiting = 0
        self._next = 0
        self.keepAlive = False
        # Requests for streams (a kept-alive connection makes several).
        self.requests = 0
        bench = self

        class Stream(protocol.Protocol):
            def __init__(self, gameId):
                self.gameId = gameId
                self.buffer = b""
                self.first = True
                self.late = False

            def connectionMade(self):
                bench.connecting -= 1
                bench.streams.append(self)
                self.transport.write(
                    b"GET /api/games/%s/events HTTP/1.0\r\n\r\n"
                    % (self.gameId.encode(),))

            def dataReceived(self, data):
                if self.first:
                    self.first = False
                    self.late = b'"live":false' in data
                    bench.late += self.late
                received = time.time()
                self.buffer += data
                while b"\n\n" in self.buffer:
                    frame, self.buffer = self.buffer.split(b"\n\n", 1)
                    if frame.startswith(b"event: action\n") and \
                            bench.measuring:
                        # The move's "at", without parsing the whole
                        # frame (1,000 of them a move).
                        at = frame.split(b'"at":', 1)[1].split(b"}", 1)[0]
                        bench.latencies.append(received - float(at))

            def connectionLost(self, reason):
                if self in bench.streams:
                    bench.streams.remove(self)
                # The hub closes a stream when its game ends.
                bench.gameEnded(self.gameId, self.late)
                bench.topUp()

        self.Stream = Stream

        class KeptStream(protocol.Protocol):
            """
            Saturate mode: one HTTP/1.1 connection kept alive, as a
            browser keeps it, watching one game after another (the next
            request goes out when a stream ends); only bytes are counted.
            """

            def __init__(self, gameId):
                self.gameId = gameId
                self.tail = b""
                self.first = True
                self.late = False

            def connectionMade(self):
                bench.connecting -= 1
                self.watch(self.gameId)

            def watch(self, gameId):
                self.gameId, self.first, self.tail = gameId, True, b""
                bench.requests += 1
                bench.streams.append(self)
                self.transport.write(
                    b"GET /api/games/%s/events HTTP/1.1\r\n"
                    b"Host: 127.0.0.1\r\nAccept: text/event-stream\r\n"
                    b"\r\n" % (gameId.encode(),))

            def dataReceived(self, data):
                bench.received += len(data)
                if self.first:
                    self.first = False
                    self.late = not data.startswith(b"HTTP/1.1 200") or (
                        b'"live":false' in data)
                    bench.late += self.late
                # The chunked body's last chunk: the game is over (or gone
                # from the hub: a 404's JSON body ends with "}").
                ended = (self.tail + data).endswith(
                    (b"\r\n0\r\n\r\n", b"}"))
                self.tail = data[-7:]
                if ended:
                    self.ended()

            def ended(self):
                bench.streams.remove(self)
                bench.gameEnded(self.gameId, self.late)
                bench.idle.append(self)
                bench.topUp()

            def connectionLost(self, reason):
                if self in bench.idle:
                    bench.idle.remove(self)
                if self in bench.streams:
                    bench.streams.remove(self)
                    bench.gameEnded(self.gameId, False)
                bench.topUp()

        self.KeptStream = KeptStream
        self.idle = []

    def gameEnded(self, gameId, late):
        """
        A stream of C{gameId} ended: the game is over.  C{late}: it was
        over before the stream opened (the list is stale, so that
        spectator waits for the next one, as a person back at the lobby
        would).
        """
        self.ended.add(gameId)
        if gameId in self.games:
            self.games.remove(gameId)
        if late:
            self.waiting += 1

    def close(self):
        """
        Stop following games and close every stream.
        """
        self.follow = False
        for stream in list(self.streams) + self.idle:
            stream.transport.abortConnection()

    def topUp(self):
        """
        Open streams on the running games this process knows of, spread
        over them, until C{wanted} are open or connecting (while
        following games).
        """
        while (self.follow and self.games
               and len(self.streams) + self.connecting + self.waiting
               < self.wanted):
            # Round the newest quarter of the games known to run (the
            # list is up to 0.5 s old, and a saturated game lasts about a
            # second): a spectator moves on to a game that just began.
            newest = self.games[-max(1, len(self.games) // 4):]
            self._next += 1
            gameId = newest[self._next % len(newest)]
            if self.idle:
                self.idle.pop().watch(gameId)
            else:
                self.open(gameId, self.keepAlive)

    def open(self, gameId, keepAlive=False):
        """
        Open a connection streaming C{gameId}: HTTP/1.0, its frames
        parsed (C{Stream}), or with C{keepAlive} an HTTP/1.1 connection
        that goes on to other games (C{KeptStream}).
        """
        from twisted.internet.endpoints import TCP4ClientEndpoint
        from twisted.internet.protocol import Factory
        self.opened += 1
        self.connecting += 1
        endpoint = TCP4ClientEndpoint(self.reactor, "127.0.0.1",
                                      self.webPort)
        kind = self.KeptStream if keepAlive else self.Stream
        d = endpoint.connect(Factory.forProtocol(lambda: kind(gameId)))

        def failed(reason):
            self.connecting -= 1
            return reason
        return d.addErrback(failed)

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
                          if not (g["over"] or g["id"] in self.ended)]
            self.waiting = 0
            self.topUp()
            return self.games
        return d.addCallback(parsed)


def pct(values, p):
    if not values:
        return None
    values = sorted(values)
    return round(values[min(len(values) - 1,
                            int(len(values) * p / 100))] * 1000, 2)


def pinned(args):
    """
    Pin the hub's CPU and this process's, and lower this one's priority,
    unless C{--no-pin}: the CPUs C{(hub, players and spectators)}, or
    None.

    The hub has the first CPU to itself, as in C{gomoku_load.py}; the
    players and this process (the spectators) share the second, this one
    at a low priority: browsers would be on other machines, and the
    figures are what the hub spends on them, not what the bench's own
    spectator client takes from the players.  Paced, under
    C{SCHED_IDLE} (the players' process takes the CPU from it the moment
    it wakes); saturated, at nice 19, as the players would leave an
    idle-class process no time to read, and its streams would then cost
    the hub nothing.
    """
    cpus = None if args.no_pin else gomoku_load.cpusToPin()
    if cpus:
        os.sched_setaffinity(0, {cpus[1]})
    if cpus and args.mode == "saturate":
        os.nice(19)
    elif cpus:
        try:
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        except (AttributeError, OSError):
            os.nice(19)
    return cpus


def runRounds(args, results, watched):
    """
    Start the hub and alternate, C{args.rounds} times, the players alone
    and the players with the spectators (C{watched(hub, players)}, a
    Deferred of the watched round's figures); each pair goes into
    C{results["rounds"]}.
    """
    from twisted.internet import defer, reactor
    cpus = pinned(args)
    results["pinned"] = cpus
    results["rounds"] = []
    hub = startHub(None, cpus[0] if cpus else None)
    proc, port, webPort = hub
    mode = args.mode

    def players_(warmup):
        return players(port, proc.pid, mode, args.games, args.seconds,
                       warmup, pin=bool(cpus))

    @defer.inlineCallbacks
    def rounds():
        for r in range(args.rounds):
            alone = yield deferToProcess(players_(args.warmup))
            seen = yield watched(hub, players_(args.warmup))
            results["rounds"].append({"alone": alone, "watched": seen})

    try:
        d = rounds()
        d.addErrback(lambda f: f.printTraceback())
        d.addBoth(lambda _: reactor.stop())
        reactor.run()
    finally:
        gomoku_load.stopProcess(proc)
    return results["rounds"]


def runPaced(args):
    from twisted.internet import defer, reactor, task
    if os.environ.get("BENCH_DEBUG"):
        from twisted.logger import globalLogBeginner, textFileLogObserver
        globalLogBeginner.beginLoggingTo([textFileLogObserver(sys.stderr)])
    results = {"mode": "paced", "games": args.games,
               "spectators": args.spectators, "seconds": args.seconds}

    @defer.inlineCallbacks
    def watched(hub, load):
        proc, port, webPort = hub
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
        seen = yield deferToProcess(load)
        spectators.measuring = False
        streamsAtEnd = len(spectators.streams)
        spectators.close()
        lat = spectators.latencies
        seen.update({
            "rss_before_kib": before, "rss_after_kib": after,
            "kib_per_spectator": round((after - before) / args.spectators,
                                       2),
            "streams_at_end": streamsAtEnd,
            "spectator_deliveries": len(lat),
            "spectator_p50_ms": pct(lat, 50),
            "spectator_p99_ms": pct(lat, 99),
            "spectator_max_ms": pct(lat, 100)})
        return seen

    done = runRounds(args, results, watched)
    for r in done:
        r["players_p99_added_ms"] = round(
            r["watched"]["p99_ms"] - r["alone"]["p99_ms"], 3)
    if done:
        results["median_spectator_p99_ms"] = statistics.median(
            r["watched"]["spectator_p99_ms"] for r in done)
        results["median_players_p99_added_ms"] = statistics.median(
            r["players_p99_added_ms"] for r in done)
        # The hub's memory per spectator: the first round's, as later
        # rounds reuse what the first one's streams had the process take.
        results["kib_per_spectator"] = done[0]["watched"][
            "kib_per_spectator"]
    return results


def runSaturate(args):
    """
    Two hubs side by side, pinned to the same CPU, each with its own
    players (C{--games} saturated games): in each round the spectators
    (C{--spectators} streams spread over the running games) watch one of
    them, the two taking turns.  The CPU is shared equally between the
    hubs, so the watched hub's moves/s over the other's is what the
    spectators cost, measured at the same moments (the machine's speed
    drifts between rounds by more than the effect).  The figures of each
    round and their medians.
    """
    from twisted.internet import defer, reactor, task
    results = {"mode": "saturate", "games": args.games,
               "spectators": args.spectators, "seconds": args.seconds,
               "rounds": []}
    cpus = pinned(args)
    results["pinned"] = cpus
    names = ("hub0", "hub1")
    hubs = [startHub(args.profile if i == 0 else None,
                     cpus[0] if cpus else None, names[i]) for i in range(2)]

    @defer.inlineCallbacks
    def watched(hub, load):
        proc, port, webPort = hub
        spectators = Spectators(reactor, webPort)
        games = []
        while not games:
            yield task.deferLater(reactor, 0.2, lambda: None)
            games = yield spectators.refreshGames()
        # The first streams spread over all the running games.
        for i in range(args.spectators):
            spectators.open(games[i % len(games)], keepAlive=True)
        spectators.wanted = args.spectators
        spectators.keepAlive = True
        refresher = task.LoopingCall(spectators.refreshGames)
        refresher.start(0.5)
        counts = []
        while load.poll() is None:
            yield task.deferLater(reactor, 0.5, lambda: None)
            counts.append(len(spectators.streams))
        refresher.stop()
        seen = figures(load)
        spectators.close()
        seen["streams_mean"] = round(statistics.mean(counts), 1)
        seen["stream_bytes"] = spectators.received
        seen["streams_opened"] = spectators.opened
        seen["stream_requests"] = spectators.requests
        seen["streams_late"] = spectators.late
        return seen

    @defer.inlineCallbacks
    def rounds():
        for r in range(args.rounds):
            which = r % 2
            loads = [players(port, proc.pid, "saturate", args.games,
                             args.seconds, args.warmup, pin=bool(cpus))
                     for proc, port, webPort in hubs]
            cut = streamsCut(names[which])
            seen, alone = yield defer.gatherResults([
                watched(hubs[which], loads[which]),
                deferToProcess(loads[1 - which])], consumeErrors=True)
            seen["streams_cut"] = streamsCut(names[which]) - cut
            results["rounds"].append(
                {"watched_hub": which, "alone": alone, "watched": seen})

    try:
        d = rounds()
        d.addErrback(lambda f: f.printTraceback())
        d.addBoth(lambda _: reactor.stop())
        reactor.run()
    finally:
        for proc, port, webPort in hubs:
            gomoku_load.stopProcess(proc)
    done = results["rounds"]
    for r in done:
        alone, seen = r["alone"], r["watched"]
        r["watched_over_alone"] = round(
            seen["per_second"] / alone["per_second"], 3)
        r["cpu_ratio"] = round(alone["server_cpu_us_per_op"]
                               / seen["server_cpu_us_per_op"], 3)
    if done:
        for key in ("watched_over_alone", "cpu_ratio"):
            results["median_" + key] = statistics.median(
                r[key] for r in done)
    return results


def deferToProcess(proc):
    """
    A Deferred of the figures of a C{players} process, once it exits.
    """
    from twisted.internet import defer, reactor, task
    done = defer.Deferred()

    def poll():
        if proc.poll() is not None:
            checker.stop()
            done.callback(figures(proc))
    checker = task.LoopingCall(poll)
    checker.clock = reactor
    checker.start(0.2)
    return done


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mode", choices=["paced", "saturate"], default="paced")
    p.add_argument("--spectators", type=int, default=None,
                   help="streams (default 1000 paced, 100 saturate)")
    p.add_argument("--games", type=int, default=None,
                   help="games (default 100: paced, 200 players' moves "
                        "a second for a steady p99)")
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--warmup", type=float, default=6.0,
                   help="seconds before the players' window opens (the "
                        "spectators connect in it)")
    p.add_argument("--profile", default=None,
                   help="saturate: run the first hub (watched in even "
                        "rounds) under cProfile and save its statistics to "
                        "this file")
    p.add_argument("--rounds", type=int, default=3,
                   help="pairs of rounds, alone then watched, in one hub")
    p.add_argument("--no-pin", action="store_true",
                   help="leave scheduling to the kernel and the "
                        "spectators at normal priority")
    args = p.parse_args(argv)
    if args.spectators is None:
        args.spectators = 1000 if args.mode == "paced" else 100
    if args.games is None:
        args.games = 100
    gomoku_load.raiseFileLimit(args.spectators * 2 + args.games * 4 + 100)
    run = runPaced if args.mode == "paced" else runSaturate
    print(json.dumps(run(args), sort_keys=True, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
