"""
gamehub's processes that never speak TLS load Twisted as if pyOpenSSL
were not installed: a bot worker, which talks to its hub over pipes, and
the network bot player (C{python -m hub.bots}, so every engine a
tournament launches from it), which connects over plain TCP.

Twisted's TLS is optional (its C{tls} extra).  C{twisted.protocols.amp}
and C{twisted.internet.endpoints} import pyOpenSSL when it is installed,
for AMP's StartTLS and the TLS endpoints, and do without it when it is
not.  That import brings cryptography and service_identity with it:
about 100 ms of CPU and 13 MiB of memory in each process that starts
(docs/benchmarks.md, "Processes without TLS").

The hub itself, the desktop client and the tools keep TLS: the hub may
serve C{ssl:} ports, and the client may fetch from an C{https} web face.
"""

import sys


def withoutTLS() -> None:
    """
    Make every later import of pyOpenSSL in this process fail as if it
    were not installed, unless the process has imported it already: a
    program calls this first, before it imports Twisted's AMP or
    endpoints.
    """
    # None in sys.modules is how Python marks a module as not importable.
    sys.modules.setdefault("OpenSSL", None)  # type: ignore[arg-type]
