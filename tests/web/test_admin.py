"""
C{/admin} and the JSON admin API (L{hub.web.admin}, L{hub.web.adminapi}):
every endpoint against every role (anonymous, player, moderator, admin),
the actions' effects on a hub's live connections and tables, and the
audit; over real SQLite and a real HTTP port.
"""

import json

from twisted.internet import defer
from twisted.trial.unittest import TestCase

from hub.accounts.websessions import secretHash
from hub.lobby import RoomObserver
from hub.web import adminactions

from tests.web.accountsupport import AccountsWebMixin, Browser, csrfOf
from tests.web.support import FakePolicy, Peer

ROLES = ("anonymous", "player", "moderator", "admin")
#: POST actions: the roles allowed.
MODERATE = ("moderator", "admin")
ADMINISTER = ("admin",)
ACTIONS = {"kick": MODERATE, "end": MODERATE, "ban": MODERATE,
           "unban": MODERATE, "role": ADMINISTER, "invite": ADMINISTER,
           "token-revoke": ADMINISTER}
#: GET pages and API reads: moderators and admins.
READS = ("connections", "rooms", "audit")
#: API reads of admins only.
ADMIN_READS = ("engines", "tokens")


class AdminTests(AccountsWebMixin, TestCase):
    """
    Moderation through the web face.
    """

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
        yield self.addAccount("victim")
        self.rooms = 0

    def openTable(self, players=("ann", "bob"), host="192.0.2.7"):
        """
        A gomoku room whose game runs, its players on live connections.
        """
        self.rooms += 1
        name = "room%d" % (self.rooms,)
        room, sessions = None, []
        for player in players:
            session = self.hub.sessions.connect("gomoku", Peer(host))
            self.hub.sessions.claimName(session, player + name)
            sessions.append(session)
            if room is None:
                room = self.hub.lobby.createRoom(
                    "gomoku", name, session, RoomObserver(),
                    FakePolicy(self.hub.clock), 6)
            else:
                self.hub.lobby.join("gomoku", name, session, RoomObserver())
            self.hub.lobby.setReady(session, True)
        self.hub.lobby.start(room)
        return room, sessions

    def fields(self, action):
        """
        The fields of a valid C{action}, made fresh.
        """
        if action == "kick":
            _, sessions = self.openTable()
            return {"session": str(sessions[0].id), "reason": "abuse"}
        if action == "end":
            room, _ = self.openTable()
            return {"kind": "gomoku", "room": room.name, "reason": "stuck"}
        if action == "ban":
            return {"target": "198.51.100.0/24", "for": "2h",
                    "reason": "flood"}
        if action == "unban":
            return {"target": "victim"}
        if action == "role":
            return {"name": "victim", "role": "player"}
        if action == "token-revoke":
            return defer.succeed(None).addCallback(
                lambda _: self.sessions.newToken("victim")).addCallback(
                lambda token: {"token": secretHash(token)[:12]})
        return {}

    @defer.inlineCallbacks
    def auditCount(self):
        entries = yield self.accounts.audit(1000)
        return len(entries)

    def test_everyEndpointTried(self):
        """
        The endpoints these tests try against every role are all there
        are: every child of C{/admin} and C{/api/admin}, each action with
        the role check the tests expect of it.  The events' page and
        actions (admin only) are tried against every role by
        L{tests.tournaments.test_webadmin}.
        """
        from tests.tournaments import test_webadmin
        actions = dict(ACTIONS)
        actions.update((a, ADMINISTER) for a in test_webadmin.ACTIONS)
        admin = self.web.site.resource.children[b"admin"]
        api = self.web.site.resource.children[b"api"].children[b"admin"]
        self.assertEqual(set(admin.children),
                         {b"audit", b"tournaments"}
                         | {a.encode() for a in actions})
        self.assertEqual(set(api.children),
                         {p.encode() for p in READS + ADMIN_READS
                          + tuple(actions)})
        self.assertEqual(set(adminactions.ACTIONS), set(actions))
        for action, (allowed, _) in adminactions.ACTIONS.items():
            self.assertEqual(tuple(r for r in ROLES if allowed(r)),
                             actions[action], action)

    @defer.inlineCallbacks
    def test_pagesEveryRole(self):
        """
        C{/admin} and C{/admin/audit}: anonymous to C{/login}, a player
        403, moderators and admins 200.
        """
        for path in ("/admin", "/admin/audit"):
            for role in ROLES:
                code, headers, page = yield self.browsers[role].get(path)
                if role == "anonymous":
                    self.assertEqual(code, 303, (path, role))
                    self.assertEqual(headers.getRawHeaders(b"location"),
                                     [b"/login?next=/admin"])
                elif role == "player":
                    self.assertEqual(code, 403, (path, role))
                    self.assertNotIn("Live connections", page)
                else:
                    self.assertEqual(code, 200, (path, role))

    @defer.inlineCallbacks
    def test_pageActionsEveryRole(self):
        """
        Each POST C{/admin/ACTION} (with a valid CSRF token) is refused to
        every role not allowed, doing nothing, and done (audited) for each
        role allowed.
        """
        for action, allowed in sorted(ACTIONS.items()):
            for role in ROLES:
                browser = self.browsers[role]
                fields = yield self.fields(action)
                _, _, page = yield browser.get("/login")
                fields["csrf"] = csrfOf(page)
                before = yield self.auditCount()
                code, headers, page = yield browser.request(
                    b"POST", "/admin/" + action, fields)
                after = yield self.auditCount()
                where = (action, role)
                if role in allowed:
                    self.assertIn(code, (200, 303), where)
                    self.assertEqual(after, before + 1, where)
                else:
                    self.assertEqual(
                        code, 303 if role == "anonymous" else 403, where)
                    self.assertEqual(after, before, where)

    @defer.inlineCallbacks
    def api(self, role, method, path, body=None):
        headers = {}
        if self.tokens[role] is not None:
            headers[b"authorization"] = b"Bearer " + \
                self.tokens[role].encode()
        browser = Browser(self.web)
        if body is not None:
            headers[b"content-type"] = b"application/json"
        from io import BytesIO
        from twisted.web.client import FileBodyProducer, readBody
        from twisted.web.http_headers import Headers
        sent = Headers()
        for name, value in headers.items():
            sent.addRawHeader(name, value)
        producer = None
        if body is not None:
            producer = FileBodyProducer(BytesIO(json.dumps(body).encode()))
        response = yield browser.agent.request(
            method, self.web.url(path).encode(), sent, producer)
        text = yield readBody(response)
        return response.code, json.loads(text)

    @defer.inlineCallbacks
    def test_apiEveryRole(self):
        """
        Every API endpoint: no token 401, a player's 403, a moderator's
        403 for admin actions, else done (audited for actions); a wrong
        token is a 401 too.
        """
        for path in READS + ADMIN_READS:
            allowed = ADMINISTER if path in ADMIN_READS else MODERATE
            for role in ROLES:
                code, data = yield self.api(role, b"GET",
                                            "/api/admin/" + path)
                expected = 200 if role in allowed else \
                    401 if role == "anonymous" else 403
                self.assertEqual(code, expected, (path, role))
                if code == 200:
                    self.assertIn(path, data)
        for action, allowed in sorted(ACTIONS.items()):
            for role in ROLES:
                fields = yield self.fields(action)
                before = yield self.auditCount()
                code, data = yield self.api(role, b"POST",
                                            "/api/admin/" + action, fields)
                after = yield self.auditCount()
                where = (action, role)
                if role in allowed:
                    self.assertEqual(code, 200, (where, data))
                    self.assertEqual(data["done"], action)
                    self.assertEqual(after, before + 1, where)
                else:
                    self.assertEqual(
                        code, 401 if role == "anonymous" else 403, where)
                    self.assertEqual(after, before, where)
        self.tokens["anonymous"] = "not-a-token"
        code, _ = yield self.api("anonymous", b"GET",
                                 "/api/admin/connections")
        self.assertEqual(code, 401)

    @defer.inlineCallbacks
    def test_roleReadEveryRequest(self):
        """
        A moderator demoted to player loses C{/admin} (its sessions end:
        it must log in again, as a player) and the API at the next
        request.
        """
        code, _, _ = yield self.browsers["moderator"].get("/admin")
        self.assertEqual(code, 200)
        yield self.accounts.setRole("moderato", "player", actor="root")
        code, _, _ = yield self.browsers["moderator"].get("/admin")
        self.assertEqual(code, 303)
        yield self.browsers["moderator"].login("moderato")
        code, _, _ = yield self.browsers["moderator"].get("/admin")
        self.assertEqual(code, 403)
        code, _ = yield self.api("moderator", b"GET",
                                 "/api/admin/connections")
        self.assertEqual(code, 403)

    @defer.inlineCallbacks
    def test_kickEndBanFromThePage(self):
        """
        The page lists the live connections and tables; its forms kick
        (the connection is closed), end a table (abandoned), ban an
        address (its connections closed) and the audit shows who, what
        and why.
        """
        room, sessions = self.openTable(("ann", "bob"), "203.0.113.9")
        moderator = self.browsers["moderator"]
        code, _, page = yield moderator.get("/admin")
        self.assertIn("annroom1", page)
        self.assertIn("203.0.113.9", page)
        self.assertIn("End as abandoned", page)
        code, headers, _ = yield moderator.submit(
            "/admin", "/admin/kick", {"session": str(sessions[0].id),
                                      "reason": "rude"})
        self.assertEqual(code, 303)
        self.assertEqual(headers.getRawHeaders(b"location"),
                         [b"/admin?done=kick"])
        self.assertTrue(sessions[0].peer.transport.disconnecting)
        self.assertFalse(sessions[1].peer.transport.disconnecting)
        code, _, _ = yield moderator.submit(
            "/admin", "/admin/end", {"kind": "gomoku", "room": room.name,
                                     "reason": "stuck"})
        self.assertEqual(code, 303)
        code, _, _ = yield moderator.submit(
            "/admin", "/admin/ban", {"target": "203.0.113.0/24",
                                     "for": "1h", "reason": "flood"})
        self.assertEqual(code, 303)
        self.assertTrue(sessions[1].peer.transport.disconnecting)
        code, _, page = yield moderator.submit(
            "/admin", "/admin/ban", {"target": "x", "for": "forever",
                                     "reason": "r"})
        self.assertEqual(code, 400)
        self.assertIn("duration", page)
        code, _, page = yield moderator.get("/admin/audit")
        for words in ("kick", "rude", "end", "gomoku room1", "stuck", "ban",
                      "203.0.113.0/24", "flood", "moderato"):
            self.assertIn(words, page)

    @defer.inlineCallbacks
    def test_moderatorSeesNoRoles(self):
        """
        A moderator's page has no roles or invite forms; an admin's has.
        """
        _, _, page = yield self.browsers["moderator"].get("/admin")
        self.assertNotIn('action="/admin/role"', page)
        self.assertNotIn('action="/admin/invite"', page)
        _, _, page = yield self.browsers["admin"].get("/admin")
        self.assertIn('action="/admin/role"', page)
        self.assertIn('action="/admin/invite"', page)

    @defer.inlineCallbacks
    def test_csrfOnActions(self):
        """
        An admin action without the CSRF token is refused, and not done.
        """
        before = yield self.auditCount()
        code, _, _ = yield self.browsers["admin"].request(
            b"POST", "/admin/ban", self.fields("ban"))
        self.assertEqual(code, 403)
        after = yield self.auditCount()
        self.assertEqual(after, before)


class TokensPageTests(AccountsWebMixin, TestCase):
    """
    The API tokens on C{/admin}: admins see them (never a token) and
    revoke them there.
    """

    @defer.inlineCallbacks
    def test_listAndRevoke(self):
        """
        An admin's page lists each token's id, account, name and times,
        with a Revoke button that ends it (audited with the admin's
        address); a moderator's page has no tokens.
        """
        yield self.setUpWeb()
        yield self.addAccount("root", "admin")
        yield self.addAccount("mod", "moderator")
        token = yield self.sessions.newToken("mod", label="ci-bot")
        tokenId = secretHash(token)[:12]
        admin, moderator = Browser(self.web), Browser(self.web)
        yield admin.login("root")
        yield moderator.login("mod")
        _, _, page = yield admin.get("/admin")
        self.assertIn(tokenId, page)
        self.assertIn("ci-bot", page)
        self.assertNotIn(token, page)
        _, _, page = yield moderator.get("/admin")
        self.assertNotIn("API tokens", page)
        self.assertNotIn(tokenId, page)
        code, _, _ = yield admin.submit("/admin", "/admin/token-revoke",
                                        {"token": tokenId})
        self.assertEqual(code, 303)
        self.assertIsNone((yield self.sessions.tokenVisitor(token)))
        entries = yield self.accounts.audit()
        last = entries[-1]
        self.assertEqual((last.actor, last.action, last.target, last.reason,
                          last.address),
                         ("root", "revoke-token", "mod", tokenId,
                          "127.0.0.1"))
        _, _, page = yield admin.get("/admin/audit")
        self.assertIn("revoke-token", page)
        self.assertNotIn(token, page)
