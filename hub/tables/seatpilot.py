"""
A bot at the server's side of a seat (takeover, seat filling): the
tables' seat pilot, which takes its strategy from L{hub.bots}.

An adapter that lets a bot play a seat makes a L{SeatPilot} for it and
calls L{SeatPilot.turn} whenever that seat is to act.  After C{delay}
seconds the pilot asks its bot for an action on a copy of the state and
hands it to the adapter's C{play(action)}, the adapter's own function
that applies an action exactly as if the player had sent it, so the other
players receive ordinary protocol messages.  Pure Twisted: the clock is
injected, nothing touches the global reactor.
"""

from typing import Any, Callable, Optional

from twisted.logger import Logger

#: An L{hub.ihub.IGameRules} (zope interfaces are not types to mypy).
Rules = Any


class SeatPilot:
    """
    Plays one seat with a bot, one action per L{turn} call.

    @ivar bot: the L{hub.ihub.IBot} that chooses.
    @ivar delay: seconds between L{turn} and the action, so that people
        can follow the game.
    @ivar actions: how many actions the pilot played.
    """

    log = Logger()

    def __init__(self, clock: Any, bot: Any,
                 delay: float = 0.5) -> None:
        self.clock = clock
        self.bot = bot
        self.delay = delay
        self.actions = 0
        self._call: Optional[Any] = None
        self._stopped = False

    @property
    def pending(self) -> bool:
        """
        True while an action is scheduled.
        """
        return self._call is not None and self._call.active()

    def turn(self, state: Rules, seat: int,
             play: Callable[[Any], object]) -> None:
        """
        C{seat} is to act in C{state} (an L{hub.ihub.IGameRules}): in
        C{delay} seconds choose an action and call C{play(action)}.

        A turn already scheduled is replaced.  When the time comes the
        pilot does nothing if the game is over or C{seat} is no longer to
        act.  If the bot fails, the first legal action is played instead.
        """
        if self._stopped:
            return
        self._cancelCall()
        self._call = self.clock.callLater(self.delay, self._act, state,
                                          seat, play)

    def cancel(self) -> None:
        """
        Drop the scheduled action, if any; later L{turn} calls still work.
        """
        self._cancelCall()

    def stop(self) -> None:
        """
        The game ended or the seat is back in human hands: drop the
        scheduled action and ignore every later L{turn}.
        """
        self._stopped = True
        self._cancelCall()

    def _cancelCall(self) -> None:
        if self._call is not None:
            if self._call.active():
                self._call.cancel()
            self._call = None

    def choose(self, state: Rules, seat: int) -> Any:
        """
        The action the bot plays for C{seat} now, or None if it has none.
        """
        legal = state.legalActions(seat)
        if not legal:
            return None
        try:
            action = self.bot.chooseAction(state.copy(), seat)
        except Exception:
            self.log.failure("the bot of seat {seat} failed", seat=seat)
            return legal[0]
        if action not in legal:
            self.log.error("the bot of seat {seat} chose {action!r}, "
                           "which is not legal", seat=seat, action=action)
            return legal[0]
        return action

    def _act(self, state: Rules, seat: int,
             play: Callable[[Any], object]) -> None:
        self._call = None
        if self._stopped or state.isOver or state.currentSeat != seat:
            return
        action = self.choose(state, seat)
        if action is None:
            return
        self.actions += 1
        try:
            play(action)
        except Exception:
            self.log.failure("playing {action!r} for seat {seat} failed",
                             action=action, seat=seat)
