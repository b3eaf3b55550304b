"""
Play from a browser: the JSON protocol of C{/ws} (docs/protocols/web.md)
over the shared lobby and the tables, without a legacy codec.

A L{WebPlay} holds the browser players of one hub.  Each connection (the
WebSocket protocol of L{hub.web.ws}, or any object with C{sendText} and
C{close}) says C{hello} first and is then a L{WebPlayer}'s connection;
the player outlives it for the sessions' grace when it drops mid-game,
and a C{hello} with the player's resume token takes it back.

Who a player is is settled at C{hello}, never later: the account of the
login cookie the WebSocket opened with (L{hub.web.ws}), else a guest's
name as C{--names} allows, through the hub's name check
(L{hub.accounts.check.NameService.judge}); banned accounts and addresses
are refused.  An account's sessions are no guest's, so its games are
recorded as the account's.

A browser player joins the rooms of the legacy protocols themselves: a
room is made with the start policy of that kind's factory
(L{hub.protocols}), so a checkers room made here starts like one made
by a Qt client and sends the TCP members their messages, a gomoku room
is in C{msg_room_list}, and a Splendor player is seated as the Unity
client's INIT is (L{hub.tables.splendor.SplendorSeats}).  The player is
the room observer of its own session, and a table listener: it turns
each table event into a JSON event for the browser, with the legal
actions of the player when it is their turn.

Bots that fill a room's empty seats (L{RoomBot}) are members of their
own, whose seats a server-side bot plays from the start of the game
(the table's takeover).
"""

import hashlib
import itertools
import json
import secrets
from urllib.parse import urlencode

import attr
from twisted.internet import defer
from twisted.logger import Logger

from hub.accounts import check
from hub.accounts.names import nameKey
from hub.bots import LEVELS, botFor
from hub.games import splendor as splendorRules
from hub.lobby import (
    AlreadyInRoom, CannotStart, Draining, LobbyError, NameInRoom, NotInRoom,
    MuteLegacy, RoomExists, RoomFull, RoomNotFound, RoomObserver,
    RoomRunning, WrongPassword)
from hub.protocols.checkers import CAPACITY as CHECKERS_CAPACITY
from hub.protocols.checkers import MAX_ROOM_ID, isValidName
from hub.sessions import NameTaken
from hub.tables import events
from hub.tables.base import (
    GameIsOver, IllegalAction, NotSeated, NotYourTurn, TableError)
from hub.tables.gomoku import OWNER_SEAT
from hub.tables.splendor import CAPACITY as SPLENDOR_CAPACITY
from hub.web.views import splendorCard, splendorView
from hub.wire import gomoku as gomokuWire

#: The version of the protocol this hub speaks.
PROTOCOL_VERSION = 1
KINDS = ("gomoku", "checkers", "splendor")
#: The level of the bot that gives hints (the design notes' 提示).
HINT_LEVEL = 2
#: The most cells of a checkers path, or pairs of a Splendor gem list,
#: an action may have.
MAX_ACTION_PARTS = 64
#: Fields no message takes: a program to run, and where and how (the
#: engines are the operator's, never a browser's).
PROGRAM_FIELDS = frozenset(["command", "argv", "args", "program", "path",
                            "folder", "cwd", "env", "environment",
                            "executable", "engine"])

# Error codes (the "code" of an error message).
BAD_JSON = "bad-json"
BAD_MESSAGE = "bad-message"
UNKNOWN_TYPE = "unknown-type"
BAD_VERSION = "bad-version"
HELLO_FIRST = "hello-first"
ALREADY_HELLO = "already-hello"
BAD_NAME = "bad-name"
NAME_TAKEN = "name-taken"
LOGIN_REQUIRED = "login-required"
BANNED = "banned"
UNAVAILABLE = "unavailable"
BAD_KIND = "bad-kind"
BAD_ROOM = "bad-room"
BAD_SIZE = "bad-size"
BAD_SEAT = "bad-seat"
BAD_LEVEL = "bad-level"
BAD_ACTION = "bad-action"
IN_ROOM = "in-room"
NOT_IN_ROOM = "not-in-room"
NO_ROOM = "no-room"
ROOM_EXISTS = "room-exists"
ROOM_FULL = "room-full"
ROOM_RUNNING = "room-running"
NAME_IN_ROOM = "name-in-room"
WRONG_PASSWORD = "wrong-password"
CANNOT_START = "cannot-start"
NOT_OWNER = "not-owner"
DRAINING = "draining"
NO_GAME = "no-game"
NOT_YOUR_TURN = "not-your-turn"
NOT_SEATED = "not-seated"
GAME_OVER = "game-over"
ILLEGAL = "illegal"
UNSUPPORTED = "unsupported"
NOT_ENTRANT = "not-entrant"
#: The room is homed on another node of the cluster: its browsers play
#: it from that node's web face.
OTHER_NODE = "other-node"

#: What the name check (L{hub.accounts.check}) of the browser's players
#: is told their game kind is (its logs and keyed forms: none).
WEB_KIND = "web"

#: The error code of each lobby refusal.
LOBBY_ERRORS = {
    AlreadyInRoom: IN_ROOM,
    NotInRoom: NOT_IN_ROOM,
    RoomExists: ROOM_EXISTS,
    RoomNotFound: NO_ROOM,
    RoomRunning: ROOM_RUNNING,
    NameInRoom: NAME_IN_ROOM,
    RoomFull: ROOM_FULL,
    WrongPassword: WRONG_PASSWORD,
    CannotStart: CANNOT_START,
    Draining: DRAINING,
}

#: The error code of each table refusal.
TABLE_ERRORS = {
    GameIsOver: GAME_OVER,
    NotSeated: NOT_SEATED,
    NotYourTurn: NOT_YOUR_TURN,
    IllegalAction: ILLEGAL,
}


class PlayError(Exception):
    """
    A request was refused: C{code} says why (one of the codes above),
    C{message} in words.
    """

    def __init__(self, code, message=""):
        Exception.__init__(self, code, message)
        self.code = code
        self.message = message


def tokenKey(token):
    """
    What a resume token is kept under: its SHA-256, so that the token
    itself is never stored.
    """
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


# Fields of a message.

def field(message, name, kind, default=None, required=False):
    """
    The field C{name} of C{message}, of Python type C{kind}.

    @raise PlayError: it is missing (and C{required}) or of another type.
    """
    value = message.get(name, default)
    if value is None:
        if required:
            raise PlayError(BAD_MESSAGE, "{} is required".format(name))
        return None
    if kind is int and isinstance(value, bool):
        raise PlayError(BAD_MESSAGE, "{} is not an integer".format(name))
    if not isinstance(value, kind):
        raise PlayError(BAD_MESSAGE, "{} has the wrong type".format(name))
    return value


def roomField(message, required=True):
    """
    The C{room} field: a room id of 1 to L{MAX_ROOM_ID} characters.
    """
    name = field(message, "room", str, required=required)
    if name is None:
        return None
    if not 1 <= len(name) <= MAX_ROOM_ID or not name.isprintable():
        raise PlayError(BAD_ROOM, "a room id is 1 to {} printable "
                        "characters".format(MAX_ROOM_ID))
    return name


def levelField(message):
    """
    The C{level} field of bots: one of L{LEVELS} (2 by default).
    """
    level = field(message, "level", int, 2)
    if level not in LEVELS:
        raise PlayError(BAD_LEVEL, "a bot's level is one of {}".format(
            list(LEVELS)))
    return level


# Actions between JSON and the canonical actions of hub.games.

def _int(value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise PlayError(BAD_ACTION, "not an integer")
    return value


def _cell(value):
    if not isinstance(value, list) or len(value) != 2:
        raise PlayError(BAD_ACTION, "a cell is [x, y]")
    x, y = value
    # (As _int, inline: a gomoku stone's cell is nearly every message.)
    if type(x) is not int or type(y) is not int:
        raise PlayError(BAD_ACTION, "not an integer")
    return (x, y)


def decodeAction(kind, value):
    """
    The canonical action of game C{kind} that the JSON C{value} is: a
    gomoku C{[x, y]}, a checkers path C{[[q, r], ...]}, a Splendor
    C{{"kind": ..., "card": ..., "gems": [[gem, count], ...]}}.

    @raise PlayError: with L{BAD_ACTION}.
    """
    if kind == "gomoku":
        return _cell(value)
    if kind == "checkers":
        if not isinstance(value, list) or not \
                2 <= len(value) <= MAX_ACTION_PARTS:
            raise PlayError(BAD_ACTION, "a path is 2 or more cells")
        return tuple(_cell(cell) for cell in value)
    if not isinstance(value, dict):
        raise PlayError(BAD_ACTION, "an action is an object")
    operation = value.get("kind")
    if not isinstance(operation, str):
        raise PlayError(BAD_ACTION, "an action has a kind")
    card = _int(value.get("card", 0))
    gems = value.get("gems", [])
    if not isinstance(gems, list) or len(gems) > MAX_ACTION_PARTS:
        raise PlayError(BAD_ACTION, "gems is a list of [gem, count]")
    pairs = []
    for pair in gems:
        if (not isinstance(pair, list) or len(pair) != 2
                or not isinstance(pair[0], str)):
            raise PlayError(BAD_ACTION, "gems is a list of [gem, count]")
        pairs.append((pair[0], _int(pair[1])))
    return splendorRules.Action(operation, card, tuple(pairs)).canonical()


def encodeAction(kind, action):
    """
    The JSON form of the canonical C{action} of game C{kind}.
    """
    if kind == "splendor":
        return {"kind": action.kind, "card": action.card,
                "gems": [list(pair) for pair in action.gems]}
    if kind == "gomoku":
        return list(action)
    return [list(cell) for cell in action]


#: The one encoder of every message (json.dumps with options would make
#: an encoder per call).
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


#: The one decoder of every message (json.loads's own, without its checks
#: of what a WebSocket text always is).
_decodeJSON = json.JSONDecoder().decode


def dumps(message):
    """
    One message as the text of a WebSocket message.
    """
    return _ENCODER.encode(message)


#: L{dumps} of a gomoku stone's C{ActionPlayed} (L{WebPlayer.playedMessage}):
#: seat, byBot, x, y, next.
GOMOKU_PLAYED = ('{"type":"event","event":"ActionPlayed","seat":%d,'
                 '"byBot":%s,"action":[%d,%d],"next":%s}')


def gameReadyMessage(eventId, kind, room, seat):
    """
    The C{game-ready} message: tournament C{eventId}'s game in C{room}
    waits for the player, at C{seat}; C{url} is the play page that joins
    it.
    """
    return {"type": "game-ready", "event": eventId, "kind": kind,
            "room": room, "seat": seat,
            "url": "/play?" + urlencode({"room": room, "kind": kind})}


def lobbyMessage(now):
    """
    The C{lobby} message of the hub now (L{hub.web.now.hubNow}), encoded
    (once per build of the lobby feed).
    """
    return dumps(dict(now, type="lobby"))


class RoomBot(MuteLegacy, RoomObserver):
    """
    A bot filling an empty seat of a room: a member with its own session,
    always ready, whose seat the table's takeover plays from the start.
    When the game ends it leaves (the room's humans stay).
    """

    def __init__(self, play, kind, level):
        self.play = play
        self.kind = kind
        self.level = level
        self.session = None

    def gameStarted(self, room):
        seat = room.memberOf(self.session).seat
        table = room.table
        # After the table's first events: the takeover then acts at once
        # if the bot's seat is first to play.
        self.play.clock.callLater(0, self._takeSeat, table, seat)

    def _takeSeat(self, table, seat):
        if not table.over and seat not in table.takeover:
            # At the level asked for, not the hub's --bot-level.
            table.takeOver(seat, level=self.level)

    def gameEnded(self, room, game):
        self.play.clock.callLater(0, self.retire)

    def retire(self):
        """
        Leave the room (if still in one) and close the session.
        """
        if self.session.closed:
            return
        self.play.lobby.leave(self.session)
        self.play.sessions.disconnect(self.session)


class WebPlayer(MuteLegacy, RoomObserver):
    """
    One browser player: the observer of their session's room and a
    listener of its table, with or without a live connection.

    @ivar name: the player's name.
    @ivar guest: True unless the name is an account's.
    @ivar account: the case-folded name of the account logged in, or
        None (a guest).
    @ivar connection: the live connection, or None while lost.
    @ivar session: the session of the game kind being played (made when
        a room is joined, closed when it is left), or None.
    @ivar table: the table being played at, or None.
    @ivar sent: the table's events sent to the player during the current
        game, replayed to a connection that resumes (and after a game
        that ended while the player was away: C{endedAway}).
    """

    log = Logger()

    def __init__(self, play, name, guest, key, account=None):
        self.play = play
        self.name = name
        self.guest = guest
        self.key = key
        self.account = account
        self.connection = None
        self.session = None
        self.table = None
        self.sent = []
        self.endedAway = False
        self.grace = None
        self.turn = None

    def __repr__(self):
        return "<WebPlayer {!r}>".format(self.name)

    @property
    def transport(self):
        """
        The live connection's transport, or None: what the name check's
        bans (L{hub.accounts.check.NameService.enforce}) and moderation
        close and read the address of, as a legacy adapter's.
        """
        return getattr(self.connection, "transport", None)

    # Sending.

    def sendText(self, text):
        """
        Send one encoded message, if connected.
        """
        if self.connection is not None:
            self.connection.sendText(text)

    def sendJSON(self, message):
        """
        Send C{message} (a dict).
        """
        self.sendText(dumps(message))

    def sendEvent(self, message):
        """
        Send the table event C{message}, kept for a resuming connection.
        """
        text = dumps(message)
        self.sent.append(text)
        self.sendText(text)

    # Where the player is.

    @property
    def room(self):
        """
        The room the player is in, or None.
        """
        if self.session is None:
            return None
        return self.play.lobby.roomOf(self.session)

    @property
    def seat(self):
        """
        The player's seat at the running table, or None.
        """
        session = self.session
        if session is None:
            return None
        room = self.play.lobby.roomOf(session)
        if room is None or room.table is None:
            return None
        return room.memberOf(session).seat

    def roomState(self):
        """
        The C{room} message: the player's room, or C{"room": null}.
        """
        room = self.room
        if room is None:
            return {"type": "room", "room": None}
        members = []
        for member in room.members:
            members.append({
                "name": member.name, "ready": bool(member.ready),
                "seat": member.seat,
                "bot": isinstance(member.observer, RoomBot),
                "guest": bool(getattr(member.session, "guest", False)),
                "you": member.session is self.session})
        state = {
            "kind": room.kind, "name": room.name, "members": members,
            "owner": room.owner.name if room.owner is not None else None,
            "capacity": room.capacity, "locked": bool(room.password),
            "running": room.running,
        }
        if "players" in room.settings:
            state["players"] = room.settings["players"]
        if room.kind == "gomoku":
            state["ownerSeat"] = room.settings.get(OWNER_SEAT)
        return {"type": "room", "room": state}

    def sendRoom(self):
        self.sendJSON(self.roomState())

    # Room events.

    def memberJoined(self, room, actor):
        self.sendRoom()

    def memberLeft(self, room, actor, previousOwner):
        self.sendRoom()

    def readyChanged(self, room, actor):
        self.sendRoom()

    def roleChanged(self, room, actor):
        self.sendRoom()

    def gameStarted(self, room):
        self.table = room.table
        self.sent = []
        self.turn = None
        self.endedAway = False
        room.table.addListener(self)

    def gameEnded(self, room, game):
        self.sendRoom()

    # Table events.

    # The handler of each event type, found by its name once.
    _handlers = {}

    def tableEvent(self, table, event):
        if table is not self.table:
            return
        handler = self._handlers.get(type(event))
        if handler is None:
            handler = getattr(type(self), "on" + events.eventName(event),
                              WebPlayer.sendFields)
            self._handlers[type(event)] = handler
        handler(self, table, event)

    def sendFields(self, table, event):
        """
        Send C{event} with its fields, but its time.
        """
        message = {"type": "event", "event": events.eventName(event)}
        for attribute in attr.fields(type(event)):
            if attribute.name != "at":
                value = getattr(event, attribute.name)
                message[attribute.name] = (
                    list(value) if isinstance(value, tuple) else value)
        self.sendEvent(message)

    def legalFor(self, table, seat):
        """
        The legal actions of C{seat} (JSON), if it is the player's; not
        for gomoku, where they are every empty intersection (the client
        knows them from the stones, and a move is cheaper without).
        """
        if (seat is None or seat != self.seat or table.over
                or table.kind == "gomoku"):
            return None
        return [encodeAction(table.kind, action)
                for action in table.game.legalActions(seat)]

    def addTable(self, table, message):
        """
        Add to the Splendor event C{message} what the player sees of the
        table now: C{view}, the spectators' view (L{splendorView}), and
        C{hand}, the player's own reserved cards face up (a browser
        player draws the table from these, as the rules hold no card
        text).  Nothing for the other kinds.
        """
        if table.kind != "splendor":
            return message
        game = table.game
        message["view"] = splendorView(game)
        seat = self.seat
        message["hand"] = ([] if seat is None else [
            splendorCard(n) for n in game.players[seat].reserved])
        return message

    def onGameStarted(self, table, event):
        position = event.position
        if table.kind == "splendor":
            # The deal holds the decks in order: only what is face up.
            position = {"nobles": position["nobles"],
                        "board": position["board"]}
        bots = self.botSeats()
        self.sendEvent(self.addTable(table, {
            "type": "event", "event": "GameStarted", "kind": event.kind,
            "table": event.table, "position": position,
            "seats": [{"index": s.index, "name": s.name,
                       "bot": bool(s.bot) or s.index in bots,
                       "guest": bool(s.guest)}
                      for s in event.seats],
            "you": self.seat, "game": self.play.gameId(table)}))

    def botSeats(self):
        """
        The seats of the room's bots (L{RoomBot}s): a bot plays them from
        the start, where a later L{events.SeatTakenOver} of another seat
        is a bot taking a departed player's place.
        """
        room = self.room
        if room is None:
            return frozenset()
        return frozenset(member.seat for member in room.members
                         if isinstance(member.observer, RoomBot))

    def onTurnStarted(self, table, event):
        self.turn = (event.seat, event.deadline)
        self.sendTurn(table, event.seat, event.deadline)

    def turnMessage(self, table, seat, deadline=None):
        """
        The C{TurnStarted} message of C{seat}'s turn, its clock's seconds
        left now.
        """
        message = {"type": "event", "event": "TurnStarted", "seat": seat,
                   "seconds": (None if deadline is None
                               else max(0.0, deadline - table.now()))}
        legal = self.legalFor(table, seat)
        if legal is not None:
            message["legal"] = legal
        return self.addTable(table, message)

    def sendTurn(self, table, seat, deadline=None):
        self.sendEvent(self.turnMessage(table, seat, deadline))

    def sendClock(self):
        """
        To a connection that resumed, after the game's events again: the
        turn under way once more, with its clock's seconds left now (the
        C{TurnStarted} sent again says those of its time), when the
        table's turn has a clock.  Not kept for the next resume.
        """
        table, turn = self.table, self.turn
        if (table is None or table.over or turn is None or turn[1] is None
                or turn[0] != table.game.currentSeat):
            return
        self.sendText(dumps(self.turnMessage(table, *turn)))

    def onActionPlayed(self, table, event):
        detail = event.detail
        if (table.kind == "splendor" and detail is not None
                and event.action.kind == splendorRules.FOLD_CARD_UNKNOWN):
            # The card a blind reserve drew is its player's secret.
            message = self.playedMessage(table, event)
            if event.seat == self.seat:
                message["drawn"] = detail.drawn
            self.sendEvent(message)
            return
        # The same for every player: encoded once.
        text = self.play.sharedText(self, table, event)
        self.sent.append(text)
        connection = self.connection
        if connection is not None:
            connection.sendText(text)

    def playedText(self, table, event):
        """
        The encoded L{playedMessage} of C{event}: a gomoku stone's, the
        message of nearly every move, straight from its few numbers.
        """
        if table.kind != "gomoku":
            return dumps(self.playedMessage(table, event))
        x, y = event.action
        game = table.game
        return GOMOKU_PLAYED % (
            event.seat, "true" if event.byBot else "false", x, y,
            "null" if game.isOver else "%d" % (game.currentSeat,))

    def playedMessage(self, table, event):
        """
        The C{ActionPlayed} message of C{event}, as every player gets it.
        """
        message = {"type": "event", "event": "ActionPlayed",
                   "seat": event.seat, "byBot": event.byBot,
                   "action": encodeAction(table.kind, event.action)}
        if table.kind == "gomoku":
            # Gomoku's turns alternate without a TurnStarted each.
            message["next"] = (None if table.game.isOver
                               else table.game.currentSeat)
        elif table.kind == "splendor" and event.detail is not None:
            message["golden"] = event.detail.golden
        return message

    def onDiscardRequired(self, table, event):
        if event.seat == self.seat:
            self.sendEvent(self.addTable(table, {
                "type": "event", "event": "DiscardRequired",
                "seat": event.seat, "count": event.count,
                "legal": self.legalFor(table, event.seat)}))

    def onNobleOffered(self, table, event):
        if event.seat == self.seat:
            self.sendEvent(self.addTable(table, {
                "type": "event", "event": "NobleOffered",
                "seat": event.seat, "nobles": list(event.nobles),
                "legal": self.legalFor(table, event.seat)}))

    def onGameEnded(self, table, event):
        self.sendEvent(self.addTable(table, {
            "type": "event", "event": "GameEnded", "reason": event.reason,
            "ranking": list(event.ranking), "winner": event.winner,
            "names": [s.name for s in table.seats]}))
        table.removeListener(self)
        self.table = None
        # A player away now hears how it ended on coming back.
        self.endedAway = self.connection is None
        # Checkers and Splendor dissolve the room at the end.
        if self.room is None:
            self.closeSession()
        self.sendRoom()

    # Leaving.

    def closeSession(self):
        """
        The player is in no room: close the game kind's session.
        """
        if self.session is not None:
            self.play.sessions.disconnect(self.session)
            self.session = None

    def leaveRoom(self):
        """
        Leave the room: before its game, the room may then start without
        the player; during it, the seat goes by the table's rules (as a
        legacy client's departure does).
        """
        room = self.room
        if room is None:
            self.closeSession()
            return
        table = room.table
        seat = room.memberOf(self.session).seat
        lobby = self.play.lobby
        if self.table is not None:
            self.table.removeListener(self)
            self.table = None
        if room.kind == "splendor":
            self.play.factories["splendor"].seats.leave(self.session)
        elif table is not None and room.kind == "gomoku":
            table.drop(seat)
            if lobby.roomOf(self.session) is room:
                lobby.leave(self.session)
        else:
            lobby.leave(self.session)
            if table is not None:
                table.drop(seat)
            elif hasattr(room.policy, "memberLeft"):
                # Checkers: the others may start without the player.
                room.policy.memberLeft(lobby, room)
        self.closeSession()
        self.play.botsAlone(room)

    # Connections.

    def attach(self, connection):
        """
        C{connection} speaks for the player from now on (a connection
        still attached is closed).
        """
        if self.grace is not None:
            if self.grace.active():
                self.grace.cancel()
            self.grace = None
            table = self.table
            if table is not None and hasattr(table, "seatResumed"):
                table.seatResumed(self.seat)
        old, self.connection = self.connection, connection
        if old is not None and old is not connection:
            old.player = None
            old.close()

    def detach(self, connection):
        """
        C{connection} dropped: mid-game the player keeps the seat for the
        sessions' grace; otherwise they leave at once.
        """
        if self.connection is not connection:
            return
        self.connection = None
        if self.table is not None and not self.table.over:
            table = self.table
            if hasattr(table, "seatLost"):
                table.seatLost(self.seat)
            self.grace = self.play.clock.callLater(
                self.play.sessions.graceSeconds, self.graceExpired)
            return
        self.forget()

    def graceExpired(self):
        """
        The player did not come back: the seat goes by the table's rules.
        """
        self.grace = None
        self.log.info("web player {name!r} did not come back",
                      name=self.name, event="lost")
        self.forget()

    def forget(self):
        """
        The player is gone for good.
        """
        try:
            self.leaveRoom()
        finally:
            self.play.forget(self)


class WebPlay:
    """
    The browser players of one hub.

    @param lobby: the shared L{hub.lobby.Lobby}.
    @param sessions: the shared L{hub.sessions.Sessions}.
    @param clock: the hub's clock.
    @param factories: the legacy protocols' factories by game kind
        (C{"gomoku"}, C{"checkers"}, C{"splendor"}): their start
        policies make the rooms' tables, their Splendor seats seat.
    @param lobbyFeed: the L{hub.web.now.LobbyFeed} whose document the
        C{lobby} message is, or None (no lobby message).
    @param names: the hub's L{hub.accounts.check.NameService} (C{--names
        accounts} or C{closed}), whose rules a C{hello} follows, or None
        (C{--names open}: every player is a guest, no name is checked).
    @param directory: with C{--cluster}, the node's room directory
        (L{hub.cluster.directory.ClusterDirectory}): a room made here is
        claimed in it first, as a legacy client's is (its name is the
        cluster's), and the lobby shows the other nodes' rooms too
        (L{hub.web.remoterooms}); None on a single node.
    @param spectating: the web face's L{hub.web.live.Spectating}, whose
        game ids C{GameStarted} names, or None (no id).

    @ivar players: the L{WebPlayer}s by the hash of their resume token.
    """

    log = Logger()

    def __init__(self, lobby, sessions, clock, factories, lobbyFeed=None,
                 names=None, directory=None, spectating=None):
        self.spectating = spectating
        self.lobby = lobby
        self.sessions = sessions
        self.clock = clock
        self.factories = factories
        self.lobbyFeed = lobbyFeed
        self.names = names
        #: The tournament director (L{hub.tournaments.director.Director})
        #: whose pairings' rooms entrants join here, or None.
        self.tournaments = None
        self.directory = directory
        self.remote = None
        if directory is not None:
            from hub.web.remoterooms import RemoteRooms
            self.remote = RemoteRooms(directory, clock)
        self.players = {}
        self._botNames = itertools.count(1)
        self._shared = (None, None)

    @property
    def checkersSizes(self):
        """
        The player counts a checkers room starts with.
        """
        return sorted(self.factories["checkers"].policy.counts)

    def stop(self):
        """
        The hub stops: cancel the grace timers.
        """
        for player in list(self.players.values()):
            if player.grace is not None and player.grace.active():
                player.grace.cancel()
            player.grace = None

    def forget(self, player):
        self.players.pop(player.key, None)

    def gameId(self, table):
        """
        The id of C{table}'s game on the web face (its page, live then
        its replay, is C{/games/ID}), or None without one.
        """
        if self.spectating is None:
            return None
        game = self.spectating.gameOf(table)
        return None if game is None else game.id

    def sharedText(self, player, table, event):
        """
        The text of C{event} that every player at C{table} gets alike
        (L{WebPlayer.playedText}), encoded for the first player who hears
        the event and kept for the others, who hear it in turn.
        """
        shared = self._shared
        if shared[0] is not event:
            shared = self._shared = (event, player.playedText(table, event))
        return shared[1]

    # Messages.

    def received(self, connection, text):
        """
        Handle one text message of C{connection}: answer it, or send a
        typed error.  Nothing a message holds raises out of here.
        """
        request = None
        try:
            try:
                message = _decodeJSON(text)
            except (ValueError, RecursionError):
                raise PlayError(BAD_JSON, "not JSON")
            if not isinstance(message, dict):
                raise PlayError(BAD_MESSAGE, "a message is an object")
            request = message.get("type")
            if not isinstance(request, str):
                raise PlayError(BAD_MESSAGE, "a message has a type")
            if not PROGRAM_FIELDS.isdisjoint(message):
                raise PlayError(BAD_MESSAGE, "no message takes a command "
                                "line, a path or an environment")
            handler = self.HANDLERS.get(request)
            if handler is None:
                raise PlayError(UNKNOWN_TYPE, "no such message type")
            player = connection.player
            if request == "hello":
                if player is not None:
                    raise PlayError(ALREADY_HELLO, "hello once")
                handler(self, connection, message)
            elif player is None:
                raise PlayError(HELLO_FIRST, "say hello first")
            else:
                result = handler(self, player, message)
                if isinstance(result, defer.Deferred):
                    # (A room claimed in the cluster's directory first.)
                    result.addErrback(self._failed, player, request)
        except PlayError as e:
            connection.sendText(self.error(e.code, e.message, request))
        except Exception:
            self.log.failure("web message {request!r} failed",
                             request=str(request)[:40])
            connection.sendText(self.error("internal", "", request))

    def _failed(self, failure, player, request):
        """
        A request answered later failed: its error goes to the player.
        """
        if failure.check(PlayError):
            error = failure.value
            player.sendText(self.error(error.code, error.message, request))
            return
        self.log.failure("web message {request!r} failed", failure,
                         request=str(request)[:40])
        player.sendText(self.error("internal", "", request))

    def error(self, code, message, request=None):
        """
        An C{error} message, encoded.
        """
        return dumps({"type": "error", "code": code, "message": message,
                      "request": request if isinstance(request, str)
                      and len(request) <= 40 else None})

    def hello(self, connection, message):
        """
        Who the player is: the account of the connection's login cookie
        (C{connection.visitor}, a L{hub.accounts.websessions.Visitor}
        read when it opened, L{hub.web.ws}), else a guest's C{name}, as
        C{--names} allows (L{names}), checked now and never per move; or
        the player of a C{resume} token, under the same login only.
        """
        version = field(message, "version", int, required=True)
        if version != PROTOCOL_VERSION:
            raise PlayError(BAD_VERSION, "this hub speaks version {}"
                            .format(PROTOCOL_VERSION))
        host = check.peerHost(connection)
        visitor = getattr(connection, "visitor", None)
        account = None
        if visitor is not None:
            account = nameKey(visitor.name)
            self.refuseBanned(account, host, visitor.banned)
        resume = field(message, "resume", str)
        if resume is not None and len(resume) <= 100:
            player = self.players.get(tokenKey(resume))
            # Under the same login only (a guest's: none): after a logout
            # or another login, the hello is a new player's.
            if player is not None and player.account == account:
                self.refuseBanned(player.account, host)
                player.attach(connection)
                connection.player = player
                self.welcome(connection, player, resume, True)
                if player.table is not None or player.endedAway:
                    player.endedAway = False
                    for text in player.sent:
                        connection.sendText(text)
                    player.sendClock()
                return
        if visitor is not None:
            name, guest = visitor.name, False
        else:
            name, guest = self.guestName(message, host), True
        token = secrets.token_urlsafe(24)
        player = WebPlayer(self, name, guest, tokenKey(token), account)
        self.players[player.key] = player
        player.attach(connection)
        connection.player = player
        self.welcome(connection, player, token, False)

    def refuseBanned(self, account, host, banned=False):
        """
        Refuse the player of C{account} (case-folded, or None) at C{host}
        if either is banned (or C{banned} says the account is).

        @raise PlayError: with L{BANNED}.
        """
        names = self.names
        if banned or (names is not None and (
                names.addressBanned(host) or
                (account is not None and names.accountBanned(account)))):
            raise PlayError(BANNED, "banned")

    def guestName(self, message, host):
        """
        The guest name of C{hello} C{message} from C{host}, as C{--names}
        allows: any valid name (C{open}); no account's (C{accounts}); none
        (C{closed}).

        @raise PlayError: with L{BAD_NAME}, L{NAME_TAKEN},
            L{LOGIN_REQUIRED}, L{BANNED} or L{UNAVAILABLE} (the accounts
            are not read yet).
        """
        names = self.names
        closed = names is not None and names.mode == "closed"
        name = field(message, "name", str, required=not closed)
        if not closed and not isValidName(name):
            raise PlayError(BAD_NAME, "a name is 1 to 20 letters, "
                            "digits or underscores")
        if names is None:
            return name
        # (Under closed, whatever was sent: only its log line's start.)
        verdict = names.judge(WEB_KIND, (name or "")[:40], host)
        if isinstance(verdict, check.Verdict):
            return verdict.name
        if verdict == check.BANNED:
            raise PlayError(BANNED, "banned")
        if verdict == check.NOT_READY:
            raise PlayError(UNAVAILABLE, "the accounts are not read yet: "
                            "try again")
        if closed:
            raise PlayError(LOGIN_REQUIRED, "log in to play")
        raise PlayError(NAME_TAKEN, "an account has that name: log in "
                        "to play under it")

    def welcome(self, connection, player, token, resumed):
        connection.sendText(dumps({
            "type": "welcome", "version": PROTOCOL_VERSION,
            "name": player.name, "guest": player.guest, "resume": token,
            "resumed": resumed, "kinds": list(KINDS),
            "checkersSizes": self.checkersSizes, "levels": list(LEVELS)}))
        connection.sendText(dumps(player.roomState()))
        if player.table is None:
            self.tellWaiting(player)

    def lobbyRequest(self, player, message):
        if self.lobbyFeed is None:
            raise PlayError(UNSUPPORTED, "no lobby here")
        if self.remote is None:
            player.sendText(self.lobbyFeed.encoded(lobbyMessage))
            return
        # With a cluster: the other nodes' rooms too, as last read.
        player.sendJSON(dict(self.lobbyFeed.now(), type="lobby",
                             remote=self.remote.current()))

    def _kind(self, message):
        kind = field(message, "kind", str, required=True)
        if kind not in KINDS:
            raise PlayError(BAD_KIND, "a kind is one of {}".format(
                list(KINDS)))
        return kind

    def _session(self, player, kind):
        """
        A session of C{kind} for C{player}, named as the kind wants.
        """
        if player.room is not None:
            raise PlayError(IN_ROOM, "leave your room first")
        player.closeSession()
        session = self.sessions.connect(kind, player)
        if self.names is not None:
            # Records and leaderboards see the account, or a guest.
            session.setVerdict(player.name, check.Verdict(
                player.name, player.guest, player.account))
        if kind == "gomoku":
            try:
                self.sessions.claimName(session, player.name)
            except NameTaken:
                self.sessions.disconnect(session)
                raise PlayError(NAME_TAKEN, "a gomoku player has that name")
        elif kind == "checkers":
            self.sessions.setRoomName(session, player.name)
        player.session = session
        return session

    def _lobbyCall(self, player, f, *args, **kwargs):
        try:
            return f(*args, **kwargs)
        except LobbyError as e:
            if player.room is None:
                player.closeSession()
            raise PlayError(LOBBY_ERRORS.get(type(e), "refused"),
                            "the lobby refused")

    def create(self, player, message):
        kind = self._kind(message)
        if kind == "splendor":
            return self.join(player, message)
        name = roomField(message)
        return self.claimed(player, kind, name,
                            lambda: self._create(player, message, kind, name))

    def claimed(self, player, kind, name, make):
        """
        Call C{make()}, which makes the room C{name} of C{kind}; with a
        cluster, once the room's name is claimed for this node in the
        directory (as a legacy client's new room is,
        L{hub.cluster.routes}), so that the room is the cluster's.

        @return: None, or a Deferred with a cluster.
        """
        if self.lobby.room(kind, name) is not None:
            raise PlayError(ROOM_EXISTS, "the room exists")
        if self.directory is None:
            return make()
        if player.room is not None:
            raise PlayError(IN_ROOM, "leave your room first")
        directory = self.directory
        d = directory.claimRoom(kind, name)

        def got(owner):
            if owner != directory.node:
                raise PlayError(ROOM_EXISTS, "a room of another node has "
                                "that name")
            try:
                if player.connection is not None:
                    make()
            finally:
                if self.lobby.room(kind, name) is None:
                    directory.releaseRoom(kind, name)

        def failed(failure):
            raise PlayError(UNAVAILABLE, "the room directory is "
                            "unavailable")
        d.addCallbacks(got, failed)
        return d

    def _create(self, player, message, kind, name):
        password = field(message, "password", str, "")
        if len(password.encode("utf-8", "surrogatepass")) \
                > gomokuWire.MAX_PSW_BYTES:
            raise PlayError(BAD_MESSAGE, "the password is too long")
        level = levelField(message)
        bots = field(message, "bots", bool, False)
        if kind == "checkers":
            players = field(message, "players", int, required=True)
            if players not in self.checkersSizes:
                raise PlayError(BAD_SIZE, "a checkers game is for {}".format(
                    self.checkersSizes))
            seat = field(message, "seat", int, 0)
            if not 0 <= seat < players:
                raise PlayError(BAD_SEAT, "no such seat")
            self._createCheckers(player, name, password, players, seat,
                                 bots, level)
        else:
            seat = field(message, "seat", int, 1)
            if seat not in (0, 1):
                raise PlayError(BAD_SEAT, "seat 0 plays black, 1 white")
            if self.lobby.room(kind, name) is not None:
                raise PlayError(ROOM_EXISTS, "the room exists")
            session = self._session(player, kind)
            room = self._lobbyCall(
                player, self.lobby.createRoom, kind, name, session, player,
                self.factories[kind].policy, 2, password=password)
            room.settings[OWNER_SEAT] = seat
            player.sendRoom()
            if bots:
                self.addBots(room, 1, level)

    def _createCheckers(self, player, name, password, players, seat, bots,
                        level):
        """
        A checkers room for C{players}; with C{bots}, the seats before
        C{seat} and after it are bots', so the player sits at C{seat}
        and the game starts once the player is ready.
        """
        lobby = self.lobby
        if lobby.room("checkers", name) is not None:
            raise PlayError(ROOM_EXISTS, "the room exists")
        policy = self.factories["checkers"].policy
        if not bots:
            session = self._session(player, "checkers")
            room = self._lobbyCall(
                player, lobby.createRoom, "checkers", name, session, player,
                policy, CHECKERS_CAPACITY, password=password)
            room.settings["players"] = players
            player.sendRoom()
            return
        room = None
        if seat > 0:
            first = self.newBot("checkers", level)
            room = self._lobbyCall(
                player, lobby.createRoom, "checkers", name, first.session,
                first, policy, CHECKERS_CAPACITY, password=password)
            room.settings["players"] = players
            self.addBots(room, seat - 1, level)
        try:
            session = self._session(player, "checkers")
            if room is None:
                room = self._lobbyCall(
                    player, lobby.createRoom, "checkers", name, session,
                    player, policy, CHECKERS_CAPACITY, password=password)
                room.settings["players"] = players
            else:
                self._lobbyCall(player, lobby.join, "checkers", name,
                                session, player)
        except PlayError:
            # The bots made the room for nobody: they leave it.
            if room is not None:
                self.botsAlone(room)
            raise
        player.sendRoom()
        self.addBots(room, players - seat - 1, level)
        if seat > 0:
            # Ready only now: alone, it could have started a solitaire.
            self._lobbyCall(player, lobby.setReady, first.session, True)

    def newBot(self, kind, level):
        """
        A L{RoomBot} of C{level} with a session of C{kind}, named.
        """
        bot = RoomBot(self, kind, level)
        bot.session = self.sessions.connect(kind, bot)
        while True:
            name = "bot{}_{}".format(level, next(self._botNames))
            if kind == "gomoku":
                try:
                    self.sessions.claimName(bot.session, name)
                except NameTaken:
                    continue
            elif kind == "checkers":
                self.sessions.setRoomName(bot.session, name)
            return bot

    def addBots(self, room, count, level):
        """
        Fill C{count} seats of the waiting C{room} with ready bots of
        C{level} (fewer if it fills up).
        """
        for _ in range(count):
            if room.full or room.running:
                return
            bot = self.newBot(room.kind, level)
            try:
                self.lobby.join(room.kind, room.name, bot.session, bot)
            except LobbyError:
                self.sessions.disconnect(bot.session)
                return
            if room.kind == "gomoku" and room.owner.observer is bot:
                continue
            self.lobby.setReady(bot.session, True)

    def botsAlone(self, room):
        """
        If only bots are left in C{room}, they leave too: the room closes
        (and a game under way there is abandoned).
        """
        if not room.members or not all(
                isinstance(m.observer, RoomBot) for m in room.members):
            return
        table = room.table
        for member in list(room.members):
            self.lobby.leave(member.session)
            if table is not None and not table.over:
                table.drop(member.seat)
            self.sessions.disconnect(member.session)

    def join(self, player, message):
        kind = self._kind(message)
        name = roomField(message, required=kind != "splendor")
        if name is not None and self.tournamentSeats(kind, name) is not None:
            return self.joinPairing(player, kind, name)
        if kind == "splendor":
            session = self._session(player, kind)
            self._lobbyCall(player, self.factories["splendor"].seats.seat,
                            session, player)
            player.sendRoom()
            return
        name = roomField(message)
        password = field(message, "password", str, "")
        if self.remote is not None and self.lobby.room(kind, name) is None:
            home = self.remote.homeOf(kind, name)
            if home is not None:
                raise PlayError(OTHER_NODE, "the room is on node {}"
                                .format(home)[:200])
        session = self._session(player, kind)
        self._lobbyCall(player, self.lobby.join, kind, name, session,
                        player, password=password)
        player.sendRoom()

    # Tournaments.

    def tournamentSeats(self, kind, room):
        """
        The entrants of the tournament pairing whose room C{room} is,
        waiting for its players, or None (L{tournaments}: the director).
        """
        director = self.tournaments
        if director is None:
            return None
        return director.pairingOf(kind, room)

    def joinPairing(self, player, kind, room):
        """
        Seat C{player} in tournament room C{room}: only one of its
        pairing's entrants, logged in as that account.  At a Splendor
        table (whose seats have no names) the director is told which
        entrant the player's session is.
        """
        seats = self.tournamentSeats(kind, room)
        entrant = None
        if not player.guest:
            entrant = next((n for n in seats
                            if nameKey(n) == nameKey(player.name)), None)
        if entrant is None:
            raise PlayError(NOT_ENTRANT, "this game is for {}".format(
                ", ".join(seats)))
        session = self._session(player, kind)
        if kind == "splendor":
            # Before the join, which may start the game.
            self.tournaments.claim(kind, room, session.id, entrant)
        self._lobbyCall(player, self.lobby.join, kind, room, session,
                        player)
        joined = player.room
        if joined is not None and not joined.running and not (
                kind == "gomoku" and joined.owner is not None
                and joined.owner.session is session):
            # Who came to play their game is ready to (gomoku's owner
            # starts it, or the director does).
            self._lobbyCall(player, self.lobby.setReady, session, True)
        player.sendRoom()

    def gameReady(self, eventId, kind, room, seats):
        """
        The director opened C{room} for C{seats}: tell the entrants among
        them who are here, logged in, and not at a table.
        """
        keys = {nameKey(n): i for i, n in enumerate(seats)}
        for player in list(self.players.values()):
            seat = keys.get(nameKey(player.name))
            if player.guest or seat is None or player.table is not None:
                continue
            player.sendJSON(gameReadyMessage(eventId, kind, room, seat))

    def tellWaiting(self, player):
        """
        Tell logged-in C{player} of every tournament game waiting for
        them now.
        """
        if player.guest or self.tournaments is None:
            return
        for eventId, kind, room, seat in self.tournaments.waitingFor(
                player.name):
            player.sendJSON(gameReadyMessage(eventId, kind, room, seat))
    def seatsOf(self, room):
        """
        How many players C{room} seats: a checkers room made here, the
        count it was made for; otherwise its capacity.
        """
        if room.kind == "checkers":
            return room.settings.get("players", room.capacity)
        return room.capacity

    def openRooms(self, kind, name=None):
        """
        The rooms of C{kind} a player called C{name} may join now, oldest
        first: waiting, with a free seat, without a password, without a
        member of that name.
        """
        return [room for room in self.lobby.rooms(kind)
                if not room.running and not room.password
                and room.members
                and len(room.members) < self.seatsOf(room)
                and all(m.name != name for m in room.members)]

    def quick(self, player, message):
        """
        Quick play: join the fullest open room of C{kind} (the oldest of
        the fullest), or make one (C{players} and C{seat} as for
        C{create}, without bots) for others to join; Splendor seats the
        player as C{join} does.
        """
        kind = self._kind(message)
        if kind == "splendor":
            return self.join(player, message)
        if player.room is not None:
            raise PlayError(IN_ROOM, "leave your room first")
        rooms = self.openRooms(kind, player.name)
        if rooms:
            room = max(rooms, key=lambda r: len(r.members))
            session = self._session(player, kind)
            self._lobbyCall(player, self.lobby.join, kind, room.name,
                            session, player, password="")
            player.sendRoom()
            return None
        fields = {"kind": kind, "bots": False,
                  "seat": field(message, "seat", int,
                                1 if kind == "gomoku" else 0)}
        if kind == "checkers":
            sizes = [n for n in self.checkersSizes if n > 1] or \
                self.checkersSizes
            fields["players"] = field(message, "players", int, sizes[0])
        name = self.freeRoomName(kind, player.name)
        return self.claimed(player, kind, name, lambda: self._create(
            player, fields, kind, name))

    def freeRoomName(self, kind, base):
        """
        A name for a new room of C{kind}: C{base}, then C{base-2}...,
        the first that no room of this node has.
        """
        for n in itertools.count(1):
            name = base if n == 1 else "{}-{}".format(base, n)
            if self.lobby.room(kind, name) is None and (
                    self.remote is None
                    or self.remote.homeOf(kind, name) is None):
                return name

    def bots(self, player, message):
        room = player.room
        if room is None:
            raise PlayError(NOT_IN_ROOM, "join a room first")
        if room.running:
            raise PlayError(ROOM_RUNNING, "the game is running")
        count = field(message, "count", int, 1)
        capacity = {"gomoku": 2, "checkers": room.settings.get(
            "players", CHECKERS_CAPACITY), "splendor": SPLENDOR_CAPACITY}
        count = max(0, min(count, capacity[room.kind] - len(room.members)))
        self.addBots(room, count, levelField(message))

    def leave(self, player, message):
        if player.room is None:
            raise PlayError(NOT_IN_ROOM, "you are in no room")
        player.leaveRoom()
        player.sendRoom()

    def ready(self, player, message):
        room = player.room
        if room is None:
            raise PlayError(NOT_IN_ROOM, "join a room first")
        ready = field(message, "ready", bool, True)
        if room.kind == "gomoku" and room.owner.session is player.session:
            raise PlayError(NOT_OWNER, "the owner starts the game")
        self._lobbyCall(player, self.lobby.setReady, player.session, ready)

    def start(self, player, message):
        room = player.room
        if room is None:
            raise PlayError(NOT_IN_ROOM, "join a room first")
        if room.kind != "gomoku":
            raise PlayError(UNSUPPORTED, "a {} game starts when everyone "
                            "is ready".format(room.kind))
        if room.owner.session is not player.session:
            raise PlayError(NOT_OWNER, "the owner starts the game")
        self._lobbyCall(player, self.lobby.start, room)

    def act(self, player, message):
        table = player.table
        if table is None:
            raise PlayError(NO_GAME, "no game is running")
        if "action" not in message:
            raise PlayError(BAD_MESSAGE, "action is required")
        action = decodeAction(table.kind, message["action"])
        try:
            table.act(player.seat, action)
        except TableError as e:
            raise PlayError(TABLE_ERRORS.get(type(e), ILLEGAL),
                            str(e)[:200])

    def resign(self, player, message):
        table = player.table
        if table is None:
            raise PlayError(NO_GAME, "no game is running")
        if table.kind == "gomoku" and not table.over:
            table.forfeit(player.seat)
        else:
            player.leaveRoom()
        player.sendRoom()

    def hint(self, player, message):
        table = player.table
        if table is None:
            raise PlayError(NO_GAME, "no game is running")
        seat = player.seat
        game = table.game
        if table.over or game.isOver or seat != game.currentSeat:
            raise PlayError(NOT_YOUR_TURN, "a hint is for your turn")
        bot = botFor(table.kind, HINT_LEVEL, seed=len(player.sent))
        action = bot.chooseAction(game.copy(), seat)
        player.sendJSON({"type": "hint",
                         "action": encodeAction(table.kind, action)})

    HANDLERS = {
        "hello": hello,
        "lobby": lobbyRequest,
        "create": create,
        "join": join,
        "quick": quick,
        "bots": bots,
        "leave": leave,
        "ready": ready,
        "start": start,
        "act": act,
        "resign": resign,
        "hint": hint,
    }

    def connectionLost(self, connection):
        """
        C{connection} is gone.
        """
        player, connection.player = connection.player, None
        if player is not None:
            player.detach(connection)
