"""
An engine's command line and environment: its placeholders filled
argument by argument (no shell), and the documented C{GAMEHUB_*}
variables (docs/protocols/engines.md).
"""

import re
from typing import Dict, List, Optional, Sequence

#: The placeholders of an engine's command line.
PLACEHOLDERS = ("host", "port", "room", "name", "key")
_PLACEHOLDER = re.compile(r"\{(" + "|".join(PLACEHOLDERS) + r")\}")

#: The address engines connect to.
HOST = "127.0.0.1"
#: The environment variable that carries an engine's key.
KEY_VARIABLE = "GAMEHUB_KEY"


def environment(kind: str, port: object, room: object, name: object,
                key: Optional[str] = None) -> Dict[str, str]:
    """
    The C{GAMEHUB_*} variables of an engine: C{GAMEHUB_GAME} (its kind),
    C{GAMEHUB_HOST}, C{GAMEHUB_PORT}, C{GAMEHUB_ROOM}, C{GAMEHUB_NAME}
    and, when it has one, C{GAMEHUB_KEY}.  (The sandbox adds C{PATH}
    and C{HOME}, and nothing else.)
    """
    env = {"GAMEHUB_GAME": kind, "GAMEHUB_HOST": HOST,
           "GAMEHUB_PORT": str(port), "GAMEHUB_ROOM": str(room),
           "GAMEHUB_NAME": str(name)}
    if key:
        env[KEY_VARIABLE] = key
    return env


def substitute(command: Sequence[object], host: object, port: object,
               room: object, name: object,
               key: Optional[object] = None) -> List[str]:
    """
    C{command} (a sequence of argument strings) with its placeholders
    filled, argument by argument: a value with spaces or shell
    characters stays inside its argument, and braces that are not one of
    L{PLACEHOLDERS} stay as they are.

    @param key: the play key, or None for none (C{{key}} becomes empty).
    """
    values = {"host": str(host), "port": str(port), "room": str(room),
              "name": str(name), "key": "" if key is None else str(key)}
    return [_PLACEHOLDER.sub(lambda m: values[m.group(1)], str(argument))
            for argument in command]
