"""
Name check benchmark at scale: with N accounts in SQLite or PostgreSQL,
and the same run over an empty database as the baseline, each in a
process of its own:

  - a keyed name check (L{hub.accounts.check.NameService.check}, as the
    adapters call it): a cold one (its account read from the database:
    one indexed read) and a warm one (from the cache), median and p99;
  - a guest's name check (two indexed reads: the name, the skeleton);
  - the process's RSS after the checks (the cache full), over the
    baseline's;
  - the reactor's longest stall meanwhile (a LoopingCall lag probe every
    millisecond), changes polled every second as in the hub.

    python bench/names.py sqlite:/tmp/names.sqlite --accounts 1000000
    python bench/names.py postgresql://... --accounts 1000000

The accounts are made once (b0, b1...); re-runs reuse them.
"""

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time

from twisted.internet import defer, task

from hub.accounts import names, store
from hub.accounts.check import NameService
from hub.accounts.model import Accounts
from hub.records import db
from hub.tap import freezeHeap

KEY = "KEY0000000"
BATCH = 10000


def fill(url, wanted):
    """
    Make accounts b0, b1... until there are C{wanted}, with their
    skeletons; their keys are all L{KEY} (one HMAC each, the password hash
    shared: neither is what is measured).
    """
    connection = db.connect(url)
    cursor = db.Cursor(connection.cursor(), url.dialect)
    if url.dialect.begin:
        cursor.execute(url.dialect.begin)
    secret = store.serverSecret(cursor)
    store.fillSkeletons(cursor)
    cursor.execute("SELECT COUNT(*) FROM accounts")
    have = cursor.fetchone()[0]
    connection.commit()
    keyHash = names.keyHash(secret, KEY)
    for start in range(have, wanted, BATCH):
        if url.dialect.begin:
            cursor.execute(url.dialect.begin)
        batch = ["b{}".format(i) for i in range(start,
                                                 min(wanted, start + BATCH))]
        cursor.executemany(
            "INSERT INTO accounts (name, name_key, password_hash, key_hash, "
            "role, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            [(n, n, "shared", keyHash, "player", 0.0) for n in batch])
        cursor.executemany(
            "INSERT INTO account_skeletons (skeleton, name_key) "
            "VALUES (?, ?)",
            [(s, n) for n in batch for s in names.accountSkeletons(n)])
        connection.commit()
    if url.dialect is db.POSTGRESQL:
        cursor.execute("ANALYZE")
        connection.commit()
    connection.close()


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def rss():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


class LagProbe:
    """
    How late a LoopingCall every C{interval} seconds runs: the reactor's
    stalls (the longest, and how many passed 10 ms); and the longest
    pause of Python's cyclic garbage collector meanwhile.
    """

    def __init__(self, reactor, interval=0.001):
        self.reactor = reactor
        self.interval = interval
        self.worst = 0.0
        self.over = 0
        self.overWithoutGC = 0
        self.worstWithoutGC = 0.0
        self._collected = False
        self.last = None
        self.gcWorst = 0.0
        self._gcStart = None
        self.loop = task.LoopingCall(self.tick)

    def tick(self):
        now = time.perf_counter()
        if self.last is not None:
            late = now - self.last - self.interval
            self.worst = max(self.worst, late)
            self.over += late > 0.010
            if not self._collected:
                self.worstWithoutGC = max(self.worstWithoutGC, late)
                self.overWithoutGC += late > 0.010
        self._collected = False
        self.last = now

    def collecting(self, phase, info):
        self._collected = True
        if phase == "start":
            self._gcStart = time.perf_counter()
        elif self._gcStart is not None:
            self.gcWorst = max(self.gcWorst,
                               time.perf_counter() - self._gcStart)

    def start(self):
        gc.callbacks.append(self.collecting)
        self.loop.start(self.interval)

    def stop(self):
        gc.callbacks.remove(self.collecting)
        self.loop.stop()


@defer.inlineCallbacks
def child(reactor, options):
    """
    One measurement, in this process: what L{measure} prints as JSON.
    """
    url = db.parseURL(options.url)
    database = db.Database(url, reactor)
    accounts = Accounts(database, reactor)
    # (ICU's confusables data is loaded at its first use, as in the hub's
    # start: before the probe.)
    names.skeleton("warm")
    service = NameService(accounts, reactor, [])
    service.startService()
    yield service.refresh()
    # As the hub's start does: what start-up made is out of the cyclic
    # collector's reach, so that its pauses measure what the checks make.
    freezeHeap()
    probe = LagProbe(reactor)
    probe.start()
    count = options.accounts
    cold, warm, guest = [], [], []
    for i in range(options.checks):
        account = (i * 7919) % count if count else i
        name = "b{}#{}".format(account, KEY)
        # A fresh address each time: the guess limits are not measured.
        host = "10.{}.{}.{}".format(i >> 16 & 255, i >> 8 & 255, i & 255)
        begin = time.perf_counter()
        verdict = yield service.check("gomoku", name, host)
        cold.append(time.perf_counter() - begin)
        if count:
            assert verdict is not None and not verdict.guest, name
            begin = time.perf_counter()
            yield service.check("gomoku", name, host)
            warm.append(time.perf_counter() - begin)
        begin = time.perf_counter()
        yield service.check("gomoku", "guest{}".format(i), host)
        guest.append(time.perf_counter() - begin)
    # A ban and a new key made meanwhile, seen at the next poll.
    if count:
        yield accounts.ban("b1", 60, "bench")
        yield task.deferLater(reactor, 1.5, lambda: None)
        assert service.accountBanned("b1")
        yield accounts.unban("b1")
    yield service.stopService()
    probe.stop()
    database.close()
    print(json.dumps({
        "cold": cold, "warm": warm, "guest": guest, "rss": rss(),
        "stall": probe.worst, "over": probe.over, "gc": probe.gcWorst,
        "stallNoGC": probe.worstWithoutGC, "overNoGC": probe.overWithoutGC,
        "cache": len(service.cache)}))


def measure(url, accounts, checks):
    """
    Run L{child} in a process of its own.
    """
    out = subprocess.run(
        [sys.executable, os.path.abspath(__file__), url, "--child",
         "--accounts", str(accounts), "--checks", str(checks)],
        stdout=subprocess.PIPE, check=True).stdout.decode()
    return json.loads(out.strip().splitlines()[-1])


def ms(seconds):
    return "{:7.3f} ms".format(seconds * 1000)


def line(label, values):
    if not values:
        return "{:<22} -".format(label)
    return "{:<22} median {}  p99 {}  ({} checks)".format(
        label, ms(statistics.median(values)), ms(percentile(values, 0.99)),
        len(values))


def stalls(result):
    return ("reactor: longest stall {}, {} over 10 ms (longest garbage "
            "collection {});\n  without a collection in it: longest {}, "
            "{} over 10 ms".format(
                ms(result["stall"]), result["over"], ms(result["gc"]),
                ms(result["stallNoGC"]), result["overNoGC"]))


def baselineURL(url):
    """
    An empty database beside C{url} (made fresh).
    """
    parsed = db.parseURL(url)
    if parsed.dialect is db.SQLITE:
        path = parsed.target + ".empty"
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(path + suffix):
                os.remove(path + suffix)
        return "sqlite:" + path
    import psycopg
    with psycopg.connect(parsed.target, autocommit=True) as connection:
        connection.execute("DROP SCHEMA IF EXISTS bench_empty CASCADE")
        connection.execute("CREATE SCHEMA bench_empty")
    separator = "&" if "?" in url else "?"
    return url + separator + "options=-csearch_path%3Dbench_empty"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("url")
    parser.add_argument("--accounts", type=int, default=1000000)
    parser.add_argument("--checks", type=int, default=30000)
    parser.add_argument("--child", action="store_true")
    options = parser.parse_args()
    if options.child:
        task.react(child, [options])
        return
    url = db.parseURL(options.url)
    db.prepare(url)
    begin = time.perf_counter()
    fill(url, options.accounts)
    print("{} accounts ready in {:.0f} s".format(
        options.accounts, time.perf_counter() - begin))
    empty = baselineURL(options.url)
    db.prepare(db.parseURL(empty))
    base = measure(empty, 0, options.checks)
    full = measure(options.url, options.accounts, options.checks)
    print("empty database (baseline):")
    print("  " + line("keyed check (refused)", base["cold"]))
    print("  " + line("guest check", base["guest"]))
    print("  RSS {:.1f} MB".format(base["rss"] / 2 ** 20))
    print("  " + stalls(base))
    print("{} accounts:".format(options.accounts))
    print("  " + line("keyed check, cold", full["cold"]))
    print("  " + line("keyed check, cached", full["warm"]))
    print("  " + line("guest check", full["guest"]))
    print("  RSS {:.1f} MB ({:+.1f} MB over the baseline; cache {} "
          "names)".format(full["rss"] / 2 ** 20,
                          (full["rss"] - base["rss"]) / 2 ** 20,
                          full["cache"]))
    print("  " + stalls(full))


if __name__ == "__main__":
    main()
