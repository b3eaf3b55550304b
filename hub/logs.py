"""
The log of C{twistd gamehub}: the observer C{twistd} would use (or, with
C{--log-format json}, one JSON event per line to the same place), behind a
filter that drops events below C{--log-level}.  The info lines of the
libraries in L{CHATTY} count as debug: what they say at info (the bot
pool's ampoule: each worker started and its AMP link made, the pool's
settings over twenty lines) is routine, and the hub's own lines say what
matters (the pool's workers up, a worker that died).

The fields a JSON line adds for a log shipper (C{time}, C{level},
C{text}, C{game}, C{room}, C{player}, C{event}, C{traceback}) and where
C{--logfile} puts the log, rotated every megabyte and on C{SIGUSR1}:
docs/deploy.md, "Logs".
"""

import datetime
import sys
from typing import IO, Any, Dict, Iterable, Optional

from twisted.logger import (
    FileLogObserver, FilteringLogObserver, ILogObserver, LogLevel,
    LogEvent, LogLevelFilterPredicate, eventAsJSON, formatEvent)
from twisted.internet.interfaces import IReactorFromThreads
from zope.interface import implementer

# twistd's own observer is made through Twisted's internals, kept in one
# module.
from hub.twistedinternals import twistdObserver

#: C{--log-level} choices.
LOG_LEVELS = {
    "debug": LogLevel.debug,
    "info": LogLevel.info,
    "warn": LogLevel.warn,
    "error": LogLevel.error,
}

#: C{--log-format} choices.
LOG_FORMATS = ("text", "json")

#: The game kinds, the values of a C{kind} field that name a game.
GAME_KINDS = ("gomoku", "checkers", "splendor")


#: The log namespaces (and those under them) whose info events are logged
#: as debug: the bot pool's process pool, and the AMP links to its
#: workers (nothing else of the hub speaks AMP).
CHATTY = ("ampoule", "twisted.protocols.amp")


def isChatty(namespace: str) -> bool:
    """
    Whether the log C{namespace} is one of L{CHATTY} or under one.
    """
    return any(namespace == chatty or namespace.startswith(chatty + ".")
               for chatty in CHATTY)


@implementer(ILogObserver)
class ChatterDemoted:
    """
    An observer that passes every event to C{observer}, the info events of
    L{CHATTY} namespaces as debug (a copy: other observers of the same
    event see it as it was).
    """

    def __init__(self, observer: ILogObserver) -> None:
        self.observer = observer

    def __call__(self, event: LogEvent) -> None:
        if (event.get("log_level") == LogLevel.info
                and isChatty(event.get("log_namespace") or "")):
            event = dict(event, log_level=LogLevel.debug)
        self.observer(event)


def levelFilter(observer: ILogObserver, level: LogLevel) -> ILogObserver:
    """
    C{observer}, seeing only events of C{level} or above, the info lines
    of L{CHATTY} namespaces counting as debug.

    @param level: a L{LogLevel}.
    """
    return ChatterDemoted(FilteringLogObserver(
        observer, [LogLevelFilterPredicate(defaultLogLevel=level)]))


def logFile(twistdOptions: Dict[str, Any],
            reactor: IReactorFromThreads) -> IO[Any]:
    """
    The file C{twistd} logs to for its options, as its own text log does:
    standard output with C{--nodaemon} and no C{--logfile} (or
    C{--logfile -}), else a L{LogFile} (C{twistd.log} by default) rotated
    at 1 MB and on C{SIGUSR1} (rotated by C{reactor}'s thread).

    @raise SystemExit: C{--syslog}, or a daemon asked to log to standard
        output.
    """
    if twistdOptions.get("syslog"):
        raise SystemExit("gamehub: --log-format json writes to --logfile "
                         "or standard output, not --syslog")
    path = twistdOptions.get("logfile")
    nodaemon = twistdOptions.get("nodaemon")
    if path == "-":
        if not nodaemon:
            raise SystemExit("Daemons cannot log to stdout, exiting!")
        return sys.stdout
    if nodaemon and not path:
        return sys.stdout
    from twisted.python.logfile import LogFile
    opened = LogFile.fromFullPath(path or "twistd.log")
    _rotateOnSIGUSR1(opened, reactor)
    return opened


def _rotateOnSIGUSR1(opened: Any, reactor: IReactorFromThreads) -> None:
    """
    Rotate C{opened} on C{SIGUSR1}, as twistd does, unless a handler is
    set already: in C{reactor}'s thread, since a signal handler may run
    between any two bytecodes of it.
    """
    import signal
    if signal.getsignal(signal.SIGUSR1):
        return

    def rotate(signum: int, frame: Any) -> None:
        reactor.callFromThread(opened.rotate)
    signal.signal(signal.SIGUSR1, rotate)


# Field values written as they are; others (an address...) as their str.
_JSON_TYPES = (str, int, float, bool, type(None), list, tuple, dict)


def _first(event: LogEvent, keys: Iterable[str]) -> Optional[Any]:
    for key in keys:
        value = event.get(key)
        if value is not None:
            return value
    return None


def indexedEvent(event: LogEvent) -> LogEvent:
    """
    A copy of C{event} with the fields of the JSON log added (see the
    module's docstring).
    """
    indexed = {key: value if key.startswith("log_")
               or isinstance(value, _JSON_TYPES) else str(value)
               for key, value in event.items()}
    game = event.get("game")
    if game is None and event.get("kind") in GAME_KINDS:
        game = event["kind"]
    if game is not None:
        indexed["game"] = game
        player = _first(event, ("player", "name"))
    else:
        player = event.get("player")
    if player is not None:
        indexed["player"] = player
    room = _first(event, ("room", "table"))
    if room is not None:
        indexed["room"] = room
    level = event.get("log_level")
    if level is not None:
        indexed["level"] = level.name
    when = event.get("log_time")
    if when is not None:
        indexed["time"] = datetime.datetime.fromtimestamp(
            when, datetime.timezone.utc).isoformat()
    indexed["text"] = formatEvent(event)
    failure = event.get("log_failure")
    if failure is not None:
        indexed["traceback"] = failure.getTraceback()
    return indexed


def jsonLine(event: LogEvent) -> str:
    """
    One line of the JSON log: C{event} as L{eventAsJSON} writes it, with
    the indexed fields.
    """
    return eventAsJSON(indexedEvent(event)) + "\n"


def jsonObserver(outFile: IO[Any]) -> ILogObserver:
    """
    An observer writing one JSON event per line to C{outFile}.
    """
    return FileLogObserver(outFile, jsonLine)


def hubObserver(twistdOptions: Dict[str, Any], logFormat: str,
                reactor: IReactorFromThreads) -> ILogObserver:
    """
    The observer of C{twistd gamehub}'s log in C{logFormat}, writing where
    C{twistd}'s options say (a log file rotated in C{reactor}'s thread).
    """
    if logFormat == "json":
        return jsonObserver(logFile(twistdOptions, reactor))
    return twistdObserver(twistdOptions)
