"""
The three protocol factories of one hub over its shared lobby, sessions
and clock, built from plain settings: C{twistd gamehub}'s composition
root (L{hub.tap.makeFactories}, from its options) and the desktop
client's offline hub (L{hub.client.localhub}) both build them here.
"""

from __future__ import annotations

import random
from typing import Any, Dict, Iterable, Optional

from twisted.internet.interfaces import IReactorTime

from hub.connection import ServerFactory
from hub.games.checkers import STANDARD_PLAYER_COUNTS
from hub.ihub import IThinker
from hub.lobby import Lobby
from hub.protocols.checkers import CheckersFactory
from hub.protocols.gomoku import GomokuFactory
from hub.protocols.splendor import SplendorFactory
from hub.sessions import Sessions


def makeFactories(lobby: Lobby, sessions: Sessions, clock: IReactorTime,
                  turnSeconds: float = 15,
                  sizes: Iterable[int] = STANDARD_PLAYER_COUNTS,
                  maxIllegal: int = 3, errorNames: bool = False,
                  joinSeats: bool = False,
                  rng: Optional[random.Random] = None,
                  takeover: Optional[str] = None, botLevel: int = 2,
                  botDelay: Optional[float] = None,
                  thinker: Optional[IThinker] = None,
                  names: Optional[Any] = None) -> Dict[str, ServerFactory]:
    """
    One protocol factory per game kind, all over the same lobby and
    sessions.

    @param turnSeconds: the checkers turn's time limit.
    @param sizes: the player counts a checkers room starts with.
    @param maxIllegal: the gomoku illegal operations allowed.
    @param rng: the Splendor tables' L{random.Random}, or None.
    @param takeover: what plays a lost player's seat (C{"bot"}), or None.
    @param botDelay: the bots' wait before acting; None for each
        protocol's own.
    @param thinker: the L{hub.ihub.IThinker} of the tables' bots; None
        for one that thinks in the caller's thread.
    @param names: the name check of every factory
        (L{hub.connection.ServerFactory.names}), or None.
    @return: a L{dict} mapping the game kind to its factory.
    """
    bots: Dict[str, Any] = {"takeover": takeover, "botLevel": botLevel,
                            "thinker": thinker}
    if botDelay is not None:
        bots["botDelay"] = botDelay
    return {
        "gomoku": GomokuFactory(lobby, sessions, clock,
                                maxIllegal=maxIllegal, names=names, **bots),
        "checkers": CheckersFactory(lobby, sessions, clock,
                                    turnSeconds=turnSeconds, sizes=sizes,
                                    errorNames=errorNames,
                                    joinSeats=joinSeats, names=names,
                                    **bots),
        "splendor": SplendorFactory(lobby, sessions, clock, rng=rng,
                                    names=names, **bots),
    }
