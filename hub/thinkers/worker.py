"""
A bot worker: the process the hub's pool (L{hub.thinkers.pool}) starts,
which answers L{ChooseAction} over AMP on its file descriptors 3 and 4
(the child side of ampoule's pool, without importing ampoule: its
package brings the whole pool, which would double a worker's start).  It reads the position with the game's own codec
(L{hub.games.codec}), asks the strategy of L{hub.bots} with the question's
time budget, and answers the action in the same codec.

It runs at a lower priority than the hub (L{NICENESS}), with a ceiling on
its memory (L{MEMORY}), and logs only warnings and errors (to its
standard error, which the hub logs).  It ignores SIGINT and SIGTERM (a
terminal's Ctrl-C, or systemd stopping the service, signals the whole
group): the hub stops its workers itself, after its games, and a worker
whose hub is gone exits when its pipes close.
"""

import json
import os
import resource
import signal
import sys
import time
from typing import Callable, Dict, List, Optional

from twisted.internet.interfaces import IReactorCore
from twisted.internet.protocol import connectionDone
from twisted.logger import Logger
from twisted.protocols import amp
from twisted.python.failure import Failure

from hub.bots import NoLegalAction, botFor
from hub.games.codec import actionToJSON, stateFromJSON
from hub.thinkers.commands import BadQuestion, ChooseAction, Hello, Shutdown

#: How much nicer than the hub a worker runs: the reactor's process wins
#: the CPU whenever it has work.
NICENESS = 10
#: The most address space a worker may take (bytes).
MEMORY = 1024 ** 3
#: What the pool runs in a new worker process (ampoule's bootstrap; the
#: arguments ampoule adds are not needed): a worker never speaks TLS
#: (L{hub.withouttls}).
BOOTSTRAP = ("from hub.withouttls import withoutTLS; withoutTLS()\n"
             "from hub.thinkers.worker import main; main()\n")


def deadline(
        budget: float,
        clock: Callable[[], float] = time.monotonic) -> Callable[[], bool]:
    """
    A callable that is true once C{budget} seconds have passed on
    C{clock} (a strategy's L{hub.bots.base.Bot.expired}).
    """
    end = clock() + budget

    def expired() -> bool:
        return clock() >= end
    return expired


def choose(kind: str, level: int, seed: int, seat: int, position: str,
           expired: Callable[[], bool]) -> str:
    """
    The JSON text of the action the C{kind} bot of C{level} chooses for
    C{seat} in C{position} (the JSON text of a state).

    @raise BadQuestion: the question cannot be read, or the seat has
        nothing to play.
    """
    try:
        state = stateFromJSON(kind, json.loads(position))
        bot = botFor(kind, level, seed, expired=expired)
        action = bot.chooseAction(state, seat)
    except (ValueError, KeyError, NoLegalAction) as e:
        raise BadQuestion("{}: {}".format(type(e).__name__, e)[:200])
    return json.dumps(actionToJSON(kind, action), separators=(",", ":"))


class BotWorker(amp.AMP):
    """
    The worker's side of the AMP connection: answers L{ChooseAction},
    L{Hello} and L{Shutdown}; when the connection is lost, the worker
    exits (with status 1 if it was not told to stop).
    """

    log = Logger()
    stopping = False

    def __init__(self, reactor: Optional[IReactorCore] = None,
                 exit: Callable[[int], object] = os._exit) -> None:
        amp.AMP.__init__(self)
        self._reactor = reactor
        self._exit = exit

    @Hello.responder
    def hello(self) -> Dict[str, int]:
        return {"pid": os.getpid()}

    @Shutdown.responder
    def shutdown(self) -> Dict[str, object]:
        self.stopping = True
        return {}

    def connectionLost(self, reason: Failure = connectionDone) -> None:
        amp.AMP.connectionLost(self, reason)
        if self._reactor is not None and self._reactor.running:
            self._reactor.stop()
        if not self.stopping:
            self._exit(1)

    @ChooseAction.responder
    def chooseAction(self, request: int, kind: str, level: int, seed: int,
                     seat: int, position: str,
                     budget: float) -> Dict[str, object]:
        expired = deadline(budget)
        action = choose(kind, level, seed, seat, position, expired)
        return {"action": action, "cut": expired()}


def main(argv: Optional[List[str]] = None) -> None:
    """
    Run a worker on file descriptors 3 (questions) and 4 (answers), as
    ampoule's pool expects, until the hub closes them.
    """
    os.nice(NICENESS)
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_IGN)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard == resource.RLIM_INFINITY or hard > MEMORY:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    from twisted import logger
    logger.globalLogBeginner.beginLoggingTo([logger.FilteringLogObserver(
        logger.textFileLogObserver(sys.stderr),
        [logger.LogLevelFilterPredicate(logger.LogLevel.warn)])])
    from twisted.internet import reactor, stdio
    # mypy reads Twisted's Windows StandardIO, which has no descriptors.
    stdio.StandardIO(BotWorker(reactor), 3, 4)  # type: ignore[call-arg]
    # The reactor is a real one here; IReactorCore.run takes nothing.
    reactor.run(installSignalHandlers=False)  # type: ignore[call-arg]
