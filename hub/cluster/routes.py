"""
Which requests of each protocol need the cluster, and what the cluster
answers: one route class per game kind, one route per connection (see
L{hub.cluster.gate}).

A route's C{watching()} says whether the connection may send such a
request now; C{cut(pending)} returns C{(length, message)} for the first
whole message of the received bytes (None while incomplete);
C{decide(message)} returns None, or a L{Deferred} of a
L{hub.cluster.gate.Decision}; C{handingOver(message)} runs just before
the connection moves to another node; C{unreachable(message)} answers a
request whose home node cannot be reached.
"""

from typing import Any, Dict, List, Optional, Tuple, Type

from twisted.internet.defer import Deferred
from twisted.logger import Logger
from twisted.python.failure import Failure

from hub.cluster.gate import Decision, passOn, replied, forward
from hub.ihub import IClusterPeer
from hub.tables import gomoku as gomokuTables
from hub.tables import splendor as splendorTables
from hub.wire import checkers as checkersWire
from hub.wire import gomoku as gomokuWire
from hub.wire import splendor as splendorWire

log = Logger()

#: What a route's C{decide} returns.
Decided = Optional[Deferred[Decision]]


class Route:
    """
    The parts every route shares.
    """

    kind: Optional[str] = None

    def __init__(self, cluster: Any, factory: Any, protocol: Any) -> None:
        self.cluster = cluster
        self.directory = cluster.directory
        self.factory = factory
        self.protocol = protocol
        self.peer = IClusterPeer(protocol)

    @property
    def node(self) -> str:
        return self.directory.node

    def watching(self) -> bool:
        """
        Whether the connection's next request may need the cluster (see
        L{IClusterPeer.routable}).
        """
        return self.peer.routable()

    def reset(self) -> None:
        """
        The gate stopped cutting messages (the bytes go to the adapter
        as they come).
        """

    def handingOver(self, message: Any) -> None:
        pass

    def unreachable(self, message: Any) -> Decision:
        return passOn()

    def preface(self, **more: Any) -> Dict[str, Any]:
        """
        The preface of a link: the kind, then what the home node needs.
        """
        return dict(more, kind=self.kind)


class CheckersRoute(Route):
    """
    A checkers JOIN of a room homed on another node is forwarded there; a
    JOIN of a new room reserves its name for this node first.
    """

    kind = "checkers"

    def cut(self, pending: bytes) -> Optional[Tuple[int, Any]]:
        end = pending.find(checkersWire.DELIMITER)
        if end < 0:
            if len(pending) > checkersWire.MAX_LINE_LENGTH:
                return len(pending), None
            return None
        try:
            message = checkersWire.decode(pending[:end])
        except Exception:
            message = None
        return end + 1, message

    def decide(self, message: Any) -> Decided:
        if message is None or message.op != checkersWire.JOIN_ROOM_OP:
            return None
        roomId = message.data1
        lobby = self.factory.lobby
        if not roomId or lobby.room(self.kind, roomId) is not None:
            return None
        d = self.directory.claimRoom(self.kind, roomId)

        def claimed(owner: str) -> Decision:
            if owner == self.node:
                return passOn(lambda: self._unused(roomId))
            return forward(owner, self.preface())

        def failed(failure: Failure) -> Decision:
            log.debug("checkers room {room!r} not claimed: {error}",
                      room=roomId, error=failure.getErrorMessage())
            self.protocol.sendError(checkersWire.OTHER_ERROR,
                                    "the room directory is unavailable")
            return replied()
        return d.addCallbacks(claimed, failed)

    def _unused(self, roomId: Any) -> None:
        if self.factory.lobby.room(self.kind, roomId) is None:
            self.directory.releaseRoom(self.kind, roomId)

    def unreachable(self, message: Any) -> Decision:
        self.protocol.sendError(checkersWire.OTHER_ERROR,
                                "the room's node is unreachable")
        return replied()


class SplendorRoute(Route):
    """
    A Splendor INIT takes a seat at the cluster's newest open table; one
    homed on another node means the connection is forwarded there.
    """

    kind = splendorTables.KIND

    def cut(self, pending: bytes) -> Optional[Tuple[int, Any]]:
        header = splendorWire.HEADER_LENGTH
        if len(pending) < header:
            return None
        _, _, length, _ = splendorWire.HEADER.unpack_from(pending)
        if length < header or length > splendorWire.MAX_FRAME_LENGTH:
            return len(pending), None
        if len(pending) < length:
            return None
        apiId = splendorWire.HEADER.unpack_from(pending)[0]
        return length, apiId

    def decide(self, apiId: Any) -> Decided:
        if apiId != splendorWire.INIT:
            return None
        d = self.directory.seat(self.kind, splendorTables.CAPACITY)

        def seated(found: Optional[Tuple[str, str]]) -> Decision:
            if found is None:
                return passOn()
            name, owner = found
            if owner == self.node:
                self.protocol.preferredTable = name
                return passOn()
            return forward(owner, self.preface(table=name))
        # Without the directory the player is seated here.
        return d.addCallbacks(seated, lambda f: passOn())


class GomokuRoute(Route):
    """
    Gomoku names are held cluster-wide; the room list is the cluster's; a
    join of a room homed elsewhere, or a msg_reg resuming a session held
    elsewhere, is forwarded there.
    """

    kind = gomokuTables.KIND

    def __init__(self, cluster: Any, factory: Any, protocol: Any) -> None:
        Route.__init__(self, cluster, factory, protocol)
        self.reset()

    def reset(self) -> None:
        self.scanner = gomokuWire.FrameScanner()
        self.scanned = 0

    def cut(self, pending: bytes) -> Optional[Tuple[int, Any]]:
        while True:
            end = pending.find(b">", self.scanned)
            if end < 0:
                if len(pending) - self.scanned > self.scanner.maxFrame:
                    self.reset()
                    return len(pending), None
                return None
            try:
                frames = self.scanner.feed(pending[self.scanned:end + 1])
            except gomokuWire.FrameTooLong:
                self.reset()
                return len(pending), None
            self.scanned = end + 1
            if frames:
                length, self.scanned = self.scanned, 0
                try:
                    return length, gomokuWire.decodeMessage(frames[0])
                except gomokuWire.InvalidMessage:
                    return length, None

    def reply(self, message: Dict[str, Any],
              reply: Dict[str, Any]) -> Decision:
        """
        Answer C{message} as the adapter would: stamped with the token
        and the request's session.
        """
        self.protocol.echo = message["session"]
        self.protocol.send(reply)
        return replied()

    def result(self, message: Dict[str, Any], status: int) -> Decision:
        return self.reply(message, gomokuWire.resultMessage(status, None,
                                                            None))

    def decide(self, message: Optional[Dict[str, Any]]) -> Decided:
        if message is None:
            return None
        kind = message["msg_type"]
        if not self.peer.registered():
            if kind == gomokuWire.MSG_REG:
                return self.register(message)
            return None
        if kind == gomokuWire.MSG_REQUEST and message.get("target") == \
                gomokuWire.REQ_ROOM_LIST:
            return self.listRooms(message)
        if kind == gomokuWire.MSG_ROOM:
            try:
                fields = gomokuWire.roomField(message)
            except gomokuWire.InvalidMessage:
                return None
            if message.get("type") == gomokuWire.RO_ROOM_CREATE:
                return self.createRoom(message, fields["name"])
            if message.get("type") == gomokuWire.RO_ROOM_JOIN:
                return self.joinRoom(message, fields["name"])
        return None

    def register(self, message: Dict[str, Any]) -> Decided:
        name = message.get("name")
        if not isinstance(name, str) or not name:
            return None
        token = message.get("token")
        sessions = self.factory.sessions
        d = self.directory.claimName(self.kind, name)

        def claimed(owner: str) -> Decision:
            if owner == self.node:
                return passOn(lambda: self._unusedName(name))
            if token not in (None, gomokuWire.INVALID_TOKEN):
                return forward(owner, self.preface())
            return self.result(message, gomokuWire.S_PLAYER_EXISTS)

        def failed(failure: Failure) -> Decision:
            log.debug("gomoku name {name!r} not claimed: {error}",
                      name=name, error=failure.getErrorMessage())
            if sessions.byName(self.kind, name) is not None:
                return passOn()
            return self.result(message, gomokuWire.S_ERROR)
        return d.addCallbacks(claimed, failed)

    def _unusedName(self, name: str) -> None:
        if self.factory.sessions.byName(self.kind, name) is None:
            self.directory.releaseName(self.kind, name)

    def listRooms(self, message: Dict[str, Any]) -> Deferred[Decision]:
        d = self.directory.listRooms(self.kind)

        def listed(rooms: List[Dict[str, Any]]) -> Decision:
            objects = [room["info"] for room in rooms if "info" in room]
            return self.reply(message, gomokuWire.roomListMessage(
                objects or None, None, None))
        # Without the directory, the rooms of this node.
        return d.addCallbacks(listed, lambda f: passOn())

    def createRoom(self, message: Dict[str, Any], name: str) -> Decided:
        if self.factory.lobby.room(self.kind, name) is not None:
            return None
        d = self.directory.claimRoom(self.kind, name)

        def claimed(owner: str) -> Decision:
            if owner == self.node:
                return passOn(lambda: self._unusedRoom(name))
            return self.result(message, gomokuWire.S_ROOM_EXISTS)
        return d.addCallbacks(
            claimed, lambda f: self.result(message, gomokuWire.S_ERROR))

    def _unusedRoom(self, name: str) -> None:
        if self.factory.lobby.room(self.kind, name) is None:
            self.directory.releaseRoom(self.kind, name)

    def joinRoom(self, message: Dict[str, Any], name: str) -> Decided:
        if self.factory.lobby.room(self.kind, name) is not None:
            return None
        d = self.directory.lookupRoom(self.kind, name)

        def found(owner: Optional[str]) -> Decision:
            if owner is None or owner == self.node:
                return passOn()
            session = self.protocol.session
            # What the name check said travels too (hub.accounts); the
            # name as sent, key and all, only over the node link, so that
            # the home node echoes it to this player alone.
            return forward(owner, self.preface(
                name=session.name, token=session.token,
                player=session.id, guest=session.guest,
                account=session.account, wireName=session.wireName))
        return d.addCallbacks(
            found, lambda f: self.result(message, gomokuWire.S_ERROR))

    def handingOver(self, message: Any) -> None:
        name = self.peer.handOverName()
        if name is not None:
            self.directory.handOverName(self.kind, name)

    def unreachable(self, message: Any) -> Decision:
        return self.result(message, gomokuWire.S_ERROR)


def adopt(cluster: Any, kind: str, protocol: Any,
          preface: Dict[str, Any]) -> bool:
    """
    On the home node, before the forwarded bytes: give the adapter
    C{protocol} (an L{IClusterPeer}) what the player had on the arriving
    node.

    @return: False when the player cannot be taken (the link closes).
    """
    name = preface.get("name")
    if name is not None:
        # The player's name comes with it: claiming it here takes it over.
        cluster.directory.expectName(kind, name)
    return IClusterPeer(protocol).adopt(preface)


ROUTES: Dict[str, Type[Route]] = {
    "checkers": CheckersRoute,
    "splendor": SplendorRoute,
    "gomoku": GomokuRoute,
}
