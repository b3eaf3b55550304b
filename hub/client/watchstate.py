"""
Positions of a watched game, as the game scenes read them: the JSON
views of the web API (L{hub.web.views}) turned back into rules objects
(L{hub.games}, through the C{restore} of L{hub.tables}) and wrapped in
read-only state mirrors (the C{state_*} classes, never connected: a
spectator cannot play).  No pyglet, no I/O.
"""

from typing import (
    Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple,
    Union)

from hub.client import state as S
from hub.client.state_checkers import CheckersState
from hub.client.state_gomoku import GomokuState
from hub.client.state_splendor import SplendorState, observedGame
from hub.games import splendor as SG
from hub.games.checkers import CheckersGame
from hub.games.gomoku import GomokuGame
from hub.tables import checkers as checkersTable
from hub.tables import gomoku as gomokuTable

#: The name a spectator's mirrors carry: no player has it (names are
#: never empty), so nothing on the board is "yours".
SPECTATOR = ""


class ReadOnly:
    """
    A mixin for the mirrors: never our turn, and nothing is ever sent.
    """

    error: Callable[[str], None]  # (the state's)

    def isMyTurn(self) -> bool:
        return False

    def send(self, message: Any) -> bool:
        self.error("watching: nothing can be played here")
        return False


class WatchedCheckers(ReadOnly, CheckersState):
    """
    A checkers position shown to a spectator.
    """


class WatchedGomoku(ReadOnly, GomokuState):
    """
    A gomoku position shown to a spectator.
    """

    def myColour(self) -> Optional[int]:
        return None


class WatchedSplendor(ReadOnly, SplendorState):
    """
    A Splendor position shown to a spectator.
    """


#: A read-only mirror of any game.
Mirror = Union["WatchedCheckers", "WatchedGomoku", "WatchedSplendor"]


def checkersGame(view: Mapping[str, Any]) -> CheckersGame:
    """
    The L{hub.games.checkers.CheckersGame} of a checkers view: its
    pieces (by L{hub.tables.checkers.restore}), finishers and eliminated
    seats.
    """
    toMove = view.get("toMove")
    game = checkersTable.restore({
        "regions": view["regions"], "pieces": view["pieces"],
        "currentSeat": toMove if toMove is not None else 0,
        "finished": view.get("finished", ()),
        "eliminated": view.get("eliminated", ())})
    if toMove is None:
        game.currentSeat = None
        game.isOver = True
    return game


def gomokuGame(actions: Iterable[Sequence[int]]) -> GomokuGame:
    """
    The L{hub.games.gomoku.GomokuGame} after C{actions} (the moves'
    C{[x, y]}, black first), by L{hub.tables.gomoku.restore}.
    """
    return gomokuTable.restore({"size": 15,
                                "moves": [tuple(a) for a in actions]})


def splendorGame(
        view: Mapping[str, Any]
) -> Tuple[SG.SplendorGame, Dict[int, List[int]]]:
    """
    The L{hub.games.splendor.SplendorGame} a Splendor view shows, and
    the cards standing for the reserved ones (face down in a view: only
    their level is known).

    @return: C{(game, hidden)}, C{hidden} mapping a seat to its
        stand-in cards.
    """
    players = view["players"]
    rows = [[card["id"] if card else 0 for card in row]
            for row in view["rows"]]
    nobles = [noble["id"] for noble in view["nobles"]]
    game = observedGame(list(range(len(players))), nobles, rows)
    game.bank = [view["bank"].get(t, 0) for t in SG.TOKENS]
    hidden: Dict[int, List[int]] = {}
    for seat, data in enumerate(players):
        player = game.players[seat]
        player.tokens = [data["tokens"].get(t, 0) for t in SG.TOKENS]
        player.bonuses = [data["bonuses"].get(g, 0) for g in SG.GEMS]
        player.points = data["points"]
        player.nobles = [noble["id"] for noble in data["nobles"]]
        player.purchased = [0] * data["purchased"]
        for reserved in data["reserved"]:
            deck = game.decks[(reserved.get("level") or 1) - 1]
            if deck:
                card = deck.pop()
                player.reserved.append(card)
                hidden.setdefault(seat, []).append(card)
        game.retired[seat] = bool(data.get("retired"))
    for level, count in enumerate(view.get("decks", ())):
        del game.decks[level][count:]
    game.phase = view.get("phase", game.phase)
    game.currentSeat = view.get("toMove")
    return game, hidden


def seatNames(seats: Iterable[Mapping[str, Any]]) -> List[str]:
    """
    The names of C{seats} (the API's seat objects), in seat order.
    """
    return [seat["name"] for seat in seats]


def shownName(name: str, display: Optional[str] = None) -> str:
    """
    A player as a screen shows it: C{name}, or with its account's
    C{display} name first, C{李雷 (lilei)}, as the web pages do (the
    web API's C{"display"}; the legacy protocols carry none).
    """
    if not display:
        return name
    return "%s (%s)" % (display, name)


def gamePlayers(game: Mapping[str, Any]) -> str:
    """
    The players of C{game} (an item of C{/api/games}) as a list shows
    them, with their display names (L{shownName}).
    """
    names = game.get("players") or []
    displays = list(game.get("displays") or [])
    displays += [None] * (len(names) - len(displays))
    return ", ".join(shownName(name, display)
                     for name, display in zip(names, displays))


def checkersMirror(game: CheckersGame, seats: Sequence[Mapping[str, Any]],
                   turn: Optional[Mapping[str, Any]] = None,
                   lastAction: Optional[Iterable[Sequence[int]]] = None,
                   result: Optional[Mapping[str, Any]] = None,
                   turnAt: Optional[float] = None) -> WatchedCheckers:
    """
    A read-only L{CheckersState} showing C{game}.

    @param turn: the API's turn (C{{"seat", "remaining"}}) for the
        countdown, or None.
    @param lastAction: the last move's path (cells), or None.
    @param result: the API's result when the position is the final one.
    @param turnAt: when the turn was heard of (the countdown's start).
    """
    st = WatchedCheckers(SPECTATOR)
    st.regions = {seat["name"]: seat["role"] or game.regionOfSeat(i)
                  for i, seat in enumerate(seats)}
    st.board = game
    seat = turn["seat"] if turn else game.currentSeat
    if result is None and seat is not None and not game.isOver:
        st.currentRegion = game.regionOfSeat(seat)
    if turn and turn.get("remaining") is not None and turnAt is not None:
        st.turnSeconds = turn["remaining"]
        st.turnStarted = turnAt
    if lastAction:
        st.lastPath = tuple(tuple(cell) for cell in lastAction)
    st.phase = S.GAME
    if result is not None:
        names = seatNames(seats)
        st.ranking = [names[i] for i in result.get("ranking") or ()
                      if 0 <= i < len(names)]
        st.phase = S.OVER
    return st


def gomokuMirror(game: GomokuGame,
                 result: Optional[Mapping[str, Any]] = None) -> WatchedGomoku:
    """
    A read-only L{GomokuState} showing C{game}.
    """
    st = WatchedGomoku(SPECTATOR)
    st.game_ = game
    st.phase = S.OVER if result is not None else S.GAME
    return st


def splendorMirror(
        game: SG.SplendorGame, hidden: Dict[int, List[int]],
        seats: Sequence[object],
        result: Optional[Mapping[str, Any]] = None) -> WatchedSplendor:
    """
    A read-only L{SplendorState} showing C{game}; players' ids are their
    seat numbers from 1.
    """
    st = WatchedSplendor(SPECTATOR)
    st.sequence = [i + 1 for i in range(len(seats) or game.seatCount)]
    st.table = game
    st.hidden = hidden
    if game.currentSeat is not None and game.currentSeat < len(st.sequence):
        st.currentId = st.sequence[game.currentSeat]
    st.phase = S.GAME
    if result is not None:
        winner = result.get("winner")
        if winner is not None and 0 <= winner < len(st.sequence):
            st.winnerId = st.sequence[winner]
        st.currentId = None
        st.phase = S.OVER
    return st
