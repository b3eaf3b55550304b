"""
The gomoku-battle protocol (spec gomoku.md) over the shared lobby.

A L{GomokuProtocol} is one connection: it reassembles frames, keeps the
connection's session echo and illegal-operation count, and dispatches by
the player's state (INIT, IDLE, ROOM, GAME; spec section 6).  A
L{GomokuPlayer} is one registered player: it outlives a dropped connection
for the reconnect grace, observes the player's room and turns lobby
events into frames, queueing them while the player is lost.

Decisions where the spec leaves a choice (see also docs/protocols/gomoku.md):
  - passwords never appear in room information (C{psw} is C{""});
  - C{msg_move} to the opponent carries C{chess} 0, as the original;
  - the start request is answered with C{result(0)} before both players
    get C{msg_game(2, 0)};
  - reconnect grace applies to a player lost mid-game; a player who drops
    in IDLE or ROOM leaves at once (room exit rules, name freed);
  - a game that ends while a player is lost is queued for them like any
    other notification;
  - after a game both players get C{msg_room(type 3)} with the guest
    unready, so that clients keeping a local copy of the room re-sync;
  - with C{takeover="bot"}, a player whose grace runs out mid-game while
    the opponent is connected is replaced by a bot (L{GomokuBotSeat})
    instead of forfeiting; the bot's moves reach the opponent as
    ordinary C{msg_move} frames and the bot leaves when the game ends.
"""

from twisted.internet.protocol import Factory, Protocol
from twisted.logger import Logger

from hub.bots import botFor
from hub.bots.pilot import SeatPilot
from hub.games import gomoku as rules
from hub.lobby import (
    LobbyError, RoomExists, RoomNotFound, RoomObserver, WrongPassword)
from hub.protocols import ServerConnection
from hub.sessions import NameTaken
from hub.wire import gomoku as wire

KIND = "gomoku"

INIT = "INIT"
IDLE = "IDLE"
ROOM = "ROOM"
GAME = "GAME"


class GomokuStartPolicy:
    """
    The owner starts a gomoku game once a guest is present and ready.
    """

    autoStart = False

    def canStart(self, room):
        """
        A guest is present and ready.
        """
        return len(room.members) == 2 and room.members[1].ready

    def newGame(self, room):
        """
        A fresh board (the original forgot to clear it; spec section 10).
        """
        return rules.GomokuGame()


def ownerColour(room):
    """
    The colour the owner of C{room} plays.
    """
    return room.settings["oct"]


def colourOf(room, member):
    """
    The colour C{member} plays in C{room}.
    """
    oct = ownerColour(room)
    return oct if member is room.owner else wire.CHESS_SUM - oct


def guestOf(room):
    """
    The guest L{Member} of C{room}, or None.
    """
    for member in room.members:
        if member is not room.owner:
            return member
    return None


def roomObjectOf(room):
    """
    The wire C{Room} object for C{room} (passwords are never shown).
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
        room.name, room.owner.name, guest.name if guest else "",
        ownerColour(room), gs, state)


class GomokuPlayer(RoomObserver):
    """
    A registered player, with or without a live connection.

    @ivar protocol: the live L{GomokuProtocol}, or None while lost.
    @ivar pending: frames (as dicts without token and session) waiting for
        the player to come back.
    """

    def __init__(self, session, protocol):
        self.session = session
        self.protocol = protocol
        self.pending = []
        self.room = None
        self.seat = None

    def send(self, message):
        """
        Send C{message} (a dict), stamped with token and session, now or
        when the player comes back.
        """
        if self.protocol is None:
            self.pending.append(message)
        else:
            self.protocol.send(message)

    def replay(self):
        """
        Send what queued up while the player was lost.
        """
        pending, self.pending = self.pending, []
        for message in pending:
            self.send(message)

    def sendRoom(self, infoType, room):
        """
        Send room information of type C{infoType} (C{RI_*}).
        """
        self.send(wire.roomMessage(infoType, roomObjectOf(room), None, None))

    def memberJoined(self, room, actor):
        if actor.session is not self.session:
            self.sendRoom(wire.RI_PLAYER_JOIN, room)

    def memberLeft(self, room, actor, previousOwner):
        self.sendRoom(wire.RI_PLAYER_EXIT, room)

    def readyChanged(self, room, actor):
        if actor.session is not self.session:
            self.sendRoom(wire.RI_PLAYER_STATE, room)

    def roleChanged(self, room, actor):
        if actor.session is not self.session:
            self.sendRoom(wire.RI_PLAYER_CHESS, room)

    def gameStarted(self, room):
        self.session.state = GAME
        self.room = room
        self.seat = rules.seatOfColour(
            colourOf(room, room.memberOf(self.session)))
        self.send(wire.gameMessage(
            wire.GAME_STATE_RUNNING, wire.GAME_RSLT_NONE, None, None))

    def gameEnded(self, room, game):
        self.session.state = ROOM
        member = room.memberOf(self.session)
        if game.winner is not None:
            won = game.winner == colourOf(room, member)
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


class GomokuBotSeat(RoomObserver):
    """
    The seat of a player whose reconnect grace ran out mid-game, played
    by a bot (C{--takeover bot}).  It stands in the member's observer
    place: the opponent's moves reach it as C{msg_move} frames, which
    start the bot's turn; other frames are dropped.

    @ivar pilot: the L{SeatPilot} that plays the seat.
    """

    def __init__(self, factory, room, session, seat, pilot):
        self.factory = factory
        self.room = room
        self.session = session
        self.seat = seat
        self.pilot = pilot

    def send(self, message):
        """
        A frame for the departed player: a move of the opponent means it
        is the bot's turn.
        """
        if message.get("msg_type") == wire.MSG_MOVE:
            self.turn()

    def turn(self):
        """
        Have the bot play if the seat is to move.
        """
        game = self.room.game
        if game is not None and game.currentSeat == self.seat:
            self.pilot.turn(game, self.seat, self.play)

    def play(self, action):
        """
        Play C{action} = C{(x, y)} exactly as the player's own msg_move
        would have been played.
        """
        x, y = action
        self.room.game.apply(self.seat, (x, y))
        self.factory.moved(self.room, self.session, x, y)

    def gameEnded(self, room, game):
        """
        The game is over: stop the bot, then leave the room once every
        member has heard of the end.
        """
        self.pilot.stop()
        self.factory.clock.callLater(0, self.factory.lobby.leave,
                                     self.session)


class GomokuProtocol(Protocol, ServerConnection):
    """
    One gomoku connection.

    @ivar echo: the session of the last valid frame (spec section 5.2).
    @ivar failures: illegal operations so far (spec section 6.3).
    """

    log = Logger()

    def __init__(self):
        self.scanner = wire.FrameScanner()
        self.echo = wire.INVALID_SESSION
        self.failures = 0
        self.session = None
        self.player = None

    @property
    def lobby(self):
        return self.factory.lobby

    @property
    def sessions(self):
        return self.factory.sessions

    def connectionMade(self):
        self.startConnection()
        self.session = self.sessions.connect(KIND, self)
        self.session.state = INIT

    def send(self, message):
        """
        Write C{message} stamped with this connection's token and session
        echo, in one write.
        """
        if self.session.token is not None:
            message["token"] = self.session.token
        else:
            message["token"] = wire.INVALID_TOKEN
        message["session"] = self.echo
        self.writer.write(wire.encodeMessage(message))

    def result(self, status):
        """
        Answer the current request with C{status}.
        """
        self.send(wire.resultMessage(status, None, None))

    def dataReceived(self, data):
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
            try:
                self.frameReceived(payload)
            except Exception:
                self.log.failure("gomoku frame {frame!r} failed",
                                 frame=payload[:200])
                self.transport.loseConnection()
                return
        if tooLong and not self.transport.disconnecting:
            self.log.info("gomoku frame over {max} bytes; closing",
                          max=self.scanner.maxFrame)
            if self.session.state != INIT:
                self.echo = wire.INVALID_SESSION
                self.result(wire.S_INVALID_MSG)
            self.transport.loseConnection()

    def frameReceived(self, payload):
        """
        Handle one frame payload.
        """
        try:
            message = wire.decodeMessage(payload)
        except wire.InvalidMessage:
            message = None
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

    def illegal(self, status):
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

    def register(self, message):
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
        try:
            self.sessions.claimName(self.session, name)
        except NameTaken:
            self.result(wire.S_PLAYER_EXISTS)
            return
        self.session.state = IDLE
        self.player = GomokuPlayer(self.session, self)
        self.factory.players[self.session.id] = self.player
        self.result(wire.S_OK)

    def resume(self, name, token):
        """
        Take back the session of C{name} if C{token} is its token: a lost
        one, or a live one whose old connection is then closed (the player
        came back before the drop was noticed).
        """
        oldPeer = getattr(self.sessions.byName(KIND, name), "peer", None)
        session = self.sessions.resume(KIND, name, token, self)
        if session is None:
            return False
        if oldPeer is not None:
            oldPeer.transport.loseConnection()
        self.sessions.disconnect(self.session)
        self.session = session
        self.player = self.factory.players[session.id]
        self.player.protocol = self
        self.result(wire.S_OK)
        self.player.replay()
        return True

    # IDLE

    def listRooms(self, message):
        if wire.uintField(message, "target", 0) != wire.REQ_ROOM_LIST:
            self.illegal(wire.S_ILLEGAL_MSG)
            return
        rooms = [roomObjectOf(room) for room in self.lobby.rooms(KIND)]
        self.send(wire.roomListMessage(rooms or None, None, None))

    def operateFromIdle(self, message):
        operation = wire.uintField(message, "type", wire.RO_UNKNOWN)
        if operation == wire.RO_ROOM_CREATE:
            self.createRoom(wire.roomField(message))
        elif operation == wire.RO_ROOM_JOIN:
            self.joinRoom(wire.roomField(message))
        else:
            self.illegal(wire.S_ILLEGAL_OPER)

    def createRoom(self, fields):
        name, password = fields["name"], fields["psw"]
        if not (1 <= len(name.encode("utf-8")) <= wire.MAX_NAME_BYTES
                and len(password.encode("utf-8")) <= wire.MAX_PSW_BYTES):
            self.result(wire.S_ROOM_INVALID_META)
            return
        oct = fields["oct"]
        if oct not in (wire.CHESS_BLACK, wire.CHESS_WHITE):
            oct = wire.CHESS_WHITE
        try:
            room = self.lobby.createRoom(
                KIND, name, self.session, self.player, self.factory.policy,
                2, password=password)
        except RoomExists:
            self.result(wire.S_ROOM_EXISTS)
            return
        room.settings["oct"] = oct
        self.session.state = ROOM
        self.result(wire.S_OK)

    def joinRoom(self, fields):
        try:
            room = self.lobby.join(KIND, fields["name"], self.session,
                                   self.player, password=fields["psw"])
        except RoomNotFound:
            self.result(wire.S_ROOM_NOT_EXISTS)
        except WrongPassword:
            self.result(wire.S_ROOM_ILLEGAL_ACCESS)
        except LobbyError:
            self.result(wire.S_ROOM_FULL)
        else:
            self.session.state = ROOM
            self.result(wire.S_OK)
            self.player.sendRoom(wire.RI_PLAYER_JOIN, room)

    # ROOM

    def requestStart(self, message):
        if wire.uintField(message, "target", 0) != wire.REQ_GAME_START:
            self.illegal(wire.S_ILLEGAL_OPER)
            return
        room = self.lobby.roomOf(self.session)
        if room.owner.session is not self.session:
            self.result(wire.S_PLAYER_INVALID)
        elif not room.policy.canStart(room):
            self.result(wire.S_ROOM_ILLEGAL_OPER)
        else:
            self.result(wire.S_OK)
            self.lobby.start(room)

    def operateFromRoom(self, message):
        if wire.uintField(message, "type", wire.RO_UNKNOWN) \
                != wire.RO_ROOM_EXIT:
            self.illegal(wire.S_ILLEGAL_OPER)
            return
        self.leaveRoom()
        self.result(wire.S_OK)

    def leaveRoom(self):
        """
        Leave the room; a guest who becomes owner keeps the owner's colour
        (the room's C{oct} is unchanged, spec section 7.7).
        """
        self.lobby.leave(self.session)
        self.session.state = IDLE

    def changeChess(self, message):
        room = self.lobby.roomOf(self.session)
        colour = wire.uintField(message, "type", 0)
        if (room.owner.session is not self.session
                or colour not in (wire.CHESS_BLACK, wire.CHESS_WHITE)):
            self.result(wire.S_ROOM_ILLEGAL_OPER)
            return
        room.settings["oct"] = colour
        self.lobby.setRole(self.session, colour)
        self.result(wire.S_OK)

    def changeGuestState(self, message):
        room = self.lobby.roomOf(self.session)
        state = wire.uintField(message, "state", 0)
        if (room.owner.session is self.session or state not in
                (wire.PLAYER_STATE_PREPARE, wire.PLAYER_STATE_READY)):
            self.result(wire.S_ROOM_ILLEGAL_OPER)
            return
        self.lobby.setReady(self.session, state == wire.PLAYER_STATE_READY)
        self.result(wire.S_OK)

    # GAME

    def move(self, message):
        player = self.player
        game = player.room.game
        if game is None:
            return
        seat = player.seat
        if game.currentSeat != seat:
            self.result(wire.S_MATCH_ILLEGAL_MOVE)
            return
        try:
            x = wire.uintField(message, "x")
            y = wire.uintField(message, "y")
            game.apply(seat, (x, y))
        except (wire.InvalidMessage, rules.IllegalMove):
            self.result(wire.S_MATCH_ILLEGAL_MOVE)
            if game.refuse(seat):
                self.lobby.endGame(player.room)
            return
        self.result(wire.S_OK)
        self.factory.moved(player.room, self.session, x, y)

    # Connection loss

    def connectionLost(self, reason):
        self.endConnection()
        session = self.session
        if session is None or session.peer is not self:
            return
        state = session.state
        if state == GAME:
            self.player.protocol = None
            self.sessions.lose(session, self.factory.forfeit)
            return
        if state == ROOM:
            self.leaveRoom()
        self.sessions.disconnect(session)
        self.factory.players.pop(session.id, None)

    def partialFrameBytes(self):
        return self.scanner.pending()


GomokuProtocol.HANDLERS = {
    (IDLE, wire.MSG_REQUEST): GomokuProtocol.listRooms,
    (IDLE, wire.MSG_ROOM): GomokuProtocol.operateFromIdle,
    (ROOM, wire.MSG_REQUEST): GomokuProtocol.requestStart,
    (ROOM, wire.MSG_ROOM): GomokuProtocol.operateFromRoom,
    (ROOM, wire.MSG_CHESS): GomokuProtocol.changeChess,
    (ROOM, wire.MSG_STATE): GomokuProtocol.changeGuestState,
    (GAME, wire.MSG_MOVE): GomokuProtocol.move,
}


class GomokuFactory(Factory):
    """
    Makes L{GomokuProtocol}s over the shared lobby and sessions.

    @ivar players: the L{GomokuPlayer} of every registered session id.
    """

    protocol = GomokuProtocol
    log = Logger()

    def __init__(self, lobby, sessions, clock, maxIllegal=3, takeover=None,
                 botLevel=2, botDelay=0.5):
        self.lobby = lobby
        self.sessions = sessions
        self.clock = clock
        self.maxIllegal = maxIllegal
        self.takeover = takeover
        self.botLevel = botLevel
        self.botDelay = botDelay
        self.policy = GomokuStartPolicy()
        self.players = {}

    def moved(self, room, moverSession, x, y):
        """
        A stone was played at C{(x, y)} in C{room}: tell the opponent,
        then end the game if that was the last move.
        """
        move = wire.moveMessage(wire.CHESS_BLANK, x, y, None, None)
        for member in room.members:
            if member.session is not moverSession:
                member.observer.send(move)
        if room.game.isOver:
            self.lobby.endGame(room)

    def forfeit(self, session):
        """
        The grace of C{session}, lost mid-game, ran out: the opponent wins
        by forfeit, then the room exit rules apply and the name is freed.
        With C{takeover="bot"} and the opponent connected, a bot plays
        the seat instead (L{takeOver}); the name is freed all the same.
        """
        room = self.lobby.roomOf(session)
        if room is not None:
            if room.running:
                if self.takeover == "bot" and self.takeOver(room, session):
                    return
                member = room.memberOf(session)
                room.game.forfeit(
                    rules.seatOfColour(colourOf(room, member)))
                self.lobby.endGame(room)
            self.lobby.leave(session)
        self.players.pop(session.id, None)

    def takeOver(self, room, session):
        """
        Put a bot in the seat of C{session}, lost mid-game in C{room},
        if its opponent is still connected.

        @return: True if a bot now plays the seat.
        """
        member = room.memberOf(session)
        others = [m for m in room.members if m is not member]
        if not others or others[0].session.lost:
            return False
        seat = rules.seatOfColour(colourOf(room, member))
        bot = botFor(KIND, self.botLevel, seed=session.id)
        pilot = SeatPilot(self.clock, bot, self.botDelay)
        member.observer = GomokuBotSeat(self, room, session, seat, pilot)
        self.players.pop(session.id, None)
        self.log.info("gomoku {room!r}: a bot plays for {name!r}",
                      room=room.name, name=session.name)
        member.observer.turn()
        return True
