"""
Browser play's cost: gomoku over C{/ws} (the JSON protocol of
C{docs/protocols/web.md}, through autobahn's Twisted WebSocket client)
against gomoku over its TCP protocol, on one C{twistd -n gamehub} in one
run (started here, gomoku and the web port on loopback).

Scenarios (all by default, or those named with C{--scenario}):
  - C{cpu}: C{--games} games over TCP, then as many over the WebSocket,
    each moving as soon as the previous move reached the opponent (or
    all at C{--rate} moves a second); the hub's CPU per move of each
    (target: WebSocket at most 1.5x TCP).  With C{--rounds}, again and
    again, the order swapped each round; the ratio is of the medians.
    With C{--together} (and C{--rate}), two hubs on the hub's CPU, the
    TCP games on one and the WebSocket games on the other at the same
    moments, the two swapped each round: the machine's drift weighs on
    both alike, and each round's ratio is taken within the round.
  - C{paced}: C{--paced-games} WebSocket games moving once a second;
    the latency from a move's write to the opponent reading it (target:
    p99 at most 20 ms with 100 games).
  - C{idle}: C{--idle} WebSocket players, each after C{hello}, doing
    nothing; the hub's RSS per player (target: at most 40 KiB).

Every game plays C{bench/gomoku_load.py}'s 225-move draw, then again.

    python bench/ws_gomoku.py
    python bench/ws_gomoku.py --scenario cpu --games 20 --seconds 10
    python bench/ws_gomoku.py --scenario cpu --games 10 --moves 40000
    python bench/ws_gomoku.py --scenario cpu --games 40 --rate 2000 \
        --moves 20000 --seconds 30
    python bench/ws_gomoku.py --scenario cpu --games 20 --rate 1000 \
        --moves 15000 --seconds 30 --warmup 1 --rounds 6
    python bench/ws_gomoku.py --scenario cpu --games 20 --rate 1000 \
        --moves 15000 --seconds 30 --warmup 1 --rounds 6 --together

As C{bench/gomoku_load.py} does, the hub runs on the first CPU and this
load generator on the second (C{--no-pin}: wherever the system puts
them): the two never share a CPU, whose caches the load generator's
work (autobahn's client costs about twice the TCP client) would
otherwise evict under the hub, in every run alike.

Not a test: it prints figures.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import gomoku_load  # noqa: E402
from gomoku_load import (  # noqa: E402
    SEQUENCE, Bench, cpusToPin, freePort, now, startHub, stopProcess,
    waitForPort)


def makeSocketClasses():
    """
    The WebSocket client side (defined late: autobahn picks the reactor
    at import).
    """
    from autobahn.twisted.websocket import (
        WebSocketClientFactory, WebSocketClientProtocol)
    from twisted.internet import defer

    class SocketConn(WebSocketClientProtocol):
        """
        One browser-protocol connection.
        """

        def onOpen(self):
            self.table.attach(self)

        def onMessage(self, payload, isBinary):
            self.table.frame(self, json.loads(payload))

        def onClose(self, wasClean, code, reason):
            if not self.bench.stopping:
                self.bench.stats.errors += 1
                self.bench.log("closed", code, reason)

        def send(self, message):
            self.sendMessage(json.dumps(message).encode("utf-8"))

    class SocketGame:
        """
        An owner (black, moving first) and a guest in one room playing
        draw games in a loop over the WebSocket.
        """

        def __init__(self, bench, index):
            self.bench = bench
            self.index = index
            self.name = "w%s" % (index,)
            self.owner = self.guest = None
            self.welcomed = 0
            self.ready = defer.Deferred()
            self.moveIndex = 0
            self.sentAt = 0.0
            self.pending = None
            self.playing = False
            self.mover = None
            self.conns = []

        def attach(self, conn):
            self.conns.append(conn)
            if conn.role == "owner":
                self.owner = conn
            else:
                self.guest = conn
            conn.send({"type": "hello", "version": 1,
                       "name": "%s%s" % (conn.role[0], self.index)})

        def begin(self):
            self.owner.send({"type": "create", "kind": "gomoku",
                             "room": self.name, "seat": 0})

        def frame(self, conn, message):
            kind = message["type"]
            if kind == "event":
                event = message["event"]
                if event == "ActionPlayed":
                    if message["seat"] != conn.seat:
                        self.opponentMoved(conn)
                elif event == "GameStarted":
                    conn.seat = message["you"]
                    # Each readies and starts once a game.
                    self.starting = self.readied = False
                    if conn is self.owner:
                        self.moveIndex = 0
                        self.playing = True
                        self.schedule(self.owner, self.bench.firstDelay())
                elif event == "GameEnded":
                    if conn is self.owner:
                        # The guest readies again on the room's news.
                        self.playing = False
                        if self.bench.stats.measuring:
                            self.bench.stats.games += 1
            elif kind == "welcome":
                self.welcomed += 1
                if self.welcomed == 2:
                    self.ready.callback(self)
            elif kind == "room":
                room = message["room"]
                if room is None or room["running"]:
                    return
                if (conn is self.owner and len(room["members"]) == 1
                        and not self.joined):
                    self.joined = True
                    self.guest.send({"type": "join", "kind": "gomoku",
                                     "room": self.name})
                elif conn is self.guest and len(room["members"]) == 2 \
                        and not any(m["ready"] for m in room["members"]):
                    if not self.readied:
                        self.readied = True
                        self.guest.send({"type": "ready"})
                elif (conn is self.owner and len(room["members"]) == 2
                      and room["members"][1]["ready"]
                      and not self.starting):
                    self.starting = True
                    self.owner.send({"type": "start"})
            elif kind == "error":
                self.bench.stats.errors += 1
                self.bench.log("error", conn.role, message)

        joined = False
        readied = False
        starting = False

        def schedule(self, conn, delay):
            if self.bench.stopping:
                return
            if delay > 0:
                self.pending = self.bench.reactor.callLater(
                    delay, self.move, conn)
            else:
                self.move(conn)

        def move(self, conn):
            self.pending = None
            if self.bench.stopping or not self.playing:
                return
            x, y = SEQUENCE[self.moveIndex]
            self.moveIndex += 1
            self.mover = conn
            self.sentAt = now()
            conn.send({"type": "act", "action": [x, y]})

        def opponentMoved(self, conn):
            if conn is self.mover:
                self.bench.stats.errors += 1
                return
            self.bench.stats.record(self.sentAt)
            if self.moveIndex < len(SEQUENCE):
                self.schedule(
                    conn, self.sentAt + self.bench.interval - now())

    class SocketIdle:
        """
        One player who says hello and then nothing.
        """

        def __init__(self, bench, index):
            self.bench = bench
            self.index = index
            self.ready = defer.Deferred()
            self.conns = []

        def attach(self, conn):
            self.conns.append(conn)
            conn.send({"type": "hello", "version": 1,
                       "name": "i%s" % (self.index,)})

        def frame(self, conn, message):
            if message["type"] == "welcome" and not self.ready.called:
                self.ready.callback(self)

    def connector(bench, webPort):
        def connect(table, role):
            from twisted.internet.endpoints import TCP4ClientEndpoint
            factory = WebSocketClientFactory(
                "ws://127.0.0.1:%d/ws" % (webPort,), reactor=bench.reactor)
            factory.setProtocolOptions(openHandshakeTimeout=0,
                                       closeHandshakeTimeout=0,
                                       serverConnectionDropTimeout=0)

            def build():
                conn = SocketConn()
                conn.factory = factory
                conn.bench, conn.table, conn.role = bench, table, role
                conn.seat = None
                return conn
            factory.protocol = build
            endpoint = TCP4ClientEndpoint(bench.reactor, "127.0.0.1",
                                          webPort, timeout=30)
            return endpoint.connect(factory)
        return connect

    return SocketGame, SocketIdle, connector


class Gate:
    """
    Runs side by side: each, set up, waits for the others.
    """

    def __init__(self, count):
        self.count = count
        self.waiting = []

    def __call__(self):
        from twisted.internet import defer
        d = defer.Deferred()
        self.waiting.append(d)
        if len(self.waiting) == self.count:
            for each in self.waiting:
                each.callback(None)
        return d


class SocketBench(Bench):
    """
    L{Bench} over the WebSocket.
    """

    def __init__(self, webPort, *args, **kwargs):
        Bench.__init__(self, *args, **kwargs)
        self.webPort = webPort

    def run(self, count, tableClass, roles, serverPid):
        from twisted.internet import defer, task
        game, idle, connector = makeSocketClasses()
        self.connect = connector(self, self.webPort)
        cls = {"game": game, "idle": idle}[tableClass]
        cls.__name__ = "IdleTable" if tableClass == "idle" else "GameTable"
        return defer.ensureDeferred(
            self._run(count, cls, roles, serverPid, defer, task))

    def close(self):
        for table in self.tables:
            for conn in getattr(table, "conns", []):
                if conn.transport is not None:
                    conn.transport.abortConnection()


def parseArgs(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scenario", action="append",
                   choices=("cpu", "paced", "idle"))
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--paced-games", type=int, default=100)
    p.add_argument("--idle", type=int, default=1000)
    p.add_argument("--seconds", type=float, default=8.0)
    p.add_argument("--rate", type=float, default=0,
                   help="cpu: all games together move this many times a "
                   "second, over TCP and over the WebSocket alike (the same "
                   "load; 0: as fast as they go)")
    p.add_argument("--moves", type=int, default=0,
                   help="cpu: measure this many moves over TCP and as many "
                   "over the WebSocket (then --seconds bounds each window)")
    p.add_argument("--rounds", type=int, default=1,
                   help="cpu: measure TCP and the WebSocket this many "
                   "times each, alternating which goes first")
    p.add_argument("--together", action="store_true",
                   help="cpu: TCP on one hub and the WebSocket on another at "
                   "the same moments, both hubs on the hub's CPU (needs "
                   "--rate)")
    p.add_argument("--no-pin", action="store_true",
                   help="do not pin the hub to the first CPU and this load "
                   "generator to the second")
    p.add_argument("--warmup", type=float, default=2.0)
    p.add_argument("--json", action="store_true")
    p.add_argument("--profile", metavar="FILE",
                   help="run the hub under cProfile, stats to FILE")
    return p.parse_args(argv)


def main(argv):
    options = parseArgs(argv)
    if options.together and not options.rate:
        raise SystemExit("--together needs --rate: side by side, two "
                         "saturating loads would share the CPUs unevenly")
    scenarios = options.scenario or ["cpu", "paced", "idle"]
    gomoku_load.raiseFileLimit(4 * options.idle + 1000)
    from twisted.internet import reactor, task
    port, webPort = freePort(), freePort()
    log = os.path.join(tempfile.gettempdir(), "ws-gomoku-bench.log")
    profile = ()
    if options.profile:
        profile = ("--profile=" + os.path.abspath(options.profile),
                   "--profiler=cprofile", "--savestats")
    pinned = None if options.no_pin else cpusToPin()
    if pinned:
        os.sched_setaffinity(0, {pinned[1]})

    def start(port, webPort, log):
        hub = startHub(port, log, twistdArgs=profile,
                       cpu=pinned[0] if pinned else None, extra=[
            "--web-port", "tcp:%d:interface=127.0.0.1" % (webPort,),
            "--web-max-connections-per-ip", "0", "--web-request-rate", "0",
            "--web-fd-reserve", "0", "--db", "none", "--announce", "no"])
        waitForPort(webPort, hub)
        return hub
    hub = start(port, webPort, log)
    hubs = [(hub, port, webPort)]
    if options.together:
        other = freePort(), freePort()
        hubs.append((start(other[0], other[1], log + ".2"),) + other)
    results = {"pinned": pinned, "together": options.together}

    async def scenario(name, bench, count, kind, roles, pid=hub.pid):
        try:
            results[name] = await bench.run(count, kind, roles, pid)
        finally:
            bench.close()
            await task.deferLater(reactor, 0.5, lambda: None)

    async def everything():
        if "cpu" in scenarios:
            moves = options.moves or None
            mode, interval = "saturate", 0
            if options.rate:
                mode, interval = "paced", options.games / options.rate
            perMove = {"tcp": [], "ws": []}
            for number in range(1, options.rounds + 1):
                suffix = "" if options.rounds == 1 else "_%d" % (number,)
                kinds = ("tcp", "ws") if number % 2 else ("ws", "tcp")
                gate = Gate(2) if options.together else None
                runs = []
                for index, kind in enumerate(kinds):
                    # Together, the first kind of the round on the first
                    # hub: each kind on each hub in turn.
                    server, gomokuPort, socketPort = hubs[
                        index if options.together else 0]
                    if kind == "tcp":
                        bench = Bench(
                            reactor, gomokuPort, mode, interval,
                            options.warmup, options.seconds,
                            tag="t%d_" % (number,), moves=moves, gate=gate)
                    else:
                        bench = SocketBench(
                            socketPort, reactor, gomokuPort, mode, interval,
                            options.warmup, options.seconds,
                            tag="s%d_" % (number,), moves=moves, gate=gate)
                    name = "cpu_" + kind + suffix
                    run = scenario(name, bench, options.games, "game",
                                   ("owner", "guest"), server.pid)
                    if options.together:
                        runs.append(defer.ensureDeferred(run))
                    else:
                        await run
                if runs:
                    await defer.gatherResults(runs, consumeErrors=True)
                for kind in kinds:
                    perMove[kind].append(
                        results["cpu_" + kind + suffix][
                            "server_cpu_us_per_op"])
            tcp = statistics.median(perMove["tcp"])
            ws = statistics.median(perMove["ws"])
            if options.rounds > 1:
                results["cpu_us_per_move"] = perMove
                eachRound = results["cpu_ratio_each_round"] = [
                    round(w / t, 2)
                    for t, w in zip(perMove["tcp"], perMove["ws"])]
                results["cpu_ratio_median_of_rounds"] = statistics.median(
                    eachRound)
            results["cpu_ratio_ws_to_tcp"] = round(ws / tcp, 2)
        if "paced" in scenarios:
            await scenario("paced_ws", SocketBench(
                webPort, reactor, port, "paced", 1.0, options.warmup,
                options.seconds, tag="p"), options.paced_games, "game",
                ("owner", "guest"))
        if "idle" in scenarios:
            await scenario("idle_ws", SocketBench(
                webPort, reactor, port, "idle", 0, 0, 0, tag="i"),
                options.idle, "idle", ("idle",))

    def done(result):
        reactor.stop()
        return result

    from twisted.internet import defer
    d = defer.ensureDeferred(everything())
    d.addErrback(lambda f: (f.printTraceback(), None)[1])
    d.addBoth(done)
    reactor.run()
    for each in hubs:
        stopProcess(each[0])
    if options.json:
        print(json.dumps(results, indent=2))
    else:
        for name, figures in results.items():
            print(name, figures)


if __name__ == "__main__":
    main(sys.argv[1:])
