"""
Records write benchmark: games finishing at a steady 1,000 per minute
(one every 60 ms) go through the recorder's queue into the database.
Prints the write latency (game end to committed record) and the largest
queue seen; then the saturated rate (records queued as fast as they come,
written in batches).

    python bench/records_writes.py sqlite:/tmp/writes.sqlite
    python bench/records_writes.py postgresql://user@host/db --seconds 60
"""

import argparse
import time

from records_common import median, newRandom, percentile, syntheticRecord

from twisted.internet import defer, task

from hub.records import db
from hub.records.recorder import Recorder


class TimedRecorder(Recorder):
    """
    A recorder that notes when each record was queued and when it was
    confirmed.
    """

    def __init__(self, *args, **kwargs):
        Recorder.__init__(self, *args, **kwargs)
        self.queuedAt = {}
        self.latencies = []
        self.mostPending = 0

    def enqueue(self, record):
        self.queuedAt[id(record)] = time.perf_counter()
        Recorder.enqueue(self, record)
        self.mostPending = max(self.mostPending, len(self.pending))

    def _written(self, stored, batch):
        now = time.perf_counter()
        for record in batch:
            self.latencies.append(now - self.queuedAt.pop(id(record)))
        return Recorder._written(self, stored, batch)


@defer.inlineCallbacks
def run(reactor, url, seconds, perMinute, saturated):
    database = db.Database(url, reactor)
    recorder = TimedRecorder(database, reactor)
    rng = newRandom(2)
    clock = [1.7e9]

    def finish():
        clock[0] += 1.0
        recorder.enqueue(syntheticRecord(rng, clock[0]))

    loop = task.LoopingCall(finish)
    loop.start(60.0 / perMinute)
    yield task.deferLater(reactor, seconds, lambda: None)
    loop.stop()
    yield recorder.whenIdle()
    values = recorder.latencies
    print("{} games at {}/min for {} s: write latency median {:.1f} ms, "
          "p99 {:.1f} ms, max {:.1f} ms; largest queue {}".format(
              len(values), perMinute, seconds, median(values) * 1000,
              percentile(values, 0.99) * 1000, max(values) * 1000,
              recorder.mostPending))
    recorder.latencies = []
    begin = time.perf_counter()
    for _ in range(saturated):
        finish()
    yield recorder.whenIdle()
    spent = time.perf_counter() - begin
    print("saturated: {} games queued at once, written in {:.2f} s: "
          "{:.0f} games/s ({:.0f}/min)".format(
              saturated, spent, saturated / spent, saturated / spent * 60))
    database.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("url")
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--per-minute", type=int, default=1000)
    parser.add_argument("--saturated", type=int, default=5000)
    args = parser.parse_args()
    url = db.parseURL(args.url)
    db.prepare(url)
    task.react(run, (url, args.seconds, args.per_minute, args.saturated))


if __name__ == "__main__":
    main()
