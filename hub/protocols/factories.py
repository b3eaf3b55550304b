"""
The three protocol factories of one hub over its shared lobby, sessions
and clock, built from plain settings: C{twistd gamehub}'s composition
root (L{hub.tap.makeFactories}, from its options) and the desktop
client's offline hub (L{hub.client.localhub}) both build them here.
"""

from hub.games.checkers import STANDARD_PLAYER_COUNTS
from hub.protocols.checkers import CheckersFactory
from hub.protocols.gomoku import GomokuFactory
from hub.protocols.splendor import SplendorFactory


def makeFactories(lobby, sessions, clock, turnSeconds=15,
                  sizes=STANDARD_PLAYER_COUNTS, maxIllegal=3,
                  errorNames=False, joinSeats=False, rng=None,
                  takeover=None, botLevel=2, botDelay=None, thinker=None,
                  names=None):
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
    bots = {"takeover": takeover, "botLevel": botLevel, "thinker": thinker}
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
