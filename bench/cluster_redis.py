"""
What the cluster's directory costs per request, against a private Redis.

Runs each directory operation a node makes (L{hub.cluster.directory}) many
times, C{--concurrency} at a time, and reports per operation: the wall
time, this process's CPU (what a node pays) and Redis's CPU (read from
C{/proc}), and so the operations a second one Redis core could take.
Operations: a gomoku name claimed (claim + publish, as C{msg_reg} does),
a room claimed and published (a room create), a room lookup (a join
elsewhere), a Splendor seat, the room list (of C{--rooms} rooms), and the
renewal of C{--held} names per node.

    python bench/cluster_redis.py --count 5000

Not a test: it prints figures.
"""

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

from gomoku_load import cpuSeconds, stopProcess  # noqa: E402
from cluster_load import startRedis  # noqa: E402


class Room:
    """
    What the directory reads of a room.
    """

    def __init__(self, kind, name):
        self.kind = kind
        self.name = name
        self.members = [None]
        self.running = False
        self.full = False


def summary(room):
    from hub.wire import gomoku as wire
    return wire.roomObject(room.name, "owner", "", 1, 0, 0)


async def measure(reactor, directory, redisPid, name, count, concurrency,
                  operation):
    """
    Run C{operation(i)} (returning a Deferred) C{count} times.
    """
    from twisted.internet import defer
    sem = defer.DeferredSemaphore(concurrency)
    t0, cpu0, redis0 = (time.perf_counter(), cpuSeconds(os.getpid()),
                        cpuSeconds(redisPid))
    await defer.gatherResults([sem.run(operation, i) for i in range(count)])
    wall = time.perf_counter() - t0
    cpu = cpuSeconds(os.getpid()) - cpu0
    redis = cpuSeconds(redisPid) - redis0
    return {"operation": name, "count": count,
            "per_second": round(count / wall),
            "node_cpu_us": round(1e6 * cpu / count, 1),
            "redis_cpu_us": round(1e6 * redis / count, 1),
            "redis_core_ops_per_second":
                round(count / redis) if redis else None}


async def run(reactor, args, url, redisPid):
    import txredisapi
    from hub.cluster.directory import ClusterDirectory, parseRedisURL
    host, port, db, prefix, _ = parseRedisURL(url)
    redis = await txredisapi.Connection(host, port, dbid=db,
                                        reconnect=False)
    # The reactor times the requests out, as on a node.
    clock = reactor
    directory = ClusterDirectory(redis, clock, "n1", address="tcp:x:1",
                                 prefix=prefix,
                                 summaries={"gomoku": summary})
    results = []
    n, c = args.count, args.concurrency

    def name(i):
        d = directory.claimName("gomoku", "p%d" % (i,))
        d.addCallback(lambda _: directory.nameClaimed("gomoku",
                                                      "p%d" % (i,)))
        return d

    def room(i):
        name = "r%d" % (i,)
        d = directory.claimRoom("gomoku", name)

        def made(_):
            # What the flush after the room's first event writes.
            return directory._publish([directory._roomEntry(
                "gomoku", name, Room("gomoku", name), i)])
        return d.addCallback(made)

    def seat(i):
        return directory.seat("splendor", 4)

    results.append(await measure(reactor, directory, redisPid,
                                 "name claimed (msg_reg)", n, c, name))
    results.append(await measure(reactor, directory, redisPid,
                                 "room claimed + published (create)", n, c,
                                 room))
    results.append(await measure(
        reactor, directory, redisPid, "room lookup (join elsewhere)", n, c,
        lambda i: directory.lookupRoom("gomoku", "r%d" % (i,))))
    await directory._publish([
        directory._roomEntry("splendor", "t%d" % (i,),
                             Room("splendor", "t%d" % (i,)), i)
        for i in range(n // 4 + 1)])
    await directory.refresh()
    results.append(await measure(reactor, directory, redisPid,
                                 "Splendor seat (INIT)", n, c, seat))
    # The room list of --rooms rooms: fresh keys.
    listing = ClusterDirectory(redis, clock, "n2", address="tcp:x:2",
                               prefix=prefix + "list:",
                               summaries={"gomoku": summary})
    for i in range(args.rooms):
        listing.rooms[("gomoku", "l%d" % (i,))] = (
            Room("gomoku", "l%d" % (i,)), i)
    await listing.refresh()
    results.append(await measure(
        reactor, listing, redisPid, "room list (%d rooms)" % (args.rooms,),
        max(n // 10, 10), c, lambda i: listing.listRooms("gomoku")))
    # Renewal: --held names, as every node does every TTL/3.
    held = ClusterDirectory(redis, clock, "n3", address="tcp:x:3",
                            prefix=prefix + "held:")
    for i in range(args.held):
        held.names[("gomoku", "h%d" % (i,))] = True
    results.append(await measure(
        reactor, held, redisPid, "renewal of %d keys" % (args.held + 1,),
        10, 1, lambda i: held.refresh()))
    await redis.disconnect()
    return results


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    p.add_argument("--count", type=int, default=5000)
    p.add_argument("--concurrency", type=int, default=50)
    p.add_argument("--rooms", type=int, default=100)
    p.add_argument("--held", type=int, default=10000)
    args = p.parse_args(argv)
    url, proc = startRedis()
    out = []
    try:
        from twisted.internet import reactor
        from twisted.internet.defer import ensureDeferred

        def done(result):
            out.append(result)
            reactor.stop()
        reactor.callWhenRunning(lambda: ensureDeferred(
            run(reactor, args, url, proc.pid)).addBoth(done))
        reactor.run()
    finally:
        stopProcess(proc)
    if not isinstance(out[0], list):
        out[0].printTraceback()
        return 1
    print("%-38s %9s %9s %9s %12s" % ("operation", "per s", "node us",
                                     "redis us", "redis core/s"))
    for r in out[0]:
        print("%-38s %9d %9.1f %9.1f %12s" % (
            r["operation"], r["per_second"], r["node_cpu_us"],
            r["redis_cpu_us"], r["redis_core_ops_per_second"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
