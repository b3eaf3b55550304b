"""
The idle-timeout tests every protocol suite runs on its own adapter.
"""


class IdleTimeoutTestsMixin:
    """
    With the sessions' C{idleSeconds} set, a connection that sends nothing
    for that long is closed; by default none is.

    A suite mixes this into a C{SynchronousTestCase} and defines
    C{harness()} (an object with C{clock}, C{sessions} and C{connect()}),
    C{speak(connection)} (send one valid first message) and
    C{drop(connection)} (the connection is lost).  Connections have
    C{closed}.
    """

    def test_offByDefault(self):
        """
        With C{idleSeconds} 0 a quiet connection stays open.
        """
        harness = self.harness()
        connection = harness.connect()
        self.speak(connection)
        harness.clock.advance(10 ** 6)
        self.assertFalse(connection.closed)

    def test_quietConnectionClosed(self):
        """
        A connection that sends nothing for C{idleSeconds} is closed.
        """
        harness = self.harness()
        harness.sessions.idleSeconds = 60
        connection = harness.connect()
        harness.clock.advance(59)
        self.assertFalse(connection.closed)
        harness.clock.advance(1)
        self.assertTrue(connection.closed)

    def test_trafficRestartsCount(self):
        """
        Every read starts the count again.
        """
        harness = self.harness()
        harness.sessions.idleSeconds = 60
        connection = harness.connect()
        harness.clock.advance(50)
        self.speak(connection)
        harness.clock.advance(59)
        self.assertFalse(connection.closed)
        harness.clock.advance(1)
        self.assertTrue(connection.closed)

    def test_noTimerAfterLoss(self):
        """
        A lost connection leaves no idle timer behind.
        """
        harness = self.harness()
        harness.sessions.idleSeconds = 60
        connection = harness.connect()
        self.drop(connection)
        self.assertEqual(harness.clock.getDelayedCalls(), [])
