"""
Records query benchmark: with 100,000 games stored, the median time of

  - a leaderboard (top 50 of a kind by ordinal);
  - a player's last 50 games (with every seat of each);
  - one game's full record (seats, position, events);

each through the query API (L{hub.records.query.Records}: a Deferred, the
query in the adbapi thread pool), the way the web face will ask.

    python bench/records_queries.py sqlite:/tmp/bench.sqlite
    python bench/records_queries.py postgresql://user@host/db
    python bench/records_queries.py URL --games 100000 --queries 300

The database is filled first if it holds fewer games (in transactions of
1,000, ratings updated as the hub does); fill it once and re-run.
"""

import argparse
import time

from records_common import median, newRandom, percentile, syntheticRecord

from twisted.internet import defer, task

from hub.records import db, query, store


def fill(url, wanted, rng):
    """
    Store synthetic games until C{url} holds C{wanted}; blocking.
    """
    connection = db.connect(url)
    cursor = connection.cursor()
    cursor.execute("SELECT COUNT(*) FROM games")
    have = cursor.fetchone()[0]
    started = time.perf_counter()
    now = 1.7e9
    while have < wanted:
        batch = min(1000, wanted - have)
        if url.dialect.begin:
            cursor.execute(url.dialect.begin)
        wrapped = _Plain(cursor, url.dialect)
        for _ in range(batch):
            now += 3.0
            store.saveRecord(wrapped, syntheticRecord(rng, now))
        connection.commit()
        have += batch
        print("  {} games stored ({:.0f} s)".format(
            have, time.perf_counter() - started), flush=True)
    connection.close()


class _Plain:
    def __init__(self, cursor, dialect):
        self.cursor = cursor
        self.dialect = dialect

    def execute(self, sql, parameters=()):
        self.cursor.execute(self.dialect.sql(sql), parameters)

    def executemany(self, sql, rows):
        self.cursor.executemany(self.dialect.sql(sql), rows)

    def fetchone(self):
        return self.cursor.fetchone()

    def fetchall(self):
        return self.cursor.fetchall()


@defer.inlineCallbacks
def timeQueries(reactor, url, queries, rng):
    database = db.Database(url, reactor)
    records = query.Records(database, leaderboardMinGames=5)
    ids = yield records.gameIdsSince(0, limit=10 ** 6)
    board = yield records.leaderboard("gomoku", limit=1000, minGames=1)
    names = [s.name for s in board]
    timings = {"leaderboard": [], "history": [], "game": []}
    for _ in range(queries):
        kind = rng.choice(("gomoku", "checkers"))
        begin = time.perf_counter()
        yield records.leaderboard(kind, limit=50)
        timings["leaderboard"].append(time.perf_counter() - begin)
        begin = time.perf_counter()
        entries = yield records.history("gomoku", rng.choice(names),
                                        limit=50)
        timings["history"].append(time.perf_counter() - begin)
        begin = time.perf_counter()
        record = yield records.game(rng.choice(ids))
        timings["game"].append(time.perf_counter() - begin)
    print("{} games stored; {} queries each; last history had {} games, "
          "last record {} events".format(len(ids), queries, len(entries),
                                         len(record.events)))
    for name, values in timings.items():
        print("  {:<12} median {:6.2f} ms   p90 {:6.2f} ms   max {:6.2f} "
              "ms".format(name, median(values) * 1000,
                          percentile(values, 0.9) * 1000,
                          max(values) * 1000))
    database.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("url")
    parser.add_argument("--games", type=int, default=100000)
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()
    url = db.parseURL(args.url)
    db.prepare(url)
    rng = newRandom(1)
    fill(url, args.games, rng)
    task.react(timeQueries, (url, args.queries, rng))


if __name__ == "__main__":
    main()
