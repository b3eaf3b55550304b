"""
Socket settings that both sides of gamehub use: the server's protocols
(L{hub.protocols}) and the client's (L{hub.client.net}).  Neither side
imports the other; both import this.
"""

from typing import Any


def setNoDelay(transport: Any) -> None:
    """
    Send each small message at once: turn off Nagle's algorithm on
    C{transport}.  Transports without TCP (in-memory ones in tests, UNIX
    sockets) and sockets that refuse are left as they are.
    """
    setTcpNoDelay = getattr(transport, "setTcpNoDelay", None)
    if setTcpNoDelay is None:
        return
    try:
        setTcpNoDelay(True)
    except OSError:
        pass
