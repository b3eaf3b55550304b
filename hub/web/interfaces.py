"""
The contracts the web face's modules call on each other's collaborators
(the pages of one package, the objects L{hub.web.site} builds), and the
composition root on the web face's accounts.
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


class IWebAuth(Interface):
    """
    The accounts of one web face (L{hub.web.auth.WebAuth}): its parts,
    which the pages reach through it, and what the composition root
    asks of it.
    """

    accounts = Attribute("The hub.accounts.interfaces.IAccounts.")
    sessions = Attribute("The hub.accounts.interfaces.IWebSessions.")
    moderation = Attribute("The hub.accounts.interfaces.IModeration.")
    names = Attribute("The INameService of browser play, or None.")
    displays = Attribute("The IDisplayNames of the pages, or None.")
    registration = Attribute("'open', 'invite' or 'closed'.")

    def register(name: str, password: str,
                 invite: Optional[str]) -> Deferred[Any]:
        """
        Register the account C{name}, counted: a Deferred of its key.
        """

    def visitor(request: Any) -> Deferred[Any]:
        """
        A Deferred of the visitor of C{request}'s session, or None.
        """

    def collector() -> Any:
        """
        The Prometheus collector of the logins.
        """
