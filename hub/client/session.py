"""
One client session without any pyglet: the game's state machine, the
connection (and gomoku's reconnection), the local bot for AI 托管 and
hints, and the lobby pilot of C{--bot}.
"""

import functools
from dataclasses import dataclass

from twisted.internet.interfaces import IReactorThreads
from twisted.internet.protocol import ProcessProtocol
from twisted.internet.threads import deferToThreadPool
from twisted.logger import Logger

from hub.client import net
from hub.client import state as S
from hub.client.pilot import AutoPlayer, makePilot, thinkNow

#: Seconds between reconnection attempts after a dropped gomoku connection.
RECONNECT_DELAY = 1.0
#: Give up reconnecting after this many attempts (the server's grace is
#: 30 s by default).
RECONNECT_ATTEMPTS = 25


@dataclass
class Options:
    """
    What the command line asked for.
    """

    game: str
    host: str = "127.0.0.1"
    port: int = 0
    name: str = "player"
    room: str = None
    password: str = ""
    bot: int = None
    level: int = 2
    exitAfterGame: bool = False
    players: int = None
    turnSeconds: float = 15
    screenshot: str = None
    screenshotAfter: float = None
    size: tuple = (1100, 760)


def makeState(game, options):
    """
    The client state machine for C{game}.
    """
    if game == "gomoku":
        from hub.client.state_gomoku import GomokuState
        return GomokuState(options.name)
    if game == "checkers":
        from hub.client.state_checkers import CheckersState
        return CheckersState(options.name, options.turnSeconds)
    if game == "splendor":
        from hub.client.state_splendor import SplendorState
        return SplendorState(options.name)
    raise ValueError(game)


def threadedThinking(reactor):
    """
    How the local bot thinks: in C{reactor}'s thread pool when it has one,
    so that the window stays live while a strong level searches; at once
    otherwise.
    """
    if IReactorThreads.providedBy(reactor):
        return functools.partial(deferToThreadPool, reactor,
                                 reactor.getThreadPool())
    return thinkNow


class ClientSession:
    """
    Connects a game's state machine to the server and to the local bot.

    @ivar state: the game's L{hub.client.state.ClientState}.
    @ivar autoplay: the L{AutoPlayer} (AI 托管 and hints).
    @ivar pilot: the lobby pilot when C{--bot} was given, else None.
    @ivar onGameOver: called once when a game has ended.
    @ivar onFatal: called with a text when the session cannot go on.
    """

    log = Logger()

    def __init__(self, reactor, clock, options, connector=None):
        self.reactor = reactor
        self.clock = clock
        self.options = options
        self.state = makeState(options.game, options)
        self.autoplay = AutoPlayer(self.state, clock, options.level,
                                   think=threadedThinking(reactor))
        self.pilot = None
        if options.bot:
            self.autoplay.setEnabled(True)
            self.pilot = makePilot(self.state, clock, options)
        self.onGameOver = lambda: None
        self.onFatal = lambda text: None
        self._connector = connector or net.connect
        self._attempts = 0
        self._stopped = False
        self._overSeen = False
        self._autoJoined = False
        self.bots = []
        self.state.subscribe(self._event)

    def start(self):
        """
        Connect to the server.
        """
        d = self._connector(self.reactor, self.options.game,
                            self.options.host, self.options.port,
                            self.state)
        d.addCallbacks(self._connected, self._connectFailed)
        return d

    def stop(self):
        """
        Close the connection and stop every timer.
        """
        self._stopped = True
        self.autoplay.setEnabled(False)
        if self.pilot is not None:
            self.pilot.stop()
        for bot in self.bots:
            bot.stop()
        proto = self.state._protocol
        if proto is not None and proto.transport is not None:
            proto.transport.loseConnection()

    def addBot(self, level=None):
        """
        Start a bot client (C{python -m hub.bots}) that joins our room.
        """
        import os
        import sys
        o = self.options
        room = getattr(self.state, "roomId", None) or o.room
        url = "%s://%s:%d" % (o.game, o.host, o.port)
        args = [sys.executable, "-m", "hub.bots", url, "--count", "1",
                "--level", str(level or o.level)]
        if room and o.game != "splendor":
            args += ["--room", room]
        import importlib.util
        if importlib.util.find_spec("hub.bots.__main__") is None:
            self.state.error("no bot program (hub.bots) is installed")
            return None
        proto = _BotProcess(self.state)
        self.reactor.spawnProcess(proto, sys.executable, args,
                                  env=os.environ.copy())
        self.bots.append(proto)
        self.state.notify("a bot is joining")
        return proto

    def _connected(self, protocol):
        self._attempts = 0
        return protocol

    def _connectFailed(self, failure):
        text = "cannot connect to %s:%d: %s" % (
            self.options.host, self.options.port,
            failure.getErrorMessage())
        if self._canReconnect() and self._attempts:
            self._scheduleReconnect()
            return None
        self.state.error(text)
        self.onFatal(text)
        return None

    def _canReconnect(self):
        return (not self._stopped and self.options.game == "gomoku"
                and getattr(self.state, "token", None) is not None
                and self.state.phase != S.OVER
                and self._attempts < RECONNECT_ATTEMPTS)

    def _scheduleReconnect(self):
        self._attempts += 1
        self.state.notify("connection lost: reconnecting (%d)"
                          % (self._attempts,))
        self.clock.callLater(RECONNECT_DELAY * min(self._attempts, 3),
                             self._reconnect)

    def _reconnect(self):
        if not self._stopped:
            self.start()

    def _event(self, event, **details):
        if event == "phase":
            new = details["new"]
            if (new == S.LOBBY and self.options.game == "checkers"
                    and not self._autoJoined
                    and (self.options.room or self.options.bot)):
                self._autoJoined = True
                self.clock.callLater(0, self.state.join,
                                     self.options.room or "gamehub")
            if new == S.OVER and not self._overSeen:
                self._overSeen = True
                self.onGameOver()
            elif new == S.CLOSED and not self._stopped:
                if self._canReconnect():
                    self._scheduleReconnect()
                elif not self._overSeen:
                    self.onFatal("connection closed")
        elif event == "joinFailed" and self.options.bot:
            self.onFatal("could not join the room")
        elif event == "lost" and self._canReconnect():
            # gomoku keeps its phase while it tries to resume
            self._scheduleReconnect()


class _BotProcess(ProcessProtocol):
    """
    A bot client started by "add bot"; its exit is reported.
    """

    def __init__(self, state):
        self.state = state
        self.ended = False

    def processEnded(self, reason):
        self.ended = True
        code = getattr(reason.value, "exitCode", None)
        if code:
            self.state.error("the bot exited with status %s" % (code,))

    def stop(self):
        if not self.ended and self.transport is not None:
            try:
                self.transport.signalProcess("TERM")
            except Exception:
                pass
