"""
What the accounts, the tournaments and the web face call on the records'
database and queries (L{hub.records.db}, L{hub.records.query}).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, List, Optional, TypeVar

from zope.interface import Attribute, Interface

if TYPE_CHECKING:
    from twisted.internet.defer import Deferred

_T = TypeVar("_T")


class IDatabase(Interface):
    """
    The hub's database (L{hub.records.db.Database}).
    """

    url = Attribute("Its L{hub.records.db.DatabaseURL}.")

    def runInteraction(interaction: Callable[..., _T], *args: Any,
                       write: bool = False, **kwargs: Any) -> Deferred[_T]:
        """
        Run C{interaction(cursor, *args, **kwargs)} in one transaction in
        a pool thread (C{write}: open it for writing at once).
        """


class IRecords(Interface):
    """
    The stored games and ratings as the web face reads them
    (L{hub.records.query.Records}).
    """

    def game(gameId: int) -> Deferred[Any]:
        """
        A Deferred of one game's full record, or None.
        """

    def history(kind: str, name: str, limit: int = 50,
                before: Optional[int] = None) -> Deferred[List[Any]]:
        """
        A Deferred of the last C{limit} games of C{kind} of C{name}.
        """

    def leaderboard(kind: str, limit: int = 50,
                    minGames: Optional[int] = None,
                    guests: Optional[bool] = None) -> Deferred[List[Any]]:
        """
        A Deferred of the best C{limit} players of C{kind}.
        """

    def rating(kind: str, name: str) -> Deferred[Any]:
        """
        A Deferred of the rating of C{name} at C{kind}, or None.
        """

    def whyEmpty(kind: str, minGames: Optional[int] = None,
                 guests: Optional[bool] = None) -> Deferred[str]:
        """
        A Deferred of why the leaderboard of C{kind} lists nobody.
        """
