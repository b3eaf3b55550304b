"""
The level of C{twistd gamehub}'s log: the observer C{twistd} would use,
behind a filter that drops events below C{--log-level}.
"""

from twisted.logger import (
    FilteringLogObserver, LogLevel, LogLevelFilterPredicate)

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


def levelFilter(observer, level):
    """
    C{observer}, seeing only events of C{level} or above.

    @param level: a L{LogLevel}.
    """
    return FilteringLogObserver(
        observer, [LogLevelFilterPredicate(defaultLogLevel=level)])


__all__ = ["LOG_LEVELS", "levelFilter", "twistdObserver"]
