"""
L{hub.accounts.moderation}: the live connections, kick, end a table, ban
with immediate effect, the role checks, and the audit of each action; a
checkers hub on a L{Clock} over real SQLite accounts.
"""

from twisted.internet import defer
from twisted.internet.address import IPv4Address
from twisted.trial.unittest import TestCase

from hub.accounts.check import NameService
from hub.accounts.moderation import Moderation, mayAdminister, mayModerate
from hub.accounts.store import AccountError
from hub.tables import events
from hub.wire import checkers as cwire

from tests.accounts import support
from tests.checkers.support import Client, Server
from tests.harness import RecordingTransport, ServerHarness


class ModerationTests(support.SQLiteMixin, TestCase):
    """
    A moderator at work.
    """

    @defer.inlineCallbacks
    def setUp(self):
        self.accounts = support.openAccounts(self)
        self.key = yield self.accounts.add("alice", "pw")
        self.server = Server()
        self.addCleanup(self.server.stop)
        self.names = NameService(self.accounts, self.server.hub.clock,
                                 self.server.sessions)
        yield self.names.refresh()
        self.server.factory.names = self.names
        self.moderation = Moderation(self.accounts, self.names,
                                     self.server.lobby, self.server.sessions)

    def connect(self, host):
        transport = RecordingTransport(
            peerAddress=IPv4Address("TCP", host, 4000))
        return Client(self.server, *ServerHarness.connect(self.server,
                                                          transport))

    @defer.inlineCallbacks
    def audited(self):
        entries = yield self.accounts.audit()
        return [(e.actor, e.action, e.target, e.reason) for e in entries]

    def test_roles(self):
        """
        Moderators and admins moderate; only admins grant roles.
        """
        self.assertEqual([mayModerate(r) for r in
                          ("player", "moderator", "admin", None)],
                         [False, True, True, False])
        self.assertEqual([mayAdminister(r) for r in
                          ("player", "moderator", "admin", None)],
                         [False, False, True, False])

    @defer.inlineCallbacks
    def test_connectionsAndKick(self):
        """
        The live connections say name, guest, address, room and since; a
        kick closes one and is audited.
        """
        alice = self.connect("192.0.2.1")
        alice.join("r1", "alice__" + self.key)
        yield support.settled(self.accounts)
        bob = self.connect("192.0.2.2")
        bob.join("r1", "bob")
        yield support.settled(self.accounts)
        listed = self.moderation.connections()
        self.assertEqual(
            [(c.kind, c.name, c.guest, c.address, c.room, c.since)
             for c in listed],
            [("checkers", "alice", False, "192.0.2.1", "r1",
              self.server.clock.seconds()),
             ("checkers", "bob", True, "192.0.2.2", "r1",
              self.server.clock.seconds())])
        yield self.moderation.kick(listed[1].sessionId, "mod", "abuse")
        self.assertTrue(bob.closed)
        self.assertFalse(alice.closed)
        self.assertIn(("mod", "kick",
                       "checkers bob #{}".format(listed[1].sessionId),
                       "abuse"), (yield self.audited()))
        yield self.assertFailure(self.moderation.kick(999, "mod", "x"),
                                 AccountError)

    @defer.inlineCallbacks
    def test_endTable(self):
        """
        Ending a table ends its game as abandoned, audited.
        """
        clients = [self.connect("192.0.2.%d" % (i,)) for i in (1, 2)]
        for i, client in enumerate(clients):
            client.join("r1", "p%d" % (i,))
            yield support.settled(self.accounts)
        for client in clients:
            client.ready()
        table = self.server.table("r1")
        self.assertIsNotNone(table)
        heard = []
        table.addListener(type("L", (), {
            "tableEvent": lambda self, t, e: heard.append(e)})())
        yield self.moderation.endTable("checkers", "r1", "mod", "stuck")
        self.assertEqual([e.reason for e in heard
                          if isinstance(e, events.GameEnded)],
                         [events.ABANDONED])
        self.assertIn(("mod", "end", "checkers r1", "stuck"),
                      (yield self.audited()))
        yield self.assertFailure(
            self.moderation.endTable("checkers", "r1", "mod", "x"),
            AccountError)

    @defer.inlineCallbacks
    def test_banAtOnce(self):
        """
        A ban made here closes the connections it covers at once, without
        waiting for the next refresh; an unban lets the name in again.
        """
        alice = self.connect("192.0.2.1")
        alice.join("r1", "alice__" + self.key)
        yield support.settled(self.accounts)
        yield self.moderation.ban("alice", 600, "abuse", "mod")
        self.assertTrue(alice.closed)
        again = self.connect("192.0.2.1")
        again.join("r2", "alice__" + self.key)
        yield support.settled(self.accounts)
        self.assertEqual(again.received()[0].op, cwire.ERROR_OP)
        yield self.moderation.unban("alice", "mod")
        third = self.connect("192.0.2.1")
        third.join("r3", "alice__" + self.key)
        yield support.settled(self.accounts)
        self.assertEqual(third.received()[0].op, cwire.JOIN_ROOM_REPLY_OP)
        yield self.moderation.setRole("alice", "moderator", "admin")
        self.assertEqual([a[1:3] for a in (yield self.audited())],
                         [("add", "alice"), ("ban", "alice"),
                          ("unban", "alice"), ("role", "alice")])

    @defer.inlineCallbacks
    def test_kickName(self):
        """
        A kick by kind and plain name closes that connection only, audited
        by name; a name nobody plays under fails on a hub alone.
        """
        alice = self.connect("192.0.2.1")
        alice.join("r1", "alice__" + self.key)
        yield support.settled(self.accounts)
        bob = self.connect("192.0.2.2")
        bob.join("r1", "bob")
        yield support.settled(self.accounts)
        yield self.moderation.kickName("checkers", "alice", "mod", "abuse")
        self.assertTrue(alice.closed)
        self.assertFalse(bob.closed)
        self.assertIn(("mod", "kick", "checkers alice", "abuse"),
                      (yield self.audited()))
        yield self.assertFailure(
            self.moderation.kickName("gomoku", "bob", "mod", "x"),
            AccountError)


class ClusterModerationTests(support.SQLiteMixin, TestCase):
    """
    Two hubs of one cluster: what one's moderation publishes, the other
    applies with L{Moderation.received}.
    """

    @defer.inlineCallbacks
    def setUp(self):
        self.accounts = support.openAccounts(self)
        self.key = yield self.accounts.add("alice", "pw")
        self.hubs = []
        for _ in range(2):
            server = Server()
            self.addCleanup(server.stop)
            names = NameService(self.accounts, server.hub.clock,
                                server.sessions)
            yield names.refresh()
            server.factory.names = names
            moderation = Moderation(self.accounts, names, server.lobby,
                                    server.sessions, self.deliver(server))
            self.hubs.append((server, moderation))
        self.published = []
        self.deliveries = []

    def deliver(self, sender):
        def publish(message):
            self.published.append(message)
            d = defer.gatherResults([
                moderation.received(message)
                for server, moderation in self.hubs
                if server is not sender])
            self.deliveries.append(d)
            return d
        return publish

    def connect(self, server, host):
        transport = RecordingTransport(
            peerAddress=IPv4Address("TCP", host, 4000))
        return Client(server, *ServerHarness.connect(server, transport))

    @defer.inlineCallbacks
    def test_kickReachesOtherNode(self):
        """
        A kick by name or by session id issued on one hub closes the
        connection the other holds; it is audited once.
        """
        (first, here), (second, _) = self.hubs
        bob = self.connect(second, "192.0.2.2")
        bob.join("r1", "bob")
        yield support.settled(self.accounts)
        carl = self.connect(second, "192.0.2.3")
        carl.join("r1", "carl")
        yield support.settled(self.accounts)
        yield here.kickName("checkers", "bob", "mod", "abuse")
        self.assertTrue(bob.closed)
        self.assertFalse(carl.closed)
        (carlSession,) = [s for s in second.sessions if s.name == "carl"]
        yield here.kick(carlSession.id, "mod", "abuse")
        self.assertTrue(carl.closed)
        self.assertEqual(self.published, [
            {"action": "kick", "kind": "checkers", "name": "bob",
             "actor": "mod", "role": None},
            {"action": "kick", "id": carlSession.id, "actor": "mod",
             "role": None}])
        entries = yield self.accounts.audit()
        self.assertEqual([(e.action, e.target) for e in entries
                          if e.action == "kick"],
                         [("kick", "checkers bob"),
                          ("kick", "#{}".format(carlSession.id))])

    @defer.inlineCallbacks
    def test_banReachesOtherNode(self):
        """
        A ban issued on one hub closes the other's connection of that
        account at once, without waiting for its refresh.
        """
        (first, here), (second, _) = self.hubs
        alice = self.connect(second, "192.0.2.1")
        alice.join("r1", "alice__" + self.key)
        yield support.settled(self.accounts)
        self.assertFalse(alice.closed)
        yield here.ban("alice", 600, "abuse", "mod")
        yield defer.gatherResults(self.deliveries)
        self.assertTrue(alice.closed)
        self.assertEqual(self.published, [{"action": "ban"}])
