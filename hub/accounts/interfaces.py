"""
What the protocols, the web face, the tournaments' listeners and the
composition root call on the accounts' objects (the name check, the
accounts, web sessions, moderation, display names, guess limits).
"""

from __future__ import annotations

from typing import (
    TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Optional)

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


class INameService(INameCheck):
    """
    The hub's name check as a service (L{hub.accounts.check.NameService}):
    what the web face, the tournaments and the composition root call.
    """

    moderation = Attribute(
        "The hub's IModeration, or None without one.")

    def forGame(room: str) -> INameCheck:
        """
        The name check of the private listener of the tournament game at
        C{room}, with that game's one-time keys.
        """

    def watchBans(watcher: Callable[[], object]) -> None:
        """
        Call C{watcher()} whenever bans come to cover more.
        """

    def watchChanges(
            watcher: Callable[[Optional[List[str]]], object]) -> None:
        """
        Call C{watcher(keys)} with the case-folded names of the accounts
        that changed (None: any may have).
        """

    def collector() -> Any:
        """
        The Prometheus collector of the refusals and proofs.
        """


class IAccounts(Interface):
    """
    The accounts (L{hub.accounts.model.Accounts}) as the web face uses
    them.
    """

    def add(name: str, password: str, role: str = "player",
            actor: Any = "cli") -> Deferred[str]:
        """
        Register C{name} with C{password}: a Deferred of its play key.
        """

    def checkPassword(name: str, password: str) -> Deferred[bool]:
        """
        A Deferred of whether C{password} is C{name}'s.
        """

    def setPassword(name: str, password: str,
                    actor: Any = "cli") -> Deferred[None]:
        """
        Change the password of C{name}.
        """

    def newKey(name: str, actor: Any = "cli") -> Deferred[str]:
        """
        A Deferred of a new play key of C{name}.
        """

    def displayName(name: str) -> Deferred[Optional[str]]:
        """
        A Deferred of the display name of the account C{name}, or None.
        """

    def setDisplayName(name: str, text: str,
                       actor: Any = "cli") -> Deferred[Optional[str]]:
        """
        Give the account C{name} the display name C{text}.
        """

    def setKeepSessions(name: str, keep: bool) -> Deferred[None]:
        """
        Whether C{name} keeps its other web sessions at a new login.
        """

    def audit(limit: int = 100) -> Deferred[List[Any]]:
        """
        A Deferred of the last C{limit} audit entries, oldest first.
        """

    def note(action: str, target: str, reason: str = "",
             actor: Any = "cli") -> Deferred[None]:
        """
        Write an audit row for an action done elsewhere.
        """


class IWebSessions(Interface):
    """
    The web sessions, API tokens and invites
    (L{hub.accounts.websessions.WebSessions}).
    """

    def register(accounts: IAccounts, name: str, password: str,
                 invite: Optional[str] = None) -> Deferred[str]:
        """
        Register C{name}: a Deferred of its play key.
        """

    def open(name: str) -> Deferred[str]:
        """
        A Deferred of the raw id of a new session of C{name}.
        """

    def find(raw: Optional[str], banned: bool = False) -> Deferred[Any]:
        """
        A Deferred of the L{hub.accounts.websessions.Visitor} of the
        session C{raw}, or None.
        """

    def close(raw: Optional[str]) -> Deferred[None]:
        """
        End the session C{raw} alone.
        """

    def endAll(name: str, keep: Optional[str] = None) -> Deferred[None]:
        """
        End every session of C{name} but C{keep}, and close their sockets.
        """

    def ended(name: str) -> None:
        """
        The sessions of C{name} were ended elsewhere: close its sockets.
        """

    def watch(visitor: Any, ended: Callable[[], object]) -> Any:
        """
        Call C{ended()} once the session of C{visitor} has ended.
        """

    def tokens() -> Deferred[List[Any]]:
        """
        A Deferred of every admin API token.
        """

    def tokenVisitor(raw: Optional[str]) -> Deferred[Any]:
        """
        A Deferred of the visitor of the API token C{raw}, or None.
        """

    def revokeToken(tokenId: Optional[str],
                    actor: Any = "cli") -> Deferred[str]:
        """
        Revoke the token C{tokenId}, audited.
        """

    def newInvite(actor: Any = "cli") -> Deferred[str]:
        """
        A Deferred of a new invite code, audited.
        """

    def stop() -> Deferred[None]:
        """
        The hub stops: stop watching, and write the uses noted.
        """


class IModeration(Interface):
    """
    Kicks, bans, roles and the live connections
    (L{hub.accounts.moderation.Moderation}).
    """

    def connections() -> List[Any]:
        """
        The live connections, oldest first.
        """

    def kick(sessionId: int, actor: Any, reason: str) -> Deferred[None]:
        """
        Close the connection of session C{sessionId}.
        """

    def endTable(kind: str, roomName: str, actor: Any,
                 reason: str) -> Deferred[None]:
        """
        End the game of room C{roomName} as abandoned.
        """

    def ban(target: str, seconds: float, reason: str,
            actor: Any) -> Deferred[None]:
        """
        Ban an account or a CIDR for C{seconds}.
        """

    def unban(target: str, actor: Any) -> Deferred[None]:
        """
        Lift the ban of an account or a CIDR.
        """

    def setRole(name: str, role: str, actor: Any) -> Deferred[None]:
        """
        Give account C{name} the role C{role}.
        """

    def received(message: Dict[str, Any]) -> Deferred[None]:
        """
        Apply a kick or ban another node of the cluster published.
        """


class IDisplayNames(Interface):
    """
    The display names the pages show
    (L{hub.accounts.displays.DisplayNames}).
    """

    def known(name: Optional[str]) -> Optional[str]:
        """
        The display name of the account C{name} if held, else None.
        """

    def lookup(accountNames: Iterable[Optional[str]]
               ) -> Deferred[Dict[str, str]]:
        """
        A Deferred of C{{name: display name}} of those that have one.
        """

    def changed(keys: Optional[Iterable[str]]) -> None:
        """
        Forget the accounts C{keys} (None: every one).
        """


class IGuessLimits(Interface):
    """
    The limits of password and key guesses by name and address
    (L{hub.accounts.guesses.GuessLimits}).
    """

    def locked(name: str, host: Optional[str]) -> bool:
        """
        Whether C{host} is past its limit, or its limit for C{name}.
        """

    def addressLocked(host: str) -> bool:
        """
        Whether C{host} is past its limit.
        """

    def wait(name: str, host: Optional[str]) -> Deferred[bool]:
        """
        Wait for C{name}'s delay.
        """

    def fail(name: str, host: Optional[str]) -> None:
        """
        One failed guess of C{name} from C{host}.
        """

    def failAddress(host: str) -> None:
        """
        Count a costly action against C{host} alone.
        """

    def refund(name: str, host: Optional[str]) -> None:
        """
        The guess L{fail} counted was right.
        """
