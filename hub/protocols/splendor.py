"""
The Splendor (璀璨宝石) protocol (spec splendor.md) over the shared lobby.

A L{SplendorProtocol} is one connection.  It reassembles frames
(L{hub.wire.splendor.FrameReader}), checks that every message after INIT
carries the connection's player id, hands INIT and departures to
L{hub.tables.splendor.SplendorSeats} and actions to the running
L{hub.tables.splendor.SplendorTable}, and observes its room (a lobby room
of kind C{"splendor"}) to turn lobby events into frames.  One
L{SplendorFeed} per table turns the table's events into broadcasts.  The
game flow (seating order, deal, retirement, takeover) is the table's.

The header's player ids, seating, what is invalid, frame lengths,
C{minGap} and what a disconnection sends: docs/protocols/splendor.md,
"Decisions taken by the hub" and "Disconnections and takeover".
"""

from __future__ import annotations

import random
from typing import Any, Dict, Optional, cast

from twisted.internet.interfaces import IReactorTime
from twisted.internet.protocol import Protocol, connectionDone
from twisted.logger import Logger
from twisted.python.failure import Failure
from zope.interface import implementer

from hub.games import splendor as rules
from hub.games.splendor_moves import OperationDone
from hub.ihub import (
    IClusterPeer, IGameFactory, IGameRules, ISplendorPeer, IThinker, ITable,
    ITableListener, Member, Room)
from hub.lobby import Draining, Lobby, RoomObserver
from hub.connection import ServerConnection, ServerFactory
from hub.connection.pacing import PacedWriter
from hub.sessions import Session, Sessions
from hub.tables import events
from hub.tables import splendor as tables
from hub.tables.base import TableError, TableOptions
from hub.wire import splendor as wire

KIND = tables.KIND

NEW = "NEW"
TABLE = "TABLE"
GAME = "GAME"

# Where wire values and rule values meet.  UNKNOWN_CARD_BASE is the same
# number on both sides (the deck a fold_card_unknown names); a test pins
# the two constants equal.
RULE_OPERATIONS = {
    wire.GET_GEMS: rules.GET_GEMS,
    wire.BUY_CARD: rules.BUY_CARD,
    wire.FOLD_CARD: rules.FOLD_CARD,
    wire.FOLD_CARD_UNKNOWN: rules.FOLD_CARD_UNKNOWN,
    wire.DISCARD_GEMS_OP: rules.DISCARD_GEMS,
}
WIRE_OPERATIONS = {rule: w for w, rule in RULE_OPERATIONS.items()}


def frameKind(frame: bytes) -> int:
    """
    The API id of a whole frame (what L{PacedWriter} spaces).
    """
    apiId: int = wire.HEADER.unpack_from(frame)[0]
    return apiId


@implementer(IClusterPeer, ISplendorPeer)
class SplendorProtocol(
        Protocol,
        RoomObserver,
        ServerConnection):
    """
    One Splendor connection, and the observer of its room.

    @ivar state: L{NEW} (no table), L{TABLE} (seated, waiting) or L{GAME}.
    @ivar session: the connection's L{hub.sessions.Session}; its C{id} is
        the player id.
    @ivar pacer: the L{PacedWriter} of this connection's frames.
    """

    log = Logger()
    # The room the next INIT seats at if it is open (set by the cluster).
    preferredTable: Optional[str] = None
    # See ServerConnection.
    transport: Any
    factory: SplendorFactory

    def __init__(self) -> None:
        self.reader = wire.FrameReader()
        self.session: Optional[Session] = None
        self.pacer: Optional[PacedWriter] = None
        self._state = NEW

    def adopt(self, preface: Dict[str, Any]) -> bool:
        """
        See L{IClusterPeer.adopt}: the next INIT seats at the C{table} the
        other node chose.
        """
        self.preferredTable = preface.get("table")
        return True

    def routable(self) -> bool:
        """
        See L{IClusterPeer.routable}: before an INIT seats the player.
        """
        return self._state == NEW

    def registered(self) -> bool:
        """
        See L{IClusterPeer.registered}: once an INIT seated the player.
        """
        return self._state != NEW

    def handOverName(self) -> Optional[str]:
        """
        See L{IClusterPeer.handOverName}: a Splendor player is handed over
        before it has a name.
        """
        return None

    @property
    def state(self) -> str:
        """
        L{NEW}, L{TABLE} or L{GAME}; mirrored in the session's C{state}.
        """
        return self._state

    @state.setter
    def state(self, value: str) -> None:
        self._state = value
        if self.session is not None:
            self.session.state = value

    @property
    def playerId(self) -> int:
        """
        This connection's player id.
        """
        # Connected (connectionMade) before anything is sent or read.
        assert self.session is not None
        playerId: int = self.session.id
        return playerId

    def connectionMade(self) -> None:
        self.startConnection()
        self.pacer = PacedWriter(self.factory.clock, self.writer,
                                 self.transport, self.factory.minGap,
                                 frameKind)
        self.session = self.factory.sessions.connect(KIND, self)
        self.state = NEW

    # Sending.

    def sendFrame(self, frame: bytes) -> None:
        """
        Write one whole frame, in one write, spaced by the factory's
        C{minGap}; a connection too far behind is closed.
        """
        if self.transport is None or self.transport.disconnecting:
            return
        # Made by connectionMade, before anything is sent.
        assert self.pacer is not None
        if not self.pacer.write(frame):
            self.logClosing("splendor connections too far behind",
                            "splendor player {id} is too many messages "
                            "behind; closing", id=self.playerId)
            self.transport.loseConnection()

    def sendMessage(self, apiId: int, playerId: int = 0,
                    body: Optional[Dict[str, Any]] = None) -> None:
        """
        Send one message.
        """
        self.sendFrame(wire.packFrame(apiId, playerId, body))

    def invalid(self) -> None:
        """
        PLAYER_OPERATION_INVALID to this player only.
        """
        self.sendMessage(wire.PLAYER_OPERATION_INVALID, self.playerId)

    # Receiving.

    def dataReceived(self, data: bytes) -> None:
        self.resetTimeout()
        if self.transport.disconnecting:
            return
        try:
            frames = self.reader.feed(data)
            bad = None
        except wire.FrameError as e:
            # Its text only: the error's traceback holds this frame.
            frames, bad = e.frames, str(e)
        for apiId, playerId, raw in frames:
            self.countRequest()
            if self.transport.disconnecting:
                return
            try:
                self.frameReceived(apiId, playerId, raw)
            except Exception:
                self.log.failure("splendor frame {api} failed", api=apiId)
                self.invalid()
        if bad is not None and not self.transport.disconnecting:
            self.logClosing("splendor connections sent a bad frame",
                            "splendor player {id}: {error}; closing",
                            id=self.playerId, error=bad)
            self.transport.loseConnection()

    def frameReceived(self, apiId: int, playerId: int, raw: bytes) -> None:
        """
        Handle one frame.
        """
        if apiId == wire.INIT:
            self.onInit()
            return
        if self.state == NEW or playerId != self.playerId:
            self.invalid()
            return
        if apiId == wire.PLAYER_READY:
            if self.state == TABLE:
                # Connected (connectionMade) before any frame is read.
                assert self.session is not None
                self.factory.lobby.setReady(self.session, True)
            return
        if apiId not in (wire.PLAYER_OPERATION, wire.PLAYER_GET_NOBLE):
            self.invalid()
            return
        try:
            body = wire.decodeBody(raw)
            if apiId == wire.PLAYER_OPERATION:
                operation = wire.decodeOperation(body)
                bodyId = operation.playerId
                action = rules.Action(RULE_OPERATIONS[operation.kind],
                                      operation.card, operation.gems)
            else:
                bodyId, noble = wire.decodeNobleChoice(body)
                action = rules.Action(rules.GET_NOBLE, noble)
        except wire.BodyError:
            self.invalid()
            return
        if bodyId not in (None, self.playerId):
            self.invalid()
            return
        self.play(action)

    def onInit(self) -> None:
        if self.state != NEW:
            self.invalid()
            return
        self.state = TABLE
        preferred, self.preferredTable = self.preferredTable, None
        assert self.session is not None
        try:
            self.factory.seats.seat(self.session, self, preferred)
        except Draining:
            # No new table or seat while the hub drains.
            self.state = NEW
            self.invalid()

    def play(self, action: rules.Action) -> None:
        """
        Play C{action} for this player at the running table, or answer
        PLAYER_OPERATION_INVALID; the table's listeners announce it.
        """
        # Connected (connectionMade) before any frame is read.
        assert self.session is not None
        room = self.factory.lobby.roomOf(self.session)
        if self.state != GAME or room is None or room.table is None:
            self.invalid()
            return
        # The session's room has its member.
        member = room.memberOf(self.session)
        assert member is not None
        try:
            room.table.act(member.seat, action)
        except TableError:
            self.invalid()

    # Room events.

    def memberJoined(self, room: Room, actor: Member) -> None:
        if actor.session is self.session:
            others = [m.session.id for m in room.members
                      if m is not actor]
            self.sendMessage(wire.INIT_RESP, self.playerId,
                             wire.initRespBody(self.playerId, others))
        self.sendMessage(wire.NEW_PLAYER, actor.session.id)

    def readyChanged(self, room: Room, actor: Member) -> None:
        if actor.ready:
            self.sendMessage(wire.PLAYER_READY, actor.session.id)

    def gameStarted(self, room: Room) -> None:
        self.state = GAME

    def gameEnded(self, room: Room, game: IGameRules) -> None:
        self.state = NEW

    # Connection loss.

    def connectionLost(self, reason: Failure = connectionDone) -> None:
        self.endConnection()
        if self.pacer is not None:
            self.pacer.stop()
        if self.session is None:
            return
        self.factory.seats.leave(self.session)
        self.state = NEW
        self.factory.sessions.disconnect(self.session)

    def partialFrameBytes(self) -> int:
        return self.reader.pending()

    def dropPartialFrame(self) -> None:
        self.reader = wire.FrameReader(self.reader.maxLength)


#: Whether a member's observer is a Splendor connection, that hears the
#: table's frames (a browser player or a room bot hears its own events).
_hears = ISplendorPeer.providedBy


@implementer(ITableListener)
class SplendorFeed:
    """
    Turns the events of one table into the messages of its room's members
    (spec section 5.8), in order.
    """

    def __init__(self, room: Room) -> None:
        self.room = room

    def tableEvent(self, table: ITable, event: object) -> None:
        handler = getattr(self, "on" + type(event).__name__, None)
        if handler is not None:
            handler(table, event)

    def broadcast(self, apiId: int, playerId: int = 0,
                  body: Optional[Dict[str, Any]] = None) -> None:
        """
        Send one message to every member of the room.
        """
        frame = wire.packFrame(apiId, playerId, body)
        for member in list(self.room.members):
            if _hears(member.observer):
                member.observer.sendFrame(frame)

    def sendTo(self, seat: int, apiId: int, playerId: int,
               body: Optional[Dict[str, Any]] = None) -> None:
        """
        Send one message to the player of C{seat}, if still present.
        """
        member = self.room.memberAt(seat)
        if member is not None and _hears(member.observer):
            member.observer.sendMessage(apiId, playerId, body)

    def onGameStarted(self, table: ITable,
                      event: events.GameStarted) -> None:
        deal = event.position
        self.broadcast(wire.GAME_START, 0, wire.gameStartBody(
            [seat.playerId for seat in event.seats], deal["nobles"],
            *deal["board"]))

    def onTurnStarted(self, table: ITable,
                      event: events.TurnStarted) -> None:
        self.broadcast(wire.NEW_TURN, 0,
                       wire.newTurnBody(table.seats[event.seat].playerId))

    def onCardDealt(self, table: ITable, event: events.CardDealt) -> None:
        # Splendor deals a card, or nothing (hub.games.splendor_moves).
        assert event.card is not None
        self.broadcast(wire.NEW_CARD, 0, wire.newCardBody(event.card))

    def onDiscardRequired(self, table: ITable,
                          event: tables.DiscardRequired) -> None:
        playerId = table.seats[event.seat].playerId
        self.sendTo(event.seat, wire.DISCARD_GEMS, playerId,
                    wire.discardGemsBody(event.count))

    def onNobleOffered(self, table: ITable,
                       event: tables.NobleOffered) -> None:
        playerId = table.seats[event.seat].playerId
        self.sendTo(event.seat, wire.PLAYER_GET_NOBLE, playerId,
                    wire.nobleBody(playerId, event.nobles))

    def onNobleAwarded(self, table: ITable,
                       event: tables.NobleAwarded) -> None:
        playerId = table.seats[event.seat].playerId
        self.broadcast(wire.PLAYER_GET_NOBLE, 0 if event.chosen else playerId,
                       wire.nobleBody(playerId, [event.noble]))

    def onGameEnded(self, table: ITable, event: events.GameEnded) -> None:
        if event.winner is not None:
            self.broadcast(wire.WINNER, table.seats[event.winner].playerId)

    def onActionPlayed(self, table: ITable,
                       event: events.ActionPlayed) -> None:
        """
        The PLAYER_OPERATION broadcast of one move (header 0); a noble
        choice is announced by its L{tables.NobleAwarded}.
        """
        done = cast("Optional[OperationDone]", event.detail)
        if done is None:
            return
        playerId = table.seats[event.seat].playerId
        action = event.action
        kind = WIRE_OPERATIONS[action.kind]
        if kind == wire.GET_GEMS:
            body = wire.getGemsBody(playerId, action.gems)
        elif kind == wire.BUY_CARD:
            body = wire.buyCardBody(playerId, action.card, action.gems)
        elif kind == wire.FOLD_CARD:
            body = wire.foldCardBody(playerId, action.card, done.golden)
        elif kind == wire.DISCARD_GEMS_OP:
            body = wire.discardBody(playerId, action.gems)
        else:
            self.announceHiddenReserve(event.seat, playerId, action, done)
            return
        self.broadcast(wire.PLAYER_OPERATION, 0, body)

    def announceHiddenReserve(self, seat: int, playerId: int,
                              action: rules.Action,
                              done: OperationDone) -> None:
        """
        fold_card_unknown: the others see the deck (C{10000 + level}),
        the reserving player the card drawn.
        """
        level = action.card - wire.UNKNOWN_CARD_BASE
        hidden = wire.packFrame(wire.PLAYER_OPERATION, 0, wire.foldUnknownBody(
            playerId, level, action.card, done.golden))
        for member in list(self.room.members):
            if member.seat != seat and _hears(member.observer):
                member.observer.sendFrame(hidden)
        self.sendTo(seat, wire.PLAYER_OPERATION, 0, wire.foldUnknownBody(
            playerId, level, done.drawn, done.golden))


@implementer(IGameFactory)
class SplendorFactory(ServerFactory):
    """
    Makes L{SplendorProtocol}s over the shared lobby and sessions.

    @param lobby: the shared L{hub.lobby.Lobby}.
    @param sessions: the shared L{hub.sessions.Sessions}.
    @param clock: the hub's tracked clock (tables, bots and pacing).
    @param takeover: L{None}, or C{"bot"} to have a bot play the seat of a
        player who disconnects mid-game.
    @param rng: a L{random.Random} for seating, dealing and the bots'
        seeds (a fresh one by default).
    @param botLevel: the level of takeover bots.
    @param botDelay: seconds between a takeover bot's moves (the Unity
        client cannot take two messages of one kind in one frame).
    @param thinker: the L{hub.ihub.IThinker} takeover bots ask for their
        moves (the hub's worker pool; see L{TableOptions}).
    @param minGap: if positive, the least time in seconds between two
        messages of one kind to one connection (L{PacedWriter}); 0 (the
        default) sends at once.
    @param names: the name check (L{ServerFactory.names}), or None.
    """

    protocol = SplendorProtocol

    def __init__(self, lobby: Lobby, sessions: Sessions,
                 clock: IReactorTime, takeover: Optional[str] = None,
                 rng: Optional[random.Random] = None, botLevel: int = 2,
                 botDelay: float = 1.0, thinker: Optional[IThinker] = None,
                 minGap: float = 0.0, names: Optional[Any] = None) -> None:
        self.lobby = lobby
        self.names = names
        self.sessions = sessions
        self.clock = clock
        self.minGap = minGap
        bots: Dict[str, Any] = {} if thinker is None else {"thinker": thinker}
        options = TableOptions(takeover=takeover, botLevel=botLevel,
                               botDelay=botDelay, **bots)
        self.policy = tables.SplendorStartPolicy(
            lobby, clock, rng if rng is not None else random.Random(),
            options, self.feedFor)
        self.seats = tables.SplendorSeats(lobby, self.policy)

    def feedFor(self, room: Room,
                table: tables.SplendorTable) -> ITableListener:
        """
        The listener that tells C{room}'s members what happens at
        C{table}.
        """
        return SplendorFeed(room)
