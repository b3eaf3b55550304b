"""
The Chinese checkers protocol (docs/protocols/checkers.md, Flows) over the
shared lobby and L{hub.tables.checkers}.

A L{CheckersProtocol} is one connection: it reads lines, decodes them with
L{hub.wire.checkers}, calls the lobby or the room's table, and as the
room's observer turns lobby events into messages.  A L{TableMessages}
turns the events of one table into START_GAME_OP, START_TURN_OP, MOVE_OP,
END_TURN_OP and END_GAME_OP.  The game's flow (turn clock, eliminations,
takeover, ranking, seating) is the table's: L{hub.tables.checkers}.

Where the spec leaves a choice (names unique within a room only, the
C{errorNames} and C{joinSeats} forms for older clients, which requests
are errors or ignored, when a room starts, the room dissolved at
END_GAME_OP): docs/protocols/checkers.md, "Decisions taken by the hub".
"""

from __future__ import annotations

import re
from typing import (
    TYPE_CHECKING, Any, Callable, Dict, Iterable, Optional, Sequence, cast)

from twisted.internet.interfaces import IReactorTime
from twisted.internet.protocol import connectionDone
from twisted.logger import Logger
from twisted.python.failure import Failure
from twisted.protocols.basic import LineOnlyReceiver
from zope.interface import implementer

from hub.games import checkers as rules
from hub.ihub import (
    ICheckersPeer, IClusterPeer, IClusterRoomList, IGameFactory, IThinker,
    ITable, ITableListener, Member, Room)
from hub.lobby import (
    Draining, Lobby, LobbyError, NameInRoom, RoomFull, RoomObserver,
    RoomRunning)
from hub.connection import ServerConnection, ServerFactory
from hub.connection.immediate import WriteBatch
from hub.sessions import Session, Sessions

if TYPE_CHECKING:
    from hub.accounts.check import Verdict
from hub.tables import events
from hub.tables.base import (
    GameIsOver, NotSeated, NotYourTurn, TableError, TableOptions)
from hub.tables.checkers import KIND, CheckersStartPolicy
from hub.twistedinternals import dropPartialLine, partialLineLength
from hub.wire import checkers as wire

# The most members a room holds (docs/protocols/checkers.md, Flows: Join).
CAPACITY = 6

NAME_PATTERN = re.compile(r"[A-Za-z0-9_]{1,20}")
# Characters of a room id: the protocol leaves ids free-form (clients make
# 16 hex digits, or take what a person types); a cap bounds what a room
# costs every page and list that shows it.
MAX_ROOM_ID = 64

# Where wire values meet rule values: the region letter on the wire
# (START_GAME_OP data2, START_TURN_OP and MOVE_OP data1) of each region of
# hub.games.checkers (a seat's role).  They are the same six letters.
WIRE_REGIONS: Dict[object, str] = {
    "A": "A", "B": "B", "C": "C", "D": "D", "E": "E", "F": "F"}

# How a refused join is told (ERROR_OP code and reason), by lobby error.
JOIN_REFUSALS = {
    RoomRunning: (wire.ROOM_IS_RUNNING, "the game is running"),
    NameInRoom: (wire.INVALID_JOIN, "the name is taken"),
    RoomFull: (wire.INVALID_JOIN, "the room is full"),
    Draining: (wire.OTHER_ERROR, "the hub is shutting down"),
}

# Ops only the server sends; a client sending one gets INVALID_REQ.
SERVER_ONLY_OPS = frozenset([
    wire.JOIN_ROOM_REPLY_OP, wire.CLOSE_ROOM_OP, wire.START_GAME_OP,
    wire.START_TURN_OP, wire.END_GAME_OP, wire.ERROR_OP])

__all__ = ["CheckersFactory", "CheckersProtocol", "CheckersStartPolicy",
           "TableMessages", "WIRE_REGIONS", "isValidName"]


def isValidName(name: str) -> bool:
    """
    Whether C{name} is 1 to 20 ASCII letters, digits or underscores.
    """
    return NAME_PATTERN.fullmatch(name) is not None


def wireRegion(table: ITable, seat: int) -> str:
    """
    The wire's region letter of C{seat} at C{table}.
    """
    return WIRE_REGIONS[table.seats[seat].role]


def _ignore(messages: TableMessages, table: ITable, event: Any) -> None:
    """
    The handler of the table events that send nothing.
    """


#: Whether a member's observer is a checkers connection, that hears the
#: table's lines (a browser player or a room bot hears its own events).
_hears = ICheckersPeer.providedBy


@implementer(ITableListener)
class TableMessages:
    """
    The events of one room's table as messages to the room's members.
    """

    log = Logger()
    # The handler of each event type, found by its name once.
    _handlers: Dict[type, Callable[[TableMessages, ITable, Any], None]] = {}

    def __init__(self, factory: CheckersFactory, room: Room) -> None:
        self.factory = factory
        self.room = room
        self._turnLines: Dict[int, bytes] = {}
        self._turnSecond: Optional[int] = None

    def tableEvent(self, table: ITable, event: object) -> None:
        handler = self._handlers.get(type(event))
        if handler is None:
            name = "on" + events.eventName(event)
            handler = getattr(type(self), name, None)
            self._handlers[type(event)] = handler = handler or _ignore
        handler(self, table, event)

    def broadcast(self, data: bytes,
                  exclude: Optional[Member] = None) -> None:
        """
        Write C{data} to every member now in the room but C{exclude}.
        """
        for member in list(self.room.members):
            if member is not exclude and _hears(member.observer):
                member.observer.sendBytes(data)

    def broadcastNames(self, op: int, seats: Sequence[events.Seat],
                       data2: str = "") -> None:
        """
        Write C{op} with the names of C{seats} (L{events.Seat}s) in data1
        to every member now in the room: a member whose name was sent
        with its play key (L{hub.accounts}) reads its own name as it sent
        it, everyone else the plain names.
        """
        plain = wire.encode(op, " ".join(seat.name for seat in seats), data2)
        for member in list(self.room.members):
            if not _hears(member.observer):
                continue
            session = member.session
            if session.wireName is not None and any(
                    seat.playerId == session.id for seat in seats):
                member.observer.sendBytes(wire.encode(op, " ".join(
                    session.wireName if seat.playerId == session.id
                    else seat.name for seat in seats), data2))
            else:
                member.observer.sendBytes(plain)

    def onGameStarted(self, table: ITable,
                      event: events.GameStarted) -> None:
        self.broadcastNames(
            wire.START_GAME_OP, event.seats,
            " ".join(WIRE_REGIONS[seat.role] for seat in event.seats))

    def onTurnStarted(self, table: ITable,
                      event: events.TurnStarted) -> None:
        # The same line for a seat all through one second: kept.
        second = int(event.at)
        if second != self._turnSecond:
            self._turnSecond = second
            self._turnLines = {}
        line = self._turnLines.get(event.seat)
        if line is None:
            line = self._turnLines[event.seat] = wire.encode(
                wire.START_TURN_OP, wireRegion(table, event.seat),
                str(second))
        self.broadcast(line)

    def onActionPlayed(self, table: ITable,
                       event: events.ActionPlayed) -> None:
        mover = None if event.byBot else self.room.memberAt(event.seat)
        self.broadcast(wire.encode(wire.MOVE_OP,
                                   wireRegion(table, event.seat),
                                   wire.formatPath(event.action)),
                       exclude=mover)
        if (cast(rules.TurnResult, event.detail).finished
                and mover is not None
                and _hears(mover.observer)):
            mover.observer.sendBytes(wire.encode(wire.END_TURN_OP))

    def onSeatEliminated(self, table: ITable,
                         event: events.SeatEliminated) -> None:
        self.log.debug("checkers {room!r}: seat {seat} out ({reason})",
                       room=self.room.name, seat=event.seat,
                       reason=event.reason)
        self.broadcast(wire.encode(wire.MOVE_OP,
                                   wireRegion(table, event.seat),
                                   wire.TIMEOUT_PATH))

    def onGameEnded(self, table: ITable,
                    event: events.GameEnded) -> None:
        """
        END_GAME_OP with the ranking to everyone, then the room is
        dissolved; an abandoned game has nobody left to tell.
        """
        room, lobby = self.room, self.factory.lobby
        if event.reason == events.ABANDONED:
            self.log.info("checkers {room!r} abandoned", room=room.name,
                          kind=KIND, event="abandoned")
        else:
            ranked = [table.seats[s] for s in event.ranking]
            self.log.info("checkers {room!r} over: {ranking!r}",
                          room=room.name,
                          ranking=" ".join(seat.name for seat in ranked),
                          kind=KIND, event="over")
            self.broadcastNames(wire.END_GAME_OP, ranked)
        members = list(room.members)
        lobby.endGame(room)
        lobby.dissolve(room)
        for member in members:
            self.factory.sessions.clearName(member.session)


@implementer(IClusterPeer, ICheckersPeer)
class CheckersProtocol(LineOnlyReceiver, RoomObserver, ServerConnection):
    """
    One checkers connection, and the observer of its room.
    """

    delimiter = wire.DELIMITER
    MAX_LENGTH = wire.MAX_LINE_LENGTH
    log = Logger()
    # See ServerConnection.
    transport: Any
    factory: CheckersFactory

    def __init__(self) -> None:
        self.session: Optional[Session] = None
        self.connected = False

    @property
    def lobby(self) -> Lobby:
        return self.factory.lobby

    def adopt(self, preface: Dict[str, Any]) -> bool:
        """
        See L{IClusterPeer.adopt}: a checkers player brings nothing; the
        forwarded JOIN does the rest.
        """
        return True

    def routable(self) -> bool:
        """
        See L{IClusterPeer.routable}: outside any room.
        """
        return (self.session is not None
                and self.lobby.roomOf(self.session) is None)

    def registered(self) -> bool:
        """
        See L{IClusterPeer.registered}: a checkers name is held from the
        JOIN that takes a seat until the room ends.
        """
        return self.session is not None and self.session.name is not None

    def handOverName(self) -> Optional[str]:
        """
        See L{IClusterPeer.handOverName}: checkers names stay with their
        room, so none moves.
        """
        return None

    def connectionMade(self) -> None:
        self.connected = True
        self.startConnection()
        self.session = self.factory.sessions.connect(KIND, self)

    def connectionLost(self, reason: Failure = connectionDone) -> None:
        self.connected = False
        self.endConnection()
        session = self.session
        if session is None:
            return
        if self.lobby.roomOf(session) is not None:
            self.leaveRoom()
        self.factory.sessions.disconnect(session)

    def sendBytes(self, data: bytes) -> None:
        """
        Write one encoded message (one write per message).
        """
        if self.connected and not self.transport.disconnecting:
            self.writer.write(data)

    def send(self, op: int, data1: str = "", data2: str = "") -> None:
        """
        Send one message.
        """
        self.sendBytes(wire.encode(op, data1, data2))

    def sendError(self, code: int, reason: str = "") -> None:
        """
        Send ERROR_OP with the decimal C{code}.
        """
        self.sendBytes(wire.error(code, reason, self.factory.errorNames))

    def dataReceived(self, data: bytes) -> None:
        self.resetTimeout()
        # What the lines ask to send to each connection leaves in one send
        # (a move's MOVE_OP and START_TURN_OP to the opponent).
        batch = self.writer.batch
        # LineOnlyReceiver is not typed.
        if batch is None:
            LineOnlyReceiver.dataReceived(  # type: ignore[no-untyped-call]
                self, data)
            return
        batch.hold()
        try:
            LineOnlyReceiver.dataReceived(  # type: ignore[no-untyped-call]
                self, data)
        finally:
            batch.release()

    def lineLengthExceeded(self, line: bytes) -> None:
        self.logClosing("checkers connections sent too long a line",
                        "checkers line over {max} bytes; closing",
                        max=self.MAX_LENGTH)
        self.sendError(wire.INVALID_REQ, "line too long")
        self.transport.loseConnection()

    def lineReceived(self, line: bytes) -> None:
        self.countRequest()
        if not self.frameWaits(line):
            self.takeFrame(line)

    def takeFrame(self, line: bytes) -> None:
        """
        Handle one line (at once, or after the name check it waited for).
        """
        if not line.strip():
            return
        try:
            message = wire.decode(line)
        except wire.DecodeError as e:
            self.sendError(wire.INVALID_REQ, str(e))
            return
        handler = self._handlers.get(message.op)
        if handler is None:
            if message.op in SERVER_ONLY_OPS:
                self.sendError(wire.INVALID_REQ,
                               "%s is sent by the server only"
                               % (wire.OP_NAMES[message.op],))
            return
        try:
            handler(self, message)
        except Exception:
            # A JOIN's name may carry a play key: never logged.
            self.log.failure("checkers message {message!r} failed",
                             message=message if message.op !=
                             wire.JOIN_ROOM_OP else "JOIN_ROOM_OP")
            self.sendError(wire.OTHER_ERROR, "internal error")

    # Requests

    def joinRoom(self, message: wire.Message) -> None:
        roomId, name = message.data1, message.data2
        lobby = self.lobby
        # Connected (connectionMade) before any line is read.
        assert self.session is not None
        if lobby.roomOf(self.session) is not None:
            self.sendError(wire.OTHER_ERROR, "already in a room")
            return
        if not isValidName(name):
            self.sendError(wire.INVALID_JOIN, "a name is 1 to 20 letters, "
                           "digits or underscores")
            return
        if not roomId:
            self.sendError(wire.INVALID_JOIN, "empty room id")
            return
        if len(roomId) > MAX_ROOM_ID:
            self.sendError(wire.INVALID_JOIN, "a room id is at most {} "
                           "characters".format(MAX_ROOM_ID))
            return
        if self.factory.names is None:
            self.joinAs(roomId, name, None)
            return
        # The name check (hub.accounts): a name with a separator proves
        # an account's with its key; any refusal is "taken", whatever
        # its reason.  Lines after this one wait for it.
        self.whenDecided(
            self.factory.names.check(KIND, name, self.peerAddress()),
            lambda verdict: self.joinAs(roomId, name, verdict))

    def joinAs(self, roomId: str, name: str,
               verdict: Optional[Verdict]) -> None:
        """
        Join (or make) room C{roomId} under name field C{name}, as the name
        check judged it (C{verdict}: a L{hub.accounts.check.Verdict}, or
        None without a name check).
        """
        lobby, sessions = self.lobby, self.factory.sessions
        if self.factory.names is not None and verdict is None:
            self.sendError(wire.INVALID_JOIN, "the name is taken")
            return
        # Connected (connectionMade) before any line is read.
        assert self.session is not None
        sessions.setRoomName(
            self.session, name if verdict is None else verdict.name)
        self.session.setVerdict(name, verdict)
        try:
            if lobby.room(KIND, roomId) is None:
                room = lobby.createRoom(KIND, roomId, self.session, self,
                                        self.factory.policy, CAPACITY)
            else:
                room = lobby.join(KIND, roomId, self.session, self)
        except LobbyError as e:
            sessions.clearName(self.session)
            code, reason = JOIN_REFUSALS.get(
                type(e), (wire.INVALID_JOIN, "cannot join"))
            self.sendError(code, reason)
            return
        before = room.members[:-1]
        # Everyone in a checkers room joined under a name.
        self.send(wire.JOIN_ROOM_REPLY_OP,
                  " ".join(cast(str, m.name) for m in before),
                  "".join("1" if m.ready else "0" for m in before))

    def leaveRoomRequest(self, message: wire.Message) -> None:
        # Connected (connectionMade) before any line is read.
        assert self.session is not None
        if self.lobby.roomOf(self.session) is not None:
            self.leaveRoom()

    def leaveRoom(self) -> None:
        """
        Leave the room (the others hear LEAVE_ROOM_OP); mid-game the
        table keeps the seat, before it the game may start without us.
        """
        session = self.session
        # Called from a room only (connectionLost, leaveRoomRequest).
        assert session is not None
        room = self.lobby.roomOf(session)
        assert room is not None
        member = room.memberOf(session)
        assert member is not None
        table, seat = room.table, member.seat
        self.lobby.leave(session)
        self.factory.sessions.clearName(session)
        if table is not None:
            # Every member of a running game has a seat (newTable).
            assert seat is not None
            table.drop(seat)
        else:
            room.policy.memberLeft(self.lobby, room)

    def playerReady(self, message: wire.Message) -> None:
        # Connected (connectionMade) before any line is read.
        assert self.session is not None
        room = self.lobby.roomOf(self.session)
        if room is None:
            self.sendError(wire.NOT_IN_ROOM, "join a room first")
        elif room.running:
            self.sendError(wire.ROOM_IS_RUNNING, "the game is running")
        else:
            self.lobby.setReady(self.session, True)

    def move(self, message: wire.Message) -> None:
        # Connected (connectionMade) before any line is read.
        assert self.session is not None
        room = self.lobby.roomOf(self.session)
        if room is None:
            self.sendError(wire.NOT_IN_ROOM, "join a room first")
            return
        if not room.running:
            self.sendError(wire.ROOM_NOT_RUNNING, "no game is running")
            return
        # A running room has its table; the session's member is in it.
        table, member = room.table, room.memberOf(self.session)
        assert table is not None and member is not None
        try:
            seat = table.checkTurn(member.seat)
        except GameIsOver:
            self.sendError(wire.ROOM_NOT_RUNNING, "the game is over")
            return
        except (NotYourTurn, NotSeated):
            self.sendError(wire.OUTTURN_MOVE, "it is %s's turn" % (
                wireRegion(table, table.game.currentSeat),))
            return
        region = wireRegion(table, seat)
        if message.data1 not in ("", region):
            self.sendError(wire.INVALID_MOVE, "you play region %s, not %r"
                           % (region, message.data1[:20]))
            return
        try:
            table.act(seat, wire.parsePath(message.data2))
        except (wire.PathError, TableError) as e:
            self.sendError(wire.INVALID_MOVE, str(e))

    _handlers: Dict[int, Callable[[CheckersProtocol, wire.Message], None]] = {
        wire.JOIN_ROOM_OP: joinRoom,
        wire.LEAVE_ROOM_OP: leaveRoomRequest,
        wire.PLAYER_READY_OP: playerReady,
        wire.MOVE_OP: move,
    }

    # Room events

    def memberJoined(self, room: Room, actor: Member) -> None:
        if actor.session is not self.session:
            seat = ""
            if self.factory.joinSeats:
                seat = str(room.members.index(actor) + 1)
            self.send(wire.JOIN_ROOM_OP, actor.name, seat)

    def memberLeft(self, room: Room, actor: Member,
                   previousOwner: Optional[Member]) -> None:
        self.send(wire.LEAVE_ROOM_OP, actor.session.nameTo(self.session))

    def readyChanged(self, room: Room, actor: Member) -> None:
        self.send(wire.PLAYER_READY_OP, actor.session.nameTo(self.session))

    def partialFrameBytes(self) -> int:
        length: int = partialLineLength(self)
        return length

    def dropPartialFrame(self) -> None:
        dropPartialLine(self)


@implementer(IClusterRoomList, IGameFactory)
class CheckersFactory(ServerFactory):
    """
    Makes L{CheckersProtocol}s over the shared lobby and sessions.

    @param lobby: the shared L{hub.lobby.Lobby}.
    @param sessions: the shared L{hub.sessions.Sessions}.
    @param clock: an L{IReactorTime} for turn timers and timestamps.
    @param turnSeconds: the time limit of a turn.
    @param fourPlayers: also start games of four (regions A B D E); the
        same as adding 4 to C{sizes}.
    @param takeover: C{"bot"} to have a bot play the seat of a player who
        leaves mid-game; None to eliminate them at their turn.
    @param botLevel: the strength asked of takeover bots.
    @param thinker: the L{hub.ihub.IThinker} takeover bots ask for their
        moves (the hub's worker pool; see L{TableOptions}).
    @param turnGrace: seconds allowed past C{turnSeconds} for latency.
    @param botDelay: seconds a takeover bot waits before moving.
    @param errorNames: ERROR_OP data1 is the code's name, not its number.
    @param joinSeats: JOIN_ROOM_OP to the other members carries the
        joiner's 1-based seat in data2.
    @param sizes: the player counts whose rooms start (some of 1, 2, 3,
        4 and 6).
    @param names: the name check (L{ServerFactory.names}), or None.

    @ivar policy: the rooms' L{CheckersStartPolicy}, which makes tables.
    @ivar writeBatch: the L{WriteBatch} that joins what one read sends to
        each connection.
    """

    protocol = CheckersProtocol

    def __init__(self, lobby: Lobby, sessions: Sessions,
                 clock: IReactorTime, turnSeconds: float = 15,
                 fourPlayers: bool = False, takeover: Optional[str] = None,
                 botLevel: int = 2, thinker: Optional[IThinker] = None,
                 turnGrace: float = 0.5, botDelay: float = 1.0,
                 errorNames: bool = False, joinSeats: bool = False,
                 sizes: Iterable[int] = rules.STANDARD_PLAYER_COUNTS,
                 names: Optional[Any] = None) -> None:
        self.lobby = lobby
        self.names = names
        self.sessions = sessions
        self.clock = clock
        self.writeBatch = WriteBatch()
        self.errorNames = errorNames
        self.joinSeats = joinSeats
        bots: Dict[str, Any] = {} if thinker is None else {"thinker": thinker}
        options = TableOptions(turnSeconds=turnSeconds, turnGrace=turnGrace,
                               takeover=takeover, botLevel=botLevel,
                               botDelay=botDelay, **bots)
        self.policy = CheckersStartPolicy(fourPlayers, clock, options,
                                          self.tableMessages, sizes)

    def roomSummary(self, room: Room) -> Dict[str, Any]:
        """
        See L{IClusterRoomList.roomSummary}: what the cluster's room list
        shows of a checkers room (the protocol has no room list of its
        own; the browsers' lobby shows it, L{hub.web.play}).
        """
        return {"name": room.name,
                "members": [m.name for m in room.members],
                "capacity": room.capacity,
                "players": room.settings.get("players"),
                "locked": bool(room.password), "running": room.running}

    def tableMessages(self, room: Room) -> TableMessages:
        """
        The listener that turns the events of C{room}'s table into
        messages.
        """
        return TableMessages(self, room)
