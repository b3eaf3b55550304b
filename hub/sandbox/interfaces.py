"""
What the tournaments' engine runner calls on a sandbox
(L{hub.sandbox.process}: C{NoSandbox}, C{BwrapSandbox}).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from zope.interface import Attribute, Interface

if TYPE_CHECKING:
    from twisted.internet.defer import Deferred
    from twisted.internet.interfaces import IProtocolFactory


class ISandbox(Interface):
    """
    Where the engines of a tournament run, and how they reach the hub.
    """

    name = Attribute("The --engine-sandbox value: 'none' or 'bwrap'.")
    confines = Attribute("Whether a program is confined.")

    def problem() -> Optional[str]:
        """
        Why no program can be confined now (one line), or None.
        """

    def probe() -> Deferred[Optional[str]]:
        """
        Find out whether the sandbox works here: a Deferred of its
        problem, or None.  Cancelled, it stops the finding out and fires
        once nothing of it runs.
        """

    def describe() -> str:
        """
        What the sandbox is, for the log.
        """

    def listen(factory: IProtocolFactory, port: int) -> Deferred[Any]:
        """
        A Deferred of a listener for one program, reached as
        127.0.0.1:C{port}.
        """

    def spawn(protocol: Any, confinement: Any) -> Any:
        """
        Run C{confinement} (a L{hub.sandbox.confine.Confinement}) under
        C{protocol}.
        """

    def cleanUp() -> None:
        """
        Remove what the listeners left.
        """
