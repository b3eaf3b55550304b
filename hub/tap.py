"""
The C{twistd gamehub} plugin: options and the service tree.

One process, one shared L{Lobby} and L{Sessions}, and one listening
endpoint per enabled protocol (C{--<game>-port}, an endpoint string, or
C{none}).
"""

import gc
import random
from typing import Any, Dict, List, Optional, Sequence, Tuple

from twisted.application.service import IServiceCollection
from twisted.internet import endpoints
from twisted.internet.defer import Deferred, succeed
from twisted.internet.interfaces import (
    IListeningPort, IProtocolFactory, IStreamServerEndpoint)
from twisted.python import usage
from zope.interface import implementer

from hub import commandline, extras
from hub.ihub import IPausableFactory, IPortListener
from hub.limits import Limits, WebLimits
from hub.logs import LOG_FORMATS, LOG_LEVELS, hubObserver, levelFilter
from hub.service import Hub
from hub.twistedinternals import SynchronousListener

DISABLED = "none"
YES_NO = {"yes": True, "no": False}
TAKEOVER_CHOICES = ("none", "bot")
NAME_MODES = ("open", "accounts", "closed")
REGISTRATION_MODES = ("open", "invite", "closed")
GAME_PORTS = ("gomoku-port", "checkers-port", "splendor-port")
ENGINE_SANDBOXES = ("bwrap", "none")

#: The listen backlog of an endpoint string that names none: a burst of
#: thousands of connects is queued instead of dropped and retried.
LISTEN_BACKLOG = 1024

#: Endpoint types whose strings take a port number and a backlog.
PORT_TYPES = ("tcp", "tcp6", "ssl")


def _positiveInt(value: str) -> int:
    number = int(value)
    if number < 0:
        raise ValueError("must not be negative")
    return number


def _positiveFloat(value: str) -> float:
    number = float(value)
    if not number >= 0:
        raise ValueError("must not be negative")
    return number


def checkersSizes(value: str) -> Tuple[int, ...]:
    """
    The player counts of C{--checkers-sizes}: a comma-separated list of
    some of 1, 2, 3, 4 and 6.

    @return: a sorted L{tuple} of L{int}s without repeats.
    @raise ValueError: an empty list, or a count no game has.
    """
    from hub.games.checkers import PLAYER_COUNTS
    counts = set()
    for part in value.split(","):
        part = part.strip()
        if not part.isdigit() or int(part) not in PLAYER_COUNTS:
            raise ValueError("{!r} is not one of {}".format(
                part, ",".join(str(n) for n in PLAYER_COUNTS)))
        counts.add(int(part))
    return tuple(sorted(counts))


def endpointProblem(description: str) -> Optional[str]:
    """
    What is wrong with a TCP or TLS endpoint string's port, if anything.

    @return: a short phrase, or None.
    """
    kind, _, rest = description.partition(":")
    if kind.strip().lower() not in PORT_TYPES:
        return None
    positional = [a for a in rest.split(":") if "=" not in a]
    keywords = dict(a.split("=", 1) for a in rest.split(":") if "=" in a)
    port = positional[0] if positional else keywords.get("port")
    if port is None:
        return "no port number"
    if not port.strip().isdigit() or int(port) > 65535:
        return "port {!r} is not a number from 0 to 65535".format(port)
    return None


def withBacklog(description: str, backlog: int = LISTEN_BACKLOG) -> str:
    """
    C{description} with C{backlog=} added if it is a TCP or TLS endpoint
    string that names none.
    """
    kind = description.partition(":")[0].strip().lower()
    if kind in PORT_TYPES and "backlog=" not in description:
        return "{}:backlog={}".format(description, backlog)
    return description


def listener(option: str, description: str, factory: IProtocolFactory,
             reactor: Any) -> "Listener":
    """
    The service listening on C{description} (the value of C{--option}).

    @raise SystemExit: with one line naming the option and the problem,
        if the string is not a valid endpoint.
    """
    problem = endpointProblem(description)
    if problem is None:
        try:
            endpoint = endpoints.serverFromString(
                reactor, withBacklog(description))
        except Exception as e:
            problem = str(e) or type(e).__name__
    if problem is not None:
        raise SystemExit("gamehub: --{} {!r}: {}".format(
            option, description, problem))
    service = Listener(option, description, endpoint, factory)
    service.setName(option)
    return service


class _Observed:
    """
    An endpoint whose listening port goes to C{listening} too.
    """

    def __init__(self, endpoint: IStreamServerEndpoint,
                 listening: Any) -> None:
        self.endpoint = endpoint
        self.listening = listening

    def listen(self, factory: IProtocolFactory,
               ) -> "Deferred[IListeningPort]":
        return self.endpoint.listen(factory).addCallback(self.listening)


@implementer(IPortListener)
class Listener(SynchronousListener):
    """
    A listening endpoint service that fails to start with one line naming
    its option and the problem (an address in use, say) instead of a
    traceback.
    """

    def __init__(self, option: str, description: str,
                 endpoint: IStreamServerEndpoint,
                 factory: IProtocolFactory) -> None:
        SynchronousListener.__init__(
            self, _Observed(endpoint, self._listening), factory)
        self.option = option
        self.description = description
        self.port = None
        self._portWaiters = []
        self._stopped = None

    def privilegedStartService(self) -> None:
        try:
            SynchronousListener.privilegedStartService(self)
        except Exception as e:
            raise SystemExit("gamehub: --{} {!r}: cannot listen: {}".format(
                self.option, self.description, e))

    def _listening(self, port: IListeningPort) -> IListeningPort:
        self.port = port
        if IPausableFactory.providedBy(self.factory):
            self.factory.listeningOn(port)
        waiters, self._portWaiters = self._portWaiters, []
        for waiter in waiters:
            waiter.callback(port)
        return port

    def stopAccepting(self) -> "Deferred[None]":
        """
        Stop listening now, before the hub stops (a drain): connections
        made stay; the hub's own stop later does nothing more here.

        @return: a L{Deferred} that fires once the port is closed.
        """
        if self._stopped is None:
            self._stopped = SynchronousListener.stopService(self)
        return self._stopped

    def stopService(self) -> "Optional[Deferred[None]]":
        if self._stopped is not None:
            # Stopped by a drain already.
            return None
        return SynchronousListener.stopService(self)

    def whenListening(self) -> "Deferred[Optional[IListeningPort]]":
        """
        The listening port, once there is one.

        @return: a L{Deferred} that fires with the L{IListeningPort} (at
            once if this service listens already), or with None if
            listening failed.
        """
        if self.port is not None:
            return succeed(self.port)
        waiter = Deferred()
        self._portWaiters.append(waiter)
        return waiter


def usageLine(error: object) -> str:
    """
    The line C{twistd gamehub} writes for a mistake in its options.
    """
    return "gamehub: {} (twistd gamehub --help lists the options)".format(
        error)


class Options(commandline.Options):
    """
    Command-line options of C{twistd gamehub} (a refused value names its
    option; C{--version} is gamehub's: L{commandline.Options}).
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
        ["drain-seconds", None, 0, "Seconds a stopping hub (SIGTERM) "
         "waits for the games under way to end, taking no new connection, "
         "room or game meanwhile (/readyz answers 503); the rest are then "
         "recorded as abandoned.  0 stops at once.", _positiveInt],
        ["grace-seconds", None, 30, "Seconds a gomoku player who lost the "
         "connection mid-game has to reconnect.", _positiveInt],
        ["idle-seconds", None, 0, "Seconds a connection may send nothing "
         "before it is closed; 0 for never (no protocol has a heartbeat).",
         _positiveInt],
        ["gomoku-max-illegal", None, 3, "Illegal operations (status 6) a "
         "gomoku connection may make before it is closed.", _positiveInt],
        ["checkers-turn-seconds", None, 15, "Time limit of a checkers turn.",
         _positiveInt],
        ["checkers-sizes", None, "2,3,6", "The player counts a checkers "
         "room starts with, comma-separated: some of 1 (the solitaire "
         "race), 2, 3, 4 and 6."],
        ["takeover", None, "none", "What plays the seat of a player who "
         "disconnects mid-game: 'none' or 'bot'."],
        ["bot-level", None, 2, "Strength (1-3) of server-side bots.",
         _positiveInt],
        ["bot-delay", None, None, "Seconds a server-side bot waits before "
         "each action (default: each protocol's own).", float],
        ["bot-workers", None, None, "Worker processes in which server-side "
         "bots think (default: the number of CPUs).", _positiveInt],
        ["bot-queue", None, 64, "Bot moves that may wait for a free "
         "worker; past them a bot plays its seat's first legal action.",
         _positiveInt],
        ["max-bots-per-ip", None, 8, "Bots that the players of one address "
         "(and, apart, of one account) may have playing in rooms at once, "
         "from the web face; 0 for no limit.", _positiveInt],
        ["max-level3-bots-per-ip", None, 3, "How many of those may be of "
         "level 3; 0 for no limit.", _positiveInt],
        ["splendor-seed", None, None, "Seed of the Splendor tables' seating "
         "order and deals (default: random), for tests and demonstrations.",
         _positiveInt],
        ["max-send-buffer", None, 256 * 1024, "Bytes a connection may be "
         "owed (sent to it, not yet taken by its socket) before it is "
         "closed as a drop; 0 for no limit.", _positiveInt],
        ["frame-seconds", None, 20.0, "Seconds a connection may hold a "
         "frame begun but not finished before it is closed; 0 for no "
         "limit.", _positiveFloat],
        ["max-connections", None, 10000, "Connections in all protocols; "
         "more are closed as soon as they are made.  0 for no limit.",
         _positiveInt],
        ["max-connections-per-ip", None, 100, "Connections from one source "
         "address; more are closed as soon as they are made.  0 for no "
         "limit.", _positiveInt],
        ["request-rate", None, 100.0, "Frames per second a connection may "
         "send in the long run; a faster one is read more slowly.  0 for "
         "no limit.", _positiveFloat],
        ["request-burst", None, 200, "Frames a connection may send at once "
         "before --request-rate applies.", _positiveInt],
        ["request-overdraft", None, 200, "Frames a connection may send past "
         "its --request-rate allowance before it is closed; 0 to only "
         "slow it.", _positiveInt],
        ["web-max-connections-per-ip", None, 64, "Web connections from one "
         "source address (they count toward --max-connections too, not "
         "toward --max-connections-per-ip); more are refused as they are "
         "accepted.  0 for no limit.", _positiveInt],
        ["web-max-streams-per-ip", None, 32, "Event streams (spectators, "
         "lobby pages) open from one source address; more are answered "
         "429.  0 for no limit.", _positiveInt],
        ["web-request-rate", None, 20.0, "Web requests per second one "
         "source address may make in the long run; more are answered 429 "
         "(Too Many Requests).  0 for no limit.", _positiveFloat],
        ["web-request-burst", None, 100, "Web requests one address may make "
         "at once before --web-request-rate applies.", _positiveInt],
        ["web-request-overdraft", None, 100, "Web requests past its "
         "--web-request-rate allowance after which an address's connection "
         "is closed, and its new ones refused until it is back within "
         "them; 0 to only answer 429.", _positiveInt],
        ["web-fd-reserve", None, 128, "File descriptors the web port leaves "
         "to the game ports: it refuses connections once the hub's "
         "connections (plus a fixed 64 for its own files) reach the soft "
         "'ulimit -n' less this.  0 for no reserve.", _positiveInt],
        ["trusted-proxies", None, "none", "Reverse proxies in front of the "
         "web face, as addresses or CIDRs, comma-separated (e.g. "
         "127.0.0.1/32,10.0.0.0/8): from them, the client's address is the "
         "one X-Forwarded-For or Forwarded gives and its scheme the one "
         "X-Forwarded-Proto gives; from any other peer those headers are "
         "ignored.  'none' trusts none."],
        ["health-from", None, "private", "Addresses or CIDRs, "
         "comma-separated, that may ask for /healthz and /readyz (on the "
         "web and metrics ports; others get 403): 'private' for loopback "
         "and the private ranges."],
        ["log-level", None, "info", "Least level logged: " +
         ", ".join(LOG_LEVELS) + "."],
        ["log-format", None, "text", "How each log event is written: "
         "text (twistd's lines) or json (one JSON object per line, with "
         "game, room, player and event fields), to twistd's --logfile "
         "(rotated at 1 MB and on SIGUSR1) or standard output."],
        ["db", None, "sqlite:gamehub.sqlite", "Where game records and "
         "ratings are kept: sqlite:PATH, postgresql://user@host/dbname, or "
         "'none'."],
        ["leaderboard-min-games", None, 5, "Rated games a player needs to "
         "appear on a leaderboard.", _positiveInt],
        ["names", None, "accounts", "Whose names are checked: 'open' (any "
         "name, no account consulted), 'accounts' (a registered name needs "
         "its play key, NAME__KEY or NAME#KEY; other names are guests') or "
         "'closed' (registered players only).  Needs --db."],
        ["registration", None, "open", "Who may register on the web face "
         "(with accounts): 'open' (anyone), 'invite' (with an invite code "
         "an admin made) or 'closed' (only the operator's CLI adds "
         "accounts)."],
        ["leaderboard-guests", None, "no", "List guests (names of no "
         "account) on the leaderboards too: yes or no."],
        ["cluster", None, None, "Run as a node of a cluster sharing names, "
         "rooms and tables through Redis at redis://HOST:PORT/DB (see "
         "docs/scaling.md); alone without it."],
        ["node-id", None, None, "This node's name, unique in the cluster "
         "(default: HOSTNAME-PID)."],
        ["node-link", None, "tcp:0:interface=127.0.0.1", "Endpoint on "
         "which the other nodes of the cluster reach this one."],
        ["announce", None, "yes", "Announce this hub on the LAN with "
         "DNS-SD (_gamehub._tcp, its games' ports and web port in TXT): "
         "yes or no."],
        ["engine-sandbox", None, "bwrap", "What tournament engines run "
         "in: bwrap (bubblewrap: their own user, pid and network "
         "namespaces, a read-only system, a private working folder; "
         "apt-get install bubblewrap) or none (limits only: engines have "
         "the hub's rights; a warning at every engine start)."],
    ]

    optFlags = [
        ["checkers-four-players", None,
         "Also start checkers games of four players (regions A B D E); "
         "the same as adding 4 to --checkers-sizes."],
        ["checkers-error-names", None,
         "Checkers ERROR_OP carries the code's name (INVALID_MOVE), as the "
         "official Team 4 server sent it, instead of its number."],
        ["checkers-join-seats", None,
         "Checkers JOIN_ROOM_OP to the other members carries the joiner's "
         "1-based seat in data2 (the Team 1 client needs it)."],
    ]

    def parseOptions(self, options: Optional[Sequence[str]] = None) -> None:
        """
        Parse C{options}; under C{twistd} (as its subcommand) a mistake is
        one line and exit status 1, instead of the whole usage followed by
        the line that matters.

        @raise usage.UsageError: a mistake, when not under C{twistd}.
        @raise SystemExit: a mistake, under C{twistd}.
        """
        try:
            usage.Options.parseOptions(self, options)
        except usage.UsageError as e:
            if getattr(self, "parent", None) is None:
                raise
            raise SystemExit(usageLine(e))

    def postOptions(self) -> None:
        try:
            sizes = checkersSizes(self["checkers-sizes"])
        except ValueError as e:
            raise usage.UsageError("--checkers-sizes: {}".format(e))
        if self["checkers-four-players"]:
            sizes = tuple(sorted(set(sizes) | {4}))
        self["checkers-sizes"] = sizes
        if isinstance(self["announce"], str):
            if self["announce"].strip().lower() not in YES_NO:
                raise usage.UsageError("--announce must be yes or no")
            self["announce"] = YES_NO[self["announce"].strip().lower()]
        if isinstance(self["leaderboard-guests"], str):
            value = self["leaderboard-guests"].strip().lower()
            if value not in YES_NO:
                raise usage.UsageError(
                    "--leaderboard-guests must be yes or no")
            self["leaderboard-guests"] = YES_NO[value]
        if self["names"] not in NAME_MODES:
            raise usage.UsageError(
                "--names must be one of: " + ", ".join(NAME_MODES))
        if self["registration"] not in REGISTRATION_MODES:
            raise usage.UsageError("--registration must be one of: " +
                                   ", ".join(REGISTRATION_MODES))
        if self["takeover"] not in TAKEOVER_CHOICES:
            raise usage.UsageError(
                "--takeover must be one of: " + ", ".join(TAKEOVER_CHOICES))
        if not 1 <= self["bot-level"] <= 3:
            raise usage.UsageError("--bot-level must be 1, 2 or 3")
        if self["bot-workers"] is None:
            from hub.thinkers.pool import cpuCount
            self["bot-workers"] = cpuCount()
        if self["bot-workers"] < 1:
            raise usage.UsageError("--bot-workers must be at least 1")
        self.parseNetworks()
        if self["log-level"] not in LOG_LEVELS:
            raise usage.UsageError(
                "--log-level must be one of: " + ", ".join(LOG_LEVELS))
        if self["log-format"] not in LOG_FORMATS:
            raise usage.UsageError(
                "--log-format must be one of: " + ", ".join(LOG_FORMATS))
        from hub.records.db import POSTGRESQL, BadURL, parseURL
        try:
            url = parseURL(self["db"])
        except BadURL as e:
            raise usage.UsageError(str(e))
        if url is not None and url.dialect is POSTGRESQL:
            extras.require("postgres", "gamehub", extras.POSTGRES_FEATURE)
        if self["engine-sandbox"] not in ENGINE_SANDBOXES:
            raise usage.UsageError("--engine-sandbox must be one of: " +
                                   ", ".join(ENGINE_SANDBOXES))
        if url is None and self["names"] == "closed":
            raise usage.UsageError("--names closed needs the accounts of "
                                   "a --db")
        if self["cluster"] is not None:
            extras.require("cluster", "gamehub", "--cluster")
            from hub.cluster.directory import parseRedisURL
            try:
                parseRedisURL(self["cluster"])
            except ValueError as e:
                raise usage.UsageError("--cluster: {}".format(e))
            if self["node-id"] is None:
                import os
                import socket
                self["node-id"] = "{}-{}".format(socket.gethostname(),
                                                 os.getpid())

    def parseNetworks(self) -> None:
        """
        C{--trusted-proxies} and C{--health-from} as
        L{hub.web.proxies.Networks}.
        """
        from hub.web.proxies import PRIVATE_RANGES, Networks
        for option in ("trusted-proxies", "health-from"):
            value = self[option]
            if isinstance(value, Networks):
                continue
            if option == "health-from" and \
                    value.strip().lower() == "private":
                value = ",".join(PRIVATE_RANGES)
            try:
                self[option] = Networks.fromOption(value)
            except ValueError as e:
                raise usage.UsageError("--{}: {}".format(option, e))

    def door(self, names: Any) -> Any:
        """
        The L{hub.web.door.WebDoor} of the web and metrics ports these
        options ask for, holding to the bans of C{names} (or None).
        """
        from hub.web.door import WebDoor
        from hub.web.proxies import ClientResolver
        self.parseNetworks()
        return WebDoor(ClientResolver(self["trusted-proxies"]),
                       self["health-from"], names)

    def limits(self) -> Limits:
        """
        The L{Limits} these options ask for.
        """
        return Limits(
            maxSendBuffer=self["max-send-buffer"],
            frameSeconds=self["frame-seconds"],
            maxConnections=self["max-connections"],
            maxConnectionsPerIP=self["max-connections-per-ip"],
            requestRate=self["request-rate"],
            requestBurst=self["request-burst"],
            requestOverdraft=self["request-overdraft"])

    def webLimits(self) -> WebLimits:
        """
        The L{WebLimits} of the web port these options ask for.
        """
        return WebLimits(
            maxConnectionsPerIP=self["web-max-connections-per-ip"],
            maxStreamsPerIP=self["web-max-streams-per-ip"],
            requestRate=self["web-request-rate"],
            requestBurst=self["web-request-burst"],
            requestOverdraft=self["web-request-overdraft"],
            descriptorReserve=self["web-fd-reserve"])


def splendorRandom(options: Any) -> Optional[random.Random]:
    """
    The random generator of the Splendor tables: seeded by
    C{--splendor-seed} if given, else None (a fresh one).
    """
    seed = options.get("splendor-seed")
    return None if seed is None else random.Random(seed)


def makeFactories(options: Any, lobby: Any, sessions: Any, clock: Any,
                  thinker: Any = None, names: Any = None) -> Dict[str, Any]:
    """
    One protocol factory per game kind, all over the same lobby and
    sessions, as C{options} set them (L{hub.protocols.factories}).

    @param thinker: the L{hub.ihub.IThinker} of the tables' bots: the
        hub's L{hub.thinkers.pool.BotPool}; None for one that thinks in
        the caller's thread.
    @param names: the name check of the protocols
        (L{hub.accounts.check.NameService}), or None (no names checked).
    @return: a L{dict} mapping the port option name to its factory.
    """
    from hub.protocols.factories import makeFactories as factoriesOf
    takeover = options["takeover"] if options["takeover"] != "none" else None
    sizes = options["checkers-sizes"]
    if isinstance(sizes, str):
        # Options made but never parsed: the default string.
        sizes = checkersSizes(sizes)
    factories = factoriesOf(
        lobby, sessions, clock,
        turnSeconds=options["checkers-turn-seconds"], sizes=sizes,
        maxIllegal=options["gomoku-max-illegal"],
        errorNames=bool(options["checkers-error-names"]),
        joinSeats=bool(options["checkers-join-seats"]),
        rng=splendorRandom(options), takeover=takeover,
        botLevel=options["bot-level"], botDelay=options.get("bot-delay"),
        thinker=thinker, names=names)
    return {kind + "-port": factory for kind, factory in factories.items()}


def playGames(factories: Dict[str, Any]) -> Any:
    """
    The browser play's module of each game kind
    (L{hub.web.play.games.makeGames}), over the start policies of the
    protocols' C{factories} (by port option) and Splendor's seating.
    """
    from hub.web.play.games import makeGames
    return makeGames(
        {port[:-len("-port")]: factory.policy
         for port, factory in factories.items()},
        factories["splendor-port"].seats)


def makeAnnouncer(options: Any, top: IServiceCollection,
                  reactor: Any) -> Any:
    """
    The service announcing the listeners of C{top} on the LAN (the games'
    and, if there is a C{--web-port}, the web pages'), or None with
    C{--announce no}.
    """
    announce = options.get("announce", True)
    if isinstance(announce, str):
        announce = YES_NO.get(announce.strip().lower(), True)
    if not announce:
        return None
    from hub.announce import Announcer
    listeners = {}
    for portOption in GAME_PORTS:
        service = _namedListener(top, portOption)
        if service is not None:
            listeners[portOption[:-len("-port")]] = service
    web = None
    if options.get("web-port") is not None:
        web = _namedListener(top, "web-port")
    announcer = Announcer(reactor, listeners, web)
    announcer.setName("announce")
    return announcer


def dataFolder(database: Optional[str]) -> Tuple[str, List[str]]:
    """
    The hub's data folder (where its engines' logs go) for C{--db
    database}: the SQLite file's folder, else the working directory; and
    the paths no engine may see (the database file, the working
    directory).
    """
    import os
    from hub.records.db import SQLITE, parseURL
    url = parseURL(database)
    here = os.getcwd()
    if url is not None and url.dialect is SQLITE:
        path = os.path.abspath(url.target)
        return os.path.dirname(path), [path, here]
    return here, [here]


def makeExposure(top: IServiceCollection, announce: bool) -> Any:
    """
    The service that logs, first, what the listeners of C{top} expose and
    how to restrict it (see L{hub.exposure}).
    """
    from hub.exposure import Exposure
    listeners = []
    for option in GAME_PORTS + ("web-port", "metrics-port"):
        service = _namedListener(top, option)
        if service is not None:
            listeners.append((option, service))
    exposure = Exposure(listeners, announce)
    exposure.setName("exposure")
    return exposure


def _namedListener(top: IServiceCollection, name: str) -> Any:
    """
    The listener service C{name} of C{top} that can tell its port, or
    None.
    """
    try:
        service = top.getServiceNamed(name)
    except KeyError:
        return None
    return service if IPortListener.providedBy(service) else None


def makeService(options: Any, reactor: Any = None) -> Hub:
    """
    The service tree: the shared services, a listener per enabled
    protocol, and the metrics listener when asked for.
    """
    if reactor is None:
        from twisted.internet import reactor
    twistdOptions = getattr(options, "parent", None)
    logObserver = None
    if twistdOptions is not None and not twistdOptions.get("logger"):
        logObserver = levelFilter(
            hubObserver(twistdOptions, options.get("log-format", "text"),
                        reactor),
            LOG_LEVELS[options["log-level"]])
    top = Hub(reactor, graceSeconds=options["grace-seconds"],
              idleSeconds=options["idle-seconds"], limits=options.limits(),
              drainSeconds=options.get("drain-seconds", 0),
              logObserver=logObserver)
    lobby, sessions = top.lobby, top.sessions
    thinker = makeBotPool(options, top, reactor)
    from hub.records.service import fromOptions
    records = fromOptions(options, reactor, top.clock)
    if records is not None:
        records.setServiceParent(top)
        lobby.addTableListener(records.recorder)
        top.health.addCheck("database", records.databaseProblem)
    cluster = None
    if options.get("cluster") is not None:
        from hub.cluster.service import makeCluster
        cluster = makeCluster(reactor, top, options["cluster"],
                              options["node-id"], options["node-link"])
    from hub.accounts.service import nameService
    names = nameService(
        options, records, top, reactor,
        None if cluster is None else cluster.moderationPublisher())
    if names is not None:
        names.setServiceParent(top)
    factories = makeFactories(options, lobby, sessions, top.clock, thinker,
                              names)
    from hub.metrics import BotsCollector
    collectors = [BotsCollector(thinker)]
    if records is not None:
        collectors.append(records.collector())
    if names is not None:
        collectors.append(names.collector())
    director = None
    if records is not None:
        from hub.tournaments.service import engineLauncher, tournamentService
        data, hidden = dataFolder(options["db"])
        launcher = engineLauncher(reactor, top.clock, factories, data,
                                  options.get("engine-sandbox", "bwrap"),
                                  hidden)
        launcher.setServiceParent(top)
        tournaments = tournamentService(
            records, top,
            {port[:-len("-port")]: factory.policy
             for port, factory in factories.items()}, launcher)
        tournaments.setServiceParent(top)
        director = tournaments.director
    auth = None
    if names is not None and \
            options["web-port"].strip().lower() != DISABLED:
        from hub.web.auth import webAuth
        auth = webAuth(names, top.clock, options["registration"])
        collectors.append(auth.collector())
    games = None
    if options["web-port"].strip().lower() != DISABLED:
        # (Before the cluster wraps the factories.)
        games = playGames(factories)
    directory = None
    if cluster is not None:
        cluster.setName("cluster")
        cluster.setServiceParent(top)
        if names is not None:
            cluster.moderate(names.moderation)
        top.health.addCheck("cluster", cluster.registrationProblem)
        top.onDrain(cluster.withdraw)
        directory = cluster.directory
        factories = {port: cluster.gate(port[:-len("-port")], factory)
                     for port, factory in factories.items()}
    served = [option for option in GAME_PORTS
              if options[option].strip().lower() != DISABLED]
    if not served:
        raise SystemExit("gamehub: every --<game>-port is 'none': nothing "
                         "would be served")
    for portOption in served:
        factory = factories.get(portOption)
        if factory is None:
            raise usage.UsageError(
                "--{} is not served yet; use 'none'".format(portOption))
        service = listener(portOption, options[portOption], factory,
                           reactor)
        service.setServiceParent(top)
        top.onDrain(service.stopAccepting)
    door = options.door(names)
    if options["metrics-port"].strip().lower() != DISABLED:
        from hub.web.site import metricsSite
        site, metrics = metricsSite(top, collectors, options.webLimits(),
                                    door)
        metrics.setServiceParent(top)
        listener("metrics-port", options["metrics-port"], site,
                 reactor).setServiceParent(top)
    if options["web-port"].strip().lower() != DISABLED:
        from hub.web.site import webSite
        from hub.thinkers.shares import BotShares
        shares = BotShares(options.get("max-bots-per-ip", 8),
                           options.get("max-level3-bots-per-ip", 3))
        site, web = webSite(top, records.records if records else None,
                            collectors, options.webLimits(), auth, games,
                            director, directory, thinker, shares, door)
        web.setServiceParent(top)
        listener("web-port", options["web-port"], site,
                 reactor).setServiceParent(top)
    announcer = makeAnnouncer(options, top, reactor)
    makeExposure(top, announcer is not None).setServiceParent(top)
    if announcer is not None:
        announcer.setServiceParent(top)
        top.onDrain(announcer.stopService)
    if twistdOptions is not None:
        reactor.callWhenRunning(freezeHeap)
        trimHeap(top)
        top.onDrain(lambda: stopAgainEndsDrain(top, reactor))
    return top


def makeBotPool(options: Any, hub: Hub, reactor: Any) -> Any:
    """
    The pool of worker processes in which the hub's bots think (a child
    service of C{hub}, on its clock; its workers start once C{reactor}
    runs).
    """
    from hub.thinkers.pool import BotPool, WorkerProcesses, cpuCount
    workers = options.get("bot-workers") or cpuCount()
    pool = BotPool(hub.clock, WorkerProcesses(workers, hub.clock, reactor),
                   queueSize=options.get("bot-queue", 64))
    pool.setName("bots")
    pool.setServiceParent(hub)
    return pool


def trimHeap(hub: Hub) -> None:
    """
    Give the C heap's free pages back to the system now and then
    (L{hub.heap}), where the C library can.  For C{twistd}, not for tests.
    """
    from hub.heap import HeapTrimmer, cHeapTrim
    trim = cHeapTrim()
    if trim is not None:
        trimmer = HeapTrimmer(hub.clock, trim)
        trimmer.setName("heap")
        trimmer.setServiceParent(hub)


#: The cyclic collector's young generation's threshold in the hub
#: (L{freezeHeap}).
GC_YOUNG = 10000


def stopAgainEndsDrain(hub: Hub, reactor: Any) -> None:
    """
    While C{hub} drains, a second SIGTERM or SIGINT ends the drain at once
    (the reactor is stopping already: twistd's own handler would only
    report that).  For C{twistd}, not for tests.
    """
    import signal

    def again(signum: int, frame: Any) -> None:
        reactor.callFromThread(hub.endDrain)
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, again)


def freezeHeap() -> None:
    """
    Move what start-up made (modules, classes, the service tree: objects
    that live as long as the process) out of the cyclic collector's
    reach, so that its full collections walk only what the games make;
    and collect the young generation after L{GC_YOUNG} new objects, not
    700: a move's few objects are mostly gone by then, and far fewer
    reach the older generations (issue 36).  For C{twistd}, not for
    tests, which build many hubs in one process.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG, *gc.get_threshold()[1:])
