"""
The programs of the distribution, found by name in its metadata (the
C{gamehub.programs} entry points of C{pyproject.toml}), so that a
package's C{__main__} can run a program of a higher layer without
importing it: C{python -m hub.bots} runs the network bot player of
L{hub.client.botplayer}, while L{hub.bots} holds strategies only.
"""

from importlib.metadata import entry_points
from typing import Any

#: The entry-point group of gamehub's programs.
GROUP = "gamehub.programs"


def program(name: str) -> Any:
    """
    The callable registered as program C{name}.

    @raise SystemExit: with one line, when the installed distribution
        registers no such program (gamehub is not installed).
    """
    found = entry_points(group=GROUP, name=name)
    for entry in found:
        return entry.load()
    raise SystemExit("gamehub: no program {!r}: install gamehub "
                     "(pip install .) to run it".format(name))
