"""
C{/admin}: moderation from the browser, for moderators and admins.  The
caller's session and role are read again on every request: an anonymous
browser is sent to C{/login}, a player gets 403, and a moderator gets 403
for what only admins do (roles, invite codes).

    /admin              live connections, rooms and tables, the forms;
                        for admins, the API tokens too
    /admin/audit        the audit
    /admin/ACTION       (POST, with the CSRF token) kick, end, ban,
                        unban, role, invite, token-revoke, event-create,
                        event-enter, event-withdraw, event-engine,
                        event-start, event-pause, event-resume
                        (L{hub.web.adminactions}); what the rules of
                        roles refuse is a 403, audited
    /admin/tournaments  events, run by admins (L{hub.web.admintournaments})
"""

from twisted.internet import defer
from twisted.web import resource
from twisted.web.template import tags

from hub.accounts import names
from hub.accounts.moderation import mayAdminister, mayModerate
from hub.accounts.store import AccountError, Refused
from hub.web import pages
from hub.web.accountpages import (
    NotFound, labelled, message, redirect, refusedForm, respond, show)
from hub.web.adminactions import ACTIONS, EVENT_ACTIONS, perform
from hub.web.admintournaments import TournamentsAdminPage
from hub.web.auth import field

DONE = {"kick": "Connection closed.", "end": "Table ended.",
        "ban": "Banned.", "unban": "Ban lifted.", "role": "Role set.",
        "token-revoke": "Token revoked."}


def guarded(auth, request, allowed, then):
    """
    Run C{then(visitor)} (a Deferred of a function of the request) if the
    session of C{request} is of a role that C{allowed} accepts; else a
    redirect to C{/login} (no session) or a 403.
    """
    @defer.inlineCallbacks
    def work():
        visitor = yield auth.visitor(request)
        if visitor is None:
            return lambda request: redirect(request, "/login?next=/admin")
        if not allowed(visitor.role):
            return lambda request: show(request, visitor, "Forbidden",
                                        message("Moderators only.", kind="error"), 403)
        answer = yield then(visitor)
        return answer
    return respond(request, work)


def when(seconds):
    return pages.when(seconds)


class AdminPage(resource.Resource):
    """
    C{/admin}.
    """

    def __init__(self, auth):
        resource.Resource.__init__(self)
        self.auth = auth
        self.putChild(b"audit", AuditPage(auth))
        self.putChild(b"tournaments", TournamentsAdminPage(auth, guarded))
        for name in ACTIONS:
            self.putChild(name.encode("ascii"), ActionPage(auth, name, self))

    def getChild(self, name, request):
        if name == b"":
            return self
        return NotFound()

    def content(self, request, visitor, note=None, error=None, extra=(),
                tokens=()):
        auth = self.auth
        csrf = auth.csrfInput(request)
        parts = []
        if note:
            parts.append(message(note))
        if error:
            parts.append(message(error, kind="error"))
        parts.extend(extra)
        rows = [tags.tr(tags.th("#"), tags.th("name"), tags.th("address"),
                        tags.th("protocol"), tags.th("room"),
                        tags.th("since"), tags.th(""))]
        for c in auth.moderation.connections():
            name = [pages.player(c.name)] if c.name else ["-"]
            if c.name and c.guest:
                name.append(" (guest)")
            rows.append(tags.tr(
                tags.td(str(c.sessionId)), tags.td(*name),
                tags.td(c.address or "-"), tags.td(c.kind),
                tags.td(pages.player(c.room) if c.room else "-"),
                tags.td(when(c.since)),
                tags.td(tags.form(
                    csrf, tags.input(type="hidden", name="session",
                                     value=str(c.sessionId)),
                    tags.input(name="reason", placeholder="reason"),
                    tags.button("Kick", type="submit"),
                    method="post", action="/admin/kick", class_="kick")),
                class_="connection", **{"data-session": str(c.sessionId),
                                        "data-name": c.name or ""}))
        parts.extend([tags.h2("Live connections"),
                      tags.table(*rows, class_="connections")
                      if len(rows) > 1 else tags.p("None.")])
        rows = [tags.tr(tags.th("game"), tags.th("room"),
                        tags.th("members"), tags.th("table"), tags.th(""))]
        for room in auth.moderation.lobby.allRooms():
            action = ""
            if room.running:
                action = tags.form(
                    csrf, tags.input(type="hidden", name="kind",
                                     value=room.kind),
                    tags.input(type="hidden", name="room", value=room.name),
                    tags.input(name="reason", placeholder="reason"),
                    tags.button("End as abandoned", type="submit"),
                    method="post", action="/admin/end", class_="end")
            rows.append(tags.tr(
                tags.td(room.kind), tags.td(pages.player(room.name)),
                tags.td(pages.players(
                    [m.name for m in room.members], ", ")),
                tags.td("playing" if room.running else "waiting"),
                tags.td(action), class_="room"))
        parts.extend([
            tags.h2("Rooms and tables"),
            tags.table(*rows, class_="rooms") if len(rows) > 1
            else tags.p("None."),
            tags.h2("Ban"),
            tags.form(csrf,
                      labelled("Account or address (CIDR)", name="target",
                               required="required"),
                      labelled("For (30s, 10m, 2h, 7d)", name="for",
                               required="required", value="1d"),
                      labelled("Reason", name="reason", required="required"),
                      tags.p(tags.button("Ban", type="submit")),
                      method="post", action="/admin/ban", class_="ban"),
            tags.h2("Unban"),
            tags.form(csrf,
                      labelled("Account or address (CIDR)", name="target",
                               required="required"),
                      tags.p(tags.button("Unban", type="submit")),
                      method="post", action="/admin/unban", class_="unban"),
        ])
        if mayAdminister(visitor.role):
            parts.extend([
                tags.h2("Roles"),
                tags.form(csrf,
                          labelled("Account", name="name",
                                   required="required"),
                          tags.p(tags.label("Role ", tags.select(
                              *[tags.option(r, value=r)
                                for r in names.ROLES], name="role"))),
                          tags.p(tags.button("Set the role", type="submit")),
                          method="post", action="/admin/role",
                          class_="role"),
                tags.h2("API tokens"),
                tokensTable(tokens, csrf),
                tags.p("Make one with ", tags.code(
                    "python -m hub.accounts token NAME [--days N]"),
                    " on the server: it is shown once."),
                tags.h2("Invite codes"),
                tags.p("Registration is {} (--registration).".format(
                    auth.registration)),
                tags.form(csrf, tags.button("Make an invite code",
                                            type="submit"),
                          method="post", action="/admin/invite",
                          class_="invite"),
                tags.h2("Tournaments"),
                tags.p(tags.a("Create and run events, read the engines' "
                              "logs", href="/admin/tournaments",
                              class_="admin-tournaments"))])
        parts.append(tags.p(tags.a("The audit", href="/admin/audit")))
        return tags.div(*parts)

    def render_GET(self, request):
        done = (request.args or {}).get(b"done", [b""])[0].decode(
            "ascii", "replace")

        @defer.inlineCallbacks
        def page(visitor):
            content = yield self.fullContent(request, visitor,
                                             DONE.get(done))
            return lambda request: show(request, visitor, "Moderation",
                                        content)
        return guarded(self.auth, request, mayModerate, page)

    @defer.inlineCallbacks
    def fullContent(self, request, visitor, note=None, error=None,
                    extra=()):
        """
        L{content}, with the API tokens read for an admin.
        """
        tokens = ()
        if mayAdminister(visitor.role):
            tokens = yield self.auth.sessions.tokens()
        return self.content(request, visitor, note, error, extra, tokens)


def tokensTable(tokens, csrf):
    """
    The API tokens (never the tokens: their ids), each with a Revoke
    button.
    """
    if not tokens:
        return tags.p("None.")
    rows = [tags.tr(tags.th("id"), tags.th("account"), tags.th("name"),
                    tags.th("made"), tags.th("last used"),
                    tags.th("expires"), tags.th(""))]
    for t in tokens:
        rows.append(tags.tr(
            tags.td(tags.code(t.tokenId)), tags.td(pages.player(t.name)),
            tags.td(t.label or "-"), tags.td(when(t.createdAt)),
            tags.td(when(t.lastUsed) if t.lastUsed else "never"),
            tags.td(when(t.expiresAt)),
            tags.td(tags.form(
                csrf, tags.input(type="hidden", name="token",
                                 value=t.tokenId),
                tags.button("Revoke", type="submit"), method="post",
                action="/admin/token-revoke", class_="token-revoke")),
            class_="token", **{"data-token": t.tokenId}))
    return tags.table(*rows, class_="tokens")


class ActionPage(resource.Resource):
    """
    C{/admin/ACTION}: POST only, with the CSRF token and the action's
    role.
    """

    isLeaf = True

    def __init__(self, auth, name, admin):
        resource.Resource.__init__(self)
        self.auth = auth
        self.name = name
        self.admin = admin

    def render_GET(self, request):
        return redirect(request, "/admin")

    def render_POST(self, request):
        if not self.auth.csrfValid(request):
            return refusedForm(request)
        fields = {key.decode("ascii", "replace"): field(
            request, key.decode("ascii", "replace"))
            for key in (request.args or {}) if key != b"csrf"}

        @defer.inlineCallbacks
        def act(visitor):
            event = self.name in EVENT_ACTIONS
            try:
                done = yield perform(self.auth,
                                     self.auth.actor(request, visitor),
                                     self.name, fields)
            except AccountError as e:
                code = 403 if isinstance(e, Refused) else 400
                if event:
                    content = tags.div(message(str(e), kind="error"),
                                       tags.p(tags.a(
                                           "Tournaments",
                                           href="/admin/tournaments")))
                    return lambda request: show(
                        request, visitor, "Tournaments", content, code)
                content = yield self.admin.fullContent(request, visitor,
                                                       error=str(e))
                return lambda request: show(request, visitor, "Moderation",
                                            content, code)
            if self.name == "invite":
                content = yield self.admin.fullContent(
                    request, visitor, extra=[tags.p(
                        "A new invite code (shown only now): ",
                        tags.code(done["invite"], class_="invite-code"))])
                return lambda request: show(request, visitor, "Moderation",
                                            content)
            page = "/admin/tournaments" if event else "/admin"
            return lambda request: redirect(request,
                                            page + "?done=" + self.name)

        return guarded(self.auth, request, ACTIONS[self.name][0], act)


class AuditPage(resource.Resource):
    """
    C{/admin/audit}: who did what, when and why (the last rows).
    """

    isLeaf = True

    def __init__(self, auth):
        resource.Resource.__init__(self)
        self.auth = auth

    def render_GET(self, request):
        @defer.inlineCallbacks
        def page(visitor):
            entries = yield self.auth.accounts.audit()
            rows = [tags.tr(tags.th("when"), tags.th("who"),
                            tags.th("from"), tags.th("what"),
                            tags.th("target"), tags.th("why"))]
            for e in reversed(entries):
                rows.append(tags.tr(
                    tags.td(when(e.at)), tags.td(pages.player(e.actor)),
                    tags.td(e.address or "-"),
                    tags.td(e.action), tags.td(pages.player(e.target)),
                    tags.td(pages.player(e.reason)), class_="audit-row"))
            content = tags.div(tags.table(*rows, class_="audit"),
                               tags.p(tags.a("Moderation", href="/admin")))
            return lambda request: show(request, visitor, "Audit", content)
        return guarded(self.auth, request, mayModerate, page)
