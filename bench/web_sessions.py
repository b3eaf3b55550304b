"""
Logged-in browser users polling pages: does a session lookup write, and
do the polls raise the game players' latency?

A hub runs in this process (C{hub.tap.makeService} on the reactor:
C{--names accounts} on a SQLite database, a gomoku port and the web
face, its web request limits off since every poller comes from one
address); C{--users} accounts are registered and each given a login
session.  Each round measures three ways, one after the other, with
C{bench/gomoku_load.py --mode paced} playing paced games from another
process (the players' p50/p99: a move written to the opponent reading
it):

  - C{idle}: no poller;
  - C{anon}: the same number of users as below, asking for the same page
    without a cookie (no session to look up: the page's cost alone);
  - C{new}: C{--users} logged-in users in another process (this script,
    C{--poller}) each asking for C{--path} (default C{/account}, a page
    that reads the session) every C{--poll-interval} seconds over
    keep-alive connections;
  - C{old}: the same, with L{hub.accounts.websessions.WebSessions.find}
    replaced by the lookup before this change (one C{BEGIN IMMEDIATE}
    write transaction per request, the use written at most once a
    minute), for comparison in the same run.

The hub's database transactions are counted (writes and reads) while
each way runs, with the requests the pollers had answered.

    python bench/web_sessions.py --users 200 --rounds 2

Target: no write transaction per request (writes per request near 0 for
C{new}), and the players' p99 unchanged by the polls.  Not a test: it
prints figures.
"""

import argparse
import json
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

from twisted.internet import defer, task, utils  # noqa: E402

from hub import tap  # noqa: E402
from hub.accounts import names as accountNames  # noqa: E402
from hub.accounts import websessions  # noqa: E402
from login_flood import players  # noqa: E402

PASSWORD = "web-sessions-pw-1"


def oldFind(self, raw, banned=False):
    """
    L{websessions.WebSessions.find} as it was before: a write
    transaction (C{BEGIN IMMEDIATE} on SQLite) for every lookup.
    """
    if not raw:
        return defer.succeed(None)
    digest = websessions.secretHash(raw)
    now = self.now()

    def interaction(cursor):
        cursor.execute("SELECT created_at, seen_at FROM web_sessions "
                       "WHERE id_hash = ?", (digest,))
        row = cursor.fetchone()
        if row is None:
            return None
        createdAt, seenAt = row
        if now - seenAt >= websessions.TOUCH_SECONDS:
            cursor.execute("UPDATE web_sessions SET seen_at = ? WHERE "
                           "id_hash = ?", (now, digest))
        cursor.execute(
            "SELECT a.name, a.role FROM web_sessions t JOIN accounts a ON "
            "a.name_key = t.name_key WHERE t.id_hash = ?", (digest,))
        row = cursor.fetchone()
        return None if row is None else websessions.Visitor(
            row[0], row[1], False, digest)

    return self.database.runInteraction(interaction, write=True)


class Counted:
    """
    Counts the transactions of a database, by kind.
    """

    def __init__(self, database):
        self.writes = self.reads = 0
        original = database.runInteraction

        def counted(interaction, *args, write=False, **kwargs):
            if write:
                self.writes += 1
            else:
                self.reads += 1
            return original(interaction, *args, write=write, **kwargs)
        database.runInteraction = counted


def startHub(reactor, url):
    options = tap.Options()
    options.parseOptions([
        "--db", url, "--names", "accounts",
        "--gomoku-port", "tcp:0:interface=127.0.0.1",
        "--checkers-port", "none", "--splendor-port", "none",
        "--web-port", "tcp:0:interface=127.0.0.1",
        "--metrics-port", "none", "--announce", "no",
        # The load comes from one address: measure the hub, not its
        # abuse limits (as bench/gomoku_load.py does).
        "--max-connections", "0", "--max-connections-per-ip", "0",
        "--request-rate", "0", "--web-request-rate", "0",
        "--web-max-connections-per-ip", "0", "--web-fd-reserve", "0"])
    top = tap.makeService(options, reactor)
    top.startService()
    return top


def pollers(reactor, webPort, cookies, options):
    """
    Start the polling users in another process; a Deferred of their
    figures (requests answered, by status) when they stop.
    """
    path = os.path.join(tempfile.mkdtemp(prefix="web-sessions-"),
                        "cookies.json")
    with open(path, "w") as f:
        json.dump(cookies, f)
    seconds = options.seconds + options.warmup + 2
    d = utils.getProcessOutputAndValue(sys.executable, [
        os.path.abspath(__file__), "--poller", path, "--web-port",
        str(webPort), "--path", options.path, "--poll-interval",
        str(options.poll_interval), "--seconds", str(seconds)],
        env=os.environ)
    d.addBoth(lambda result: (shutil.rmtree(os.path.dirname(path), True),
                              result)[1])
    return d.addCallback(lambda result: json.loads(
        result[0].decode().strip().splitlines()[-1]))


@defer.inlineCallbacks
def run(reactor, options):
    folder = tempfile.mkdtemp(prefix="web-sessions-")
    try:
        url = "sqlite:" + os.path.join(folder, "hub.sqlite")
        top = startHub(reactor, url)
        names = top.getServiceNamed("names")
        accounts = names.accounts
        port = yield top.getServiceNamed("gomoku-port").whenListening()
        web = yield top.getServiceNamed("web-port").whenListening()
        sessions = [s for s in top if s.name == "web"][0].sessions
        hashed = yield accounts.hashPassword(PASSWORD)
        cookies = []
        for n in range(options.users):
            name = "u%d" % (n,)
            # One argon2 hash for all: registering is not measured.
            yield accounts.database.runInteraction(
                _addAccount, name, hashed, reactor.seconds(), write=True)
            cookies.append((yield sessions.open(name)))
        counted = Counted(accounts.database)
        newFind = websessions.WebSessions.find
        lookups = [0]

        def countedFind(find):
            def find_(self, raw, banned=False):
                lookups[0] += 1
                return find(self, raw, banned)
            return find_
        rows = []
        for r in range(options.rounds):
            for way in ("idle", "anon", "new", "old"):
                websessions.WebSessions.find = countedFind(
                    oldFind if way == "old" else newFind)
                polls = None
                if way != "idle":
                    polls = pollers(reactor, web.getHost().port,
                                    [""] * len(cookies) if way == "anon"
                                    else cookies, options)
                    yield task.deferLater(reactor, 1.0, lambda: None)
                writes, reads = counted.writes, counted.reads
                found = lookups[0]
                began = time.perf_counter()
                cpu = cpuSeconds()
                figures = yield players(port.getHost().port, options)
                cpu = cpuSeconds() - cpu
                elapsed = time.perf_counter() - began
                writes, reads = counted.writes - writes, \
                    counted.reads - reads
                found = lookups[0] - found
                answered = {}
                if polls is not None:
                    answered = yield polls
                requests = sum(answered.get("codes", {}).values())
                rate = answered.get("rate", 0.0)
                rows.append((r, way, figures, writes, found,
                             cpu / elapsed))
                print("round %d %-4s p50 %6.3f ms  p99 %7.3f ms  max %7.2f "
                      "ms  %6.1f moves/s  hub CPU %4.0f%%  requests %5d "
                      "(%.0f/s)  session lookups %5d  db writes %5d  reads "
                      "%5d  codes %s" % (
                          r + 1, way, figures["p50_ms"], figures["p99_ms"],
                          figures["max_ms"], figures["per_second"],
                          100 * cpu / elapsed, requests, rate, found, writes,
                          reads, answered.get("codes", {})))
                sys.stdout.flush()
        websessions.WebSessions.find = newFind
        yield top.stopService()
    finally:
        shutil.rmtree(folder, True)
    print("%d games at %.3f s a move; %d logged-in users asking for %s "
          "every %.2f s; %d CPUs" % (options.games, options.interval,
                                     options.users, options.path,
                                     options.poll_interval, os.cpu_count()))
    elapsed = options.seconds + options.warmup
    for way in ("anon", "new", "old"):
        rises = []
        perLookup = []
        cpuPerLookup = []
        for r in range(options.rounds):
            byWay = {w: (f, wr, fd, c) for (n, w, f, wr, fd, c) in rows
                     if n == r}
            f, writes, found, cpu = byWay[way]
            rises.append(f["p99_ms"] - byWay["idle"][0]["p99_ms"])
            perLookup.append(writes / max(1, found))
            # The hub's CPU the polls added, per page asked.
            cpuPerLookup.append(1000 * (cpu - byWay["idle"][3]) * elapsed /
                                max(1, found))
        print("%s: p99 rise over idle %s ms (median %.3f); write "
              "transactions per session lookup %s; hub CPU per page %s ms "
              "(median %.3f)" % (
                  way, ", ".join("%.3f" % (x,) for x in rises),
                  statistics.median(rises),
                  ", ".join("%.4f" % (x,) for x in perLookup),
                  ", ".join("%.3f" % (x,) for x in cpuPerLookup),
                  statistics.median(cpuPerLookup)))


def cpuSeconds():
    """
    The CPU time of this process (the hub: its reactor and its threads).
    """
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _addAccount(cursor, name, passwordHash, now):
    from hub.accounts import store
    store.insertAccount(cursor, name, accountNames.nameKey(name),
                        passwordHash, "-", "player", now)


def poll(reactor, options):
    """
    The polling users (C{--poller}): each asks for C{--path} with its
    cookie every C{--poll-interval} seconds, for C{--seconds}; prints the
    answers by status code as JSON.
    """
    from twisted.web.client import Agent, HTTPConnectionPool, readBody
    from twisted.web.http_headers import Headers
    with open(options.poller) as f:
        cookies = json.load(f)
    pool = HTTPConnectionPool(reactor, persistent=True)
    pool.maxPersistentPerHost = len(cookies)
    agent = Agent(reactor, pool=pool)
    url = ("http://127.0.0.1:%d%s" % (options.web_port,
                                     options.path)).encode()
    codes = {}
    counted = {"n": 0}
    began = reactor.seconds()
    deadline = began + options.seconds

    @defer.inlineCallbacks
    def user(n, cookie):
        yield task.deferLater(reactor, options.poll_interval * n /
                              len(cookies), lambda: None)
        headers = Headers({b"cookie": [b"gamehub_session=" +
                                       cookie.encode()]})
        while reactor.seconds() < deadline:
            asked = reactor.seconds()
            try:
                response = yield agent.request(b"GET", url, headers)
                yield readBody(response)
                code = str(response.code)
            except Exception as e:
                code = type(e).__name__
            codes[code] = codes.get(code, 0) + 1
            counted["n"] += 1
            wait = options.poll_interval - (reactor.seconds() - asked)
            if wait > 0:
                yield task.deferLater(reactor, wait, lambda: None)

    d = defer.DeferredList([user(n, c) for n, c in enumerate(cookies)])

    def done(_):
        elapsed = reactor.seconds() - began
        print(json.dumps({"codes": codes, "rate": counted["n"] / elapsed}))
        return pool.closeCachedConnections()
    return d.addCallback(done)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--interval", type=float, default=0.1)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--users", type=int, default=200)
    parser.add_argument("--path", default="/account")
    parser.add_argument("--poll-interval", type=float, default=1.0)
    parser.add_argument("--poller", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--web-port", type=int, default=None,
                        help=argparse.SUPPRESS)
    options = parser.parse_args()
    task.react(poll if options.poller else run, [options])


if __name__ == "__main__":
    main()
