"""
gamehub: one Twisted server for the Chinese checkers, Splendor and gomoku
protocols, over one shared lobby and session service.

@var __version__: the installed distribution's version, read from its
    metadata (C{pyproject.toml} is the one place it is written) when it
    is first asked for: importing C{importlib.metadata} costs a process
    20 to 70 ms, and most that import C{hub} (a bot, a tool, an engine)
    never ask.
"""


def __getattr__(name: str) -> str:
    if name != "__version__":
        raise AttributeError("module 'hub' has no attribute %r" % (name,))
    from importlib.metadata import PackageNotFoundError, version
    try:
        found = version("gamehub")
    except PackageNotFoundError:
        # A source tree on sys.path that was never installed.
        found = "0+unknown"
    globals()["__version__"] = found
    return found
