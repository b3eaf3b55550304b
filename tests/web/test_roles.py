"""
The rules of roles (L{hub.accounts.model.mayActOn}) through the JSON
admin API: every acting role against every target role, for each action
on a person (kick, ban, unban, role); a moderator may not act on a
moderator or an admin, the last admin keeps the role and is never
banned, a ban never covers its actor's own address, and every refusal
is audited (C{refused-ACTION}); over real SQLite and a real HTTP port.
"""

from twisted.internet import defer
from twisted.trial.unittest import TestCase

from hub.accounts import names
from hub.accounts.check import Verdict
from hub.accounts.model import mayActOn
from hub.accounts.store import Actor, Refused

from tests.web.accountsupport import AccountsWebMixin
from tests.web.support import Peer
from tests.web.test_admin import AdminTests

ACTORS = ("player", "moderator", "admin")
#: Target roles: C{None} is a guest (no account).
TARGETS = (None, "player", "moderator", "admin")
#: The account of each target role.
TARGET_NAMES = {"player": "tplayer", "moderator": "tmod", "admin": "tadmin"}


class RulesTests(TestCase):
    """
    L{mayActOn}, the table itself.
    """

    def test_table(self):
        """
        An admin (or the operator) acts on anyone, a moderator on players
        and guests, a player on nobody.
        """
        for target in TARGETS:
            self.assertTrue(mayActOn(None, target))
            self.assertTrue(mayActOn("admin", target))
            self.assertEqual(mayActOn("moderator", target),
                             target in (None, "player"), target)
            self.assertFalse(mayActOn("player", target))


class EveryPairTests(AccountsWebMixin, TestCase):
    """
    Each action on a person, by every role, on every role.
    """

    @defer.inlineCallbacks
    def setUp(self):
        yield self.setUpWeb()
        self.tokens = {}
        for role in ACTORS:
            yield self.addAccount("a" + role[:7], role)
            self.tokens[role] = yield self.sessions.newToken(
                "a" + role[:7])
        for role, name in TARGET_NAMES.items():
            yield self.addAccount(name, role)
        yield self.names.refresh()

    api = AdminTests.api

    def liveSession(self, target):
        """
        A live gomoku connection of the target role's account (or a
        guest's).
        """
        peer = Peer("192.0.2.40")
        session = self.hub.sessions.connect("gomoku", peer)
        name = TARGET_NAMES.get(target, "guest1")
        self.hub.sessions.claimName(session, name)
        session.setVerdict(name, Verdict(name, target is None,
                                         None if target is None
                                         else names.nameKey(name)))
        self.addCleanup(self.hub.sessions.disconnect, session)
        return session, peer

    @defer.inlineCallbacks
    def audited(self):
        entries = yield self.accounts.audit(1000)
        return [(e.actor, e.action, e.target) for e in entries]

    def expected(self, actor, target, action):
        """
        The API's answer: 403 unrefused by the endpoint (a player), 403
        refused by the rules (audited), or 200.
        """
        if actor == "player" or (action == "role" and actor != "admin"):
            return 403, False
        if not mayActOn(actor, target):
            return 403, True
        return 200, False

    @defer.inlineCallbacks
    def check(self, action, fields, actor, target, done):
        """
        Post C{action} with C{fields} as C{actor} on C{target}, and check
        the answer and the audit; C{done()} (unless None) says whether it
        was done.
        """
        before = yield self.audited()
        code, data = yield self.api(actor, b"POST", "/api/admin/" + action,
                                    fields)
        after = yield self.audited()
        where = (action, actor, target, data)
        wanted, refusal = self.expected(actor, target, action)
        self.assertEqual(code, wanted, where)
        added = after[len(before):]
        actorName = "a" + actor[:7]
        if done is not None:
            self.assertEqual(done(), code == 200, where)
        if code == 200:
            self.assertEqual([a for _, a, _ in added], [action], where)
        else:
            self.assertEqual(added, [(actorName, "refused-" + action,
                                      added[0][2])] if refusal else [],
                             where)

    def test_kick(self):
        """
        Kicks: a moderator's of a moderator's or an admin's connection is
        refused (the connection stays), audited.
        """
        @defer.inlineCallbacks
        def run():
            for actor in ACTORS:
                for target in TARGETS:
                    session, peer = self.liveSession(target)
                    yield self.check(
                        "kick", {"session": str(session.id), "reason": "x"},
                        actor, target,
                        lambda: peer.transport.disconnecting)
                    self.hub.sessions.disconnect(session)
        return run()

    @defer.inlineCallbacks
    def test_banUnban(self):
        """
        Bans and unbans of accounts: a moderator's of a moderator or an
        admin is refused, audited; an admin bans another admin.
        """
        for actor in ACTORS:
            for target in TARGETS[1:]:
                name = TARGET_NAMES[target]

                def banned(name=name):
                    return self.accounts.list().addCallback(
                        lambda found: [a.bannedUntil is not None
                                       for a in found[0]
                                       if a.name == name][0])
                yield self.check("ban", {"target": name, "for": "1h",
                                         "reason": "x"}, actor, target,
                                 None)
                isBanned = yield banned()
                self.assertEqual(isBanned, self.expected(
                    actor, target, "ban")[0] == 200, (actor, target))
                if not isBanned:
                    yield self.accounts.ban(name, 3600, "by cli")
                yield self.check("unban", {"target": name}, actor, target,
                                 None)
                isBanned = yield banned()
                self.assertEqual(isBanned, self.expected(
                    actor, target, "unban")[0] != 200, (actor, target))
                if isBanned:
                    yield self.accounts.unban(name)

    @defer.inlineCallbacks
    def test_role(self):
        """
        Roles: admins only, on any role (another admin too, while one is
        left).
        """
        for actor in ACTORS:
            for target in TARGETS[1:]:
                name = TARGET_NAMES[target]
                yield self.check("role", {"name": name, "role": "player"},
                                 actor, target, None)
                found, _ = yield self.accounts.list()
                role = [a.role for a in found if a.name == name][0]
                self.assertEqual(role, "player" if actor == "admin"
                                 else target, (actor, target))
                yield self.accounts.setRole(name, target)

    def test_cidrBanOwnAddress(self):
        """
        A ban of a range that holds the actor's own address is refused,
        audited; the range next to it is not.
        """
        moderation = self.names.moderation
        mod = Actor("amoderat", "moderator", "192.0.2.77")
        d = self.assertFailure(moderation.ban("192.0.2.0/24", 60, "x", mod),
                               Refused)
        d.addCallback(lambda _: moderation.ban("192.0.3.0/24", 60, "x",
                                               mod))
        d.addCallback(lambda _: self.audited())
        d.addCallback(lambda audit: self.assertEqual(audit[-2:], [
            ("amoderat", "refused-ban", "192.0.2.0/24"),
            ("amoderat", "ban", "192.0.3.0/24")]))
        return d


class LastAdminTests(AccountsWebMixin, TestCase):
    """
    The last admin keeps the role, and is never banned, whoever asks.
    """

    @defer.inlineCallbacks
    def setUp(self):
        yield self.setUpWeb()
        yield self.addAccount("root", "admin")
        self.root = Actor("root", "admin", "203.0.113.5")

    @defer.inlineCallbacks
    def test_lastAdmin(self):
        """
        The only admin cannot demote itself, be demoted from the command
        line, or be banned; each refusal is audited (with the address of
        a web actor); with a second admin, the first may go.
        """
        moderation = self.names.moderation
        yield self.assertFailure(
            moderation.setRole("root", "player", self.root), Refused)
        yield self.assertFailure(
            self.accounts.setRole("root", "moderator", actor="cli"),
            Refused)
        yield self.assertFailure(
            moderation.ban("root", 60, "x", self.root), Refused)
        entries = yield self.accounts.audit()
        self.assertEqual([(e.actor, e.action, e.target, e.address)
                          for e in entries], [
            ("cli", "add", "root", None),
            ("root", "refused-role", "root", "203.0.113.5"),
            ("cli", "refused-role", "root", None),
            ("root", "refused-ban", "root", "203.0.113.5")])
        found, _ = yield self.accounts.list()
        self.assertEqual([(a.role, a.bannedUntil) for a in found],
                         [("admin", None)])
        yield self.addAccount("second", "admin")
        yield moderation.setRole("root", "player", self.root)
        yield self.assertFailure(
            moderation.setRole("second", "player",
                               Actor("second", "admin")), Refused)

    @defer.inlineCallbacks
    def test_bannedAdminsDoNotCount(self):
        """
        An admin who is banned is no admin left: the other is the last.
        """
        yield self.addAccount("second", "admin")
        yield self.accounts.ban("second", 3600, "x")
        yield self.assertFailure(
            self.names.moderation.setRole("root", "player", self.root),
            Refused)
