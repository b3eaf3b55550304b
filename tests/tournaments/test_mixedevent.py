"""
The issue's mixed event end to end (issue 35): the real hub (C{twistd -n
gamehub}) runs a gomoku Swiss of 18 entrants: 16 engines (seven Gomocup
brains, eight stdio engines, and a level-3 C{hub.bots} over TCP) and two
people logged in to the web face, who play from the browser's protocol
(C{/ws}: told C{game-ready}, they join and play their stones).  Every
game is played to a result, the standings of the event's web page are
the CSV's, and a brain's player page shows its ABOUT.
"""

import html.parser
import json
import os
import re
import sys
import time

from twisted.internet import defer, reactor, threads
from twisted.trial.unittest import TestCase

from hub.records import db
from hub.tournaments import catalog, store

from tests.accounts.test_endtoend import PASSWORD, accountsCommand
from tests.endtoend import GamehubServer
from tests.tournaments.test_endtoend import (
    GAME_TIMEOUT, EndToEndMixin, botName)
from tests.web.accountsupport import Browser
from tests.web.wsclient import PlayClient

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BRAIN = os.path.join(HERE, "gomocupbrain.py")
STDIO = os.path.join(HERE, "stdioengine.py")
EXAMPLE = os.path.join(ROOT, "examples", "engines", "gomoku.py")
PEOPLE = ("ann", "ben")
ROUNDS = 2


class Person(PlayClient):
    """
    A person in the event over C{/ws}, logged in: joins each game it is
    told is ready, and plays the first empty point (row by row) on each
    of its turns.

    @ivar ended: the C{GameEnded} events of its games.
    """

    def __init__(self, reactor, url, cookies):
        PlayClient.__init__(self, reactor, url, headers={
            "Cookie": "; ".join("%s=%s" % kv for kv in cookies.items())})
        self.seat = None
        self.stones = set()
        self.ended = []
        self.joined = []

    def _received(self, message):
        PlayClient._received(self, message)
        kind, event = message["type"], message.get("event")
        if kind == "game-ready" and message["room"] not in self.joined:
            self.joined.append(message["room"])
            self.seat = message["seat"]
            self.send({"type": "join", "kind": "gomoku",
                       "room": message["room"]})
        elif kind != "event":
            return
        elif event == "GameStarted":
            self.stones = {tuple(s) for s in
                           message.get("position", {}).get("moves", ())}
        elif event == "TurnStarted" and message["seat"] == self.seat:
            self.play()
        elif event == "ActionPlayed":
            self.stones.add(tuple(message["action"]))
            if message.get("next") == self.seat:
                self.play()
        elif event == "GameEnded":
            self.ended.append(message)

    def play(self):
        for y in range(15):
            for x in range(15):
                if (x, y) not in self.stones:
                    self.send({"type": "act", "action": [x, y]})
                    return


class StandingsParser(html.parser.HTMLParser):
    """
    The rows of an event page's standings table: C{[rank, name,
    points]} each, as the page shows them (the name its C{<bdi>}'s, without
    the guest mark beside it).
    """

    def __init__(self):
        html.parser.HTMLParser.__init__(self)
        self.rows = []
        self._cells = self._text = self._name = None

    def handle_starttag(self, tag, attrs):
        if tag == "tr" and ("class", "standing") in attrs:
            self._cells, self._name = [], None
        elif tag == "td" and self._cells is not None:
            self._text = []
        elif tag == "bdi" and self._cells is not None and \
                self._name is None:
            self._name = []

    def handle_data(self, data):
        if self._text is not None:
            self._text.append(data)
        if isinstance(self._name, list):
            self._name.append(data)

    def handle_endtag(self, tag):
        if tag == "bdi" and isinstance(self._name, list):
            self._name = "".join(self._name)
        elif tag == "td" and self._text is not None:
            self._cells.append("".join(self._text).strip())
            self._text = None
        elif tag == "tr" and self._cells is not None:
            self.rows.append([self._cells[0], self._name, self._cells[2]])
            self._cells = None


class WebFace:
    """
    The hub's web face as L{Browser} takes it.
    """

    def __init__(self, port):
        self.port = port

    def url(self, path):
        return "http://127.0.0.1:%d%s" % (self.port, path)


class MixedEventEndToEndTests(EndToEndMixin, TestCase):
    """
    Engines of every kind, a level-3 bot and people in one event.
    """

    timeout = GAME_TIMEOUT * 3

    def setUp(self):
        EndToEndMixin.setUp(self)
        for name in PEOPLE:
            accountsCommand(self.url, "add", name, stdin=PASSWORD + "\n")
        self.server = GamehubServer(self, "--db", self.url, "--announce",
                                    "no", games=("gomoku", "web"))
        self.webPort = self.server.port("web")

    def entrants(self, eventId):
        """
        Enter the people and register and enter the 16 engines (through
        the store, as the CLI does, without an interpreter each).

        @return: C{{entrant: what it is}}.
        """
        url, now = db.parseURL(self.url), time.time()
        engines = {botName("hard"): ("tcp", None, [
            sys.executable, "-m", "hub.bots", "gomoku://{host}:{port}",
            "--count", "1", "--name", "hard", "--room", "{room}",
            "--level", "3", "--delay", "0", "--seed", "3"])}
        for i in range(7):
            engines["brain%d" % (i,)] = ("gomocup", HERE, [
                sys.executable, BRAIN, "fair", str(i)])
        for i in range(4):
            engines["stdio%d" % (i,)] = ("stdio", HERE, [
                sys.executable, STDIO, "fair", str(i)])
            engines["example%d" % (i,)] = ("stdio", os.path.dirname(
                EXAMPLE), [sys.executable, EXAMPLE])
        self.assertEqual(len(engines), 16)
        for name in PEOPLE:
            store.runBlocking(url, store.enter, eventId, name, now)
        for name, (protocol, folder, command) in engines.items():
            store.runBlocking(url, catalog.register, name, command, now,
                              folder=folder, protocol=protocol)
            store.runBlocking(url, store.enter, eventId, None, now,
                              engine=name)
        kinds = {name: "person" for name in PEOPLE}
        kinds.update((name, spec[0]) for name, spec in engines.items())
        return kinds

    @defer.inlineCallbacks
    def person(self, name):
        """
        C{name} logged in at C{/login}, connected to C{/ws}.
        """
        browser = Browser(WebFace(self.webPort))
        code, _, _ = yield browser.login(name)
        self.assertIn(code, (200, 303))
        self.assertIn("gamehub_session", browser.cookies)
        person = Person(reactor, "ws://127.0.0.1:%d/ws" % (self.webPort,),
                        browser.cookies)
        self.addCleanup(person.close)
        yield person.opened()
        person.send({"type": "hello", "version": 1})
        welcome = yield person.waitType("welcome")
        self.assertEqual((welcome["name"], welcome["guest"]), (name, False))
        return person

    @defer.inlineCallbacks
    def test_mixedSwiss(self):
        """
        Two rounds of nine games: every game has a result, none a
        no-show or a failed engine; each person played two games from
        C{/ws}, and the level-3 bot two; the standings of
        C{/tournaments/ID} (rank, name, points) are the CSV's, line by
        line, and the JSON's; a brain's player page shows its ABOUT.
        """
        eventId = int(self.cli(
            "create", "--name", "Mixed", "--game", "gomoku", "--format",
            "swiss", "--rounds", str(ROUNDS), "--turn-ms", "5000",
            "--turn-seconds", "30").splitlines()[-1])
        kinds = self.entrants(eventId)
        people = []
        for name in PEOPLE:
            people.append((yield self.person(name)))
        self.cli("start", str(eventId))
        yield threads.deferToThread(
            self.server.waitForLog, r"tournament %d \('Mixed'\) finished"
            % (eventId,), timeout=GAME_TIMEOUT * 2)
        data = json.loads(self.cli("export", str(eventId)))
        games = [p for r in data["rounds"] for p in r["pairings"]]
        self.assertEqual(len(games), 9 * ROUNDS)
        for game in games:
            self.assertNotIn(game["result"], ("no-show", "engine-failed",
                                              None), game)
            self.assertEqual(sum(game["points"]), 1.0, game)
        played = {}
        for game in games:
            for name in game["seats"]:
                played[name] = played.get(name, 0) + 1
        self.assertEqual(played, {name: ROUNDS for name in kinds})
        for person in people:
            self.assertEqual(len(person.joined), ROUNDS)
            self.assertEqual(len(person.ended), ROUNDS)
        # The standings: the page's are the CSV's and the JSON's.
        csv = self.cli("standings", str(eventId), "--csv").splitlines()
        self.assertEqual(csv[0], "rank,name,points")
        expected = [line.split(",") for line in csv[1:]]
        self.assertEqual(sorted(name for _, name, _ in expected),
                         sorted(kinds))
        parser = StandingsParser()
        parser.feed(self.get("/tournaments/%d" % (eventId,)))
        self.assertEqual(parser.rows, expected)
        web = json.loads(self.get("/api/tournaments/%d" % (eventId,)))
        self.assertEqual(
            [[str(s["rank"]), s["name"], re.sub(r"\.0$", "", str(
                s["points"]))] for s in web["standings"]], expected)
        # A brain's player page shows its ABOUT, a person's none.
        page = self.get("/players/gomoku/brain0")
        self.assertIn('<dd class="name"><bdi>testbrain-fair</bdi></dd>',
                      page)
        self.assertIn('<a href="/tournaments/%d">' % (eventId,), page)
        self.assertNotIn('class="about"', self.get("/players/gomoku/ann"))
