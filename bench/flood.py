"""
Two figures of issue 14 against the real C{twistd -n gamehub} on
loopback, each measured against its own baseline in the same run.

Modes:
  - C{latency}: C{--players} idle players per protocol make request and
    reply round trips, one every C{--think} seconds (gomoku: the room
    list; checkers: READY in a room of their own, echoed; Splendor: a
    frame before INIT, answered PLAYER_OPERATION_INVALID).  Each round
    measures C{--seconds} without flooders, then C{--seconds} with one
    flooder per protocol (a separate process) sending the same request as
    fast as its socket takes it, reading and dropping the replies, and
    connecting again whenever the hub cuts it (C{--no-reconnect}: the
    flooder stays away once cut, as the single-connection flood of the
    issue).  Target: with flooders, each protocol's p99 at most 2x that
    without.
  - C{cpu}: C{--games} two-player checkers games played as fast as the
    replies come (each move chosen on a client-side copy of the game);
    report the server's CPU time per move, for the hub and then for a
    bare Twisted relay (L{RelayProtocol}) given the same moves: one line
    in, the same lines out to the same connections.  Target: the hub at
    most 1.5x the relay.

Examples::

    python bench/flood.py latency --rounds 5
    python bench/flood.py latency --rounds 5 --no-reconnect
    python bench/flood.py latency --rounds 5 --hub-args="--request-rate 0"
    python bench/flood.py cpu --rounds 5
    python bench/flood.py cpu --rounds 5 --hub-args="--db none"

Each round's figures are printed, then the medians, with the load
average (the machine may be shared).  Not a test; every wait is bounded.
"""

import argparse
import json
import os
import random
import re
import selectors
import shlex
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

from gomoku_load import cpuSeconds  # noqa: E402
from hub.games import checkers as rules  # noqa: E402
from hub.wire import checkers as checkersWire  # noqa: E402
from hub.wire import gomoku as gomokuWire  # noqa: E402
from hub.wire import splendor as splendorWire  # noqa: E402

TIMEOUT = 60.0
KINDS = ("gomoku", "checkers", "splendor")
now = time.perf_counter


def loadAverage():
    return "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


class Server:
    """
    A server subprocess whose ports are read from its log.
    """

    def __init__(self, args, patterns, cwd, logName="server.log"):
        self.logPath = os.path.join(cwd, logName)
        self.log = open(self.logPath, "wb")
        self.process = subprocess.Popen(
            args, cwd=cwd, stdin=subprocess.DEVNULL, stdout=self.log,
            stderr=subprocess.STDOUT)
        self.ports = {name: self.waitForLog(pattern)
                      for name, pattern in patterns.items()}

    def text(self):
        try:
            with open(self.logPath, errors="replace") as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def waitForLog(self, pattern):
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("server exited:\n" + self.text())
            found = re.search(pattern, self.text())
            if found:
                return int(found.group(1))
            time.sleep(0.05)
        raise RuntimeError("server never logged " + pattern)

    def cpu(self):
        return cpuSeconds(self.process.pid)

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


def startHub(extra=(), kinds=KINDS):
    """
    C{twistd -n gamehub} with the given game ports on loopback (the
    others C{none}), metrics too, logging at its default level to a file.
    """
    workdir = tempfile.mkdtemp(prefix="gamehub-flood-")
    twistd = os.path.join(os.path.dirname(sys.executable), "twistd")
    args = [twistd, "-n", "--pidfile=", "--logfile=twistd.log", "gamehub",
            "--metrics-port", "tcp:0:interface=127.0.0.1", "--web-port",
            "none"]
    for kind in KINDS:
        args += ["--{}-port".format(kind),
                 "tcp:0:interface=127.0.0.1" if kind in kinds else "none"]
    args.extend(extra)
    print("hub: " + " ".join(args[args.index("gamehub"):]))
    server = Server(args, dict(
        {kind: r"{}Factory starting on (\d+)".format(kind.capitalize())
         for kind in kinds}, metrics=r"MetricsSite starting on (\d+)"),
        workdir, "twistd.log")
    return server


def metric(server, name):
    url = "http://127.0.0.1:{}/metrics".format(server.ports["metrics"])
    with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
        text = response.read().decode()
    return sum(float(line.split()[-1]) for line in text.splitlines()
               if line.startswith(name))


def connect(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


# Requests with one reply each, per protocol: how to set a connection up
# (bytes, and how many replies that brings), the request, and how to
# count the replies in what was read.

def gomokuFrame(message):
    return gomokuWire.encodeMessage(message)


def setupBytes(kind, n):
    if kind == "gomoku":
        return gomokuFrame(gomokuWire.regMessage("p{}x{}".format(
            n, random.getrandbits(32)), 1)), 1
    if kind == "checkers":
        return checkersWire.encode(checkersWire.JOIN_ROOM_OP,
                                   "room{}x{}".format(
                                       n, random.getrandbits(32)), "p"), 1
    return b"", 0


REQUESTS = {
    "gomoku": gomokuFrame(gomokuWire.requestMessage(
        gomokuWire.REQ_ROOM_LIST, 2)),
    "checkers": checkersWire.encode(checkersWire.PLAYER_READY_OP),
    "splendor": splendorWire.packClientFrame(splendorWire.PLAYER_READY, 0),
}


class ReplyCounter:
    """
    Counts whole replies of one protocol in the bytes read.
    """

    def __init__(self, kind):
        self.kind = kind
        self.buffer = b""

    def feed(self, data):
        if self.kind == "gomoku":
            return data.count(b">")
        if self.kind == "checkers":
            return data.count(b"\n")
        self.buffer += data
        count = 0
        while len(self.buffer) >= splendorWire.HEADER_LENGTH:
            length = splendorWire.HEADER.unpack_from(self.buffer)[2]
            if len(self.buffer) < length:
                break
            self.buffer = self.buffer[length:]
            count += 1
        return count


class Player:
    """
    One idle player's socket: a request every C{think} seconds, its
    round trip timed.
    """

    def __init__(self, kind, port, n):
        self.kind = kind
        self.sock = connect(port)
        setup, replies = setupBytes(kind, n)
        self.sock.sendall(setup)
        counter = ReplyCounter(kind)
        while replies > 0:
            replies -= counter.feed(self.sock.recv(65536))
        self.sock.setblocking(False)
        self.counter = counter
        self.sentAt = None
        self.nextAt = 0.0
        self.samples = []


def measure(players, seconds, think):
    """
    Run the players' round trips for C{seconds}; return their samples in
    ms per kind.
    """
    selector = selectors.DefaultSelector()
    for p in players:
        p.samples = []
        p.sentAt = None
        p.nextAt = now() + random.random() * think
        selector.register(p.sock, selectors.EVENT_READ, p)
    end = now() + seconds
    while now() < end:
        t = now()
        for p in players:
            if p.sentAt is None and t >= p.nextAt:
                p.sentAt = now()
                p.sock.send(REQUESTS[p.kind])
        waits = [p.nextAt for p in players if p.sentAt is None]
        timeout = max(0.0, min(waits) - now()) if waits else 0.05
        for key, _ in selector.select(min(timeout, 0.05)):
            p = key.data
            data = p.sock.recv(65536)
            if not data:
                raise RuntimeError("the hub closed a player")
            if p.counter.feed(data) and p.sentAt is not None:
                t = now()
                p.samples.append((t - p.sentAt) * 1000)
                p.sentAt = None
                p.nextAt = t + think
    selector.close()
    # Let the last requests' replies come, so the next phase starts clean.
    time.sleep(0.2)
    for p in players:
        try:
            p.sock.recv(1 << 20)
        except BlockingIOError:
            pass
    return {kind: [s for p in players if p.kind == kind for s in p.samples]
            for kind in KINDS}


def benchLatency(args):
    hub = startHub(shlex.split(args.hub_args))
    try:
        players = [Player(kind, hub.ports[kind], n) for kind in KINDS
                   for n in range(args.players)]
        rows = []
        for r in range(args.rounds):
            quiet = measure(players, args.seconds, args.think)
            quietLoad = loadAverage()
            cutBefore = metric(hub, "gamehub_limited_connections_total")
            slowBefore = metric(hub, "gamehub_throttled_connections_total")
            flooder = subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), "flooder"]
                + ["--{}-port={}".format(k, hub.ports[k]) for k in KINDS]
                + ([] if args.reconnect else ["--no-reconnect"]),
                stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
            time.sleep(1.0)
            flooded = measure(players, args.seconds, args.think)
            floodLoad = loadAverage()
            flooder.terminate()
            out = flooder.communicate(TIMEOUT)[0].decode().strip()
            cut = metric(hub, "gamehub_limited_connections_total") - cutBefore
            slowed = (metric(hub, "gamehub_throttled_connections_total")
                      - slowBefore)
            print("round {}: load {} / {}; flooders {}; cut {:.0f}, "
                  "slowed {:.0f}".format(r + 1, quietLoad, floodLoad, out,
                                         cut, slowed))
            row = {}
            for kind in KINDS:
                q50, q99 = (percentile(quiet[kind], 0.5),
                            percentile(quiet[kind], 0.99))
                f50, f99 = (percentile(flooded[kind], 0.5),
                            percentile(flooded[kind], 0.99))
                row[kind] = (q50, q99, f50, f99, len(quiet[kind]),
                             len(flooded[kind]))
                print("  {:9} quiet p50 {:6.2f} p99 {:6.2f} ms ({} trips); "
                      "flooded p50 {:6.2f} p99 {:6.2f} ms ({} trips); "
                      "p99 ratio {:.2f}".format(
                          kind, q50, q99, len(quiet[kind]), f50, f99,
                          len(flooded[kind]), f99 / q99))
            rows.append(row)
            time.sleep(args.settle)
        print("medians over {} rounds:".format(len(rows)))
        print("| protocol | p50 quiet | p99 quiet | p50 flooded "
              "| p99 flooded | p99 ratio |")
        for kind in KINDS:
            med = [statistics.median(row[kind][i] for row in rows)
                   for i in range(4)]
            ratio = statistics.median(row[kind][3] / row[kind][1]
                                      for row in rows)
            print("| {} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.2f} |"
                  .format(kind, *med, ratio))
    finally:
        hub.stop()


def flooder(args):
    """
    One flooding connection per protocol, sending as fast as the socket
    takes it, reading and dropping what comes back, connecting again when
    cut.  Prints the frames sent and the connections made when stopped.
    """
    import signal
    stop = []
    signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
    ports = {"gomoku": args.gomoku_port, "checkers": args.checkers_port,
             "splendor": args.splendor_port}
    batch = {kind: REQUESTS[kind] * 64 for kind in KINDS}
    selector = selectors.DefaultSelector()
    sent = dict.fromkeys(KINDS, 0)
    connections = dict.fromkeys(KINDS, 0)

    def open_(kind):
        while not stop:
            try:
                sock = connect(ports[kind])
                sock.sendall(setupBytes(kind, 0)[0])
                break
            except OSError:
                connections[kind] += 1
        else:
            return
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ | selectors.EVENT_WRITE,
                          kind)
        connections[kind] += 1

    for kind in KINDS:
        open_(kind)
    while not stop:
        if not selector.get_map():
            time.sleep(0.1)
            continue
        for key, events in selector.select(0.1):
            kind, sock = key.data, key.fileobj
            try:
                if events & selectors.EVENT_READ:
                    if not sock.recv(1 << 20):
                        raise ConnectionResetError()
                if events & selectors.EVENT_WRITE:
                    sent[kind] += sock.send(batch[kind]) // len(
                        REQUESTS[kind])
            except (ConnectionError, OSError):
                selector.unregister(sock)
                sock.close()
                if not stop and args.reconnect:
                    open_(kind)
    print(" ".join("{} {} frames/{} conns".format(k, sent[k], connections[k])
                   for k in KINDS))


# Per-move CPU: checkers against a bare relay.

NAMES = ("alice", "bob")


def checkersLine(op, data1="", data2=""):
    return checkersWire.encode(op, data1, data2)


class Game:
    """
    One two-player checkers game driven from the client side: a copy of
    the game chooses each move (noisy greedy, as the tests' mirror).
    """

    REGIONS = ("A", "D")

    def __init__(self, socks, rng, room):
        self.socks = socks
        self.rng = rng
        self.room = room
        self.buffers = [b"", b""]
        self.reset()

    def reset(self):
        self.game = rules.CheckersGame(regions=self.REGIONS)
        # The socket of each seat (the hub seats by join order, which the
        # two sockets' JOINs may reach in either order).
        self.order = [0, 1]

    def choose(self):
        seat = self.game.currentSeat
        actions = self.game.legalActions(seat)
        if not actions:
            return None
        tip = rules.TIPS[rules.TARGET[self.REGIONS[seat]]]
        return min(actions, key=lambda p: (
            rules.cellDistance(p[-1], tip) - rules.cellDistance(p[0], tip)
            + 1.5 * self.rng.random()))

    def move(self):
        """
        Send the move of the seat to play; 1 if a move was sent.
        """
        if self.game.isOver:
            return 0
        seat = self.game.currentSeat
        path = self.choose()
        if path is None:
            return 0
        self.socks[self.order[seat]].sendall(checkersLine(
            checkersWire.MOVE_OP, self.REGIONS[seat],
            checkersWire.formatPath(path)))
        self.game.apply(seat, path)
        return 1

    def lines(self, index, data):
        self.buffers[index] += data
        *whole, self.buffers[index] = self.buffers[index].split(b"\n")
        return [json.loads(line) for line in whole if line]


def hubGames(port, count, rng):
    games = []
    for g in range(count):
        socks = [connect(port), connect(port)]
        game = Game(socks, rng, "g{}x{}".format(g, random.getrandbits(32)))
        games.append(game)
    return games


def joinAndReady(game):
    for sock, name in zip(game.socks, NAMES):
        sock.sendall(checkersLine(checkersWire.JOIN_ROOM_OP, game.room, name))
    for sock, name in zip(game.socks, NAMES):
        sock.sendall(checkersLine(checkersWire.PLAYER_READY_OP, name))


def playCheckers(games, seconds, relay):
    """
    Play C{games} as fast as the server answers for C{seconds}.

    @return: the moves sent.
    """
    selector = selectors.DefaultSelector()
    for game in games:
        for index, sock in enumerate(game.socks):
            sock.setblocking(True)
            selector.register(sock, selectors.EVENT_READ, (game, index))
        game.reset()
        if relay:
            game.socks[0].sendall(b"start\n")
        else:
            joinAndReady(game)
    moves = 0
    end = now() + seconds
    while now() < end:
        for key, _ in selector.select(0.5):
            game, index = key.data
            data = key.fileobj.recv(65536)
            if not data:
                raise RuntimeError("the server closed a player")
            for line in game.lines(index, data):
                op = line["op"]
                if op == checkersWire.START_TURN_OP:
                    # The hub tells the seat to play; the relay's turn
                    # lines are counted on the first socket only.
                    if relay and index == 0:
                        if game.game.isOver:
                            game.reset()
                        moves += game.move()
                    elif not relay:
                        seat = game.game.currentSeat
                        if (seat is not None and index == game.order[seat]
                                and line["data1"] == Game.REGIONS[seat]):
                            moves += game.move()
                elif op == checkersWire.START_GAME_OP and index == 0:
                    game.order = [NAMES.index(n)
                                  for n in line["data1"].split()]
                elif op == checkersWire.END_GAME_OP and index == 0:
                    game.reset()
                    joinAndReady(game)
    # Stop every game: leave (hub) or close (relay).
    selector.close()
    return moves


def benchCpu(args):
    rows = []
    for r in range(args.rounds):
        figures = {}
        for name in ("hub", "relay"):
            rng = random.Random(r)
            if name == "hub":
                server = startHub(shlex.split(args.hub_args),
                                  kinds=("checkers",))
                port = server.ports["checkers"]
            else:
                workdir = tempfile.mkdtemp(prefix="gamehub-relay-")
                server = Server([sys.executable, os.path.abspath(__file__),
                                 "relay"], {"relay": r"relay on (\d+)"},
                                workdir)
                port = server.ports["relay"]
            try:
                games = hubGames(port, args.games, rng)
                playCheckers(games, 1.0, name == "relay")   # warm up
                for game in games:
                    for sock in game.socks:
                        sock.close()
                games = hubGames(port, args.games, rng)
                before = server.cpu()
                moves = playCheckers(games, args.seconds, name == "relay")
                used = server.cpu() - before
                for game in games:
                    for sock in game.socks:
                        sock.close()
            finally:
                server.stop()
            figures[name] = (used / max(1, moves) * 1e6, moves, used)
        load = loadAverage()
        ratio = figures["hub"][0] / figures["relay"][0]
        print("round {}: load {}; hub {:.0f} us/move ({} moves, {:.2f} s "
              "CPU); relay {:.0f} us/move ({} moves, {:.2f} s); ratio {:.2f}"
              .format(r + 1, load, *figures["hub"], *figures["relay"],
                      ratio))
        rows.append((figures["hub"][0], figures["relay"][0], ratio))
    print("medians over {} rounds: hub {:.0f} us/move, relay {:.0f} "
          "us/move, ratio {:.2f}".format(
              len(rows), *[statistics.median(c) for c in zip(*rows)]))


def relayServer(args):
    """
    A bare Twisted relay with the checkers hub's fan-out for two-player
    games: connections pair up in order; a line from one goes to the
    other, then a turn line naming the next region to both (what the hub
    writes for a move: MOVE to the opponent, START_TURN to both).  The
    line C{start} sends the first turn.
    """
    from twisted.internet import reactor
    from twisted.internet.protocol import Factory
    from twisted.protocols.basic import LineOnlyReceiver

    class RelayProtocol(LineOnlyReceiver):
        delimiter = b"\n"
        MAX_LENGTH = 8192

        def connectionMade(self):
            self.transport.setTcpNoDelay(True)
            waiting = self.factory.waiting
            if waiting is None:
                self.factory.waiting = self
                self.pair = None
            else:
                self.factory.waiting = None
                pair = [waiting, self]
                turn = [0]
                waiting.pair = self.pair = (pair, turn)

        def lineReceived(self, line):
            pair, turn = self.pair
            if line != b"start":
                other = pair[1] if pair[0] is self else pair[0]
                other.transport.write(line + b"\n")
                turn[0] ^= 1
            else:
                turn[0] = 0
            stamp = checkersLine(checkersWire.START_TURN_OP,
                                 Game.REGIONS[turn[0]],
                                 str(int(time.time())))
            for member in pair:
                member.transport.write(stamp)

    factory = Factory.forProtocol(RelayProtocol)
    factory.waiting = None
    port = reactor.listenTCP(0, factory, interface="127.0.0.1")
    print("relay on {}".format(port.getHost().port), flush=True)
    reactor.run()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("mode", choices=["latency", "cpu", "flooder",
                                         "relay"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--settle", type=float, default=2.0,
                        help="seconds between latency rounds")
    parser.add_argument("--players", type=int, default=4,
                        help="idle players per protocol (latency)")
    parser.add_argument("--think", type=float, default=0.02,
                        help="seconds between a player's requests")
    parser.add_argument("--games", type=int, default=20,
                        help="checkers games at once (cpu)")
    parser.add_argument("--no-reconnect", dest="reconnect",
                        action="store_false",
                        help="a flooder cut by the hub stays away")
    parser.add_argument("--hub-args", default="",
                        help="more twistd gamehub options")
    for kind in KINDS:
        parser.add_argument("--{}-port".format(kind), type=int)
    args = parser.parse_args()
    {"latency": benchLatency, "cpu": benchCpu, "flooder": flooder,
     "relay": relayServer}[args.mode](args)


if __name__ == "__main__":
    main()
