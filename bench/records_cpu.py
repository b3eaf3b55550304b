"""
What recording costs the hub per gomoku move, in-process and without the
machine's noise: the real gomoku factory over in-memory transports plays
the 225-move draw of C{gomoku_load.py} game after game, once with no
records and once with a L{Recorder} that writes every finished game to a
SQLite file (WAL, as the hub does) in the same thread, so that the write
is counted as the adbapi thread's share of the hub's CPU.  The figure is
process CPU time per move, medians of alternated rounds.

    python bench/records_cpu.py --rounds 6 --games 200
    python bench/records_cpu.py --profile /tmp/records.prof

Not a test: it prints figures.
"""

import argparse
import cProfile
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from twisted.internet import defer  # noqa: E402
from twisted.internet.address import IPv4Address  # noqa: E402
from twisted.internet.task import Clock  # noqa: E402
from twisted.internet.testing import StringTransport  # noqa: E402

from hub.protocols.gomoku import GomokuFactory  # noqa: E402
from hub.records import db  # noqa: E402
from hub.records.recorder import Recorder  # noqa: E402
from hub.service import Hub  # noqa: E402
from hub.wire import gomoku as wire  # noqa: E402

from gomoku_load import SEQUENCE  # noqa: E402


class InlineDatabase:
    """
    A L{db.Database} that runs the interactions in the caller's thread, on
    one SQLite connection, when told to (L{runPending}: after each round
    of moves, as the hub's one database thread would take the next batch
    while the games go on): its CPU is the process's.
    """

    def __init__(self, path):
        url = db.DatabaseURL(db.SQLITE, path)
        db.prepare(url)
        self.dialect = db.SQLITE
        self.connection = db.connect(url)
        self.pending = []

    def runInteraction(self, interaction, *args, write=False, **kwargs):
        d = defer.Deferred()
        self.pending.append((d, interaction, args, write, kwargs))
        return d

    def runPending(self):
        """
        Run the interactions asked for so far.
        """
        while self.pending:
            d, interaction, args, write, kwargs = self.pending.pop(0)
            self._run(interaction, args, write, kwargs).chainDeferred(d)

    def _run(self, interaction, args, write, kwargs):
        raw = self.connection.cursor()
        raw.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        try:
            result = interaction(db.Cursor(raw, self.dialect), *args,
                                 **kwargs)
        except BaseException:
            self.connection.rollback()
            return defer.fail()
        self.connection.commit()
        return defer.succeed(result)


class Player:
    """
    One client connection: sends frames, throws the replies away.
    """

    def __init__(self, factory, port):
        self.protocol = factory.buildProtocol(
            IPv4Address("TCP", "127.0.0.1", port))
        self.transport = StringTransport()
        self.protocol.makeConnection(self.transport)
        self.session = 0

    def send(self, message):
        self.session += 1
        message["session"] = self.session
        self.protocol.dataReceived(wire.encodeMessage(message))
        self.transport.clear()


def play(games, database, tables=10):
    """
    Play C{games} draw games on C{tables} rooms, a move on each table in
    turn.

    @return: C{(cpuSeconds, moves)}.
    """
    clock = Clock()
    clock.advance(1.7e9)
    hub = Hub(clock, graceSeconds=30, idleSeconds=0)
    hub.startService()
    factory = GomokuFactory(hub.lobby, hub.sessions, hub.clock)
    recorder = None
    if database is not None:
        recorder = Recorder(database, clock)
        hub.lobby.addTableListener(recorder)
    rooms = []
    for index in range(tables):
        owner = Player(factory, 40000 + 2 * index)
        guest = Player(factory, 40001 + 2 * index)
        owner.send(wire.regMessage("o%d" % (index,), None))
        guest.send(wire.regMessage("g%d" % (index,), None))
        owner.send(wire.roomOpMessage(wire.RO_ROOM_CREATE, "r%d" % (index,),
                                      "", None))
        guest.send(wire.roomOpMessage(wire.RO_ROOM_JOIN, "r%d" % (index,),
                                      "", None))
        rooms.append((owner, guest))
    moves = [(x, y) for x, y in SEQUENCE]
    rounds = games // tables
    start = time.process_time()
    for _ in range(rounds):
        for owner, guest in rooms:
            guest.send(wire.stateMessage(wire.PLAYER_STATE_READY, None))
            owner.send(wire.requestMessage(wire.REQ_GAME_START, None))
        for i, (x, y) in enumerate(moves):
            clock.advance(0.001)
            for owner, guest in rooms:
                mover = guest if i % 2 == 0 else owner
                mover.send(wire.moveMessage(wire.CHESS_BLANK, x, y, None,
                                            None))
            if database is not None:
                database.runPending()
        if database is not None:
            database.runPending()
    cpu = time.process_time() - start
    if recorder is not None and not getattr(database, "threaded", False):
        assert recorder.written == rounds * tables, recorder.written
    hub.stopService()
    return cpu, rounds * tables * len(moves)


def parseArgs(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    p.add_argument("--rounds", type=int, default=6)
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--tables", type=int, default=100,
                   help="games played at once")
    p.add_argument("--profile", default=None,
                   help="profile one recording run into this file")
    return p.parse_args(argv)


def main(argv):
    args = parseArgs(argv)
    folder = tempfile.mkdtemp(prefix="gamehub-records-cpu-")
    if args.profile:
        database = InlineDatabase(os.path.join(folder, "profile.sqlite"))
        profiler = cProfile.Profile()
        profiler.enable()
        play(args.games, database, args.tables)
        profiler.disable()
        profiler.dump_stats(args.profile)
        return 0
    figures = {"none": [], "sqlite": []}
    for r in range(args.rounds):
        order = ["none", "sqlite"] if r % 2 == 0 else ["sqlite", "none"]
        for kind in order:
            database = None
            if kind == "sqlite":
                database = InlineDatabase(
                    os.path.join(folder, "round%d.sqlite" % (r,)))
            cpu, moves = play(args.games, database, args.tables)
            figures[kind].append(cpu / moves * 1e6)
        print("round %d: none %.1f us/move, sqlite %.1f us/move, load %.1f"
              % (r + 1, figures["none"][-1], figures["sqlite"][-1],
                 os.getloadavg()[0]), flush=True)
    none = statistics.median(figures["none"])
    sqlite = statistics.median(figures["sqlite"])
    print("median: none %.1f us/move, sqlite %.1f us/move: +%.1f us, "
          "ratio %.3f" % (none, sqlite, sqlite - none, none / sqlite))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
