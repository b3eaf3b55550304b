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

from __future__ import annotations

from typing import Any, Callable, Generator, Sequence, Union

from twisted.internet import defer
from twisted.web import resource
from twisted.web.template import tags
from twisted.web.server import Request

from hub.accounts import names
from hub.accounts.moderation import mayAdminister, mayModerate
from hub.accounts.store import AccountError, Refused
from hub.web import pages
from hub.web.accountpages import (
    NotFound, labelled, message, redirect, refusedForm, respond, show)
from hub.web.adminactions import ACTIONS, EVENT_ACTIONS, perform
from hub.web.admintournaments import TournamentsAdminPage
from hub.web.auth import field
from hub.web.i18n import N_

DONE = {"kick": N_("Connection closed."), "end": N_("Table ended."),
        "ban": N_("Banned."), "unban": N_("Ban lifted."),
        "role": N_("Role set."), "token-revoke": N_("Token revoked.")}


def guarded(auth: Any, request: Request, allowed: Any, then: Any) -> Any:
    """
    Run C{then(visitor)} (a Deferred of a function of the request) if the
    session of C{request} is of a role that C{allowed} accepts; else a
    redirect to C{/login} (no session) or a 403.
    """
    @defer.inlineCallbacks
    def work() -> Generator[Any, Any, Any]:
        visitor = yield auth.visitor(request)
        if visitor is None:
            return lambda request: redirect(request, "/login?next=/admin")
        if not allowed(visitor.role):
            _ = pages.translatorFor(request)
            return lambda request: show(
                request, visitor, N_("Forbidden"),
                message(_("Moderators only."), kind="error"), 403)
        answer = yield then(visitor)
        return answer
    return respond(request, work)


def when(seconds: float) -> Any:
    return pages.when(seconds)


class AdminPage(resource.Resource):
    """
    C{/admin}, over the accounts of C{auth} and the hub's C{events}
    (L{hub.web.interfaces.ITournamentsWeb}, or None).
    """

    def __init__(self, auth: Any, events: Any = None) -> None:
        resource.Resource.__init__(self)
        self.auth = auth
        self.putChild(b"audit", AuditPage(auth))
        self.putChild(b"tournaments",
                      TournamentsAdminPage(auth, guarded, events))
        for name in ACTIONS:
            self.putChild(name.encode("ascii"),
                          ActionPage(auth, name, self, events))

    def getChild(self, name: bytes, request: Request) -> resource.IResource:
        if name == b"":
            return self
        return NotFound()

    def content(self, request: Request, visitor: Any, note: Any = None,
                error: Any = None, extra: Sequence[Any] = (),
                tokens: Sequence[Any] = ()) -> Any:
        # note, error: texts of the catalogs (an error from an action is
        # said as the accounts say it).
        _ = pages.translatorFor(request)
        auth = self.auth
        csrf = auth.csrfInput(request)
        parts = []
        if note:
            parts.append(message(_(note)))
        if isinstance(error, list):
            # An action's refusal, in the page's language already
            # (L{pages.refusalText}).
            parts.append(message(*error, kind="error"))
        elif error:
            parts.append(message(_(error), kind="error"))
        parts.extend(extra)
        rows = [tags.tr(tags.th("#"), tags.th(_("name")), tags.th(_("address")),
                        tags.th(_("protocol")), tags.th(_("room")),
                        tags.th(_("since")), tags.th(""))]
        for c in auth.moderation.connections():
            name = [pages.player(c.name)] if c.name else ["-"]
            if c.name and c.guest:
                name.append(" " + _("(guest)"))
            rows.append(tags.tr(
                tags.td(str(c.sessionId)), tags.td(*name),
                tags.td(c.address or "-"), tags.td(c.kind),
                tags.td(pages.player(c.room) if c.room else "-"),
                tags.td(when(c.since)),
                tags.td(tags.form(
                    csrf, tags.input(type="hidden", name="session",
                                     value=str(c.sessionId)),
                    tags.input(name="reason", placeholder=_("reason")),
                    tags.button(_("Kick"), type="submit"),
                    method="post", action="/admin/kick", class_="kick")),
                class_="connection", **{"data-session": str(c.sessionId),
                                        "data-name": c.name or ""}))
        parts.extend([tags.h2(_("Live connections")),
                      tags.table(*rows, class_="connections")
                      if len(rows) > 1 else tags.p(_("None."))])
        rows = [tags.tr(tags.th(_("game")), tags.th(_("room")),
                        tags.th(_("members")), tags.th(_("table")), tags.th(""))]
        for room in auth.moderation.lobby.allRooms():
            action: Any = ""
            if room.running:
                action = tags.form(
                    csrf, tags.input(type="hidden", name="kind",
                                     value=room.kind),
                    tags.input(type="hidden", name="room", value=room.name),
                    tags.input(name="reason", placeholder=_("reason")),
                    tags.button(_("End as abandoned"), type="submit"),
                    method="post", action="/admin/end", class_="end")
            rows.append(tags.tr(
                tags.td(_(room.kind)), tags.td(pages.player(room.name)),
                tags.td(pages.players(
                    [m.name for m in room.members], _(", "))),
                tags.td(_("playing") if room.running else _("waiting")),
                tags.td(action), class_="room"))
        parts.extend([
            tags.h2(_("Rooms and tables")),
            tags.table(*rows, class_="rooms") if len(rows) > 1
            else tags.p(_("None.")),
            tags.h2(_("Ban")),
            tags.form(csrf,
                      labelled(_("Account or address (CIDR)"), name="target",
                               required="required"),
                      labelled(_("For (30s, 10m, 2h, 7d)"), name="for",
                               required="required", value="1d"),
                      labelled(_("Reason"), name="reason", required="required"),
                      tags.p(tags.button(_("Ban"), type="submit")),
                      method="post", action="/admin/ban", class_="ban"),
            tags.h2(_("Unban")),
            tags.form(csrf,
                      labelled(_("Account or address (CIDR)"), name="target",
                               required="required"),
                      tags.p(tags.button(_("Unban"), type="submit")),
                      method="post", action="/admin/unban", class_="unban"),
        ])
        if mayAdminister(visitor.role):
            parts.extend([
                tags.h2(_("Roles")),
                tags.form(csrf,
                          labelled(_("Account"), name="name",
                                   required="required"),
                          tags.p(tags.label(_("Role"), " ", tags.select(
                              *[tags.option(_(r), value=r)
                                for r in names.ROLES], name="role"))),
                          tags.p(tags.button(_("Set the role"), type="submit")),
                          method="post", action="/admin/role",
                          class_="role"),
                tags.h2(_("API tokens")),
                tokensTable(tokens, csrf, _),
                tags.p(*pages.filled(
                    _("Make one with {0} on the server: it is shown once."),
                    tags.code("python -m hub.accounts token NAME "
                              "[--days N]"))),
                tags.h2(_("Invite codes")),
                tags.p(_("Registration is {0} (--registration).").format(
                    _(auth.registration))),
                tags.form(csrf, tags.button(_("Make an invite code"),
                                            type="submit"),
                          method="post", action="/admin/invite",
                          class_="invite"),
                tags.h2(_("Tournaments")),
                tags.p(tags.a(_("Create and run events, read the engines' "
                                "logs"), href="/admin/tournaments",
                              class_="admin-tournaments"))])
        parts.append(tags.p(tags.a(_("The audit"), href="/admin/audit")))
        return tags.div(*parts)

    def render_GET(self, request: Any) -> Union[bytes, int]:
        done = (request.args or {}).get(b"done", [b""])[0].decode(
            "ascii", "replace")

        @defer.inlineCallbacks
        def page(visitor: Any) -> Generator[Any, Any, Any]:
            content = yield self.fullContent(request, visitor,
                                             DONE.get(done))
            return lambda request: show(request, visitor, N_("Moderation"),
                                        content)
        return guarded(self.auth, request, mayModerate, page)

    @defer.inlineCallbacks
    def fullContent(self, request: Request, visitor: Any, note: Any = None,
                    error: Any = None,
                    extra: Sequence[Any] = ()) -> Generator[Any, Any, Any]:
        """
        L{content}, with the API tokens read for an admin.
        """
        tokens = ()
        if mayAdminister(visitor.role):
            tokens = yield self.auth.sessions.tokens()
        return self.content(request, visitor, note, error, extra, tokens)


#: The registration modes (C{--registration}), said on C{/admin}.
REGISTRATION_WORDS = (N_("open"), N_("invite"), N_("closed"))


def tokensTable(tokens: Any, csrf: Any,
                _: Callable[[str], str] = lambda text: text) -> Any:
    """
    The API tokens (never the tokens: their ids), each with a Revoke
    button.
    """
    if not tokens:
        return tags.p(_("None."))
    rows = [tags.tr(tags.th(_("id")), tags.th(_("account")), tags.th(_("name")),
                    tags.th(_("made")), tags.th(_("last used")),
                    tags.th(_("expires")), tags.th(""))]
    for t in tokens:
        rows.append(tags.tr(
            tags.td(tags.code(t.tokenId)), tags.td(pages.player(t.name)),
            tags.td(t.label or "-"), tags.td(when(t.createdAt)),
            tags.td(when(t.lastUsed) if t.lastUsed else _("never")),
            tags.td(when(t.expiresAt)),
            tags.td(tags.form(
                csrf, tags.input(type="hidden", name="token",
                                 value=t.tokenId),
                tags.button(_("Revoke"), type="submit"), method="post",
                action="/admin/token-revoke", class_="token-revoke")),
            class_="token", **{"data-token": t.tokenId}))
    return tags.table(*rows, class_="tokens")


class ActionPage(resource.Resource):
    """
    C{/admin/ACTION}: POST only, with the CSRF token and the action's
    role.
    """

    isLeaf = True

    def __init__(self, auth: Any, name: str, admin: Any,
                 events: Any = None) -> None:
        resource.Resource.__init__(self)
        self.auth = auth
        self.name = name
        self.admin = admin
        self.events = events

    def render_GET(self, request: Request) -> Union[bytes, int]:
        return redirect(request, "/admin")

    def render_POST(self, request: Any) -> Union[bytes, int]:
        if not self.auth.csrfValid(request):
            return refusedForm(request)
        fields = {key.decode("ascii", "replace"): field(
            request, key.decode("ascii", "replace"))
            for key in (request.args or {}) if key != b"csrf"}

        @defer.inlineCallbacks
        def act(visitor: Any) -> Generator[Any, Any, Any]:
            _ = pages.translatorFor(request)
            event = self.name in EVENT_ACTIONS
            try:
                done = yield perform(self.auth, self.events,
                                     self.auth.actor(request, visitor),
                                     self.name, fields)
            except AccountError as e:
                code = 403 if isinstance(e, Refused) else 400
                said = pages.refusalText(e, _)
                if event:
                    content = tags.div(message(*said, kind="error"),
                                       tags.p(tags.a(
                                           _("Tournaments"),
                                           href="/admin/tournaments")))
                    return lambda request: show(
                        request, visitor, N_("Tournaments"), content, code)
                content = yield self.admin.fullContent(request, visitor,
                                                       error=said)
                return lambda request: show(request, visitor,
                                            N_("Moderation"), content, code)
            if self.name == "invite":
                content = yield self.admin.fullContent(
                    request, visitor, extra=[tags.p(
                        _("A new invite code (shown only now):"), " ",
                        tags.code(done["invite"], class_="invite-code"))])
                return lambda request: show(request, visitor,
                                            N_("Moderation"), content)
            page = "/admin/tournaments" if event else "/admin"
            return lambda request: redirect(request,
                                            page + "?done=" + self.name)

        return guarded(self.auth, request, ACTIONS[self.name][0], act)


class AuditPage(resource.Resource):
    """
    C{/admin/audit}: who did what, when and why (the last rows).
    """

    isLeaf = True

    def __init__(self, auth: Any) -> None:
        resource.Resource.__init__(self)
        self.auth = auth

    def render_GET(self, request: Request) -> Union[bytes, int]:
        @defer.inlineCallbacks
        def page(visitor: Any) -> Generator[Any, Any, Any]:
            _ = pages.translatorFor(request)
            entries = yield self.auth.accounts.audit()
            rows = [tags.tr(tags.th(_("when")), tags.th(_("who")),
                            tags.th(_("from")), tags.th(_("what")),
                            tags.th(_("target")), tags.th(_("why")))]
            for e in reversed(entries):
                rows.append(tags.tr(
                    tags.td(when(e.at)), tags.td(pages.player(e.actor)),
                    tags.td(e.address or "-"),
                    tags.td(e.action), tags.td(pages.player(e.target)),
                    tags.td(pages.player(e.reason)), class_="audit-row"))
            content = tags.div(tags.table(*rows, class_="audit"),
                               tags.p(tags.a(_("Moderation"),
                                             href="/admin")))
            return lambda request: show(request, visitor, N_("Audit"),
                                        content)
        return guarded(self.auth, request, mayModerate, page)
