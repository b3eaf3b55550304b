"""
gamehub: one Twisted server for the Chinese checkers, Splendor and gomoku
protocols, over one shared lobby and session service.

@var __version__: the installed distribution's version, read from its
    metadata (C{pyproject.toml} is the one place it is written).
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("gamehub")
except PackageNotFoundError:
    # A source tree on sys.path that was never installed.
    __version__ = "0+unknown"
