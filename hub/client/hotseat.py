"""
A hot seat: several people playing at one screen (offline checkers and
Splendor), each with a session of their own.  The screen shows the
session of the seat to move, and says whose turn it is.  No pyglet: the
desktop client asks these after every state event.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Sequence, Sized

from hub.client.i18n import _
from hub.client import state as S

if TYPE_CHECKING:
    from hub.client.session import ClientSession


def isHotSeat(sessions: Sized) -> bool:
    """
    Whether several people play at this screen.
    """
    return len(sessions) > 1


def sessionToShow(
        shown: Optional[ClientSession],
        sessions: Sequence[ClientSession]) -> Optional[ClientSession]:
    """
    The session whose screens to show now: C{shown} while it is to move
    (or nobody at this screen is), else the session whose turn it is.

    @param shown: the session shown now, or None.
    @param sessions: every session at this screen.
    """
    if not isHotSeat(sessions) or shown is None:
        return shown
    if shown.state.phase == S.GAME and shown.state.isMyTurn():
        return shown
    for session in sessions:
        state = session.state
        if session is not shown and state.phase == S.GAME and \
                state.isMyTurn():
            return session
    return shown


def bannerText(state: S.Playing) -> str:
    """
    What the banner of a hot seat says over the view of C{state}.
    """
    if state.isMyTurn():
        return _("Hot seat: %s to move") % (state.name,)
    return _("Hot seat: %s's view, others moving") % (state.name,)
