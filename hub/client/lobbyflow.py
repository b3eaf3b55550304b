"""
The lobby steps of a player that plays by itself, written once for the
bot client (L{hub.client.botplayer}), C{--bot} and the offline seats of
the desktop client (L{hub.client.session}): enter the room (gomoku:
create or join; checkers: join, which creates; Splendor: the table comes
by itself), ready once the team is there, and, as a gomoku owner, start
once the guest is ready.

The protocol's status codes and player states are those of L{hub.wire}.
"""

from typing import Any, Callable, List, Optional

from twisted.internet.interfaces import IDelayedCall, IReactorTime
from twisted.logger import Logger

from hub.client import events as E
from hub.client import state as S
from hub.client.machines import GameState
from hub.client.state_gomoku import resultText
from hub.wire import checkers as checkersWire
from hub.wire import gomoku as gomokuWire

#: The room C{--bot} walks to when no C{--room} is given, so that two
#: bot-driven clients meet (gomoku: joined if it exists, else created;
#: checkers: joined or created by the first JOIN).
DEFAULT_ROOM = "gamehub"
#: Gomoku room steps (join, create) tried before giving up; a join and a
#: create can cross another client's create and exit.
ROOM_TRIES = 10
#: Seconds between an event and the step it calls for, so that people
#: can follow (the bot client takes 0).
STEP_SECONDS = 0.1
#: Seconds before a refused name is tried again, or the next one (a
#: bot's name of the last game is freed when the hub sees that game's
#: connection close, which may come after the next connection's
#: request).
RENAME_SECONDS = 0.5


class LobbyFlow:
    """
    Walks one client state machine through the lobby: enter C{room},
    ready, start.

    Each step is taken C{delay} seconds after the event that calls for
    it, and only if it still fits the state then.  The room is entered
    each time the state reaches the lobby; the player readies (and a
    gomoku owner starts) once per stay in the room.

    @ivar room: the room to enter (gomoku, checkers).
    @ivar team: ready only once this many players are present (None or
        1: at once).
    @ivar create: gomoku: create the room first (else join it first).
    @ivar mayCreate: gomoku: create the room when there is none (else
        that is a failure).
    @ivar onFailed: called with a text once the room cannot be entered;
        the flow then stops.
    @ivar nextName: checkers: called when a join is refused (the name
        may be taken in the room); returns another name to join with,
        or None to give up.
    """

    log = Logger()

    def __init__(
            self, state: GameState, clock: IReactorTime, room: Optional[str],
            team: Optional[int] = None, password: Optional[str] = "",
            colour: Optional[int] = None, create: bool = False,
            mayCreate: bool = True, delay: float = STEP_SECONDS,
            onFailed: Optional[Callable[[str], object]] = None,
            nextName: Optional[Callable[[], Optional[str]]] = None) -> None:
        # (Any: each game's steps are called after a look at st.game)
        self.state: Any = state
        self.clock = clock
        self.room = room
        self.team = team
        self.password = password or ""
        self.colour = colour
        self.create = create
        self.mayCreate = mayCreate
        self.delay = delay
        self.onFailed = onFailed or state.error
        self.nextName: Callable[[], Optional[str]] = (
            nextName or (lambda: None))
        self._tries = 0
        self._readied = False
        self._started = False
        self._stopped = False
        self._calls: List[IDelayedCall] = []
        state.subscribe(self._event)

    def stop(self) -> None:
        """
        Take no more steps.
        """
        self._stopped = True
        self.state.unsubscribe(self._event)
        for call in self._calls:
            if call.active():
                call.cancel()
        self._calls = []

    def _later(self, f: Callable[..., object], *args: object,
               delay: Optional[float] = None) -> None:
        if self._stopped:
            return
        self._calls = [c for c in self._calls if c.active()]
        self._calls.append(self.clock.callLater(
            self.delay if delay is None else delay, f, *args))

    def _fail(self, text: str) -> None:
        self.stop()
        self.onFailed(text)

    def _event(self, event: object) -> None:
        st = self.state
        if isinstance(event, E.PhaseChanged):
            if event.new != S.ROOM:
                self._readied = self._started = False
            if event.new == S.LOBBY:
                self._tries = 0
                self._later(self._enter)
        elif isinstance(event, E.RoomFailed):
            self._roomFailed(event.status)
        elif isinstance(event, E.JoinFailed):
            name = None
            if event.code == checkersWire.INVALID_JOIN:
                name = self.nextName()
            if name is not None:
                self._later(self._joinAs, name,
                            delay=max(self.delay, RENAME_SECONDS))
            else:
                reason = st.messages[-1][1] if st.messages else ""
                self._fail("could not join room %r: %s" % (self.room,
                                                            reason))
        if st.phase == S.ROOM and not self._stopped:
            self._later(self._inRoom)

    # entering
    def _enter(self) -> None:
        st = self.state
        if st.phase != S.LOBBY:
            return
        if st.game == "gomoku":
            if self.create:
                self._createRoom()
            else:
                st.joinRoom(self.room, self.password)
        elif st.game == "checkers":
            st.join(self.room)

    def _joinAs(self, name: str) -> None:
        if self.state.phase == S.LOBBY:
            self.state.join(self.room, name)

    def _createRoom(self) -> None:
        if self.state.phase != S.LOBBY:
            return
        if self.colour is None:
            self.state.createRoom(self.room, self.password)
        else:
            self.state.createRoom(self.room, self.password, self.colour)

    def _joinRoom(self) -> None:
        if self.state.phase == S.LOBBY:
            self.state.joinRoom(self.room, self.password)

    def _roomFailed(self, status: int) -> None:
        # gomoku: the room is not there (create it), or it was made
        # meanwhile (join it)
        self._tries += 1
        if self._tries > ROOM_TRIES:
            self._fail("could not enter room %r after %d tries" % (
                self.room, ROOM_TRIES))
        elif status == gomokuWire.S_ROOM_EXISTS:
            self._later(self._joinRoom)
        elif status == gomokuWire.S_ROOM_NOT_EXISTS and self.mayCreate:
            self._later(self._createRoom)
        else:
            self._fail("could not enter room %r: %s" % (
                self.room, resultText(status)))

    # in the room
    def _inRoom(self) -> None:
        st = self.state
        if st.phase != S.ROOM or self._stopped:
            return
        if st.game == "gomoku":
            room = st.room or {}
            guestReady = room.get("gs") == gomokuWire.PLAYER_STATE_READY
            if st.isOwner():
                if not self._started and room.get("guest") and guestReady:
                    self._started = True
                    st.startGame()
            elif not self._readied and not guestReady \
                    and not st.awaitingReply:
                self._readied = True
                st.setReady(True)
        elif not self._readied and self._present() >= (self.team or 1):
            self._readied = True
            st.setReady(True)

    def _present(self) -> int:
        st = self.state
        if st.game == "checkers":
            return len(st.members)
        # Splendor: NEW_PLAYER announces us too: count ids, not entries
        return len(set(p[0] for p in st.players) | {st.myId})
