"""
What recording costs gomoku's saturated throughput: C{gomoku_load.py
--mode saturate} against a hub recording to a fresh SQLite file and
against the same hub with C{--db none}, alternated over several rounds
(which goes first alternates too), medians reported with the load
average.  Target: recording on at least 0.9x of C{--db none}.

    python bench/records_throughput.py --rounds 6

Not a test: it prints figures.
"""

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LOAD = os.path.join(HERE, "gomoku_load.py")


def parseArgs(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    p.add_argument("--rounds", type=int, default=6)
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--warmup", type=float, default=2.0)
    p.add_argument("--json", action="store_true",
                   help="print the figures as one JSON object")
    return p.parse_args(argv)


def run(args, db):
    """
    One saturated run of a hub started with C{--db db}: its figures.
    """
    command = [sys.executable, LOAD, "--mode", "saturate", "--no-baseline",
               "--json", "--games", str(args.games),
               "--seconds", str(args.seconds), "--warmup", str(args.warmup),
               "--hub-args", "--db " + db]
    load = os.getloadavg()[0]
    output = subprocess.run(command, check=True, stdout=subprocess.PIPE,
                            universal_newlines=True).stdout
    hub = json.loads(output.splitlines()[-1])["rounds"][0]["hub"]
    return {"db": db, "moves_per_second": hub["per_second"],
            "games_finished": hub["games_finished"],
            "server_cpu_us_per_op": hub["server_cpu_us_per_op"],
            "p99_ms": hub["p99_ms"], "load_before": round(load, 2)}


def storedGames(path):
    """
    How many games a SQLite records file holds.
    """
    connection = sqlite3.connect(path)
    try:
        return connection.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    finally:
        connection.close()


def main(argv):
    args = parseArgs(argv)
    folder = tempfile.mkdtemp(prefix="gamehub-records-bench-")
    rounds = []
    for r in range(args.rounds):
        path = os.path.join(folder, "round%d.sqlite" % (r,))
        dbs = ["none", "sqlite:" + path]
        if r % 2:
            dbs.reverse()
        figures = {}
        for db in dbs:
            figures["none" if db == "none" else "sqlite"] = run(args, db)
        figures["sqlite"]["games_stored"] = storedGames(path)
        figures["ratio"] = round(figures["sqlite"]["moves_per_second"]
                                 / figures["none"]["moves_per_second"], 3)
        rounds.append(figures)
        if not args.json:
            print("round %d: none %.0f moves/s %.1f us/move, sqlite %.0f "
                  "moves/s %.1f us/move (%d games stored), ratio %.3f, "
                  "load %.1f/%.1f" % (
                      r + 1, figures["none"]["moves_per_second"],
                      figures["none"]["server_cpu_us_per_op"],
                      figures["sqlite"]["moves_per_second"],
                      figures["sqlite"]["server_cpu_us_per_op"],
                      figures["sqlite"]["games_stored"], figures["ratio"],
                      figures["none"]["load_before"],
                      figures["sqlite"]["load_before"]), flush=True)
    summary = {
        "none_median": statistics.median(
            f["none"]["moves_per_second"] for f in rounds),
        "sqlite_median": statistics.median(
            f["sqlite"]["moves_per_second"] for f in rounds),
        "ratio_median": statistics.median(f["ratio"] for f in rounds),
        "none_cpu_us_median": statistics.median(
            f["none"]["server_cpu_us_per_op"] for f in rounds),
        "sqlite_cpu_us_median": statistics.median(
            f["sqlite"]["server_cpu_us_per_op"] for f in rounds),
        "load_median": statistics.median(
            f[db]["load_before"] for f in rounds for db in ("none",
                                                           "sqlite")),
    }
    summary["ratio_of_medians"] = round(
        summary["sqlite_median"] / summary["none_median"], 3)
    if args.json:
        print(json.dumps({"rounds": rounds, "summary": summary},
                         sort_keys=True))
    else:
        print("median: none %(none_median).0f moves/s, sqlite "
              "%(sqlite_median).0f moves/s; ratio of medians "
              "%(ratio_of_medians).3f, median of round ratios "
              "%(ratio_median).3f; hub CPU per move: none "
              "%(none_cpu_us_median).1f us, sqlite "
              "%(sqlite_cpu_us_median).1f us; load average "
              "%(load_median).1f" % summary)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
