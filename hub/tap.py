"""
The C{twistd gamehub} plugin: options and the service tree.

One process, one shared L{Lobby} and L{Sessions}, and one listening
endpoint per enabled protocol (C{--<game>-port}, an endpoint string, or
C{none}).
"""

from twisted.application import strports
from twisted.python import usage

from hub.service import Hub

DISABLED = "none"
TAKEOVER_CHOICES = ("none", "bot")


def _positiveInt(value):
    number = int(value)
    if number < 0:
        raise ValueError("must not be negative")
    return number


class Options(usage.Options):
    """
    Command-line options of C{twistd gamehub}.
    """

    synopsis = "[options]"
    longdesc = ("Serve Chinese checkers, Splendor and gomoku over one "
                "shared lobby.  Each --<game>-port is a Twisted endpoint "
                "string, or 'none' to disable that protocol.")

    optParameters = [
        ["gomoku-port", None, "tcp:11011",
         "Endpoint for the gomoku protocol."],
        ["checkers-port", None, "tcp:16666",
         "Endpoint for the Chinese checkers protocol."],
        ["splendor-port", None, "tcp:13204",
         "Endpoint for the Splendor protocol."],
        ["metrics-port", None, DISABLED,
         "Endpoint for Prometheus metrics over HTTP (e.g. "
         "tcp:9464:interface=127.0.0.1), or 'none'."],
        ["web-port", None, "tcp:8080",
         "Endpoint for the web face (live lobby, spectating, replays, "
         "leaderboards, JSON API, /metrics), or 'none'."],
        ["grace-seconds", None, 30, "Seconds a gomoku player who lost the "
         "connection mid-game has to reconnect.", _positiveInt],
        ["idle-seconds", None, 0, "Seconds a connection may send nothing "
         "before it is closed; 0 for never (no protocol has a heartbeat).",
         _positiveInt],
        ["gomoku-max-illegal", None, 3, "Illegal operations (status 6) a "
         "gomoku connection may make before it is closed.", _positiveInt],
        ["checkers-turn-seconds", None, 15, "Time limit of a checkers turn.",
         _positiveInt],
        ["takeover", None, "none", "What plays the seat of a player who "
         "disconnects mid-game: 'none' or 'bot'."],
        ["bot-level", None, 2, "Strength (1-3) of server-side bots.",
         _positiveInt],
        ["bot-delay", None, None, "Seconds a server-side bot waits before "
         "each action (default: each protocol's own).", float],
    ]

    optFlags = [
        ["checkers-four-players", None,
         "Also start checkers games of four players (regions A B D E)."],
        ["checkers-error-names", None,
         "Checkers ERROR_OP carries the code's name (INVALID_MOVE), as the "
         "official Team 4 server sent it, instead of its number."],
        ["checkers-join-seats", None,
         "Checkers JOIN_ROOM_OP to the other members carries the joiner's "
         "1-based seat in data2 (the Team 1 client needs it)."],
    ]

    def postOptions(self):
        if self["takeover"] not in TAKEOVER_CHOICES:
            raise usage.UsageError(
                "--takeover must be one of: " + ", ".join(TAKEOVER_CHOICES))
        if not 1 <= self["bot-level"] <= 3:
            raise usage.UsageError("--bot-level must be 1, 2 or 3")


def makeFactories(options, lobby, sessions, clock):
    """
    One protocol factory per game kind, all over the same lobby and
    sessions.

    @return: a L{dict} mapping the port option name to its factory.
    """
    from hub.protocols.checkers import CheckersFactory
    from hub.protocols.gomoku import GomokuFactory
    from hub.protocols.splendor import SplendorFactory
    takeover = options["takeover"] if options["takeover"] != "none" else None
    bots = {"takeover": takeover, "botLevel": options["bot-level"]}
    if options.get("bot-delay") is not None:
        bots["botDelay"] = options["bot-delay"]
    return {
        "gomoku-port": GomokuFactory(
            lobby, sessions, clock,
            maxIllegal=options["gomoku-max-illegal"], **bots),
        "checkers-port": CheckersFactory(
            lobby, sessions, clock,
            turnSeconds=options["checkers-turn-seconds"],
            fourPlayers=bool(options["checkers-four-players"]),
            errorNames=bool(options["checkers-error-names"]),
            joinSeats=bool(options["checkers-join-seats"]), **bots),
        "splendor-port": SplendorFactory(lobby, sessions, clock, **bots),
    }


def makeService(options, reactor=None):
    """
    The service tree: the shared services, a listener per enabled
    protocol, and the metrics listener when asked for.
    """
    if reactor is None:
        from twisted.internet import reactor
    top = Hub(reactor, graceSeconds=options["grace-seconds"],
              idleSeconds=options["idle-seconds"])
    lobby, sessions = top.lobby, top.sessions
    factories = makeFactories(options, lobby, sessions, top.clock)
    for portOption in ("gomoku-port", "checkers-port", "splendor-port"):
        description = options[portOption]
        if description.strip().lower() == DISABLED:
            continue
        factory = factories.get(portOption)
        if factory is None:
            raise usage.UsageError(
                "--{} is not served yet; use 'none'".format(portOption))
        listener = strports.service(description, factory, reactor=reactor)
        listener.setName(portOption)
        listener.setServiceParent(top)
    if options["metrics-port"].strip().lower() != DISABLED:
        from hub.metrics import metricsSite
        listener = strports.service(options["metrics-port"],
                                    metricsSite(lobby, sessions),
                                    reactor=reactor)
        listener.setName("metrics-port")
        listener.setServiceParent(top)
    if options["web-port"].strip().lower() != DISABLED:
        from hub.web.site import webSite
        site, web = webSite(top)
        web.setServiceParent(top)
        listener = strports.service(options["web-port"], site,
                                    reactor=reactor)
        listener.setName("web-port")
        listener.setServiceParent(top)
    return top
