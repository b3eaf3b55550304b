"""
Bots that sit at a table next to the user, inside the client's own
reactor: each one a real connection to the server (any server of the
protocol), driven by L{hub.client.botplayer.BotPlayer}.  No subprocess.
"""

import random
from typing import Any, List, Optional, Set

from twisted.internet import defer
from twisted.internet.defer import Deferred
from twisted.logger import Logger
from twisted.python.failure import Failure

from hub.client import events as E
from hub.client import state as S
from hub.client.botplayer import BotPlayer
from hub.client.machines import GameState

#: Seconds an in-process bot waits before each action by default.
BOT_SEAT_DELAY = 0.25


class BotSeats:
    """
    The in-process bots of one client.

    @ivar bots: the L{BotPlayer}s started, oldest first.
    """

    log = Logger()

    def __init__(self, reactor: Any, game: str, host: str, port: int,
                 delay: float = BOT_SEAT_DELAY,
                 rng: Optional[random.Random] = None) -> None:
        self.reactor = reactor
        self.game = game
        self.host = host
        self.port = port
        self.delay = delay
        self.bots: List[BotPlayer] = []
        self._random = rng or random.Random()
        self._serial = 0
        self._given: Set[str] = set()

    def newName(self, hint: Optional[str] = None) -> str:
        """
        A bot name the protocols accept (letters, digits, C{_}) and that
        is not one of ours yet.
        """
        self._serial += 1
        while True:
            tag = self._random.randrange(1000)
            if hint:
                name = "bot_%s_%d" % (hint, tag)
            else:
                name = "bot%d_%d" % (self._serial, tag)
            if name not in self._given:
                self._given.add(name)
                return name

    def add(self, level: int, room: Optional[str] = None, team: int = 1,
            name: Optional[str] = None) -> BotPlayer:
        """
        Start one bot of C{level} that joins C{room} (checkers, gomoku)
        and readies once C{team} players are present.

        @return: the L{BotPlayer}; its C{entered} fires once it is seated.
        """
        bot = BotPlayer(self.reactor, self.game, self.host, self.port,
                        name or self.newName(), level,
                        seed=self._random.randrange(2 ** 31), room=room,
                        team=team, delay=self.delay)
        self.bots.append(bot)
        self.log.info("bot {name!r} (level {botLevel}) joining {room!r}",
                      name=bot.name, botLevel=level, room=room)
        bot.start().addCallbacks(self._finished, self._failed,
                                 callbackArgs=(bot,), errbackArgs=(bot,))
        return bot

    def _finished(self, state: GameState, bot: BotPlayer) -> GameState:
        bot.leave()
        return state

    def _failed(self, failure: Failure, bot: BotPlayer) -> None:
        self.log.warn("bot {name!r}: {why}", name=bot.name,
                      why=failure.getErrorMessage())
        bot.stop()

    def stop(self) -> None:
        """
        Close every bot's connection.
        """
        for bot in self.bots:
            bot.stop()


def whenInRoom(state: S.Playing) -> "Deferred[S.Playing]":
    """
    A Deferred that fires once C{state} (a client state machine) is in a
    room or at a table, or fails if its connection closes first.
    """
    d: Deferred[S.Playing] = defer.Deferred()

    def observe(event: object) -> None:
        if d.called:
            return
        if state.phase in (S.ROOM, S.GAME):
            state.unsubscribe(observe)
            d.callback(state)
        elif state.phase == S.CLOSED or isinstance(event, E.JoinFailed):
            state.unsubscribe(observe)
            d.errback(RuntimeError("could not enter the room"))
    if state.phase in (S.ROOM, S.GAME):
        d.callback(state)
    else:
        state.subscribe(observe)
    return d
