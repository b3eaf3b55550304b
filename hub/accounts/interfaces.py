"""
What the protocols, the web face and the tournaments' listeners call on
the hub's name check (L{hub.accounts.check}).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from zope.interface import Attribute, Interface

if TYPE_CHECKING:
    from twisted.internet.defer import Deferred


class INameCheck(Interface):
    """
    The name check the adapters call at name time, and the bans they
    ask about.
    """

    gameKeys = Attribute(
        "The one-time keys of tournament engines (hub.accounts.check."
        "GameKeys).")

    def check(kind: str, wireName: str, host: Optional[str]) -> Deferred[Any]:
        """
        A Deferred of the L{hub.accounts.check.Verdict} of C{wireName}
        (the name field exactly as sent) from C{host} in game C{kind},
        or None for a refusal.
        """

    def judge(kind: str, wireName: str, host: Optional[str]) -> Deferred[Any]:
        """
        L{check}, with the reason of a refusal in place of None.
        """

    def plainName(kind: str, wireName: str) -> str:
        """
        The name others see of C{wireName} (without its key).
        """

    def accountBanned(account: str) -> bool:
        """
        Whether the case-folded account name C{account} is banned.
        """

    def addressBanned(host: Optional[str]) -> bool:
        """
        Whether connections from C{host} are refused.
        """
