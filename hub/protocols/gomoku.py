"""
The gomoku-battle protocol (spec gomoku.md) over the shared lobby and the
gomoku table (L{hub.tables.gomoku}).

A L{GomokuProtocol} is one connection: it reassembles frames, keeps the
connection's session echo and illegal-operation count, and dispatches by
the player's state (INIT, IDLE, ROOM, GAME; spec section 6).  What the
players hear, lobby and table events as frames, is in
L{hub.protocols.gomoku_players}.

Where the spec leaves a choice (passwords never shown, the start's
answer before C{msg_game}, the room re-sent after a game):
docs/protocols/gomoku.md, "Decisions taken by the hub"; the grace of a
player lost mid-game, the frames queued for them and C{takeover="bot"}:
its "Losing the connection and reconnecting".
"""

from __future__ import annotations

import hmac
import re
from typing import (
    TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple, cast)

from twisted.internet.interfaces import IReactorTime
from twisted.internet.protocol import Protocol, connectionDone
from twisted.logger import Logger
from twisted.python.failure import Failure
from zope.interface import implementer

from hub.games import gomoku as rules
from hub.lobby import (
    Draining, Lobby, LobbyError, RoomExists, RoomNotFound, WrongPassword)
from hub.connection import ServerConnection, ServerFactory
from hub.ihub import (
    IClusterPeer, IClusterRoomList, IGameFactory, IThinker, ITableListener,
    Room)
from hub.protocols.gomoku_players import (
    GAME, IDLE, INIT, ROOM, SEAT_OF_COLOUR, GomokuPlayer,
    GomokuTableListener, roomObjectOf)
from hub.sessions import NameTaken, Session, Sessions
from hub.tables.base import TableError, TableOptions
from hub.tables.gomoku import KIND, OWNER_SEAT, GomokuStartPolicy, GomokuTable
from hub.wire import gomoku as wire

if TYPE_CHECKING:
    from hub.accounts.check import Verdict

# A decoded frame (L{hub.wire.gomoku.decodeMessage}).
Message = Dict[str, Any]

# A play key in a name (hub.accounts: alice#KEY, or a mistyped one, or
# checkers' alice__KEY), masked in logs up to the end of the string.
_KEYED = re.compile(rb'(#|__)[^"\\]*')


@implementer(IClusterPeer)
class GomokuProtocol(Protocol, ServerConnection):
    """
    One gomoku connection.

    @ivar echo: the session of the last valid frame (spec section 5.2).
    @ivar failures: illegal operations so far (spec section 6.3).
    @ivar holding: True while a move is handled: frames to this
        connection (the end of the game) wait in C{held} until the
        move's own result is written.
    """

    log = Logger()
    # See ServerConnection.
    transport: Any
    factory: GomokuFactory
    HANDLERS: Dict[Tuple[str, int], Callable[[GomokuProtocol, Message], None]]

    def __init__(self) -> None:
        self.scanner = wire.FrameScanner()
        self.echo = wire.INVALID_SESSION
        self.failures = 0
        self.session: Optional[Session] = None
        self.player: Optional[GomokuPlayer] = None
        self.holding = False
        self.held: List[Message] = []

    @property
    def lobby(self) -> Lobby:
        return self.factory.lobby

    @property
    def sessions(self) -> Sessions:
        return self.factory.sessions

    def connectionMade(self) -> None:
        self.startConnection()
        self.session = self.sessions.connect(KIND, self)
        self.session.state = INIT

    def send(self, message: Message) -> None:
        """
        Write C{message} stamped with this connection's token and session
        echo, in one write.
        """
        if self.holding:
            self.held.append(message)
            return
        assert self.session is not None
        if self.session.token is not None:
            message["token"] = self.session.token
        else:
            message["token"] = wire.INVALID_TOKEN
        message["session"] = self.echo
        self.writer.write(wire.encodeMessage(message))

    def result(self, status: int) -> None:
        """
        Answer the current request with C{status}.
        """
        self.send(wire.resultMessage(status, None, None))

    def dataReceived(self, data: bytes) -> None:
        self.resetTimeout()
        try:
            frames = self.scanner.feed(data)
        except wire.FrameTooLong as e:
            frames = e.frames
            tooLong = True
        else:
            tooLong = False
        for payload in frames:
            self.countRequest()
            if self.transport.disconnecting:
                return
            if not self.frameWaits(payload):
                self.takeFrame(payload)
        if tooLong and not self.transport.disconnecting:
            self.logClosing("gomoku connections sent too long a frame",
                            "gomoku frame over {max} bytes; closing",
                            max=self.scanner.maxFrame)
            assert self.session is not None
            if self.session.state != INIT:
                self.echo = wire.INVALID_SESSION
                self.result(wire.S_INVALID_MSG)
            self.transport.loseConnection()

    def takeFrame(self, payload: bytes) -> None:
        """
        Handle one frame (at once, or after the name check it waited for).
        """
        try:
            self.frameReceived(payload)
        except Exception:
            self.log.failure("gomoku frame {frame!r} failed",
                             frame=_KEYED.sub(b"#**********", payload[:200]))
            self.transport.loseConnection()

    def frameReceived(self, payload: bytes) -> None:
        """
        Handle one frame payload.
        """
        try:
            message = wire.decodeMessage(payload)
        except wire.InvalidMessage:
            message = None
        # Connected (connectionMade) before any frame is read.
        assert self.session is not None
        state = self.session.state
        if state == INIT:
            if message is not None and message["msg_type"] == wire.MSG_REG:
                self.echo = message["session"]
                self.register(message)
            else:
                self.failures += 1
                if self.failures > self.factory.maxIllegal:
                    self.transport.loseConnection()
                else:
                    self.result(wire.S_PLAYER_INVALID)
            return
        if message is None:
            self.echo = wire.INVALID_SESSION
            self.result(wire.S_INVALID_MSG)
            return
        self.echo = message["session"]
        handler = self.HANDLERS.get((state, message["msg_type"]))
        if handler is not None:
            try:
                handler(self, message)
            except wire.InvalidMessage:
                self.illegal(wire.S_ILLEGAL_OPER)

    def illegal(self, status: int) -> None:
        """
        Answer with an illegal-operation C{status}; status 6 counts toward
        the limit, past which the connection gets status 3 and is closed.
        """
        self.result(status)
        if status == wire.S_ILLEGAL_OPER:
            self.failures += 1
            if self.failures > self.factory.maxIllegal:
                self.result(wire.S_ILLEGAL_OPER_LIMITS)
                self.transport.loseConnection()

    # INIT

    def register(self, message: Message) -> None:
        try:
            name = wire.strField(message, "name")
        except wire.InvalidMessage:
            self.result(wire.S_PLAYER_INVALID_META)
            return
        if message["token"] != wire.INVALID_TOKEN:
            if self.resume(name, message["token"]):
                return
        size = len(name.encode("utf-8", "surrogatepass"))
        if not 1 <= size <= wire.MAX_NAME_BYTES:
            self.result(wire.S_PLAYER_INVALID_META)
            return
        if self.factory.names is None:
            self.registerAs(name, None)
            return
        # The name check (hub.accounts): a name with a separator proves
        # an account's with its key; any refusal is "taken", whatever
        # its reason.  Frames after this one wait for it.
        echo = self.echo
        self.whenDecided(
            self.factory.names.check(KIND, name, self.peerAddress()),
            lambda verdict: self.registerAs(name, verdict, echo))

    def registerAs(self, name: str, verdict: Optional[Verdict],
                   echo: Optional[int] = None) -> None:
        """
        Register under name field C{name}, as the name check judged it
        (C{verdict}: a L{hub.accounts.check.Verdict}, or None without a
        name check), answering the request whose session echo is
        C{echo} (if given).
        """
        if echo is not None:
            self.echo = echo
        if self.factory.names is not None and verdict is None:
            self.result(wire.S_PLAYER_EXISTS)
            return
        assert self.session is not None
        try:
            self.sessions.claimName(
                self.session, name if verdict is None else verdict.name)
        except NameTaken:
            self.result(wire.S_PLAYER_EXISTS)
            return
        self.session.setVerdict(name, verdict)
        self._registered()
        self.result(wire.S_OK)

    def _registered(self) -> None:
        assert self.session is not None
        self.session.state = IDLE
        self.player = GomokuPlayer(self.session, self)
        self.factory.players[self.session.id] = self.player

    def adopt(self, preface: Dict[str, Any]) -> bool:
        """
        See L{IClusterPeer.adopt}: a player who registered C{name} on
        another node, with its C{token}, is registered here.
        """
        name = preface.get("name")
        if name is None:
            return True
        # Connected before the forwarded bytes (hub.cluster).
        assert self.session is not None
        try:
            self.sessions.adoptName(self.session, name, int(preface["token"]))
        except NameTaken:
            self.log.warn("cluster: {name!r} came from another node but is "
                          "held here", name=name)
            return False
        except Exception:
            self.log.failure("cluster: cannot adopt gomoku player {name!r}",
                             name=name)
            return False
        # What the name check decided on the node that handed it over.
        self.session.wireName = preface.get("wireName")
        self.session.guest = bool(preface.get("guest"))
        self.session.account = preface.get("account")
        self._registered()
        return True

    def routable(self) -> bool:
        """
        See L{IClusterPeer.routable}: in INIT or IDLE.
        """
        routable: bool = self.session is not None and self.session.state in (
            INIT, IDLE)
        return routable

    def registered(self) -> bool:
        """
        See L{IClusterPeer.registered}: past INIT.
        """
        assert self.session is not None
        past: bool = self.session.state != INIT
        return past

    def handOverName(self) -> Optional[str]:
        """
        See L{IClusterPeer.handOverName}: the name of a player in IDLE.
        """
        assert self.session is not None
        if self.session.state == IDLE:
            return self.session.name
        return None

    def resume(self, name: str, token: int) -> bool:
        """
        Take back the session of C{name} if C{token} is its token: a lost
        one, or a live one whose old connection is then closed (the player
        came back before the drop was noticed).
        """
        # Connected (connectionMade) before any frame is read.
        assert self.session is not None
        names = self.factory.names
        if names is not None:
            plain = names.plainName(KIND, name)
            held = self.sessions.byName(KIND, plain)
            # A session held under a name has one.
            if held is None or not hmac.compare_digest(
                    cast(str, held.nameTo(held)).encode(
                        "utf-8", "surrogatepass"),
                    name.encode("utf-8", "surrogatepass")) \
                    or names.accountBanned(held.account) \
                    or names.addressBanned(self.peerAddress()):
                return False
            name = plain
        oldPeer = getattr(self.sessions.byName(KIND, name), "peer", None)
        session = self.sessions.resume(KIND, name, token, self)
        if session is None:
            return False
        if oldPeer is not None:
            oldPeer.transport.loseConnection()
        self.sessions.disconnect(self.session)
        self.session = session
        player = self.player = self.factory.players[session.id]
        player.protocol = self
        self.result(wire.S_OK)
        player.replay()
        if session.state == GAME:
            # A player in GAME has its game's room.
            assert player.room is not None
            player.room.table.seatResumed(player.seat)
        return True

    # IDLE

    def listRooms(self, message: Message) -> None:
        if wire.uintField(message, "target", 0) != wire.REQ_ROOM_LIST:
            self.illegal(wire.S_ILLEGAL_MSG)
            return
        rooms = [roomObjectOf(room, self.session)
                 for room in self.lobby.rooms(KIND)]
        self.send(wire.roomListMessage(rooms or None, None, None))

    def operateFromIdle(self, message: Message) -> None:
        operation = wire.uintField(message, "type", wire.RO_UNKNOWN)
        if operation == wire.RO_ROOM_CREATE:
            self.createRoom(wire.roomField(message))
        elif operation == wire.RO_ROOM_JOIN:
            self.joinRoom(wire.roomField(message))
        else:
            self.illegal(wire.S_ILLEGAL_OPER)

    def createRoom(self, fields: wire.RoomFields) -> None:
        name, password = fields["name"], fields["psw"]
        if not (1 <= len(name.encode("utf-8")) <= wire.MAX_NAME_BYTES
                and len(password.encode("utf-8")) <= wire.MAX_PSW_BYTES):
            self.result(wire.S_ROOM_INVALID_META)
            return
        ownerSeat = SEAT_OF_COLOUR.get(fields["oct"], rules.SEAT_WHITE)
        # Registered (an IDLE player has both).
        assert self.session is not None and self.player is not None
        try:
            room = self.lobby.createRoom(
                KIND, name, self.session, self.player, self.factory.policy,
                2, password=password)
        except RoomExists:
            self.result(wire.S_ROOM_EXISTS)
            return
        except Draining:
            self.result(wire.S_ERROR)
            return
        room.settings[OWNER_SEAT] = ownerSeat
        self.session.state = ROOM
        self.result(wire.S_OK)

    def joinRoom(self, fields: wire.RoomFields) -> None:
        # Registered (an IDLE player has both).
        assert self.session is not None and self.player is not None
        try:
            room = self.lobby.join(KIND, fields["name"], self.session,
                                   self.player, password=fields["psw"])
        except RoomNotFound:
            self.result(wire.S_ROOM_NOT_EXISTS)
        except WrongPassword:
            self.result(wire.S_ROOM_ILLEGAL_ACCESS)
        except Draining:
            self.result(wire.S_ERROR)
        except LobbyError:
            self.result(wire.S_ROOM_FULL)
        else:
            self.session.state = ROOM
            self.result(wire.S_OK)
            self.player.sendRoom(wire.RI_PLAYER_JOIN, room)

    # ROOM

    def requestStart(self, message: Message) -> None:
        if wire.uintField(message, "target", 0) != wire.REQ_GAME_START:
            self.illegal(wire.S_ILLEGAL_OPER)
            return
        # In ROOM: in a room (createRoom, joinRoom), which has an owner.
        assert self.session is not None
        room = self.lobby.roomOf(self.session)
        assert room is not None and room.owner is not None
        # As an object: mypy-zope sees no Session among ISessions in an
        # identity test and calls a branch unreachable (mypy-zope #91).
        owner: object = room.owner.session
        if owner is not self.session:
            self.result(wire.S_PLAYER_INVALID)
        elif not room.policy.canStart(room):
            self.result(wire.S_ROOM_ILLEGAL_OPER)
        elif self.lobby.draining:
            self.result(wire.S_ERROR)
        else:
            self.result(wire.S_OK)
            self.lobby.start(room)

    def operateFromRoom(self, message: Message) -> None:
        if wire.uintField(message, "type", wire.RO_UNKNOWN) \
                != wire.RO_ROOM_EXIT:
            self.illegal(wire.S_ILLEGAL_OPER)
            return
        self.leaveRoom()
        self.result(wire.S_OK)

    def leaveRoom(self) -> None:
        """
        Leave the room; a guest who becomes owner keeps the owner's colour
        (the room's owner seat is unchanged, spec section 7.7).
        """
        # Called in ROOM (operateFromRoom, connectionLost).
        assert self.session is not None
        self.lobby.leave(self.session)
        self.session.state = IDLE

    def changeChess(self, message: Message) -> None:
        # In ROOM: in a room (createRoom, joinRoom), which has an owner.
        assert self.session is not None
        room = self.lobby.roomOf(self.session)
        assert room is not None and room.owner is not None
        # As an object: mypy-zope sees no Session among ISessions in an
        # identity test and calls a branch unreachable (mypy-zope #91).
        owner: object = room.owner.session
        colour = wire.uintField(message, "type", 0)
        if (owner is not self.session
                or colour not in SEAT_OF_COLOUR):
            self.result(wire.S_ROOM_ILLEGAL_OPER)
            return
        room.settings[OWNER_SEAT] = SEAT_OF_COLOUR[colour]
        self.lobby.setRole(self.session, colour)
        self.result(wire.S_OK)

    def changeGuestState(self, message: Message) -> None:
        # In ROOM: in a room (createRoom, joinRoom), which has an owner.
        assert self.session is not None
        room = self.lobby.roomOf(self.session)
        assert room is not None and room.owner is not None
        # As an object: mypy-zope sees no Session among ISessions in an
        # identity test and calls a branch unreachable (mypy-zope #91).
        owner: object = room.owner.session
        state = wire.uintField(message, "state", 0)
        if (owner is self.session or state not in
                (wire.PLAYER_STATE_PREPARE, wire.PLAYER_STATE_READY)):
            self.result(wire.S_ROOM_ILLEGAL_OPER)
            return
        self.lobby.setReady(self.session, state == wire.PLAYER_STATE_READY)
        self.result(wire.S_OK)

    # GAME

    def move(self, message: Message) -> None:
        """
        Play a stone: result(0) to the mover, then the opponent's
        msg_move, then the end of the game if it ended; an illegal move
        gets 1025 before the end that the illegal-move limit may cause.
        """
        player = self.player
        # A player in GAME has its game's room.
        assert player is not None and player.room is not None
        table = player.room.table
        if table is None:
            return
        try:
            action = (wire.uintField(message, "x"),
                      wire.uintField(message, "y"))
        except wire.InvalidMessage:
            action = None
        self.holding = True
        try:
            table.act(player.seat, action)
            status = wire.S_OK
        except TableError:
            status = wire.S_MATCH_ILLEGAL_MOVE
        finally:
            self.holding = False
        self.result(status)
        if self.held:
            for held in self.held:
                self.send(held)
            del self.held[:]

    # Connection loss

    def connectionLost(self, reason: Failure = connectionDone) -> None:
        self.endConnection()
        session, player = self.session, self.player
        # Let go of the session and the player (each points back here
        # while live), so that the connection is freed at once.
        self.player = None
        del self.held[:]
        if session is None or session.peer is not self:
            return
        state = session.state
        if state == GAME:
            # A player in GAME has its game's room.
            assert player is not None and player.room is not None
            player.protocol = None
            player.room.table.seatLost(player.seat)
            self.sessions.lose(session, self.factory.graceExpired)
            return
        if state == ROOM:
            self.leaveRoom()
        self.sessions.disconnect(session)
        self.factory.players.pop(session.id, None)
        if player is not None:
            player.protocol = None

    def partialFrameBytes(self) -> int:
        return self.scanner.pending()

    def dropPartialFrame(self) -> None:
        self.scanner = wire.FrameScanner(self.scanner.maxFrame)


GomokuProtocol.HANDLERS = {
    (IDLE, wire.MSG_REQUEST): GomokuProtocol.listRooms,
    (IDLE, wire.MSG_ROOM): GomokuProtocol.operateFromIdle,
    (ROOM, wire.MSG_REQUEST): GomokuProtocol.requestStart,
    (ROOM, wire.MSG_ROOM): GomokuProtocol.operateFromRoom,
    (ROOM, wire.MSG_CHESS): GomokuProtocol.changeChess,
    (ROOM, wire.MSG_STATE): GomokuProtocol.changeGuestState,
    (GAME, wire.MSG_MOVE): GomokuProtocol.move,
}


@implementer(IClusterRoomList, IGameFactory)
class GomokuFactory(ServerFactory):
    """
    Makes L{GomokuProtocol}s over the shared lobby and sessions.

    @param thinker: the L{hub.ihub.IThinker} takeover bots ask for their
        moves (the hub's worker pool; see L{TableOptions}).
    @param names: the name check (L{ServerFactory.names}), or None.

    @ivar maxIllegal: status-6 operations a connection may make before it
        is closed (spec section 6.3).
    @ivar policy: the rooms' L{GomokuStartPolicy}, which makes each
        table with its L{GomokuTableListener}.
    @ivar players: the L{GomokuPlayer} of every registered session id.
    """

    protocol = GomokuProtocol

    def __init__(self, lobby: Lobby, sessions: Sessions,
                 clock: IReactorTime, maxIllegal: int = 3,
                 takeover: Optional[str] = None, botLevel: int = 2,
                 botDelay: float = 0.5,
                 thinker: Optional[IThinker] = None,
                 names: Optional[Any] = None) -> None:
        self.lobby = lobby
        self.names = names
        self.sessions = sessions
        self.clock = clock
        self.maxIllegal = maxIllegal
        bots: Dict[str, Any] = {} if thinker is None else {"thinker": thinker}
        options = TableOptions(takeover=takeover, botLevel=botLevel,
                               botDelay=botDelay,
                               maxIllegal=rules.MAX_ILLEGAL_MOVES, **bots)
        self.policy = GomokuStartPolicy(clock, options, self.tableListener)
        self.players: Dict[int, GomokuPlayer] = {}

    def roomSummary(self, room: Room) -> Dict[str, Any]:
        """
        See L{IClusterRoomList.roomSummary}: the wire C{Room} object.
        """
        return roomObjectOf(room)

    def tableListener(self, room: Room,
                      table: GomokuTable) -> ITableListener:
        """
        The listener that turns C{table}'s events into frames.
        """
        return GomokuTableListener(self.lobby, room)

    def graceExpired(self, session: Session) -> None:
        """
        The grace of C{session}, lost mid-game, ran out: its seat is
        dropped (the table forfeits it or has a bot play it), then, unless
        a bot plays on, the room exit rules apply.  The name is freed.
        """
        self.players.pop(session.id, None)
        room = self.lobby.roomOf(session)
        if room is None:
            return
        if room.running:
            # A running room has its table, where every member is seated.
            table, member = room.table, room.memberOf(session)
            assert table is not None and member is not None
            assert member.seat is not None
            table.drop(member.seat)
            if room.running:
                return
        self.lobby.leave(session)
