"""
Types at the door (L{hub.web.play.codec}): every C{/ws} message is read
into its typed request, every field checked, before any handler runs.  A
null, a value of another JSON type, a missing or an extra field is
C{bad-message} with one summarised log line; a property test sends every
message type with every field set to every JSON type, in every state of
a player, and finds no C{internal} error and no traceback.
"""

import json

import attr
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from twisted.logger import globalLogPublisher
from twisted.trial.unittest import SynchronousTestCase

from hub.tables.events import GameEnded
from hub.web.play import codec
from hub.web.play.errors import BAD_MESSAGE, INTERNAL, PlayError

from tests.web.playsupport import HubNowFeed, PlayHub

#: A value of each JSON type.
JSON_VALUES = {"null": None, "true": True, "false": False, "int": 3,
               "negative": -1, "float": 1.5, "string": "x", "empty": "",
               "list": [1, "a"], "object": {"a": 1}}

#: A valid message of each type, the base of the variations.
VALID = {
    "hello": {"type": "hello", "version": 1, "name": "fuzzer"},
    "lobby": {"type": "lobby"},
    "create": {"type": "create", "kind": "checkers", "room": "f",
               "players": 2, "seat": 0, "bots": True, "level": 1,
               "password": ""},
    "join": {"type": "join", "kind": "gomoku", "room": "g",
             "password": ""},
    "quick": {"type": "quick", "kind": "gomoku", "seat": 1, "players": 2},
    "bots": {"type": "bots", "count": 1, "level": 1},
    "leave": {"type": "leave"},
    "ready": {"type": "ready", "ready": True},
    "start": {"type": "start"},
    "act": {"type": "act", "action": [7, 7]},
    "resign": {"type": "resign"},
    "hint": {"type": "hint"},
}


def fuzzerHub(state):
    """
    A L{PlayHub} and a browser in C{state}: C{"new"} (no hello yet),
    C{"lobby"}, waiting in a room of a kind (C{"gomoku-room"}...),
    playing against bots (C{"gomoku-game"}...) or after a game
    (C{"over"}).
    """
    hub = PlayHub(lobbyFeed=HubNowFeed)
    browser = hub.browser()
    if state == "new":
        return hub, browser
    browser.hello("fuzzer")
    if state.endswith("-room"):
        kind = state[:-len("-room")]
        if kind == "splendor":
            browser.send({"type": "join", "kind": kind})
        else:
            browser.send({"type": "create", "kind": kind, "room": "r",
                          "players": 3})
    elif state.endswith("-game") or state == "over":
        kind = "gomoku" if state == "over" else state[:-len("-game")]
        browser.send({"type": "create", "kind": kind, "room": "r",
                      "players": 2, "bots": True, "level": 1})
        if state == "over":
            browser.send({"type": "resign"})
    browser.clear()
    return hub, browser


STATES = ("new", "lobby", "gomoku-room", "checkers-room", "splendor-room",
          "gomoku-game", "checkers-game", "splendor-game", "over")


class Failures:
    """
    The log events with a traceback, and the refusals' lines, while it
    listens (L{start}, L{stop}).
    """

    def __init__(self):
        self.failures = []
        self.refused = []

    def __call__(self, event):
        if event.get("log_failure") is not None:
            self.failures.append(event)
        if "web message refused" in (event.get("log_format") or ""):
            self.refused.append(event)

    def start(self, testCase):
        globalLogPublisher.addObserver(self)
        testCase.addCleanup(globalLogPublisher.removeObserver, self)


class SchemaTests(SynchronousTestCase):
    """
    The request classes and their checks.
    """

    def test_eachRequest(self):
        """
        A valid message of each type is read into its request class, its
        fields as sent and the others their defaults.
        """
        for name, message in VALID.items():
            request = codec.decode(json.dumps(message))
            self.assertIs(type(request), codec.REQUESTS[name])
            for field, value in message.items():
                if field != "type":
                    self.assertEqual(getattr(request, field), value)
        self.assertEqual(codec.decode('{"type": "bots"}'),
                         codec.Bots(count=1, level=2))

    def test_refused(self):
        """
        A null, a bool for an int, an int for a bool, a float, a missing
        required field and a field the message does not have are each
        C{bad-message}.
        """
        for message in [
                {"type": "create", "kind": "gomoku", "seat": None},
                {"type": "create", "kind": "gomoku", "password": None},
                {"type": "quick", "kind": "gomoku", "seat": None},
                {"type": "bots", "count": None},
                {"type": "bots", "count": True},
                {"type": "ready", "ready": 1},
                {"type": "bots", "level": 2.0},
                {"type": "create"},
                {"type": "act"},
                {"type": "act", "action": None},
                {"type": "hello", "version": 1, "name": "a", "x": 1},
                {"type": "leave", "room": "r"}]:
            error = self.assertRaises(PlayError, codec.decode,
                                      json.dumps(message))
            self.assertEqual(error.code, BAD_MESSAGE, message)

    def test_nullsAnsweredWithoutATraceback(self):
        """
        The nulls that raised in the handlers before (C{create.seat},
        C{create.password}, C{quick.seat}, C{bots.count}) are answered
        C{bad-message}, in a room and out of one, with one log line for
        the first and a summary of the others.
        """
        failures = Failures()
        failures.start(self)
        hub, browser = fuzzerHub("lobby")
        self.addCleanup(hub.stop)
        nulls = [
            {"type": "create", "kind": "gomoku", "room": "g",
             "seat": None},
            {"type": "create", "kind": "checkers", "room": "c",
             "players": 2, "password": None},
            {"type": "quick", "kind": "checkers", "seat": None},
            {"type": "bots", "count": None}]
        for message in nulls * 5:
            browser.send(message)
        browser.send({"type": "create", "kind": "gomoku", "room": "g"})
        for message in nulls * 5:
            browser.send(message)
        self.assertEqual(browser.errors(), [BAD_MESSAGE] * 40)
        self.assertEqual([m["request"] for m in browser.of("error")],
                         [m["type"] for m in nulls * 10])
        self.assertEqual(failures.failures, [])
        self.assertEqual(len(failures.refused), 1)
        hub.clock.advance(11)
        self.assertEqual(len(failures.refused), 1)

    def test_summarised(self):
        """
        After its first line, the refusals of an interval are counted in
        one line at its end.
        """
        summaries = []

        def observe(event):
            if event.get("event") == "summary" and \
                    event.get("kind") == "malformed web messages":
                summaries.append(event["count"])
        globalLogPublisher.addObserver(observe)
        self.addCleanup(globalLogPublisher.removeObserver, observe)
        hub, browser = fuzzerHub("lobby")
        self.addCleanup(hub.stop)
        for _ in range(30):
            browser.send({"type": "bots", "count": None})
        hub.clock.advance(11)
        self.assertEqual(summaries, [29])


def variations():
    """
    Every message type with each of its fields (and one field it does
    not have, and its C{type}) set to a value of each JSON type.
    """
    for name, base in VALID.items():
        fields = [f.name for f in attr.fields(codec.REQUESTS[name])]
        for field in fields + ["extra", "type"]:
            for value in JSON_VALUES.values():
                message = dict(base)
                message[field] = value
                yield message


#: Any JSON value, nested a little.
jsonValues = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6)


class NoInternalTests(SynchronousTestCase):
    """
    Whatever a field holds, the answer is a typed error or the request
    done: never C{internal}, never a traceback.
    """

    def setUp(self):
        self.failures = Failures()
        self.failures.start(self)

    def test_states(self):
        """
        The states the messages are sent in are what their names say.
        """
        for state in STATES:
            hub, browser = fuzzerHub(state)
            self.addCleanup(hub.stop)
            player = browser.player
            if state == "new":
                self.assertIsNone(player)
                continue
            room = player.room
            if state == "lobby":
                self.assertIsNone(room)
            elif state.endswith("-room"):
                self.assertEqual((room.kind, room.running),
                                 (state[:-len("-room")], False))
            elif state.endswith("-game"):
                self.assertEqual(player.table.kind, state[:-len("-game")])
                self.assertFalse(player.table.over)
            else:
                self.assertEqual(len(hub.recorder.ofType(GameEnded)), 1)
                self.assertEqual((room.kind, player.table), ("gomoku", None))

    def check(self, state, messages):
        hub, browser = fuzzerHub(state)
        try:
            for message in messages:
                browser.send(message)
                hub.clock.advance(1)
            self.assertNotIn(INTERNAL, browser.errors(), (state, messages))
            self.assertEqual(self.failures.failures, [], (state, messages))
        finally:
            hub.stop()

    def test_everyFieldEveryType(self):
        """
        Every message type, each field set to each JSON type, in every
        state.
        """
        cases = list(variations())
        self.assertGreater(len(cases), 300)
        for state in STATES:
            for message in cases:
                self.check(state, [message])

    @settings(max_examples=300, deadline=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(st.sampled_from(STATES), st.lists(st.tuples(
        st.sampled_from(sorted(VALID)),
        st.dictionaries(st.text(max_size=8) | st.sampled_from(
            ["kind", "room", "seat", "players", "level", "count",
             "action", "name", "password", "bots", "ready", "version",
             "resume"]), jsonValues, max_size=4)), min_size=1, max_size=4))
    def test_randomFields(self, state, sent):
        """
        Random messages of every type, their fields (known or not) set to
        random JSON, in a row, in any state.
        """
        messages = []
        for name, fields in sent:
            message = dict(VALID[name])
            message.update(fields)
            message["type"] = name
            messages.append(message)
        self.check(state, messages)
