"""
The tournament director as a service of the hub: started with the hub,
it polls the database (every 2 s on the hub's tracked clock) and runs the
events found running; stopped, it cuts off the games under way (a
restarted hub plays them again).

    director = tournamentService(records, top, policies, launcher)
    director.setServiceParent(top)
"""

from __future__ import annotations

import os
from typing import Any, Dict, Optional

from twisted.application.service import Service

from hub.tournaments.director import POLL_SECONDS, SHOW_SECONDS, Director

#: Where engines run and log, under the hub's working folder.
ENGINE_FOLDER = "engines"
#: Each engine's CPU seconds (RLIMIT_CPU) and address space (RLIMIT_AS).
ENGINE_CPU_SECONDS = 600
ENGINE_MEMORY_BYTES = 1024 * 1024 * 1024


class TournamentService(Service):
    """
    Runs a L{Director} while the hub runs.

    @ivar director: The L{Director}.
    """

    name = "tournaments"

    def __init__(self, director: Director) -> None:
        self.director = director

    def startService(self) -> None:
        Service.startService(self)
        self.director.start()

    def stopService(self) -> Any:
        Service.stopService(self)
        self.director.stop()


def tournamentService(records: Any, top: Any, policies: Dict[str, Any],
                      launcher: Optional[Any] = None,
                      showSeconds: float = SHOW_SECONDS,
                      pollSeconds: float = POLL_SECONDS
                      ) -> TournamentService:
    """
    The director of the hub C{top} (a L{hub.service.Hub}) on the
    database of C{records} (a L{hub.records.service.RecordsService});
    tournament games are recorded with their event's id.

    @param policies: Game kind -> the start policy of its protocol
        adapter.
    @param launcher: The L{hub.tournaments.interfaces.IGameLauncher} of
        engine entrants, or None.
    """
    director = Director(records.database, top.lobby, top.clock,
                        policies.__getitem__, launcher=launcher,
                        showSeconds=showSeconds, pollSeconds=pollSeconds)
    records.recorder.eventOf = director.eventOfRoom
    return TournamentService(director)


def engineLauncher(reactor: Any, clock: Any, factories: Dict[str, Any],
                   folder: str = ENGINE_FOLDER) -> Any:
    """
    The engine runner of the hub's tournaments
    (L{hub.tournaments.engines.EngineLauncher}): engines work in
    C{FOLDER/work/EVENT/ROOM/NAME} and log to
    C{FOLDER/logs/EVENT/ROOM/NAME.log}, under L{ENGINE_CPU_SECONDS} of
    CPU and L{ENGINE_MEMORY_BYTES} of memory each.

    @param factories: The hub's protocol factories (L{hub.tap.
        makeFactories}), not the cluster's gates.
    """
    from hub.tournaments.engines import EngineLauncher
    return EngineLauncher(reactor, clock, factories,
                          os.path.join(folder, "work"),
                          os.path.join(folder, "logs"),
                          ENGINE_CPU_SECONDS, ENGINE_MEMORY_BYTES)
