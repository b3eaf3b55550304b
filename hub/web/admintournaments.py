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

from urllib.parse import urlencode

from twisted.internet import defer
from twisted.web import resource
from twisted.web.template import tags

from hub.accounts.moderation import mayAdminister
from hub.tournaments import catalog, formats, store
from hub.web import pages
from hub.web.accountpages import NotFound, labelled, message, show

DONE = {"event-create": "Event created.", "event-enter": "Entered.",
        "event-withdraw": "Withdrawn.", "event-engine": "Engine entered.",
        "event-start": "Started: the hub begins within 2 s.",
        "event-pause": "Paused.", "event-resume": "Resumed."}


def argument(request, name):
    """
    The query argument C{name} of C{request}, as text ("" if absent).
    """
    values = (request.args or {}).get(name.encode("ascii")) or [b""]
    return values[0].decode("utf-8", "replace")


def eventNumber(request):
    """
    The C{event} argument as an id, or None.
    """
    value = argument(request, "event")
    return int(value) if value.isdigit() and len(value) <= 18 else None


def launcherOf(auth):
    """
    The engine runner of the hub's director, or None.
    """
    events = getattr(auth, "tournaments", None)
    return None if events is None else events.launcher()


def _select(name, label, options):
    return tags.p(tags.label(label, " ", tags.select(
        *[tags.option(o, value=o) for o in options], name=name)))


def createForm(csrf):
    """
    The form of a new event (C{python -m hub.tournaments create}).
    """
    return tags.form(
        csrf, labelled("Name", name="name", required="required"),
        _select("game", "Game", ("gomoku", "checkers", "splendor")),
        _select("format", "Format", formats.FORMATS),
        labelled("Rounds (Swiss)", name="rounds", type="number", min="1"),
        labelled("Minutes (arena)", name="minutes", type="number",
                 min="1"),
        labelled("Players per table", name="players", type="number",
                 min="2", max="6"),
        labelled("Turn seconds", name="turn-seconds", type="number",
                 min="1"),
        tags.p(tags.button("Create the event", type="submit")),
        method="post", action="/admin/event-create", class_="event-create")


def eventForms(csrf, event, engines=()):
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
            csrf, hidden, tags.button(action.capitalize(), type="submit"),
            method="post", action="/admin/event-" + action,
            class_="event-" + action))
    if event.state != store.FINISHED:
        forms.append(tags.form(
            csrf, hidden, labelled("Account", name="name",
                                   required="required"),
            tags.p(tags.label(tags.input(type="checkbox", name="guest",
                                         value="1"), " a guest's name")),
            tags.p(tags.button("Enter", type="submit")),
            method="post", action="/admin/event-enter",
            class_="event-enter"))
        forms.append(tags.form(
            csrf, hidden, labelled("Entrant", name="name",
                                   required="required"),
            tags.p(tags.button("Withdraw", type="submit")),
            method="post", action="/admin/event-withdraw",
            class_="event-withdraw"))
        if engines:
            forms.append(tags.form(
                csrf, hidden,
                _select("name", "Registered engine", engines),
                tags.p(tags.button("Enter the engine", type="submit")),
                method="post", action="/admin/event-engine",
                class_="event-engine"))
        else:
            forms.append(tags.p(
                "No engine is registered: the server's operator registers "
                "them (python -m hub.tournaments engine register).",
                class_="no-engines"))
    return forms


class TournamentsAdminPage(resource.Resource):
    """
    C{/admin/tournaments} and its engine logs.
    """

    def __init__(self, auth, guarded):
        resource.Resource.__init__(self)
        self.auth = auth
        self.guarded = guarded
        self.putChild(b"logs", LogsPage(auth, guarded))
        self.putChild(b"log", LogPage(auth, guarded))

    def getChild(self, name, request):
        if name == b"":
            return self
        return NotFound()

    def render_GET(self, request):
        auth = self.auth
        done = DONE.get(argument(request, "done"))

        @defer.inlineCallbacks
        def page(visitor):
            csrf = auth.csrfInput(request)
            events = getattr(auth, "tournaments", None)
            listed, engines = [], []
            if events is not None:
                listed = yield events.database.runInteraction(
                    store.listEvents)
                engines = [e.name for e in (
                    yield events.database.runInteraction(catalog.engines))]
            parts = [message(done)] if done else []
            parts.extend([tags.h2("A new event"), createForm(csrf)])
            for event in reversed(listed):
                parts.append(tags.section(
                    tags.h2("#%d " % (event.id,), pages.player(event.name)),
                    tags.p(event.kind, ", ", event.format, ", ",
                           tags.span(event.state, class_="state"), " ",
                           tags.a("page", href="/tournaments/%d" % (
                               event.id,)), " ",
                           tags.a("engine logs",
                                  href="/admin/tournaments/logs?event=%d" % (
                                      event.id,))),
                    *eventForms(csrf, event, engines), class_="event",
                    **{"data-event": str(event.id)}))
            parts.append(tags.p(tags.a("Moderation", href="/admin")))
            content = tags.div(*parts, id="admin-tournaments")
            return lambda request: show(request, visitor, "Tournaments",
                                        content)
        return self.guarded(auth, request, mayAdminister, page)


class LogsPage(resource.Resource):
    """
    C{/admin/tournaments/logs?event=ID}: the games and engines of an
    event that have a log.
    """

    isLeaf = True

    def __init__(self, auth, guarded):
        resource.Resource.__init__(self)
        self.auth = auth
        #: L{hub.web.admin.guarded}: the role check of every request.
        self.guarded = guarded

    def render_GET(self, request):
        eventId = eventNumber(request)
        launcher = launcherOf(self.auth)

        def page(visitor):
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
                else tags.p("No engine logs."),
                tags.p(tags.a("Tournaments", href="/admin/tournaments")))
            return defer.succeed(lambda request: show(
                request, visitor, "Engine logs", content))
        return self.guarded(self.auth, request, mayAdminister, page)


class LogPage(resource.Resource):
    """
    C{/admin/tournaments/log?event=ID&room=R&name=N}: one engine's log
    (text; secrets are masked when written, L{hub.tournaments.engines}).
    """

    isLeaf = True

    def __init__(self, auth, guarded):
        resource.Resource.__init__(self)
        self.auth = auth
        #: L{hub.web.admin.guarded}: the role check of every request.
        self.guarded = guarded

    def render_GET(self, request):
        eventId = eventNumber(request)
        room, name = argument(request, "room"), argument(request, "name")
        launcher = launcherOf(self.auth)

        def page(visitor):
            try:
                if eventId is None or launcher is None:
                    raise KeyError(room)
                text = launcher.engineLog(eventId, room, name)
            except KeyError:
                return defer.succeed(lambda request: show(
                    request, visitor, "Engine log",
                    message("No such log.", kind="error"), 404))

            def answer(request):
                request.setHeader(b"Content-Type",
                                  b"text/plain; charset=utf-8")
                request.setHeader(b"Cache-Control", b"no-store")
                request.setHeader(b"X-Content-Type-Options", b"nosniff")
                return text
            return defer.succeed(answer)
        return self.guarded(self.auth, request, mayAdminister, page)

