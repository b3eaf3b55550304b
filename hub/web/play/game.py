"""
What browser play asks of each game's module (L{IGamePlay}), and the
base the three modules share (L{GamePlay}): everything that differs from
one game to another is here, so that the shared core (L{hub.web.play.core})
and the player (L{hub.web.play.player}) never ask which game they play.
"""

from typing import Any, Dict, List, Optional

from zope.interface import Attribute, Interface, implementer

from hub.ihub import ILobby, IRoomObserver, ISession, ISessions, \
    IStartPolicy, ITable, Room
from hub.web.play.codec import dumps
from hub.web.play.errors import BAD_MESSAGE, BAD_SEAT, BAD_SIZE, PlayError


class IGamePlay(Interface):
    """
    One game kind in the browser: its actions' JSON, what its events and
    rooms add to the messages, and how its rooms are made, joined and
    left.
    """

    kind = Attribute("The game kind.")
    namedRooms = Attribute(
        "True if players name its rooms (create, join by name); False for "
        "Splendor, whose players are seated.")
    ownerStarts = Attribute(
        "True if the room's owner starts the game (a start message); else "
        "it starts when every member is ready.")
    listsLegal = Attribute(
        "True if a turn of the player's lists the legal actions.")
    showsTable = Attribute(
        "True if the events carry the table's view (tableFields).")
    defaultSeat = Attribute("The seat of a room's maker, by default.")
    sizes = Attribute("The player counts its games start with, sorted.")

    def welcomeFields() -> Dict[str, Any]:
        """
        What C{welcome} says of this game (checkers: its sizes).
        """

    def decodeAction(value: Any) -> Any:
        """
        The canonical action (of L{hub.games}) that the JSON C{value} is.

        @raise PlayError: L{hub.web.play.errors.BAD_ACTION}.
        """

    def encodeAction(action: Any) -> Any:
        """
        The JSON form of the canonical C{action}.
        """

    def roomFields(room: Room) -> Dict[str, Any]:
        """
        What the C{room} message adds for a room of this game.
        """

    def tableFields(table: ITable, seat: Optional[int]) -> Dict[str, Any]:
        """
        What the player at C{seat} sees of C{table} now, added to its
        events when L{showsTable}.
        """

    def startPosition(position: Any) -> Any:
        """
        The C{position} of C{GameStarted} as a player may see it.
        """

    def playedMessage(table: ITable, event: Any) -> Dict[str, Any]:
        """
        The C{ActionPlayed} message of C{event}, as every player gets it.
        """

    def playedText(table: ITable, event: Any) -> str:
        """
        L{playedMessage}, encoded.
        """

    def secret(event: Any) -> Optional[Dict[str, Any]]:
        """
        What only the mover hears of C{event} (a blind reserve's card),
        or None when the message is the same for every player.
        """

    def nameSession(sessions: ISessions, session: ISession,
                    name: str) -> None:
        """
        Name C{session} as this game's protocol does.

        @raise hub.sessions.NameTaken: the name is another player's.
        """

    def players(requested: Optional[int], quick: bool) -> int:
        """
        The player count of a new room: C{requested}, or the default.

        @raise PlayError: with L{BAD_SIZE} or L{BAD_MESSAGE}.
        """

    def checkSeat(players: int, seat: int) -> None:
        """
        @raise PlayError: with L{BAD_SEAT}, when C{seat} is none of a
            game of C{players}.
        """

    def roomSettings(players: int, seat: int) -> Dict[str, Any]:
        """
        The L{hub.lobby.Room.settings} of a new room.
        """

    def botsBefore(seat: int) -> int:
        """
        How many bots sit before a player who plays C{seat} against bots.
        """

    def seatsOf(room: Room) -> int:
        """
        How many players C{room} seats.
        """

    def readies(room: Room, session: ISession) -> bool:
        """
        Whether the member of C{session} says it is ready (gomoku's
        owner starts instead).
        """

    def newRoom(lobby: ILobby, name: Optional[str], session: ISession,
                observer: IRoomObserver, password: str,
                settings: Dict[str, Any]) -> Room:
        """
        Make a room owned by C{session}, for a game against bots too.

        @raise hub.lobby.LobbyError: a subclass saying why not.
        """

    def seatAnywhere(session: ISession, observer: IRoomObserver) -> None:
        """
        Seat C{session} without a room's name (Splendor's INIT).

        @raise PlayError: the game's rooms have names.
        """

    def leaveTable(lobby: ILobby, room: Room, session: ISession,
                   table: Optional[ITable], seat: Optional[int]) -> None:
        """
        Take C{session} out of C{room}; the seat at its running C{table}
        goes by the table's rules.
        """

    def resign(table: ITable, seat: int) -> bool:
        """
        Give up C{seat} at the table itself (gomoku forfeits): False if
        resigning is leaving the room.
        """


@implementer(IGamePlay)
class GamePlay:
    """
    What the games have in common; each module overrides what its game
    does otherwise.

    @ivar policy: the start policy (L{IStartPolicy}) of the kind's
        protocol, which makes its tables.
    @ivar capacity: the most members of a room.
    """

    kind = ""
    namedRooms = True
    ownerStarts = False
    listsLegal = True
    showsTable = False
    defaultSeat = 0
    capacity = 2

    def __init__(self, policy: IStartPolicy) -> None:
        self.policy = policy

    @property
    def sizes(self) -> List[int]:
        return sorted(self.policy.playerCounts)

    def welcomeFields(self) -> Dict[str, Any]:
        return {}

    def decodeAction(self, value: Any) -> Any:
        raise NotImplementedError()

    def encodeAction(self, action: Any) -> Any:
        raise NotImplementedError()

    def roomFields(self, room: Room) -> Dict[str, Any]:
        return {}

    def tableFields(self, table: ITable,
                    seat: Optional[int]) -> Dict[str, Any]:
        return {}

    def startPosition(self, position: Any) -> Any:
        return position

    def playedMessage(self, table: ITable, event: Any) -> Dict[str, Any]:
        message = {"type": "event", "event": "ActionPlayed",
                   "seat": event.seat, "byBot": event.byBot,
                   "action": self.encodeAction(event.action)}
        message.update(self.playedFields(table, event))
        return message

    def playedFields(self, table: ITable, event: Any) -> Dict[str, Any]:
        """
        What this game adds to an C{ActionPlayed} message.
        """
        return {}

    def playedText(self, table: ITable, event: Any) -> str:
        return dumps(self.playedMessage(table, event))

    def secret(self, event: Any) -> Optional[Dict[str, Any]]:
        return None

    def nameSession(self, sessions: ISessions, session: ISession,
                    name: str) -> None:
        pass

    def players(self, requested: Optional[int], quick: bool) -> int:
        sizes = self.sizes
        if requested is None:
            return sizes[0]
        if requested not in sizes:
            raise PlayError(BAD_SIZE, "a {} game is for {}".format(
                self.kind, sizes))
        return requested

    def checkSeat(self, players: int, seat: int) -> None:
        if not 0 <= seat < players:
            raise PlayError(BAD_SEAT, "no such seat")

    def roomSettings(self, players: int, seat: int) -> Dict[str, Any]:
        return {}

    def botsBefore(self, seat: int) -> int:
        return 0

    def seatsOf(self, room: Room) -> int:
        return int(room.capacity)

    def readies(self, room: Room, session: ISession) -> bool:
        return True

    def newRoom(self, lobby: ILobby, name: Optional[str], session: ISession,
                observer: IRoomObserver, password: str,
                settings: Dict[str, Any]) -> Room:
        if name is None:
            raise PlayError(BAD_MESSAGE, "room is required")
        room = lobby.createRoom(self.kind, name, session, observer,
                                self.policy, self.capacity,
                                password=password)
        room.settings.update(settings)
        return room

    def seatAnywhere(self, session: ISession,
                     observer: IRoomObserver) -> None:
        raise PlayError(BAD_MESSAGE, "room is required")

    def leaveTable(self, lobby: ILobby, room: Room, session: ISession,
                   table: Optional[ITable], seat: Optional[int]) -> None:
        lobby.leave(session)
        if table is not None and seat is not None:
            table.drop(seat)
        elif table is None:
            # The others may start without the player.
            room.policy.memberLeft(lobby, room)

    def resign(self, table: ITable, seat: int) -> bool:
        return False
