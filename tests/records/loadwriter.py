"""
A process that records random games as fast as it can, for the kill -9
test: C{python -m tests.records.loadwriter URL}.  Each record the
database confirmed is logged ("recorded gomoku game 17 ...") once its
transaction committed.
"""

import random
import sys

from twisted.internet import reactor, task
from twisted.logger import globalLogBeginner, textFileLogObserver

from hub.records import db
from hub.records.recorder import Recorder

from tests.records import support


def main(url):
    globalLogBeginner.beginLoggingTo([textFileLogObserver(sys.stdout)])
    parsed = db.parseURL(url)
    db.prepare(parsed)
    recorder = Recorder(db.Database(parsed, reactor), reactor,
                        batchSize=10)
    rng = random.Random(7)
    names = ["ann", "bob", "cy", "dee", "eve"]

    def play():
        if len(recorder.pending) < 200:
            players = rng.sample(names, 2)
            support.playRandomGame("gomoku", [recorder], rng,
                                   names=players, clock=task.Clock())

    task.LoopingCall(play).start(0.002)
    reactor.run()


if __name__ == "__main__":
    main(sys.argv[1])
