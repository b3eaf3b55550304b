"""
The Chinese checkers protocol (specs/checkers.md section 7) over the
shared lobby.

A L{CheckersProtocol} is one connection: it reads lines, decodes them with
L{hub.wire.checkers}, calls the lobby, and as the room's observer turns
lobby events into messages.  A L{CheckersTable} is the running game of one
room: seats, the turn timer, and the messages of a turn (START_TURN_OP,
forwarded MOVE_OPs, timeouts, END_TURN_OP, END_GAME_OP).  The rules are in
L{hub.games.checkers}.

Decisions where the spec leaves a choice (see also specs/README.md):
  - names are unique within a room, not across the server;
  - ERROR_OP data1 is the decimal code, or with C{errorNames} the code's
    name (for the clients written against the official Team 4 server);
  - JOIN_ROOM_OP to the other members carries an empty data2, or with
    C{joinSeats} the joiner's 1-based seat (the Team 1 client needs it);
  - JOIN while in a room is OTHER_ERROR; READY while the game runs is
    ROOM_IS_RUNNING; LEAVE from outside a room is ignored;
  - MOVE_OP data1 may be the mover's region or empty, anything else is
    INVALID_MOVE; the region forwarded is always the server's;
  - client END_TURN_OP and unknown ops (CHECK_OP...) are ignored; ops only
    the server sends are INVALID_REQ;
  - games start only when the last member readies (not after a LEAVE);
  - the turn timer runs C{turnSeconds} plus a grace of C{turnGrace}
    seconds from START_TURN_OP; illegal moves do not reset it;
  - a player who leaves or drops mid-game keeps their seat and pieces and
    is eliminated (MOVE_OP(region, "-1")) when their turn comes, at once
    if it is their turn; with C{takeover="bot"} a bot plays the seat;
  - END_GAME_OP dissolves the room: its members are in no room and may
    join again under any name.
"""

import functools
import re

from twisted.internet.protocol import Factory
from twisted.logger import Logger
from twisted.protocols.basic import LineOnlyReceiver
from zope.interface import implementer

from hub.bots import botFor
from hub.bots.pilot import SeatPilot
from hub.games import checkers as rules
from hub.ihub import IStartPolicy
from hub.lobby import (
    LobbyError, NameInRoom, RoomFull, RoomObserver,
    RoomRunning)
from hub.protocols import ServerConnection
from hub.wire import checkers as wire

KIND = "checkers"

# The most members a room holds (section 7.1).
CAPACITY = 6

NAME_PATTERN = re.compile(r"[A-Za-z0-9_]{1,20}")

# Ops only the server sends; a client sending one gets INVALID_REQ.
SERVER_ONLY_OPS = frozenset([
    wire.JOIN_ROOM_REPLY_OP, wire.CLOSE_ROOM_OP, wire.START_GAME_OP,
    wire.START_TURN_OP, wire.END_GAME_OP, wire.ERROR_OP])


def isValidName(name):
    """
    Whether C{name} is 1 to 20 ASCII letters, digits or underscores.
    """
    return NAME_PATTERN.fullmatch(name) is not None


@implementer(IStartPolicy)
class CheckersStartPolicy:
    """
    A checkers room starts by itself when every member is ready and there
    are 2, 3 or 6 of them (or 4 with C{fourPlayers}).
    """

    autoStart = True

    def __init__(self, fourPlayers=False):
        self.counts = frozenset(rules.STANDARD_PLAYER_COUNTS) | (
            frozenset([4]) if fourPlayers else frozenset())

    def canStart(self, room):
        """
        Everyone is ready and the member count is allowed.
        """
        return room.allReady and len(room.members) in self.counts

    def newGame(self, room):
        """
        A new game with one seat per member, regions by join order.
        """
        return rules.CheckersGame(len(room.members))


class CheckersTable:
    """
    The running game of one room.

    @ivar room: the lobby's L{hub.lobby.Room}.
    @ivar game: the L{rules.CheckersGame}.
    @ivar names: the player name of each seat.
    @ivar departed: seats whose player left or dropped mid-game.
    @ivar pilots: the L{SeatPilot} of every departed seat a bot plays.
    """

    log = Logger()

    def __init__(self, factory, room):
        self.factory = factory
        self.room = room
        self.game = room.game
        self.names = room.names()
        self.sessions = [member.session for member in room.members]
        self.departed = set()
        self.pilots = {}
        self._call = None

    # Messages

    def broadcast(self, data, exclude=None):
        """
        Write C{data} to every member now in the room but C{exclude} (a
        session).
        """
        for member in list(self.room.members):
            if member.session is not exclude:
                member.observer.sendBytes(data)

    def region(self, seat):
        """
        The region letter of C{seat}.
        """
        return self.game.regions[seat]

    def seatOf(self, session):
        """
        The seat of C{session}, or None.
        """
        for seat, s in enumerate(self.sessions):
            if s is session:
                return seat
        return None

    # Turns

    def begin(self):
        """
        The game has started: announce the first turn.
        """
        self.startTurn()

    def startTurn(self):
        """
        Announce the turn of the current seat and start its clock; a
        departed seat is eliminated at once (or played by a bot).
        """
        seat = self.game.currentSeat
        stamp = str(int(self.factory.clock.seconds()))
        self.broadcast(wire.encode(wire.START_TURN_OP, self.region(seat),
                                   stamp))
        if seat in self.departed:
            self.departedTurn(seat)
        else:
            self._schedule(self.factory.turnSeconds + self.factory.turnGrace,
                           self.timedOut)

    def departedTurn(self, seat):
        """
        It is the turn of C{seat}, whose player is gone: its bot moves
        after C{botDelay} (L{SeatPilot}) if L{_botPlays} and it has a
        legal move, else the seat is eliminated now.
        """
        self._cancel()
        if self._botPlays() and self.game.legalActions(seat):
            self.pilotOf(seat).turn(self.game, seat,
                                    functools.partial(self.botPlayed, seat))
        else:
            self.eliminateCurrent()

    def _botPlays(self):
        """
        Whether a bot should play the departed seat to move: only with
        takeover, and only while someone still connected is playing.
        """
        if self.factory.takeover != "bot":
            return False
        return any(seat not in self.departed
                   for seat in self.game.activeSeats())

    def pilotOf(self, seat):
        """
        The L{SeatPilot} of the departed C{seat}, made on its first turn
        with the bot C{botFactory(botLevel, seat)} (the seat is the seed).
        """
        pilot = self.pilots.get(seat)
        if pilot is None:
            factory = self.factory
            bot = factory.botFactory(factory.botLevel, seat)
            pilot = self.pilots[seat] = SeatPilot(factory.clock, bot,
                                                  factory.botDelay)
        return pilot

    def botPlayed(self, seat, path):
        """
        The bot of C{seat} chose the legal C{path}: play it as the
        player's own MOVE_OP would have been.
        """
        self.played(self.game.apply(seat, path))

    def stopPilots(self):
        """
        The game is over or abandoned: no bot acts any more.
        """
        for pilot in self.pilots.values():
            pilot.stop()

    def _schedule(self, delay, f):
        self._cancel()
        self._call = self.factory.clock.callLater(delay, self._guarded, f)

    def _guarded(self, f):
        """
        Run a timer callback; an error is logged and never reaches the
        reactor.
        """
        self._call = None
        try:
            f()
        except Exception:
            self.log.failure("checkers {room!r}: {f} failed",
                             room=self.room.name, f=f.__name__)

    def _cancel(self):
        if self._call is not None:
            if self._call.active():
                self._call.cancel()
            self._call = None

    def move(self, session, data1, data2):
        """
        C{session} sent MOVE_OP(data1, data2).

        @return: None when played, else C{(errcode, reason)}.
        """
        seat = self.seatOf(session)
        game = self.game
        if seat is None or seat != game.currentSeat:
            current = game.currentSeat
            return (wire.OUTTURN_MOVE,
                    "it is %s's turn" % (self.region(current),))
        region = self.region(seat)
        if data1 not in ("", region):
            return (wire.INVALID_MOVE,
                    "you play region %s, not %r" % (region, data1[:20]))
        try:
            path = wire.parsePath(data2)
            result = game.apply(seat, path)
        except (wire.PathError, rules.IllegalMove) as e:
            return (wire.INVALID_MOVE, str(e))
        self.played(result, session)
        return None

    def played(self, result, moverSession=None):
        """
        A legal move was applied: forward it and end the turn.
        """
        self._cancel()
        seat = result.seat
        self.log.debug("checkers {room!r}: {region} moved {path}",
                       room=self.room.name, region=self.region(seat),
                       path=wire.formatPath(result.path))
        self.broadcast(wire.encode(wire.MOVE_OP, self.region(seat),
                                   wire.formatPath(result.path)),
                       exclude=moverSession)
        if result.finished and moverSession is not None:
            member = self.room.memberOf(moverSession)
            if member is not None:
                member.observer.sendBytes(wire.encode(wire.END_TURN_OP))
        self.afterTurn(result)

    def afterTurn(self, result):
        """
        End the game, or start the next turn.
        """
        if result.over:
            self.finish()
        else:
            self.startTurn()

    def timedOut(self):
        """
        The current seat ran out of time.
        """
        self.log.info("checkers {room!r}: {region} timed out",
                      room=self.room.name,
                      region=self.region(self.game.currentSeat))
        self.eliminateCurrent()

    def eliminateCurrent(self):
        """
        Eliminate the seat to move: MOVE_OP(region, "-1") to everyone.
        """
        self._cancel()
        result = self.game.timeout()
        self.broadcast(wire.encode(wire.MOVE_OP, self.region(result.seat),
                                   wire.TIMEOUT_PATH))
        self.afterTurn(result)

    def finish(self):
        """
        The game is over: END_GAME_OP with the ranking to everyone, then
        the room is dissolved.
        """
        self._cancel()
        self.stopPilots()
        ranking = " ".join(self.names[s] for s in self.game.ranking())
        self.log.info("checkers {room!r} over: {ranking}",
                      room=self.room.name, ranking=ranking)
        self.broadcast(wire.encode(wire.END_GAME_OP, ranking))
        self.factory.tables.pop(self.room, None)
        lobby = self.factory.lobby
        members = list(self.room.members)
        lobby.endGame(self.room)
        lobby.dissolve(self.room)
        for member in members:
            member.session.name = None

    def memberLeft(self, session):
        """
        The player of C{session} left the room or dropped: keep the seat
        for its turn, or eliminate it now if it is its turn.
        """
        seat = self.seatOf(session)
        if seat is None:
            return
        self.departed.add(seat)
        if not self.room.members:
            self.abort()
            return
        if seat == self.game.currentSeat:
            self.departedTurn(seat)

    def abort(self):
        """
        Everyone left: drop the game.
        """
        self._cancel()
        self.stopPilots()
        self.factory.tables.pop(self.room, None)
        self.log.info("checkers {room!r} abandoned", room=self.room.name)


class CheckersProtocol(LineOnlyReceiver, RoomObserver, ServerConnection):
    """
    One checkers connection, and the observer of its room.
    """

    delimiter = wire.DELIMITER
    MAX_LENGTH = wire.MAX_LINE_LENGTH
    log = Logger()

    def __init__(self):
        self.session = None
        self.connected = False

    @property
    def lobby(self):
        return self.factory.lobby

    def connectionMade(self):
        self.connected = True
        self.startConnection()
        self.session = self.factory.sessions.connect(KIND, self)

    def connectionLost(self, reason):
        self.connected = False
        self.endConnection()
        session = self.session
        if session is None:
            return
        if self.lobby.roomOf(session) is not None:
            self.leaveRoom()
        self.factory.sessions.disconnect(session)

    def sendBytes(self, data):
        """
        Write one encoded message (one write per message).
        """
        if self.connected and not self.transport.disconnecting:
            self.writer.write(data)

    def send(self, op, data1="", data2=""):
        """
        Send one message.
        """
        self.sendBytes(wire.encode(op, data1, data2))

    def sendError(self, code, reason=""):
        """
        Send ERROR_OP with the decimal C{code}.
        """
        self.sendBytes(wire.error(code, reason, self.factory.errorNames))

    def dataReceived(self, data):
        self.resetTimeout()
        LineOnlyReceiver.dataReceived(self, data)

    def lineLengthExceeded(self, line):
        self.log.info("checkers line over {max} bytes; closing",
                      max=self.MAX_LENGTH)
        self.sendError(wire.INVALID_REQ, "line too long")
        self.transport.loseConnection()

    def lineReceived(self, line):
        self.countRequest()
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
            self.log.failure("checkers message {message!r} failed",
                             message=message)
            self.sendError(wire.OTHER_ERROR, "internal error")

    # Requests

    def joinRoom(self, message):
        roomId, name = message.data1, message.data2
        lobby = self.lobby
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
        self.session.name = name
        try:
            if lobby.room(KIND, roomId) is None:
                room = lobby.createRoom(KIND, roomId, self.session, self,
                                        self.factory.policy, CAPACITY)
            else:
                room = lobby.join(KIND, roomId, self.session, self)
        except LobbyError as e:
            self.session.name = None
            if isinstance(e, RoomRunning):
                self.sendError(wire.ROOM_IS_RUNNING, "the game is running")
            elif isinstance(e, NameInRoom):
                self.sendError(wire.INVALID_JOIN, "the name is taken")
            elif isinstance(e, RoomFull):
                self.sendError(wire.INVALID_JOIN, "the room is full")
            else:
                self.sendError(wire.INVALID_JOIN, "cannot join")
            return
        before = room.members[:-1]
        self.send(wire.JOIN_ROOM_REPLY_OP,
                  " ".join(m.name for m in before),
                  "".join("1" if m.ready else "0" for m in before))

    def leaveRoomRequest(self, message):
        if self.lobby.roomOf(self.session) is not None:
            self.leaveRoom()

    def leaveRoom(self):
        """
        Leave the room (the others hear LEAVE_ROOM_OP); mid-game the seat
        stays until its turn.
        """
        room = self.lobby.roomOf(self.session)
        table = self.factory.tables.get(room)
        self.lobby.leave(self.session)
        self.session.name = None
        if table is not None:
            table.memberLeft(self.session)

    def playerReady(self, message):
        room = self.lobby.roomOf(self.session)
        if room is None:
            self.sendError(wire.NOT_IN_ROOM, "join a room first")
            return
        if room.running:
            self.sendError(wire.ROOM_IS_RUNNING, "the game is running")
            return
        self.lobby.setReady(self.session, True)
        if room.running and room not in self.factory.tables:
            self.factory.beginTable(room)

    def move(self, message):
        room = self.lobby.roomOf(self.session)
        if room is None:
            self.sendError(wire.NOT_IN_ROOM, "join a room first")
            return
        table = self.factory.tables.get(room)
        if table is None:
            self.sendError(wire.ROOM_NOT_RUNNING, "no game is running")
            return
        refusal = table.move(self.session, message.data1, message.data2)
        if refusal is not None:
            self.sendError(*refusal)

    _handlers = {
        wire.JOIN_ROOM_OP: joinRoom,
        wire.LEAVE_ROOM_OP: leaveRoomRequest,
        wire.PLAYER_READY_OP: playerReady,
        wire.MOVE_OP: move,
    }

    # Room events

    def memberJoined(self, room, actor):
        if actor.session is not self.session:
            seat = ""
            if self.factory.joinSeats:
                seat = str(room.members.index(actor) + 1)
            self.send(wire.JOIN_ROOM_OP, actor.name, seat)

    def memberLeft(self, room, actor, previousOwner):
        self.send(wire.LEAVE_ROOM_OP, actor.name)

    def readyChanged(self, room, actor):
        self.send(wire.PLAYER_READY_OP, actor.name)

    def gameStarted(self, room):
        self.send(wire.START_GAME_OP, " ".join(room.names()),
                  " ".join(room.game.regions))

    def partialFrameBytes(self):
        return len(self._buffer)


class CheckersFactory(Factory):
    """
    Makes L{CheckersProtocol}s over the shared lobby and sessions.

    @param lobby: the shared L{hub.lobby.Lobby}.
    @param sessions: the shared L{hub.sessions.Sessions}.
    @param clock: an L{IReactorTime} for turn timers and timestamps.
    @param turnSeconds: the time limit of a turn.
    @param fourPlayers: also start games of four (regions A B D E).
    @param takeover: C{"bot"} to have a bot play the seat of a player who
        leaves mid-game; None to eliminate them at their turn.
    @param botLevel: the strength asked of takeover bots.
    @param botFactory: C{botFactory(level, seed)} returns the L{IBot} of
        a departed seat; L{hub.bots.botFor} for checkers by default.
    @param turnGrace: seconds allowed past C{turnSeconds} for latency.
    @param botDelay: seconds a takeover bot waits before moving.
    @param errorNames: ERROR_OP data1 is the code's name, not its number.
    @param joinSeats: JOIN_ROOM_OP to the other members carries the
        joiner's 1-based seat in data2.

    @ivar tables: the L{CheckersTable} of every running room.
    """

    protocol = CheckersProtocol

    def __init__(self, lobby, sessions, clock, turnSeconds=15,
                 fourPlayers=False, takeover=None, botLevel=2,
                 botFactory=functools.partial(botFor, KIND),
                 turnGrace=0.5, botDelay=1.0, errorNames=False,
                 joinSeats=False):
        self.lobby = lobby
        self.sessions = sessions
        self.clock = clock
        self.turnSeconds = turnSeconds
        self.turnGrace = turnGrace
        self.fourPlayers = fourPlayers
        self.takeover = takeover
        self.botLevel = botLevel
        self.botFactory = botFactory
        self.botDelay = botDelay
        self.errorNames = errorNames
        self.joinSeats = joinSeats
        self.policy = CheckersStartPolicy(fourPlayers)
        self.tables = {}

    def beginTable(self, room):
        """
        C{room}'s game has started: make its table and start the first
        turn.
        """
        table = self.tables[room] = CheckersTable(self, room)
        table.begin()
        return table
