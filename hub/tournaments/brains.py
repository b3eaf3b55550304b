"""
The engines of tournaments that talk over their standard streams
(Gomocup brains, L{hub.tournaments.gomocup}; stdio engines,
L{hub.tournaments.stdio}): one L{Brain<hub.tournaments.gomocup.Brain>}
per event and entrant, living for the event, and one player per game,
seated at its pairing's room through the hub's lobby and sessions.
"""

from typing import (
    Any, Callable, Dict, List, Mapping, Optional, Tuple, cast)

from twisted.internet import defer
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger

from hub.ihub import ILobby, ISessions
from hub.tournaments import gomocup, stdio
from hub.tournaments.gamelog import GameLog
from hub.tournaments.gomocup import (
    END_GRACE, RESTARTS, START_MS, Brain, BrainProcess, EnginePlayer,
    GomocupPlayer, TimeControl)
from hub.tournaments.interfaces import EntrantInfo, EventInfo, PairingInfo

#: The protocols of engines over their standard streams.
PROTOCOLS = ("gomocup", "stdio")


class BrainRunner:
    """
    The engines over standard streams of an L{hub.tournaments.engines.
    EngineLauncher}: one L{Brain} per event and entrant, a player per
    game (L{GomocupPlayer}, L{stdio.StdioPlayer}).

    @param spawnBrain: C{spawnBrain(process, entrant, eventId)}: start
        C{process} (a L{BrainProcess}) for C{entrant} in its sandbox,
        with no network.
    @param openLog: C{openLog(eventId, room, name)}: a game's log.
    @param controlOf: C{controlOf(event)}: the event's L{TimeControl}.
    @param folder: the C{INFO folder} of brains (their working folder).
    @ivar ends: C{(eventId, room)} -> {name: (reason, detail)} of the
        games whose brains failed (L{BrainFailed} reasons).
    """

    log = Logger()

    def __init__(self, clock: IReactorTime, lobby: ILobby,
                 sessions: ISessions,
                 spawnBrain: Callable[[BrainProcess, EntrantInfo, int],
                                      object],
                 openLog: Callable[[int, str, str], GameLog],
                 controlOf: Callable[[EventInfo], TimeControl],
                 folder: str, restarts: int = RESTARTS,
                 startMs: int = START_MS, grace: float = END_GRACE) -> None:
        self.clock = clock
        self.lobby = lobby
        self.sessions = sessions
        self.spawnBrain = spawnBrain
        self.openLog = openLog
        self.controlOf = controlOf
        self.folder = folder
        self.restarts = restarts
        self.startMs = startMs
        self.grace = grace
        self.brains: Dict[Tuple[int, str], Brain] = {}
        self.players: Dict[str, List[EnginePlayer]] = {}
        self.ends: Dict[Tuple[int, str], Dict[str, Tuple[str, str]]] = {}

    def brainOf(self, event: EventInfo, entrant: EntrantInfo) -> Brain:
        assert entrant.engine is not None
        eventId = cast(int, getattr(event, "id", event))
        key = (eventId, entrant.name)
        brain = self.brains.get(key)
        if brain is None:
            control = self.controlOf(event)
            brainClass, processClass = (
                (stdio.StdioBrain, stdio.StdioProcess)
                if entrant.engine.protocol == "stdio"
                else (Brain, BrainProcess))
            brain = self.brains[key] = brainClass(
                entrant.name,
                lambda process: self.spawnBrain(process, entrant, eventId),
                lambda: processClass(self.clock, None, control.pondering),
                self.restarts, self.startMs)
        return brain

    def seat(self, event: EventInfo, pairing: PairingInfo,
             entrant: EntrantInfo, kind: str) -> EnginePlayer:
        """
        Seat C{entrant}'s engine at C{pairing}'s room (a C{kind} game),
        ready.

        @raise Exception: it cannot be (a L{hub.lobby.LobbyError}, a
            name taken).
        """
        assert entrant.engine is not None
        eventId = cast(int, getattr(event, "id", event))
        brain = self.brainOf(event, entrant)
        control = self.controlOf(event)
        room = pairing.room
        log = self.openLog(eventId, room, entrant.name)

        def onEnd(p: EnginePlayer, reason: Optional[str],
                  detail: str) -> None:
            self._ended(eventId, room, p, reason, detail)
        player: EnginePlayer
        if entrant.engine.protocol == "stdio":
            player = stdio.StdioPlayer(brain, self.clock, control, log,
                                       onEnd)
        else:
            player = GomocupPlayer(brain, self.clock, control,
                                   entrant.engine.memoryBytes, self.folder,
                                   log, onEnd)
        session = player.session = self.sessions.connect(kind, player)
        try:
            if kind == "gomoku":
                self.sessions.claimName(session, entrant.name)
            elif kind == "checkers":
                self.sessions.setRoomName(session, entrant.name)
            self.lobby.join(kind, room, session, player)
            self.lobby.setReady(session, True)
        except Exception:
            self.sessions.disconnect(session)
            player.gameLog.close()
            raise
        self.players.setdefault(room, []).append(player)
        return player

    def _ended(self, eventId: int, room: str, player: EnginePlayer,
               reason: Optional[str], detail: str) -> None:
        name = player.brain.name
        if reason is not None:
            self.ends.setdefault((eventId, room), {})[name] = (reason,
                                                               detail)
            self.log.info("brain {name} of {room}: {reason} ({detail})",
                          name=name, room=room, reason=reason,
                          detail=detail)
        self.clock.callLater(0, self._leave, player)

    def _leave(self, player: EnginePlayer) -> None:
        session = player.session
        if session is None or session.closed:
            return
        if self.lobby.roomOf(session) is not None:
            self.lobby.leave(session)
        self.sessions.disconnect(session)
        player.gameLog.close()

    def stop(self, room: str) -> None:
        """
        The game of C{room} is over or cut off: its players leave (a game
        under way is lost by their seats' leaving).
        """
        for player in self.players.pop(room, []):
            if not player.done:
                player.finish()
            self._leave(player)

    def entrantOf(self, room: str, playerId: int) -> Optional[str]:
        """
        The entrant whose engine is the session C{playerId} at C{room}'s
        game, or None.
        """
        for player in self.players.get(room, ()):
            if player.session is not None and player.session.id == playerId:
                return player.brain.name
        return None

    def endOf(self, eventId: int,
              room: str) -> Mapping[str, Tuple[str, str]]:
        """
        C{{name: (reason, detail)}} of the brains that lost C{room}'s
        game by failing (time, illegal, error, crash, start).
        """
        return dict(self.ends.get((eventId, room), {}))

    def abouts(self, eventId: int) -> Mapping[str, Mapping[str, str]]:
        """
        C{{name: pairs}}: the C{ABOUT} of each brain of event C{eventId}
        that started.
        """
        return {name: dict(brain.about) for (e, name), brain
                in self.brains.items() if e == eventId and brain.about}

    def stopEvent(self, eventId: int) -> Deferred[Any]:
        """
        C{END} every brain of event C{eventId}.

        @return: a Deferred firing once they are gone.
        """
        waits: List[Deferred[Any]] = []
        for key in [k for k in self.brains if k[0] == eventId]:
            waits.append(self.brains.pop(key).close(self.clock,
                                                    self.grace))
        return defer.DeferredList(waits, consumeErrors=True)

    def stopAll(self) -> Deferred[Any]:
        return defer.DeferredList(
            [self.stopEvent(eventId)
             for eventId in {k[0] for k in self.brains}],
            consumeErrors=True)


def timeControl(event: EventInfo) -> TimeControl:
    """
    The Gomocup L{gomocup.TimeControl} of C{event} (an L{EventInfo}):
    its C{turnMs}, C{matchMs} and C{pondering}, the turn limit its turn
    clock's when it gives none.
    """
    turnMs = event.turnMs
    if turnMs is None and event.turnSeconds:
        turnMs = int(event.turnSeconds * 1000)
    return gomocup.TimeControl(turnMs, event.matchMs,
                               pondering=bool(event.pondering))
