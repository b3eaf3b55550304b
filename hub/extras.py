"""
The optional parts of gamehub and the extra that installs each.

The bare install runs the hub with SQLite, the web face and the LAN
announcement; the PostgreSQL driver, the Redis client of a cluster node
and the desktop client's pyglet come with extras.  A feature asked for
without its extra stops at start with one line saying what to install::

    gamehub: --db postgresql://... needs: pip install 'gamehub[postgres]'
"""

import importlib
from types import ModuleType

#: Each extra (as in C{pyproject.toml}) and the module it brings.
EXTRAS = {
    "postgres": "psycopg",
    "cluster": "txredisapi",
    "client": "pyglet",
}


def missingMessage(program: str, feature: str, extra: str) -> str:
    """
    The line that says C{feature} needs C{extra}.

    @param program: the command's name (C{gamehub}, C{hub.records}).
    @param feature: what was asked for, as the user wrote it, but never a
        value that may hold a secret (C{"--db postgresql://…"}, not the
        URL with its password).
    """
    return "{}: {} needs: pip install 'gamehub[{}]'".format(
        program, feature, extra)


def require(extra: str, program: str, feature: str) -> ModuleType:
    """
    The module that C{extra} installs, imported.

    @raise SystemExit: with L{missingMessage}'s one line if it cannot be
        imported.
    """
    try:
        return importlib.import_module(EXTRAS[extra])
    except ImportError:
        raise SystemExit(missingMessage(program, feature, extra)) from None


#: The C{feature} of L{require} for a PostgreSQL C{--db}.
POSTGRES_FEATURE = "--db postgresql://..."
