"""
Tests for what the protocol adapters share (L{hub.protocols}).
"""

from twisted.internet.testing import StringTransport
from twisted.trial.unittest import SynchronousTestCase

from hub.protocols import setNoDelay


class NoDelayTransport(StringTransport):
    """
    A transport with TCP options, optionally refusing them.
    """

    noDelay = False

    def __init__(self, refuse=False):
        StringTransport.__init__(self)
        self.refuse = refuse

    def setTcpNoDelay(self, enabled):
        if self.refuse:
            raise OSError("socket closed")
        self.noDelay = enabled


class SetNoDelayTests(SynchronousTestCase):
    """
    L{setNoDelay} turns Nagle off where it can and never fails.
    """

    def test_tcp(self):
        """
        A TCP transport has TCP_NODELAY set.
        """
        transport = NoDelayTransport()
        setNoDelay(transport)
        self.assertTrue(transport.noDelay)

    def test_notTcp(self):
        """
        A transport without TCP options is left alone.
        """
        setNoDelay(StringTransport())

    def test_refused(self):
        """
        A socket that refuses the option is left as it is, no error.
        """
        transport = NoDelayTransport(refuse=True)
        setNoDelay(transport)
        self.assertFalse(transport.noDelay)
