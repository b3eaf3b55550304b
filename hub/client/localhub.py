"""
Offline play's composition root: a hub inside the desktop client's own
reactor, built from the layers below the server's (the shared
L{hub.service.Hub}, the protocols' factories of
L{hub.protocols.factories}, the records), never from C{twistd
gamehub}'s option parser (L{hub.tap}) or the web face.  Each game
listens on a loopback port the OS picks (127.0.0.1 only).
"""

import os
from typing import Any, Dict, Generator, List, Optional, Sequence

from twisted.internet import defer
from twisted.internet.endpoints import TCP4ServerEndpoint
from twisted.internet.interfaces import IListeningPort, IReactorTime
from twisted.logger import Logger

from hub.client.offline import CHECKERS_COUNTS, GAMES, LOOPBACK
from hub.protocols.factories import makeFactories
from hub.records import db
from hub.records.service import recordsService
from hub.service import Hub


class OfflineHub:
    """
    A hub in the client's reactor: records in C{dbURL} (or none), every
    checkers count of offline play allowed.

    @ivar ports: C{{game: port number}} once started.
    @ivar service: the L{hub.service.Hub}.
    @ivar factories: C{{game: protocol factory}} once started.
    """

    log = Logger()

    def __init__(self, reactor: Any, dbURL: Optional[str] = None,
                 turnSeconds: float = 15,
                 games: Sequence[str] = GAMES) -> None:
        self.reactor = reactor
        self.dbURL = dbURL
        self.turnSeconds = turnSeconds
        self.games = games
        self.ports: Dict[str, int] = {}
        self.service: Optional[Hub] = None
        self.factories: Dict[str, Any] = {}
        self._listening: List[IListeningPort] = []

    def makeRecords(self, clock: IReactorTime) -> Any:
        """
        The records service of C{dbURL}, or None (no URL, or a database
        that cannot be used: offline games are then not recorded).
        """
        if not self.dbURL:
            return None
        path = self.dbURL.partition(":")[2]
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        try:
            return recordsService(self.dbURL, self.reactor, clock=clock,
                                  leaderboardGuests=False)
        except (db.BadURL, db.SchemaTooNew, db.CannotOpen) as e:
            self.log.warn("offline games are not recorded: {error}",
                          error=str(e))
            return None

    @defer.inlineCallbacks
    def start(self) -> Generator[Any, Any, Dict[str, int]]:
        """
        Start the hub and listen on loopback ports.

        @return: a Deferred firing with L{ports}.
        """
        hub = self.service = Hub(self.reactor)
        records = self.makeRecords(hub.clock)
        if records is not None:
            records.setServiceParent(hub)
            hub.lobby.addTableListener(records.recorder)
        hub.startService()
        factories = self.factories = makeFactories(
            hub.lobby, hub.sessions, hub.clock,
            turnSeconds=int(self.turnSeconds), sizes=CHECKERS_COUNTS)
        for game in self.games:
            endpoint = TCP4ServerEndpoint(self.reactor, 0,
                                          interface=LOOPBACK)
            port = yield endpoint.listen(factories[game])
            self._listening.append(port)
            self.ports[game] = port.getHost().port
        self.log.info("offline hub on {ports!r}", ports=self.ports)
        return self.ports

    def stop(self) -> "defer.Deferred[List[Any]]":
        """
        Stop listening and stop the hub.
        """
        ds = [defer.maybeDeferred(p.stopListening) for p in self._listening]
        self._listening = []
        if self.service is not None and self.service.running:
            ds.append(defer.maybeDeferred(self.service.stopService))
        return defer.gatherResults(ds, consumeErrors=True)
