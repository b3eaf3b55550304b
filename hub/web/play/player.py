"""
One browser player (L{WebPlayer}): the observer of its session's room, a
listener of its table, with or without a live connection, and the bots
that fill a room's seats (L{RoomBot}).

The player outlives its connection for the sessions' grace when it drops
mid-game: a C{hello} with the player's resume token takes it back, and
hears the game's events again (L{hub.web.play.core}).
"""

import hashlib
from typing import Any, Callable, Dict, List, Optional, Tuple

import attr
from twisted.internet.interfaces import IDelayedCall
from twisted.logger import Logger
from zope.interface import Attribute, Interface, implementer

from hub.ihub import IPeer, IRoomObserver, ITableListener
from hub.lobby import HubRunPeer, RoomObserver
from hub.tables import events
from hub.web.play.codec import RoomState, dumps, encode


class IPlayConnection(Interface):
    """
    A browser's connection as browser play sees it: the WebSocket of
    L{hub.web.ws}, or a test's.
    """

    player = Attribute("The player after hello, else None (set here).")
    visitor = Attribute(
        "The hub.accounts.websessions.Visitor of the login cookie it "
        "opened with, or None (a guest).")
    transport = Attribute("Its transport (its address), or None.")

    def peerAddress() -> Optional[str]:
        """
        The client's address (the one a trusted proxy forwarded, else the
        transport's peer), or None.
        """

    def sendText(text: str) -> None:
        """
        Send one encoded message.
        """

    def close() -> None:
        """
        Close it (another connection took the player over).
        """


def tokenKey(token: str) -> bytes:
    """
    What a resume token is kept under: its SHA-256, so that the token
    itself is never stored.
    """
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


class RoomBot(RoomObserver, HubRunPeer):
    """
    A bot filling an empty seat of a room: a member with its own session,
    always ready, whose seat the table's takeover plays from the start.
    When the game ends it leaves (the room's humans stay).

    @ivar play: the L{hub.web.play.core.WebPlay}.
    @ivar owner: the address and account (or None) of the player who
        asked for the bot, whose share it counts against
        (L{hub.thinkers.shares}).
    """

    def __init__(self, play: Any, level: int,
                 owner: Tuple[Optional[str], Optional[str]] = (None, None)
                 ) -> None:
        self.play = play
        self.level = level
        self.owner = owner
        self.session: Any = None

    # What happens in the room before its game is nothing to a bot.

    def gameStarted(self, room: Any) -> None:
        seat = room.memberOf(self.session).seat
        # After the table's first events: the takeover then acts at once
        # if the bot's seat is first to play.
        self.play.clock.callLater(0, self._takeSeat, room.table, seat)

    def _takeSeat(self, table: Any, seat: int) -> None:
        if not table.over and seat not in table.takeover:
            # At the level asked for, not the hub's --bot-level.
            table.takeOver(seat, level=self.level)

    def gameEnded(self, room: Any, game: Any) -> None:
        self.play.clock.callLater(0, self.retire)

    def retire(self) -> None:
        """
        Leave the room (if still in one) and close the session.
        """
        if self.session.closed:
            return
        self.play.lobby.leave(self.session)
        self.play.sessions.disconnect(self.session)


def isBot(member: Any) -> bool:
    """
    Whether the room C{member} is a L{RoomBot}.
    """
    return isinstance(member.observer, RoomBot)


@implementer(IRoomObserver, ITableListener, IPeer)
class WebPlayer:
    """
    One browser player.

    @ivar play: the L{hub.web.play.core.WebPlay} of the hub.
    @ivar name: the player's name.
    @ivar guest: True unless the name is an account's.
    @ivar account: the case-folded name of the account logged in, or
        None (a guest).
    @ivar connection: the live L{IPlayConnection}, or None while lost.
    @ivar session: the session of the game kind being played (made when
        a room is joined, closed when it is left), or None.
    @ivar table: the table being played at, or None.
    @ivar game: the module (L{hub.web.play.game.IGamePlay}) of the game
        of C{table}, or None.
    @ivar sent: the table's events sent to the player during the current
        game, replayed to a connection that resumes (and after a game
        that ended while the player was away: C{endedAway}).
    @ivar waiting: the tournament games the player was told wait for
        them, by room (L{hub.web.play.tournaments}).
    """

    log = Logger()

    def __init__(self, play: Any, name: str, guest: bool, key: bytes,
                 account: Optional[str] = None) -> None:
        self.play = play
        self.name = name
        self.guest = guest
        self.key = key
        self.account = account
        self.connection: Any = None
        self.session: Any = None
        self.table: Any = None
        self.game: Any = None
        self.sent: List[str] = []
        self.endedAway = False
        self.grace: Optional[IDelayedCall] = None
        self.turn: Optional[Tuple[int, Optional[float]]] = None
        self.waiting: Dict[str, Any] = {}

    def __repr__(self) -> str:
        return "<WebPlayer {!r}>".format(self.name)

    def peerAddress(self) -> Optional[str]:
        """
        The live connection's client address (L{IPlayConnection}), or
        None while lost.
        """
        connection = self.connection
        return None if connection is None else connection.peerAddress()

    def connectionOpen(self) -> bool:
        transport = None if self.connection is None else \
            self.connection.transport
        return transport is not None and not transport.disconnecting

    def closeConnection(self) -> None:
        if self.connectionOpen():
            self.connection.transport.loseConnection()

    # Sending.

    def sendText(self, text: str) -> None:
        """
        Send one encoded message, if connected.
        """
        if self.connection is not None:
            self.connection.sendText(text)

    def send(self, message: Any) -> None:
        """
        Send C{message}, one of the typed messages of
        L{hub.web.play.codec}.
        """
        self.sendText(encode(message))

    def sendEvent(self, message: Dict[str, Any]) -> None:
        """
        Send the table event C{message}, kept for a resuming connection.
        """
        text = dumps(message)
        self.sent.append(text)
        self.sendText(text)

    # Where the player is.

    @property
    def room(self) -> Any:
        """
        The room the player is in, or None.
        """
        if self.session is None:
            return None
        return self.play.lobby.roomOf(self.session)

    @property
    def seat(self) -> Optional[int]:
        """
        The player's seat at the running table, or None.
        """
        session = self.session
        if session is None:
            return None
        room = self.play.lobby.roomOf(session)
        if room is None or room.table is None:
            return None
        return room.memberOf(session).seat  # type: ignore[no-any-return]

    def roomState(self) -> RoomState:
        """
        The C{room} message: the player's room, or C{"room": null}.
        """
        room = self.room
        if room is None:
            return RoomState(None)
        members = []
        for member in room.members:
            members.append({
                "name": member.name, "ready": bool(member.ready),
                "seat": member.seat, "bot": isBot(member),
                "guest": bool(member.session.guest),
                "display": self.displayOf(member.name,
                                          member.session.guest),
                "you": member.session is self.session})
        state = {
            "kind": room.kind, "name": room.name, "members": members,
            "owner": room.owner.name if room.owner is not None else None,
            "capacity": room.capacity, "locked": bool(room.password),
            "running": room.running,
        }
        state.update(self.play.games[room.kind].roomFields(room))
        return RoomState(state)

    def displayOf(self, name: Optional[str], guest: Any) -> Optional[str]:
        """
        The display name of the account C{name} if the hub holds it
        (L{hub.accounts.displays.DisplayNames.known}), else None.
        """
        displays = self.play.displays
        if guest or displays is None:
            return None
        return displays.known(name)  # type: ignore[no-any-return]

    def sendRoom(self) -> None:
        self.send(self.roomState())

    # Room events.

    def memberJoined(self, room: Any, actor: Any) -> None:
        self.sendRoom()

    def memberLeft(self, room: Any, actor: Any, previousOwner: Any) -> None:
        self.sendRoom()

    def readyChanged(self, room: Any, actor: Any) -> None:
        self.sendRoom()

    def roleChanged(self, room: Any, actor: Any) -> None:
        self.sendRoom()

    def gameStarted(self, room: Any) -> None:
        self.table = room.table
        self.game = self.play.games[room.kind]
        self.sent = []
        self.turn = None
        self.endedAway = False
        room.table.addListener(self)

    def gameEnded(self, room: Any, game: Any) -> None:
        self.sendRoom()

    # Table events.

    # The handler of each event type, found by its name once.
    _handlers: Dict[type, Callable[..., None]] = {}

    def tableEvent(self, table: Any, event: Any) -> None:
        if table is not self.table:
            return
        handler = self._handlers.get(type(event))
        if handler is None:
            found: Callable[..., None] = getattr(
                type(self), "on" + events.eventName(event),
                WebPlayer.sendFields)
            handler = self._handlers[type(event)] = found
        handler(self, table, event)

    def sendFields(self, table: Any, event: Any) -> None:
        """
        Send C{event} with its fields, but its time.
        """
        message: Dict[str, Any] = {"type": "event",
                                   "event": events.eventName(event)}
        for attribute in attr.fields(type(event)):
            if attribute.name != "at":
                value = getattr(event, attribute.name)
                message[attribute.name] = (
                    list(value) if isinstance(value, tuple) else value)
        self.sendEvent(message)

    def legalFor(self, table: Any, seat: Optional[int]) -> Optional[List[Any]]:
        """
        The legal actions of C{seat} (JSON), if it is the player's and
        the game lists them.
        """
        game = self.game
        if (seat is None or not game.listsLegal or table.over
                or seat != self.seat):
            return None
        return [game.encodeAction(action)
                for action in table.game.legalActions(seat)]

    def addTable(self, table: Any, message: Dict[str, Any]) -> Dict[str, Any]:
        """
        Add to the event C{message} what the player sees of the table
        now, in a game whose events carry it (Splendor's view and hand).
        """
        if self.game.showsTable:
            message.update(self.game.tableFields(table, self.seat))
        return message

    def onGameStarted(self, table: Any, event: Any) -> None:
        room = self.room
        bots = frozenset() if room is None else frozenset(
            member.seat for member in room.members if isBot(member))
        self.sendEvent(self.addTable(table, {
            "type": "event", "event": "GameStarted", "kind": event.kind,
            "table": event.table,
            "position": self.game.startPosition(event.position),
            "seats": [{"index": s.index, "name": s.name,
                       # A bot from the start, where a later takeover
                       # of another seat is a departed player's.
                       "bot": bool(s.bot) or s.index in bots,
                       "guest": bool(s.guest),
                       "display": self.displayOf(s.name, s.guest)}
                      for s in event.seats],
            "you": self.seat, "game": self.play.gameId(table)}))

    def onTurnStarted(self, table: Any, event: Any) -> None:
        self.turn = (event.seat, event.deadline)
        self.sendEvent(self.turnMessage(table, event.seat, event.deadline))

    def turnMessage(self, table: Any, seat: int,
                    deadline: Optional[float] = None) -> Dict[str, Any]:
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

    def sendClock(self) -> None:
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

    def onActionPlayed(self, table: Any, event: Any) -> None:
        secret = self.game.secret(event)
        if secret is not None:
            message = self.game.playedMessage(table, event)
            if event.seat == self.seat:
                message.update(secret)
            self.sendEvent(message)
            return
        # The same for every player: encoded once.
        text = self.play.sharedText(self.game, table, event)
        self.sent.append(text)
        connection = self.connection
        if connection is not None:
            connection.sendText(text)

    def onDiscardRequired(self, table: Any, event: Any) -> None:
        if event.seat == self.seat:
            self.sendEvent(self.addTable(table, {
                "type": "event", "event": "DiscardRequired",
                "seat": event.seat, "count": event.count,
                "legal": self.legalFor(table, event.seat)}))

    def onNobleOffered(self, table: Any, event: Any) -> None:
        if event.seat == self.seat:
            self.sendEvent(self.addTable(table, {
                "type": "event", "event": "NobleOffered",
                "seat": event.seat, "nobles": list(event.nobles),
                "legal": self.legalFor(table, event.seat)}))

    def onGameEnded(self, table: Any, event: Any) -> None:
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

    def closeSession(self) -> None:
        """
        The player is in no room: close the game kind's session.
        """
        if self.session is not None:
            self.play.sessions.disconnect(self.session)
            self.session = None

    def leaveRoom(self) -> None:
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
        if self.table is not None:
            self.table.removeListener(self)
            self.table = None
        self.play.games[room.kind].leaveTable(
            self.play.lobby, room, self.session, table, seat)
        self.closeSession()
        self.play.botsAlone(room)

    # Connections.

    def attach(self, connection: Any) -> None:
        """
        C{connection} speaks for the player from now on (a connection
        still attached is closed).
        """
        if self.grace is not None:
            if self.grace.active():
                self.grace.cancel()
            self.grace = None
        old, self.connection = self.connection, connection
        if old is not None and old is not connection:
            old.player = None
            old.close()

    def detach(self, connection: Any) -> None:
        """
        C{connection} dropped: mid-game the player keeps the seat for the
        sessions' grace; otherwise they leave at once.
        """
        if self.connection is not connection:
            return
        self.connection = None
        if self.table is not None and not self.table.over:
            self.grace = self.play.clock.callLater(
                self.play.sessions.graceSeconds, self.graceExpired)
            return
        self.forget()

    def graceExpired(self) -> None:
        """
        The player did not come back: the seat goes by the table's rules.
        """
        self.grace = None
        self.log.info("web player {name!r} did not come back",
                      name=self.name, event="lost")
        self.forget()

    def stop(self) -> None:
        """
        The hub stops: cancel the grace.
        """
        if self.grace is not None and self.grace.active():
            self.grace.cancel()
        self.grace = None

    def forget(self) -> None:
        """
        The player is gone for good.
        """
        try:
            self.leaveRoom()
        finally:
            self.play.forget(self)
