"""
The level of C{twistd gamehub}'s log: the observer C{twistd} would use,
behind a filter that drops events below C{--log-level}.
"""

from twisted.logger import (
    FilteringLogObserver, LogLevel, LogLevelFilterPredicate)

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


def twistdObserver(twistdOptions):
    """
    The log observer C{twistd} makes for its options (C{--logfile},
    C{--nodaemon}, C{--syslog}) when the application sets none.

    @param twistdOptions: C{twistd}'s own options (the parent of the
        plugin's).
    """
    # twistd builds it in its platform's logger class; that is the only
    # place that knows every option, so ask it rather than copy it.
    from twisted.scripts.twistd import _SomeApplicationRunner
    logger = _SomeApplicationRunner.loggerFactory(twistdOptions)
    return logger._getLogObserver()
