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
from typing import TYPE_CHECKING, Any, Dict, Optional, Sequence

from twisted.application.service import Service
from twisted.internet.interfaces import IReactorProcess, IReactorTime

from hub.tournaments.director import POLL_SECONDS, SHOW_SECONDS, Director

if TYPE_CHECKING:
    from hub.tournaments.engines import EngineLauncher

#: Where engines log (and, without a sandbox, work), under the hub's
#: data folder.
ENGINE_FOLDER = "engines"


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
    records.recorder.tagEventsWith(director.eventOfRoom)
    return TournamentService(director)


def engineLauncher(reactor: IReactorProcess, clock: IReactorTime,
                   factories: Dict[str, Any], dataFolder: str,
                   sandbox: str = "bwrap",
                   hidden: Sequence[str] = ()) -> EngineLauncher:
    """
    The engine runner of the hub's tournaments
    (L{hub.tournaments.engines.EngineLauncher}): engines log to
    C{DATA/engines/logs/EVENT/ROOM/NAME.log} and run in the sandbox
    C{sandbox} (C{--engine-sandbox}: C{bwrap}, or C{none}, working in
    C{DATA/engines/work/}).

    @param dataFolder: The hub's data folder (its database's).
    @param hidden: The hub's paths no engine may see (its database, its
        working directory); the engines' folder is never shown either.
    @param factories: The hub's protocol factories (L{hub.tap.
        makeFactories}), not the cluster's gates.
    """
    from hub.sandbox.process import sandboxFor
    from hub.tournaments.engines import EngineLauncher
    folder = os.path.join(os.path.abspath(dataFolder), ENGINE_FOLDER)
    chosen = sandboxFor(sandbox, reactor, os.path.join(folder, "work"),
                        hidden=hidden, closed=[folder])
    return EngineLauncher(reactor, clock, factories, chosen,
                          os.path.join(folder, "logs"))
