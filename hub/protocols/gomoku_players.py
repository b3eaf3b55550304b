"""
What each gomoku player hears: lobby events (L{GomokuPlayer}, a room
observer) and table events (L{GomokuTableListener}) turned into frames,
and the one place where wire colours and the rules' seats meet.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Protocol, cast

from twisted.logger import Logger
from zope.interface import implementer

from hub.games import gomoku as rules
from hub.ihub import (
    IGameRules, IGomokuPeer, ITable, ITableListener, Member, Room)
from hub.lobby import Lobby, RoomObserver
from hub.sessions import Session
from hub.tables.events import ActionPlayed, GameEnded, SeatTakenOver
from hub.tables.gomoku import OWNER_SEAT
from hub.wire import gomoku as wire

# A player's states (spec section 6), in Session.state.
INIT = "INIT"
IDLE = "IDLE"
ROOM = "ROOM"
GAME = "GAME"

# Where wire colours and the rules' seats meet: nowhere else.
SEAT_OF_COLOUR = {wire.CHESS_BLACK: rules.SEAT_BLACK,
                  wire.CHESS_WHITE: rules.SEAT_WHITE}
COLOUR_OF_SEAT = {seat: colour for colour, seat in SEAT_OF_COLOUR.items()}


class Sender(Protocol):
    """
    A player's live connection, as its L{GomokuPlayer} uses it (a
    L{hub.protocols.gomoku.GomokuProtocol}).
    """

    def send(self, message: Dict[str, Any]) -> None:
        """
        Send one message, stamped with the connection's token and echo.
        """


def guestOf(room: Room) -> Optional[Member]:
    """
    The guest L{Member} of C{room}, or None.
    """
    for member in room.members:
        if member is not room.owner:
            return member
    return None


def roomObjectOf(room: Room,
                 viewer: Optional[Session] = None) -> Dict[str, Any]:
    """
    The wire C{Room} object for C{room} (passwords are never shown), as
    the session C{viewer} sees it: its own name exactly as it sent it
    (L{hub.sessions.Session.nameTo}).  A room opened empty, as the
    tournament director's are, has an empty owner name until someone
    joins.
    """
    guest = guestOf(room)
    if room.running:
        state = wire.ROOM_STATE_MATCH
    elif guest is not None:
        state = wire.ROOM_STATE_FULL
    else:
        state = wire.ROOM_STATE_OPEN
    gs = (wire.PLAYER_STATE_READY if guest is not None and guest.ready
          else wire.PLAYER_STATE_PREPARE)
    return wire.roomObject(
        room.name,
        room.owner.session.nameTo(viewer) if room.owner is not None
        else "",
        guest.session.nameTo(viewer) if guest else "",
        COLOUR_OF_SEAT[room.settings[OWNER_SEAT]], gs, state)


@implementer(IGomokuPeer)
class GomokuPlayer(RoomObserver):
    """
    A registered player, with or without a live connection.

    @ivar protocol: the live L{GomokuProtocol}, or None while lost.
    @ivar pending: frames (as dicts without token and session) waiting for
        the player to come back.
    @ivar room: the room of the player's last game.
    @ivar seat: the player's seat in that game.
    """

    def __init__(self, session: Session,
                 protocol: Optional[Sender]) -> None:
        self.session = session
        self.protocol = protocol
        self.pending: List[Dict[str, Any]] = []
        self.room: Optional[Room] = None
        self.seat: Optional[int] = None

    def send(self, message: Dict[str, Any]) -> None:
        """
        Send C{message} (a dict), stamped with token and session, now or
        when the player comes back (never, once the session is closed).
        """
        if self.protocol is not None:
            self.protocol.send(message)
        elif not self.session.closed:
            self.pending.append(message)

    def replay(self) -> None:
        """
        Send what queued up while the player was lost.
        """
        pending, self.pending = self.pending, []
        for message in pending:
            self.send(message)

    def sendRoom(self, infoType: int, room: Room) -> None:
        """
        Send room information of type C{infoType} (C{RI_*}).
        """
        self.send(wire.roomMessage(infoType, roomObjectOf(room, self.session),
                                   None, None))

    def memberJoined(self, room: Room, actor: Member) -> None:
        if actor.session is not self.session:
            self.sendRoom(wire.RI_PLAYER_JOIN, room)

    def memberLeft(self, room: Room, actor: Member,
                   previousOwner: Optional[Member]) -> None:
        self.sendRoom(wire.RI_PLAYER_EXIT, room)

    def readyChanged(self, room: Room, actor: Member) -> None:
        if actor.session is not self.session:
            self.sendRoom(wire.RI_PLAYER_STATE, room)

    def roleChanged(self, room: Room, actor: Member) -> None:
        if actor.session is not self.session:
            self.sendRoom(wire.RI_PLAYER_CHESS, room)

    def gameStarted(self, room: Room) -> None:
        self.session.state = GAME
        self.room = room
        self.seat = room.memberOf(self.session).seat
        self.send(wire.gameMessage(
            wire.GAME_STATE_RUNNING, wire.GAME_RSLT_NONE, None, None))

    def gameEnded(self, room: Room, game: IGameRules) -> None:
        self.session.state = ROOM
        game = cast(rules.GomokuGame, game)
        if game.winnerSeat is not None:
            won = game.winnerSeat == self.seat
            ex = wire.GAME_RSLT_WIN if won else wire.GAME_RSLT_LOSE
        elif game.isDraw:
            ex = wire.GAME_RSLT_DRAW
        else:
            ex = wire.GAME_RSLT_ERROR
        self.send(wire.gameMessage(wire.GAME_STATE_END, ex, None, None))
        if not any(m.session.lost for m in room.members) \
                and len(room.members) == 2:
            # The guest is not ready any more: say so to both, so that
            # icc's local copy of the room (which gates its ready and
            # start commands) matches the server's (spec section 11.8).
            self.sendRoom(wire.RI_PLAYER_STATE, room)


@implementer(ITableListener)
class GomokuTableListener:
    """
    The adapter's listener at one table: a stone goes to the opponent as
    C{msg_move}; the end of the game ends the room's game (the members'
    C{msg_game} come from L{GomokuPlayer.gameEnded}), then the seats a
    bot played leave the room.

    @ivar players: the observer of each seat (a L{GomokuPlayer}, or a
        browser player's or a room bot's).
    @ivar hearing: of each seat, its observer if it hears this adapter's
        frames (an L{IGomokuPeer}), else None (a browser player's or a
        room bot's: no C{msg_move} is made for it).
    @ivar departed: the sessions of the seats a bot plays.
    """

    log = Logger()

    def __init__(self, lobby: Lobby, room: Room) -> None:
        self.lobby = lobby
        self.room = room
        self.players = [room.memberAt(seat).observer
                        for seat in (rules.SEAT_BLACK, rules.SEAT_WHITE)]
        self.hearing = [
            player if IGomokuPeer.providedBy(player) else None
            for player in self.players]
        self.departed: List[Session] = []

    def tableEvent(self, table: ITable, event: object) -> None:
        eventType = type(event)
        if eventType is ActionPlayed:
            played = cast(ActionPlayed, event)
            opponent = self.hearing[1 - played.seat]
            if opponent is not None:
                x, y = played.action
                opponent.send(
                    wire.moveMessage(wire.CHESS_BLANK, x, y, None, None))
        elif eventType is GameEnded:
            self.lobby.endGame(self.room)
            for session in self.departed:
                self.lobby.leave(session)
        elif eventType is SeatTakenOver:
            session = self.players[cast(SeatTakenOver, event).seat].session
            self.departed.append(session)
            self.log.info("gomoku {room!r}: a bot plays for {name!r}",
                          room=self.room.name, name=session.name,
                          kind="gomoku", event="takeover")
