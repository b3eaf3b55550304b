"""
One client session without any pyglet: the game's state machine, the
connection (kept by a L{ClientService} that retries with a backoff, and
resumes a gomoku game with its token), the local bot for AI 托管 and
hints, and the lobby steps of C{--bot} (L{hub.client.lobbyflow}).
"""

from __future__ import annotations

from hub.client.i18n import _
import functools
from dataclasses import dataclass
from typing import (
    TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple, cast)

from twisted.application.internet import ClientService, backoffPolicy
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IReactorThreads
from twisted.internet.interfaces import (
    IProtocol, IProtocolFactory, IReactorTime, IStreamClientEndpoint)
from twisted.internet.threads import deferToThreadPool
from twisted.logger import Logger
from twisted.python.failure import Failure
from zope.interface import implementer

from hub.client import events as E
from hub.client import net
from hub.client import state as S
from hub.client.autoplay import AutoPlayer, thinkNow
from hub.client.keyed import wireName
from hub.client.lobbyflow import DEFAULT_ROOM, LobbyFlow
from hub.client.machines import stateFor
from hub.client.state_checkers import CheckersState
from hub.client.state_gomoku import BLACK, WHITE, GomokuState

if TYPE_CHECKING:
    from hub.client.botplayer import BotPlayer
    from hub.client.botseats import BotSeats

#: The backoff between connection attempts: the first retry after
#: about this many seconds...
RETRY_INITIAL = 0.5
#: ... each next one this many times later ...
RETRY_FACTOR = 1.5
#: ... and never more than this many seconds apart (a gomoku server
#: keeps a dropped player's game for 30 s by default).
RETRY_MAX = 8.0


def defaultRetryPolicy() -> Callable[[int], float]:
    """
    The backoff of L{ClientSession}'s connection attempts.
    """
    return backoffPolicy(RETRY_INITIAL, RETRY_MAX, RETRY_FACTOR)


@dataclass
class Options:
    """
    What the command line asked for.
    """

    game: str
    host: str = "127.0.0.1"
    port: int = 0
    name: str = "player"
    #: the play key of the account C{name} (sent in the name field, never
    #: shown nor logged), or ""
    key: str = ""
    room: Optional[str] = None
    password: str = ""
    bot: Optional[int] = None
    level: int = 2
    exitAfterGame: bool = False
    players: Optional[int] = None
    turnSeconds: float = 15
    screenshot: Optional[str] = None
    screenshotAfter: Optional[float] = None
    size: Tuple[int, int] = (1100, 760)
    #: ready by itself once C{players} are present (offline seats)
    ready: bool = False
    #: gomoku: the colour asked for when creating a room ("black" or
    #: "white")
    colour: str = "white"
    #: seconds the local bot (and in-process bots) wait before acting;
    #: None for the default
    botDelay: Optional[float] = None
    #: the game to play offline (a hub in our own reactor), or None
    offline: Optional[str] = None
    #: offline checkers: our region; None for A
    seat: Optional[str] = None
    #: offline: people at this screen (hot seat when more than one)
    humans: int = 1
    #: offline: the level of the bots in the other seats
    opponentLevel: int = 2
    #: offline: where games are recorded (C{--db} syntax, C{"none"});
    #: None for a file in the user's data directory
    records: Optional[str] = None
    #: the address of a game to watch from a hub's web face
    #: (C{http://HOST:PORT/games/ID}), or None
    watch: Optional[str] = None
    #: join C{room} as soon as the lobby is there, in gomoku too (a
    #: tournament's room, opened by the hub)
    joinRoom: bool = False


def threadedThinking(reactor: Any) -> Callable[..., "Deferred[Any]"]:
    """
    How the local bot thinks: in C{reactor}'s thread pool when it has one,
    so that the window stays live while a strong level searches; at once
    otherwise.
    """
    if IReactorThreads.providedBy(reactor):
        return functools.partial(deferToThreadPool, reactor,
                                 reactor.getThreadPool())
    return thinkNow


@implementer(IStreamClientEndpoint)
class _ReportingEndpoint:
    """
    An endpoint that tells C{onFailure} why each connection attempt
    failed.
    """

    def __init__(self, endpoint: IStreamClientEndpoint,
                 onFailure: Callable[[Failure], object]) -> None:
        self._endpoint = endpoint
        self._onFailure = onFailure

    def connect(self, factory: IProtocolFactory) -> "Deferred[IProtocol]":
        def failed(failure: Failure) -> Failure:
            self._onFailure(failure)
            return failure
        return self._endpoint.connect(factory).addErrback(failed)


class ClientSession:
    """
    Connects a game's state machine to the server and to the local bot.

    A L{ClientService} keeps the connection: it tries again with a
    backoff while the server cannot be reached (the attempts are shown
    as messages of the state), and after a dropped gomoku connection it
    reconnects, the state resuming the player with its token.  Any other
    drop ends the session, and so does a peer that turns out not to be a
    server of the game.

    @ivar state: the game's L{hub.client.state.ClientState}.
    @ivar autoplay: the L{AutoPlayer} (AI 托管 and hints).
    @ivar lobby: the L{LobbyFlow} when C{--bot} or C{ready} was given,
        else None.
    @ivar endpoint: where to connect; by default the options' host and
        port.
    @ivar service: the L{ClientService}, once started.
    @ivar attempts: connection attempts that failed in a row.
    @ivar onGameOver: called once when a game has ended.
    @ivar onFatal: called with a text when the session cannot go on.
    """

    log = Logger()

    def __init__(self, reactor: Any, clock: IReactorTime, options: Options,
                 endpoint: Optional[IStreamClientEndpoint] = None,
                 retryPolicy: Optional[Callable[[int], float]] = None) -> None:
        self.reactor = reactor
        self.clock = clock
        self.options = options
        self.state = stateFor(options.game,
                              wireName(options.game, options.name,
                                       options.key),
                              options.turnSeconds)
        if options.key and self.state.name != options.name:
            self.state.secret = options.key
        delay: Dict[str, Any] = {} if options.botDelay is None else {
            "delay": options.botDelay}
        self.autoplay = AutoPlayer(self.state, clock, options.level,
                                   think=threadedThinking(reactor), **delay)
        self.lobby: Optional[LobbyFlow] = None
        if options.bot:
            self.autoplay.setEnabled(True)
        if options.bot or options.ready:
            self.lobby = self._makeLobbyFlow()
        self.onGameOver: Callable[[], object] = lambda: None
        self.onFatal: Callable[[str], object] = lambda text: None
        self.endpoint = endpoint
        self.retryPolicy = retryPolicy or defaultRetryPolicy()
        self.service: Optional[ClientService] = None
        self.attempts = 0
        self._lastFailure: Optional[str] = None
        self._stopped = False
        self._ended = False
        self._overSeen = False
        self._autoJoined = False
        self._botSeats: Optional[BotSeats] = None
        self.state.subscribe(self._event)

    def _makeLobbyFlow(self) -> LobbyFlow:
        """
        The lobby steps of C{--bot}, of the offline seats and of a
        tournament's game: enter C{--room} (L{DEFAULT_ROOM} when none was
        given), ready once C{--players} are there (a tournament's room:
        at once), start as a gomoku owner.
        """
        o = self.options
        colour = None
        if o.game == "gomoku":
            colour = BLACK if o.colour == "black" else WHITE
        # A tournament's room (joinRoom): ready at once, as its other
        # entrants come when they come.
        return LobbyFlow(self.state, self.clock, o.room or DEFAULT_ROOM,
                         team=None if o.joinRoom else o.players,
                         password=o.password,
                         colour=colour, onFailed=self._lobbyFailed)

    def _lobbyFailed(self, text: str) -> None:
        """
        The room could not be entered: tell the user; with C{--bot},
        nobody is there to try something else.
        """
        self.state.error(text)
        if self.options.bot:
            self.onFatal(text)

    @property
    def address(self) -> str:
        """
        C{HOST:PORT} of the server, for messages.
        """
        return "%s:%d" % (self.options.host, self.options.port)

    def start(self) -> None:
        """
        Start connecting (and retrying) to the server.
        """
        endpoint = self.endpoint
        if endpoint is None:
            endpoint = net.endpointFor(self.reactor, self.options.host,
                                       self.options.port)
        factory = net.ClientFactory(self.options.game, self.state,
                                    self.clock)
        self.service = ClientService(
            _ReportingEndpoint(endpoint, self._attemptFailed), factory,
            retryPolicy=self._retryDelay, clock=self.clock,
            prepareConnection=self._connected)
        self.service.startService()

    def stop(self) -> None:
        """
        Close the connection, stop retrying and stop every timer.
        """
        self._stopped = True
        self.autoplay.setEnabled(False)
        if self.lobby is not None:
            self.lobby.stop()
        if self._botSeats is not None:
            self._botSeats.stop()
        self._stopService()

    def _stopService(self) -> None:
        if self.service is not None and self.service.running:
            self.service.stopService()

    @property
    def botSeats(self) -> "BotSeats":
        """
        The in-process bots that joined our room or table
        (L{hub.client.botseats.BotSeats}), made on first use.
        """
        if self._botSeats is None:
            from hub.client.botseats import BOT_SEAT_DELAY, BotSeats
            o = self.options
            delay = BOT_SEAT_DELAY if o.botDelay is None else o.botDelay
            self._botSeats = BotSeats(self.reactor, o.game, o.host, o.port,
                                      delay=delay)
        return self._botSeats

    @property
    def bots(self) -> List["BotPlayer"]:
        """
        The in-process bots started so far.
        """
        return self.botSeats.bots if self._botSeats is not None else []

    def addBot(self, level: Optional[int] = None,
               team: int = 1) -> "BotPlayer":
        """
        Start a bot of C{level} in our reactor, as a connection of its
        own to the server, that joins our room (gomoku, checkers) or
        table (Splendor) and readies once C{team} players are present.

        @return: the L{hub.client.botplayer.BotPlayer}.
        """
        o = self.options
        room = getattr(self.state, "roomId", None) or o.room
        if o.game == "gomoku":
            room = (cast(GomokuState, self.state).room or {}).get(
                "name", room)
        bot = self.botSeats.add(level or o.level, room=room, team=team)
        self.state.notify(_("bot %s (level %d) is joining")
                          % (bot.name, level or o.level))
        return bot

    def fillWithBots(self, count: int,
                     level: Optional[int] = None) -> List["BotPlayer"]:
        """
        Checkers: add bots until the room holds C{count} players; each
        readies once all C{count} are there.

        @return: the bots added.
        """
        missing = count - len(getattr(self.state, "members", ()))
        return [self.addBot(level, team=count) for unused in range(missing)]

    # the connection
    def _connected(self, protocol: IProtocol) -> None:
        if self.attempts and not self._stopped:
            self.state.notify(_("connected to %s") % (self.address,))
        self.attempts = 0
        self._lastFailure = None

    def _attemptFailed(self, failure: Failure) -> None:
        self._lastFailure = net.connectError(failure)

    def _retryDelay(self, failedAttempts: int) -> float:
        """
        The L{ClientService}'s retry policy: the backoff's delay, and a
        message for the user saying which attempt comes when.
        """
        delay = self.retryPolicy(failedAttempts)
        self.attempts = failedAttempts
        if self._stopped:
            return delay
        if self._lastFailure is None:
            text = "connection lost: reconnecting (attempt %d in %.1f s)" \
                % (failedAttempts, delay)
        else:
            text = ("cannot connect to %s (attempt %d: %s); trying again "
                    "in %.1f s (Esc quits)" % (
                        self.address, failedAttempts, self._lastFailure,
                        delay))
        self._lastFailure = None
        self.state.notify(text)
        self.state.emit(E.Retrying(failedAttempts, delay))
        return delay

    def _mayResume(self) -> bool:
        """
        Whether a dropped connection is taken up again: a gomoku player
        with a token, whose game is not over, resumes.
        """
        st = self.state
        return (self.options.game == "gomoku"
                and getattr(st, "token", None) is not None
                and st.phase not in (S.OVER, S.CLOSED)
                and st.notServer is None)

    def _end(self, text: str) -> None:
        """
        The session cannot go on: stop connecting, tell C{onFatal} once
        (unless the game had ended).
        """
        if self._stopped or self._ended:
            return
        self._ended = True
        self._stopService()
        if not self._overSeen:
            self.onFatal(text)

    def _notAServer(self, reason: str) -> None:
        text = "no %s server at %s: it %s" % (self.options.game,
                                              self.address, reason)
        self.state.error(text)
        self._end(text)
        self.state.setPhase(S.CLOSED)

    def _disconnected(self) -> None:
        if not self._mayResume():
            self._end("connection closed")
        # else the service reconnects and the state resumes

    def _event(self, event: object) -> None:
        if isinstance(event, E.PhaseChanged):
            new = event.new
            if (new == S.LOBBY and self.options.game == "checkers"
                    and not self._autoJoined and self.lobby is None
                    and self.options.room):
                # --room without --bot: join it, the rest is the user's
                self._autoJoined = True
                self.clock.callLater(0, cast(CheckersState, self.state).join,
                                     self.options.room)
            elif (new == S.LOBBY and self.options.game == "gomoku"
                    and self.options.joinRoom and self.options.room
                    and not self._autoJoined and self.lobby is None):
                # a tournament's room: the hub opened it for us
                self._autoJoined = True
                self.clock.callLater(0, cast(GomokuState, self.state).joinRoom,
                                     self.options.room)
            if new == S.OVER and not self._overSeen:
                self._overSeen = True
                self.onGameOver()
            elif new == S.CLOSED and self.state.connected:
                # the server refused to resume us
                self._end("connection closed")
        elif isinstance(event, E.Disconnected):
            self._disconnected()
        elif isinstance(event, E.WrongServer):
            self._notAServer(event.reason)
