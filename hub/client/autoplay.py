"""
Playing for the user: L{AutoPlayer} (AI 托管 and the "suggest" hint).
The lobby steps of a player that plays by itself (create or join, ready,
start) are L{hub.client.lobbyflow}.

Every state machine offers the same small interface for this:
C{isMyTurn()}, C{awaitingReply}, C{rules()} (an L{hub.ihub.IGameRules}
copy of the position), C{mySeat()} and C{playAction(action)}.
"""

import random
from typing import Any, Callable, Optional, cast

from twisted.internet import defer
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.logger import Logger
from twisted.python.failure import Failure

from hub.client import events as E
from hub.client import state as S
from hub.bots import botFor
from hub.client.state import Playing
from hub.ihub import IBot, IGameRules

#: Seconds the bot waits before acting, so that people can follow.
BOT_DELAY = 0.25
#: After this many rejected bot actions in a row, play a random legal one.
MAX_REJECTED = 2


def thinkNow(f: Callable[..., Any], *args: Any) -> "Deferred[Any]":
    """
    Run C{f(*args)} at once; a L{Deferred} of its result.
    """
    return defer.maybeDeferred(f, *args)


class AutoPlayer:
    """
    Plays the user's turns with the local bot while enabled, and computes
    hints on request.

    The bot thinks through C{think(f, *args)}, which returns a Deferred of
    C{f(*args)}: at once by default (L{thinkNow}), or in a thread pool so
    that a slow level does not freeze the window.  One bot thinks at a
    time, on its own copy of the position; an answer that comes after the
    position changed is dropped.

    @ivar enabled: AI 托管 is on.
    @ivar hint: the last suggested action, or None.
    """

    log = Logger()

    def __init__(self, state: Playing, clock: IReactorTime, level: int,
                 bot: Optional[IBot] = None, delay: float = BOT_DELAY,
                 think: Callable[..., "Deferred[Any]"] = thinkNow) -> None:
        self.state = state
        self.clock = clock
        self.level = level
        self.delay = delay
        self.enabled = False
        self.hint: Any = None
        self._bot = bot
        self._think = think
        self._thinking = defer.DeferredLock()
        self._position = 0
        self._call: Optional[IDelayedCall] = None
        self._rejected = 0
        self._random = random.Random()
        state.subscribe(self._event)

    @property
    def bot(self) -> IBot:
        """
        The local bot (L{hub.bots.botFor} of the game at C{level}, with a
        random seed), made on first use.
        """
        if self._bot is None:
            self._bot = botFor(cast(str, self.state.game), self.level,
                               seed=self._random.randrange(2 ** 31))
        return self._bot

    def setEnabled(self, enabled: object) -> None:
        """
        Turn AI 托管 on or off.
        """
        self.enabled = bool(enabled)
        if self.enabled:
            self._schedule()
        elif self._call is not None and self._call.active():
            self._call.cancel()
            self._call = None
        self.state.emit(E.AutoplayChanged(self.enabled))

    def toggle(self) -> None:
        """
        Flip AI 托管.
        """
        self.setEnabled(not self.enabled)

    def suggest(self) -> "Deferred[Any]":
        """
        Ask the bot for the user's move and remember it as C{hint} (and
        emit L{E.HintReady}) when it comes.

        @return: a L{Deferred} firing with the action, or None when it is
            not the user's turn or the position changed meanwhile.
        """
        self.hint = None
        rules = self.state.rules() if self.state.isMyTurn() else None
        if rules is None or rules.isOver:
            self.state.emit(E.HintReady(None))
            return defer.succeed(None)
        position = self._position

        def thought(action: Any) -> Any:
            if position != self._position:
                return None
            self.hint = action
            self.state.emit(E.HintReady(action))
            return action
        return self._choose(rules).addCallback(thought)

    def _choose(self, rules: IGameRules) -> "Deferred[Any]":
        """
        The bot's action for the user's seat in C{rules} (a copy of the
        position), one bot thinking at a time.
        """
        return self._thinking.run(self._think, self.bot.chooseAction,
                                  rules, self.state.mySeat())

    def _event(self, event: object) -> None:
        if isinstance(event, (E.HintReady, E.AutoplayChanged)):
            return
        if isinstance(event, E.Rejected):
            self._rejected += 1
        elif isinstance(event, E.Accepted):
            self._rejected = 0
        if isinstance(event, (E.TurnChanged, E.PhaseChanged, E.Moved,
                              E.Rejected, E.Changed)):
            self.hint = None
            self._position += 1
        self._schedule()

    def _schedule(self) -> None:
        if not self.enabled or self.state.phase != S.GAME:
            return
        if self._call is not None and self._call.active():
            return
        self._call = self.clock.callLater(self.delay, self._act)

    def _mayAct(self) -> bool:
        st = self.state
        return (self.enabled and st.phase == S.GAME and st.isMyTurn()
                and not st.awaitingReply and st.connected)

    def _act(self) -> None:
        self._call = None
        if not self._mayAct():
            return
        rules = self.state.rules()
        if rules is None or rules.isOver:
            # e.g. the opponent's winning move came before the server's
            # end of game: nothing to play
            return
        position = self._position
        if self._rejected < MAX_REJECTED:
            d = self._choose(rules)
        else:
            d = defer.succeed(None)
        d.addCallback(self._play, rules, position)
        d.addErrback(self._failed, rules, position)

    def _failed(self, failure: Failure, rules: IGameRules,
                position: int) -> None:
        """
        The bot or the move failed: log it, and play a random legal
        action instead (if the position is still the one it was for).
        """
        self.log.failure("auto-play failed", failure)
        try:
            self._play(None, rules, position)
        except Exception:
            self.log.failure("auto-play: the random action failed too")

    def _play(self, action: Any, rules: IGameRules, position: int) -> None:
        # The position may have changed while the bot thought; then the
        # event that changed it has scheduled another turn.
        if position != self._position or not self._mayAct():
            return
        if action is None:
            # (our turn: we have a seat)
            actions = rules.legalActions(cast(int, self.state.mySeat()))
            if not actions:
                return
            action = self._random.choice(actions)
        self.log.debug("auto-play: {action!r}", action=action)
        self.state.playAction(action)
