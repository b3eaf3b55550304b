"""
The contracts of the tournament director with what it drives.

The director (L{hub.tournaments.director}) pairs entrants and creates one
room per pairing, named C{EVENT-ROUND-BOARD}.  People and connected
programs join that room through their own protocol; engine entrants are
started by an L{IGameLauncher} (L{hub.tournaments.engines}), which the
director calls for every pairing that seats at least one engine.

The value types below are what crosses this boundary: plain frozen
records, no Twisted, no database.
"""

from __future__ import annotations

from typing import List, Mapping, Optional, Sequence, Tuple

import attr
from zope.interface import Interface


@attr.s(frozen=True, auto_attribs=True)
class EventInfo:
    """
    What a launcher needs to know of an event.

    @ivar id: The event's id (a positive integer; the C{EVENT} of room
        names).
    @ivar name: The event's display name.
    @ivar kind: The game kind: C{'gomoku'}, C{'checkers'} or
        C{'splendor'}.
    @ivar turnSeconds: The turn clock of the event's games, or L{None} for
        the kind's default.
    @ivar turnMs: Gomocup brains' milliseconds a turn, or None (then the
        turn clock's, if any).
    @ivar matchMs: Gomocup brains' milliseconds a game, or None.
    @ivar pondering: Engines keep running off turn.
    """

    id: int
    name: str
    kind: str
    turnSeconds: Optional[float] = None
    turnMs: Optional[int] = None
    matchMs: Optional[int] = None
    pondering: bool = False


#: The protocols an engine may speak: C{tcp} is its game's own protocol
#: over a TCP connection to the hub; C{gomocup} the Piskvork brains'
#: (gomoku only) and C{stdio} the hub's JSON lines, over its stdin and
#: stdout (docs/protocols/engines.md).
PROTOCOLS = ("tcp", "gomocup", "stdio")
#: An engine's CPU seconds (RLIMIT_CPU) and memory (RLIMIT_AS) unless
#: its registration says otherwise.
ENGINE_CPU_SECONDS = 600
ENGINE_MEMORY_BYTES = 1024 * 1024 * 1024


@attr.s(frozen=True, auto_attribs=True)
class EngineSpec:
    """
    A registered engine (the operator's catalog, L{hub.tournaments.
    catalog}).

    @ivar name: Its name in the catalog.
    @ivar command: Its command line, with the C{{host} {port} {room}
        {name} {key}} placeholders not yet filled; empty for a name the
        catalog does not hold (the launch then fails).
    @ivar folder: Its own files (bound read-only in its sandbox, and
        where it starts), or None.
    @ivar protocol: One of L{PROTOCOLS}.
    @ivar cpuSeconds: Its C{RLIMIT_CPU} (0: none).
    @ivar memoryBytes: Its C{RLIMIT_AS} (0: none).
    """

    name: str
    command: tuple[str, ...] = ()
    folder: Optional[str] = None
    protocol: str = "tcp"
    cpuSeconds: int = ENGINE_CPU_SECONDS
    memoryBytes: int = ENGINE_MEMORY_BYTES


@attr.s(frozen=True, auto_attribs=True)
class EntrantInfo:
    """
    One entrant seated in a pairing.

    @ivar name: The entrant's name (an account name once hub/accounts has
        landed): the name it must play under in the room.
    @ivar engine: The L{EngineSpec} of the registered engine it is, or
        L{None} for a person or a connected program (which joins by
        itself).
    @ivar key: A play key that proves C{name} (hub.accounts), for the
        command's C{{key}}, or None: then (keys are stored hashed) the
        engine runner mints a one-time game key for the game when the
        hub checks names (L{hub.accounts.check.GameKeys}).
    """

    name: str
    engine: Optional[EngineSpec] = None
    key: Optional[str] = attr.ib(default=None, repr=False)

    @property
    def isEngine(self) -> bool:
        """
        True when the director (through its launcher) starts this entrant.
        """
        return self.engine is not None


@attr.s(frozen=True, auto_attribs=True)
class PairingInfo:
    """
    One game of an event: a board of a round.

    @ivar event: The event's id.
    @ivar round: The round, from 1 (an arena numbers its games' rounds as
        it goes).
    @ivar board: The board within the round, from 1.
    @ivar seats: The entrants' names in seat order (seat 0 first; for
        gomoku seat 0 plays black).
    """

    event: int
    round: int
    board: int
    seats: tuple[str, ...]

    @property
    def room(self) -> str:
        """
        The room's name, C{EVENT-ROUND-BOARD}, e.g. C{'7-3-2'}.
        """
        return roomName(self.event, self.round, self.board)


def roomName(event: int, round: int, board: int) -> str:
    """
    The name of the room of board C{board} of round C{round} of event
    C{event}: C{EVENT-ROUND-BOARD}.
    """
    return "%d-%d-%d" % (event, round, board)


class IGameLauncher(Interface):
    """
    Starts (and stops) the engine entrants of a tournament game.

    The director calls L{launch} once the pairing's room exists, and
    L{stop} when the game is over, forfeited or abandoned (a pause, a
    withdrawal, the hub stopping).
    """

    def launch(event: EventInfo, pairing: PairingInfo,
               entrants: Sequence[EntrantInfo]) -> object:
        """
        Start every engine among C{entrants} for C{pairing}.

        @param event: The event.
        @param pairing: The game; its L{PairingInfo.room} is the room the
            engines must join.
        @param entrants: Every entrant of the pairing in seat order
            (people and programs too, with no command: the launcher skips
            them).
        @return: A L{Deferred} that fires (with anything) once every
            engine's process has been started, or fails with
            L{EngineFailed} naming the entrant whose engine could not
            start; the director then forfeits that entrant's game.
            Later failures (a crash mid-game) reach the director through
            the table: the engine's seat leaves and times out.
        @rtype: L{twisted.internet.defer.Deferred}
        """

    def stop(pairing: PairingInfo, ended: bool = False) -> object:
        """
        Kill whatever was launched for C{pairing} (nothing if nothing
        was).  Idempotent; callers may ignore what it returns.

        @param ended: The game is over: its engines may first leave by
            themselves (they have the last message to read).
        """

    def stopEvent(event: EventInfo) -> object:
        """
        Stop every engine of C{event}, those that live for the event (a
        Gomocup brain's C{END}) included: the event is over.

        @return: A L{Deferred} firing once that is done.
        """

    def problem() -> Optional[str]:
        """
        Why no engine can be started now (one line), or None.
        """

    def entrantOf(room: str, playerId: int) -> Optional[str]:
        """
        The entrant whose engine is the hub's player C{playerId} at
        C{room}'s game, or None (a Splendor game's seats carry no names).
        """

    def endOf(eventId: int, room: str) -> Mapping[str, Tuple[str, str]]:
        """
        C{{name: (reason, detail)}} of the engines over standard streams
        that lost the game of C{room} of event C{eventId} by failing.
        """

    def abouts(eventId: int) -> Mapping[str, Mapping[str, str]]:
        """
        C{{name: pairs}}: the C{ABOUT} of each engine over standard
        streams of event C{eventId} that played.
        """


class EngineFailed(Exception):
    """
    An engine could not be started (or died before its game began).

    @ivar name: The entrant whose engine failed.
    @ivar reason: A short text for the event's log.
    """

    def __init__(self, name: str, reason: str = "") -> None:
        Exception.__init__(self, name, reason)
        self.name = name
        self.reason = reason


class ITournamentListener(Interface):
    """
    Told of an event's progress (the web face's live updates).
    """

    def eventChanged(eventId: int) -> None:
        """
        Something of event C{eventId} changed: an entry, a pairing, a
        result, its state.
        """


class IGameReadyListener(ITournamentListener):
    """
    Also told when a pairing's room opens for its players (the browser
    players, L{hub.web.play}).
    """

    def gameReady(eventId: int, kind: str, room: str,
                  seats: Sequence[str]) -> None:
        """
        Room C{room} of C{kind} waits for the entrants C{seats} (names,
        in seat order) of event C{eventId}.
        """


class IPairings(Interface):
    """
    The pairings' rooms as the people who play in them see them: what
    the browser play asks the director (L{hub.tournaments.director}).
    """

    def pairingOf(kind: str, room: str) -> Optional[Tuple[str, ...]]:
        """
        The seats (entrants' names) of the pairing whose room C{room} of
        C{kind} is open and not yet playing, or None.
        """

    def claim(kind: str, room: str, playerId: int, name: str) -> None:
        """
        Session C{playerId} at C{room} plays entrant C{name} (a Splendor
        table's seats have no names).
        """

    def waitingFor(name: str) -> List[Tuple[int, str, str, int]]:
        """
        The games whose rooms are open and wait for entrant C{name}:
        C{(event id, kind, room, seat)}, by event and room.
        """

    def roomFor(eventId: int, name: str) -> Optional[str]:
        """
        The room entrant C{name} of event C{eventId} should join now, or
        None (the event pages' "your game is ready").
        """

    def addListener(listener: ITournamentListener) -> None:
        """
        Tell C{listener} of every change from now on.
        """


__all__ = ["EventInfo", "EngineSpec", "EntrantInfo", "PROTOCOLS",
           "PairingInfo", "roomName", "IGameLauncher", "EngineFailed",
           "ITournamentListener", "IGameReadyListener", "IPairings"]

