"""
The web port's hostile clients of issue 33, against a game canary.

Starts C{twistd -n gamehub} (gomoku, checkers and the web face, at the
defaults), then alternates, C{--rounds} times in the same hub, paced
gomoku games (C{bench/gomoku_load.py}, the canary) alone and the same
games while hostile clients of this process, each from its own loopback
address (127.0.0.2, ...), do one of:

  - C{continuations}: C{--flooders} WebSockets each open a message that
    never ends (a first frame with FIN clear) and send empty continuation
    frames as fast as their sockets take them, connecting again the
    moment the hub closes them;
  - C{pings}: the same with ping frames (the pongs read and dropped);
  - C{replays}: C{--flooders} keep-alive HTTP/1.1 clients ask for the
    document of a stored C{--moves}-move checkers game (played over the
    checkers protocol first) again the moment each answer is read.

Reports the canary's p50/p99 alone and with the hostile clients, the
hub's CPU in each window, its RSS before, at its peak and after (waiting
at most 15 s for it to settle within 5 MB), and what the hostile clients
met: how long a flooding connection lived (from its first flood byte to
its close), the close codes, connections refused, answers by status.

    python bench/web_hostile.py --scenario continuations --rounds 2
    python bench/web_hostile.py --scenario pings --rounds 2
    python bench/web_hostile.py --scenario replays --moves 3000 --rounds 2

The canary is C{--games} games (45: 90 connections from 127.0.0.1, within
the default C{--max-connections-per-ip}).  Not a test: it prints figures.
"""

import argparse
import collections
import json
import os
import random
import selectors
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import flood  # noqa: E402
import gomoku_load  # noqa: E402
import web_poll  # noqa: E402
import web_spectators  # noqa: E402
from hub.games import checkers as rules  # noqa: E402
from hub.wire import checkers as checkersWire  # noqa: E402

#: The mask of every flooder frame (any will do).
MASK = b"\x01\x02\x03\x04"
#: Bytes a flooder writes each time its socket has room.
CHUNK = 64 * 1024
#: KiB of RSS the hub may keep after a flood.
SETTLED_KIB = 5 * 1024


def maskedFrame(payload, opcode, fin=True):
    """
    One client frame of a short C{payload}, masked with L{MASK}.
    """
    head = bytes([(0x80 if fin else 0) | opcode, 0x80 | len(payload)])
    return head + MASK + bytes(b ^ MASK[i % 4] for i, b in
                               enumerate(payload))


def floodBytes(scenario):
    """
    C{(opening, chunk)}: what a flooder sends first once upgraded, then
    again and again.
    """
    if scenario == "continuations":
        frame = maskedFrame(b"", 0, fin=False)
        return maskedFrame(b'{"type":', 1, fin=False), frame * (
            CHUNK // len(frame))
    frame = maskedFrame(b"ping", 9)
    return b"", frame * (CHUNK // len(frame))


def startHub(args, workdir, cpu=None):
    """
    The hub with gomoku, checkers and the web face on free loopback ports,
    at the default limits (records in C{workdir} for C{replays}, else
    none): C{(process, gomoku port, checkers port, web port)}.
    """
    ports = [gomoku_load.freePort() for _ in range(3)]
    twistd = os.path.join(os.path.dirname(sys.executable), "twistd")
    command = [twistd, "-n", "--pidfile=", "--logfile=" + os.path.join(
        workdir, "hub.log"), "gamehub"]
    for kind, port in zip(("gomoku", "checkers", "web"), ports):
        command += ["--%s-port" % (kind,),
                    "tcp:%d:interface=127.0.0.1" % (port,)]
    command += ["--splendor-port", "none", "--grace-seconds", "0",
                "--announce", "no"]
    if args.scenario != "replays":
        command += ["--db", "none"]
    command += args.hub_args
    pin = None if cpu is None else (
        lambda: os.sched_setaffinity(0, {cpu}))
    proc = subprocess.Popen(command, cwd=workdir, stdin=subprocess.DEVNULL,
                            preexec_fn=pin)
    for port in ports:
        gomoku_load.waitForPort(port, proc)
    return (proc,) + tuple(ports)


def playLongGame(checkersPort, moves):
    """
    Play a two-player checkers game of C{moves} moves over the checkers
    protocol (each seat steps one piece forth and back), then leave: the
    hub records it.
    """
    socks = [flood.connect(checkersPort), flood.connect(checkersPort)]
    game = flood.Game(socks, random.Random(1), "long")
    last = {}

    def choose():
        seat = game.game.currentSeat
        previous = last.get(seat)
        if previous is not None:
            path = (previous[-1], previous[0])
        else:
            path = next(a for a in game.game.legalActions(seat)
                        if len(a) == 2
                        and rules.cellDistance(a[0], a[1]) == 1)
        last[seat] = path
        return path
    game.choose = choose
    flood.joinAndReady(game)
    selector = selectors.DefaultSelector()
    for index, sock in enumerate(socks):
        selector.register(sock, selectors.EVENT_READ, index)
    sent = 0
    deadline = time.monotonic() + 120
    while sent < moves:
        if time.monotonic() > deadline:
            raise SystemExit("the long game stalled at %d moves" % (sent,))
        for key, _ in selector.select(1):
            index = key.data
            data = key.fileobj.recv(65536)
            if not data:
                raise SystemExit("the hub closed a checkers player")
            for line in game.lines(index, data):
                op = line["op"]
                if op == checkersWire.START_GAME_OP and index == 0:
                    game.order = [flood.NAMES.index(n)
                                  for n in line["data1"].split()]
                elif op == checkersWire.START_TURN_OP and sent < moves:
                    seat = game.game.currentSeat
                    if (index == game.order[seat]
                            and line["data1"] == game.REGIONS[seat]):
                        sent += game.move()
    selector.close()
    socks[0].sendall(flood.checkersLine(checkersWire.LEAVE_ROOM_OP,
                                        flood.NAMES[0]))
    time.sleep(0.5)
    for sock in socks:
        sock.close()


def waitForRecord(webPort, timeout=60):
    """
    The size of C{/api/games/1} once the records have it.
    """
    deadline = time.monotonic() + timeout
    url = "http://127.0.0.1:%d/api/games/1" % (webPort,)
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=60) as answer:
                body = answer.read()
                return len(body), len(json.loads(body)["moves"])
        except OSError:
            time.sleep(0.2)
    raise SystemExit("the long game was not recorded")


class Flooders:
    """
    WebSockets from this process, one per loopback address from
    127.0.0.2, each sending C{opening} once upgraded then C{chunk} again
    and again as fast as its transport takes it (a pull producer), and
    connecting again at once when closed.

    @ivar connections: connections made.
    @ivar upgraded: connections answered 101.
    @ivar lifetimes: seconds from each upgraded connection's first flood
        byte to its close.
    @ivar codes: the close codes the hub sent, by code (None: none).
    @ivar sent: bytes written.
    """

    def __init__(self, reactor, webPort, count, opening, chunk):
        from twisted.internet import protocol
        from zope.interface import implementer
        from twisted.internet.interfaces import IPullProducer
        self.connections = self.upgraded = self.sent = 0
        self.lifetimes = []
        self.codes = collections.Counter()
        self.flooding = True
        flooders = self
        handshake = (b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                     b"Upgrade: websocket\r\nConnection: Upgrade\r\n"
                     b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                     b"Sec-WebSocket-Version: 13\r\n\r\n") % (webPort,)

        @implementer(IPullProducer)
        class Flooder(protocol.Protocol):
            def connectionMade(self):
                flooders.connections += 1
                self.received = b""
                self.started = None
                self.transport.write(handshake)

            def dataReceived(self, data):
                if self.started is None:
                    self.received += data
                    head, sep, rest = self.received.partition(b"\r\n\r\n")
                    if not sep:
                        return
                    if not head.startswith(b"HTTP/1.1 101"):
                        self.transport.loseConnection()
                        return
                    flooders.upgraded += 1
                    self.started = time.monotonic()
                    self.received = rest
                    self.transport.write(opening)
                    self.transport.registerProducer(self, False)
                else:
                    # Keep only what may hold a close frame: the tail.
                    self.received = (self.received + data)[-256:]

            def resumeProducing(self):
                if flooders.flooding:
                    flooders.sent += len(chunk)
                    self.transport.write(chunk)

            def stopProducing(self):
                pass

            def connectionLost(self, reason):
                if self.started is None:
                    return
                flooders.lifetimes.append(time.monotonic() - self.started)
                code = None
                at = self.received.rfind(b"\x88")
                if at >= 0 and len(self.received) >= at + 4:
                    code = struct.unpack("!H", self.received[
                        at + 2:at + 4])[0]
                flooders.codes[code] += 1

        class Reconnecting(protocol.ClientFactory):
            protocol = Flooder

            def clientConnectionLost(self, connector, reason):
                if flooders.flooding:
                    connector.connect()

            clientConnectionFailed = clientConnectionLost

        for n in range(count):
            reactor.connectTCP("127.0.0.1", webPort, Reconnecting(),
                               bindAddress=("127.0.0.%d" % (n + 2,), 0))

    def stop(self):
        self.flooding = False

    def figures(self):
        lives = sorted(self.lifetimes)
        return {
            "connections": self.connections, "upgraded": self.upgraded,
            "refused": self.connections - self.upgraded,
            "sent_mb": round(self.sent / 1e6, 1),
            "lifetime_ms_median": round(statistics.median(lives) * 1000, 2)
            if lives else None,
            "lifetime_ms_max": round(lives[-1] * 1000, 2) if lives else None,
            "close_codes": {str(k): v for k, v in self.codes.items()}}


def runRounds(args):
    from twisted.internet import defer, reactor, task
    args.mode = "paced"
    cpus = web_spectators.pinned(args)
    workdir = tempfile.mkdtemp(prefix="web-hostile-")
    results = {"scenario": args.scenario, "games": args.games,
               "flooders": args.flooders, "seconds": args.seconds,
               "pinned": cpus, "rounds": []}
    proc, port, checkersPort, webPort = startHub(
        args, workdir, cpus[0] if cpus else None)
    try:
        if args.scenario == "replays":
            began = time.monotonic()
            playLongGame(checkersPort, args.moves)
            results["long_game_seconds"] = round(time.monotonic() - began, 1)
            # The first answer builds the document (the cache is cold).
            began = time.monotonic()
            size, moves = waitForRecord(webPort)
            results["document_bytes"] = size
            results["document_moves"] = moves
            results["first_answer_seconds"] = round(
                time.monotonic() - began, 3)

        def players():
            return web_spectators.players(
                port, proc.pid, "paced", args.games, args.seconds,
                args.warmup, pin=bool(cpus))

        def rss():
            return gomoku_load.rssKiB(proc.pid)

        @defer.inlineCallbacks
        def hostile(load):
            before = rss()
            peak = [before]
            sampler = task.LoopingCall(lambda: peak.append(rss()))
            sampler.clock = reactor
            sampler.start(0.1)
            cpu = gomoku_load.cpuSeconds(proc.pid)
            if args.scenario == "replays":
                clients = web_poll.Pollers(reactor, webPort, args.flooders,
                                           "/api/games/1")
            else:
                clients = Flooders(reactor, webPort, args.flooders,
                                   *floodBytes(args.scenario))
            start = time.monotonic()
            seen = yield web_spectators.deferToProcess(load)
            clients.stop()
            elapsed = time.monotonic() - start
            seen["hub_cpu_s"] = round(
                gomoku_load.cpuSeconds(proc.pid) - cpu, 2)
            # Settled: within SETTLED_KIB of before, or 15 s gone.
            settle = time.monotonic()
            while (rss() > before + SETTLED_KIB
                   and time.monotonic() - settle < 15):
                yield task.deferLater(reactor, 0.2, lambda: None)
            sampler.stop()
            seen["rss_kib"] = {"before": before, "peak": max(peak),
                               "after": rss(),
                               "settled_s": round(
                                   time.monotonic() - settle, 1)}
            if args.scenario == "replays":
                seen["answers"] = dict(sorted(
                    (str(k), v) for k, v in clients.codes.items()))
                seen["answers_per_second"] = round(
                    sum(clients.codes.values()) / elapsed, 1)
                seen["mb_read"] = round(clients.received / 1e6, 1)
                seen["connections"] = clients.connections
            else:
                seen["flooders"] = clients.figures()
            return seen

        @defer.inlineCallbacks
        def rounds():
            for _ in range(args.rounds):
                cpu = gomoku_load.cpuSeconds(proc.pid)
                alone = yield web_spectators.deferToProcess(players())
                alone["hub_cpu_s"] = round(
                    gomoku_load.cpuSeconds(proc.pid) - cpu, 2)
                seen = yield hostile(players())
                results["rounds"].append({"alone": alone, "hostile": seen})
                # The flooders' debts are paid before the next round.
                yield task.deferLater(reactor, 5, lambda: None)

        d = rounds()
        d.addErrback(lambda f: f.printTraceback(sys.stderr))
        d.addBoth(lambda _: reactor.stop())
        reactor.run()
    finally:
        gomoku_load.stopProcess(proc)
        results["hub_log_lines"] = logLines(os.path.join(workdir,
                                                         "hub.log"))
        shutil.rmtree(workdir, True)
    return results


def logLines(path):
    """
    How many lines the hub logged, and how many of them are autobahn's
    or the summaries' (the lines a flood would multiply).
    """
    lines = summaries = 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            lines += 1
            summaries += " more " in line and " in the last " in line
    return {"lines": lines, "summaries": summaries}


def report(results):
    print("%(scenario)s: %(flooders)d hostile clients, %(games)d paced "
          "gomoku games, %(seconds)ss windows" % results)
    if "document_bytes" in results:
        print(" stored game: %(document_moves)d moves, %(document_bytes)d "
              "bytes; first answer (the build) %(first_answer_seconds)s s"
              % results)
    for i, r in enumerate(results["rounds"]):
        alone, hostile = r["alone"], r["hostile"]
        print(" round %d: canary p50/p99 alone %s/%s ms, hostile %s/%s ms; "
              "hub CPU %s s / %s s; RSS KiB %s" % (
                  i + 1, alone["p50_ms"], alone["p99_ms"],
                  hostile["p50_ms"], hostile["p99_ms"], alone["hub_cpu_s"],
                  hostile["hub_cpu_s"], hostile["rss_kib"]))
        extra = hostile.get("flooders")
        if extra is None:
            extra = {k: hostile[k] for k in (
                "answers", "answers_per_second", "mb_read", "connections")}
        print("   %s" % (json.dumps(extra, sort_keys=True),))
    print(" hub log: %s" % (results["hub_log_lines"],))


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scenario", required=True,
                   choices=("continuations", "pings", "replays"))
    p.add_argument("--flooders", type=int, default=None,
                   help="hostile clients (4; 1 for pings)")
    p.add_argument("--games", type=int, default=45)
    p.add_argument("--moves", type=int, default=3000,
                   help="replays: the stored game's moves")
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--warmup", type=float, default=4.0)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--hub-args", type=str.split, default=[],
                   help="more gamehub options")
    p.add_argument("--no-pin", action="store_true")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.flooders is None:
        args.flooders = 1 if args.scenario == "pings" else 4
    gomoku_load.raiseFileLimit(args.games * 4 + 1000)
    results = runRounds(args)
    if args.json:
        print(json.dumps(results, sort_keys=True, indent=1))
    else:
        report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
