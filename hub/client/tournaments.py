"""
A person's side of the hub's tournaments (L{hub.tournaments}), without
pyglet: the events from the web face's JSON API, an entry proven with
the account's play key, and the poll for "your next game" (the room
C{EVENT-ROUND-BOARD} the director opened for us).

    api = TournamentAPI(reactor, "http://127.0.0.1:8080")
    api.events()                      # [{"id", "name", "kind", ...}]
    api.enter(3, "alice", KEY)        # {"event", "name", "entered"}
    poller = NextGamePoller(api, clock, 3, "alice", onGame)
    poller.start()                    # onGame(kind, room), once
"""

from typing import Any, Callable, Dict, List, Optional
from urllib.parse import quote

from twisted.internet import defer
from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IReactorTime
from twisted.internet.task import LoopingCall
from twisted.logger import Logger
from twisted.python.failure import Failure
from twisted.web.iweb import IAgent

from hub.client.webapi import WebAPI

#: Seconds between two looks for our next game (the director opens the
#: rooms of a round within its own 2 s poll).
POLL_SECONDS = 2.0
#: The states of an event that take entries.
OPEN_STATES = ("created", "running", "paused")


class TournamentAPI:
    """
    The tournaments of one hub's web face.

    @ivar web: the L{WebAPI}.
    """

    def __init__(self, reactor: Any, root: str,
                 agent: Optional[IAgent] = None) -> None:
        self.web = WebAPI(reactor, root, agent)

    @property
    def root(self) -> str:
        return self.web.root

    def events(self) -> "Deferred[List[Dict[str, Any]]]":
        """
        A Deferred of the events, newest first as the hub lists them.
        """
        d = self.web.getJSON("/api/tournaments")
        return d.addCallback(lambda data: list(data.get("tournaments", [])))

    def enter(self, eventId: int, name: str, key: str) -> "Deferred[Any]":
        """
        Enter the account C{name}, proven with play C{key}, in event
        C{eventId}.  The key goes in the request's body only.

        @return: a Deferred of the hub's answer (C{{"event", "name",
            "entered"}}); a L{hub.client.webapi.WebAPIError} saying why
            it was refused.
        """
        return self.web.postJSON("/api/tournaments/%d/entry" % (eventId,),
                                 {"name": name, "key": key})

    def nextGame(self, eventId: int, name: str) -> "Deferred[Any]":
        """
        A Deferred of C{{"room", "kind", "state", "entrant", ...}}: the
        room C{name} should join now (None while no game waits for it).
        """
        return self.web.getJSON("/api/tournaments/%d/next?name=%s" % (
            eventId, quote(name, safe="")))


class NextGamePoller:
    """
    Ask every L{POLL_SECONDS} for C{name}'s next game in event
    C{eventId}; once there is a room, C{onGame(kind, room)} and stop.
    A failed look is retried at the next tick; C{onProblem(text)} is told
    (and told again, with None, once the hub answers).

    @ivar state: the event's state at the last answer, or None.
    """

    log = Logger()

    def __init__(self, api: TournamentAPI, clock: IReactorTime, eventId: int,
                 name: str, onGame: Callable[[Optional[str], str], object],
                 onProblem: Optional[Callable[[Optional[str]], object]] = None,
                 interval: float = POLL_SECONDS) -> None:
        self.api = api
        self.clock = clock
        self.eventId = eventId
        self.name = name
        self.onGame = onGame
        self.onProblem = onProblem or (lambda text: None)
        self.interval = interval
        self.state: Optional[str] = None
        self._loop: Optional[LoopingCall] = None
        self._pending: Optional[Deferred[Any]] = None
        self._done = False

    def start(self) -> None:
        self._loop = LoopingCall(self._look)
        self._loop.clock = self.clock
        self._loop.start(self.interval, now=True)

    def stop(self) -> None:
        """
        Stop asking (the scene is left, or the game was found).
        """
        self._done = True
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        if self._pending is not None:
            pending, self._pending = self._pending, None
            pending.cancel()

    def _look(self) -> None:
        if self._pending is not None or self._done:
            return
        d = self._pending = self.api.nextGame(self.eventId, self.name)
        d.addCallbacks(self._answered, self._failed)
        d.addBoth(self._settled)

    def _settled(self, result: object) -> object:
        self._pending = None
        return result

    def _answered(self, data: Dict[str, Any]) -> None:
        if self._done:
            return
        self.onProblem(None)
        self.state = data.get("state")
        room = data.get("room")
        if room:
            self.stop()
            self.onGame(data.get("kind"), room)

    def _failed(self, failure: Failure) -> None:
        if failure.check(defer.CancelledError) or self._done:
            return
        self.log.info("next game of {name} not known: {error}",
                      name=self.name, error=failure.getErrorMessage())
        self.onProblem(failure.getErrorMessage())
