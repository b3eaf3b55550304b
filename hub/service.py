"""
The hub: one service that owns the shared lobby, the sessions and the
clock every table, pilot and timer of the hub runs on.
"""

import secrets
from typing import Any, Callable, List, Optional

from twisted.application.service import IServiceCollection, MultiService
from twisted.internet import defer
from twisted.internet.interfaces import IDelayedCall
from twisted.logger import ILogObserver, Logger
from twisted.python.components import Componentized

from hub.clock import TrackedClock
from hub.health import Health
from hub.ihub import IPortListener
from hub.limits import Limits
from hub.lobby import Lobby, Room
from hub.sessions import Sessions


class Hub(MultiService):
    """
    The shared services of one gamehub process.  Stopping it stops every
    listener under it, every running table, and cancels every timer that
    was started on L{clock}: nothing is left on the reactor.

    @ivar clock: the L{TrackedClock} over the reactor that the sessions,
        the tables, the seat pilots and the adapters' timers use.
    @ivar sessions: the shared L{Sessions} (a child service).
    @ivar lobby: the shared L{Lobby}.
    @ivar logObserver: if not None, the L{ILogObserver} that C{twistd}
        should log to: it is given to the application this service joins.
    @ivar health: the L{Health} behind C{/healthz} and C{/readyz}.
    @ivar drainSeconds: how long stopping waits for the running games to
        finish (L{drain}); 0 stops at once.
    @ivar draining: True from the start of a drain.
    """

    log = Logger()
    logObserver: Optional[ILogObserver] = None
    draining = False

    def __init__(self, reactor: Any, graceSeconds: float = 30,
                 idleSeconds: float = 0,
                 randomBits: Callable[[int], int] = secrets.randbits,
                 limits: Optional[Limits] = None,
                 drainSeconds: float = 0,
                 logObserver: Optional[ILogObserver] = None) -> None:
        MultiService.__init__(self)
        self.logObserver = logObserver
        self.drainSeconds = drainSeconds
        self._drainHooks: List[Callable[[], object]] = []
        self._drain: Optional[_GamesEnded] = None
        self.clock = TrackedClock(reactor)
        self.health = Health(self.clock)
        self.health.addCheck("draining", self.drainingProblem)
        self.health.addCheck("listening", self.listeningProblem)
        self.sessions = Sessions(self.clock, graceSeconds=graceSeconds,
                                 idleSeconds=idleSeconds,
                                 randomBits=randomBits, limits=limits)
        self.sessions.setName("sessions")
        self.sessions.setServiceParent(self)
        self.lobby = Lobby(self.clock)

    def drainingProblem(self) -> Optional[str]:
        """
        The readiness check of a drain: None, or why not ready.
        """
        return "the hub is draining" if self.draining else None

    def listeningProblem(self) -> Optional[str]:
        """
        The readiness check of the listeners: None when each listener
        under the hub listens, else which do not yet.
        """
        waiting = ["--" + service.name for service in self
                   if IPortListener.providedBy(service)
                   and service.port is None]
        if waiting:
            return "not listening yet: " + ", ".join(waiting)
        return None

    def onDrain(self, hook: Callable[[], object]) -> None:
        """
        Call C{hook()} when a drain starts: what stops taking new players
        (a listener's C{stopAccepting}, the LAN announcement, the
        cluster's room directory).
        """
        self._drainHooks.append(hook)

    def runningRooms(self) -> List[Room]:
        """
        The rooms of every kind with a game under way.
        """
        return [room for room in self.lobby.allRooms() if room.running]

    def drain(self, seconds: float) -> "defer.Deferred[int]":
        """
        Take no new connection, room or game (C{/readyz} answers 503, the
        lobby refuses with each protocol's refusal), run the drain hooks,
        then wait for the games under way to end, for at most C{seconds}.

        @return: a Deferred that fires with the number of games still
            running when the wait ended (0 if they all finished).
        """
        self.draining = True
        self.lobby.drain()
        for hook in self._drainHooks:
            try:
                d = hook()
            except Exception:
                self.log.failure("drain: {hook!r} failed", hook=hook)
                continue
            if isinstance(d, defer.Deferred):
                d.addErrback(lambda f: self.log.failure(
                    "drain: a hook failed", f))
        running = self.runningRooms()
        self.log.info(
            "draining: {count} game(s) running; taking no new ones, "
            "waiting up to {seconds}s for them to end",
            count=len(running), seconds=seconds, event="drain")
        self._drain = _GamesEnded(self, seconds)
        return self._drain.wait()

    def endDrain(self) -> None:
        """
        Stop waiting for the games under way now (a second SIGTERM): the
        stop goes on, and they are recorded as abandoned.
        """
        drain = self._drain
        if drain is not None and not drain.done.called:
            self.log.info("drain cut short: stopping now", event="drain")
            drain.end()

    def stopService(self) -> "defer.Deferred[object]":
        """
        With L{drainSeconds}, L{drain} first; then stop the listeners,
        the records (the games still running are recorded as abandoned)
        and the sessions, then every table and every timer left.
        """
        if self.drainSeconds > 0 and not self.draining:
            d = self.drain(self.drainSeconds)

            def drained(left: int) -> "defer.Deferred[object]":
                if left:
                    self.log.info(
                        "drain over: {count} game(s) still running are "
                        "ended as abandoned", count=left, event="drain")
                else:
                    self.log.info("drain over: every game ended",
                                  event="drain")
                return self._stopAll()
            return d.addCallback(drained)
        return self._stopAll()

    def _stopAll(self) -> "defer.Deferred[object]":
        """
        Stop the listeners and the sessions, then every table and every
        timer the hub had.  The timers its services start while they
        stop (the records' flush deadline, the cluster's) run until those
        services are done; then every timer left is cancelled.
        """
        before = self.clock.getDelayedCalls()
        stopped = MultiService.stopService(self)
        self.lobby.stopTables()
        self.clock.cancel(before)

        def cancelAll(result: object) -> object:
            self.clock.cancelAll()
            return result
        return stopped.addBoth(cancelAll)

    def setServiceParent(self, parent: IServiceCollection) -> None:
        """
        Join C{parent}; if it is an application (as C{twistd} makes), have
        it log through L{logObserver}.
        """
        if self.logObserver is not None and isinstance(parent,
                                                       Componentized):
            parent.setComponent(ILogObserver, self.logObserver)
        return MultiService.setServiceParent(self, parent)


class _GamesEnded:
    """
    Waits, as a lobby watcher, for the hub's running games to end, or for
    a deadline on the hub's clock.
    """

    def __init__(self, hub: Hub, seconds: float) -> None:
        self.hub = hub
        self.seconds = seconds
        self.done: defer.Deferred[int] = defer.Deferred()
        self._deadline: Optional[IDelayedCall] = None
        self._check: Optional[IDelayedCall] = None

    def wait(self) -> "defer.Deferred[int]":
        """
        @return: a Deferred of the games still running at the end.
        """
        if not self.hub.runningRooms():
            self.done.callback(0)
            return self.done
        self.hub.lobby.addWatcher(self)
        self._deadline = self.hub.clock.callLater(self.seconds, self.end)
        return self.done

    def roomChanged(self, room: Room) -> None:
        if not room.running:
            self._soon()

    def roomClosed(self, room: Room) -> None:
        self._soon()

    def _soon(self) -> None:
        # Look once the event is over: the records hear a game's end
        # after the adapter that ends it in the lobby.
        if self._check is None and not self.done.called:
            self._check = self.hub.clock.callLater(0, self._look)

    def _look(self) -> None:
        self._check = None
        if not self.hub.runningRooms():
            self.end()

    def end(self) -> None:
        """
        Stop waiting: fire with the games still running.
        """
        if self.done.called:
            return
        self.hub.lobby.removeWatcher(self)
        for call in (self._deadline, self._check):
            if call is not None and call.active():
                call.cancel()
        self.done.callback(len(self.hub.runningRooms()))
