"""
One lobby for every game kind.

A L{Room} has a game kind, members in join order, an owner, ready flags,
per-member seat data, an optional password, a capacity, a start policy
(L{IStartPolicy}) and, while playing, a game (L{IGameRules}).

Protocol adapters call L{Lobby} and hear back through L{IRoomObserver}:
every event is told to the observer of every member of the room, the
member that caused it included (as C{actor}); a member that leaves is
told nothing more; the others have been told before the call returns.
How an adapter is wired, the convention every protocol follows:
docs/architecture.md, "The layers" (C{hub/sessions.py} and
C{hub/lobby.py}).
"""

from __future__ import annotations

from typing import (
    Any, Callable, Dict, FrozenSet, Iterable, List, Optional, Protocol, Tuple)

import attr
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger
from zope.interface import implementer

from hub.ihub import (
    IGameRules, ILobby, IPeer, IRoomObserver, ISession, IStartPolicy, ITable,
    ITableListener)
from hub.limits import LOG_BURST, SummaryLog


class LobbyError(Exception):
    """
    A lobby operation was refused; the subclass says why.
    """


class AlreadyInRoom(LobbyError):
    """
    The session is already a member of a room.
    """


class NotInRoom(LobbyError):
    """
    The session is not a member of any room.
    """


class RoomExists(LobbyError):
    """
    A room of that kind and name exists.
    """


class RoomNotFound(LobbyError):
    """
    No room of that kind and name exists.
    """


class RoomRunning(LobbyError):
    """
    The room's game is under way.
    """


class NameInRoom(LobbyError):
    """
    A member of the room already has that name.
    """


class RoomFull(LobbyError):
    """
    The room has as many members as its capacity.
    """


class WrongPassword(LobbyError):
    """
    The room has a password and another was given.
    """


class CannotStart(LobbyError):
    """
    The room's start policy does not allow a start now.
    """


class Draining(LobbyError):
    """
    The hub is draining before it stops: no new room, member or game.
    """


class RoomWatcher(Protocol):
    """
    What L{Lobby.addWatcher} tells of every room (the cluster's room
    directory).
    """

    def roomChanged(self, room: Room) -> object:
        ...

    def roomClosed(self, room: Room) -> object:
        ...


@implementer(IRoomObserver)
class RoomObserver:
    """
    An L{IRoomObserver} that ignores every event: adapters subclass it and
    override the events they turn into messages.
    """

    def memberJoined(self, room: Room, actor: Member) -> None:
        pass

    def memberLeft(self, room: Room, actor: Member,
                   previousOwner: Optional[Member]) -> None:
        pass

    def readyChanged(self, room: Room, actor: Member) -> None:
        pass

    def roleChanged(self, room: Room, actor: Member) -> None:
        pass

    def gameStarted(self, room: Room) -> None:
        pass

    def gameEnded(self, room: Room, game: IGameRules) -> None:
        pass


@implementer(IPeer)
class HubRunPeer:
    """
    The L{IPeer} of a member the hub runs itself (a bot, an engine): no
    client connection, so no address to ban and nothing to close.
    """

    def peerAddress(self) -> Optional[str]:
        return None

    def connectionOpen(self) -> bool:
        return False

    def closeConnection(self) -> None:
        pass


@attr.s(eq=False, repr=False)
class Member:
    """
    A session's place in a room.

    @ivar session: the L{hub.sessions.Session}.
    @ivar observer: the L{IRoomObserver} told of the room's events.
    @ivar ready: the ready flag.
    @ivar seat: the member's seat number at the running table, or None;
        set by the table's start policy.
    @ivar role: what the adapter keeps per member (a gomoku colour...).
    """

    session: ISession = attr.ib()
    observer: IRoomObserver = attr.ib()
    ready: bool = attr.ib(default=False)
    seat: Optional[int] = attr.ib(default=None)
    role: Any = attr.ib(default=None)

    @property
    def name(self) -> Optional[str]:
        """
        The member's player name.
        """
        name: Optional[str] = self.session.name
        return name

    def __repr__(self) -> str:
        return "<Member {!r} ready={}>".format(self.name, self.ready)


@attr.s(eq=False, repr=False)
class Room:
    """
    A room of one game kind.

    @ivar table: the running table (L{hub.ihub.ITable}), or None.
    @ivar settings: room-wide data the adapter keeps (gomoku's owner
        colour, for instance).
    @ivar owner: the L{Member} owning the room (the first one to join, then
        the longest-present member after the owner leaves), None when empty.
    """

    kind: str = attr.ib()
    name: str = attr.ib()
    policy: IStartPolicy = attr.ib()
    capacity: int = attr.ib()
    password: str = attr.ib(default="")
    members: List[Member] = attr.ib(factory=list)
    owner: Optional[Member] = attr.ib(default=None)
    table: Optional[ITable] = attr.ib(default=None)
    settings: Dict[str, Any] = attr.ib(factory=dict)

    def __repr__(self) -> str:
        return "<Room {} {!r} {}>".format(
            self.kind, self.name, [m.name for m in self.members])

    @property
    def game(self) -> Optional[IGameRules]:
        """
        The rules object of the running table, or None.
        """
        return self.table.game if self.table is not None else None

    @property
    def running(self) -> bool:
        """
        True while a game is under way.
        """
        return self.table is not None

    @property
    def full(self) -> bool:
        """
        True when no more members fit.
        """
        return len(self.members) >= self.capacity

    @property
    def allReady(self) -> bool:
        """
        True when every member is ready (and there is at least one).
        """
        return bool(self.members) and all(m.ready for m in self.members)

    def memberOf(self, session: ISession) -> Optional[Member]:
        """
        The L{Member} of C{session}, or None.
        """
        for member in self.members:
            if member.session is session:
                return member
        return None

    def memberAt(self, seat: int) -> Optional[Member]:
        """
        The L{Member} playing C{seat}, or None once they left.
        """
        for member in self.members:
            if member.seat == seat:
                return member
        return None

    def names(self) -> List[Optional[str]]:
        """
        The members' names in join order.
        """
        return [member.name for member in self.members]


@implementer(ILobby)
class Lobby:
    """
    The rooms of every game kind.
    """

    log = Logger()

    #: True while the hub drains (L{hub.service.Hub.drain}): rooms,
    #: joins and game starts are refused with L{Draining}, and a ready
    #: flag starts nothing.
    draining = False

    def __init__(self, clock: Optional[IReactorTime] = None) -> None:
        self._rooms: Dict[Tuple[str, str], Room] = {}
        # Joins are logged at info, at most LOG_BURST of a kind per
        # interval (then one line counts the rest) when there is a clock
        # to time the intervals.
        self._joinLog: Optional[Any] = None
        if clock is not None:
            self._joinLog = SummaryLog(clock, self.log,
                                       burst=LOG_BURST)
        self._roomOf: Dict[ISession, Room] = {}
        self.tableListeners: List[ITableListener] = []
        self._follows: Dict[ITableListener, Callable[[Room], bool]] = {}
        self._hears: Dict[ITableListener, FrozenSet[type]] = {}
        self.watchers: List[RoomWatcher] = []

    def drain(self) -> None:
        """
        The hub drains: refuse new rooms, members and games from now on.
        """
        self.draining = True

    def addWatcher(self, watcher: RoomWatcher) -> None:
        """
        Tell C{watcher} of every room made, changed or closed, of every
        kind: C{watcher.roomChanged(room)} after each event told to the
        members, C{watcher.roomClosed(room)} when a room closes (the
        cluster's room directory, L{hub.cluster}).
        """
        self.watchers.append(watcher)

    def removeWatcher(self, watcher: RoomWatcher) -> None:
        """
        Tell C{watcher} nothing more.
        """
        self.watchers.remove(watcher)

    def addTableListener(
            self, listener: ITableListener,
            follows: Optional[Callable[[Room], bool]] = None,
            hears: Optional[Iterable[type]] = None) -> None:
        """
        Give C{listener} (an L{hub.ihub.ITableListener}) to every table
        started from now on (the records, the spectators' feed), or with
        C{follows} to the tables of the rooms for which C{follows(room)}
        is true as their game starts (a tournament's pairings): the other
        games' moves then cost it nothing.  With C{hears}, it hears only
        the events of those types (L{hub.ihub.ITable.addListener}).
        """
        self.tableListeners.append(listener)
        if follows is not None:
            self._follows[listener] = follows
        if hears is not None:
            self._hears[listener] = frozenset(hears)

    def rooms(self, kind: str) -> List[Room]:
        """
        Every room of kind C{kind}, oldest first.
        """
        return [room for (k, _), room in self._rooms.items() if k == kind]

    def allRooms(self) -> List[Room]:
        """
        Every room of every kind, oldest first.
        """
        return list(self._rooms.values())

    def room(self, kind: str, name: str) -> Optional[Room]:
        """
        The room of kind C{kind} called C{name}, or None.
        """
        return self._rooms.get((kind, name))

    def roomOf(self, session: ISession) -> Optional[Room]:
        """
        The room C{session} is in, or None.
        """
        return self._roomOf.get(session)

    def memberOf(self, session: ISession) -> Optional[Member]:
        """
        The L{Member} of C{session} in its room, or None.
        """
        room = self._roomOf.get(session)
        return room.memberOf(session) if room is not None else None

    def createRoom(self, kind: str, name: str, session: ISession,
                   observer: IRoomObserver, policy: IStartPolicy,
                   capacity: int, password: str = "",
                   role: object = None) -> Room:
        """
        Make a room with C{session} as its owner and first member.

        @raise AlreadyInRoom: C{session} is in a room.
        @raise RoomExists: a room of that kind and name exists.
        @raise Draining: the hub drains.
        """
        if self.draining:
            raise Draining(name)
        if session in self._roomOf:
            raise AlreadyInRoom()
        if (kind, name) in self._rooms:
            raise RoomExists(name)
        room = Room(kind, name, policy, capacity, password)
        self._rooms[(kind, name)] = room
        self.log.debug("{kind} room {room!r} created by {player!r}",
                      kind=kind, room=name, player=session.label)
        self._add(room, session, observer, role)
        return room

    def openRoom(self, kind: str, name: str, policy: IStartPolicy,
                 capacity: int, password: str = "",
                 settings: Optional[Dict[str, Any]] = None) -> Room:
        """
        Make an empty room, with no owner until someone joins (the first
        to join owns it): the tournament director's rooms, which wait for
        the players of a pairing.  Like any room it closes when its last
        member leaves.

        @param settings: the room's first L{Room.settings}.
        @raise RoomExists: a room of that kind and name exists.
        @raise Draining: the hub drains.
        """
        if self.draining:
            raise Draining(name)
        if (kind, name) in self._rooms:
            raise RoomExists(name)
        room = Room(kind, name, policy, capacity, password)
        room.settings.update(settings or {})
        self._rooms[(kind, name)] = room
        self.log.debug("{kind} room {room!r} opened", kind=kind, room=name)
        for watcher in self.watchers:
            watcher.roomChanged(room)
        return room

    def join(self, kind: str, name: str, session: ISession,
             observer: IRoomObserver, password: Optional[str] = None,
             role: object = None) -> Room:
        """
        Add C{session} to an existing room.  The checks run in this order:
        already in a room, no such room, game running, name taken in the
        room, room full, wrong password (C{None} skips the password check).

        @raise LobbyError: a subclass saying why not (L{Draining} first,
            while the hub drains).
        """
        if self.draining:
            raise Draining(name)
        if session in self._roomOf:
            raise AlreadyInRoom()
        room = self._rooms.get((kind, name))
        if room is None:
            raise RoomNotFound(name)
        if room.running:
            raise RoomRunning(name)
        if session.name is not None and session.name in room.names():
            raise NameInRoom(session.name)
        if room.full:
            raise RoomFull(name)
        if password is not None and password != room.password:
            raise WrongPassword(name)
        self._add(room, session, observer, role)
        return room

    def _add(self, room: Room, session: ISession, observer: IRoomObserver,
             role: object) -> None:
        member = Member(session, observer, role=role)
        room.members.append(member)
        if room.owner is None:
            room.owner = member
        self._roomOf[session] = room
        if self._joinLog is not None:
            self._joinLog.note(
                "players joined {} rooms".format(room.kind),
                "{player!r} joined {kind} room {room!r}",
                player=session.label, kind=room.kind, room=room.name,
                event="join")
        else:
            self.log.info("{player!r} joined {kind} room {room!r}",
                          player=session.label, kind=room.kind,
                          room=room.name, event="join")
        self._notify(room, "memberJoined", member)

    def leave(self, session: ISession) -> Optional[Room]:
        """
        Take C{session} out of its room, passing ownership to the member
        who joined next; an empty room closes.  The remaining members are
        told; a running game is the adapter's to settle first.

        @return: the room left, or None when C{session} was in none.
        """
        room = self._roomOf.pop(session, None)
        if room is None:
            return None
        member = room.memberOf(session)
        assert member is not None, "a room's session is its member"
        room.members.remove(member)
        previousOwner = room.owner
        if room.owner is member:
            room.owner = room.members[0] if room.members else None
        self.log.debug("{player!r} left {kind} room {room!r}",
                      player=session.label, kind=room.kind, room=room.name)
        if not room.members:
            self._close(room)
        else:
            self._notify(room, "memberLeft", member, previousOwner)
        return room

    def dissolve(self, room: Room) -> None:
        """
        Close C{room}, taking every member out without telling them.
        """
        for member in room.members:
            self._roomOf.pop(member.session, None)
        room.members = []
        room.owner = None
        self._close(room)

    def _close(self, room: Room) -> None:
        if self._rooms.get((room.kind, room.name)) is room:
            del self._rooms[(room.kind, room.name)]
            self.log.debug("{kind} room {room!r} closed",
                          kind=room.kind, room=room.name)
            for watcher in self.watchers:
                watcher.roomClosed(room)

    def setReady(self, session: ISession, ready: bool) -> None:
        """
        Set the ready flag of C{session} (again, if unchanged), tell the
        room, then start the game if the room's policy starts by itself.

        @raise NotInRoom: C{session} is in no room.
        @raise RoomRunning: the game is under way.
        """
        room = self._roomOf.get(session)
        if room is None:
            raise NotInRoom()
        if room.running:
            raise RoomRunning(room.name)
        member = room.memberOf(session)
        assert member is not None, "a room's session is its member"
        member.ready = ready
        self._notify(room, "readyChanged", member)
        if (room.policy.autoStart and not self.draining
                and room.policy.canStart(room)):
            self.start(room)

    def setRole(self, session: ISession, role: object) -> None:
        """
        Replace the role data of C{session} (a gomoku colour...) and tell
        the room.

        @raise NotInRoom: C{session} is in no room.
        """
        member = self.memberOf(session)
        if member is None:
            raise NotInRoom()
        member.role = role
        self._notify(self._roomOf[session], "roleChanged", member)

    def start(self, room: Room) -> None:
        """
        Make C{room}'s table (the start policy's C{newTable}), give it the
        lobby's table listeners, tell the members (C{gameStarted}), then
        start the table: its first events follow the members' news.

        @raise RoomRunning: a game is already under way.
        @raise CannotStart: the start policy refuses.
        @raise Draining: the hub drains.
        """
        if self.draining:
            raise Draining(room.name)
        if room.running:
            raise RoomRunning(room.name)
        if not room.policy.canStart(room):
            raise CannotStart(room.name)
        room.table = room.policy.newTable(room)
        for listener in self.tableListeners:
            follows = self._follows.get(listener)
            if follows is None or follows(room):
                room.table.addListener(listener, self._hears.get(listener))
        self.log.debug("{kind} game started in {room!r}: {players!r}",
                       kind=room.kind, room=room.name, players=room.names())
        self._notify(room, "gameStarted")
        room.table.start()

    def endGame(self, room: Room) -> None:
        """
        Detach the finished game from C{room}; members stay, unready.
        """
        table, room.table = room.table, None
        assert table is not None, "a game ends at a running table"
        for member in room.members:
            member.ready = False
            member.seat = None
        self.log.debug("{kind} game ended in {room!r}",
                       kind=room.kind, room=room.name)
        self._notify(room, "gameEnded", table.game)

    def stopTables(self) -> None:
        """
        The hub is stopping: every running table stops its clocks.
        """
        if self._joinLog is not None:
            self._joinLog.flush()
        for room in self._rooms.values():
            stop = getattr(room.table, "stop", None)
            if stop is not None:
                stop()

    def _notify(self, room: Room, event: str, *args: object) -> None:
        for member in list(room.members):
            try:
                getattr(member.observer, event)(room, *args)
            except Exception:
                self.log.failure("observer {observer!r} failed on {event}",
                                 observer=member.observer, event=event)
        for watcher in self.watchers:
            watcher.roomChanged(room)
