"""
Engines that speak the hub's stdio protocol (C{--protocol stdio}, all
three games): one JSON object a line each way.  Each turn the hub
writes the game's kind, the seat, the position in the canonical form of
C{hub.games}, the legal actions and the time left; the engine answers
C{{"action": ...}} (the records' JSON form of an action), optionally
with a C{"debug"} text.  Processes, time control and no pondering are
L{hub.tournaments.gomocup}'s; docs/protocols/engines.md is the spec.
"""

import json
from itertools import compress
from typing import (
    TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Union)

from twisted.internet import defer
from twisted.internet.defer import Deferred

from hub.games import gomoku
from hub.games.codec import actionFromJSON, actionToJSON
from hub.tournaments.gomocup import (
    ILLEGAL, Brain, BrainFailed, BrainProcess, EnginePlayer)
from hub.wire import gomocup as lines

if TYPE_CHECKING:
    from hub.games.splendor import SplendorGame

#: The protocol's version (docs/protocols/engines.md).
VERSION = 1
#: What the hub's requests say they are.
NAME = "gamehub-stdio"
#: Characters of an answer's C{debug} kept for the log.
DEBUG_CHARS = 2000

_COMPACT = (",", ":")
#: Each gomoku cell's JSON form, in board index order (row by row).
_CELLS = tuple(("[%d,%d]" % (i % gomoku.SIZE, i // gomoku.SIZE)).encode()
               for i in range(gomoku.CELLS))
#: A gomoku request up to its seat.
_GOMOKU_HEAD = json.dumps(
    {"protocol": NAME, "version": VERSION, "kind": "gomoku"},
    separators=_COMPACT).encode("utf-8")[:-1] + b',"seat":'


def splendorPosition(game: "SplendorGame",
                     seat: Optional[int]) -> Dict[str, Any]:
    """
    The public position of a Splendor game (L{hub.games.splendor.
    SplendorGame}) as C{seat} sees it: the bank, the face-up cards, the
    decks' sizes, the nobles, each seat's tokens, bonuses, points, cards
    bought and nobles, its own reserved cards (the others' as a count),
    the phase and what it waits for.
    """
    from hub.games import splendor
    players = []
    for index, player in enumerate(game.players):
        entry: Dict[str, Any] = {"tokens": player.tokenDict(),
                 "bonuses": dict(zip(splendor.GEMS, player.bonuses)),
                 "points": player.points,
                 "purchased": list(player.purchased),
                 "nobles": list(player.nobles),
                 "reservedCount": len(player.reserved)}
        if index == seat:
            entry["reserved"] = list(player.reserved)
        players.append(entry)
    return {"bank": dict(zip(splendor.TOKENS, game.bank)),
            "board": [list(row) for row in game.board],
            "decks": [len(deck) for deck in game.decks],
            "nobles": list(game.nobles),
            "players": players, "phase": game.phase,
            "pendingDiscard": game.pendingDiscard,
            "pendingNobles": list(game.pendingNobles),
            "currentSeat": game.currentSeat}


def position(kind: str, table: Any, seat: Optional[int]) -> Any:
    """
    The canonical position of C{table}'s game for C{seat}: gomoku's and
    checkers' C{table.position()} (the stones in order; the regions,
    each seat's pieces and the seat to move), Splendor's
    L{splendorPosition}.
    """
    if kind == "splendor":
        return splendorPosition(table.game, seat)
    return table.position()


def request(kind: str, seat: Optional[int], seats: int, positionOf: Any,
            legal: Sequence[Any], timeLeftMs: Optional[int],
            turnMs: Optional[int]) -> bytes:
    """
    One request line (bytes, LF-ended).

    @param legal: the legal actions, canonical.
    @param timeLeftMs: what is left of the game's bank, or None.
    @param turnMs: what this turn may last, or None.
    """
    return json.dumps({
        "protocol": NAME, "version": VERSION, "kind": kind, "seat": seat,
        "seats": seats, "position": positionOf,
        "legal": [actionToJSON(kind, action) for action in legal],
        "timeLeftMs": timeLeftMs, "turnMs": turnMs},
        separators=(",", ":")).encode("utf-8") + b"\n"


def _scalar(value: Any) -> bytes:
    if type(value) is int:
        return b"%d" % (value,)
    return json.dumps(value).encode("utf-8")


class GomokuCells:
    """
    The JSON of one gomoku game's stones and empty cells, kept as stones
    are put (a game's moves only grow), for L{gomokuRequest}.
    """

    def __init__(self) -> None:
        self.game: Optional[gomoku.GomokuGame] = None
        self.count = 0
        self.moves = b""
        #: the empty cells, each between commas
        self.empty = b""

    def update(self, game: gomoku.GomokuGame) -> None:
        moves, size = game.moves, gomoku.SIZE
        if game is not self.game or len(moves) < self.count:
            self.game, self.count = game, len(moves)
            self.moves = b",".join([_CELLS[y * size + x] for x, y in moves])
            self.empty = b"," + b",".join(compress(
                _CELLS, map(gomoku.EMPTY.__eq__, game.board))) + b","
            return
        pieces, empty = [self.moves] if self.count else [], self.empty
        for x, y in moves[self.count:]:
            cell = _CELLS[y * size + x]
            pieces.append(cell)
            empty = empty.replace(b"," + cell + b",", b",", 1)
        self.moves, self.empty = b",".join(pieces), empty
        self.count = len(moves)


def gomokuRequest(game: gomoku.GomokuGame, seat: Optional[int],
                  seats: int, timeLeftMs: Optional[int],
                  turnMs: Optional[int],
                  cells: Optional[GomokuCells] = None) -> bytes:
    """
    L{request} of a gomoku game (the table's position, the game's legal
    actions), byte for byte, from each cell's JSON made once.

    @param cells: the game's L{GomokuCells} of the previous requests.
    """
    if cells is None:
        cells = GomokuCells()
    cells.update(game)
    if game.isOver or seat != len(game.moves) & 1:
        legal = b""
    else:
        legal = cells.empty[1:-1]
    return b"".join((
        _GOMOKU_HEAD, _scalar(seat), b',"seats":', _scalar(seats),
        b',"position":{"size":', _scalar(gomoku.SIZE), b',"moves":[',
        cells.moves, b']},"legal":[', legal, b'],"timeLeftMs":',
        _scalar(timeLeftMs), b',"turnMs":', _scalar(turnMs), b"}\n"))


def gomokuAnswer(game: gomoku.GomokuGame, message: Any) -> Any:
    """
    L{answer} of a gomoku game, with the game's own check in place of
    the list of its legal actions.
    """
    try:
        x, y = actionFromJSON("gomoku", message)
    except (TypeError, ValueError, KeyError, AttributeError) as e:
        raise BrainFailed(ILLEGAL, "not a gomoku action: {}".format(
            lines.escape(repr(message), 200))) from e
    if not game.isLegal(x, y):
        raise BrainFailed(ILLEGAL, "not a legal action: {}".format(
            lines.escape(json.dumps(message), 200)))
    return (x, y)


def answer(kind: str, message: Any, legal: Sequence[Any]) -> Any:
    """
    The canonical action of an answer (its C{"action"}), if legal.

    @raise BrainFailed: it is no action of C{kind}, or not in C{legal}.
    """
    try:
        action = actionFromJSON(kind, message)
    except (TypeError, ValueError, KeyError, AttributeError) as e:
        raise BrainFailed(ILLEGAL, "not a {} action: {}".format(
            kind, lines.escape(repr(message), 200))) from e
    if action not in legal:
        raise BrainFailed(ILLEGAL, "not a legal action: {}".format(
            lines.escape(json.dumps(message), 200)))
    return action


class StdioProcess(BrainProcess):
    """
    A stdio engine's process: each line a JSON object; C{"debug"} to the
    log, C{"action"} the answer (a line that is no JSON object while it
    is asked is an unparsable action).
    """

    def lineReceived(self, line: str) -> None:
        wait = self._wait
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        if not isinstance(message, dict):
            self._logLine(line, "?")
            if wait is not None:
                self._fail(BrainFailed(ILLEGAL, "not a JSON object: "
                                       + lines.escape(line, 200)))
            return
        debug = message.get("debug")
        if debug is not None:
            self._logLine("debug: " + str(debug)[:DEBUG_CHARS])
        if "action" not in message:
            return
        self._logLine(json.dumps(message["action"]), "<")
        if wait is not None:
            self._answer(message["action"])


class StdioBrain(Brain):
    """
    A stdio engine for a whole event: no handshake, nothing between
    games (each request carries the whole position).
    """

    def handshake(self, process: BrainProcess) -> Deferred[None]:
        return defer.succeed(None)

    def restart(self, process: BrainProcess) -> Deferred[None]:
        return defer.succeed(None)


class AnyKindTurns:
    """
    The requests and answers of a game of C{kind} (checkers, Splendor):
    the position in its canonical form and the list of legal actions,
    kept to check the answer against.
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.legal: List[Any] = []

    def request(self, table: Any, seat: Optional[int],
                timeLeftMs: Optional[int], turnMs: Optional[int]) -> bytes:
        self.legal = table.game.legalActions(seat)
        return request(self.kind, seat, len(table.seats),
                       position(self.kind, table, seat), self.legal,
                       timeLeftMs, turnMs)

    def answer(self, table: Any, message: Any) -> Any:
        return answer(self.kind, message, self.legal)


class GomokuTurns:
    """
    The requests and answers of a gomoku game: its cells' JSON kept from
    turn to turn (L{gomokuRequest}), the game's own check of an answer.
    """

    def __init__(self) -> None:
        self.cells = GomokuCells()

    def request(self, table: Any, seat: Optional[int],
                timeLeftMs: Optional[int], turnMs: Optional[int]) -> bytes:
        return gomokuRequest(table.game, seat, len(table.seats),
                             timeLeftMs, turnMs, self.cells)

    def answer(self, table: Any, message: Any) -> Any:
        return gomokuAnswer(table.game, message)


#: The turns of each kind with its own; any other kind's are
#: L{AnyKindTurns}.
TURNS: Dict[str, Callable[[], "Turns"]] = {"gomoku": GomokuTurns}
Turns = Union[AnyKindTurns, GomokuTurns]


def turnsOf(kind: str) -> Turns:
    """
    A new game's turns (requests made, answers checked) for C{kind}.
    """
    own = TURNS.get(kind)
    return own() if own is not None else AnyKindTurns(kind)


class StdioPlayer(EnginePlayer):
    """
    A stdio engine's member of its room, for any game kind.
    """

    expect = "action"
    turns: Turns

    def prepare(self, process: BrainProcess) -> None:
        self.turns = turnsOf(self.table.kind)

    def command(self) -> bytes:
        c = self.matchClock
        return self.turns.request(self.table, self.seat, c.leftMs,
                                  c.allowanceMs())

    def accept(self, message: Any) -> Any:
        return self.turns.answer(self.table, message)
