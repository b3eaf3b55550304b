"""
Tests for L{hub.net.setNoDelay}, which the server and the client share.
"""

from twisted.internet.testing import StringTransport
from twisted.trial.unittest import SynchronousTestCase

from hub.net import setNoDelay


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
        A transport without TCP options is left alone: nothing is called
        on it, and nothing is written.
        """
        transport = StringTransport()
        setNoDelay(transport)
        self.assertFalse(hasattr(transport, "setTcpNoDelay"))
        self.assertEqual(transport.value(), b"")
        self.assertFalse(transport.disconnecting)

    def test_refused(self):
        """
        A socket that refuses the option is left as it is, no error.
        """
        transport = NoDelayTransport(refuse=True)
        setNoDelay(transport)
        self.assertFalse(transport.noDelay)
