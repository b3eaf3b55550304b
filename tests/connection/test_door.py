"""
L{hub.connection.ServerFactory.engineDoor}: a game factory's copy for
the hub's own connections (a tournament's engines).
"""

from twisted.trial.unittest import SynchronousTestCase
from zope.interface.verify import verifyObject

from hub.ihub import IGameFactory
from hub.protocols.checkers import CheckersFactory
from hub.protocols.gomoku import GomokuFactory
from hub.protocols.splendor import SplendorFactory
from tests.harness import ServerHarness
from tests.lobby.test_limits import imposeLimits


class EngineDoorTests(SynchronousTestCase):
    """
    A door shares the factory's lobby and sessions, replaces only the
    collaborators it is given, and never refuses or caps by address.
    """

    def setUp(self):
        self.server = ServerHarness(GomokuFactory)
        self.factory = self.server.factory

    def test_everyGame(self):
        """
        Each game's factory makes doors that are game factories too.
        """
        for factoryClass in (CheckersFactory, GomokuFactory,
                             SplendorFactory):
            factory = ServerHarness(factoryClass).factory
            door = factory.engineDoor()
            self.assertTrue(verifyObject(IGameFactory, door))
            self.assertIsInstance(door, factoryClass)
            self.assertIs(door.lobby, factory.lobby)
            self.assertIs(door.sessions, factory.sessions)

    def test_replaced(self):
        """
        The collaborators named are the door's; the factory keeps its own.
        """
        names, policy = object(), object()
        door = self.factory.engineDoor(names=names, policy=policy)
        self.assertIs(door.names, names)
        self.assertIs(door.policy, policy)
        self.assertIsNone(self.factory.names)
        self.assertIsNot(self.factory.policy, policy)
        self.assertFalse(self.factory.ownDoor)
        self.assertTrue(door.ownDoor)

    def test_unknownRefused(self):
        """
        A collaborator the factory does not have is a TypeError, not a new
        attribute.
        """
        self.assertRaises(TypeError, self.factory.engineDoor, seats=object())

    def test_noAddressCap(self):
        """
        At a per-address cap of one, the factory refuses a second
        connection from the address; its door admits it.
        """
        imposeLimits(self.server.sessions, maxConnectionsPerIP=1)
        first, _ = self.server.connect()
        second, transport = self.server.connect()
        self.assertTrue(transport.disconnecting)
        door = self.factory.engineDoor()
        third, transport = self.server.connectTo(door)
        self.assertFalse(transport.disconnecting)
