"""
The hub's own CPU per checkers move, in-process and without the machine's
noise: the real checkers factory over in-memory transports plays
two-player games (each move chosen on a client-side copy of the game, as
C{flood.py cpu} does, but not timed), and the process CPU time is divided
by the moves.  No sockets: this is the Python work of a move (decoding,
rules, events, turn clock, encoding), the part of C{flood.py cpu}'s
figure that the bare relay does not have.

    python bench/checkers_cpu.py --rounds 5 --moves 20000
    python bench/checkers_cpu.py --profile /tmp/checkers.prof

Not a test: it prints figures.
"""

import argparse
import cProfile
import os
import random
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from twisted.internet import reactor  # noqa: E402
from twisted.internet.address import IPv4Address  # noqa: E402
from twisted.internet.testing import StringTransport  # noqa: E402

from hub import tap  # noqa: E402
from hub.games import checkers as rules  # noqa: E402
from hub.service import Hub  # noqa: E402
from hub.web.live import Spectating  # noqa: E402
from hub.wire import checkers as wire  # noqa: E402

REGIONS = ("A", "D")


class Player:
    """
    One client connection: sends lines, throws the replies away.
    """

    def __init__(self, factory, port):
        self.protocol = factory.buildProtocol(
            IPv4Address("TCP", "127.0.0.1", port))
        self.transport = StringTransport()
        self.protocol.makeConnection(self.transport)

    def send(self, op, data1="", data2=""):
        self.protocol.dataReceived(wire.encode(op, data1, data2))
        self.transport.clear()


def gameLines(rng, games):
    """
    The MOVE_OP lines of C{games} two-player games, chosen as
    C{flood.py}'s client does: a list per game of C{(seat, line)}.
    """
    played = []
    for _ in range(games):
        game = rules.CheckersGame(regions=REGIONS)
        lines = []
        while not game.isOver and len(lines) < 400:
            seat = game.currentSeat
            actions = game.legalActions(seat)
            tip = rules.TIPS[rules.TARGET[REGIONS[seat]]]
            path = min(actions, key=lambda p: (
                rules.cellDistance(p[-1], tip) - rules.cellDistance(p[0], tip)
                + 1.5 * rng.random()))
            lines.append((seat, wire.encode(wire.MOVE_OP, REGIONS[seat],
                                             wire.formatPath(path))))
            game.apply(seat, path)
        played.append(lines)
    return played


def play(played, tables=20):
    """
    Play the games of C{played} on C{tables} rooms, a move on each table
    in turn, through the hub.

    @return: C{(cpuSeconds, moves)}.
    """
    # The hub as twistd makes it by default (limits, idle timeout, turn
    # clock), on the reactor's clock (not run: the timers never fire).
    options = tap.Options()
    # A request rate no player here reaches (the bucket still counts).
    options.parseOptions(["--db", "none", "--request-rate", "1000000"])
    hub = Hub(reactor, graceSeconds=options["grace-seconds"],
              idleSeconds=options["idle-seconds"], limits=options.limits())
    hub.startService()
    factory = tap.makeFactories(options, hub.lobby, hub.sessions,
                                hub.clock)["checkers-port"]
    # The spectators' feed, which the web site (or the metrics port)
    # gives every table.
    hub.lobby.addTableListener(Spectating(hub.clock))
    rooms = [(Player(factory, 40000 + 2 * i), Player(factory, 40001 + 2 * i))
             for i in range(tables)]
    moves = 0
    start = time.process_time()
    for first in range(0, len(played), tables):
        batch = list(zip(rooms, played[first:first + tables]))
        for index, ((one, two), lines) in enumerate(batch):
            room = "g%d-%d" % (first, index)
            one.send(wire.JOIN_ROOM_OP, room, "alice")
            two.send(wire.JOIN_ROOM_OP, room, "bob")
            one.send(wire.PLAYER_READY_OP, "alice")
            two.send(wire.PLAYER_READY_OP, "bob")
        for ply in range(max(len(lines) for _, lines in batch)):
            for players, lines in batch:
                if ply < len(lines):
                    seat, line = lines[ply]
                    players[seat].protocol.dataReceived(line)
                    players[seat].transport.clear()
                    players[1 - seat].transport.clear()
                    moves += 1
        for (one, two), lines in batch:
            if len(lines) >= 400:
                one.send(wire.LEAVE_ROOM_OP)
                two.send(wire.LEAVE_ROOM_OP)
    cpu = time.process_time() - start
    hub.stopService()
    return cpu, moves


def parseArgs(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--profile", default=None,
                   help="profile one run into this file")
    return p.parse_args(argv)


def main(argv):
    args = parseArgs(argv)
    played = gameLines(random.Random(1), args.games)
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        play(played)
        profiler.disable()
        profiler.dump_stats(args.profile)
        return 0
    figures = []
    for r in range(args.rounds):
        cpu, moves = play(played)
        figures.append(cpu / moves * 1e6)
        print("round %d: %.1f us/move (%d moves), load %.1f"
              % (r + 1, figures[-1], moves, os.getloadavg()[0]), flush=True)
    print("median: %.1f us/move" % (statistics.median(figures),))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
