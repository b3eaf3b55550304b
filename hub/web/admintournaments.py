"""
C{/admin/tournaments}: admins create and run tournament events
(L{hub.tournaments}) from the browser, as with the CLI, and read the
engines' logs.  Admins only: the caller's session and role are read
again on every request (a moderator, a player: 403; nobody: C{/login}).
The forms post, with the CSRF token, to C{/admin/event-ACTION}
(L{hub.web.adminactions}), each action audited.

    /admin/tournaments                      the events and their forms
    /admin/tournaments/logs?event=ID        an event's engine logs
    /admin/tournaments/log?event=ID&room=R&name=N
                                            one engine's log of one game
                                            (text)
"""

from __future__ import annotations

from urllib.parse import urlencode
from typing import Any, Callable, Generator, Sequence, Union

from twisted.internet.defer import Deferred
from twisted.internet import defer
from twisted.web import resource
from twisted.web.template import tags
from twisted.web.server import Request

from hub.accounts.moderation import mayAdminister
from hub.tournaments import catalog, formats, store
from hub.web import pages
from hub.web.accountpages import NotFound, labelled, message, show
from hub.web.i18n import N_

DONE = {"event-create": N_("Event created."), "event-enter": N_("Entered."),
        "event-withdraw": N_("Withdrawn."),
        "event-engine": N_("Engine entered."),
        "event-start": N_("Started: the hub begins within 2 s."),
        "event-pause": N_("Paused."), "event-resume": N_("Resumed.")}
#: The events' actions, as their buttons say them.
ACTION_WORDS = {"start": N_("Start"), "pause": N_("Pause"),
                "resume": N_("Resume")}


def argument(request: Any, name: str) -> Any:
    """
    The query argument C{name} of C{request}, as text ("" if absent).
    """
    values = (request.args or {}).get(name.encode("ascii")) or [b""]
    return values[0].decode("utf-8", "replace")


def eventNumber(request: Request) -> Any:
    """
    The C{event} argument as an id, or None.
    """
    value = argument(request, "event")
    return int(value) if value.isdigit() and len(value) <= 18 else None


def launcherOf(events: Any) -> Any:
    """
    The engine runner of the hub's director, or None (C{events}, the
    L{hub.web.interfaces.ITournamentsWeb}, is None: no events).
    """
    return None if events is None else events.launcher()


def _select(name: str, label: str, options: Any,
            shown: Any = lambda option: option) -> Any:
    # shown: an option's words (a translator; an engine's name as it is).
    return tags.p(tags.label(label, " ", tags.select(
        *[tags.option(shown(o), value=o) for o in options], name=name)))


def createForm(csrf: Any, _: Callable[[str], str] = lambda text: text) -> Any:
    """
    The form of a new event (C{python -m hub.tournaments create}).
    """
    return tags.form(
        csrf, labelled(_("Name"), name="name", required="required"),
        _select("game", _("Game"), ("gomoku", "checkers", "splendor"), _),
        _select("format", _("Format"), formats.FORMATS, _),
        labelled(_("Rounds (Swiss)"), name="rounds", type="number",
                 min="1"),
        labelled(_("Minutes (arena)"), name="minutes", type="number",
                 min="1"),
        labelled(_("Players per table"), name="players", type="number",
                 min="2", max="6"),
        labelled(_("Turn seconds"), name="turn-seconds", type="number",
                 min="1"),
        tags.p(tags.button(_("Create the event"), type="submit")),
        method="post", action="/admin/event-create", class_="event-create")


def eventForms(csrf: Any, event: Any, engines: Sequence[Any] = (),
               _: Callable[[str], str] = lambda text: text) -> Any:
    """
    The forms of one event: enter, withdraw, an engine (one of the
    registered C{engines}' names), and its state.
    """
    hidden = tags.input(type="hidden", name="event", value=str(event.id))
    forms = []
    states = {"created": ("start",), "running": ("pause",),
              "paused": ("resume",)}.get(event.state, ())
    for action in states:
        forms.append(tags.form(
            csrf, hidden, tags.button(_(ACTION_WORDS[action]), type="submit"),
            method="post", action="/admin/event-" + action,
            class_="event-" + action))
    if event.state != store.FINISHED:
        forms.append(tags.form(
            csrf, hidden, labelled(_("Account"), name="name",
                                   required="required"),
            tags.p(tags.label(tags.input(type="checkbox", name="guest",
                                         value="1"), " ",
                              _("a guest's name"))),
            tags.p(tags.button(_("Enter"), type="submit")),
            method="post", action="/admin/event-enter",
            class_="event-enter"))
        forms.append(tags.form(
            csrf, hidden, labelled(_("Entrant"), name="name",
                                   required="required"),
            tags.p(tags.button(_("Withdraw"), type="submit")),
            method="post", action="/admin/event-withdraw",
            class_="event-withdraw"))
        if engines:
            forms.append(tags.form(
                csrf, hidden,
                _select("name", _("Registered engine"), engines),
                tags.p(tags.button(_("Enter the engine"), type="submit")),
                method="post", action="/admin/event-engine",
                class_="event-engine"))
        else:
            forms.append(tags.p(*pages.filled(
                _("No engine is registered: the server's operator "
                  "registers them ({0})."),
                tags.code("python -m hub.tournaments engine register")),
                class_="no-engines"))
    return forms


class TournamentsAdminPage(resource.Resource):
    """
    C{/admin/tournaments} and its engine logs.
    """

    def __init__(self, auth: Any, guarded: Any, events: Any = None) -> None:
        resource.Resource.__init__(self)
        self.auth = auth
        self.guarded = guarded
        #: The hub's events (L{hub.web.interfaces.ITournamentsWeb}), or
        #: None.
        self.events = events
        self.putChild(b"logs", LogsPage(auth, guarded, events))
        self.putChild(b"log", LogPage(auth, guarded, events))

    def getChild(self, name: bytes, request: Request) -> resource.IResource:
        if name == b"":
            return self
        return NotFound()

    def render_GET(self, request: Request) -> Union[bytes, int]:
        auth = self.auth
        done = DONE.get(argument(request, "done"))

        @defer.inlineCallbacks
        def page(visitor: Any) -> Generator[Any, Any, Any]:
            _ = pages.translatorFor(request)
            csrf = auth.csrfInput(request)
            events = self.events
            listed, engines = [], []
            if events is not None:
                listed = yield events.database.runInteraction(
                    store.listEvents)
                engines = [e.name for e in (
                    yield events.database.runInteraction(catalog.engines))]
            parts = [message(_(done))] if done else []
            parts.extend([tags.h2(_("A new event")), createForm(csrf, _)])
            for event in reversed(listed):
                parts.append(tags.section(
                    tags.h2("#%d " % (event.id,), pages.player(event.name)),
                    tags.p(_(event.kind), _(", "), _(event.format), _(", "),
                           tags.span(_(event.state), class_="state"), " ",
                           tags.a(_("page"), href="/tournaments/%d" % (
                               event.id,)), " ",
                           tags.a(_("engine logs"),
                                  href="/admin/tournaments/logs?event=%d" % (
                                      event.id,))),
                    *eventForms(csrf, event, engines, _), class_="event",
                    **{"data-event": str(event.id)}))
            parts.append(tags.p(tags.a(_("Moderation"), href="/admin")))
            content = tags.div(*parts, id="admin-tournaments")
            return lambda request: show(request, visitor, N_("Tournaments"),
                                        content)
        return self.guarded(auth, request, mayAdminister, page)


class LogsPage(resource.Resource):
    """
    C{/admin/tournaments/logs?event=ID}: the games and engines of an
    event that have a log.
    """

    isLeaf = True

    def __init__(self, auth: Any, guarded: Any, events: Any = None) -> None:
        resource.Resource.__init__(self)
        self.auth = auth
        #: L{hub.web.admin.guarded}: the role check of every request.
        self.guarded = guarded
        #: The hub's events (L{hub.web.interfaces.ITournamentsWeb}), or
        #: None.
        self.events = events

    def render_GET(self, request: Request) -> Union[bytes, int]:
        eventId = eventNumber(request)
        launcher = launcherOf(self.events)

        def page(visitor: Any) -> Deferred[Any]:
            _ = pages.translatorFor(request)
            logs = []
            if eventId is not None and launcher is not None:
                logs = launcher.engineLogs(eventId)
            items = [tags.li(pages.player(room), " ", tags.a(
                pages.player(name), class_="engine-log",
                href="/admin/tournaments/log?" + urlencode(
                    {"event": eventId, "room": room, "name": name})))
                for room, name in logs]
            content = tags.div(
                tags.ul(*items, class_="engine-logs") if items
                else tags.p(_("No engine logs.")),
                tags.p(tags.a(_("Tournaments"), href="/admin/tournaments")))
            return defer.succeed(lambda request: show(
                request, visitor, N_("Engine logs"), content))
        return self.guarded(self.auth, request, mayAdminister, page)


class LogPage(resource.Resource):
    """
    C{/admin/tournaments/log?event=ID&room=R&name=N}: one engine's log
    (text; secrets are masked when written, L{hub.tournaments.engines}).
    """

    isLeaf = True

    def __init__(self, auth: Any, guarded: Any, events: Any = None) -> None:
        resource.Resource.__init__(self)
        self.auth = auth
        #: L{hub.web.admin.guarded}: the role check of every request.
        self.guarded = guarded
        #: The hub's events (L{hub.web.interfaces.ITournamentsWeb}), or
        #: None.
        self.events = events

    def render_GET(self, request: Request) -> Union[bytes, int]:
        eventId = eventNumber(request)
        room, name = argument(request, "room"), argument(request, "name")
        launcher = launcherOf(self.events)

        def page(visitor: Any) -> Deferred[Any]:
            try:
                if eventId is None or launcher is None:
                    raise KeyError(room)
                text = launcher.engineLog(eventId, room, name)
            except KeyError:
                _ = pages.translatorFor(request)
                return defer.succeed(lambda request: show(
                    request, visitor, N_("Engine log"),
                    message(_("No such log."), kind="error"), 404))

            def answer(request: Request) -> Any:
                request.setHeader(b"Content-Type",
                                  b"text/plain; charset=utf-8")
                request.setHeader(b"Cache-Control", b"no-store")
                request.setHeader(b"X-Content-Type-Options", b"nosniff")
                return text
            return defer.succeed(answer)
        return self.guarded(self.auth, request, mayAdminister, page)

