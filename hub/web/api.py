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

import json

from twisted.internet import defer
from twisted.logger import Logger
from twisted.web import resource, server

from hub.web import replay
from hub.web.now import GAME_KINDS
from hub.web.stream import EventStream

RECORD_PAGE = 50
log = Logger()


def encodeJSON(data):
    """
    C{data} as JSON bytes, with C{<}, C{>} and C{&} escaped so that no
    browser ever reads markup in it.
    """
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=True)
    text = (text.replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("&", "\\u0026"))
    return text.encode("ascii")


def sendJSON(request, data, code=200):
    """
    Answer C{request} with C{data} as JSON.

    @return: the body, for a C{render_GET} to return.
    """
    request.setResponseCode(code)
    request.setHeader(b"Content-Type", b"application/json; charset=utf-8")
    request.setHeader(b"Cache-Control", b"no-cache")
    return encodeJSON(data)


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
        log.failure("web API request failed", failure)
        if not finished:
            request.write(sendJSON(request, {"error": "unavailable"}, 503))
            request.finish()

    finished = []
    request.notifyFinish().addErrback(lambda _: finished.append(True))
    d.addCallbacks(done, failed)
    return server.NOT_DONE_YET


class NotFound(resource.Resource):
    """
    A JSON 404.
    """

    isLeaf = True

    def render(self, request):
        return sendJSON(request, {"error": "not found"}, 404)


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
    """

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
        if self.records is None or not gameId.isdigit():
            return defer.succeed(None)
        d = self.records.game(int(gameId))
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
        d.addCallback(lambda standings: {
            "kind": kind,
            "minGames": self.records.leaderboardMinGames,
            "guests": self.records.leaderboardGuests,
            "standings": [_standing(s) for s in standings]})
        return d


def _standing(s):
    return {"rank": s.rank, "name": s.name, "rating": round(s.ordinal, 2),
            "mu": round(s.mu, 3), "sigma": round(s.sigma, 3),
            "games": s.games, "wins": s.wins}


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
            "players": [s.name for s in game.seats]})
    return {"kind": kind, "name": name,
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
    (its C{addStream} and C{removeStream}).
    """

    isLeaf = True

    def __init__(self, feed):
        resource.Resource.__init__(self)
        self.feed = feed

    def render_GET(self, request):
        stream = EventStream(request, onClose=self.feed.removeStream)
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
        games = [g.summary() for g in self.web.spectating.games.values()]
        return sendJSON(request, {"games": games})

    def getChild(self, name, request):
        gameId = name.decode("utf-8", "replace")
        if not gameId:
            return self
        rest = request.postpath
        if rest == [b"events"]:
            game = self.web.spectating.game(gameId)
            if game is None:
                return NotFound()
            request.postpath = []
            return StreamResource(game)
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
        parts = [p.decode("utf-8", "replace") for p in request.postpath]
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
        self.putChild(b"events", StreamResource(web.lobbyFeed))

    def render_GET(self, request):
        return sendJSON(request, self.web.lobbyFeed.now())

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
