"""
The hub: one service that owns the shared lobby, the sessions and the
clock every table, pilot and timer of the hub runs on.
"""

import secrets

from twisted.application.service import MultiService
from twisted.logger import ILogObserver
from twisted.python.components import Componentized

from hub.clock import TrackedClock
from hub.lobby import Lobby
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
    @ivar logObserver: if set, the L{ILogObserver} that C{twistd} should
        log to: it is given to the application this service joins.
    """

    logObserver = None

    def __init__(self, reactor, graceSeconds=30, idleSeconds=0,
                 randomBits=secrets.randbits, limits=None):
        MultiService.__init__(self)
        self.clock = TrackedClock(reactor)
        self.sessions = Sessions(self.clock, graceSeconds=graceSeconds,
                                 idleSeconds=idleSeconds,
                                 randomBits=randomBits, limits=limits)
        self.sessions.setName("sessions")
        self.sessions.setServiceParent(self)
        self.lobby = Lobby(self.clock)

    def stopService(self):
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

        def cancelAll(result):
            self.clock.cancelAll()
            return result
        return stopped.addBoth(cancelAll)

    def setServiceParent(self, parent):
        """
        Join C{parent}; if it is an application (as C{twistd} makes), have
        it log through L{logObserver}.
        """
        if self.logObserver is not None and isinstance(parent,
                                                       Componentized):
            parent.setComponent(ILogObserver, self.logObserver)
        return MultiService.setServiceParent(self, parent)
