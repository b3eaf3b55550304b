"""
Name check benchmark: with N accounts in a SQLite (or PostgreSQL)
database, the median and 99th percentile of

  - a keyed name check (L{hub.accounts.check.NameService.check}: the
    in-memory snapshot, one HMAC, constant-time compare), as the gomoku
    and checkers adapters call it at name time;
  - a guest name check;
  - one refresh of the snapshot from the database (every 2 s in the hub).

    python bench/names.py sqlite:/tmp/names.sqlite --accounts 10000

The accounts are made once (bench00001...); re-runs reuse them.
"""

import argparse
import statistics
import time

from argon2 import PasswordHasher
from twisted.internet import defer, task

from hub.accounts import names, store
from hub.accounts.check import NameService
from hub.accounts.model import Accounts
from hub.records import db


class _NoSessions:
    def __iter__(self):
        return iter(())


def fill(url, wanted):
    """
    Make accounts bench1... until there are C{wanted}; their keys are
    all C{KEY} (one HMAC each, the password hash shared: it is not
    what is measured).
    """
    connection = db.connect(url)
    cursor = db.Cursor(connection.cursor(), url.dialect)
    if url.dialect.begin:
        cursor.execute(url.dialect.begin)
    secret = store.serverSecret(cursor)
    cursor.execute("SELECT COUNT(*) FROM accounts")
    have = cursor.fetchone()[0]
    passwordHash = PasswordHasher().hash("bench")
    keyHash = names.keyHash(secret, "KEY0000000")
    for i in range(have, wanted):
        name = "b{}".format(i)
        store.insertAccount(cursor, name, name, passwordHash, keyHash,
                            "player", 0.0)
    connection.commit()
    connection.close()


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def report(label, seconds):
    print("{:<24} median {:8.3f} ms   p99 {:8.3f} ms   ({} runs)".format(
        label, statistics.median(seconds) * 1000,
        percentile(seconds, 0.99) * 1000, len(seconds)))


@defer.inlineCallbacks
def run(reactor, options):
    url = db.parseURL(options.url)
    db.prepare(url)
    fill(url, options.accounts)
    database = db.Database(url, reactor)
    accounts = Accounts(database, reactor)
    service = NameService(accounts, reactor, _NoSessions())
    refreshes = []
    for _ in range(options.refreshes):
        begin = time.perf_counter()
        yield service.refresh()
        refreshes.append(time.perf_counter() - begin)
    keyed, guest = [], []
    for i in range(options.checks):
        name = "b{}#KEY0000000".format(i % options.accounts)
        begin = time.perf_counter()
        verdict = service.check("gomoku", name, "127.0.0.1")
        keyed.append(time.perf_counter() - begin)
        assert verdict is not None and not verdict.guest
        begin = time.perf_counter()
        service.check("gomoku", "guest{}".format(i), "127.0.0.1")
        guest.append(time.perf_counter() - begin)
    yield database.pool.runInteraction(lambda c: None)
    report("keyed name check", keyed)
    report("guest name check", guest)
    report("snapshot refresh", refreshes)
    database.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("url")
    parser.add_argument("--accounts", type=int, default=10000)
    parser.add_argument("--checks", type=int, default=20000)
    parser.add_argument("--refreshes", type=int, default=20)
    options = parser.parse_args()
    task.react(run, [options])


if __name__ == "__main__":
    main()
