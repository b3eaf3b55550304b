"""
A bot at the server's side of a seat (takeover, seat filling): the
tables' seat pilot, which asks a thinker (L{hub.ihub.IThinker}) for its
moves: in the hub, the pool of bot workers (L{hub.thinkers.pool}), so
that no strategy runs on the reactor thread.

An adapter that lets a bot play a seat makes a L{SeatPilot} and calls
L{SeatPilot.turn} whenever that seat is to act; the pilot hands the
answer to the adapter's C{play(action)}, which applies it exactly as if
the player had sent it, once C{delay} seconds have passed and the answer
has come, whichever is later.  No answer, a failure or an illegal one:
the seat's first legal action is played (docs/bots.md).  The clock is
injected; nothing touches the global reactor.
"""

from typing import Any, Callable, Optional

from twisted.internet.defer import CancelledError, Deferred, fail
from twisted.logger import Logger
from twisted.python.failure import Failure

from hub.ihub import NoThought

#: An L{hub.ihub.IGameRules} (zope interfaces are not types to mypy).
Rules = Any
#: What a pilot plays when its thinker gave no usable answer.
_RULES_MOVE = object()


class _Turn:
    """
    One turn of a pilot's seat: what it was asked, and how far it got.
    """

    def __init__(self, state: Rules, seat: int,
                 play: Callable[[Any], object]) -> None:
        self.state = state
        self.seat = seat
        self.play = play
        self.thought: Optional[Deferred[Any]] = None
        self.call: Optional[Any] = None
        self.action: Any = None
        self.answered = False
        self.due = False


class SeatPilot:
    """
    Plays one seat of a C{kind} game with the bot of C{level}, one action
    per L{turn} call.

    @ivar thinker: the L{hub.ihub.IThinker} asked.
    @ivar seed: the bot's seed: the first question's; each later one's is
        derived from it and the number of questions asked before.
    @ivar delay: the least seconds between L{turn} and the action.
    @ivar actions: how many actions the pilot played.
    """

    log = Logger()

    def __init__(self, clock: Any, thinker: Any, kind: str, level: int,
                 seed: int = 0, delay: float = 0.5) -> None:
        self.clock = clock
        self.thinker = thinker
        self.kind = kind
        self.level = level
        self.seed = seed
        self.delay = delay
        self.actions = 0
        self._asked = 0
        self._turn: Optional[_Turn] = None
        self._stopped = False

    @property
    def pending(self) -> bool:
        """
        True while a turn is under way (thinking, or waiting its delay).
        """
        return self._turn is not None

    def turn(self, state: Rules, seat: int,
             play: Callable[[Any], object]) -> None:
        """
        C{seat} is to act in C{state} (an L{hub.ihub.IGameRules}): ask
        for an action now, and call C{play(action)} after C{delay}
        seconds (or when the answer comes, if later).

        A turn already under way is replaced.  Nothing is asked if the
        game is over or C{seat} is not to act; when the time comes the
        pilot does nothing if the game is over or C{seat} is no longer to
        act.
        """
        self._cancelTurn()
        if self._stopped or state.isOver or state.currentSeat != seat:
            return
        turn = self._turn = _Turn(state, seat, play)
        seed = self.seed + 100003 * self._asked
        self._asked += 1
        try:
            thought = self.thinker.think(self.kind, self.level, seed,
                                         state, seat)
        except Exception as e:
            thought = fail(e)
        turn.thought = thought
        thought.addCallbacks(self._thought, self._noThought,
                             callbackArgs=(turn,), errbackArgs=(turn,))
        if self._turn is turn:
            turn.call = self.clock.callLater(self.delay, self._due, turn)

    def cancel(self) -> None:
        """
        Drop the turn under way, if any; later L{turn} calls still work.
        """
        self._cancelTurn()

    def stop(self) -> None:
        """
        The game ended or the seat is back in human hands: drop the turn
        under way and ignore every later L{turn}.
        """
        self._stopped = True
        self._cancelTurn()

    def _cancelTurn(self) -> None:
        turn, self._turn = self._turn, None
        if turn is None:
            return
        if turn.call is not None and turn.call.active():
            turn.call.cancel()
        turn.call = None
        if turn.thought is not None and not turn.thought.called:
            turn.thought.cancel()

    def _thought(self, action: Any, turn: _Turn) -> None:
        if turn is self._turn:
            turn.action = action
            turn.answered = True
            self._maybePlay(turn)

    def _noThought(self, failure: Failure, turn: _Turn) -> None:
        error = failure.value
        if isinstance(error, CancelledError) or turn is not self._turn:
            return
        if isinstance(error, NoThought):
            reason = error.reason
            if reason == NoThought.STOPPED:
                # The hub stops: nothing more is played.
                self._turn = None
                return
            self.log.info("the bot of seat {seat} has no move ({reason}): "
                          "its first legal action is played",
                          seat=turn.seat, reason=reason)
        else:
            self.log.failure("the bot of seat {seat} failed", failure,
                             seat=turn.seat)
        turn.action = _RULES_MOVE
        turn.answered = True
        self._maybePlay(turn)

    def _due(self, turn: _Turn) -> None:
        turn.call = None
        turn.due = True
        self._maybePlay(turn)

    def _maybePlay(self, turn: _Turn) -> None:
        if turn is not self._turn or not (turn.due and turn.answered):
            return
        self._turn = None
        self._act(turn)

    def _act(self, turn: _Turn) -> None:
        state, seat = turn.state, turn.seat
        if self._stopped or state.isOver or state.currentSeat != seat:
            return
        legal = state.legalActions(seat)
        if not legal:
            return
        action = turn.action
        if action is _RULES_MOVE:
            action = legal[0]
        elif action not in legal:
            self.log.error("the bot of seat {seat} chose {action!r}, "
                           "which is not legal", seat=seat, action=action)
            action = legal[0]
        self.actions += 1
        try:
            turn.play(action)
        except Exception:
            self.log.failure("playing {action!r} for seat {seat} failed",
                             action=action, seat=seat)
