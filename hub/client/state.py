"""
What every client state machine shares: observers, the phase, messages
for the user, and the link to the protocol that carries the bytes.

Nothing here (or in the C{state_*} modules) imports pyglet: the scenes read
these objects and the tests drive them through
L{twisted.internet.testing.StringTransport}.
"""

from typing import Any, Callable, List, Optional, Protocol, Tuple

from hub.client.i18n import _
from twisted.logger import Logger
from twisted.python.failure import Failure

from hub.client import events as E
from hub.client.keyed import hideKey
from hub.ihub import IGameRules

#: Phases shared by all three games.
CONNECTING = "connecting"
LOBBY = "lobby"
ROOM = "room"
GAME = "game"
OVER = "over"
CLOSED = "closed"

#: What observes a state machine: called with each event.
Observer = Callable[[Any], object]


class Observable:
    """
    Tells its observers of its events (L{hub.client.events}):
    C{observer(event)}.  A subclass sets C{self._observers = []} in its
    C{__init__}.
    """

    _observers: List[Observer]

    def subscribe(self, observer: Observer) -> None:
        """
        Call C{observer(event)} on every event.
        """
        self._observers.append(observer)

    def unsubscribe(self, observer: Observer) -> None:
        """
        Stop calling C{observer}.
        """
        if observer in self._observers:
            self._observers.remove(observer)

    def emit(self, event: object) -> None:
        """
        Tell every observer of C{event} (one of L{hub.client.events}).
        """
        for observer in list(self._observers):
            observer(event)


class ClientState(Observable):
    """
    Base of the per-game client state machines.

    Observers are callables C{observer(event)}; the events are those of
    L{hub.client.events}, such as L{E.PhaseChanged}, L{E.Message},
    L{E.Moved}.

    @ivar phase: one of L{CONNECTING}, L{LOBBY}, L{ROOM}, L{GAME}, L{OVER},
        L{CLOSED}.
    @ivar messages: the last few readable messages (errors, notices), newest
        last, as C{(kind, text)} with kind C{"error"} or C{"info"}.
    @ivar connected: True while a protocol is attached.
    @ivar secret: the play key riding in the name (never shown nor
        logged: see L{hide}), or None.
    """

    log = Logger()
    game: Optional[str] = None
    secret: Optional[str] = None
    name: str

    def __init__(self) -> None:
        self.phase = CONNECTING
        self.messages: List[Tuple[str, str]] = []
        self.connected = False
        self.notServer: Optional[str] = None
        self._protocol: Any = None
        self._observers = []

    def hide(self, text: Any) -> Any:
        """
        C{text} as it may be shown or logged: without the play key.
        """
        return hideKey(text, self.secret)

    @property
    def shownName(self) -> str:
        """
        The player's name as it may be shown: without its key.
        """
        return self.hide(self.name)

    @property
    def answered(self) -> bool:
        """
        Whether the server has sent a valid message of the game on this
        connection: until then an open port may be another game's (a
        checkers client says nothing before Join).
        """
        return self._protocol is not None and getattr(
            self._protocol, "answered", True)

    def connectionText(self) -> str:
        """
        The connection in a word or three, for a window's header:
        C{connected} only once the server has answered as a server of the
        game.
        """
        if not self.connected:
            return _("offline")
        if not self.answered:
            return _("port open, no answer yet")
        return _("connected")

    def setPhase(self, phase: str) -> None:
        """
        Move to C{phase} and tell the observers if it changed.
        """
        if phase != self.phase:
            old, self.phase = self.phase, phase
            self.emit(E.PhaseChanged(old, phase))

    def notify(self, text: str, kind: str = "info") -> None:
        """
        Record a message for the user and tell the observers.
        """
        text = self.hide(text)
        self.messages.append((kind, text))
        del self.messages[:-8]
        self.emit(E.Message(kind, text))

    def error(self, text: str) -> None:
        """
        Record an error message for the user.
        """
        self.log.warn("{game}: {text}", game=self.game,
                      text=self.hide(text))
        self.notify(text, "error")

    def wrongServer(self, reason: str) -> None:
        """
        The peer does not speak this game: C{reason} says why (a phrase
        such as C{"gave no answer in 5 s"}).  Observers get
        L{E.WrongServer}; the protocol closes the connection.
        """
        self.notServer = reason
        self.log.warn("{game}: the server {reason!r}", game=self.game,
                      reason=reason)
        self.emit(E.WrongServer(reason))

    def attach(self, protocol: Any) -> None:
        """
        The protocol C{protocol} is connected and carries our messages.
        """
        self._protocol = protocol
        self.connected = True
        self.connectionMade()

    def isAttached(self, protocol: object) -> bool:
        """
        Whether C{protocol} is the one carrying our messages (not one
        already replaced by a newer connection's).
        """
        return protocol is not None and protocol is self._protocol

    def detach(self, reason: Optional[Failure] = None) -> None:
        """
        The protocol's connection is gone.
        """
        self._protocol = None
        self.connected = False
        self.connectionLost(reason)
        self.emit(E.Disconnected())

    def send(self, message: Any) -> bool:
        """
        Hand C{message} (a C{hub.wire} message) to the protocol.

        @return: True if it was sent, False when not connected.
        """
        if self._protocol is None:
            self.error(_("not connected"))
            return False
        self._protocol.sendMessage(message)
        awaitAnswer = getattr(self._protocol, "awaitAnswer", None)
        if awaitAnswer is not None:
            awaitAnswer()
        return True

    def connectionMade(self) -> None:
        """
        Override: the connection is up.
        """

    def connectionLost(self, reason: Optional[Failure]) -> None:
        """
        Override: the connection dropped.
        """
        if self.phase not in (OVER,):
            self.setPhase(CLOSED)

    def messageReceived(self, message: Any) -> None:
        """
        Override: one decoded message arrived from the server.
        """
        raise NotImplementedError()


class Playing(Protocol):
    """
    The small interface every game's state machine offers the players
    (L{hub.client.autoplay}, L{hub.client.lobbyflow}, the bot player).
    """

    name: str
    phase: str
    connected: bool
    awaitingReply: bool

    @property
    def game(self) -> Optional[str]: ...

    def subscribe(self, observer: Observer) -> None: ...

    def unsubscribe(self, observer: Observer) -> None: ...

    def emit(self, event: object) -> None: ...

    def isMyTurn(self) -> bool: ...

    def mySeat(self) -> Optional[int]: ...

    def rules(self) -> Optional[IGameRules]: ...

    def playAction(self, action: Any) -> None: ...
