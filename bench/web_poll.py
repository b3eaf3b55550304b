"""
Clients polling the largest lobby of gamehub's web face as fast as they
can, measured against the players' latency.

Starts C{twistd -n gamehub} (gomoku, checkers and the web face, no
records), fills its checkers lobby with C{--rooms} rooms whose ids are
the longest a checkers room may have (64 characters, all C{<}: six bytes
each once escaped in JSON) and one member each with a 20-character name,
then alternates, C{--rounds} times in the same hub, C{--games} paced
gomoku games (C{bench/gomoku_load.py}) alone, and the same players while
C{--pollers} clients of this process, each from its own loopback address
(127.0.0.2, 127.0.0.3, ...), ask for C{--path} (C{/api/hub}, or C{/} for
the lobby page) on a keep-alive HTTP/1.1 connection again the moment
each answer is read, and connect again at once when the hub closes it.
Reports per round the players' p50/p99 alone and polled, the p99 the
polling added, and the polls answered (by status code) and bytes read.

The hub keeps its default web limits (each poller, over
C{--web-request-rate}, mostly gets 429s, and is cut and refused past its
overdraft); C{--no-web-limits} turns them off, and then only the lobby
document built once a second, its bytes served as they are, stands
between the pollers and the players.

Example::

    python bench/web_poll.py --rooms 1000 --pollers 4 --rounds 3
    python bench/web_poll.py --rooms 1000 --pollers 4 --no-web-limits

Not a test: it prints figures.
"""

import argparse
import json
import os
import socket
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import gomoku_load  # noqa: E402
import web_spectators  # noqa: E402

#: The longest room id a checkers room may have (hub.protocols.checkers).
ROOM_ID_LENGTH = 64


def startHub(args, cpu=None):
    """
    The hub with gomoku, checkers and the web face on free loopback ports,
    logging to the temporary directory: C{(process, gomoku port, checkers
    port, web port)}.
    """
    port, checkersPort, webPort = [gomoku_load.freePort()
                                   for _ in range(3)]
    extra = ["--checkers-port", "tcp:%d:interface=127.0.0.1" % (
        checkersPort,),
        "--web-port", "tcp:%d:interface=127.0.0.1" % (webPort,),
        "--db", "none", "--grace-seconds", "0", "--announce", "no"]
    if args.no_web_limits:
        extra += ["--web-request-rate", "0", "--web-max-connections-per-ip",
                  "0", "--web-max-streams-per-ip", "0"]
    proc = gomoku_load.startHub(
        port, os.path.join(tempfile.gettempdir(), "web_poll_hub.log"),
        extra=extra, cpu=cpu)
    gomoku_load.waitForPort(checkersPort, proc)
    gomoku_load.waitForPort(webPort, proc)
    return proc, port, checkersPort, webPort


def fillLobby(checkersPort, rooms):
    """
    C{rooms} checkers rooms of one member each, their ids the longest
    allowed: the open sockets holding them.
    """
    from hub.wire import checkers as wire
    members = []
    for n in range(rooms):
        sock = socket.create_connection(("127.0.0.1", checkersPort),
                                        timeout=30)
        suffix = "%d" % (n,)
        roomId = "<" * (ROOM_ID_LENGTH - len(suffix)) + suffix
        name = ("p%d_" % (n,)).ljust(20, "x")
        sock.sendall(wire.encode(wire.JOIN_ROOM_OP, roomId, name))
        reply = wire.decode(sock.recv(65536).splitlines()[0])
        if reply.op != wire.JOIN_ROOM_REPLY_OP:
            raise SystemExit("room %d refused: %r" % (n, reply))
        members.append(sock)
    return members


def lobbyBytes(webPort, path):
    """
    The size of C{path} now, in bytes.
    """
    import urllib.request
    with urllib.request.urlopen(
            "http://127.0.0.1:%d%s" % (webPort, path), timeout=30) as r:
        return len(r.read())


class Pollers:
    """
    Keep-alive HTTP/1.1 connections from this process, one per loopback
    address from 127.0.0.2, each asking for C{path} again as soon as it
    has read the whole answer, and connecting again at once when closed.

    @ivar codes: answers read, by status code.
    @ivar received: bytes read.
    @ivar connections: connections made.
    """

    def __init__(self, reactor, webPort, count, path="/api/hub"):
        from twisted.internet import protocol
        self.codes = {}
        self.received = 0
        self.connections = 0
        self.polling = True
        request = b"GET %s HTTP/1.1\r\nHost: hub\r\n\r\n" % (
            path.encode("ascii"),)
        pollers = self

        class Poller(protocol.Protocol):
            def connectionMade(self):
                pollers.connections += 1
                self.buffer = b""
                self.rest = None
                self.transport.write(request)

            def dataReceived(self, data):
                pollers.received += len(data)
                self.buffer += data
                while True:
                    if self.rest is None:
                        head, sep, tail = self.buffer.partition(b"\r\n\r\n")
                        if not sep:
                            return
                        lines = head.split(b"\r\n")
                        self.code = int(lines[0].split()[1])
                        length = 0
                        for line in lines[1:]:
                            name, _, value = line.partition(b":")
                            if name.strip().lower() == b"content-length":
                                length = int(value)
                        self.rest, self.buffer = length, tail
                    if len(self.buffer) < self.rest:
                        return
                    self.buffer = self.buffer[self.rest:]
                    self.rest = None
                    pollers.codes[self.code] = pollers.codes.get(
                        self.code, 0) + 1
                    if not pollers.polling:
                        self.transport.loseConnection()
                        return
                    self.transport.write(request)

        class Reconnecting(protocol.ClientFactory):
            protocol = Poller

            def __init__(self, source):
                self.source = source

            def clientConnectionLost(self, connector, reason):
                if pollers.polling:
                    connector.connect()

            clientConnectionFailed = clientConnectionLost

        for n in range(count):
            source = "127.0.0.%d" % (n + 2,)
            reactor.connectTCP("127.0.0.1", webPort, Reconnecting(source),
                               bindAddress=(source, 0))

    def stop(self):
        self.polling = False


def runRounds(args):
    """
    Alternate, C{args.rounds} times in one hub, the players alone and the
    players polled: the figures of each pair, and their medians.
    """
    from twisted.internet import defer, reactor
    results = {"games": args.games, "rooms": args.rooms,
               "pollers": args.pollers, "seconds": args.seconds,
               "path": args.path, "web_limits": not args.no_web_limits,
               "rounds": []}
    args.mode = "paced"
    cpus = web_spectators.pinned(args)
    results["pinned"] = cpus
    proc, port, checkersPort, webPort = startHub(
        args, cpus[0] if cpus else None)
    try:
        members = fillLobby(checkersPort, args.rooms)
        time.sleep(1.1)
        results["lobby_bytes"] = lobbyBytes(webPort, args.path)

        def players():
            return web_spectators.players(
                port, proc.pid, "paced", args.games, args.seconds,
                args.warmup, pin=bool(cpus))

        @defer.inlineCallbacks
        def polled(load):
            pollers = Pollers(reactor, webPort, args.pollers, args.path)
            start = time.monotonic()
            seen = yield web_spectators.deferToProcess(load)
            pollers.stop()
            elapsed = time.monotonic() - start
            seen["polls"] = dict(sorted(
                (str(k), v) for k, v in pollers.codes.items()))
            seen["polls_per_second"] = round(
                sum(pollers.codes.values()) / elapsed, 1)
            seen["bytes_read"] = pollers.received
            seen["poller_connections"] = pollers.connections
            return seen

        @defer.inlineCallbacks
        def rounds():
            for _ in range(args.rounds):
                alone = yield web_spectators.deferToProcess(players())
                seen = yield polled(players())
                results["rounds"].append({"alone": alone, "polled": seen})

        d = rounds()
        d.addErrback(lambda f: f.printTraceback(sys.stderr))
        d.addBoth(lambda _: reactor.stop())
        reactor.run()
        for sock in members:
            sock.close()
    finally:
        gomoku_load.stopProcess(proc)
    done = results["rounds"]
    for r in done:
        r["players_p99_added_ms"] = round(
            r["polled"]["p99_ms"] - r["alone"]["p99_ms"], 3)
    if done:
        results["median_players_p99_added_ms"] = statistics.median(
            r["players_p99_added_ms"] for r in done)
        results["median_polls_per_second"] = statistics.median(
            r["polled"]["polls_per_second"] for r in done)
    return results


def report(results):
    """
    Print the figures for humans.
    """
    print("%(rooms)d checkers rooms (%(path)s %(lobby_bytes)d bytes), "
          "%(pollers)d pollers, %(games)d paced gomoku games, window "
          "%(seconds)ss, web limits %(limits)s" % dict(
              results, limits="on" if results["web_limits"] else "off"))
    for i, r in enumerate(results["rounds"]):
        alone, polled = r["alone"], r["polled"]
        print(" round %d: players p50/p99 alone %s/%s ms, polled %s/%s ms "
              "(p99 %+.3f ms); %s polls/s %s, %d connections" % (
                  i + 1, alone["p50_ms"], alone["p99_ms"], polled["p50_ms"],
                  polled["p99_ms"], r["players_p99_added_ms"],
                  polled["polls_per_second"], polled["polls"],
                  polled["poller_connections"]))
    if "median_players_p99_added_ms" in results:
        print(" median p99 added: %.3f ms; median polls/s %s" % (
            results["median_players_p99_added_ms"],
            results["median_polls_per_second"]))


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rooms", type=int, default=1000,
                   help="checkers rooms in the lobby")
    p.add_argument("--pollers", type=int, default=4)
    p.add_argument("--games", type=int, default=100,
                   help="paced gomoku games (200 players' moves a second)")
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--warmup", type=float, default=4.0)
    p.add_argument("--rounds", type=int, default=3,
                   help="pairs of rounds, alone then polled, in one hub")
    p.add_argument("--path", default="/api/hub",
                   help="what the pollers ask for: /api/hub, or / (the "
                        "lobby page)")
    p.add_argument("--no-web-limits", action="store_true",
                   help="turn the hub's web limits off")
    p.add_argument("--no-pin", action="store_true",
                   help="leave scheduling to the kernel")
    p.add_argument("--json", action="store_true",
                   help="print the figures as JSON")
    args = p.parse_args(argv)
    gomoku_load.raiseFileLimit(args.rooms * 2 + args.games * 4 + 100)
    results = runRounds(args)
    if args.json:
        print(json.dumps(results, sort_keys=True, indent=1))
    else:
        report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
