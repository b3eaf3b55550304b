"""
The engine catalog (migration C{0007_engine_catalog.sql}): the engines
the server's operator registered with C{python -m hub.tournaments engine
register}, the only programs an event runs.  The web face and the admin
API enter them by name; nothing but the CLI writes a command line.
Interactions, as L{hub.tournaments.store}'s.
"""

from __future__ import annotations

import json
import re
from typing import Any, List, Optional, Sequence

from hub.catalogs import N_
from hub.records import db
from hub.tournaments.interfaces import (
    ENGINE_CPU_SECONDS, ENGINE_MEMORY_BYTES, PROTOCOLS, EngineSpec)
from hub.tournaments.store import NoSuchEngine, TournamentError

_COLUMNS = ("name, command, folder, protocol, cpu_seconds, memory_bytes")
_SIZE = re.compile(r"^(\d+)\s*([KMG]?)i?B?$", re.I)
_UNITS = {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}


def parseSize(text: str) -> int:
    """
    A size in bytes from C{text}: a number, or one with C{K}, C{M} or
    C{G} (powers of 1024: C{512M}, C{1G}).

    @raise ValueError: it is none.
    """
    match = _SIZE.match(str(text).strip())
    if match is None:
        raise ValueError("a size is a number of bytes, or one with K, M "
                         "or G (512M), not %r" % (text,))
    return int(match.group(1)) * _UNITS[match.group(2).upper()]


def checkName(name: str) -> str:
    """
    C{name} if it may name an engine (as an entrant's: 1 to 64
    characters, no spaces).

    @raise TournamentError: it may not.
    """
    if not name or len(name) > 64 or any(c.isspace() for c in name):
        raise TournamentError(N_("an engine's name is 1 to 64 "
                                 "characters, no spaces"))
    return name


def _spec(row: Sequence[Any]) -> EngineSpec:
    name, command, folder, protocol, cpu, memory = row
    return EngineSpec(name, tuple(json.loads(command)), folder, protocol,
                      int(cpu), int(memory))


def register(cursor: db.Cursor, name: str, command: Sequence[str],
             now: float, folder: Optional[str] = None,
             protocol: str = "tcp",
             cpuSeconds: int = ENGINE_CPU_SECONDS,
             memoryBytes: int = ENGINE_MEMORY_BYTES) -> EngineSpec:
    """
    Register engine C{name} (replacing an earlier registration of that
    name): what the events that enter it run from then on.

    @raise TournamentError: a name, command or limit that does not fit.
    """
    checkName(name)
    command = [str(word) for word in command]
    if not command or not command[0]:
        raise TournamentError(N_("an engine needs a command"))
    if any("\0" in word for word in command):
        raise TournamentError(N_("a command has no NUL characters"))
    if protocol not in PROTOCOLS:
        raise TournamentError(N_("no protocol {0!r} ({1})"), protocol,
                              ", ".join(PROTOCOLS))
    if cpuSeconds < 0 or memoryBytes < 0:
        raise TournamentError(N_("limits are not negative"))
    if folder is not None and not folder.startswith("/"):
        raise TournamentError(N_("an engine's folder is an absolute "
                                 "path"))
    cursor.execute(
        "INSERT INTO engine_catalog (" + _COLUMNS + ", registered_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET "
        "command = excluded.command, folder = excluded.folder, "
        "protocol = excluded.protocol, "
        "cpu_seconds = excluded.cpu_seconds, "
        "memory_bytes = excluded.memory_bytes, "
        "registered_at = excluded.registered_at",
        (name, json.dumps(command), folder, protocol, int(cpuSeconds),
         int(memoryBytes), now))
    return engine(cursor, name)


def engine(cursor: db.Cursor, name: str) -> EngineSpec:
    """
    The registered engine C{name}.

    @raise TournamentError: there is none.
    """
    cursor.execute("SELECT " + _COLUMNS + " FROM engine_catalog WHERE "
                   "name = ?", (name,))
    row = cursor.fetchone()
    if row is None:
        raise NoSuchEngine(name)
    return _spec(row)


def engines(cursor: db.Cursor) -> List[EngineSpec]:
    """
    Every registered engine, by name.
    """
    cursor.execute("SELECT " + _COLUMNS + " FROM engine_catalog "
                   "ORDER BY name")
    return [_spec(row) for row in cursor.fetchall()]


def unregister(cursor: db.Cursor, name: str) -> None:
    """
    Remove engine C{name} from the catalog.

    @raise TournamentError: there is none, or an event not finished has
        it as an entrant.
    """
    engine(cursor, name)
    cursor.execute(
        "SELECT t.id FROM tournament_entrants e JOIN tournaments t ON "
        "t.id = e.tournament_id WHERE e.engine = ? AND t.state <> ? "
        "AND e.withdrawn = 0 ORDER BY t.id", (name, "finished"))
    rows = cursor.fetchall()
    if rows:
        raise TournamentError(
            N_("engine {0} is entered in event {1}: withdraw it first"),
            name, ", ".join(str(r[0]) for r in rows))
    cursor.execute("DELETE FROM engine_catalog WHERE name = ?", (name,))


__all__ = ["register", "engine", "engines", "unregister", "parseSize"]
