"""
One Twisted protocol and factory per wire protocol (checkers, Splendor,
gomoku), and what they share.
"""

from twisted.logger import Logger
from twisted.protocols.policies import TimeoutMixin

from hub.net import setNoDelay
from hub.protocols.immediate import ImmediateWriter


class ServerConnection(TimeoutMixin):
    """
    What every server connection does, whatever its protocol: Nagle off,
    writes through an L{ImmediateWriter} (C{self.writer}), and closing
    when the peer has sent nothing for the sessions' C{idleSeconds}
    (never when that is 0), timed on their clock.

    A protocol calls L{startConnection} from C{connectionMade},
    C{resetTimeout} on every read and L{endConnection} from
    C{connectionLost}.  It needs C{factory.sessions} and C{transport}.
    """

    connectionLog = Logger()

    def startConnection(self):
        """
        Set the connection up.
        """
        setNoDelay(self.transport)
        self.writer = ImmediateWriter(self.transport)
        self.setTimeout(self.factory.sessions.idleSeconds or None)

    def endConnection(self):
        """
        The connection is gone: stop the idle count.
        """
        self.setTimeout(None)

    def callLater(self, period, func):
        return self.factory.sessions.clock.callLater(period, func)

    def timeoutConnection(self):
        self.connectionLog.info(
            "closing {peer}: nothing received for {seconds}s",
            peer=self.transport.getPeer(), seconds=self.timeOut)
        self.transport.loseConnection()
