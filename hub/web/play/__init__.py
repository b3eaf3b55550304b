"""
Play from a browser: the JSON protocol of C{/ws} (docs/protocols/web.md)
over the shared lobby and tables, without a legacy codec.

    codec        the messages, typed, and their one codec
    errors       the error codes
    core         the shared core: hello, lobby, rooms, seats, bots, hints
    player       a browser player (reconnect), and the room bots
    tournaments  the pairings' rooms, "your game is ready"
    game         what each game's module provides (IGamePlay)
    gomoku, checkers, splendor   one module per game
    games        the registry: a game kind's module

The connection itself is L{hub.web.ws}'s; docs/web.md tells the whole.
"""

from hub.web.play.codec import PROTOCOL_VERSION, dumps
from hub.web.play.core import HINT_LEVEL, WebPlay
from hub.web.play.errors import *  # noqa: F401,F403
from hub.web.play.errors import PlayError
from hub.web.play.games import KINDS, decodeAction, encodeAction, makeGames
from hub.web.play.player import RoomBot, WebPlayer, tokenKey

__all__ = ["PROTOCOL_VERSION", "HINT_LEVEL", "dumps", "WebPlay",
           "PlayError", "KINDS", "decodeAction", "encodeAction",
           "makeGames", "RoomBot", "WebPlayer", "tokenKey"]
