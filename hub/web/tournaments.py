"""
The tournaments on the web face (L{hub.tournaments}): C{/tournaments},
C{/tournaments/ID} with its enter and withdraw forms, and the JSON API
under C{/api/tournaments/} (every event, one event, the room an entrant
should join next, an entry proven with a play key, the standings as
CSV, the gomoku games as .psq, an event stream).  Each route:
docs/tournaments.md ("Web", "People enter themselves").

Events are created and run with the CLI and from C{/admin}
(L{hub.web.adminactions}).  A play key sent to C{entry} is proven as the
game protocols prove a name, and never logged nor answered; engine
command lines never appear.
"""

from __future__ import annotations

import json
import time
from typing import Any, Callable, Dict, List, Optional

from twisted.internet import defer
from twisted.logger import Logger
from twisted.web import resource, server
from twisted.web.template import tags
from zope.interface import implementer

from hub.accounts.names import nameKey
from hub.tournaments import psqexport, store, views
from hub.tournaments.interfaces import ITournamentListener
from hub.web import pages
from hub.web.i18n import N_
from hub.web.api import (
    JSONResource, NotFound, StreamResource, deferJSON, displaysOf, sendJSON)
from hub.web.errors import pathSegment
from hub.web.interfaces import ITournamentsWeb
from hub.web.stream import Fanout, sseFrame

#: Seconds between two pushes of one event's stream.
PUSH_INTERVAL = 1.0
log = Logger()


def _eventId(segment: Optional[str]) -> Optional[int]:
    if segment is None or not segment.isdigit() or len(segment) > 18:
        return None
    return int(segment)


@implementer(ITournamentsWeb)
class TournamentsWeb:
    """
    The data of the tournament pages and API.

    @param database: The records' L{hub.records.db.Database}.
    @param director: The hub's L{hub.tournaments.director.Director}, or
        None (no live links, no next rooms).
    @param lobby: The hub's lobby (a pairing's room -> its table).
    @param spectating: The web's L{hub.web.live.Spectating} (a table ->
        its live game).
    @param clock: The clock of the event streams' pushes (its
        L{TournamentFeeds}), or None for no event streams.
    @param auth: The L{hub.web.auth.WebAuth} of a web face with accounts,
        or None (no entering from the page).
    @param displays: The accounts' display names
        (L{hub.accounts.displays.DisplayNames}) the pages and the API
        show beside the entrants' names, or None (a web face without
        accounts).
    """

    def __init__(self, database: Any, director: Any = None,
                 lobby: Any = None, spectating: Any = None,
                 gate: Any = None, names: Any = None,
                 clock: Any = None, auth: Any = None,
                 displays: Any = None) -> None:
        self.database = database
        self.displays = displays
        #: The hub's L{hub.accounts.check.NameService}, or None (no
        #: accounts: nobody enters from the web).
        self.names = names
        self.clock = clock
        self.director = director
        self.lobby = lobby
        self.spectating = spectating
        self.gate = gate
        #: The L{TournamentFeeds} of the event streams, or None.
        self.feeds: Optional[TournamentFeeds] = None
        if clock is not None:
            self.feeds = TournamentFeeds(self.eventData, clock)
        self.auth = auth

    def launcher(self) -> Any:
        """
        The engine runner of the director, or None.
        """
        return None if self.director is None else self.director.launcher

    def eventChanged(self, eventId: int) -> None:
        """
        The event's page hears of a change at once.
        """
        if self.feeds is not None:
            self.feeds.eventChanged(eventId)

    def listData(self) -> defer.Deferred:
        d = self.database.runInteraction(store.listEvents)
        return d.addCallback(lambda events: {
            "tournaments": [views.summaryJSON(e) for e in events]})

    def snapshot(self, eventId: int) -> defer.Deferred:
        """
        The event's L{store.Snapshot}, or None when there is none.
        """
        d = self.database.runInteraction(store.snapshot, eventId)

        def missing(failure: Any) -> None:
            failure.trap(store.TournamentError)
            return None

        return d.addErrback(missing)

    def gameLink(self, kind: str, room: str) -> Optional[str]:
        """
        The live game page of C{room}'s game, if one is under way.
        """
        if self.lobby is None or self.spectating is None:
            return None
        found = self.lobby.room(kind, room)
        if found is None or found.table is None:
            return None
        game = self.spectating.gameOf(found.table)
        return "/games/" + game.id if game is not None else None

    def eventData(self, eventId: int) -> defer.Deferred:
        """
        A Deferred of the event's JSON (L{views.eventJSON}) with the
        accounts' display names (L{withDisplays}), or None.
        """
        def made(snap: Optional[store.Snapshot]) -> Any:
            if snap is None:
                return None
            kind = snap.event.kind
            data = views.eventJSON(
                snap, lambda room: self.gameLink(kind, room))
            accounts = [e["name"] for e in data["entrants"]
                        if not e["guest"]]
            d = displaysOf(self.displays, accounts)
            return d.addCallback(lambda found: withDisplays(data, found))
        return self.snapshot(eventId).addCallback(made)

    def latestAbout(self, kind: str, name: str) -> defer.Deferred:
        """
        A Deferred of what engine entrant C{name}'s brain last answered
        to C{ABOUT} in a C{kind} event, C{(event, pairs)}, or None (also
        when the database cannot tell now: the page goes without it).
        """
        d = self.database.runInteraction(store.latestAbout, kind, name)

        def failed(failure: Any) -> None:
            log.warn("an engine's ABOUT not shown: {error}",
                     error=failure.getErrorMessage())
            return None
        return d.addErrback(failed)

    def nextData(self, eventId: int, name: str) -> defer.Deferred:
        """
        The room C{name} should join now in event C{eventId} (None when
        it has no game waiting for it), with the event's kind and state.
        """
        def made(snap: Optional[store.Snapshot]) -> Optional[Dict[str, Any]]:
            if snap is None:
                return None
            room = None
            if self.director is not None:
                room = self.director.roomFor(eventId, name)
            return {"event": eventId, "name": name, "kind": snap.event.kind,
                    "state": snap.event.state, "room": room,
                    "entrant": snap.entrant(name) is not None}
        return self.snapshot(eventId).addCallback(made)


def withDisplays(data: Dict[str, Any],
                 found: Dict[str, str]) -> Dict[str, Any]:
    """
    The event's JSON C{data} with the display names C{found} (C{{name:
    display name}}) beside the names, as the other pages' JSON has them:
    C{"display"} of each entrant and standing, C{"displays"} of each
    pairing (beside C{"seats"}); None for a guest or a name without one.
    """
    def shown(name: str, guest: Any) -> Optional[str]:
        return None if guest else found.get(name)

    for entry in data["entrants"] + data["standings"]:
        entry["display"] = shown(entry["name"], entry["guest"])
    for r in data["rounds"]:
        for p in r["pairings"]:
            p["displays"] = [shown(name, guest) for name, guest in
                             zip(p["seats"], p["guests"])]
    return data


@implementer(ITournamentListener)
class TournamentFeeds:
    """
    The event streams of the events' pages: told by the director when an
    event changed, it sends the event's JSON to that event's streams (at
    most once every L{PUSH_INTERVAL}).

    @param eventData: C{eventData(eventId)}, a Deferred of an event's
        JSON or None (L{TournamentsWeb.eventData}).
    @ivar fanouts: Event id -> the L{Fanout} of its streams.
    """

    def __init__(self, eventData: Callable[[int], defer.Deferred],
                 clock: Any, interval: float = PUSH_INTERVAL) -> None:
        self.eventData = eventData
        self.clock = clock
        self.interval = interval
        self.fanouts: Dict[int, Fanout] = {}
        self._calls: Dict[int, Any] = {}
        self.stopped = False

    def feed(self, eventId: int) -> "_EventFeed":
        """
        The C{addStream}/C{removeStream} pair of one event, for a
        L{StreamResource}.
        """
        return _EventFeed(self, eventId)

    def addStream(self, eventId: int, stream: Any) -> None:
        fanout = self.fanouts.get(eventId)
        if fanout is None:
            fanout = self.fanouts[eventId] = Fanout(self.clock)
        d = self.eventData(eventId)

        def first(data: Optional[Dict[str, Any]]) -> None:
            if stream.closed or self.stopped:
                return
            if data is None:
                stream.finish()
                return
            stream.write(sseFrame("tournament", data))
            fanout.add(stream)

        d.addCallback(first)
        d.addErrback(lambda f: log.failure("tournament stream failed", f))

    def removeStream(self, eventId: int, stream: Any) -> None:
        fanout = self.fanouts.get(eventId)
        if fanout is not None:
            fanout.discard(stream)
            if not len(fanout):
                fanout.stop()
                del self.fanouts[eventId]

    def eventChanged(self, eventId: int) -> None:
        """
        Push event C{eventId} to its streams soon.
        """
        if (self.stopped or eventId not in self.fanouts
                or eventId in self._calls):
            return
        self._calls[eventId] = self.clock.callLater(
            self.interval, self._push, eventId)

    def _push(self, eventId: int) -> None:
        self._calls.pop(eventId, None)
        fanout = self.fanouts.get(eventId)
        if fanout is None or self.stopped:
            return

        def send(data: Optional[Dict[str, Any]]) -> None:
            if data is not None and not fanout.stopped:
                fanout.send(sseFrame("tournament", data))

        d = self.eventData(eventId)
        d.addCallback(send)
        d.addErrback(lambda f: log.failure("tournament push failed", f))

    def stop(self) -> None:
        """
        The hub stops: no more pushes.
        """
        self.stopped = True
        for call in self._calls.values():
            if call.active():
                call.cancel()
        self._calls.clear()
        for fanout in self.fanouts.values():
            fanout.stop()


class _EventFeed:
    """
    One event's streams, as L{StreamResource} wants a feed.
    """

    def __init__(self, feeds: TournamentFeeds, eventId: int) -> None:
        self.feeds = feeds
        self.eventId = eventId

    def addStream(self, stream: Any) -> None:
        self.feeds.addStream(self.eventId, stream)

    def removeStream(self, stream: Any) -> None:
        self.feeds.removeStream(self.eventId, stream)


class _EventResource(resource.Resource):
    """
    A leaf resource of one event of L{TournamentsWeb}.
    """

    isLeaf = True

    def __init__(self, web: TournamentsWeb, eventId: int) -> None:
        resource.Resource.__init__(self)
        self.web = web
        self.eventId = eventId


class StandingsCSV(_EventResource):
    """
    C{/api/tournaments/ID/standings.csv}.
    """

    def render_GET(self, request: Any) -> Any:
        def done(snap: Optional[store.Snapshot]) -> None:
            if snap is None:
                request.write(sendJSON(request, {"error": "not found"}, 404))
            else:
                request.setHeader(b"Content-Type", b"text/csv; charset=utf-8")
                request.setHeader(
                    b"Content-Disposition",
                    b"attachment; filename=tournament-%d.csv" % (
                        self.eventId,))
                request.write(views.standingsCSV(snap).encode("utf-8"))
            request.finish()

        def failed(failure: Any) -> None:
            log.failure("tournament {event} unreadable", failure,
                        event=self.eventId)
            request.write(sendJSON(request, {"error": "unavailable"}, 503))
            request.finish()

        self.web.snapshot(self.eventId).addCallbacks(done, failed)
        return server.NOT_DONE_YET


class PsqZip(_EventResource):
    """
    C{/api/tournaments/ID/games.psq.zip}: the event's gomoku games as
    Piskvork records (L{psqexport}), made in the database's thread.
    """

    def render_GET(self, request: Any) -> Any:
        def done(data: bytes) -> None:
            request.setHeader(b"Content-Type", b"application/zip")
            request.setHeader(
                b"Content-Disposition", b"attachment; filename=" +
                psqexport.zipName(self.eventId).encode("ascii"))
            request.write(data)
            request.finish()

        def failed(failure: Any) -> None:
            if failure.check(store.TournamentError):
                request.write(sendJSON(request, {"error": "not found"},
                                       404))
            else:
                log.failure("tournament {event}'s games unreadable",
                            failure, event=self.eventId)
                request.write(sendJSON(request, {"error": "unavailable"},
                                       503))
            request.finish()

        d = self.web.database.runInteraction(psqexport.eventZip,
                                             self.eventId)
        d.addCallbacks(done, failed)
        return server.NOT_DONE_YET


class TournamentsAPI(resource.Resource):
    """
    C{/api/tournaments} and below.
    """

    def __init__(self, web: TournamentsWeb) -> None:
        resource.Resource.__init__(self)
        self.web = web

    def render_GET(self, request: Any) -> Any:
        return deferJSON(request, self.web.listData())

    def getChild(self, name: bytes, request: Any) -> resource.Resource:
        if not name:
            return self
        eventId = _eventId(pathSegment(name))
        if eventId is None:
            return NotFound()
        rest = request.postpath
        if rest == [b"next"]:
            request.postpath = []
            names = request.args.get(b"name") or [b""]
            who = names[0].decode("utf-8", "replace")
            if not who:
                return NotFound()
            return JSONResource(lambda: self.web.nextData(eventId, who))
        if rest == [b"entry"]:
            request.postpath = []
            return EntryResource(self.web, eventId)
        if rest == [b"standings.csv"]:
            request.postpath = []
            return StandingsCSV(self.web, eventId)
        if rest == [b"games.psq.zip"]:
            request.postpath = []
            return PsqZip(self.web, eventId)
        if rest == [b"events"] and self.web.feeds is not None:
            request.postpath = []
            return StreamResource(self.web.feeds.feed(eventId),
                                  self.web.gate)
        if rest:
            return NotFound()
        return JSONResource(lambda: self.web.eventData(eventId))


#: The largest entry request body read (bytes).
MAX_ENTRY_BODY = 1024
#: The game kind whose keyed name form the entry's proof is checked in
#: (the proof is the account's, whatever the event's game).
PROOF_KIND = "checkers"


class EntryError(Exception):
    """
    An entry refused: the HTTP C{code} and the C{error} said.
    """

    def __init__(self, code: int, error: str) -> None:
        Exception.__init__(self, error)
        self.code = code
        self.error = error


def entryFields(request: Any) -> Dict[str, str]:
    """
    The C{name} and C{key} of an entry request's JSON body.

    @raise EntryError: not a small JSON object of two strings.
    """
    raw = request.content.read(MAX_ENTRY_BODY + 1) if request.content \
        else b""
    if len(raw) > MAX_ENTRY_BODY:
        raise EntryError(413, "the body is too long")
    try:
        data = json.loads(raw.decode("utf-8"))
    except ValueError:
        raise EntryError(400, "the body is not JSON")
    if not isinstance(data, dict) or not all(
            isinstance(data.get(field), str) for field in ("name", "key")):
        raise EntryError(400, "give a JSON object with name and key")
    return {"name": data["name"], "key": data["key"]}


class EntryResource(_EventResource):
    """
    C{POST /api/tournaments/ID/entry} with C{{"name": ACCOUNT, "key":
    PLAY_KEY}}: the account enters the event (as C{enter EVENT ACCOUNT}
    of the CLI), proven by its play key through the hub's name check
    (its per-name and per-address limits on failed proofs included).
    Answers C{{"event", "name", "entered": true}}; 403 for a name and
    key that do not prove an account (one answer whatever the reason),
    404 without accounts or for no such event, 409 when the event takes
    no entry.
    """

    def render_GET(self, request: Any) -> Any:
        request.setHeader(b"Allow", b"POST")
        return sendJSON(request, {"error": "method not allowed"}, 405)

    def render_POST(self, request: Any) -> Any:
        names = self.web.names
        if names is None:
            return sendJSON(request, {"error": "not found"}, 404)
        try:
            fields = entryFields(request)
        except EntryError as e:
            return sendJSON(request, {"error": e.error}, e.code)
        from hub.accounts.check import Verdict
        from hub.accounts.names import keyedName
        from hub.web.auth import clientHost
        host = clientHost(request)
        d = names.judge(
            PROOF_KIND, keyedName(PROOF_KIND, fields["name"][:64],
                                  fields["key"][:64]), host)

        def proven(verdict: Any) -> Any:
            if not isinstance(verdict, Verdict) or verdict.guest:
                return 403, {
                    "error": "that name and play key prove no account"}
            clock = self.web.clock
            now = clock.seconds() if clock is not None else time.time()
            entry = self.web.database.runInteraction(
                store.enter, self.eventId, verdict.name, now)
            return entry.addCallbacks(entered, refused)

        def entered(name: str) -> Any:
            log.info("{name} entered tournament {event} from the web",
                     name=name, event=self.eventId)
            return 200, {"event": self.eventId, "name": name,
                         "entered": True}

        def refused(failure: Any) -> Any:
            failure.trap(store.TournamentError)
            text = str(failure.value)
            if "no event" in text or "no such" in text:
                return 404, {"error": "not found"}
            return 409, {"error": text}

        def answer(result: Any) -> None:
            code, data = result
            if not finished:
                request.write(sendJSON(request, data, code))
                request.finish()

        def failed(failure: Any) -> None:
            log.failure("tournament entry failed", failure)
            if not finished:
                request.write(sendJSON(request, {"error": "failed"}, 500))
                request.finish()

        finished: List[bool] = []
        request.notifyFinish().addBoth(lambda _: finished.append(True))
        d.addCallback(proven).addCallbacks(answer, failed)
        return server.NOT_DONE_YET


# The pages.

#: The words of the events' pages not in a call of C{_}: the formats
#: and the states.
EVENT_WORDS = (N_("round-robin"), N_("swiss"), N_("arena"), N_("created"),
               N_("running"), N_("paused"), N_("finished"))


def listContent(data: Dict[str, Any], _: Any = lambda text: text) -> Any:
    """
    The events by state: running (and paused), upcoming, finished.
    """
    groups = ((N_("Running"), ("running", "paused")),
              (N_("Upcoming"), ("created",)),
              (N_("Finished"), ("finished",)))
    sections = []
    for title, states in groups:
        items = [tags.li(tags.a(pages.player(e["name"]),
                                href="/tournaments/%d" % (e["id"],)),
                         " ", _(e["kind"]), _(", "), _(e["format"]), " ",
                         tags.span(_(e["state"]), class_="state"),
                         class_="tournament")
                 for e in data["tournaments"] if e["state"] in states]
        sections.append(tags.section(
            tags.h2(_(title)),
            tags.ul(*items, class_="tournaments") if items
            else tags.p(_("None.")), class_="tournaments-" + title.lower()))
    return tags.div(*sections, id="tournaments")


def aboutLine(about: Dict[str, str],
              _: Any = lambda text: text) -> List[Any]:
    """
    A Gomocup brain's C{ABOUT} in one line, in the page's language
    (C{_}): C{name version, by author (country)}, with what it gave, each
    value the brain's text, isolated in a C{<bdi>} (L{pages.player}).
    """
    def told(key: str) -> Any:
        return pages.player(about[key])

    line: List[Any] = []
    for key in ("name", "version"):
        if about.get(key):
            line.extend([" "] * bool(line) + [told(key)])
    if about.get("author"):
        line = (pages.filled(_("{0}, by {1}"), line, told("author"))
                if line else pages.filled(_("by {0}"), told("author")))
    if about.get("country"):
        line = (pages.filled(_("{0} ({1})"), line, told("country"))
                if line else [told("country")])
    return line


def _points(value: Optional[float]) -> str:
    return views.formatPoints(value) if value is not None else ""


def entryOpen(data: Dict[str, Any]) -> bool:
    """
    Whether people may enter the event (C{data}, its JSON) now: before
    it starts, and all through an arena.
    """
    return data["state"] == "created" or (
        data["format"] == "arena" and data["state"] != "finished")


def entryForm(data: Dict[str, Any], visitor: Any, csrf: Any,
              _: Any = lambda text: text) -> Any:
    """
    The Enter (or Withdraw) button of logged-in C{visitor}, or nothing.
    """
    if visitor is None or csrf is None:
        return ""
    mine = [e for e in data["entrants"]
            if nameKey(e["name"]) == nameKey(visitor.name)]
    entered = bool(mine) and not mine[0]["withdrawn"]
    if entered:
        if data["state"] == "finished":
            return ""
        action, label = "withdraw", "Withdraw"
    elif entryOpen(data):
        action, label = "enter", "Enter the event"
    else:
        return ""
    return tags.form(
        csrf, tags.button(_(label), type="submit", id="entry-" + action),
        method="post", action="/tournaments/%d/%s" % (data["id"], action),
        class_="entry")


def eventContent(data: Dict[str, Any], visitor: Any = None,
                 csrf: Any = None, _: Any = lambda text: text) -> Any:
    """
    One event: its facts, standings, crosstable, rounds, entrants and
    export links; for a logged-in C{visitor}, the entry button (with
    C{csrf}, its form's token) and the place of "your game is ready".
    """
    eventId = data["id"]
    facts = tags.p(_(data["kind"]), _(", "), _(data["format"]), _(", "),
                   tags.span(_(data["state"]), class_="state"),
                   (_(", ") + _("round {0}").format(data["currentRound"]))
                   if data["currentRound"] else "")
    names = [s["name"] for s in data["standings"]]
    shown = {s["name"]: s.get("display") for s in data["standings"]}
    standingsTable = tags.table(
        tags.thead(tags.tr(tags.th(_("rank")), tags.th(_("name")),
                           tags.th(_("points")), tags.th(_("games")),
                           tags.th(_("rating"), title=_(
                               "OpenSkill over this event's games: "
                               "mu \u00b1 sigma")),
                           *[tags.th(pages.player(n, shown[n]))
                             for n in names])),
        tags.tbody(*[
            tags.tr(tags.td(str(s["rank"])),
                    tags.td(pages.players([s["name"]], "",
                                          [s.get("guest")], _,
                                          [s.get("display")])),
                    tags.td(_points(s["points"]), class_="points"),
                    tags.td(str(s["games"])),
                    tags.td("%.1f ± %.1f" % (s["rating"]["mu"],
                                             s["rating"]["sigma"]),
                            class_="rating"),
                    *[tags.td("" if n == s["name"] else _points(
                        data["crosstable"].get(s["name"], {}).get(n)))
                      for n in names],
                    class_="standing")
            for s in data["standings"]]),
        class_="standings")
    rounds = []
    for r in data["rounds"]:
        rows = []
        for p in r["pairings"]:
            cells = [tags.td(p.get("room", _("bye"))),
                     tags.td(pages.players(p["seats"], _(" vs "),
                                           p.get("guests"), _,
                                           p.get("displays"))),
                     tags.td(" - ".join(_points(x) for x in p["points"])
                             if p["points"] is not None else _("playing")),
                     tags.td(_(p["result"]) if p["result"] else "")]
            if p.get("live"):
                cells.append(tags.td(tags.a(_("watch"), href=p["live"],
                                            class_="watch")))
            rows.append(tags.tr(*cells, class_="pairing"))
        rounds.append(tags.section(tags.h3(_("Round {0}").format(
                                       r["round"])),
                                   tags.table(*rows, class_="pairings")))
    entrants = tags.ul(*[
        tags.li(*pages.players([e["name"]], "", [e.get("guest")], _,
                               [e.get("display")]),
                " " + _("(engine)") if e["engine"] else "",
                tags.span(" ", aboutLine(e["about"], _), class_="about")
                if e.get("about") else "",
                " " + _("(withdrawn)") if e["withdrawn"] else "")
        for e in data["entrants"]], class_="entrants")
    exports = tags.p(
        tags.a(_("standings (CSV)"),
               href="/api/tournaments/%d/standings.csv" % (eventId,)),
        " ", tags.a(_("event (JSON)"),
                    href="/api/tournaments/%d" % (eventId,)),
        *([" ", tags.a(_("games (.psq zip)"),
                       href="/api/tournaments/%d/games.psq.zip" % (
                           eventId,))] if data["kind"] == "gomoku" else []))
    you = {"data-you": visitor.name} if visitor is not None else {}
    return tags.div(facts, tags.div(id="game-ready", class_="game-ready",
                                    hidden="hidden", role="status"),
                    entryForm(data, visitor, csrf, _),
                    tags.h2(_("Standings")), standingsTable, exports,
                    tags.h2(_("Rounds")), *rounds, tags.h2(_("Entrants")),
                    entrants, id="tournament",
                    **{"data-event": str(eventId),
                       "data-state": data["state"],
                       "data-kind": data["kind"],
                       "data-format": data["format"]}, **you)


class TournamentsPage(resource.Resource):
    """
    C{/tournaments} and C{/tournaments/ID}.
    """

    isLeaf = True

    def __init__(self, web: TournamentsWeb) -> None:
        resource.Resource.__init__(self)
        self.web = web

    def render_GET(self, request: Any) -> Any:
        parts: List[Optional[str]] = [pathSegment(p)
                                      for p in request.postpath if p]
        if not parts:
            _ = pages.translatorFor(request)
            return pages.deferredPage(request, self.web.listData(),
                                      _("Tournaments"), listContent)
        eventId = _eventId(parts[0]) if len(parts) == 1 else None
        if eventId is None:
            return pages.notFound(request)
        auth = self.web.auth
        if auth is None:
            return _eventPage(request, self.web.eventData(eventId))
        d = auth.visitor(request)
        d.addCallback(lambda visitor: _eventPage(
            request, self.web.eventData(eventId), visitor,
            auth.csrfInput(request)))
        d.addErrback(lambda f: _eventPage(request, defer.fail(f)))
        return server.NOT_DONE_YET

    def render_POST(self, request: Any) -> Any:
        """
        C{/tournaments/ID/enter} and C{/tournaments/ID/withdraw}: the
        visitor's own account, with the CSRF token.
        """
        from hub.web.accountpages import (
            redirect, refusedForm, respond, show)
        parts = [pathSegment(p) for p in request.postpath if p]
        eventId = _eventId(parts[0]) if len(parts) == 2 else None
        auth = self.web.auth
        if (eventId is None or auth is None
                or parts[1] not in ("enter", "withdraw")):
            return pages.notFound(request)
        if not auth.csrfValid(request):
            return refusedForm(request)
        action = parts[1]
        page = "/tournaments/%d" % (eventId,)

        _ = pages.translatorFor(request)

        def refused(visitor: Any, text: Any) -> Any:
            # text: in the page's language (a text, or a refusal's parts:
            # pages.refusalText).
            if not isinstance(text, list):
                text = [text]
            return lambda request: show(
                request, visitor, N_("Refused"),
                tags.p(*text, " ", tags.a(_("Back"), href=page),
                       class_="message error"), 400)

        @defer.inlineCallbacks
        def work() -> Any:
            visitor = yield auth.visitor(request)
            if visitor is None:
                return lambda request: redirect(request,
                                                "/login?next=" + page)
            data = yield self.web.eventData(eventId)
            if data is None:
                return pages.notFound
            if action == "enter" and not entryOpen(data):
                return refused(visitor, _(
                    "Entry is closed: the event is {0}.").format(
                        _(data["state"])))
            try:
                if action == "enter":
                    yield self.web.database.runInteraction(
                        store.enter, eventId, visitor.name, time.time(),
                        write=True)
                else:
                    yield self.web.database.runInteraction(
                        store.withdraw, eventId, visitor.name, write=True)
            except store.TournamentError as e:
                return refused(visitor, pages.refusalText(e, _))
            return lambda request: redirect(request, page)

        return respond(request, work)


def _eventPage(request: Any, d: defer.Deferred, visitor: Any = None,
               csrf: Any = None) -> Any:
    def done(data: Optional[Dict[str, Any]]) -> Any:
        if data is None:
            return pages.notFound(request)
        _ = pages.translatorFor(request)
        if visitor is not None:
            from hub.web.accountpages import visitorLinks
            request.accountLinks = visitorLinks(visitor)
            request.setHeader(b"Cache-Control", b"no-store")
        return pages.render(request, pages.filled(
            _("Tournament: {0}"), pages.player(data["name"])),
            eventContent(data, visitor, csrf, _),
            scripts=["tournament.js"])

    def failed(failure: Any) -> None:
        pages.logFailure(request, failure)
        if not request.startedWriting:
            _ = pages.translatorFor(request)
            pages.render(request, _("Unavailable"),
                         tags.p(_("The events cannot be read now.")),
                         code=503)

    d.addCallbacks(done, failed)
    return server.NOT_DONE_YET
