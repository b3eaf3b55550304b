"""
The rooms of the other nodes of a cluster, as the browsers' lobby shows
them (L{hub.web.play}): read from the cluster's room directory
(L{hub.cluster.directory}), where every node publishes its rooms with
the summary of their kind (L{hub.ihub.IClusterRoomList}).

The directory is read at most once per C{maxAge} seconds, however many
browsers look at the lobby, and never waited for: a lobby message carries
the rooms as last read.
"""

from __future__ import annotations

from typing import Any, Optional

from twisted.logger import Logger
from twisted.internet.interfaces import IReactorTime

from hub.cluster.directory import bestEffort

#: The kinds whose rooms have names a browser can see and make.
KINDS = ("gomoku", "checkers")
#: Seconds a reading of the directory is used before the next.
MAX_AGE = 1.0


def remoteRoom(kind: str, entry: Any) -> Any:
    """
    The browsers' form of the directory C{entry} of a room of C{kind}
    (a gomoku room's wire C{Room} object, or a checkers room's summary),
    or None if it has no summary.
    """
    info = entry.get("info")
    if not isinstance(info, dict) or "name" not in info:
        return None
    room = {"name": info["name"], "node": entry.get("node"),
            "running": bool(entry.get("running"))}
    if kind == "gomoku":
        room["members"] = [name for name in (info.get("owner"),
                                             info.get("guest")) if name]
        room["capacity"] = 2
        room["locked"] = False
    else:
        room["members"] = list(info.get("members", ()))
        room["capacity"] = info.get("players") or info.get("capacity")
        room["locked"] = bool(info.get("locked"))
    return room


class RemoteRooms:
    """
    The rooms that the other nodes home, per kind.

    @param directory: the node's L{hub.cluster.directory.ClusterDirectory}
        (its C{node} and C{listRooms(kind)}).
    @param clock: the hub's clock.
    @ivar rooms: C{{kind: [room, ...]}} as last read.
    """

    log = Logger()

    def __init__(self, directory: Any, clock: IReactorTime,
                 maxAge: Any = MAX_AGE) -> None:
        self.directory = directory
        self.clock = clock
        self.maxAge = maxAge
        self.rooms: Any = {kind: [] for kind in KINDS}
        self._readAt: Optional[float] = None
        self._reading = False

    def current(self) -> Any:
        """
        The rooms as last read; read them again if that was more than
        C{maxAge} seconds ago (the next call sees the result).
        """
        now = self.clock.seconds()
        if not self._reading and (self._readAt is None
                                  or now - self._readAt >= self.maxAge):
            self.read()
        return self.rooms

    def read(self) -> None:
        """
        Read the rooms of every kind from the directory.
        """
        self._reading = True
        self._readAt = self.clock.seconds()
        pending = list(KINDS)

        def done(_: Any, kind: str) -> None:
            pending.remove(kind)
            if not pending:
                self._reading = False

        for kind in KINDS:
            d = self.directory.listRooms(kind)
            # The directory logs and counts its own failures: the rooms
            # stay as last read.  A failure of _read is a bug: logged.
            d.addCallbacks(self._read, bestEffort, callbackArgs=(kind,))
            d.addErrback(lambda f: self.log.failure(
                "reading the cluster's rooms", f))
            d.addBoth(done, kind)

    def _read(self, entries: Any, kind: str) -> None:
        node = self.directory.node
        rooms = []
        for entry in entries:
            if entry.get("node") == node:
                continue
            room = remoteRoom(kind, entry)
            if room is not None:
                rooms.append(room)
        self.rooms[kind] = rooms

    def homeOf(self, kind: str, name: str) -> Any:
        """
        The node homing the room C{name} of C{kind} as last read, if
        another node's.
        """
        for room in self.rooms.get(kind, ()):
            if room["name"] == name:
                return room["node"]
        return None
