"""
The shared core of browser play (L{WebPlay}): a message read and typed
(L{hub.web.play.codec}) before its handler runs, C{hello} (who the player
is, or a resumed player), the lobby, the rooms (made, joined, left, with
bots), the table's actions and hints.  What differs from game to game is
asked of the kind's module (L{hub.web.play.game.IGamePlay}).

A room made here is a room of the kind's protocol (its start policy, its
seating), so that legacy clients play at the same tables.  Its bots count
against the share of the player who asked for them
(L{hub.thinkers.shares}); bots and hints think in the hub's thinker
(L{hub.ihub.IThinker}: the pool of bot workers), never on the reactor
thread.
"""

import functools
import itertools
import secrets
from typing import (
    Any, Callable, Dict, List, Mapping, Optional, Set, Union)

from twisted.internet import defer
from twisted.logger import Logger
from zope.interface import implementer

from hub.accounts import check
from hub.accounts.names import nameKey
from hub.bots import LEVELS
from hub.ihub import NoThought
from hub.lobby import LobbyError
from hub.limits import SummaryLog
from hub.protocols.checkers import MAX_ROOM_ID, isValidName
from hub.sessions import NameTaken
from hub.tables.base import TableError
from hub.thinkers.shares import TooManyBots
from hub.tournaments.interfaces import IGameReadyListener, IPairings
from hub.web.play import codec
from hub.web.play.codec import (
    PROTOCOL_VERSION, HintReply, Welcome, dumps, errorText, lobbyMessage)
from hub.web.play.errors import (
    ALREADY_HELLO, BAD_JSON, BAD_LEVEL, BAD_MESSAGE, BAD_NAME, BAD_ROOM,
    BAD_VERSION, BANNED, HELLO_FIRST, ILLEGAL, IN_ROOM, INTERNAL,
    LOBBY_ERRORS, LOGIN_REQUIRED, NAME_TAKEN, NO_GAME, NOT_IN_ROOM,
    NOT_OWNER, NOT_YOUR_TURN, OTHER_NODE, ROOM_EXISTS, ROOM_RUNNING,
    TABLE_ERRORS, TOO_MANY_BOTS, TOO_MANY_STRONG_BOTS, HINT_PENDING,
    UNAVAILABLE, UNKNOWN_TYPE, UNSUPPORTED, PlayError)
from hub.web.play.game import GamePlay
from hub.web.play.games import gameOf
from hub.web.play.player import RoomBot, WebPlayer, isBot, tokenKey
from hub.web.play.tournaments import PairingRooms
from hub.wire import gomoku as gomokuWire

#: The level of the bot that gives hints (the design notes' 提示).
HINT_LEVEL = 2
#: What the name check (L{hub.accounts.check}) of the browser's players
#: is told their game kind is (its logs and keyed forms: none).
WEB_KIND = "web"
#: The refusals of malformed messages, summarised in the log.
MALFORMED = frozenset([BAD_JSON, BAD_MESSAGE, UNKNOWN_TYPE])
#: The messages kept while a hello waits for the name check.
MAX_WAITING_HELLO = 8


def roomName(name: Optional[str], required: bool = True) -> Optional[str]:
    """
    A room's name of a request: 1 to L{MAX_ROOM_ID} printable characters.

    @raise PlayError: with L{BAD_MESSAGE} (missing) or L{BAD_ROOM}.
    """
    if name is None:
        if required:
            raise PlayError(BAD_MESSAGE, "room is required")
        return None
    if not 1 <= len(name) <= MAX_ROOM_ID or not name.isprintable():
        raise PlayError(BAD_ROOM, "a room id is 1 to {} printable "
                        "characters".format(MAX_ROOM_ID))
    return name


def botLevel(level: int) -> int:
    """
    @raise PlayError: with L{BAD_LEVEL}, a level that is none of
        L{LEVELS}.
    """
    if level not in LEVELS:
        raise PlayError(BAD_LEVEL, "a bot's level is one of {}".format(
            list(LEVELS)))
    return level


def password(text: str) -> str:
    """
    @raise PlayError: with L{BAD_MESSAGE}, a password longer than the
        gomoku protocol's.
    """
    if len(text.encode("utf-8", "surrogatepass")) > gomokuWire.MAX_PSW_BYTES:
        raise PlayError(BAD_MESSAGE, "the password is too long")
    return text


@implementer(IGameReadyListener)
class WebPlay:
    """
    The browser players of one hub.

    @param lobby: the shared L{hub.lobby.Lobby}.
    @param sessions: the shared L{hub.sessions.Sessions}.
    @param clock: the hub's clock.
    @param games: the module of each game kind
        (L{hub.web.play.games.makeGames}).
    @param lobbyFeed: the L{hub.web.now.LobbyFeed} whose document the
        C{lobby} message is, or None (no lobby message).
    @param names: the hub's L{hub.accounts.check.NameService} (C{--names
        accounts} or C{closed}), whose rules a C{hello} follows, or None
        (C{--names open}: every player is a guest, no name is checked).
    @param directory: with C{--cluster}, the node's room directory: a
        room made here is claimed in it first, and the lobby shows the
        other nodes' rooms (L{hub.web.remoterooms}); None on one node.
    @param spectating: the web face's L{hub.web.live.Spectating}, whose
        game ids C{GameStarted} names, or None (no id).
    @param pairings: the tournament director (L{IPairings}) whose
        pairings' rooms entrants join here, or None.
    @param thinker: the L{hub.ihub.IThinker} of the hints (the hub's pool
        of bot workers; by default one in the caller's thread, for
        tests).
    @param shares: the L{hub.thinkers.shares.BotShares} that room bots
        are asked within, or None for no limit.

    @ivar players: the L{WebPlayer}s by the hash of their resume token.
    @ivar roomBots: the L{RoomBot}s made (those still playing, and the
        latest gone).
    """

    log = Logger()

    def __init__(self, lobby: Any, sessions: Any, clock: Any,
                 games: Mapping[str, GamePlay], lobbyFeed: Any = None,
                 names: Any = None, directory: Any = None,
                 spectating: Any = None,
                 pairings: Optional[IPairings] = None,
                 thinker: Any = None, shares: Any = None,
                 displays: Any = None) -> None:
        #: The accounts' display names
        #: (L{hub.accounts.displays.DisplayNames}) the room lists show,
        #: or None.
        self.displays = displays
        if thinker is None:
            from hub.thinkers.inline import InlineThinker
            thinker = InlineThinker()
        self.thinker = thinker
        self.shares = shares
        self.roomBots: List[RoomBot] = []
        self._hinting: Set[bytes] = set()
        # The connections whose hello waits for the name check: the
        # messages they sent meanwhile.
        self._hellos: Dict[Any, List[str]] = {}
        self.lobby = lobby
        self.sessions = sessions
        self.clock = clock
        self.games = dict(games)
        self.lobbyFeed = lobbyFeed
        self.names = names
        self.directory = directory
        self.spectating = spectating
        self.remote = None
        if directory is not None:
            from hub.web.remoterooms import RemoteRooms
            self.remote = RemoteRooms(directory, clock)
        self.tournaments = None
        if pairings is not None:
            self.tournaments = PairingRooms(self, pairings)
        self.players: Dict[bytes, WebPlayer] = {}
        self.refused = SummaryLog(clock, self.log)
        self._botNames = itertools.count(1)
        self._shared: Any = (None, None)

    def stop(self) -> None:
        """
        The hub stops: cancel the grace timers.
        """
        for player in list(self.players.values()):
            player.stop()
        self.refused.flush()

    def forget(self, player: WebPlayer) -> None:
        self.players.pop(player.key, None)

    def gameId(self, table: Any) -> Optional[str]:
        """
        The id of C{table}'s game on the web face (its page, live then
        its replay, is C{/games/ID}), or None without one.
        """
        if self.spectating is None:
            return None
        game = self.spectating.gameOf(table)
        return None if game is None else str(game.id)

    def sharedText(self, game: GamePlay, table: Any, event: Any) -> str:
        """
        The text of C{event} that every player at C{table} gets alike
        (L{GamePlay.playedText}), encoded for the first player who hears
        the event and kept for the others, who hear it in turn.
        """
        shared = self._shared
        if shared[0] is not event:
            shared = self._shared = (event, game.playedText(table, event))
        return shared[1]  # type: ignore[no-any-return]

    # Messages.

    def received(self, connection: Any, text: str) -> None:
        """
        Handle one text message of C{connection}: answer it, or send a
        typed error.  Nothing a message holds raises out of here.  While
        its hello waits for the name check, later messages wait too (a
        few: more are dropped).
        """
        waiting = self._hellos.get(connection)
        if waiting is not None:
            if len(waiting) < MAX_WAITING_HELLO:
                waiting.append(text)
            return
        name = None
        try:
            message = codec.parse(text)
            name = message["type"]
            request = codec.typed(message)
            player = connection.player
            if isinstance(request, codec.Hello):
                if player is not None:
                    raise PlayError(ALREADY_HELLO, "hello once")
                # (A guest's name is checked against the accounts: what
                # comes meanwhile waits.)
                self._hellos[connection] = []
                entered = None
                try:
                    entered = self.hello(connection, request)
                finally:
                    if entered is None:
                        self._hellos.pop(connection, None)
                if entered is not None:
                    entered.addErrback(self._helloFailed, connection)
                    entered.addCallback(self._helloDone, connection)
                return
            if player is None:
                raise PlayError(HELLO_FIRST, "say hello first")
            result = self.HANDLERS[type(request)](self, player, request)
            if isinstance(result, defer.Deferred):
                # (A room claimed in the cluster's directory first.)
                result.addErrback(self._failed, player, name)
        except PlayError as e:
            if e.code in MALFORMED:
                self.refused.note(
                    "malformed web messages",
                    "web message refused ({code}): {why}", code=e.code,
                    why=e.message, event="refused")
            connection.sendText(errorText(e.code, e.message, name))
        except Exception:
            self.log.failure("web message {request!r} failed",
                             request=str(name)[:40])
            connection.sendText(errorText(INTERNAL, "", name))

    def _helloFailed(self, failure: Any, connection: Any) -> None:
        if failure.check(PlayError):
            error = failure.value
            connection.sendText(errorText(error.code, error.message,
                                          "hello"))
            return
        self.log.failure("web message 'hello' failed", failure)
        connection.sendText(errorText(INTERNAL, "", "hello"))

    def _helloDone(self, _: Any, connection: Any) -> None:
        for text in self._hellos.pop(connection, ()):
            self.received(connection, text)

    def _failed(self, failure: Any, player: WebPlayer,
                request: Optional[str]) -> None:
        """
        A request answered later failed: its error goes to the player.
        """
        if failure.check(PlayError):
            error = failure.value
            player.sendText(errorText(error.code, error.message, request))
            return
        self.log.failure("web message {request!r} failed", failure,
                         request=str(request)[:40])
        player.sendText(errorText(INTERNAL, "", request))

    def error(self, code: str, message: str,
              request: Optional[str] = None) -> str:
        """
        An C{error} message, encoded (L{hub.web.ws}'s binary refusal).
        """
        return errorText(code, message, request)

    # Who the player is.

    def hello(self, connection: Any,
              message: codec.Hello) -> Optional["defer.Deferred[None]"]:
        """
        Who the player is: the account of the connection's login cookie
        (C{connection.visitor}, read when it opened, L{hub.web.ws}), else
        a guest's C{name}, as C{--names} allows, checked now and never
        per move; or the player of a C{resume} token, under the same
        login only.

        @return: None, or a Deferred while a guest's name is checked.
        """
        if message.version != PROTOCOL_VERSION:
            raise PlayError(BAD_VERSION, "this hub speaks version {}"
                            .format(PROTOCOL_VERSION))
        host = connection.peerAddress()
        visitor = connection.visitor
        account = None
        if visitor is not None:
            account = nameKey(visitor.name)
            self.refuseBanned(account, host, visitor.banned)
        resume = message.resume
        if resume is not None and len(resume) <= 100:
            player = self.players.get(tokenKey(resume))
            # Under the same login only (a guest's: none): after a logout
            # or another login, the hello is a new player's.
            if player is not None and player.account == account:
                self.refuseBanned(player.account, host)
                player.attach(connection)
                connection.player = player
                self.welcome(connection, player, resume, True)
                if player.table is not None or player.endedAway:
                    player.endedAway = False
                    for text in player.sent:
                        connection.sendText(text)
                    player.sendClock()
                return None
        if visitor is not None:
            self.enter(connection, visitor.name, False, account)
            return None
        name = self.guestName(message, host)
        if isinstance(name, str):
            self.enter(connection, name, True, None)
            return None

        def named(name: str) -> None:
            # (Unless the connection is gone by the time the name is
            # known.)
            if connection in self._hellos:
                self.enter(connection, name, True, None)
        return name.addCallback(named)

    def enter(self, connection: Any, name: str, guest: bool,
              account: Optional[str]) -> None:
        """
        Welcome C{connection} as a new player named C{name}.
        """
        token = secrets.token_urlsafe(24)
        player = WebPlayer(self, name, guest, tokenKey(token), account)
        self.players[player.key] = player
        player.attach(connection)
        connection.player = player
        self.welcome(connection, player, token, False)

    def refuseBanned(self, account: Optional[str], host: Optional[str],
                     banned: bool = False) -> None:
        """
        Refuse the player of C{account} (case-folded, or None) at C{host}
        if either is banned (or C{banned} says the account is).

        @raise PlayError: with L{BANNED}.
        """
        names = self.names
        if banned or (names is not None and (
                names.addressBanned(host) or
                (account is not None and names.accountBanned(account)))):
            raise PlayError(BANNED, "banned")

    def guestName(self, message: codec.Hello, host: Optional[str]
                  ) -> Union[str, "defer.Deferred[str]"]:
        """
        The guest name of C{hello} C{message} from C{host}, as C{--names}
        allows: any valid name (C{open}); no account's, nor one holding a
        separator or looking like an account's (C{accounts}); none
        (C{closed}).

        @return: the name, or (with a name check) a Deferred of it.
        @raise PlayError: (or the Deferred fails with it) with
            L{BAD_NAME}, L{NAME_TAKEN}, L{LOGIN_REQUIRED}, L{BANNED} or
            L{UNAVAILABLE} (the accounts are not read yet).
        """
        names = self.names
        closed = names is not None and names.mode == "closed"
        name = message.name
        if not closed:
            if name is None:
                raise PlayError(BAD_MESSAGE, "name is required")
            if not isValidName(name):
                raise PlayError(BAD_NAME, "a name is 1 to 20 letters, "
                                "digits or underscores")
            if names is None:
                return name
        # (Under closed, whatever was sent: only its log line's start.)
        judged: "defer.Deferred[str]" = names.judge(
            WEB_KIND, (name or "")[:40], host).addCallback(
                self._guestVerdict, closed)
        return judged

    def _guestVerdict(self, verdict: Any, closed: bool) -> str:
        if isinstance(verdict, check.Verdict):
            return verdict.name
        if verdict == check.BANNED:
            raise PlayError(BANNED, "banned")
        if verdict == check.NOT_READY:
            raise PlayError(UNAVAILABLE, "the accounts are not read yet: "
                            "try again")
        if closed:
            raise PlayError(LOGIN_REQUIRED, "log in to play")
        raise PlayError(NAME_TAKEN, "an account has that name: log in "
                        "to play under it")

    def welcome(self, connection: Any, player: WebPlayer, token: str,
                resumed: bool) -> None:
        perGame: Dict[str, Any] = {}
        for game in self.games.values():
            perGame.update(game.welcomeFields())
        connection.sendText(codec.encode(Welcome(
            PROTOCOL_VERSION, player.name, player.guest, token, resumed,
            list(self.games), perGame, list(LEVELS))))
        connection.sendText(codec.encode(player.roomState()))
        if player.table is None and self.tournaments is not None:
            self.tournaments.tellWaiting(player)

    # The lobby.

    def lobbyRequest(self, player: WebPlayer,
                     message: codec.LobbyRequest) -> None:
        if self.lobbyFeed is None:
            raise PlayError(UNSUPPORTED, "no lobby here")
        if self.remote is None:
            player.sendText(self.lobbyFeed.encoded(lobbyMessage))
            return
        # With a cluster: the other nodes' rooms too, as last read.
        player.sendText(dumps(dict(self.lobbyFeed.now(), type="lobby",
                                   remote=self.remote.current())))

    def gameOf(self, kind: str) -> GamePlay:
        return gameOf(self.games, kind)

    def session(self, player: WebPlayer, game: GamePlay) -> Any:
        """
        A session of C{game}'s kind for C{player}, named as the kind's
        protocol names it.
        """
        if player.room is not None:
            raise PlayError(IN_ROOM, "leave your room first")
        player.closeSession()
        session = self.sessions.connect(game.kind, player)
        if self.names is not None:
            # Records and leaderboards see the account, or a guest.
            session.setVerdict(player.name, check.Verdict(
                player.name, player.guest, player.account))
        try:
            game.nameSession(self.sessions, session, player.name)
        except NameTaken:
            self.sessions.disconnect(session)
            raise PlayError(NAME_TAKEN, "a {} player has that name".format(
                game.kind))
        player.session = session
        return session

    def lobbyCall(self, player: WebPlayer, f: Callable[..., Any],
                  *args: Any, **kwargs: Any) -> Any:
        """
        C{f(*args, **kwargs)}, a call on the lobby: its refusal is the
        player's error (and a player in no room closes its session).
        """
        try:
            return f(*args, **kwargs)
        except LobbyError as e:
            if player.room is None:
                player.closeSession()
            raise PlayError(LOBBY_ERRORS.get(type(e), "refused"),
                            "the lobby refused")

    # Rooms.

    def create(self, player: WebPlayer, message: codec.Create) -> Any:
        """
        A new room; with C{bots}, a game against bots of C{level}, which
        starts at once (L{playBots}).
        """
        game = self.gameOf(message.kind)
        if not game.namedRooms and not message.bots:
            return self.join(player, codec.Join(
                message.kind, message.room, message.password))
        name = roomName(message.room, game.namedRooms)
        key = password(message.password)
        level = botLevel(message.level)
        players = game.players(message.players, False)
        seat = game.defaultSeat if message.seat is None else message.seat
        game.checkSeat(players, seat)
        make: Callable[[], Any]
        if message.bots:
            make = functools.partial(self.playBots, player, game, name, key,
                                     players, seat, level)
        else:
            make = functools.partial(self.makeRoom, player, game, name, key,
                                     players, seat)
        if not game.namedRooms:
            return make()
        return self.claimed(player, game.kind, name, make)

    def claimed(self, player: WebPlayer, kind: str, name: Optional[str],
                make: Callable[[], Any]) -> Any:
        """
        Call C{make()}, which makes the room C{name} of C{kind}; with a
        cluster, once the room's name is claimed for this node in the
        directory (as a legacy client's new room is,
        L{hub.cluster.routes}), so that the room is the cluster's.

        @return: None, or a Deferred with a cluster.
        """
        if self.lobby.room(kind, name) is not None:
            raise PlayError(ROOM_EXISTS, "the room exists")
        if self.directory is None:
            return make()
        if player.room is not None:
            raise PlayError(IN_ROOM, "leave your room first")
        directory = self.directory
        d = directory.claimRoom(kind, name)

        def got(owner: Any) -> None:
            if owner != directory.node:
                raise PlayError(ROOM_EXISTS, "a room of another node has "
                                "that name")
            try:
                if player.connection is not None:
                    make()
            finally:
                if self.lobby.room(kind, name) is None:
                    directory.releaseRoom(kind, name)

        def failed(failure: Any) -> None:
            # The directory says when it is down; a line here, no trace.
            self.log.warn("room {room!r} not claimed: {why}", room=name,
                          why=failure.getErrorMessage())
            raise PlayError(UNAVAILABLE, "the room directory is "
                            "unavailable")
        d.addCallbacks(got, failed)
        return d

    def makeRoom(self, player: WebPlayer, game: GamePlay, name: Any,
                 key: str, players: int, seat: int) -> None:
        """
        A room of C{game} named C{name}, owned by C{player}, waiting for
        other players (from any client).
        """
        session = self.session(player, game)
        self.lobbyCall(player, game.newRoom, self.lobby, name, session,
                       player, key, game.roomSettings(players, seat))
        player.sendRoom()

    def playBots(self, player: WebPlayer, game: GamePlay, name: Any,
                 key: str, players: int, seat: int, level: int) -> None:
        """
        Play at once against bots of C{level}: a new room of C{game} for
        C{players}, the player at C{seat} and bots in the others, and the
        game started.
        """
        lobby = self.lobby
        if name is not None and lobby.room(game.kind, name) is not None:
            raise PlayError(ROOM_EXISTS, "the room exists")
        settings = game.roomSettings(players, seat)
        before = game.botsBefore(seat)
        self.claimBots(player, [level] * (players - 1))
        owner = self.botOwner(player)
        room = first = None
        if before:
            # The seats are the join order: the bots before the player
            # come first.
            first = self.newBot(game, level, owner)
            room = self.lobbyCall(player, game.newRoom, lobby, name,
                                  first.session, first, key, settings)
            self.addBots(room, before - 1, level, owner)
        try:
            session = self.session(player, game)
            if room is None:
                room = self.lobbyCall(player, game.newRoom, lobby, name,
                                      session, player, key, settings)
            else:
                self.lobbyCall(player, lobby.join, game.kind, room.name,
                               session, player)
        except PlayError:
            # The bots made the room for nobody: they leave it.
            if room is not None:
                self.botsAlone(room)
            raise
        player.sendRoom()
        self.addBots(room, players - before - 1, level, owner)
        # Ready last (alone, the room could have started a game of one),
        # the first bot after the player.
        if game.readies(room, session):
            self.lobbyCall(player, lobby.setReady, session, True)
        if first is not None and not room.running:
            self.lobbyCall(player, lobby.setReady, first.session, True)
        if game.ownerStarts and not room.running:
            self.lobbyCall(player, lobby.start, room)

    def botOwner(self, player: WebPlayer) -> Any:
        """
        Whose share the bots C{player} asks for count against: its
        address and its account (or None).
        """
        return (player.peerAddress(), player.account)

    def claimBots(self, player: WebPlayer, levels: List[int]) -> None:
        """
        Refuse bots of C{levels} for C{player} if they would pass its
        share (L{shares}).

        @raise PlayError: L{TOO_MANY_BOTS} or L{TOO_MANY_STRONG_BOTS}.
        """
        if self.shares is None:
            return
        address, account = self.botOwner(player)
        playing = [bot.owner + (bot.level,) for bot in self.playingBots()]
        try:
            self.shares.check(playing, address, account, levels)
        except TooManyBots as e:
            raise PlayError(TOO_MANY_STRONG_BOTS if e.strong
                            else TOO_MANY_BOTS, str(e))

    def playingBots(self) -> List[RoomBot]:
        """
        The L{RoomBot}s still playing (their sessions open).
        """
        self.roomBots = [bot for bot in self.roomBots
                         if not bot.session.closed]
        return self.roomBots

    def newBot(self, game: GamePlay, level: int,
               owner: Any = (None, None)) -> RoomBot:
        """
        A L{RoomBot} of C{level} with a session of C{game}'s kind, named,
        that counts against the share of C{owner} (an address and an
        account).
        """
        bot = RoomBot(self, level, owner)
        bot.session = self.sessions.connect(game.kind, bot)
        self.playingBots().append(bot)
        while True:
            try:
                game.nameSession(self.sessions, bot.session,
                                 "bot{}_{}".format(level,
                                                   next(self._botNames)))
            except NameTaken:
                continue
            return bot

    def addBots(self, room: Any, count: int, level: int,
                owner: Any = (None, None)) -> None:
        """
        Fill C{count} seats of the waiting C{room} with ready bots of
        C{level} (fewer if it fills up), on C{owner}'s share.
        """
        game = self.games[room.kind]
        for _ in range(count):
            if room.full or room.running:
                return
            bot = self.newBot(game, level, owner)
            try:
                self.lobby.join(room.kind, room.name, bot.session, bot)
            except LobbyError:
                self.sessions.disconnect(bot.session)
                return
            if game.readies(room, bot.session):
                self.lobby.setReady(bot.session, True)

    def botsAlone(self, room: Any) -> None:
        """
        If only bots are left in C{room}, they leave too: the room closes
        (and a game under way there is abandoned).
        """
        if not room.members or not all(isBot(m) for m in room.members):
            return
        table = room.table
        for member in list(room.members):
            self.lobby.leave(member.session)
            if table is not None and not table.over:
                table.drop(member.seat)
            self.sessions.disconnect(member.session)

    def join(self, player: WebPlayer, message: codec.Join) -> None:
        game = self.gameOf(message.kind)
        name = roomName(message.room, game.namedRooms)
        if name is not None and self.tournaments is not None and \
                self.tournaments.seatsOf(game.kind, name) is not None:
            self.tournaments.join(player, game, name)
            return
        if not game.namedRooms:
            session = self.session(player, game)
            self.lobbyCall(player, game.seatAnywhere, session, player)
            player.sendRoom()
            return
        key = message.password
        if self.remote is not None and \
                self.lobby.room(game.kind, name) is None:
            home = self.remote.homeOf(game.kind, name)
            if home is not None:
                raise PlayError(OTHER_NODE, "the room is on node {}"
                                .format(home)[:200])
        session = self.session(player, game)
        self.lobbyCall(player, self.lobby.join, game.kind, name, session,
                       player, password=key)
        player.sendRoom()

    def openRooms(self, game: GamePlay, name: str) -> List[Any]:
        """
        The rooms of C{game} a player called C{name} may join now, oldest
        first: waiting, with a free seat, without a password, without a
        member of that name.
        """
        return [room for room in self.lobby.rooms(game.kind)
                if not room.running and not room.password
                and room.members
                and len(room.members) < game.seatsOf(room)
                and all(m.name != name for m in room.members)]

    def quick(self, player: WebPlayer, message: codec.Quick) -> Any:
        """
        Quick play: join the fullest open room of C{kind} (the oldest of
        the fullest), or make one (C{players} and C{seat} as for
        C{create}, without bots) for others to join; Splendor seats the
        player as C{join} does.
        """
        game = self.gameOf(message.kind)
        if not game.namedRooms:
            return self.join(player, codec.Join(message.kind))
        if player.room is not None:
            raise PlayError(IN_ROOM, "leave your room first")
        rooms = self.openRooms(game, player.name)
        if rooms:
            room = max(rooms, key=lambda r: len(r.members))
            session = self.session(player, game)
            self.lobbyCall(player, self.lobby.join, game.kind, room.name,
                           session, player, password="")
            player.sendRoom()
            return None
        players = game.players(message.players, True)
        seat = game.defaultSeat if message.seat is None else message.seat
        game.checkSeat(players, seat)
        name = self.freeRoomName(game.kind, player.name)
        return self.claimed(player, game.kind, name, functools.partial(
            self.makeRoom, player, game, name, "", players, seat))

    def freeRoomName(self, kind: str, base: str) -> str:
        """
        A name for a new room of C{kind}: C{base}, then C{base-2}...,
        the first that no room of this node has.
        """
        for n in itertools.count(1):
            name = base if n == 1 else "{}-{}".format(base, n)
            if self.lobby.room(kind, name) is None and (
                    self.remote is None
                    or self.remote.homeOf(kind, name) is None):
                return name
        raise AssertionError("unreachable")

    def bots(self, player: WebPlayer, message: codec.Bots) -> None:
        room = player.room
        if room is None:
            raise PlayError(NOT_IN_ROOM, "join a room first")
        if room.running:
            raise PlayError(ROOM_RUNNING, "the game is running")
        level = botLevel(message.level)
        empty = self.games[room.kind].seatsOf(room) - len(room.members)
        count = max(0, min(message.count, empty))
        self.claimBots(player, [level] * count)
        self.addBots(room, count, level, self.botOwner(player))

    def leave(self, player: WebPlayer, message: codec.Leave) -> None:
        if player.room is None:
            raise PlayError(NOT_IN_ROOM, "you are in no room")
        player.leaveRoom()
        player.sendRoom()

    def ready(self, player: WebPlayer, message: codec.Ready) -> None:
        room = player.room
        if room is None:
            raise PlayError(NOT_IN_ROOM, "join a room first")
        if not self.games[room.kind].readies(room, player.session):
            raise PlayError(NOT_OWNER, "the owner starts the game")
        self.lobbyCall(player, self.lobby.setReady, player.session,
                       message.ready)

    def start(self, player: WebPlayer, message: codec.Start) -> None:
        room = player.room
        if room is None:
            raise PlayError(NOT_IN_ROOM, "join a room first")
        if not self.games[room.kind].ownerStarts:
            raise PlayError(UNSUPPORTED, "a {} game starts when everyone "
                            "is ready".format(room.kind))
        if room.owner.session is not player.session:
            raise PlayError(NOT_OWNER, "the owner starts the game")
        self.lobbyCall(player, self.lobby.start, room)

    # At the table.

    def act(self, player: WebPlayer, message: codec.Act) -> None:
        table = player.table
        if table is None:
            raise PlayError(NO_GAME, "no game is running")
        action = player.game.decodeAction(message.action)
        try:
            table.act(player.seat, action)
        except TableError as e:
            raise PlayError(TABLE_ERRORS.get(type(e), ILLEGAL),
                            str(e)[:200])

    def resign(self, player: WebPlayer, message: codec.Resign) -> None:
        table = player.table
        if table is None:
            raise PlayError(NO_GAME, "no game is running")
        if not player.game.resign(table, player.seat):
            player.leaveRoom()
        player.sendRoom()

    def hint(self, player: WebPlayer, message: codec.Hint) -> Any:
        """
        The level-2 bot's move for the player's turn.
        """
        table = player.table
        if table is None:
            raise PlayError(NO_GAME, "no game is running")
        seat = player.seat
        game = table.game
        if table.over or game.isOver or seat != game.currentSeat:
            raise PlayError(NOT_YOUR_TURN, "a hint is for your turn")
        if player.key in self._hinting:
            raise PlayError(HINT_PENDING, "a hint is on its way")
        self._hinting.add(player.key)
        d = self.thinker.think(table.kind, HINT_LEVEL, len(player.sent),
                               game, seat)

        def thought(action: Any) -> None:
            # Sent only while it is still that turn (the player may have
            # moved meanwhile).
            if (player.table is table and not table.over
                    and game.currentSeat == seat
                    and action in game.legalActions(seat)):
                player.send(HintReply(player.game.encodeAction(action)))

        def noThought(failure: Any) -> None:
            failure.trap(NoThought)
            raise PlayError(UNAVAILABLE, "no hint just now")

        def done(result: Any) -> Any:
            self._hinting.discard(player.key)
            return result
        return d.addBoth(done).addCallbacks(thought, noThought)

    HANDLERS: Dict[type, Callable[..., Any]] = {
        codec.LobbyRequest: lobbyRequest,
        codec.Create: create,
        codec.Join: join,
        codec.Quick: quick,
        codec.Bots: bots,
        codec.Leave: leave,
        codec.Ready: ready,
        codec.Start: start,
        codec.Act: act,
        codec.Resign: resign,
        codec.Hint: hint,
    }

    def connectionLost(self, connection: Any) -> None:
        """
        C{connection} is gone.
        """
        self._hellos.pop(connection, None)
        player, connection.player = connection.player, None
        if player is not None:
            player.detach(connection)

    # Tournaments (L{hub.web.play.tournaments}).

    def gameReady(self, eventId: int, kind: str, room: str,
                  seats: Any) -> None:
        if self.tournaments is not None:
            self.tournaments.gameReady(eventId, kind, room, seats)

    def eventChanged(self, eventId: int) -> None:
        if self.tournaments is not None:
            self.tournaments.eventChanged(eventId)
