"""
The contracts between gamehub's layers.

    wire (bytes <-> messages) -> protocols -> lobby / sessions -> games
    games -> lobby -> IRoomObserver (protocols) -> wire -> bytes

C{games} and C{wire} know nothing of Twisted; C{lobby} and C{sessions} know
nothing of any wire format; protocol adapters are thin translators.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence

from zope.interface import Attribute, Interface

#: A room of L{ILobby} (a L{hub.lobby.Room}; this layer does not import
#: the lobby, so to the type checker it is any object).
Room = Any
#: A member of a room (a L{hub.lobby.Member}), by the same token.
Member = Any


class IGameRules(Interface):
    """
    The state of one game under way, with its rules: pure, no I/O.

    Seats are numbered from 0 in the order the game was set up with.  An
    action is whatever the game's module defines (a cell, a path, an
    operation); bots only pass back what L{legalActions} gave them.
    """

    seatCount = Attribute("How many seats the game was set up with.")
    currentSeat = Attribute(
        "The seat that must act now, or None once the game is over.")
    isOver = Attribute("True once the game has ended.")

    def legalActions(seat: int) -> list[Any]:
        """
        Every legal action of C{seat} now (empty when it is not to act).

        @rtype: L{list}
        """

    def apply(seat: int, action: Any) -> object:
        """
        Play C{action} for C{seat}.

        @raise ValueError: (or a subclass) when the action is illegal; the
            state is then unchanged.
        """

    def copy() -> IGameRules:
        """
        An independent copy of this state, for search.
        """


class IBot(Interface):
    """
    A strategy for one game: deterministic for a given seed.
    """

    level = Attribute("1 (random), 2 (heuristic) or 3 (search).")

    def chooseAction(state: IGameRules, seat: int) -> Any:
        """
        Choose a legal action for C{seat} in C{state} (an L{IGameRules}).
        """


class NoThought(Exception):
    """
    A thinker (L{IThinker}) gives no action; C{reason} says why: one of
    L{NoThought.FULL} (too many moves wait already), L{NoThought.LATE}
    (no answer by the deadline), L{NoThought.LOST} (the worker died or
    failed), L{NoThought.STOPPED} (the hub is stopping).
    """

    FULL = "full"
    LATE = "late"
    LOST = "lost"
    STOPPED = "stopped"

    def __init__(self, reason: str, detail: str = "") -> None:
        Exception.__init__(self, reason, detail)
        self.reason = reason
        self.detail = detail


class IThinker(Interface):
    """
    Where bots think: asked for a move, it answers later.  In the hub it
    is the pool of bot worker processes (L{hub.thinkers.pool.BotPool}),
    so that no strategy ever runs on the reactor thread; tests and
    one-user programs may think in their own thread
    (L{hub.thinkers.inline.InlineThinker}).
    """

    def think(kind: str, level: int, seed: int, state: IGameRules,
              seat: int) -> Any:
        """
        The action the C{kind} bot of C{level}, seeded with C{seed},
        chooses for C{seat} in C{state}.  The state is read at once: the
        caller may change it afterwards.

        @return: a L{Deferred} that fires with the action (a legal one,
            unless the strategy is broken: callers check), or fails with
            L{NoThought} or the strategy's error.  Cancelling it
            withdraws the question.
        """


class ISession(Interface):
    """
    One player known to the server: a connection, or a lost connection
    within its reconnect grace.
    """

    id = Attribute("Unique positive integer, never reused in a process.")
    kind = Attribute("The game kind: 'gomoku', 'checkers' or 'splendor'.")
    name = Attribute("The player's name, or None before one is claimed.")
    token = Attribute("Random u64 issued on registration, or None.")
    state = Attribute("What the adapter says the player is doing.")
    lost = Attribute("True while the connection is gone within its grace.")
    peer = Attribute("The adapter object that speaks for this session (an "
                     "IPeer), or None once its connection is lost.")
    wireName = Attribute(
        "The name field exactly as sent (with a play key), when it differs "
        "from name; shown to this player only.  None otherwise.")
    guest = Attribute("True if the name is no account's (hub.accounts).")
    account = Attribute("The case-folded account name proven, or None.")
    label = Attribute(
        "How logs name the player: the name, or '#id' before one is known.")


class ISessions(Interface):
    """
    Who is connected: identities, names, tokens, reconnect grace and the
    idle timeout of connections.
    """

    clock = Attribute("The IReactorTime of grace and idle timers.")
    idleSeconds = Attribute(
        "Seconds a connection may send nothing before it is closed; 0 for "
        "never.")

    def connect(kind: str, peer: object) -> ISession:
        """
        Open a session for a new connection of game kind C{kind}.

        @rtype: L{ISession}
        """

    def claimName(session: ISession, name: str) -> None:
        """
        Give C{session} the unique (per game kind) C{name} and a new token.

        @raise NameTaken: when another session of that kind holds it.
        """

    def lose(session: ISession,
             onExpiry: Callable[[ISession], object]) -> None:
        """
        The connection of C{session} dropped: keep it for the grace period,
        then call C{onExpiry(session)} and close it.
        """

    def resume(kind: str, name: str, token: int,
               peer: object) -> Optional[ISession]:
        """
        Give the session of C{name} back to a new connection that proves
        it with C{token}: a lost one, or a live one whose old connection
        has not been seen to drop yet.

        @return: the session, or None if none matches.
        """

    def setRoomName(session: ISession, name: str) -> None:
        """
        Give C{session} the name C{name}, unique within its room only.
        """

    def disconnect(session: ISession) -> None:
        """
        Forget C{session} now, freeing its name.
        """


class IPeer(Interface):
    """
    What speaks for a session (L{ISession.peer}) as bans, moderation and
    the name check see it: a client's connection, or a member the hub
    runs itself (a bot, an engine), which has none.
    """

    def peerAddress() -> Optional[str]:
        """
        The client's address (the one a trusted proxy or the cluster
        forwarded, else the TCP peer's), or None: no client connection.
        """

    def connectionOpen() -> bool:
        """
        Whether it has a client connection that is not being closed.
        """

    def closeConnection() -> None:
        """
        Close its client connection, if it has one (a ban, a kick).
        """


class IRoomObserver(Interface):
    """
    Told of what happens in the rooms its member is in.  Every member's
    observer hears every event of its room, its own included; the member
    that caused the event is passed as C{actor}.
    """

    def memberJoined(room: Room, actor: Member) -> None:
        """
        C{actor} joined C{room}.
        """

    def memberLeft(room: Room, actor: Member,
                   previousOwner: Optional[Member]) -> None:
        """
        C{actor} left C{room}; C{previousOwner} is who owned it before.
        """

    def readyChanged(room: Room, actor: Member) -> None:
        """
        The ready flag of C{actor} changed (or was set again).
        """

    def roleChanged(room: Room, actor: Member) -> None:
        """
        The role data of C{actor} (a gomoku colour) changed.
        """

    def gameStarted(room: Room) -> None:
        """
        C{room.game} is now running.
        """

    def gameEnded(room: Room, game: IGameRules) -> None:
        """
        The game C{game} (the table's L{IGameRules} state) of C{room} is
        over and detached from the room.
        """


class IStartPolicy(Interface):
    """
    How a room of one game kind starts its game.
    """

    autoStart = Attribute(
        "True if the game starts by itself as soon as canStart allows.")
    options = Attribute(
        "The hub.tables.base.TableOptions of the tables it makes.")
    playerCounts = Attribute(
        "The member counts a game may start with (a frozenset of int).")
    openTable = Attribute(
        "Whether open seating (Splendor's) may seat anyone at its rooms: "
        "False for the rooms of a tournament's pairing or an engines' "
        "game.")

    def canStart(room: Room) -> bool:
        """
        Whether C{room} may start now (counts, ready flags).
        """

    def withOptions(options: Any) -> IStartPolicy:
        """
        This policy, making its tables with C{options} (a
        L{hub.tables.base.TableOptions}: a tournament's turn clock).
        """

    def newTable(room: Room) -> ITable:
        """
        Make the table (an L{ITable}, not started) for C{room}'s members,
        with the adapter's own listener attached, and set each member's
        C{seat}; called once canStart is true.
        """

    def memberLeft(lobby: ILobby, room: Room) -> None:
        """
        A member left C{room} while no game runs: a policy that starts by
        itself starts the game if the members left may play it.
        """


class ISeating(Interface):
    """
    Where the players of a game kind without named rooms (Splendor) sit:
    the table a Unity client's INIT seats at.
    """

    def seat(session: ISession, observer: IRoomObserver,
             preferred: Optional[str] = None) -> None:
        """
        Seat C{session} at the open table, or at a new one.

        @raise hub.lobby.LobbyError: a subclass saying why not.
        """

    def seatApart(session: ISession, observer: IRoomObserver) -> Room:
        """
        Seat C{session} at a new table of its own (a game against bots),
        which no INIT is seated at before its game starts.
        """

    def leave(session: ISession) -> None:
        """
        C{session} is gone: before the game the others may now start;
        during it the table drops the seat.
        """


class ILobby(Interface):
    """
    Rooms of every game kind: members in join order, owner, ready flags,
    seats, passwords, capacity, start policy and the running game.
    """

    draining = Attribute(
        "True while the hub drains before it stops: no new room, member "
        "or game.")

    def addTableListener(listener: ITableListener,
                         follows: Optional[Callable[[Any], bool]] = None,
                         hears: Optional[Iterable[type]] = None) -> None:
        """
        Give C{listener} to every table started from now on, or with
        C{follows} to those of the rooms for which C{follows(room)} is
        true as their game starts; with C{hears}, it hears only events
        of those types (L{ITable.addListener}).
        """

    def addWatcher(watcher: Any) -> None:
        """
        Tell C{watcher} (a L{hub.lobby.RoomWatcher}) of every room made,
        changed or closed, of every kind.
        """

    def drain() -> None:
        """
        The hub drains: C{draining} becomes True.
        """

    def createRoom(kind: str, name: str, session: ISession,
                   observer: IRoomObserver, policy: IStartPolicy,
                   capacity: int, password: str = "",
                   role: object = None) -> Room:
        """
        Make a room with C{session} as its owner and first member.

        @raise RoomExists: a room of that kind and name exists.
        """

    def join(kind: str, name: str, session: ISession,
             observer: IRoomObserver, password: Optional[str] = None,
             role: object = None) -> Room:
        """
        Add C{session} to the room.

        @raise LobbyError: a subclass saying why not.
        """

    def leave(session: ISession) -> Optional[Room]:
        """
        Take C{session} out of its room; the room closes when empty.

        @return: the room left, or None when C{session} was in none.
        """

    def setReady(session: ISession, ready: bool) -> None:
        """
        Set the ready flag of C{session}, then start the game if the
        room's policy starts it by itself.
        """

    def start(room: Room) -> None:
        """
        Start C{room}'s game now (the policy must allow it).
        """

    def endGame(room: Room) -> None:
        """
        Detach the finished game from C{room}; members stay.
        """

    def roomOf(session: ISession) -> Optional[Room]:
        """
        The room C{session} is in, or None.
        """

    def room(kind: str, name: str) -> Optional[Room]:
        """
        The room of kind C{kind} called C{name}, or None.
        """

    def dissolve(room: Room) -> None:
        """
        Close C{room}, taking every member out without telling them.
        """

    def rooms(kind: str) -> Sequence[Room]:
        """
        Every room of game kind C{kind}, oldest first.
        """

    def allRooms() -> List[Room]:
        """
        Every room of every kind, oldest first.
        """

    def openRoom(kind: str, name: str, policy: IStartPolicy, capacity: int,
                 password: str = "",
                 settings: Optional[Dict[str, Any]] = None) -> Room:
        """
        An empty room with no owner until someone joins (the tournament
        director's, which wait for the players of a pairing).
        """

    def stopTables() -> None:
        """
        The hub is stopping: every running table stops its clocks.
        """


class ITableListener(Interface):
    """
    Hears what happens at a table (L{hub.tables}): the protocol adapter of
    the table's players, the records, the spectators' feed, a test.
    """

    def tableEvent(table: ITable, event: object) -> None:
        """
        C{event} (one of L{hub.tables.events}) happened at C{table}.  A
        listener that raises is logged and the table goes on.
        """


class ITable(Interface):
    """
    The running game of one room, without transports: seats, turn clock,
    timeouts, eliminations, forfeits, the illegal-action limit, ranking
    and takeover.  Events go to its L{ITableListener}s.
    """

    kind = Attribute("The game kind.")
    name = Attribute("The table's (room's) name.")
    seats = Attribute("The L{hub.tables.events.Seat}s in seat order.")
    game = Attribute("The L{IGameRules} state.")
    over = Attribute("True once the game has ended.")
    actions = Attribute(
        "The game's actions so far, in order "
        "(L{hub.tables.actionlog.ActionLog}): the table adds each before "
        "it tells of it, and listeners keep it rather than copy its "
        "actions.")
    takeover = Attribute(
        "The seats a bot plays: C{seat in table.takeover}.")
    turnStarted = Attribute(
        "The last L{hub.tables.events.TurnStarted} told, or None before "
        "the first (gomoku tells only the first: the next are implied "
        "by each action).")
    turnStartedAt = Attribute(
        "How many actions were played before L{turnStarted}.")

    def addListener(listener: ITableListener,
                    hears: Optional[Iterable[type]] = None) -> None:
        """
        Tell C{listener} (an L{ITableListener}) of every later event, or
        with C{hears} of those of these types only (a call saved on each
        other event).  A listener already added keeps its place and hears
        from now on what C{hears} says.
        """

    def removeListener(listener: ITableListener) -> None:
        """
        Tell C{listener} nothing more.
        """

    def now() -> float:
        """
        The table clock's time.
        """

    def takeOver(seat: int, seed: Optional[int] = None,
                 level: Optional[int] = None) -> None:
        """
        Have a bot (of C{level}, or the table's) play C{seat} from now on.
        """

    def start() -> None:
        """
        Announce the game and its first turn.
        """

    def checkTurn(seat: Optional[int]) -> int:
        """
        Refuse an action of C{seat} unless the game runs and C{seat} is to
        act; return C{seat}.

        @raise hub.tables.base.GameIsOver: the game has ended.
        @raise hub.tables.base.NotSeated: C{seat} is no seat here.
        @raise hub.tables.base.NotYourTurn: another seat is to act.
        """

    def act(seat: Optional[int], action: Any) -> None:
        """
        C{seat} plays the canonical C{action}.

        @raise hub.tables.base.TableError: a subclass saying why not.
        """

    def drop(seat: int) -> None:
        """
        The player of C{seat} is gone for good: forfeit, eliminate, retire
        or take over the seat, as the game's rules and options say.
        """

    def abandon() -> None:
        """
        Everyone left (or a moderator ended it): the game ends unfinished.
        """

    def stop() -> None:
        """
        The server is stopping: cancel every timer, tell nobody.
        """


class ICheckersPeer(Interface):
    """
    A room member's observer that is a checkers protocol connection: the
    checkers table's listener writes it the protocol's lines.  A member
    of another kind (a browser player, a room bot) hears its own events.
    """

    def sendBytes(data: bytes) -> None:
        """
        Write C{data}, one or more encoded lines.
        """


class IGomokuPeer(Interface):
    """
    A room member's observer that is a gomoku-battle connection: the
    gomoku table's listener sends it C{msg_move}s.
    """

    def send(message: Dict[str, Any]) -> None:
        """
        Send one gomoku message.
        """


class ISplendorPeer(Interface):
    """
    A room member's observer that is a Splendor (Unity) connection: the
    Splendor table's listener sends it the protocol's frames.
    """

    def sendFrame(frame: bytes) -> None:
        """
        Write one packed frame.
        """

    def sendMessage(apiId: int, playerId: int = 0,
                    body: Optional[Dict[str, Any]] = None) -> None:
        """
        Pack and write one message.
        """


class IClusterRoomList(Interface):
    """
    A protocol factory whose game's room list is the cluster's (gomoku's
    room list request, L{hub.cluster.routes}): how each room of this node
    is shown in it, published with the room (L{hub.cluster.directory}).
    """

    def roomSummary(room: Room) -> Dict[str, Any]:
        """
        What the room list shows of C{room} (a room of this node with
        members), as the wire's room object.
        """


class IClusterPeer(Interface):
    """
    A protocol adapter's connection as a cluster node sees it
    (L{hub.cluster}): what the cluster asks of any adapter instead of
    reaching into its states.
    """

    session = Attribute(
        "The connection's ISession once it has one, else None (the hub's "
        "engine runner finds which entrant played a session by it).")

    def adopt(preface: Dict[str, Any]) -> bool:
        """
        On the home node of a connection another node handed over, before
        the forwarded bytes: take on what the player had there.

        @param preface: the link's preface (a L{dict}; gomoku's C{name}
            and C{token} of a registered player, Splendor's C{table}
            chosen).
        @return: True if the player is taken, False if not (the adapter
            logs why; the link is closed).
        """

    def routable() -> bool:
        """
        Whether the connection's next request may need the cluster: while
        the player has no room or table of its own yet (gomoku: before
        and after its C{msg_reg}, outside any room; checkers: outside a
        room; Splendor: before an INIT seats it).
        """

    def registered() -> bool:
        """
        Whether the player holds a name on this node (gomoku: past its
        C{msg_reg}); until then only a registration may need the cluster.
        """

    def handOverName() -> Optional[str]:
        """
        The name the player holds that moves with the connection when it
        is handed over to another node (gomoku: a registered player
        outside any room), or None.
        """


class IPausableFactory(Interface):
    """
    A protocol factory told of each port it listens on, to pause the
    port in a flood (L{hub.connection.ServerFactory}).
    """

    def listeningOn(port: Any) -> None:
        """
        C{port} (an C{IListeningPort}) listens with this factory.
        """


class IGameFactory(IPausableFactory):
    """
    The protocol factory of one game kind (L{hub.protocols}), as the
    composition root and the tournaments' engine runner use it.
    """

    lobby = Attribute("The hub's ILobby.")
    sessions = Attribute("The hub's ISessions.")
    names = Attribute(
        "The name check (hub.accounts.interfaces.INameCheck), or None.")
    policy = Attribute("The IStartPolicy of the kind's rooms.")

    def buildProtocol(addr: Any) -> Any:
        """
        See C{twisted.internet.interfaces.IProtocolFactory}: the protocol
        for a connection from C{addr}, or None to refuse it.
        """

    def engineDoor(**replaced: Any) -> "IGameFactory":
        """
        A copy of this factory for a private listener of the hub's own
        (a tournament's engines): its connections are counted toward
        C{maxConnections} but never refused or capped by address, and it
        seats them with the collaborators C{replaced}, by name: C{names}
        (the name check), C{policy} (the rooms' L{IStartPolicy}) or
        C{seats} (Splendor's L{ISeating}).

        @raise TypeError: the factory has no such collaborator.
        """


class IPortListener(Interface):
    """
    A listening service of the hub's that can tell its port
    (L{hub.tap.Listener}).
    """

    port = Attribute("The IListeningPort once listening, else None.")

    def whenListening() -> Any:
        """
        A Deferred of the listening port, or of None if listening failed.
        """

    def stopAccepting() -> Any:
        """
        Stop listening now (a drain): a Deferred that fires once closed.
        """
