"""
How fast engines play a tournament's multi-player tables, in the engine
sandbox and without one (C{--engine-sandbox none}, the baseline), in the
same run: a round robin of C{--engines} C{hub.bots} engines at tables of
C{--players} (checkers: 6 engines at tables of 3 make 20 games), created
with the CLI on a fresh hub as an organiser would, played to its end.

    python bench/engine_tables.py
    python bench/engine_tables.py --rounds 3 --sandboxes bwrap,none

For each sandbox: the event's wall time from C{start} to the director's
"finished", and from the records, each game's length (median) and the
wall time a move.  An engine's time in a game is its own thinking and
the hub's answers; what the sandbox adds is the relay that carries the
engine's TCP connection to the hub's Unix socket.  Not a test: it prints
figures.
"""

import argparse
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from arena import cli  # noqa: E402
from gomoku_load import freePort, startHub, stopProcess  # noqa: E402


def oneEvent(options, sandbox, folder):
    """
    Run one round robin on a fresh hub with C{--engine-sandbox
    C{sandbox}}: C{(wall seconds, game lengths, moves)}.
    """
    path = os.path.join(folder, "hub.sqlite")
    db = "sqlite:" + path
    log = os.path.join(folder, "twistd.log")
    port = freePort()
    extra = ["--web-port", "none", "--announce", "no", "--db", db,
             "--engine-sandbox", sandbox]
    if options.game != "gomoku":
        # startHub serves gomoku on the port it is given: the event's
        # game instead.
        extra += ["--gomoku-port", "none", "--%s-port" % (options.game,),
                  "tcp:%d:interface=127.0.0.1" % (port,)]
    hub = startHub(port, log, extra=extra)
    try:
        eventId = cli(db, "create", "--name", "bench", "--game",
                      options.game, "--format", "round-robin",
                      "--players-per-table", str(options.players),
                      "--turn-seconds", "10").splitlines()[-1]
        for index in range(options.engines):
            cli(db, "engine", "add", eventId, "e%d1" % (index,), "--",
                sys.executable, "-m", "hub.bots",
                "%s://{host}:{port}" % (options.game,), "--count", "1",
                "--name", "e%d" % (index,), "--room", "{room}",
                "--level", str(options.level), "--delay", "0", "--seed",
                str(index))
        began = time.monotonic()
        cli(db, "start", eventId)
        deadline = began + options.timeout
        while "('bench') finished" not in open(log).read():
            if time.monotonic() > deadline:
                raise RuntimeError("the event did not finish; see " + log)
            time.sleep(0.05)
        wall = time.monotonic() - began
    finally:
        stopProcess(hub)
    with sqlite3.connect(path) as records:
        games = records.execute(
            "SELECT ended_at - started_at, action_count FROM games").fetchall()
    return wall, [g[0] for g in games], sum(g[1] for g in games)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    p.add_argument("--game", default="checkers",
                   choices=("checkers", "gomoku"))
    p.add_argument("--engines", type=int, default=6)
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--level", type=int, default=2)
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--sandboxes", default="bwrap,none")
    p.add_argument("--timeout", type=float, default=600.0)
    options = p.parse_args(argv)
    figures = {}
    for round in range(options.rounds):
        for sandbox in options.sandboxes.split(","):
            folder = tempfile.mkdtemp(prefix="gamehub-engine-tables-")
            try:
                wall, lengths, moves = oneEvent(options, sandbox, folder)
            finally:
                shutil.rmtree(folder, True)
            figures.setdefault(sandbox, []).append(
                (wall, statistics.median(lengths),
                 1000 * sum(lengths) / max(1, moves)))
            print("round %d %-5s event %.1f s, %d games of %.0f moves, a "
                  "game %.2f s (median), %.2f ms a move"
                  % (round + 1, sandbox, wall, len(lengths),
                     moves / max(1, len(lengths)), *figures[sandbox][-1][1:]),
                  flush=True)
    for sandbox, rows in figures.items():
        print("%-5s medians over %d rounds: event %.1f s, a game %.2f s, "
              "%.2f ms a move" % ((sandbox, len(rows)) + tuple(
                  statistics.median(column) for column in zip(*rows))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
