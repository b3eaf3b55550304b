"""
The JSON API (C{/api/...}) and the event streams:

    GET /api/hub                      the hub now (L{hub.web.now.hubNow})
    GET /api/hub/events               the hub now, streamed on change (SSE)
    GET /api/games                    the games running and just finished
    GET /api/games/ID                 one game: live snapshot or record,
                                      a finished game's with its replay
                                      (L{hub.web.replays})
    GET /api/games/ID/events          one live game, streamed (SSE)
    GET /api/players/KIND/NAME        a player's rating and recent games
    GET /api/leaderboard/KIND         the leaderboard of a game kind
"""

from __future__ import annotations

from typing import Any, Sequence, Union

from twisted.internet import defer
from twisted.logger import Logger
from twisted.web import http, resource, server
from twisted.internet.defer import Deferred
from twisted.python.failure import Failure
from twisted.web.server import Request

from hub.web import replay
from hub.web.replays import Document, Replays
from hub.web.errors import (
    errorsOf, pathSegment, recordId, refuse, wellFormedGameId)
from hub.web.now import GAME_KINDS, listedGame
from hub.web.stream import EventStream
from hub.web.stream import encodeJSON as encodeJSONText

RECORD_PAGE = 50
TOO_MANY_REQUESTS = 429
#: Bytes of a game's document that weigh as much as one request on the
#: address's request rate (L{hub.limits.FaceGate.charge}): a 1.3 MB
#: replay costs 21 requests.
CHARGE_BYTES = 64 * 1024
#: Steps of a replay built for a request that weigh as much as one
#: request more (about 10 ms of CPU): the request that makes a 3,000-move
#: replay's document costs 30 more, the next ones only their bytes.
CHARGE_STEPS = 100
# Seconds a client refused a stream for its address's cap is told to wait.
STREAM_RETRY = 10
log = Logger()


def encodeJSON(data: Any) -> Any:
    """
    C{data} as JSON bytes, with C{<}, C{>} and C{&} escaped so that no
    browser ever reads markup in it (the encoding of the event streams
    too: L{hub.web.stream.encodeJSON}).
    """
    return encodeJSONText(data).encode("ascii")


def sendJSON(request: Request, data: Any, code: int = 200) -> Any:
    """
    Answer C{request} with C{data} as JSON.

    @return: the body, for a C{render_GET} to return.
    """
    return sendEncoded(request, encodeJSON(data), code)


def sendEncoded(request: Request, body: Any, code: int = 200) -> Any:
    """
    Answer C{request} with C{body}, JSON bytes made by L{encodeJSON}.

    @return: the body, for a C{render_GET} to return.
    """
    request.setResponseCode(code)
    request.setHeader(b"Content-Type", b"application/json; charset=utf-8")
    request.setHeader(b"Cache-Control", b"no-cache")
    return body


def sendTooMany(request: Request, error: Any, retryAfter: Any) -> Any:
    """
    Answer C{request} 429 (Too Many Requests) with C{{"error": error}},
    asking the client to wait C{retryAfter} whole seconds.

    @return: the body, for a C{render} to return.
    """
    request.setHeader(b"Retry-After", b"%d" % (retryAfter,))
    body = sendJSON(request, {"error": error}, TOO_MANY_REQUESTS)
    request.setResponseCode(TOO_MANY_REQUESTS, b"Too Many Requests")
    return body


def deferJSON(request: Request, d: Deferred[Any]) -> int:
    """
    Answer C{request} with the JSON a Deferred fires with (None: 404;
    bytes: a body whose headers are set).
    """
    def done(data: Any) -> None:
        if data is None:
            body = sendJSON(request, {"error": "not found"}, 404)
        elif isinstance(data, bytes):
            # Sent as they are, with their headers set.
            body = data
        else:
            body = sendJSON(request, data)
        if not finished:
            request.write(body)
            request.finish()

    def failed(failure: Failure) -> None:
        # The query failed, or making its answer did.
        errors = errorsOf(request)
        if errors is not None:
            errors.failed(request, failure)
        else:
            log.failure("web API request failed", failure)
        if not (finished or request.startedWriting):
            request.write(sendJSON(request, {"error": "unavailable"}, 503))
            request.finish()

    finished = []
    request.notifyFinish().addErrback(lambda _: finished.append(True))
    d.addCallback(done)
    d.addErrback(failed)
    return server.NOT_DONE_YET


class NotFound(resource.Resource):
    """
    A JSON 404.
    """

    isLeaf = True

    def render(self, request: Request) -> Union[bytes, int]:
        return sendJSON(request, {"error": "not found"}, 404)


class Malformed(NotFound):
    """
    A JSON 404 for a malformed path, logged summarised (L{hub.web.errors.
    WebErrors}).
    """

    def __init__(self, why: str) -> None:
        NotFound.__init__(self)
        self.why = why

    def render(self, request: Request) -> Union[bytes, int]:
        return refuse(request, self.why, NotFound())


def recordJSON(record: Any, withReplay: bool = True,
               displays: Any = None) -> Any:
    """
    A stored game (L{hub.records.record.GameRecord}) as JSON, with its
    replay (the view before the first action and after each) unless not
    asked for.

    @param displays: C{{name: display name}} of its accounts' seats.
    """
    displays = displays or {}
    data = {
        "id": str(record.gameId), "kind": record.kind, "live": False,
        "table": record.table, "startedAt": record.startedAt,
        "endedAt": record.endedAt,
        "seats": [{"index": s.seat, "name": s.name, "bot": s.botClient,
                   "role": _role(record.kind, s.seat, s.role),
                   "takenOver": s.takeoverPly is not None,
                   "place": s.place, "guest": s.guest,
                   "display": None if s.guest else displays.get(s.name)}
                  for s in record.seats],
        "result": {"reason": record.reason, "winner": record.winner,
                   "ranking": list(record.ranking),
                   "winnerName": (record.seats[record.winner].name
                                  if record.winner is not None else None)},
        "rated": record.rated,
    }
    if withReplay:
        tableEvents = record.tableEvents()
        game = replay.restore(record.kind, record.position)
        steps, moves = replay.replaySteps(record.kind, game,
                                          tableEvents[1:])
        data["replay"] = {"steps": steps, "moves": moves}
        data["moves"] = moves
        data["view"] = steps[-1]
    return data


def _role(kind: str, seat: Any, role: str) -> Any:
    from hub.web.views import roleText
    return roleText(kind, seat, role)


def displaysOf(displays: Any, names: Any) -> Deferred[Any]:
    """
    A Deferred of C{{name: display name}} of those of C{names} whose
    account has one, read from C{displays}
    (L{hub.accounts.displays.DisplayNames}; nothing for None, a web face
    without accounts, or if they cannot be read now: the names are shown
    alone).
    """
    if displays is None:
        return defer.succeed({})
    d: Deferred[Any] = displays.lookup(names)

    def failed(failure: Failure) -> Any:
        log.warn("display names not shown: {error}",
                 error=failure.getErrorMessage())
        return {}
    return d.addErrback(failed)


class Web:
    """
    What the web face reads: the lobby and sessions, the spectators' feed,
    the lobby feed and (optionally) the records' query API.

    @ivar gate: the web port's L{hub.limits.FaceGate} (its event streams
        per address), or None.
    @ivar accountLinks: the header's links to the accounts' pages on the
        shared pages (the lobby), or none without accounts.
    """

    def __init__(self, lobby: Any, sessions: Any, spectating: Any,
                 lobbyFeed: Any, records: Any = None, replays: Any = None,
                 displays: Any = None, abouts: Any = None, gate: Any = None,
                 accountLinks: Sequence[Any] = ()) -> None:
        self.gate = gate
        self.accountLinks = accountLinks
        #: The accounts' display names
        #: (L{hub.accounts.displays.DisplayNames}) of a web face with
        #: accounts, or None.
        self.displays = displays
        #: C{latestAbout(kind, name)}: a Deferred of C{(event, pairs)},
        #: what an engine's brain last answered to C{ABOUT}, or None
        #: (L{hub.web.tournaments.TournamentsWeb.latestAbout}); None for
        #: a web face without events.
        self.abouts = abouts
        self.lobby = lobby
        self.sessions = sessions
        self.spectating = spectating
        self.lobbyFeed = lobbyFeed
        self.records = records
        if replays is None:
            replays = Replays(spectating.clock)
        self.replays = replays

    def gameHead(self, gameId: str) -> Any:
        """
        A Deferred of what a game's page needs of C{gameId}: its kind,
        seats and whether it is live (a live game's snapshot, or a stored
        game's record without its replay); None if unknown.
        """
        game = self.spectating.game(gameId)
        if game is not None:
            return defer.succeed({
                "id": game.id, "kind": game.kind, "live": not game.over,
                "table": game.tableName, "seats": game.seats})
        d = self._record(gameId)
        d.addCallback(self._withDisplays)
        d.addCallback(lambda found: recordJSON(found[0], False, found[1])
                      if found is not None else None)
        return d

    def displaysOf(self, names: Any) -> Deferred[Any]:
        """
        L{displaysOf} of this web face's display names.
        """
        return displaysOf(self.displays, names)

    def _withDisplays(self, record: Any) -> Any:
        # (record, its seats' display names), or None.
        if record is None:
            return None
        d = self.displaysOf([s.name for s in record.seats if not s.guest])
        return d.addCallback(lambda found: (record, found))

    def gameDocument(self, gameId: str) -> Any:
        """
        A Deferred of the L{Document} of game C{gameId}, or None if
        unknown: a live game's snapshot, spliced from its move texts; a
        finished game's, with its replay, built once and cached
        (L{Replays}).
        """
        game = self.spectating.game(gameId)
        if game is not None:
            if game.over:
                return self.replays.finishedDocument(game)
            return defer.succeed(Document(
                game.snapshotText().encode("ascii"), None, b"no-cache"))
        d = self._record(gameId)
        d.addCallback(self._withDisplays)
        d.addCallback(lambda found: self.replays.recordDocument(
            found[0], recordJSON(found[0], False, found[1]),
            tuple(sorted(found[1].items())))
            if found is not None else None)
        return d

    def _record(self, gameId: str) -> Any:
        number = recordId(gameId)
        if self.records is None or number is None:
            return defer.succeed(None)
        return self.records.game(number)

    def playerData(self, kind: str, name: str) -> Any:
        """
        A Deferred of a player's rating and recent games, or None.
        """
        if self.records is None or kind not in GAME_KINDS:
            return defer.succeed(None)
        d = defer.gatherResults([
            self.records.rating(kind, name),
            self.records.history(kind, name, RECORD_PAGE),
            defer.succeed(None) if self.abouts is None
            else self.abouts(kind, name)],
            consumeErrors=True)

        def withDisplays(results: Any) -> Deferred[Any]:
            rating, history, about = results
            shown = {name} if not (rating is not None and rating.guest) \
                else set()
            for entry in history:
                shown.update(s.name for s in entry.game.seats
                             if not s.guest)
            return self.displaysOf(sorted(shown)).addCallback(
                lambda found: _player(kind, name, rating, history, found,
                                      about))
        d.addCallback(withDisplays)
        return d

    def leaderboardData(self, kind: str) -> Deferred[Any]:
        """
        A Deferred of the leaderboard of C{kind}, or None.
        """
        if self.records is None or kind not in GAME_KINDS:
            return defer.succeed(None)
        d = self.records.leaderboard(kind)

        def data(standings: Any, emptyReason: Any = None,
                 found: Any = None) -> Any:
            return {"kind": kind,
                    "minGames": self.records.leaderboardMinGames,
                    "guests": self.records.leaderboardGuests,
                    "standings": [_standing(s, found) for s in standings],
                    "emptyReason": emptyReason}

        def explained(standings: Any) -> Deferred[Any]:
            if standings:
                d = self.displaysOf([s.name for s in standings
                                     if not s.guest])
                return d.addCallback(lambda found: data(standings,
                                                        found=found))
            return self.records.whyEmpty(kind).addCallback(
                lambda reason: data(standings, reason))
        return d.addCallback(explained)


def _standing(s: Any, displays: Any = None) -> Any:
    return {"rank": s.rank, "name": s.name,
            "display": None if s.guest else (displays or {}).get(s.name),
            "rating": round(s.ordinal, 2),
            "mu": round(s.mu, 3), "sigma": round(s.sigma, 3),
            "games": s.games, "wins": s.wins, "guest": s.guest}


def _player(kind: str, name: str, rating: Any, history: Any,
            displays: Any = None, about: Any = None) -> Any:
    # displays: {name: display name} of the accounts among them; about:
    # (event, pairs) of an engine's latest ABOUT, or None.
    displays = displays or {}
    if rating is None and not history:
        return None
    games = []
    for entry in history:
        game = entry.game
        games.append({
            "id": str(game.gameId), "url": "/games/%d" % (game.gameId,),
            "table": game.table, "endedAt": game.endedAt,
            "reason": game.reason, "seat": entry.seat,
            "place": entry.mine.place,
            "won": game.winner == entry.seat,
            "players": [s.name for s in game.seats],
            "guests": [bool(s.guest) for s in game.seats],
            "displays": [None if s.guest else displays.get(s.name)
                         for s in game.seats]})
    if rating is not None:
        guest = rating.guest
    else:
        guest = bool(history) and bool(history[0].mine.guest)
    return {"kind": kind, "name": name, "guest": guest,
            "display": None if guest else displays.get(name),
            "rating": (_standing(rating, displays) if rating is not None
                       else None),
            "games": rating.games if rating is not None else len(games),
            "wins": rating.wins if rating is not None else sum(
                1 for g in games if g["won"]),
            "recent": games,
            "about": about[1] if about is not None else None,
            "aboutEvent": about[0] if about is not None else None}


class JSONResource(resource.Resource):
    """
    A leaf answering GET with C{fetch()}'s JSON (a value or a Deferred).
    """

    isLeaf = True

    def __init__(self, fetch: Any) -> None:
        resource.Resource.__init__(self)
        self.fetch = fetch

    def render_GET(self, request: Request) -> Union[bytes, int]:
        data = self.fetch()
        if isinstance(data, defer.Deferred):
            return deferJSON(request, data)
        if data is None:
            return sendJSON(request, {"error": "not found"}, 404)
        return sendJSON(request, data)


class StreamResource(resource.Resource):
    """
    A leaf answering GET with a Server-Sent Events stream fed by C{feed}
    (its C{addStream} and C{removeStream}); 429 when the client's address
    has as many streams open as C{gate} allows (its C{openStream}).
    """

    isLeaf = True

    def __init__(self, feed: Any, gate: Any = None) -> None:
        resource.Resource.__init__(self)
        self.feed = feed
        self.gate = gate

    def render_GET(self, request: Request) -> Union[bytes, int]:
        if request.postpath:
            return NotFound().render(request)
        gate, onClose = self.gate, self.feed.removeStream
        if gate is not None:
            host = getattr(request.getClientAddress(), "host", None)
            if not gate.openStream(host):
                return sendTooMany(request, "too many streams",
                                   STREAM_RETRY)

            def onClose(stream: Any, removeStream: Any = onClose) -> None:
                gate.closeStream(host)
                removeStream(stream)
        stream = EventStream(request, onClose=onClose)
        stream.start()
        self.feed.addStream(stream)
        return server.NOT_DONE_YET


class GamesAPI(resource.Resource):
    """
    C{/api/games}, C{/api/games/ID} and C{/api/games/ID/events}.
    """

    def __init__(self, web: Any) -> None:
        resource.Resource.__init__(self)
        self.web = web

    def render_GET(self, request: Request) -> Union[bytes, int]:
        games = [listedGame(g.summary())
                 for g in self.web.spectating.games.values()]
        return sendJSON(request, {"games": games})

    def getChild(self, name: bytes, request: Request) -> resource.IResource:
        if not name:
            return self
        gameId = pathSegment(name)
        if gameId is None or not wellFormedGameId(gameId):
            return Malformed("no such game id")
        rest = request.postpath
        if rest == [b"events"]:
            game = self.web.spectating.game(gameId)
            if game is None:
                return NotFound()
            request.postpath = []
            return StreamResource(game, self.web.gate)
        if rest:
            return NotFound()
        return GameResource(self.web, gameId)


class GameResource(resource.Resource):
    """
    C{/api/games/ID}: the game's L{Document}, with its C{ETag} (a
    C{If-None-Match} that names it is answered 304, without a body) and
    its C{Cache-Control}; its bytes weigh on the address's request rate
    (L{CHARGE_BYTES} a request), and the steps of a replay built for it
    (L{CHARGE_STEPS} a request).
    """

    isLeaf = True

    def __init__(self, web: Any, gameId: str) -> None:
        resource.Resource.__init__(self)
        self.web = web
        self.gameId = gameId

    def render_GET(self, request: Request) -> Union[bytes, int]:
        d = self.web.gameDocument(self.gameId)
        d.addCallback(self._send, request)
        return deferJSON(request, d)

    def _send(self, document: Any, request: Request) -> Any:
        if document is None:
            if self.web.spectating.forgotten(self.gameId):
                # A finished live game pushed out of the feed.
                return sendJSON(request, {"error": "gone"}, 410)
            return None
        request.setHeader(b"Content-Type",
                          b"application/json; charset=utf-8")
        request.setHeader(b"Cache-Control", document.cacheControl)
        etag = document.etag
        gzipped = document.gzipped and acceptsGzip(request)
        if document.gzipped:
            request.setHeader(b"Vary", b"Accept-Encoding")
        if gzipped:
            request.setHeader(b"Content-Encoding", b"gzip")
            etag = gzipTag(etag)
        if etag is not None:
            request.setHeader(b"ETag", etag)
            if request.setETag(etag) is http.CACHED:
                return b""
        gate = self.web.gate
        if gate is not None:
            gate.charge(getattr(request.getClientAddress(), "host", None),
                        document.bodyLength // CHARGE_BYTES
                        + document.built // CHARGE_STEPS)
        if gzipped:
            return document.data
        return self.web.replays.inflate(document)


def acceptsGzip(request: Request) -> bool:
    """
    Whether C{request}'s C{Accept-Encoding} takes gzip (named, with no
    C{q=0}).
    """
    for header in request.requestHeaders.getRawHeaders(
            b"accept-encoding", ()):
        for coding in header.split(b","):
            name, _, parameters = coding.partition(b";")
            if name.strip().lower() not in (b"gzip", b"x-gzip"):
                continue
            quality = parameters.strip().lower()
            if not quality.startswith(b"q=") or quality[2:].strip(
                    ).rstrip(b"0").rstrip(b".") not in (b"", b"0"):
                return True
    return False


def gzipTag(etag: bytes) -> bytes:
    """
    The strong ETag of a body's gzip form, from the body's: another
    representation, so another tag.
    """
    return etag[:-1] + b'-gzip"'


class PathAPI(resource.Resource):
    """
    A leaf taking C{arity} path segments and answering with
    C{fetch(*segments)}'s JSON.
    """

    isLeaf = True

    def __init__(self, arity: Any, fetch: Any) -> None:
        resource.Resource.__init__(self)
        self.arity = arity
        self.fetch = fetch

    def render_GET(self, request: Any) -> Union[bytes, int]:
        parts = [pathSegment(p) for p in request.postpath]
        if None in parts:
            return refuse(request, "a malformed path segment", NotFound())
        if len(parts) != self.arity or not all(parts):
            return sendJSON(request, {"error": "not found"}, 404)
        return JSONResource(lambda: self.fetch(*parts)).render_GET(request)


class HubAPI(resource.Resource):
    """
    C{/api/hub} and C{/api/hub/events}.
    """

    def __init__(self, web: Any) -> None:
        resource.Resource.__init__(self)
        self.web = web
        self.putChild(b"events", StreamResource(
            web.lobbyFeed, web.gate))

    def render_GET(self, request: Request) -> Union[bytes, int]:
        # The document is built at most once per look of the lobby feed,
        # and encoded once for every request until the next.
        return sendEncoded(request, self.web.lobbyFeed.encoded(encodeJSON))

    def getChild(self, name: bytes, request: Request) -> resource.IResource:
        if not name:
            return self
        return NotFound()


def apiResource(web: Any) -> Any:
    """
    The C{/api} tree.
    """
    root = resource.Resource()
    root.putChild(b"hub", HubAPI(web))
    root.putChild(b"games", GamesAPI(web))
    root.putChild(b"players", PathAPI(2, web.playerData))
    root.putChild(b"leaderboard", PathAPI(1, web.leaderboardData))
    return root
