"""
Bots that sit at a table next to the user, inside the client's own
reactor: each one a real connection to the server (any server of the
protocol), driven by L{hub.client.botplayer.BotPlayer}.  No subprocess.
"""

import random

from twisted.internet import defer
from twisted.logger import Logger

from hub.client import events as E
from hub.client import state as S
from hub.client.botplayer import BotPlayer

#: Seconds an in-process bot waits before each action by default.
BOT_SEAT_DELAY = 0.25


class BotSeats:
    """
    The in-process bots of one client.

    @ivar bots: the L{BotPlayer}s started, oldest first.
    """

    log = Logger()

    def __init__(self, reactor, game, host, port, delay=BOT_SEAT_DELAY,
                 rng=None):
        self.reactor = reactor
        self.game = game
        self.host = host
        self.port = port
        self.delay = delay
        self.bots = []
        self._random = rng or random.Random()
        self._serial = 0
        self._given = set()

    def newName(self, hint=None):
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

    def add(self, level, room=None, team=1, name=None):
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

    def _finished(self, state, bot):
        bot.leave()
        return state

    def _failed(self, failure, bot):
        self.log.warn("bot {name!r}: {why}", name=bot.name,
                      why=failure.getErrorMessage())
        bot.stop()

    def stop(self):
        """
        Close every bot's connection.
        """
        for bot in self.bots:
            bot.stop()


def whenInRoom(state):
    """
    A Deferred that fires once C{state} (a client state machine) is in a
    room or at a table, or fails if its connection closes first.
    """
    d = defer.Deferred()

    def observe(event):
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
