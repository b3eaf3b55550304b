"""
What the hub's features cost a gomoku move, in process and independent
of the machine's load (issue 36): function calls a move (all, and those
of the table listeners' packages: records, web, tournaments, accounts,
metrics), memory blocks a move keeps while its game runs (C{tracemalloc}:
objects that outlive the move) and how many of them the cyclic collector
tracks, its young-generation collections per 1,000 moves (the heap
frozen and the collector set as C{twistd}'s hub does, L{tap.freezeHeap}),
and, as an indication only, the CPU time a move.

Each configuration is C{hub.tap.makeService} on the reactor, with
C{--pairs} pairs on in-memory transports playing
C{bench/gomoku_load.py}'s 225-move draw, as C{bench/ws_inprocess.py}'s
TCP pairs do; the reactor runs between the measured stretches (names
checked, records written), and only the reactor thread is profiled.

    python bench/listeners.py
    python bench/listeners.py --configs bare,defaults --games 4 --json

Not a test: it prints figures.
"""

import argparse
import cProfile
import gc
import json
import os
import pstats
import shutil
import sys
import tempfile
import time
import tracemalloc

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

from ws_inprocess import TCPPair  # noqa: E402

from hub import tap  # noqa: E402
from hub.protocols.gomoku import GomokuFactory  # noqa: E402
from twisted.internet import defer, task  # noqa: E402

BARE = ["--web-port", "none", "--announce", "no", "--db", "none",
        "--names", "open"]
CONFIGS = {
    "bare": [],
    "records": ["--db", "{db}"],
    "accounts": ["--db", "{db}", "--names", "accounts"],
    "web": ["--web-port", "tcp:0:interface=127.0.0.1"],
    "defaults": ["--db", "{db}", "--names", "accounts", "--web-port",
                 "tcp:0:interface=127.0.0.1"],
}
# The table listeners' packages, for the calls they make a move.
LISTENERS = tuple(os.path.join("hub", p) + os.sep for p in (
    "records", "web", "tournaments", "accounts", "metrics.py"))


class Ports:
    """
    What L{TCPPair} asks of its face: a port counter.
    """
    port = 40000


class Pair(TCPPair):
    """
    L{TCPPair}, its names registered first and its room made once they
    are (L{rooms}): an accounts hub checks a name in its database.
    """

    def __init__(self, face, factory, index):
        self.connect(face, factory, index)


def makeHub(reactor, config, folder):
    """
    The hub of C{config}, started: C{(hub, gomoku factory)}.
    """
    argv = ["--gomoku-port", "tcp:0:interface=127.0.0.1",
            "--checkers-port", "none",
            "--splendor-port", "none", "--max-connections", "0",
            "--max-connections-per-ip", "0", "--request-rate", "0"
            ] + BARE + [
        a.format(db="sqlite:///" + os.path.join(folder, config + ".sqlite"))
        for a in CONFIGS[config]]
    options = tap.Options()
    options.parseOptions(argv)
    hub = tap.makeService(options, reactor)
    hub.startService()
    factory = [s.factory for s in hub if isinstance(
        getattr(s, "factory", None), GomokuFactory)][0]
    return hub, factory


def play(pairs, upTo=None):
    """
    One game of each pair, or its first C{upTo} moves: the moves played.
    """
    moves = 0
    for pair in pairs:
        pair.start()
        movers = pair.movers()[:upTo]
        for dataReceived, frame in movers:
            dataReceived(frame)
        moves += len(movers)
        if upTo is None and pair.played() < len(movers) // 2:
            raise RuntimeError("the moves were not played: %r" % (
                pair.conns[0][1].value()[-300:],))
        pair.clear()
    return moves


def finish(pairs, upTo):
    """
    Play the rest of the games cut at C{upTo}.
    """
    for pair in pairs:
        for dataReceived, frame in pair.movers()[upTo:]:
            dataReceived(frame)
        pair.clear()


def settle(reactor, seconds=0.3):
    """
    Let the reactor run (names checked, records written).
    """
    return task.deferLater(reactor, seconds, lambda: None)


@defer.inlineCallbacks
def measure(reactor, config, pairCount, games):
    """
    The figures of C{config}: a dict.
    """
    folder = tempfile.mkdtemp()
    try:
        hub, factory = makeHub(reactor, config, folder)
        yield settle(reactor, 1.0)
        ports = Ports()
        pairs = [Pair(ports, factory, i) for i in range(pairCount)]
        yield settle(reactor, 1.0)
        for pair in pairs:
            pair.rooms()
        play(pairs)
        yield settle(reactor)
        # As twistd's hub does once running.
        thresholds = gc.get_threshold()
        tap.freezeHeap()
        # Calls a move, over whole games (their ends included).
        profiler = cProfile.Profile()
        profiler.enable()
        moves = sum(play(pairs) for _ in range(games))
        profiler.disable()
        stats = pstats.Stats(profiler).stats
        calls = sum(s[1] for s in stats.values())
        listenerCalls = sum(s[1] for (path, _, _), s in stats.items()
                            if any(p in path for p in LISTENERS))
        # Young collections per 1,000 moves.
        collections = [0]

        def counted(phase, info):
            if phase == "start" and info["generation"] == 0:
                collections[0] += 1
        gc.callbacks.append(counted)
        try:
            began = time.process_time()
            young = sum(play(pairs) for _ in range(games))
            cpu = time.process_time() - began
        finally:
            gc.callbacks.remove(counted)
        yield settle(reactor)
        # Blocks and bytes a move keeps while its game runs.
        upTo = 200
        # Twice: a tuple is let go of once its items were (a collection).
        gc.collect()
        gc.collect()
        tracked = len(gc.get_objects())
        kept = play(pairs, upTo)
        gc.collect()
        gc.collect()
        tracked = (len(gc.get_objects()) - tracked) / kept
        finish(pairs, upTo)
        yield settle(reactor)
        tracemalloc.start()
        gc.collect()
        before = tracemalloc.take_snapshot()
        kept = play(pairs, upTo)
        gc.collect()
        after = tracemalloc.take_snapshot()
        tracemalloc.stop()
        finish(pairs, upTo)
        diff = after.compare_to(before, "filename")
        blocks = sum(s.count_diff for s in diff)
        size = sum(s.size_diff for s in diff)
        yield hub.stopService()
        gc.unfreeze()
        gc.set_threshold(*thresholds)
        return {"config": config, "calls": calls / moves,
                "listenerCalls": listenerCalls / moves,
                "keptBlocks": blocks / kept, "keptBytes": size / kept,
                "keptTracked": tracked,
                "youngPer1000": collections[0] * 1000.0 / young,
                "cpu": cpu / young}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@defer.inlineCallbacks
def run(reactor, options):
    results = []
    for config in options.configs.split(","):
        results.append((yield measure(reactor, config, options.pairs,
                                      options.games)))
    report(options, results)


def report(options, results):
    """
    Print C{results}: a table, or JSON.
    """
    if options.json:
        print(json.dumps(results))
        return
    print("| hub | calls a move | listeners' calls a move | blocks kept a "
          "move | bytes kept a move | objects the collector tracks, kept a "
          "move | young collections / 1000 moves | CPU a move (loaded "
          "machine) |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        print("| %s | %.1f | %.1f | %.2f | %.0f | %.2f | %.2f | %.1f µs |" % (
            r["config"], r["calls"], r["listenerCalls"], r["keptBlocks"],
            r["keptBytes"], r["keptTracked"], r["youngPer1000"],
            r["cpu"] * 1e6))


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--configs", default="bare,records,accounts,web,defaults",
                   help="comma-separated, of: " + ", ".join(CONFIGS))
    p.add_argument("--pairs", type=int, default=20)
    p.add_argument("--games", type=int, default=2,
                   help="games of each pair for each figure")
    p.add_argument("--json", action="store_true")
    task.react(run, [p.parse_args(argv)])


if __name__ == "__main__":
    main(sys.argv[1:])
