"""
Splendor in the browser: an action is C{{"kind", "card", "gems"}}; there
are no named rooms (a player is seated as a Unity client's INIT is, or at
a table apart against bots), the seats are shuffled, and the events carry
the table as the spectators see it with the player's own reserved cards.
"""

from typing import Any, Dict, Optional

from hub.games import splendor as rules
from hub.ihub import ILobby, IRoomObserver, ISeating, ISession, \
    IStartPolicy, ITable, Room
from hub.tables.splendor import CAPACITY
from hub.web.play.errors import BAD_ACTION, PlayError
from hub.web.play.game import GamePlay
from hub.web.views import splendorCard, splendorView

#: The most pairs of a gem list.
MAX_GEMS = 64


def _int(value: Any) -> int:
    if type(value) is not int:
        raise PlayError(BAD_ACTION, "not an integer")
    return int(value)


def decodeAction(value: Any) -> Any:
    """
    An action of JSON as the rules' canonical one.

    @raise PlayError: with L{BAD_ACTION}.
    """
    if not isinstance(value, dict):
        raise PlayError(BAD_ACTION, "an action is an object")
    operation = value.get("kind")
    if not isinstance(operation, str):
        raise PlayError(BAD_ACTION, "an action has a kind")
    card = _int(value.get("card", 0))
    gems = value.get("gems", [])
    if not isinstance(gems, list) or len(gems) > MAX_GEMS:
        raise PlayError(BAD_ACTION, "gems is a list of [gem, count]")
    pairs = []
    for pair in gems:
        if (not isinstance(pair, list) or len(pair) != 2
                or not isinstance(pair[0], str)):
            raise PlayError(BAD_ACTION, "gems is a list of [gem, count]")
        pairs.append((pair[0], _int(pair[1])))
    return rules.Action(operation, card, tuple(pairs)).canonical()


def encodeAction(action: Any) -> Any:
    """
    An action's JSON.
    """
    return {"kind": action.kind, "card": action.card,
            "gems": [list(pair) for pair in action.gems]}


class SplendorPlay(GamePlay):
    """
    Splendor's tables and actions.

    @param seating: the L{ISeating} of the kind's protocol.
    """

    kind = "splendor"
    namedRooms = False
    showsTable = True
    capacity = CAPACITY

    def __init__(self, policy: IStartPolicy, seating: ISeating) -> None:
        GamePlay.__init__(self, policy)
        self.seating = seating

    decodeAction = staticmethod(decodeAction)
    encodeAction = staticmethod(encodeAction)

    def tableFields(self, table: ITable,
                    seat: Optional[int]) -> Dict[str, Any]:
        # The rules hold no card text: the page draws from these.
        game = table.game
        return {"view": splendorView(game),
                "hand": [] if seat is None else [
                    splendorCard(n) for n in game.players[seat].reserved]}

    def startPosition(self, position: Any) -> Any:
        # The deal holds the decks in order: only what is face up.
        return {"nobles": position["nobles"], "board": position["board"]}

    def playedFields(self, table: ITable, event: Any) -> Dict[str, Any]:
        if event.detail is None:
            return {}
        return {"golden": event.detail.golden}

    def secret(self, event: Any) -> Optional[Dict[str, Any]]:
        detail = event.detail
        if (detail is None
                or event.action.kind != rules.FOLD_CARD_UNKNOWN):
            return None
        # The card a blind reserve drew is its player's secret.
        return {"drawn": detail.drawn}

    def checkSeat(self, players: int, seat: int) -> None:
        # The seats are shuffled: any asked for is as good.
        pass

    def newRoom(self, lobby: ILobby, name: Optional[str], session: ISession,
                observer: IRoomObserver, password: str,
                settings: Dict[str, Any]) -> Room:
        # A table apart: the bots join it next.
        return self.seating.seatApart(session, observer)

    def seatAnywhere(self, session: ISession,
                     observer: IRoomObserver) -> None:
        self.seating.seat(session, observer)
