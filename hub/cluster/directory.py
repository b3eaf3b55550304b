"""
What the nodes of a cluster share, kept in Redis: which nodes are alive,
the names held, the room directory of each kind, Splendor's open table and
blocks of player ids.

Every key a node owns carries a short time to live that the node renews
(L{ClusterDirectory.refresh}, on the hub's clock), so a node that dies
leaves nothing behind for longer than L{TTL}.  Each renewal writes the
whole of what the node holds, so a Redis that restarted empty is refilled
within one period.

Every call returns a L{Deferred}; one that Redis does not answer within
C{timeout} seconds fails with L{DirectoryUnavailable}, is logged and
counted in C{failures}.
"""

import itertools
import json
import zlib
from typing import (
    Any, Callable, Dict, Iterable, Iterator, List, Optional, Set, Tuple)
from urllib.parse import parse_qs, urlsplit

from twisted.internet import defer
from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.internet.task import LoopingCall
from twisted.logger import Logger
from twisted.python.failure import Failure

from hub.cluster import scripts
from hub.clock import loopingCall
from hub.ihub import Room

#: One key a renewal writes: key, value, index, score, open flag.
Entry = Tuple[str, str, str, Any, str]

# Seconds a node's keys live without renewal, and between renewals.
TTL = 6.0
REFRESH_SECONDS = 2.0
# Seconds a Redis request may take before the directory counts it failed.
TIMEOUT = 2.0
# Player ids taken from Redis at a time.
ID_BLOCK = 1000
# How many entries one renewal script writes.
BATCH = 500
# Seconds the changes of a room already published may wait, to be
# published together with the others (a new room, and every change of a
# Splendor table, whose seat count INIT reads, go out at once).
ROOM_UPDATE_SECONDS = 0.25


class DirectoryUnavailable(Exception):
    """
    Redis did not answer, or answered with an error.
    """


def bestEffort(failure: Failure) -> None:
    """
    The errback of a call whose failure changes nothing: Redis's own
    failure is already logged and counted (L{ClusterDirectory.call});
    any other failure (a bug) goes on.
    """
    failure.trap(DirectoryUnavailable)


def parseRedisURL(url: str) -> Tuple[str, int, int, str, float]:
    """
    Split C{redis://HOST:PORT/DB?prefix=P&ttl=SECONDS} into its parts.

    @return: C{(host, port, db, prefix, ttl)}; the prefix of every key is
        C{"gamehub:"} and the time to live L{TTL} unless the URL says
        otherwise.
    @raise ValueError: for another scheme or a bad number.
    """
    parts = urlsplit(url)
    if parts.scheme != "redis":
        raise ValueError("a cluster URL is redis://HOST:PORT/DB")
    db = int(parts.path.strip("/") or 0)
    query = parse_qs(parts.query)
    prefix = query.get("prefix", ["gamehub:"])[0]
    ttl = float(query.get("ttl", [TTL])[0])
    if ttl <= 0:
        raise ValueError("ttl must be positive")
    return (parts.hostname or "localhost", parts.port or 6379, db, prefix,
            ttl)


def ownerOf(value: str) -> str:
    """
    The node that owns a stored C{value}.
    """
    return value.split("\n", 1)[0]


def dataOf(value: str) -> Any:
    """
    The JSON data stored after the owner in C{value} (C{{}} if none).
    """
    _, _, data = value.partition("\n")
    return json.loads(data) if data else {}


class BlockIds:
    """
    Player ids unique across the cluster, from blocks of L{ID_BLOCK} that
    Redis hands out (C{INCRBY}); the next block is fetched while half the
    current one is left.  Until the first block comes, and if Redis cannot
    give one in time, ids come from a range of this node's own (its name
    hashed into the top bits), so they stay unique in practice.

    An iterator, as L{hub.sessions.Sessions} wants its C{ids}.
    """

    log = Logger()

    def __init__(self, directory: "ClusterDirectory") -> None:
        self.directory = directory
        self._blocks: List[List[int]] = []
        self._fetching = False
        base = (1 + zlib.crc32(directory.node.encode()) % 4095) << 40
        self._fallback = itertools.count(base)

    def __iter__(self) -> Iterator[int]:
        return self

    def __next__(self) -> int:
        blocks = self._blocks
        while blocks and blocks[0][0] > blocks[0][1]:
            blocks.pop(0)
        if sum(hi - lo + 1 for lo, hi in blocks) < ID_BLOCK // 2:
            self.fetch()
        if not blocks:
            return next(self._fallback)
        block = blocks[0]
        value = block[0]
        block[0] += 1
        return value

    def fetch(self) -> None:
        """
        Ask Redis for one more block, unless a request is under way.
        """
        if self._fetching:
            return
        self._fetching = True

        def got(high: int) -> None:
            self._blocks.append([high - ID_BLOCK + 1, high])

        def done(result: object) -> object:
            self._fetching = False
            return result

        d = self.directory.call("incrby", self.directory.key("ids"),
                                ID_BLOCK)
        d.addCallback(got)
        d.addErrback(bestEffort)
        d.addBoth(done)


class ClusterDirectory:
    """
    One node's view of the shared directory.

    @param redis: a C{txredisapi} connection handler (lazy, reconnecting).
    @param clock: the hub's clock, for timeouts and renewals.
    @param node: this node's name.
    @param address: the client endpoint string on which other nodes reach
        this node's link listener (set once it listens).
    @param prefix: the prefix of every key.
    @param summaries: C{{kind: summary(room) -> dict}}, what the room
        directory keeps of a room besides its member count and state.
    @param where: Redis, in words for the log (C{"Redis at HOST:PORT"}).

    @ivar failures: how many Redis requests failed or timed out.
    @ivar registered: whether the last renewal of this node's presence
        was written.
    @ivar withdrawn: True once the node takes no new rooms (a drain,
        L{withdraw}).
    @ivar names: C{{(kind, name): True}} of the names this node holds.
    @ivar rooms: C{{(kind, name): (room, score)}} of the rooms it homes.
    """

    log = Logger()

    def __init__(
            self, redis: Any, clock: IReactorTime, node: str,
            address: Optional[str] = None, prefix: str = "gamehub:",
            summaries: Optional[Dict[str, Callable[[Room], Any]]] = None,
            ttl: float = TTL, refreshSeconds: float = REFRESH_SECONDS,
            timeout: float = TIMEOUT,
            roomUpdateSeconds: float = ROOM_UPDATE_SECONDS,
            where: str = "Redis") -> None:
        self.redis = redis
        self.where = where
        self.clock = clock
        self.node = node
        self.address = address
        self.prefix = prefix
        self.summaries = summaries or {}
        self.ttl = ttl
        self.refreshSeconds = refreshSeconds
        self.timeout = timeout
        self.roomUpdateSeconds = roomUpdateSeconds
        self.failures = 0
        self.registered = False
        self.withdrawn = False
        self.available = True
        self.names: Dict[Tuple[str, str], bool] = {}
        self.rooms: Dict[Tuple[str, str], Tuple[Room, int]] = {}
        self._expected: Set[Tuple[str, str]] = set()
        self._dirty: Set[Tuple[str, str]] = set()
        self._flush: Optional[IDelayedCall] = None
        self._loop: Optional[LoopingCall] = None

    # Keys.

    def key(self, *parts: object) -> str:
        """
        The Redis key of C{parts}, joined with C{:} after the prefix.
        """
        return self.prefix + ":".join(str(p) for p in parts)

    def nameKey(self, kind: str, name: str) -> str:
        return self.key("name", kind, name)

    def roomIndex(self, kind: str) -> str:
        return self.key("rooms", kind)

    def roomKey(self, kind: str, name: str) -> str:
        return self.roomIndex(kind) + ":" + name

    # Calls.

    def call(self, method: str, *args: Any,
             **kwargs: Any) -> "defer.Deferred[Any]":
        """
        Run the C{txredisapi} command C{method}; the result, or a failure
        with L{DirectoryUnavailable} (logged and counted) when Redis fails
        or takes longer than C{timeout}.
        """
        try:
            d = getattr(self.redis, method)(*args, **kwargs)
        except Exception as e:
            d = defer.fail(e)
        d.addTimeout(self.timeout, self.clock)
        d.addCallbacks(self._answered, self._failed,
                       errbackArgs=(method,))
        return d

    def _answered(self, result: object) -> object:
        if not self.available:
            self.available = True
            self.log.info("cluster: {where} answers again; this node "
                          "publishes its names and rooms again",
                          where=self.where)
        return result

    def countFailure(self) -> None:
        """
        Count a request of the cluster's that failed (a Redis request, or
        a link to another node) in L{failures}.
        """
        self.failures += 1

    def _failed(self, failure: Failure, method: str) -> None:
        self.countFailure()
        if failure.check(defer.TimeoutError, defer.CancelledError):
            error = "no answer within {:g} s".format(self.timeout)
        else:
            error = failure.getErrorMessage()
        if self.available:
            self.available = False
            self.log.warn(
                "cluster: {where} is unreachable ({error}); meanwhile this "
                "node keeps serving the rooms it homes, requests that need "
                "the cluster's directory get the protocol's error reply, "
                "and it tries again every {period:g} s",
                where=self.where, error=error, period=self.refreshSeconds)
        else:
            self.log.debug("cluster: {where} still unreachable ({method}: "
                           "{error})", where=self.where, method=method,
                           error=error)
        raise DirectoryUnavailable(error)

    def eval(self, script: str, keys: Iterable[str] = (),
             args: Iterable[object] = ()) -> "defer.Deferred[Any]":
        """
        Run one of L{hub.cluster.scripts}.
        """
        return self.call("eval", script, list(keys),
                         [str(a) for a in args])

    # Life.

    def start(self, address: Optional[str] = None) -> None:
        """
        Announce this node (at C{address}, its link listener's, if given
        now) and renew its keys every C{refreshSeconds}.
        """
        if address is not None:
            self.address = address
        self._loop = loopingCall(self.clock, self.refresh)
        self._loop.start(self.refreshSeconds, now=True)

    def stop(self) -> "defer.Deferred[Any]":
        """
        Stop renewing and remove this node's keys (best effort).
        """
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        if self._flush is not None:
            self._flush.cancel()
            self._flush = None
        releases = [self.eval(scripts.RELEASE, [self.key("node", self.node)],
                              [self.node, ""])]
        for kind, name in list(self.names):
            releases.append(self.releaseName(kind, name))
        for kind, name in list(self.rooms):
            releases.append(self._releaseRoom(kind, name))
        self.names.clear()
        self.rooms.clear()
        return defer.DeferredList(releases, consumeErrors=True)

    def refresh(self) -> "defer.Deferred[Any]":
        """
        Renew (or write again) the node's presence, its names and rooms.
        """
        ttl = int(self.ttl * 1000)
        entries = [(self.key("node", self.node),
                    self.node + "\n" + json.dumps(
                        {"address": self.address}), "", "", "")]
        for kind, name in self.names:
            entries.append((self.nameKey(kind, name), self.node, "", "", ""))
        for (kind, name), (room, score) in self.rooms.items():
            entries.append(self._roomEntry(kind, name, room, score))
        calls = []
        for start in range(0, len(entries), BATCH):
            calls.append(self._publish(entries[start:start + BATCH], ttl,
                                       registering=start == 0))
        d = defer.DeferredList(calls, consumeErrors=True)
        d.addCallback(lambda _: None)
        return d

    def _publish(self, entries: List[Entry], ttl: Optional[int] = None,
                 registering: bool = False) -> "defer.Deferred[Any]":
        if ttl is None:
            ttl = int(self.ttl * 1000)
        args = [self.node, ttl]
        for entry in entries:
            args.extend(entry)
        d = self.eval(scripts.PUBLISH, [], args)

        def conflicts(keys: Optional[List[str]]) -> None:
            if registering and not self.registered:
                self.registered = True
                self.log.info("cluster: registered in {where}",
                              where=self.where)
            for key in keys or ():
                self.log.warn("cluster: {key!r} is held by another node",
                              key=key)

        def failed(failure: Failure) -> None:
            self.log.warn("cluster: rooms and names not registered in "
                          "{where}: {error}", where=self.where,
                          error=failure.getErrorMessage())
            if registering:
                self.registered = False
        d.addCallbacks(conflicts, failed)
        return d

    def withdraw(self) -> "defer.Deferred[Any]":
        """
        Take no new rooms (the node drains): the rooms waiting for a game
        leave the directory, so that joins and Splendor seats go to the
        other nodes, and so does every room of this node whose game ends
        from now on.  The node stays registered, with its names and its
        running rooms, until it stops.

        @return: a Deferred that fires with the number of waiting rooms
            taken out of the directory, once Redis has them out.
        """
        self.withdrawn = True
        released = [self._forget(kind, name)
                    for (kind, name), (room, _) in list(self.rooms.items())
                    if not room.running]
        d = defer.DeferredList(released, consumeErrors=True)
        d.addCallback(len)
        return d

    # Nodes.

    def nodeAddress(self, node: str) -> "defer.Deferred[Optional[str]]":
        """
        The link address of C{node}, or None if it is not alive.
        """
        d = self.call("get", self.key("node", node))
        d.addCallback(lambda v: dataOf(v).get("address") if v else None)
        return d

    # Names.

    def claimName(self, kind: str, name: str) -> "defer.Deferred[str]":
        """
        Hold C{name} of C{kind} for this node if nobody does.

        @return: a L{Deferred} firing with the owner's node name (this
            node's when the claim succeeded or the name was already ours).
        """
        d = self.eval(scripts.CLAIM, [self.nameKey(kind, name)],
                      [self.node, self.node, int(self.ttl * 1000)])
        d.addCallback(ownerOf)
        return d

    def nameClaimed(self, kind: str, name: str) -> None:
        """
        A local session took C{name}: keep it alive.
        """
        self.names[(kind, name)] = True
        if (kind, name) in self._expected:
            self._expected.discard((kind, name))
            d = self.call("set", self.nameKey(kind, name), self.node,
                          pexpire=int(self.ttl * 1000))
            d.addErrback(bestEffort)
        else:
            self._publish([(self.nameKey(kind, name), self.node, "", "",
                            "")])

    def expectName(self, kind: str, name: str) -> None:
        """
        C{name} comes here with its player from another node: the next
        claim of it takes it over.
        """
        self._expected.add((kind, name))

    def nameReleased(self, kind: str, name: str) -> None:
        """
        A local session let C{name} go (a name handed to another node was
        forgotten first, see L{handOverName}).
        """
        if self.names.pop((kind, name), None):
            self.releaseName(kind, name)

    def handOverName(self, kind: str, name: str) -> None:
        """
        C{name} moves to another node with its player: stop renewing it
        without releasing it.
        """
        self.names.pop((kind, name), None)

    def releaseName(self, kind: str, name: str) -> "defer.Deferred[Any]":
        """
        Let C{name} of C{kind} go if this node holds it (best effort).

        @return: a L{Deferred} that fires when Redis has answered.
        """
        d = self.eval(scripts.RELEASE, [self.nameKey(kind, name)],
                      [self.node, ""])
        d.addErrback(bestEffort)
        return d

    # Rooms.

    def _roomEntry(self, kind: str, name: str, room: Room,
                   score: int) -> Entry:
        summary = self.summaries.get(kind)
        data: Dict[str, Any] = {"n": len(room.members),
                                "running": room.running}
        if summary is not None and room.members:
            data["info"] = summary(room)
        opened = ""
        if kind == "splendor":
            opened = "0" if room.running or room.full else "1"
        return (self.roomKey(kind, name),
                self.node + "\n" + json.dumps(data, sort_keys=True),
                self.roomIndex(kind), score, opened)

    def claimRoom(self, kind: str, name: str) -> "defer.Deferred[str]":
        """
        Reserve the room C{name} of C{kind} for this node if no node homes
        it.

        @return: a L{Deferred} firing with the home node's name.
        """
        value = self.node + "\n" + json.dumps({"n": 0, "running": False})
        d = self.eval(scripts.CLAIM, [self.roomKey(kind, name)],
                      [self.node, value, int(self.ttl * 1000)])
        d.addCallback(ownerOf)
        return d

    def lookupRoom(self, kind: str,
                   name: str) -> "defer.Deferred[Optional[str]]":
        """
        The home node of the room C{name} of C{kind}, or None.
        """
        d = self.call("get", self.roomKey(kind, name))
        d.addCallback(lambda v: ownerOf(v) if v else None)
        return d

    def releaseRoom(self, kind: str, name: str) -> None:
        """
        Drop a reservation made by L{claimRoom} for a room that was not
        made after all.
        """
        if (kind, name) not in self.rooms:
            self._releaseRoom(kind, name)

    def _releaseRoom(self, kind: str,
                     name: str) -> "defer.Deferred[Any]":
        d = self.eval(scripts.RELEASE, [self.roomKey(kind, name)],
                      [self.node, self.roomIndex(kind)])
        d.addErrback(bestEffort)
        return d

    def roomChanged(self, room: Room) -> None:
        """
        A room of this node was made or changed: publish it once the
        current events are over (several changes in one go are published
        together, when the adapter has set the room up).  The changes of
        a room already published wait up to C{roomUpdateSeconds}, so that
        the rooms changed meanwhile go out in one script.
        """
        key = (room.kind, room.name)
        known = self.rooms.get(key)
        if self.withdrawn and not room.running:
            if known is not None and known[0] is room:
                self._forget(room.kind, room.name)
            return
        urgent = room.kind == "splendor"
        if known is None or known[0] is not room:
            known = (room, int(self.clock.seconds() * 1000))
            self.rooms[key] = known
            urgent = True
        self._dirty.add(key)
        delay = 0 if urgent else self.roomUpdateSeconds
        if self._flush is None:
            self._flush = self.clock.callLater(delay, self.flush)
        elif urgent and self._flush.getTime() > self.clock.seconds():
            self._flush.reset(0)

    def flush(self) -> None:
        """
        Publish the rooms changed since the last flush.
        """
        self._flush = None
        dirty, self._dirty = self._dirty, set()
        entries: List[Entry] = []
        for kind, name in dirty:
            known = self.rooms.get((kind, name))
            if known is not None:
                entries.append(self._roomEntry(kind, name, *known))
        for start in range(0, len(entries), BATCH):
            self._publish(entries[start:start + BATCH])

    def roomClosed(self, room: Room) -> None:
        """
        A room of this node closed: remove it from the directory.
        """
        known = self.rooms.get((room.kind, room.name))
        if known is not None and known[0] is room:
            self._forget(room.kind, room.name)

    def _forget(self, kind: str, name: str) -> "defer.Deferred[Any]":
        del self.rooms[(kind, name)]
        self._dirty.discard((kind, name))
        return self._releaseRoom(kind, name)

    def listRooms(self,
                  kind: str) -> "defer.Deferred[List[Dict[str, Any]]]":
        """
        Every room of C{kind} in the cluster, oldest first: its member
        count C{n}, C{running}, its summary C{info} (if its kind has one)
        and its home C{node}.
        """
        d = self.eval(scripts.LIST, [self.roomIndex(kind)],
                      [self.roomIndex(kind) + ":"])
        d.addCallback(lambda values: [dict(dataOf(v), node=ownerOf(v))
                                      for v in values or ()])
        return d

    def seat(self, kind: str, capacity: int,
             ) -> "defer.Deferred[Optional[Tuple[str, str]]]":
        """
        Take a seat at the newest open room of C{kind} in the cluster.

        @return: a L{Deferred} firing with C{(name, homeNode)} or None.
        """
        d = self.eval(scripts.SEAT, [self.roomIndex(kind) + ":open"],
                      [self.roomIndex(kind) + ":", self.key("node") + ":",
                       capacity])
        d.addCallback(lambda found: tuple(found) if found else None)
        return d
