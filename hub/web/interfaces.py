"""
The contracts the web face's modules call on each other's collaborators
(the pages of one package, the objects L{hub.web.site} builds).
"""

from __future__ import annotations

from typing import Any, Optional

from twisted.internet.defer import Deferred
from zope.interface import Attribute, Interface

from hub.tournaments.interfaces import IGameLauncher


class ITournamentsWeb(Interface):
    """
    The tournament events as the pages and C{/admin} see them
    (L{hub.web.tournaments.TournamentsWeb}).
    """

    database = Attribute("The records' hub.records.db.Database.")

    def launcher() -> Optional[IGameLauncher]:
        """
        The engine runner (L{hub.tournaments.interfaces.IGameLauncher})
        of the hub's director, or None.
        """

    def latestAbout(kind: str, name: str) -> Deferred[Any]:
        """
        A Deferred of C{(event, pairs)}, what engine entrant C{name}'s
        brain last answered to C{ABOUT} in a C{kind} event, or None.
        """

    def eventChanged(eventId: int) -> None:
        """
        Tell the event's page of a change at once (the director hears of
        it at its next poll).
        """
