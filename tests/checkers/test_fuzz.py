"""
Hypothesis: random sequences of client actions (joins, readies, legal
and random moves, garbage, leaves, disconnects, time passing) never make
the checkers server fail, and its lobby, tables and timers stay
consistent.
"""

from hypothesis import event, given, settings, strategies as st
from twisted.trial.unittest import SynchronousTestCase

from hub.wire import checkers as wire

from .support import Server

CLIENTS = 4

actions = st.one_of(
    st.tuples(st.just("join"), st.integers(0, CLIENTS - 1),
              st.sampled_from(["r1", "r2"]),
              st.sampled_from(["a", "b", "c", "d", "bad-name", ""])),
    st.tuples(st.just("ready"), st.integers(0, CLIENTS - 1)),
    st.tuples(st.just("legal"), st.integers(0, CLIENTS - 1),
              st.integers(0, 10 ** 6)),
    st.tuples(st.just("move"), st.integers(0, CLIENTS - 1),
              st.sampled_from(["A", "C", "D", "", "X"]),
              st.text(alphabet="-0123456789 ", max_size=20)),
    st.tuples(st.just("raw"), st.integers(0, CLIENTS - 1),
              st.binary(max_size=60)),
    st.tuples(st.just("op"), st.integers(0, CLIENTS - 1),
              st.integers(199990, 200015)),
    st.tuples(st.just("leave"), st.integers(0, CLIENTS - 1)),
    st.tuples(st.just("drop"), st.integers(0, CLIENTS - 1)),
    st.tuples(st.just("wait"), st.sampled_from([0.5, 3, 16])),
)


class FuzzTests(SynchronousTestCase):
    """
    Random client behaviour against one server.
    """

    def check(self, server, clients):
        """
        The invariants that hold after every action.
        """
        lobby = server.lobby
        for client in clients:
            for line in client.rawLines():
                message = wire.decode(line)
                self.assertNotEqual(message.data2, "OTHER_ERROR: internal "
                                    "error")
        rooms = lobby.rooms("checkers")
        for room in rooms:
            self.assertTrue(room.members)
            self.assertLessEqual(len(room.members), 6)
            for member in room.members:
                self.assertIs(lobby.roomOf(member.session), room)
                self.assertIsNotNone(member.name)
                self.assertEqual(member.seat is not None, room.running)
            if not room.running:
                self.assertFalse(room.policy.canStart(room))
        tables = [room.table for room in rooms if room.running]
        for table in tables:
            self.assertFalse(table.over)
            self.assertFalse(table.game.isOver)
            self.assertIsNotNone(table.game.currentSeat)
        calls = len(server.clock.getDelayedCalls())
        self.assertEqual(calls, len(tables))

    @settings(max_examples=150, deadline=None)
    @given(st.integers(0, CLIENTS), st.lists(actions, max_size=60))
    def test_randomClients(self, seated, script):
        """
        Nothing fails, whatever the clients do.  The first C{seated}
        clients join one room and ready first, so that games start often.
        """
        server = Server(turnSeconds=15)
        clients = [server.connect() for _ in range(CLIENTS)]
        for i in range(seated):
            clients[i].join("r1", "p%d" % (i,))
        for i in range(seated):
            clients[i].ready()
        started = set()
        for action in script:
            kind, args = action[0], action[1:]
            if kind == "wait":
                server.clock.advance(args[0])
            else:
                client = clients[args[0]]
                if kind == "join":
                    client.join(args[1], args[2])
                elif kind == "ready":
                    client.ready()
                elif kind == "legal":
                    self.playLegal(server, client, args[1])
                elif kind == "move":
                    client.move(args[1], args[2])
                elif kind == "raw":
                    client.sendRaw(args[1])
                elif kind == "op":
                    client.send(args[1], "A", "0 0 1 0")
                elif kind == "leave":
                    client.leave()
                elif kind == "drop":
                    client.disconnect()
                    clients[args[0]] = server.connect()
                if client.closed and kind != "drop":
                    client.disconnect()
                    clients[args[0]] = server.connect()
            self.check(server, clients)
            started.update(room.table for room in
                           server.lobby.rooms("checkers") if room.running)
        event("%d games started" % (min(len(started), 2),))
        self.assertEqual(self.flushLoggedErrors(), [])

    def playLegal(self, server, client, choice):
        """
        If C{client} is to move in a running game, send a legal move.
        """
        room = server.lobby.roomOf(client.protocol.session)
        if room is None or not room.running:
            return
        seat = room.memberOf(client.protocol.session).seat
        actions = room.table.game.legalActions(seat)
        if actions:
            path = actions[choice % len(actions)]
            client.move(room.table.seats[seat].role, wire.formatPath(path))
