"""
The hub now, for the lobby page: per game kind, the players online, the
rooms with their members, and the games running.  L{LobbyFeed} streams it
to the lobby pages, sending it again whenever it changed.

No password is ever shown: a room only says whether it has one.
"""

import json

from hub.web.stream import Fanout, sseFrame

GAME_KINDS = ("gomoku", "checkers", "splendor")
# Seconds between two looks at the lobby while lobby pages listen.
POLL_INTERVAL = 1.0
# Names listed per kind (the count is always exact).
MAX_NAMES = 200


def roomJSON(room, spectating):
    """
    One room: its name, members (name, ready flag, seat, bot), owner,
    capacity, whether it has a password, its state, and its live game.
    """
    game = spectating.gameOf(room.table) if room.table is not None else None
    seats = game.seats if game is not None else []
    bySeat = {s["index"]: s for s in seats}
    members = []
    for member in room.members:
        seat = bySeat.get(member.seat, {})
        members.append({"name": member.name or seat.get("name"),
                        "ready": bool(member.ready),
                        "seat": member.seat,
                        "bot": bool(seat.get("bot") or seat.get("takenOver"))})
    return {
        "name": room.name,
        "members": members,
        "owner": room.owner.name if room.owner is not None else None,
        "capacity": room.capacity,
        "locked": bool(room.password),
        "state": "playing" if room.running else "waiting",
        "game": game.id if game is not None else None,
        "botSeats": [s["index"] for s in seats
                     if s["bot"] or s["takenOver"]],
    }


def hubNow(lobby, sessions, spectating):
    """
    The hub now, as JSON.
    """
    online = {kind: [] for kind in GAME_KINDS}
    counts = dict.fromkeys(GAME_KINDS, 0)
    for session in sessions:
        counts[session.kind] = counts.get(session.kind, 0) + 1
        names = online.setdefault(session.kind, [])
        if session.name is not None and len(names) < MAX_NAMES:
            names.append(session.name)
    kinds = {}
    for kind in GAME_KINDS:
        games = [g.summary() for g in spectating.running()
                 if g.kind == kind]
        kinds[kind] = {
            "online": counts.get(kind, 0),
            "players": sorted(online.get(kind, [])),
            "rooms": [roomJSON(room, spectating)
                      for room in lobby.rooms(kind)],
            "games": games,
        }
    return {"kinds": kinds}


class LobbyFeed:
    """
    Streams L{hubNow} to the lobby pages: the whole of it on connection,
    then again whenever it changed (looked at every L{POLL_INTERVAL}
    seconds, only while some page listens).
    """

    def __init__(self, lobby, sessions, spectating, clock,
                 interval=POLL_INTERVAL):
        self.lobby = lobby
        self.sessions = sessions
        self.spectating = spectating
        self.clock = clock
        self.interval = interval
        self.fanout = Fanout(clock)
        self._last = None
        self._call = None
        self.stopped = False

    def now(self):
        """
        L{hubNow} of this hub.
        """
        return hubNow(self.lobby, self.sessions, self.spectating)

    def addStream(self, stream):
        """
        Send C{stream} the hub now, then every change.
        """
        stream.write(sseFrame("hub", self.now()))
        self.fanout.add(stream)
        if self._call is None and not self.stopped:
            self._last = json.dumps(self.now(), sort_keys=True)
            self._call = self.clock.callLater(self.interval, self._look)

    def removeStream(self, stream):
        """
        C{stream} is gone.
        """
        self.fanout.discard(stream)

    def _look(self):
        self._call = None
        if not len(self.fanout):
            return
        now = self.now()
        encoded = json.dumps(now, sort_keys=True)
        if encoded != self._last:
            self._last = encoded
            self.fanout.send(sseFrame("hub", now))
        self._call = self.clock.callLater(self.interval, self._look)

    def stop(self):
        """
        Stop looking.
        """
        self.stopped = True
        if self._call is not None and self._call.active():
            self._call.cancel()
        self._call = None
        self.fanout.stop()
