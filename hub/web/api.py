"""
The JSON API (C{/api/...}) and the event streams:

    GET /api/hub                      the hub now (L{hub.web.now.hubNow})
    GET /api/hub/events               the hub now, streamed on change (SSE)
    GET /api/games                    the games running and just finished
    GET /api/games/ID                 one game: live snapshot or record
    GET /api/games/ID/events          one live game, streamed (SSE)
    GET /api/players/KIND/NAME        a player's rating and recent games
    GET /api/leaderboard/KIND         the leaderboard of a game kind
"""

from twisted.internet import defer
from twisted.logger import Logger
from twisted.web import resource, server

from hub.web import replay
from hub.web.errors import (
    errorsOf, pathSegment, recordId, refuse, wellFormedGameId)
from hub.web.now import GAME_KINDS, listedGame
from hub.web.stream import EventStream
from hub.web.stream import encodeJSON as encodeJSONText

RECORD_PAGE = 50
TOO_MANY_REQUESTS = 429
# Seconds a client refused a stream for its address's cap is told to wait.
STREAM_RETRY = 10
log = Logger()


def encodeJSON(data):
    """
    C{data} as JSON bytes, with C{<}, C{>} and C{&} escaped so that no
    browser ever reads markup in it (the encoding of the event streams
    too: L{hub.web.stream.encodeJSON}).
    """
    return encodeJSONText(data).encode("ascii")


def sendJSON(request, data, code=200):
    """
    Answer C{request} with C{data} as JSON.

    @return: the body, for a C{render_GET} to return.
    """
    return sendEncoded(request, encodeJSON(data), code)


def sendEncoded(request, body, code=200):
    """
    Answer C{request} with C{body}, JSON bytes made by L{encodeJSON}.

    @return: the body, for a C{render_GET} to return.
    """
    request.setResponseCode(code)
    request.setHeader(b"Content-Type", b"application/json; charset=utf-8")
    request.setHeader(b"Cache-Control", b"no-cache")
    return body


def sendTooMany(request, error, retryAfter):
    """
    Answer C{request} 429 (Too Many Requests) with C{{"error": error}},
    asking the client to wait C{retryAfter} whole seconds.

    @return: the body, for a C{render} to return.
    """
    request.setHeader(b"Retry-After", b"%d" % (retryAfter,))
    body = sendJSON(request, {"error": error}, TOO_MANY_REQUESTS)
    request.setResponseCode(TOO_MANY_REQUESTS, b"Too Many Requests")
    return body


def deferJSON(request, d):
    """
    Answer C{request} with the JSON a Deferred fires with (None: 404).
    """
    def done(data):
        if data is None:
            body = sendJSON(request, {"error": "not found"}, 404)
        else:
            body = sendJSON(request, data)
        if not finished:
            request.write(body)
            request.finish()

    def failed(failure):
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

    def render(self, request):
        return sendJSON(request, {"error": "not found"}, 404)


class Malformed(NotFound):
    """
    A JSON 404 for a malformed path, logged summarised (L{hub.web.errors.
    WebErrors}).
    """

    def __init__(self, why):
        NotFound.__init__(self)
        self.why = why

    def render(self, request):
        return refuse(request, self.why, NotFound())


def recordJSON(record, withReplay=True):
    """
    A stored game (L{hub.records.record.GameRecord}) as JSON, with its
    replay (the view before the first action and after each) unless not
    asked for.
    """
    data = {
        "id": str(record.gameId), "kind": record.kind, "live": False,
        "table": record.table, "startedAt": record.startedAt,
        "endedAt": record.endedAt,
        "seats": [{"index": s.seat, "name": s.name, "bot": s.botClient,
                   "role": _role(record.kind, s.seat, s.role),
                   "takenOver": s.takeoverPly is not None,
                   "place": s.place, "guest": s.guest}
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


def _role(kind, seat, role):
    from hub.web.views import roleText
    return roleText(kind, seat, role)


class Web:
    """
    What the web face reads: the lobby and sessions, the spectators' feed,
    the lobby feed and (optionally) the records' query API.

    @ivar gate: the web port's L{hub.limits.FaceGate} (its event streams
        per address), or None.
    """

    gate = None

    def __init__(self, lobby, sessions, spectating, lobbyFeed, records=None):
        self.lobby = lobby
        self.sessions = sessions
        self.spectating = spectating
        self.lobbyFeed = lobbyFeed
        self.records = records

    def gameData(self, gameId):
        """
        A Deferred of the JSON of game C{gameId}: a live game's snapshot
        (with its replay once over), or a stored game; None if unknown.
        """
        game = self.spectating.game(gameId)
        if game is not None:
            data = game.snapshot()
            if game.over:
                data["replay"] = game.replay()
            return defer.succeed(data)
        number = recordId(gameId)
        if self.records is None or number is None:
            return defer.succeed(None)
        d = self.records.game(number)
        d.addCallback(lambda r: recordJSON(r) if r is not None else None)
        return d

    def playerData(self, kind, name):
        """
        A Deferred of a player's rating and recent games, or None.
        """
        if self.records is None or kind not in GAME_KINDS:
            return defer.succeed(None)
        d = defer.gatherResults([
            self.records.rating(kind, name),
            self.records.history(kind, name, RECORD_PAGE)],
            consumeErrors=True)
        d.addCallback(lambda results: _player(kind, name, *results))
        return d

    def leaderboardData(self, kind):
        """
        A Deferred of the leaderboard of C{kind}, or None.
        """
        if self.records is None or kind not in GAME_KINDS:
            return defer.succeed(None)
        d = self.records.leaderboard(kind)

        def data(standings, emptyReason=None):
            return {"kind": kind,
                    "minGames": self.records.leaderboardMinGames,
                    "guests": self.records.leaderboardGuests,
                    "standings": [_standing(s) for s in standings],
                    "emptyReason": emptyReason}

        def explained(standings):
            if standings:
                return data(standings)
            return self.records.whyEmpty(kind).addCallback(
                lambda reason: data(standings, reason))
        return d.addCallback(explained)


def _standing(s):
    return {"rank": s.rank, "name": s.name, "rating": round(s.ordinal, 2),
            "mu": round(s.mu, 3), "sigma": round(s.sigma, 3),
            "games": s.games, "wins": s.wins, "guest": s.guest}


def _player(kind, name, rating, history):
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
            "guests": [bool(s.guest) for s in game.seats]})
    if rating is not None:
        guest = rating.guest
    else:
        guest = bool(history) and bool(history[0].mine.guest)
    return {"kind": kind, "name": name, "guest": guest,
            "rating": _standing(rating) if rating is not None else None,
            "games": rating.games if rating is not None else len(games),
            "wins": rating.wins if rating is not None else sum(
                1 for g in games if g["won"]),
            "recent": games}


class JSONResource(resource.Resource):
    """
    A leaf answering GET with C{fetch()}'s JSON (a value or a Deferred).
    """

    isLeaf = True

    def __init__(self, fetch):
        resource.Resource.__init__(self)
        self.fetch = fetch

    def render_GET(self, request):
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

    def __init__(self, feed, gate=None):
        resource.Resource.__init__(self)
        self.feed = feed
        self.gate = gate

    def render_GET(self, request):
        if request.postpath:
            return NotFound().render(request)
        gate, onClose = self.gate, self.feed.removeStream
        if gate is not None:
            host = getattr(request.getClientAddress(), "host", None)
            if not gate.openStream(host):
                return sendTooMany(request, "too many streams",
                                   STREAM_RETRY)

            def onClose(stream, removeStream=onClose):
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

    def __init__(self, web):
        resource.Resource.__init__(self)
        self.web = web

    def render_GET(self, request):
        games = [listedGame(g.summary())
                 for g in self.web.spectating.games.values()]
        return sendJSON(request, {"games": games})

    def getChild(self, name, request):
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
        return JSONResource(lambda: self.web.gameData(gameId))


class PathAPI(resource.Resource):
    """
    A leaf taking C{arity} path segments and answering with
    C{fetch(*segments)}'s JSON.
    """

    isLeaf = True

    def __init__(self, arity, fetch):
        resource.Resource.__init__(self)
        self.arity = arity
        self.fetch = fetch

    def render_GET(self, request):
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

    def __init__(self, web):
        resource.Resource.__init__(self)
        self.web = web
        self.putChild(b"events", StreamResource(
            web.lobbyFeed, web.gate))

    def render_GET(self, request):
        # The document is built at most once per look of the lobby feed,
        # and encoded once for every request until the next.
        return sendEncoded(request, self.web.lobbyFeed.encoded(encodeJSON))

    def getChild(self, name, request):
        if not name:
            return self
        return NotFound()


def apiResource(web):
    """
    The C{/api} tree.
    """
    root = resource.Resource()
    root.putChild(b"hub", HubAPI(web))
    root.putChild(b"games", GamesAPI(web))
    root.putChild(b"players", PathAPI(2, web.playerData))
    root.putChild(b"leaderboard", PathAPI(1, web.leaderboardData))
    return root
