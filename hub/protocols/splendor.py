"""
The Splendor (璀璨宝石) protocol (spec splendor.md) over the shared lobby.

A L{SplendorProtocol} is one connection.  It reassembles frames
(L{hub.wire.splendor.FrameReader}), checks that every message after INIT
carries the connection's player id, and observes its table (a lobby room
of kind C{"splendor"}) to turn lobby events into frames.  The
L{SplendorFactory} seats players, starts games through
L{SplendorStartPolicy} and turns the game's events
(L{hub.games.splendor}) into broadcasts.

Decisions where the spec leaves a choice (see also specs/README.md):
  - player ids are the session ids of L{hub.sessions} (unique, from 1);
    INIT_RESP, NEW_PLAYER, PLAYER_READY, DISCARD_GEMS, the noble prompt
    and an auto-awarded noble carry the player's id in the header;
    PLAYER_OPERATION, GAME_START, NEW_TURN, NEW_CARD and a chosen noble's
    re-broadcast carry 0; WINNER carries the winner's id;
  - INIT seats the client at the newest table that has not started and
    has fewer than 4 players, else at a new table; a table starts when 2
    to 4 players are all ready;
  - a message whose header id is not the connection's id, a message the
    current state does not expect (an operation before the game, a second
    INIT, a client sending a server-only API id), or a malformed body is
    answered with PLAYER_OPERATION_INVALID to the sender only and
    changes nothing; PLAYER_READY after the start is ignored;
  - a frame length under 28 or over 64 KiB closes the connection (the
    frames before it in the same read are handled first);
  - after WINNER the table is dissolved; the connections stay open (the
    Unity client closes its own) and may INIT again, keeping their ids;
  - no reply or broadcast the server makes holds two messages of one
    kind (the Unity client throws on that).  Fast opponents can still
    cause two within one client frame; C{minGap} (off by default) spaces
    messages of one kind to a connection by that many seconds.

Disconnects:
  - before the game starts, the player leaves the table and the others
    are sent nothing (the protocol has no message for it; the Unity
    client re-lays its player tiles at GAME_START).  If everyone left
    is then ready and there are 2 to 4 of them, the game starts;
  - during a game, without C{--takeover bot}, the player's seat retires
    (L{hub.games.splendor.SplendorGame.retire}): their cards and tokens
    stay where they are, so the clients' boards stay right; if it was
    their turn, a pending discard or noble choice is settled with the
    first legal action and broadcast like any move, and NEW_TURN goes to
    the next player still present.  Their later turns are skipped.  When
    fewer than two players remain the game ends at once: WINNER names
    the player left.  A normal end ranks only the players still present;
  - with C{takeover="bot"}, a bot plays the seat instead, one move per
    C{botDelay} seconds; the game ends when the last human leaves.
"""

import functools
import itertools
import random

from twisted.internet.protocol import Factory, Protocol
from twisted.logger import Logger
from zope.interface import implementer

from hub.bots import botFor
from hub.bots.pilot import SeatPilot
from hub.games import splendor as rules
from hub.ihub import IStartPolicy
from hub.lobby import RoomObserver
from hub.protocols import ServerConnection
from hub.wire import splendor as wire

KIND = "splendor"
CAPACITY = 4

PACING_SLACK = 1e-6
MAX_PACED = 256

NEW = "NEW"
TABLE = "TABLE"
GAME = "GAME"


@implementer(IStartPolicy)
class SplendorStartPolicy:
    """
    A Splendor table starts by itself once 2 to 4 players are all ready.

    @param rng: a L{random.Random} for the seating order and the deal.
    """

    autoStart = True

    def __init__(self, rng):
        self.rng = rng

    def canStart(self, room):
        """
        2 to 4 members, every one ready.
        """
        return 2 <= len(room.members) <= CAPACITY and room.allReady

    def newGame(self, room):
        """
        Shuffle the members into turn order (each member's C{seat} is its
        seat number; C{room.settings["sequence"]} lists the player ids by
        seat) and deal a new game.  C{room.settings["bots"]} will hold
        the L{SeatPilot} of every seat a takeover bot plays.
        """
        members = list(room.members)
        self.rng.shuffle(members)
        for seat, member in enumerate(members):
            member.seat = seat
        room.settings["sequence"] = [m.session.id for m in members]
        room.settings["bots"] = {}
        return rules.SplendorGame(
            len(members), random.Random(self.rng.getrandbits(64)))


class SplendorProtocol(Protocol, RoomObserver, ServerConnection):
    """
    One Splendor connection, and the observer of its table.

    @ivar state: L{NEW} (no table), L{TABLE} (seated, waiting) or L{GAME}.
    @ivar session: the connection's L{hub.sessions.Session}; its C{id} is
        the player id.
    """

    log = Logger()

    def __init__(self):
        self.reader = wire.FrameReader()
        self.session = None
        self._state = NEW
        self._paced = []
        self._pacing = None
        self._lastSent = {}

    @property
    def state(self):
        """
        L{NEW}, L{TABLE} or L{GAME}; mirrored in the session's C{state}.
        """
        return self._state

    @state.setter
    def state(self, value):
        self._state = value
        if self.session is not None:
            self.session.state = value

    @property
    def playerId(self):
        """
        This connection's player id.
        """
        return self.session.id

    def connectionMade(self):
        self.startConnection()
        self.session = self.factory.sessions.connect(KIND, self)
        self.state = NEW

    # Sending.

    def sendFrame(self, frame):
        """
        Write one whole frame, in one write.  With the factory's C{minGap}
        set, a frame whose kind this connection got less than C{minGap}
        seconds ago waits (and every frame after it, to keep the order);
        a connection more than L{MAX_PACED} frames behind is closed.
        """
        if self.transport is None or self.transport.disconnecting:
            return
        if not self.factory.minGap:
            self.writer.write(frame)
            return
        self._paced.append(frame)
        if len(self._paced) > MAX_PACED:
            self.log.info("splendor player {id} is {n} messages behind; "
                          "closing", id=self.playerId, n=len(self._paced))
            self._paced = []
            self.transport.loseConnection()
            return
        if self._pacing is None:
            self._flushPaced()

    def _flushPaced(self):
        self._pacing = None
        clock = self.factory.clock
        while self._paced and not self.transport.disconnecting:
            frame = self._paced[0]
            apiId = wire.HEADER.unpack_from(frame)[0]
            now = clock.seconds()
            last = self._lastSent.get(apiId)
            wait = (last + self.factory.minGap - now
                    if last is not None else 0)
            if wait > PACING_SLACK:
                self._pacing = clock.callLater(wait, self._flushPaced)
                return
            self._paced.pop(0)
            self._lastSent[apiId] = now
            self.writer.write(frame)

    def sendMessage(self, apiId, playerId=0, body=None):
        """
        Send one message.
        """
        self.sendFrame(wire.packFrame(apiId, playerId, body))

    def invalid(self):
        """
        PLAYER_OPERATION_INVALID to this player only.
        """
        self.sendMessage(wire.PLAYER_OPERATION_INVALID, self.playerId)

    # Receiving.

    def dataReceived(self, data):
        self.resetTimeout()
        if self.transport.disconnecting:
            return
        try:
            frames = self.reader.feed(data)
            bad = None
        except wire.FrameError as e:
            frames = e.frames
            bad = e
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
            self.log.info("splendor player {id}: {error}; closing",
                          id=self.playerId, error=str(bad))
            self.transport.loseConnection()

    def frameReceived(self, apiId, playerId, raw):
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
            self.onReady()
            return
        if apiId not in (wire.PLAYER_OPERATION, wire.PLAYER_GET_NOBLE):
            self.invalid()
            return
        try:
            body = wire.decodeBody(raw)
        except wire.BodyError:
            self.invalid()
            return
        if apiId == wire.PLAYER_OPERATION:
            self.onOperation(body)
        else:
            self.onNobleChoice(body)

    def onInit(self):
        if self.state != NEW:
            self.invalid()
            return
        self.state = TABLE
        self.factory.seat(self)

    def onReady(self):
        if self.state == TABLE:
            self.factory.lobby.setReady(self.session, True)

    def onOperation(self, body):
        try:
            operation = wire.decodeOperation(body)
        except wire.BodyError:
            self.invalid()
            return
        if operation.playerId not in (None, self.playerId):
            self.invalid()
            return
        self.play(rules.Action(operation.kind, operation.card,
                               operation.gems))

    def onNobleChoice(self, body):
        try:
            playerId, noble = wire.decodeNobleChoice(body)
        except wire.BodyError:
            self.invalid()
            return
        if playerId not in (None, self.playerId):
            self.invalid()
            return
        self.play(rules.Action(rules.GET_NOBLE, noble))

    def play(self, action):
        """
        Play C{action} for this player: announce what it caused, or answer
        PLAYER_OPERATION_INVALID.
        """
        room = self.factory.lobby.roomOf(self.session)
        if self.state != GAME or room is None or room.game is None:
            self.invalid()
            return
        member = room.memberOf(self.session)
        try:
            events = room.game.apply(member.seat, action)
        except rules.IllegalAction:
            self.invalid()
            return
        self.factory.announce(room, events)

    # Room events.

    def memberJoined(self, room, actor):
        if actor.session is self.session:
            others = [m.session.id for m in room.members
                      if m is not actor]
            self.sendMessage(wire.INIT_RESP, self.playerId,
                             wire.initRespBody(self.playerId, others))
        self.sendMessage(wire.NEW_PLAYER, actor.session.id)

    def readyChanged(self, room, actor):
        if actor.ready:
            self.sendMessage(wire.PLAYER_READY, actor.session.id)

    def gameStarted(self, room):
        self.state = GAME
        game = room.game
        sequence = room.settings["sequence"]
        self.sendMessage(wire.GAME_START, 0, wire.gameStartBody(
            sequence, game.nobles, game.faceUp(1), game.faceUp(2),
            game.faceUp(3)))
        self.sendMessage(wire.NEW_TURN, 0,
                         wire.newTurnBody(sequence[game.currentSeat]))

    def gameEnded(self, room, game):
        self.state = NEW
        if game.winner is not None:
            self.sendMessage(wire.WINNER,
                             room.settings["sequence"][game.winner])

    # Connection loss.

    def connectionLost(self, reason):
        self.endConnection()
        if self._pacing is not None:
            self._pacing.cancel()
            self._pacing = None
        if self.session is None:
            return
        self.factory.leave(self)
        self.factory.sessions.disconnect(self.session)

    def partialFrameBytes(self):
        return self.reader.pending()


class SplendorFactory(Factory):
    """
    Makes L{SplendorProtocol}s over the shared lobby and sessions.

    @param lobby: the shared L{hub.lobby.Lobby}.
    @param sessions: the shared L{hub.sessions.Sessions}.
    @param clock: an L{IReactorTime} (for takeover bot moves).
    @param takeover: L{None}, or C{"bot"} to have a bot play the seat of a
        player who disconnects mid-game.
    @param rng: a L{random.Random} for seating and dealing (a fresh one by
        default).
    @param botLevel: the level of takeover bots.
    @param botDelay: seconds between a takeover bot's moves (the Unity
        client cannot take two messages of one kind in one frame).
    @param botFactory: makes a takeover bot from C{(level, seed)};
        L{hub.bots.botFor} for Splendor by default.
    @param minGap: if positive, the least time in seconds between two
        messages of one kind to one connection (later ones wait, order
        kept).  The Unity client throws when two messages of one kind
        arrive within one of its frames; the server never sends such a
        burst itself, but fast opponents (scripts, bots) can cause one.
        0 (the default) sends at once.
    """

    protocol = SplendorProtocol
    log = Logger()

    def __init__(self, lobby, sessions, clock, takeover=None, rng=None,
                 botLevel=2, botDelay=1.0,
                 botFactory=functools.partial(botFor, KIND), minGap=0.0):
        self.lobby = lobby
        self.sessions = sessions
        self.clock = clock
        self.takeover = takeover
        self.rng = rng if rng is not None else random.Random()
        self.botLevel = botLevel
        self.botDelay = botDelay
        self.botFactory = botFactory
        self.minGap = minGap
        self.policy = SplendorStartPolicy(self.rng)
        self._tableNumbers = itertools.count(1)

    def openTable(self):
        """
        The newest table that has not started and has room, or None.
        """
        for room in reversed(self.lobby.rooms(KIND)):
            if not room.running and len(room.members) < CAPACITY:
                return room
        return None

    def seat(self, protocol):
        """
        Seat C{protocol}'s player at the open table, or at a new one.
        """
        room = self.openTable()
        if room is None:
            name = "table-{}".format(next(self._tableNumbers))
            self.lobby.createRoom(KIND, name, protocol.session, protocol,
                                  self.policy, CAPACITY)
        else:
            self.lobby.join(KIND, room.name, protocol.session, protocol)

    def leave(self, protocol):
        """
        C{protocol}'s connection is gone: leave its table (see the module
        docstring for what the others receive).
        """
        room = self.lobby.roomOf(protocol.session)
        if room is None:
            return
        member = room.memberOf(protocol.session)
        game = room.game
        self.lobby.leave(protocol.session)
        protocol.state = NEW
        if game is None:
            if (room.members and not room.running
                    and self.policy.canStart(room)):
                self.lobby.start(room)
            return
        if self.takeover == "bot" and room.members:
            bot = self.botFactory(self.botLevel, self.rng.getrandbits(32))
            room.settings["bots"][member.seat] = SeatPilot(
                self.clock, bot, self.botDelay)
            self.pilotTurn(room)
        elif not room.members:
            self.endTable(room)
        else:
            self.announce(room, game.retire(member.seat))

    # Broadcasting.

    def broadcast(self, room, apiId, playerId=0, body=None):
        """
        Send one message to every member of C{room}.
        """
        frame = wire.packFrame(apiId, playerId, body)
        for member in list(room.members):
            member.observer.sendFrame(frame)

    def memberAt(self, room, seat):
        """
        The member playing C{seat}, or None once they left.
        """
        for member in room.members:
            if member.seat == seat:
                return member
        return None

    def sendTo(self, room, seat, apiId, playerId, body=None):
        """
        Send one message to the player of C{seat}, if still present.
        """
        member = self.memberAt(room, seat)
        if member is not None:
            member.observer.sendMessage(apiId, playerId, body)

    def announce(self, room, events):
        """
        Turn game events into messages, in order (spec section 5.8).
        """
        sequence = room.settings["sequence"]
        for event in events:
            kind = type(event)
            if kind is rules.OperationDone:
                self.announceOperation(room, event)
            elif kind is rules.NewCard:
                self.broadcast(room, wire.NEW_CARD, 0,
                               wire.newCardBody(event.card))
            elif kind is rules.DiscardRequired:
                playerId = sequence[event.seat]
                self.sendTo(room, event.seat, wire.DISCARD_GEMS, playerId,
                            wire.discardGemsBody(event.count))
            elif kind is rules.NobleOffered:
                playerId = sequence[event.seat]
                self.sendTo(room, event.seat, wire.PLAYER_GET_NOBLE,
                            playerId, wire.nobleBody(playerId, event.nobles))
            elif kind is rules.NobleAwarded:
                playerId = sequence[event.seat]
                self.broadcast(room, wire.PLAYER_GET_NOBLE,
                               0 if event.chosen else playerId,
                               wire.nobleBody(playerId, [event.noble]))
            elif kind is rules.NewTurn:
                self.broadcast(room, wire.NEW_TURN, 0,
                               wire.newTurnBody(sequence[event.seat]))
            elif kind is rules.GameOver:
                self.endTable(room)
                return
        self.pilotTurn(room)

    def announceOperation(self, room, event):
        """
        The PLAYER_OPERATION broadcast of one move (header 0).
        """
        playerId = room.settings["sequence"][event.seat]
        action = event.action
        if action.kind == rules.GET_GEMS:
            body = wire.getGemsBody(playerId, action.gems)
        elif action.kind == rules.BUY_CARD:
            body = wire.buyCardBody(playerId, action.card, action.gems)
        elif action.kind == rules.FOLD_CARD:
            body = wire.foldCardBody(playerId, action.card, event.golden)
        elif action.kind == rules.DISCARD_GEMS:
            body = wire.discardBody(playerId, action.gems)
        else:
            level = action.card - rules.UNKNOWN_CARD_BASE
            hidden = wire.packFrame(wire.PLAYER_OPERATION, 0,
                                    wire.foldUnknownBody(
                                        playerId, level, action.card,
                                        event.golden))
            actor = None
            for member in list(room.members):
                if member.seat == event.seat:
                    actor = member
                else:
                    member.observer.sendFrame(hidden)
            if actor is not None:
                actor.observer.sendMessage(
                    wire.PLAYER_OPERATION, 0, wire.foldUnknownBody(
                        playerId, level, event.drawn, event.golden))
            return
        self.broadcast(room, wire.PLAYER_OPERATION, 0, body)

    def endTable(self, room):
        """
        The game is over: WINNER to everyone (through the lobby's
        C{gameEnded}), then the table is dissolved.
        """
        for pilot in room.settings.get("bots", {}).values():
            pilot.stop()
        if room.game is not None:
            self.lobby.endGame(room)
        for member in room.members:
            member.observer.state = NEW
        self.lobby.dissolve(room)

    # Takeover bots.

    def pilotTurn(self, room):
        """
        If a bot plays the seat to act, its L{SeatPilot} moves after
        C{botDelay} (unless a move of that seat is already pending).
        """
        game = room.game
        if game is None or game.isOver:
            return
        seat = game.currentSeat
        pilot = room.settings.get("bots", {}).get(seat)
        if pilot is not None and not pilot.pending:
            pilot.turn(game, seat,
                       functools.partial(self.botPlayed, room, seat))

    def botPlayed(self, room, seat, action):
        """
        The bot of C{seat} chose the legal C{action}: play it and announce
        what it caused, like a player's own operation.
        """
        self.announce(room, room.game.apply(seat, action))
