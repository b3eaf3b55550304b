"""
What the protocols, the web face and the tournaments' listeners call on
the hub's name check (L{hub.accounts.check}).
"""

from zope.interface import Attribute, Interface


class INameCheck(Interface):
    """
    The name check the adapters call at name time, and the bans they
    ask about.
    """

    gameKeys = Attribute(
        "The one-time keys of tournament engines (hub.accounts.check."
        "GameKeys).")

    def check(kind, wireName, host):
        """
        A Deferred of the L{hub.accounts.check.Verdict} of C{wireName}
        (the name field exactly as sent) from C{host} in game C{kind},
        or None for a refusal.
        """

    def judge(kind, wireName, host):
        """
        L{check}, with the reason of a refusal in place of None.
        """

    def plainName(kind, wireName):
        """
        The name others see of C{wireName} (without its key).
        """

    def accountBanned(account):
        """
        Whether the case-folded account name C{account} is banned.
        """

    def addressBanned(host):
        """
        Whether connections from C{host} are refused.
        """
