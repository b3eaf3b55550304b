"""
One Twisted protocol and factory per wire protocol (checkers, Splendor,
gomoku), and what they share.
"""


def setNoDelay(transport):
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
    except Exception:
        pass
