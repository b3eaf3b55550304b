"""
The registry of browser play: each game kind's module.  Nothing else in
browser play asks which game it is; it asks the kind's module instead.
"""

from typing import Any, Dict, Mapping

from hub.ihub import ISeating, IStartPolicy
from hub.web.play.checkers import CheckersPlay
from hub.web.play.errors import BAD_KIND, PlayError
from hub.web.play.game import GamePlay
from hub.web.play.gomoku import GomokuPlay
from hub.web.play.splendor import SplendorPlay

#: The game kinds, in the order a browser offers them.
KINDS = ("gomoku", "checkers", "splendor")


def makeGames(policies: Mapping[str, IStartPolicy],
              seating: ISeating) -> Dict[str, GamePlay]:
    """
    The module of each game kind, over the start policies of the kinds'
    protocols (by kind) and Splendor's seating (L{ISeating}).
    """
    return {"gomoku": GomokuPlay(policies["gomoku"]),
            "checkers": CheckersPlay(policies["checkers"]),
            "splendor": SplendorPlay(policies["splendor"], seating)}


def gameOf(games: Mapping[str, GamePlay], kind: str) -> GamePlay:
    """
    The module of game C{kind} among C{games}.

    @raise PlayError: with L{BAD_KIND}.
    """
    game = games.get(kind)
    if game is None:
        raise PlayError(BAD_KIND, "a kind is one of {}".format(
            list(games)))
    return game


#: Each game's actions' codec, for what needs only that (tests, tools).
_CODECS = {cls.kind: cls for cls in (GomokuPlay, CheckersPlay,
                                     SplendorPlay)}


def encodeAction(kind: str, action: Any) -> Any:
    """
    The JSON form of the canonical C{action} of game C{kind}.
    """
    return _CODECS[kind].encodeAction(action)


def decodeAction(kind: str, value: Any) -> Any:
    """
    The canonical action of game C{kind} that the JSON C{value} is.

    @raise PlayError: with L{hub.web.play.errors.BAD_ACTION}.
    """
    return _CODECS[kind].decodeAction(value)
