"""
Watching a game from the hub's web API, without pyglet: a live game
followed through its event stream, or a finished one replayed step by
step, as the game page of the web face does (L{hub.web.static}'s
C{game.js}).

L{WatchedGame} is the model: fed with the API's JSON (a game, the
events of its stream), it keeps the position and, once the game is
over, its replay with a cursor (step back, forward, play, jump).
L{GameWatcher} feeds it from a hub over HTTP (L{hub.client.webapi}).

Observers get C{observer(event)} with the events of L{hub.client.events}:
L{E.Changed} (anything to redraw), L{E.Moved} (a live move or one step
forward: C{seat}, C{action}), L{E.ReplayLoaded}, L{E.GameEnded} and
L{E.WatchError} (C{text}); L{GameWatcher} adds L{E.Following} (its
event stream is open).
"""

from typing import Any, Callable, Dict, List, Optional, cast

from hub.client.i18n import _
from twisted.internet.defer import Deferred
from twisted.internet.error import ConnectError
from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.internet.task import LoopingCall
from twisted.logger import Logger
from twisted.python.failure import Failure

from hub.client import events as E
from hub.client import watchstate as W
from hub.client.state import Observable
from hub.client.webapi import (
    EventStreamProtocol, WebAPI, WebAPIError, gamePath)


#: Seconds between two steps of a replay played (as the web page).
PLAY_SECONDS = 0.7
#: Seconds before a broken event stream is opened again.
RETRY_SECONDS = 3.0
#: The game kinds that can be watched.
KINDS = ("checkers", "gomoku", "splendor")


class WatchedGame(Observable):
    """
    One game as a spectator sees it.

    @ivar kind: C{"checkers"}, C{"gomoku"} or C{"splendor"}, once known.
    @ivar gameId: its id on the web.
    @ivar seats: the API's seat objects.
    @ivar moves: the move list (the API's move objects).
    @ivar live: True while the game runs.
    @ivar turn: the API's turn (C{{"seat", "remaining"}}), or None.
    @ivar turnAt: when (on C{clock}) the turn was last heard of.
    @ivar result: the API's result once over, else None.
    @ivar spectators: how many watch (as the hub last said).
    @ivar steps: the replay's views once loaded, else None.
    @ivar step: the step shown (0: before the first move).
    @ivar playing: True while the replay plays by itself.
    """

    log = Logger()

    def __init__(self, clock: IReactorTime, gameId: Optional[str] = None,
                 playSeconds: float = PLAY_SECONDS) -> None:
        self.clock = clock
        self.gameId = gameId
        self.playSeconds = playSeconds
        self.kind: Optional[str] = None
        self.seats: List[Dict[str, Any]] = []
        self.moves: List[Dict[str, Any]] = []
        self.live = False
        self.turn: Optional[Dict[str, Any]] = None
        self.turnAt: Optional[float] = None
        self.result: Optional[Dict[str, Any]] = None
        self.spectators = 0
        self.view: Optional[Dict[str, Any]] = None
        self.steps: Optional[List[Dict[str, Any]]] = None
        self.step = 0
        self.loaded = False
        self._game: Any = None  # (the kind's rules object)
        self._mirror: Optional[W.Mirror] = None
        self._observers = []
        self._player: Optional[LoopingCall] = None

    def _changed(self) -> None:
        self._mirror = None
        self.emit(E.Changed())

    # what the API says
    def loadGame(self, data: Dict[str, Any]) -> None:
        """
        The JSON of C{/api/games/ID}: a live game's snapshot, or a
        finished game with its replay.
        """
        if data.get("live"):
            self.loadSnapshot(data)
        else:
            self.loadReplay(data)

    def loadSnapshot(self, data: Dict[str, Any]) -> None:
        """
        A live game's snapshot: everything at once.
        """
        self._header(data)
        self.moves = list(data.get("moves") or [])
        self.setTurn(data.get("turn"))
        self.result = data.get("result")
        self.live = self.result is None
        self.spectators = data.get("spectators", self.spectators)
        self._setView(data.get("view"))
        self._changed()

    def loadReplay(self, data: Dict[str, Any]) -> None:
        """
        A finished game with its replay (C{"replay": {"steps",
        "moves"}}); without one (too long to keep), its last position.
        """
        self._header(data)
        self.live = False
        self.turn = None
        self.result = data.get("result") or {}
        replay = data.get("replay")
        if replay and replay.get("steps"):
            self.steps = list(replay["steps"])
            self.moves = list(replay.get("moves") or data.get("moves")
                              or [])
            self.step = len(self.steps) - 1
        else:
            self.steps = None
            self.moves = list(data.get("moves") or [])
            self._setView(data.get("view"))
        self._changed()
        self.emit(E.ReplayLoaded())

    def _header(self, data: Dict[str, Any]) -> None:
        kind = data.get("kind")
        if kind not in KINDS:
            raise WebAPIError("not a game of a known kind: %r" % (kind,))
        self.kind = kind
        self.gameId = str(data.get("id", self.gameId))
        self.seats = list(data.get("seats") or [])
        self.loaded = True

    def _setView(self, view: Optional[Dict[str, Any]]) -> None:
        """
        Follow C{view}: the rules object of checkers and gomoku is
        rebuilt from it (gomoku: from the move list).
        """
        self.view = view
        self._game = None
        if view is None:
            return
        if self.kind == "checkers":
            self._game = W.checkersGame(view)
        elif self.kind == "gomoku":
            self._game = W.gomokuGame(m["action"] for m in self.moves)

    def eventReceived(self, event: str, data: Any) -> None:
        """
        One message of the game's event stream.
        """
        handler = getattr(self, "_on_" + event, None)
        if handler is None or not isinstance(data, (dict, type(None))):
            return
        try:
            handler(data or {})
        except (KeyError, TypeError, ValueError) as e:
            self.log.warn("watch: bad {event} message: {error}",
                          event=event, error=str(e))
            self.emit(E.WatchError("out of step with the hub: %s" % (e,)))

    def _on_snapshot(self, data: Dict[str, Any]) -> None:
        self.loadSnapshot(data)

    def _on_action(self, data: Dict[str, Any]) -> None:
        move = data["move"]
        self.moves.append(move)
        if "turn" in data:
            self.setTurn(data["turn"])
        if data.get("view") is not None:
            self._setView(data["view"])
        elif self._game is not None:
            self._play(move)
        self._changed()
        self.emit(E.Moved(move["seat"], move["action"]))

    def _play(self, move: Dict[str, Any]) -> None:
        """
        A gomoku or checkers move (they come without the position): play
        it on the rules object, as the web page does on its view.
        """
        seat, action = move["seat"], move["action"]
        game = self._game
        if self.kind == "gomoku":
            game.apply(seat, tuple(action))
            return
        path = tuple(tuple(cell) for cell in action)
        if game.currentSeat != seat:
            # the hub is the authority on turns (a seat may have timed
            # out in between)
            game.currentSeat = seat
        game.apply(seat, path)

    def _on_view(self, data: Dict[str, Any]) -> None:
        self._setView(data["view"])
        self._changed()

    def _on_turn(self, data: Dict[str, Any]) -> None:
        self.setTurn(data or None)
        self._changed()

    def setTurn(self, turn: Optional[Dict[str, Any]]) -> None:
        """
        The turn under way is C{turn} (the API's), heard of now.
        """
        self.turn = turn
        self.turnAt = self.clock.seconds()

    def _on_seats(self, data: Dict[str, Any]) -> None:
        self.seats = list(data["seats"])
        if data.get("view") is not None:
            self._setView(data["view"])
        self._changed()

    def _on_spectators(self, data: Dict[str, Any]) -> None:
        self.spectators = data.get("count", self.spectators)
        self._changed()

    def _on_end(self, data: Dict[str, Any]) -> None:
        self.result = data.get("result") or {}
        self.live = False
        self.turn = None
        if data.get("view") is not None:
            self._setView(data["view"])
        self._changed()
        self.emit(E.GameEnded())

    # the replay's cursor
    @property
    def stepCount(self) -> int:
        """
        How many steps the replay has (0 without a replay).
        """
        return len(self.steps) if self.steps else 0

    @property
    def lastStep(self) -> int:
        """
        The index of the last step (the final position).
        """
        return max(0, self.stepCount - 1)

    @property
    def playing(self) -> bool:
        return self._player is not None

    def showStep(self, step: float, stop: bool = True) -> None:
        """
        Show step C{step} (clamped to the replay).
        """
        if stop:
            self.pause()
        if not self.steps:
            return
        step = max(0, min(self.lastStep, int(step)))
        if step == self.step:
            return
        forward = step == self.step + 1
        self.step = step
        self._changed()
        if forward and self.moves and step <= len(self.moves):
            move = self.moves[step - 1]
            self.emit(E.Moved(move["seat"], move["action"]))

    def stepBy(self, delta: int) -> None:
        """
        Move the cursor by C{delta} steps.
        """
        self.showStep(self.step + delta)

    def first(self) -> None:
        self.showStep(0)

    def last(self) -> None:
        self.showStep(self.lastStep)

    def togglePlay(self) -> None:
        """
        Play the replay from here (from the start when at its end), or
        pause it.
        """
        if self._player is not None:
            self.pause()
            return
        if not self.steps:
            return
        if self.step >= self.lastStep:
            self.showStep(0)
        self._player = LoopingCall(self._playOne)
        self._player.clock = self.clock
        self._player.start(self.playSeconds, now=False)
        self._changed()

    def _playOne(self) -> None:
        if self.step >= self.lastStep:
            self.pause()
            return
        self.showStep(self.step + 1, stop=False)

    def pause(self) -> None:
        """
        Stop playing the replay.
        """
        if self._player is not None:
            player, self._player = self._player, None
            if player.running:
                player.stop()
            self._changed()

    # what the scenes show
    @property
    def atEnd(self) -> bool:
        """
        Whether the position shown is the final one of a finished game.
        """
        if self.live:
            return False
        return self.steps is None or self.step >= self.lastStep

    def lastAction(self) -> Any:
        """
        The action of the move that led to the position shown, or None.
        """
        if self.steps is not None:
            return self.moves[self.step - 1]["action"] \
                if 0 < self.step <= len(self.moves) else None
        return self.moves[-1]["action"] if self.moves else None

    def stepText(self) -> str:
        """
        C{move N / M} of a replay; C{live, move N} of a live game.
        """
        if self.steps is not None:
            return _("move %d / %d") % (self.step, self.lastStep)
        if self.live:
            return _("live · move %d") % (len(self.moves),)
        return _("move %d") % (len(self.moves),)

    def seatName(self, seat: Optional[int]) -> str:
        """
        What to call seat C{seat}: its name, with its colour or region.
        """
        if seat is None or not 0 <= seat < len(self.seats):
            return _("seat %s") % (seat,)
        data = self.seats[seat]
        if data.get("role"):
            return "%s (%s)" % (self.playerName(seat), data["role"])
        return self.playerName(seat)

    def playerName(self, seat: int) -> str:
        """
        The player of seat C{seat} as the screens show it: its name, with
        its display name first if its account has one (L{W.shownName}).
        """
        data = self.seats[seat]
        return W.shownName(data["name"], data.get("display"))

    def resultText(self) -> Optional[str]:
        """
        How the game ended, in words (as the web page), or None.
        """
        result = self.result
        if result is None:
            return None
        winner = result.get("winner")
        if winner is not None:
            return _("%s won (%s)") % (self.seatName(winner),
                                    result.get("reason"))
        if result.get("reason") == "normal":
            return _("a draw")
        return _("game over (%s)") % (result.get("reason"),)

    def mirror(self) -> Optional[W.Mirror]:
        """
        The read-only state mirror of the position shown, for the game
        scenes (L{hub.client.watchstate}); None before the game is
        known.
        """
        if self._mirror is None and self.loaded:
            self._mirror = self._makeMirror()
        return self._mirror

    def _makeMirror(self) -> Optional[W.Mirror]:
        result = self.result if self.atEnd else None
        if self.steps is not None:
            view: Optional[Dict[str, Any]] = self.steps[self.step]
            moves = self.moves[:self.step]
            game: Any = None
        else:
            view, moves, game = self.view, self.moves, self._game
        if view is None:
            return None
        if self.kind == "gomoku":
            if game is None:
                game = W.gomokuGame(m["action"] for m in moves)
            return W.gomokuMirror(game.copy(), result)
        if self.kind == "checkers":
            game = W.checkersGame(view) if game is None else game.copy()
            return W.checkersMirror(
                game, self.seats, self.turn if self.live else None,
                self.lastAction(), result, self.turnAt)
        game, hidden = W.splendorGame(view)
        return W.splendorMirror(game, hidden, self.seats, result)


class GameWatcher:
    """
    Feeds a L{WatchedGame} from a hub's web API: the game's JSON, then
    its event stream while it runs, then its replay.

    @ivar game: the L{WatchedGame}.
    @ivar api: the L{WebAPI}.
    """

    log = Logger()

    def __init__(self, reactor: Any, clock: IReactorTime, root: str,
                 gameId: Optional[str], api: Optional[WebAPI] = None,
                 retrySeconds: float = RETRY_SECONDS) -> None:
        self.reactor = reactor
        self.clock = clock
        self.api = api if api is not None else WebAPI(reactor, root)
        self.game = WatchedGame(clock, gameId)
        self.retrySeconds = retrySeconds
        self.stopped = False
        self.problem: Optional[str] = None
        self._reader: Optional[EventStreamProtocol] = None
        self._retry: Optional[IDelayedCall] = None

    @property
    def path(self) -> str:
        return gamePath(cast(str, self.game.gameId))  # (given)

    def start(self) -> "Deferred[None]":
        """
        Fetch the game; follow it while it runs.

        @return: a Deferred firing once the game is first loaded (or the
            hub answered an error).
        """
        d = self.api.getJSON(self.path)
        d.addCallback(self._loaded)
        d.addErrback(self._failed)
        return d

    def _loaded(self, data: Dict[str, Any]) -> None:
        if self.stopped:
            return
        self.problem = None
        self.game.loadGame(data)
        if self.game.live:
            self._follow()

    def _follow(self) -> None:
        d = self.api.stream(self.path + "/events", self.game.eventReceived)

        def reading(reader: EventStreamProtocol) -> None:
            if self.stopped:
                reader.stop()
                return
            self._reader = reader
            reader.done.addCallback(self._streamEnded)
            self.log.info("watch: following {game!r} live",
                          game=self.game.gameId)
            self.game.emit(E.Following())
        d.addCallbacks(reading, self._streamFailed)

    def _streamEnded(self, clean: bool) -> None:
        self._reader = None
        if self.stopped:
            return
        if self.game.live:
            self.log.info("watch: the event stream of {game!r} broke",
                          game=self.game.gameId)
            self._later(self.start)
        elif self.game.steps is None:
            self.start()

    def _streamFailed(self, failure: Failure) -> None:
        self._reader = None
        self.problem = failure.getErrorMessage()
        self.game.emit(E.WatchError(self.problem))
        if not self.stopped:
            self._later(self.start)

    def _later(self, call: Callable[[], object]) -> None:
        if self._retry is None or not self._retry.active():
            self._retry = self.clock.callLater(self.retrySeconds, call)

    def _failed(self, failure: Failure) -> None:
        if self.stopped:
            return
        self.problem = failure.getErrorMessage()
        if failure.check(WebAPIError, ConnectError):
            self.log.info("watch: {game!r}: {problem}",
                          game=self.game.gameId, problem=self.problem)
        else:
            self.log.failure("watch: {game!r}", failure,
                             game=self.game.gameId)
        error = cast(WebAPIError, failure.value)  # (when it is one)
        final = failure.check(WebAPIError) is not None and \
            error.code is not None and error.code < 500
        if final and error.code == 404:
            self.problem = _("This hub has no game %s.") % (
                self.game.gameId,)
        self.game.emit(E.WatchError(self.problem, final))
        if not final:
            # the hub is not there (yet): try again
            self._later(self.start)

    def stop(self) -> None:
        """
        Stop following: close the stream, cancel the retries and the
        replay's player.
        """
        self.stopped = True
        self.game.pause()
        if self._retry is not None and self._retry.active():
            self._retry.cancel()
        self._retry = None
        if self._reader is not None:
            self._reader.stop()
            self._reader = None


def listGames(api: WebAPI) -> "Deferred[List[Dict[str, Any]]]":
    """
    A Deferred of the games of a hub (C{/api/games}): the running ones
    first, then those just finished.
    """
    d = api.getJSON("/api/games")

    def ordered(data: Dict[str, Any]) -> List[Dict[str, Any]]:
        games = list(data.get("games") or [])
        return ([g for g in games if not g.get("over")]
                + [g for g in games if g.get("over")])
    return d.addCallback(ordered)
