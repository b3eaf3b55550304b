"""
The limits that hold the hub under abuse, shared by every protocol: how
much a connection may be owed, how long a frame may stay half-received,
how many connections there may be (in all and per address) and how fast
a connection may send requests.

L{Limits} is the configuration; L{ConnectionGate} counts the live
connections against it; L{RequestBucket} meters one connection's
requests; L{hub.connection.ServerConnection} applies them all.  The web
port's caps are L{WebLimits}, counted by a L{FaceGate} toward the hub's
gate, with a reserve of file descriptors (L{DescriptorBudget}) for the
game ports.  A limit of 0 is no limit, and L{Limits}C{()} has none.
What each limit does, its default and its metric: docs/operations.md,
"Limits".
"""

import collections
import resource
from typing import Any, Dict, List, Optional, Tuple

import attr
from prometheus_client import Counter
from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.logger import Logger, LogLevel

#: Connections closed or refused by a limit, by limit.
LIMITED_CONNECTIONS = Counter(
    "gamehub_limited_connections",
    "Connections closed or refused by a limit.", ["limit"], registry=None)

#: Times a connection sending faster than its request rate was paused.
THROTTLED_CONNECTIONS = Counter(
    "gamehub_throttled_connections",
    "Times a connection's reading was paused for its request rate.",
    registry=None)

#: Times a listening port stopped accepting under a flood of refused
#: connections (L{AcceptPause}).
ACCEPT_PAUSES = Counter(
    "gamehub_accept_pauses",
    "Times a listening port paused accepting under a connection flood.",
    registry=None)

#: The values of L{LIMITED_CONNECTIONS}'s C{limit} label.
SEND_BUFFER = "max-send-buffer"
FRAME_SECONDS = "frame-seconds"
REQUEST_RATE = "request-rate"
MAX_CONNECTIONS = "max-connections"
MAX_CONNECTIONS_PER_IP = "max-connections-per-ip"
WEB_MAX_CONNECTIONS_PER_IP = "web-max-connections-per-ip"
WEB_MAX_STREAMS_PER_IP = "web-max-streams-per-ip"
WEB_REQUEST_RATE = "web-request-rate"
WEB_FD_RESERVE = "web-fd-reserve"
#: A WebSocket message in more frames than C{hub.web.ws.MAX_FRAMES}: a
#: limit of the protocol's, not an option.
WS_MESSAGE_FRAMES = "ws-message-frames"
#: The labels that name no option.
NOT_OPTIONS = frozenset({WS_MESSAGE_FRAMES})

#: Web requests answered 429 for their address's request rate.
THROTTLED_REQUESTS = Counter(
    "gamehub_web_throttled_requests",
    "Web requests answered 429 (Too Many Requests) for their address's "
    "rate.", registry=None)

#: File descriptors a hub holds besides its connections: standard
#: streams, the listening ports, the reactor's own, log files, the
#: records database, the LAN announcer, with room to spare.
DESCRIPTOR_OVERHEAD = 64

#: Seconds between two log lines about one limit's refusals or closes.
LOG_INTERVAL = 10.0

#: Connections from addresses in flooding debt refused on one listening
#: port within L{ACCEPT_PAUSE} seconds past which the port stops accepting
#: for L{ACCEPT_PAUSE} seconds (L{AcceptPause}): a flooder that connects
#: again as soon as it is refused then waits in the listen backlog instead
#: of costing the hub an accept, and the other players a reactor turn,
#: each time.  Players connecting in that time are answered after it.
REFUSALS_BEFORE_PAUSE = 20

#: Seconds of one L{AcceptPause} (and of the window its refusals are
#: counted in).
ACCEPT_PAUSE = 0.25

#: Addresses whose flooding debt is remembered at most (the oldest is
#: forgotten first).
MAX_DEBTORS = 10000

#: Lines about joins, registrations and drops of one kind written per
#: L{LOG_INTERVAL} before the rest are only counted: a line each is worth
#: having while they are few, and past two a second a count says as
#: much at no cost.
LOG_BURST = 20


@attr.s(frozen=True)
class Limits:
    """
    The limits of one hub; 0 turns a limit off.

    @ivar maxSendBuffer: bytes a connection may be owed (written by the
        hub, not yet taken by its socket) before it is closed.
    @ivar frameSeconds: seconds a connection may hold a frame begun but
        not finished before it is closed.
    @ivar maxConnections: connections in all, over every protocol.
    @ivar maxConnectionsPerIP: connections from one source address.
    @ivar requestRate: frames per second a connection may send in the
        long run; a faster one stops being read until it is back within
        its rate.
    @ivar requestBurst: frames a connection may send at once.
    @ivar requestOverdraft: frames past its allowance after which a
        connection is closed instead of slowed.
    """

    maxSendBuffer = attr.ib(default=0)
    frameSeconds = attr.ib(default=0)
    maxConnections = attr.ib(default=0)
    maxConnectionsPerIP = attr.ib(default=0)
    requestRate = attr.ib(default=0)
    requestBurst = attr.ib(default=0)
    requestOverdraft = attr.ib(default=0)


@attr.s(frozen=True)
class WebLimits(Limits):
    """
    The limits of the web port (L{FaceGate}); 0 turns a limit off.  Its
    connections count toward the hub's C{maxConnections} too.

    @ivar maxConnectionsPerIP: web connections from one address.
    @ivar requestRate: web requests per second one address may make in
        the long run; the others are answered 429.
    @ivar requestBurst: web requests an address may make at once.
    @ivar requestOverdraft: requests past its allowance after which an
        address's connection is closed, and its new ones refused until
        the rate has paid the debt back within it.
    @ivar maxStreamsPerIP: event streams open from one address.
    @ivar descriptorReserve: file descriptors the web port leaves to the
        game ports: it accepts only while the hub's connections, plus
        L{DESCRIPTOR_OVERHEAD}, are fewer than the process's soft limit
        (C{ulimit -n}) less this reserve.
    """

    maxStreamsPerIP = attr.ib(default=0)
    descriptorReserve = attr.ib(default=0)


class SummaryLog:
    """
    Log lines that could come once per connection or per request (a
    refusal, a close, a join), at most C{burst} per L{LOG_INTERVAL} per
    kind: the first C{burst} at once, then one line at the end of the
    interval counting the others.  Below that rate it costs no timer.

    @param clock: an L{IReactorTime} for the intervals.
    @param log: the L{Logger} to write to.
    @param interval: seconds of one interval.
    @param burst: lines of one kind written in an interval.
    @param level: the L{LogLevel} of the lines.
    """

    def __init__(self, clock: IReactorTime, log: Logger,
                 interval: float = LOG_INTERVAL, burst: int = 1,
                 level: LogLevel = LogLevel.info) -> None:
        self.clock = clock
        self.log = log
        self.interval = interval
        self.burst = burst
        self.level = level
        self._windows: Dict[str, List[Any]] = {}

    def note(self, kind: str, format: str, /, **fields: Any) -> None:
        """
        Log C{format} (with C{fields}) at C{level} now, unless C{burst}
        lines of this C{kind} were logged in the current interval: then
        count it for the interval's summary, "C{N} more C{kind} in the
        last ...".  (C{kind} is positional only, so that a field may
        have that name too.)
        """
        now = self.clock.seconds()
        window = self._windows.get(kind)
        if window is None or (window[3] is None
                              and now - window[0] >= self.interval):
            # [start, lines written, lines held, summary call]
            window = self._windows[kind] = [now, 0, 0, None]
        if window[1] < self.burst:
            window[1] += 1
            self.log.emit(self.level, format, **fields)
            return
        window[2] += 1
        if window[3] is None:
            window[3] = self.clock.callLater(
                max(0, window[0] + self.interval - now),
                self._summarise, kind)

    def flush(self) -> None:
        """
        Write the summaries of the intervals under way now and cancel
        their timers (the hub is stopping).
        """
        for kind, window in list(self._windows.items()):
            if window[3] is not None:
                window[3].cancel()
                self._summarise(kind)

    def _summarise(self, kind: str) -> None:
        window = self._windows.pop(kind)
        self.log.emit(self.level, "{count} more {kind} in the last "
                      "{seconds:g}s", count=window[2], kind=kind,
                      seconds=self.interval, event="summary")


class ConnectionGate:
    """
    Counts the live connections of all protocols, in all and per source
    address, against L{Limits.maxConnections} and
    L{Limits.maxConnectionsPerIP}.

    @param limits: the L{Limits}.
    @param clock: an L{IReactorTime} for the summarised log lines.
    @ivar connections: live connections admitted.
    """

    log = Logger()

    #: What L{refuses} says an address in debt sent too many of, and the
    #: limit it counts the refusal under.
    unit = "frames"
    rateLimit = REQUEST_RATE

    def __init__(self, limits: Limits, clock: IReactorTime) -> None:
        self.limits = limits
        self.clock = clock
        self.summary = SummaryLog(clock, self.log)
        self.connections = 0
        self._perHost: "collections.Counter[str]" = collections.Counter()
        self._debts: Dict[Optional[str], RequestBucket] = {}

    def admit(self, host: Optional[str]) -> Optional[str]:
        """
        Count a new connection from C{host} (an address string, or None
        when the transport has none), unless a limit is reached.

        @return: None if admitted, else the name of the limit reached.
        """
        limits = self.limits
        if limits.maxConnections and \
                self.connections >= limits.maxConnections:
            return MAX_CONNECTIONS
        if (limits.maxConnectionsPerIP and host is not None
                and self._perHost[host] >= limits.maxConnectionsPerIP):
            return MAX_CONNECTIONS_PER_IP
        self.connections += 1
        if host is not None:
            self._perHost[host] += 1
        return None

    def release(self, host: Optional[str]) -> None:
        """
        An admitted connection from C{host} is gone.
        """
        self.connections -= 1
        if host is not None:
            self._perHost[host] -= 1
            if self._perHost[host] <= 0:
                del self._perHost[host]

    def bucketFor(self, host: Optional[str]) -> "RequestBucket":
        """
        The L{RequestBucket} of a new connection from C{host}: a full one,
        unless a connection from C{host} was closed for flooding and its
        debt is not yet paid back (at C{requestRate}); then the new
        connection inherits the debt, so that connecting again does not
        buy a flooder a new burst (and while the debt is past the
        overdraft, the connection is closed at once: L{RequestBucket.
        overdrawn}).
        """
        bucket = RequestBucket(self.limits, self.clock)
        debt = self._debts.pop(host, None)
        if debt is not None:
            debt._refill()
            if debt.tokens < 0:
                bucket.tokens = debt.tokens
                self._debts[host] = debt
        return bucket

    def refuses(self, host: Optional[str], peer: object = None,
                owing: bool = False) -> bool:
        """
        Whether a new connection from C{host} is to be refused before it
        has a protocol: its address flooded, and its debt is still past
        the overdraft (so L{bucketFor} would give it an overdrawn bucket),
        or with C{owing}, not yet paid back at all.  A refusal is counted
        and logged, summarised, as the close of such a connection is.

        @param peer: the connection's address, for the log line.
        """
        debt = self._debts.get(host)
        if debt is None or not (debt.owing() if owing
                                else debt.overdrawn()):
            return False
        self.limited(self.rateLimit, peer if peer is not None else host,
                     "its address is over {:g} {} a second".format(
                         debt.rate, self.unit))
        return True

    def flooded(self, host: Optional[str], bucket: "RequestBucket") -> None:
        """
        A connection from C{host} is being closed for flooding, with
        C{bucket} in debt: remember the debt for the next connections
        from C{host} (for at most L{MAX_DEBTORS} addresses).
        """
        if host is None:
            return
        self._debts.pop(host, None)
        self._debts[host] = bucket
        while len(self._debts) > MAX_DEBTORS:
            del self._debts[next(iter(self._debts))]

    def limited(self, limit: str, peer: object, why: str) -> None:
        """
        A connection from C{peer} was refused or closed by C{limit}
        (C{why} says how): count it, and log it, summarised.
        """
        LIMITED_CONNECTIONS.labels(limit).inc()
        option = "" if limit in NOT_OPTIONS else "--"
        self.summary.note(
            "connections closed by " + option + limit,
            "closing {peer}: {why} ({option}{limit})", peer=peer, why=why,
            option=option, limit=limit, event="closed")


class RequestBucket:
    """
    A token bucket over one connection's frames: it holds up to
    C{burst} tokens, gains C{rate} a second, and each frame takes one.
    A frame that finds it empty is still handled, and puts the bucket in
    debt.

    @param limits: the L{Limits} (C{requestRate}, C{requestBurst},
        C{requestOverdraft}); a C{requestRate} of 0 is never in debt.
    @param clock: an L{IReactorTime}.
    """

    def __init__(self, limits: Limits, clock: IReactorTime) -> None:
        self.rate = limits.requestRate
        self.burst = max(1, limits.requestBurst)
        self.overdraft = limits.requestOverdraft
        self.clock = clock
        self.tokens = float(self.burst)
        self._at = clock.seconds()

    def _refill(self) -> None:
        now = self.clock.seconds()
        self.tokens = min(self.burst,
                          self.tokens + (now - self._at) * self.rate)
        self._at = now

    def take(self, count: float = 1) -> bool:
        """
        Take a token for one frame (or C{count} tokens).

        @return: True if the connection is past its overdraft (it should
            be closed).
        """
        if not self.rate:
            return False
        self._refill()
        self.tokens -= count
        return bool(self.overdraft) and -self.tokens > self.overdraft

    def overdraw(self) -> None:
        """
        Put the bucket past its overdraft, if it is not already: its
        connection broke a limit only a flood breaks (a WebSocket message
        in too many frames), and is treated as a flooder.
        """
        if self.rate:
            self._refill()
            self.tokens = min(self.tokens, -float(self.overdraft) - 1)

    def owing(self) -> bool:
        """
        Whether the bucket is in debt now.
        """
        if not self.rate:
            return False
        self._refill()
        return self.tokens < 0

    def overdrawn(self) -> bool:
        """
        Whether the bucket is past its overdraft now (one more frame, and
        L{take} would say so too).
        """
        if not (self.rate and self.overdraft):
            return False
        self._refill()
        return -self.tokens > self.overdraft

    def wait(self) -> float:
        """
        Seconds until the bucket is out of debt (0 if it is not).
        """
        if not self.rate:
            return 0
        self._refill()
        return max(0.0, -self.tokens / self.rate)


class AcceptPause:
    """
    Stops the listening ports of one factory from accepting for
    C{seconds} once C{threshold} connections were refused within
    C{seconds}: a connection flood from addresses the hub refuses anyway
    then waits in the kernel's listen backlog instead of being accepted
    and closed, one reactor turn after another, between the players'
    messages.

    @param clock: an L{IReactorTime} for the pauses (the hub's tracked
        clock, so that stopping the hub cancels them).
    @param threshold: refusals within C{seconds} that pause the ports;
        0 never pauses.
    @param seconds: how long a pause lasts.
    @ivar ports: the L{IListeningPort}s paused together (with
        C{stopReading} and C{startReading}, as L{twisted.internet.tcp.
        Port} has).
    @ivar pauses: how many pauses there were.
    """

    def __init__(self, clock: IReactorTime,
                 threshold: int = REFUSALS_BEFORE_PAUSE,
                 seconds: float = ACCEPT_PAUSE) -> None:
        self.clock = clock
        self.threshold = threshold
        self.seconds = seconds
        self.ports: List[Any] = []
        self.pauses = 0
        self._windowStart: Optional[float] = None
        self._refused = 0
        self._resume: Optional[IDelayedCall] = None

    @property
    def paused(self) -> bool:
        """
        True while the ports do not accept.
        """
        return self._resume is not None

    def refused(self) -> None:
        """
        A connection was refused: count it, and pause the ports if it is
        one refusal too many for the window.
        """
        if not (self.threshold and self.ports) or self.paused:
            return
        now = self.clock.seconds()
        if self._windowStart is None or \
                now - self._windowStart >= self.seconds:
            self._windowStart, self._refused = now, 0
        self._refused += 1
        if self._refused < self.threshold:
            return
        self._windowStart = None
        self.pauses += 1
        ACCEPT_PAUSES.inc()
        for port in self.ports:
            stop = getattr(port, "stopReading", None)
            if stop is not None:
                stop()
        self._resume = self.clock.callLater(self.seconds, self._resumePorts)

    def _resumePorts(self) -> None:
        self._resume = None
        for port in self.ports:
            # A port that stopped listening meanwhile stays closed.
            if getattr(port, "connected", False) and \
                    not getattr(port, "disconnecting", False):
                port.startReading()


class DescriptorBudget:
    """
    The file descriptors of the process (its soft C{RLIMIT_NOFILE}, read
    once, when the budget is made) less a reserve: what a secondary face
    (the web port) may use, so that the game ports always have the
    reserve to accept players with.  Open descriptors are counted
    cheaply, as the hub's connections plus L{DESCRIPTOR_OVERHEAD}.

    @param reserve: descriptors kept for the game ports; 0 keeps none.
    @param softLimit: the descriptors the process may open (default: its
        soft C{RLIMIT_NOFILE}); C{RLIM_INFINITY} for no limit.
    @param overhead: descriptors the hub holds besides its connections.
    """

    def __init__(self, reserve: int, softLimit: Optional[int] = None,
                 overhead: int = DESCRIPTOR_OVERHEAD) -> None:
        if softLimit is None:
            softLimit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        if softLimit == resource.RLIM_INFINITY:
            softLimit = None
        self.reserve = reserve
        self.softLimit = softLimit
        self.overhead = overhead

    def connections(self) -> Optional[int]:
        """
        How many connections the hub may hold while the face still
        accepts, or None for no limit.
        """
        if not self.reserve or self.softLimit is None:
            return None
        return max(0, self.softLimit - self.reserve - self.overhead)

    def allows(self, connections: int) -> bool:
        """
        Whether one more descriptor may go to the face while the hub holds
        C{connections} connections.
        """
        most = self.connections()
        return most is None or connections < most


class FaceGate(ConnectionGate):
    """
    The L{ConnectionGate} of a secondary face of the hub (the web port):
    its connections count toward the hub gate's C{maxConnections} (not
    toward the game ports' per-address cap: they have their own, in
    C{limits}); it admits none while the hub's descriptors are short of
    the L{DescriptorBudget}; it meters requests per address (not per
    connection: a client may open several) and counts event streams per
    address.  Its log lines are summarised with the hub gate's.

    @param limits: the L{WebLimits}.
    @param clock: an L{IReactorTime}.
    @param hubGate: the hub's L{ConnectionGate}.
    @param budget: the L{DescriptorBudget}, or None for a budget of the
        process's soft limit less C{limits.descriptorReserve}.
    """

    unit = "requests"
    rateLimit = WEB_REQUEST_RATE
    limits: WebLimits

    def __init__(self, limits: WebLimits, clock: IReactorTime,
                 hubGate: ConnectionGate,
                 budget: Optional[DescriptorBudget] = None) -> None:
        ConnectionGate.__init__(self, limits, clock)
        self.hubGate = hubGate
        self.summary = hubGate.summary
        if budget is None:
            budget = DescriptorBudget(limits.descriptorReserve)
        self.budget = budget
        self._streams: "collections.Counter[str]" = collections.Counter()

    def admit(self, host: Optional[str]) -> Optional[str]:
        """
        Count a new connection from C{host}, unless the descriptors are
        short, or C{host} has its C{maxConnectionsPerIP}, or the hub its
        C{maxConnections}.

        @return: None if admitted, else the name of the limit reached.
        """
        if not self.budget.allows(self.hubGate.connections):
            return WEB_FD_RESERVE
        refused = ConnectionGate.admit(self, host)
        if refused is not None:
            return WEB_MAX_CONNECTIONS_PER_IP
        refused = self.hubGate.admit(None)
        if refused is not None:
            ConnectionGate.release(self, host)
        return refused

    def release(self, host: Optional[str]) -> None:
        """
        An admitted connection from C{host} is gone.
        """
        ConnectionGate.release(self, host)
        self.hubGate.release(None)

    def claim(self, host: Optional[str]) -> bool:
        """
        A connection admitted without an address (a trusted proxy's, which
        carries many clients' requests) becomes the one client C{host}'s
        (its WebSocket): count it toward C{host}'s C{maxConnectionsPerIP}
        from now on, unless C{host} has its cap (then count and log the
        refusal).

        @return: True if counted (L{release} of C{host} frees it).
        """
        cap = self.limits.maxConnectionsPerIP
        if host is None:
            return True
        if cap and self._perHost[host] >= cap:
            self.limited(WEB_MAX_CONNECTIONS_PER_IP, host,
                         "{} connections open".format(cap))
            return False
        self._perHost[host] += 1
        return True

    def unclaim(self, host: Optional[str]) -> None:
        """
        Take back a L{claim} of C{host} (the connection stays admitted,
        without an address).
        """
        if host is None:
            return
        self._perHost[host] -= 1
        if self._perHost[host] <= 0:
            del self._perHost[host]

    # Narrower than ConnectionGate.refuses: no owing (it owes always).
    def refuses(  # type: ignore[override]
            self, host: Optional[str], peer: object = None) -> bool:
        """
        Whether a new connection from C{host} is to be refused before it
        has a protocol: its address is past its overdraft of web requests,
        or was cut for flooding a game port or C{/ws} and still owes the
        hub gate (an address that flooded one door is refused at this one
        until it has paid its debt back: each connection it made would
        cost an HTTP request and a WebSocket handshake, to be cut at its
        first frame).
        """
        return (ConnectionGate.refuses(self, host, peer)
                or self.hubGate.refuses(host, peer, owing=True))

    def request(self, host: Optional[str],
                ) -> Optional[Tuple[float, bool]]:
        """
        Take a token from C{host}'s request bucket for one request (the
        bucket is remembered, for at most L{MAX_DEBTORS} addresses).

        @return: None if the request is within the rate; else the seconds
            until it would be, and whether C{host} is past its overdraft
            (its connection should close: L{refuses} refuses its new ones
            meanwhile).
        """
        if not self.limits.requestRate or host is None:
            return None
        bucket = self._bucketOf(host)
        overdrawn = bucket.take()
        if bucket.tokens >= 0:
            return None
        THROTTLED_REQUESTS.inc()
        return bucket.wait(), overdrawn

    def charge(self, host: Optional[str], tokens: float) -> None:
        """
        Take C{tokens} more from C{host}'s request bucket: its request
        cost as much as that many more (a large document).  Its next
        requests wait for them, or are refused past the overdraft.
        """
        if not self.limits.requestRate or host is None or tokens <= 0:
            return
        self._bucketOf(host).take(tokens)

    def _bucketOf(self, host: str) -> RequestBucket:
        # The bucket of host, now the most recently used (a bounded dict,
        # the oldest forgotten first).
        debts = self._debts
        bucket = debts.pop(host, None)
        if bucket is None:
            bucket = RequestBucket(self.limits, self.clock)
        debts[host] = bucket
        while len(debts) > MAX_DEBTORS:
            del debts[next(iter(debts))]
        return bucket

    def openStream(self, host: Optional[str]) -> bool:
        """
        Count an event stream from C{host}, unless it has its
        C{maxStreamsPerIP} (then count and log the refusal).

        @return: True if counted.
        """
        cap = self.limits.maxStreamsPerIP
        if cap and host is not None and self._streams[host] >= cap:
            self.limited(WEB_MAX_STREAMS_PER_IP, host,
                         "{} event streams open".format(cap))
            return False
        if host is not None:
            self._streams[host] += 1
        return True

    def closeStream(self, host: Optional[str]) -> None:
        """
        A stream counted by L{openStream} ended.
        """
        if host is None:
            return
        self._streams[host] -= 1
        if self._streams[host] <= 0:
            del self._streams[host]
