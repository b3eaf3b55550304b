"""
What every server connection shares, whatever its protocol: Nagle off,
writes at once (L{hub.connection.immediate}), the idle timeout, the limits
of L{hub.limits} (connection caps, request rate, bytes owed, unfinished
frames) and the factory base that refuses flooders (the web site's
too).  The protocol
adapters of L{hub.protocols} build on it.
"""

from __future__ import annotations

import copy
from typing import (
    TYPE_CHECKING, Any, Callable, List, Optional, TypeVar)

from twisted.internet.defer import Deferred
from twisted.internet.interfaces import (
    IAddress, IDelayedCall, IListeningPort, IReactorTime)
from twisted.internet.protocol import Factory, Protocol
from twisted.logger import Logger
from twisted.protocols.policies import TimeoutMixin
from twisted.python.failure import Failure
from zope.interface import implementer

from hub.ihub import IPausableFactory, IPeer
from hub.limits import (
    FRAME_SECONDS, REQUEST_RATE, SEND_BUFFER, THROTTLED_CONNECTIONS,
    AcceptPause, ConnectionGate, Limits, RequestBucket)
from hub.connection.control import NAMES, RATE, TransportControl
from hub.connection.immediate import ImmediateWriter, dropUnsent
from hub.net import setNoDelay

if TYPE_CHECKING:
    from hub.sessions import Sessions
    # Twisted's Factory is generic to type checkers only: the oldest
    # Twisted the hub supports cannot subscript it at run time.
    _FactoryBase = Factory[Protocol]
else:
    _FactoryBase = Factory

NO_LIMITS = Limits()
_Door = TypeVar("_Door", bound="ServerFactory")


@implementer(IPausableFactory)
class ServerFactory(_FactoryBase):
    """
    What the factories of every protocol share: a connection from an
    address in flooding debt (L{hub.limits.ConnectionGate.refuses}) gets
    no protocol at all (C{buildProtocol} returns None, and Twisted closes
    the socket at once), and a flood of such connections pauses the
    factory's listening ports for a moment (L{AcceptPause}).  Needs
    C{self.sessions} (its C{gate} and C{clock}), unless a subclass gives
    its own gate (L{connectionGate}: the web site's, L{hub.web.site}).

    @ivar acceptPause: the L{AcceptPause} of the ports listening with this
        factory (given by L{listeningOn}).
    @ivar names: the name check (L{hub.accounts.check.NameService}) the
        protocols call at name time and at connect time (banned
        addresses), or None where names are not checked (C{--names
        open}, C{--db none}).
    """

    acceptPause: Optional[AcceptPause] = None
    # A hub.accounts.check.NameService (a layer above this one).
    names: Optional[Any] = None
    # A door of the hub's own (engineDoor): no refusal or cap by address.
    ownDoor = False
    # Set by every subclass: the shared sessions.
    sessions: Sessions

    def connectionGate(self) -> Optional[ConnectionGate]:
        """
        The L{hub.limits.ConnectionGate} of this factory's connections:
        the sessions' (None if they have none).
        """
        return getattr(self.sessions, "gate", None)

    def buildProtocol(self, addr: Optional[IAddress]) -> Optional[Protocol]:
        """
        A protocol for a connection from C{addr}, or None to refuse it.
        """
        gate = None if self.ownDoor else self.connectionGate()
        if gate is not None and gate.refuses(getattr(addr, "host", None),
                                             addr):
            self.refused()
            return None
        return super().buildProtocol(addr)

    def engineDoor(self: _Door, **replaced: Any) -> _Door:
        """
        See L{IGameFactory.engineDoor}: a copy of this factory for the
        hub's own connections, with the collaborators C{replaced} (by
        their attribute's name: C{names}, C{policy}, C{seats}).
        """
        door = copy.copy(self)
        door.ownDoor = True
        for name, collaborator in replaced.items():
            if not hasattr(self, name):
                raise TypeError("{} has no {}".format(
                    type(self).__name__, name))
            setattr(door, name, collaborator)
        return door

    def refused(self) -> None:
        """
        A connection was refused before it had a protocol: count it
        toward a pause of the listening ports.
        """
        if self.acceptPause is not None:
            self.acceptPause.refused()

    def listeningOn(self, port: IListeningPort) -> None:
        """
        C{port} listens with this factory: pause it under a connection
        flood.
        """
        if self.acceptPause is None:
            gate = self.connectionGate()
            self.acceptPause = AcceptPause(
                gate.clock if gate is not None else self.sessions.clock)
        self.acceptPause.ports.append(port)


@implementer(IPeer)
class ServerConnection(TimeoutMixin):
    """
    What every server connection does, whatever its protocol: Nagle off,
    writes through an L{ImmediateWriter} (C{self.writer}), reading paused
    and resumed through the transport's L{TransportControl}
    (C{self.control}, shared with a cluster gate), closing when
    the peer has sent nothing for the sessions' C{idleSeconds} (never when
    that is 0), and the limits of the sessions' L{Limits}, all timed on
    their clock:

      - a connection above C{maxConnections} or C{maxConnectionsPerIP}
        is closed as soon as it is made;
      - a connection owed more than C{maxSendBuffer} bytes is closed;
      - a connection holding a frame begun but unfinished for
        C{frameSeconds} is closed;
      - a connection sending frames faster than C{requestRate} stops
        being read until it is back within its rate, and is closed past
        its C{requestOverdraft}.

    Limits close a connection at once (C{abortConnection}): a peer that
    does not read would keep a gentle close, and the bytes it is owed,
    waiting forever.  The protocol's C{connectionLost} follows as for
    any other drop.

    A protocol calls L{startConnection} from C{connectionMade} (one
    admitted by another gate, as C{/ws} is by the web port's, calls
    L{prepareConnection} then L{startLimits} instead), C{resetTimeout}
    at the start of every read, L{countRequest} for every frame and
    L{endConnection} from C{connectionLost}, says in
    L{partialFrameBytes} how much of an unfinished frame it holds, and
    forgets it in L{dropPartialFrame}.  It needs C{factory.sessions} and
    C{transport}.
    """

    connectionLog = Logger()

    # What the protocol this is mixed into has: its transport (any of the
    # hub's, TCP, TLS or a cluster's relay: no interface declares all it
    # is asked, such as disconnecting), its factory, and the writer made
    # by prepareConnection.
    transport: Any
    factory: ServerFactory
    writer: ImmediateWriter

    # The client's address when another node of a cluster relays the
    # connection (the connection limits count the client, not the node).
    forwardedFor = None
    control: Optional[TransportControl] = None
    _limits: Limits = NO_LIMITS
    _gate: Optional[ConnectionGate] = None
    _admitted = False
    _host: Optional[str] = None
    _bucket: Optional[RequestBucket] = None
    _resume: Optional[IDelayedCall] = None
    _frameCheck: Optional[IDelayedCall] = None
    _frameClean: float = 0
    _waiting: Optional[List[Any]] = None
    _ended = False

    def startConnection(self) -> None:
        """
        Set the connection up (L{prepareConnection}), close it at once when
        a connection limit is reached or its address is banned, else start
        its limits (L{startLimits}).
        """
        self.prepareConnection()
        gate = self._gate
        if gate is not None:
            host = None if self.factory.ownDoor else (
                self.forwardedFor
                or getattr(self.transport.getPeer(), "host", None))
            refused = gate.admit(host)
            if refused is not None:
                self.writer.close()
                gate.limited(refused, self.transport.getPeer(),
                             "too many connections")
                self.transport.loseConnection()
                return
            self._admitted, self._host = True, host
        names = getattr(self.factory, "names", None)
        if names is not None and names.addressBanned(self.peerAddress()):
            self.writer.close()
            self.logClosing("connections from banned addresses closed",
                            "closing {peer}: its address is banned",
                            peer=self.transport.getPeer())
            self.transport.loseConnection()
            return
        self.startLimits(self._host)

    def prepareConnection(self) -> None:
        """
        What a connection needs before it is admitted: Nagle off, its
        transport's L{TransportControl}, its writer (bounded by
        C{maxSendBuffer}) and the gate of its sessions.
        """
        setNoDelay(self.transport)
        self.control = TransportControl.of(self.transport)
        sessions = self.factory.sessions
        limits = self._limits = getattr(sessions, "limits", NO_LIMITS)
        self.writer = ImmediateWriter(
            self.transport, limits.maxSendBuffer or None,
            self._sendBufferOverflowed,
            getattr(self.factory, "writeBatch", None))
        self._gate = getattr(sessions, "gate", None)

    def startLimits(self, host: Optional[str]) -> None:
        """
        Start the idle timeout, the clock of unfinished frames and the
        request rate of a connection from C{host}: its address's debt, if
        it flooded, is inherited (L{hub.limits.ConnectionGate.bucketFor}),
        and one still past its overdraft is cut at once.
        """
        sessions = self.factory.sessions
        limits = self._limits
        # TimeoutMixin is not typed.
        self.setTimeout(  # type: ignore[no-untyped-call]
            sessions.idleSeconds or None)
        self._frameClean = sessions.clock.seconds()
        if limits.requestRate:
            gate = self._gate
            if gate is None:
                self._bucket = RequestBucket(limits, sessions.clock)
                return
            self._host = host
            self._bucket = gate.bucketFor(host)
            if self._bucket.overdrawn():
                # Its address flooded and is still past its overdraft:
                # closed before a byte is read.
                self.cutConnection(REQUEST_RATE, "its address is over {:g} "
                                   "frames a second".format(
                                       self._bucket.rate))

    def peerAddress(self) -> Optional[str]:
        """
        The client's address (the cluster's forwarded one, if relayed), or
        None.
        """
        return self.forwardedFor or getattr(self.transport.getPeer(),
                                            "host", None)

    def connectionOpen(self) -> bool:
        return self.transport is not None and \
            not self.transport.disconnecting

    def closeConnection(self) -> None:
        if self.transport is not None:
            self.transport.loseConnection()

    def endConnection(self) -> None:
        """
        The connection is gone: stop its timers, free its place, drop the
        unfinished frame it holds (L{dropPartialFrame}) and the writer's
        hook back to it, so that nothing of the connection waits for the
        cyclic garbage collector.
        """
        self.setTimeout(None)  # type: ignore[no-untyped-call] # untyped mixin
        self.dropPartialFrame()
        self._ended = True
        self._waiting = None
        writer = getattr(self, "writer", None)
        if writer is not None:
            # The overflow hook is a bound method of this connection.
            writer.close()
            writer.overflowed = None
        for name in ("_resume", "_frameCheck"):
            call = getattr(self, name)
            if call is not None:
                if call.active():
                    call.cancel()
                setattr(self, name, None)
        if self.control is not None:
            # The transport may live on (a cluster relays it): this
            # connection's limit no longer holds its reading.
            self.control.resumeReading(RATE)
        if self._admitted:
            # Only a connection its gate admitted.
            assert self._gate is not None
            self._admitted = False
            self._gate.release(self._host)

    def callLater(self, period: float,
                  func: Callable[[], object]) -> IDelayedCall:
        clock: IReactorTime = self.factory.sessions.clock
        return clock.callLater(period, func)

    # Answers that wait (the name check).

    def whenDecided(self, decision: Deferred[Any],
                    handle: Callable[[Any], object]) -> None:
        """
        Call C{handle} with the result of the Deferred C{decision} (a name
        check's), at once if it has one; else when it comes, reading
        paused meanwhile, and the frames that came after the one being
        answered waiting (L{frameWaits}) to be handled after it, in order
        (through L{takeFrame}).  Nothing happens if the connection is
        gone by then.
        """
        control = self.control
        # Prepared (prepareConnection) before any frame is read.
        assert control is not None
        now: List[Any] = []

        def decided(result: Any) -> None:
            if not now:
                now.append(result)
                return
            waiting, self._waiting = self._waiting, None
            if self._ended or self.transport.disconnecting:
                return
            control.resumeReading(NAMES)
            handle(result)
            for frame in waiting or ():
                self.takeFrame(frame)

        def failed(failure: Failure) -> None:
            self.connectionLog.failure("a name check failed", failure)
            if not self._ended:
                self.transport.loseConnection()
        decision.addCallback(decided).addErrback(failed)
        if now:
            handle(now[0])
            return
        now.append(None)
        self._waiting = []
        control.pauseReading(NAMES)

    def frameWaits(self, frame: Any) -> bool:
        """
        Whether C{frame} must wait for an answer under way (then it is
        kept, to be given to L{takeFrame} after it).
        """
        if self._waiting is None:
            return False
        self._waiting.append(frame)
        return True

    def takeFrame(self, frame: Any) -> None:
        """
        Handle one frame that waited for an answer (L{whenDecided}); the
        protocol's.
        """
        raise NotImplementedError()

    def timeoutConnection(self) -> None:
        self.logClosing("idle connections closed",
                        "closing {peer}: nothing received for {seconds}s",
                        peer=self.transport.getPeer(), seconds=self.timeOut)
        self.transport.loseConnection()

    def logClosing(self, kind: str, format: str, /, **fields: Any) -> None:
        """
        Log at info why the hub closes this connection, summarised with
        the others of C{kind} under a flood (L{hub.limits.SummaryLog}).
        """
        fields.setdefault("event", "closed")
        gate = getattr(self.factory.sessions, "gate", None)
        if gate is None:
            self.connectionLog.info(format, **fields)
        else:
            gate.summary.note(kind, format, **fields)

    def resetTimeout(self) -> None:
        """
        A read begins: restart the idle count, and note whether the reads
        before it left an unfinished frame.
        """
        # TimeoutMixin is not typed.
        TimeoutMixin.resetTimeout(self)  # type: ignore[no-untyped-call]
        if self._limits.frameSeconds:
            self._readStarted()

    def cutConnection(self, limit: str, why: str) -> None:
        """
        Close the connection at once for C{limit} (C{why} says how): drop
        what it is owed, handle no more of what it sent, count and log it.
        """
        self.writer.close()
        if self._gate is not None:
            self._gate.limited(limit, self.forwardedFor
                               or self.transport.getPeer(), why)
        transport = self.transport
        # loseConnection marks the transport as disconnecting, which stops
        # the protocols' frame loops; abortConnection drops the buffers and
        # reports the loss without waiting for the peer.
        transport.loseConnection()
        abort = getattr(transport, "abortConnection", None)
        if abort is not None:
            abort()
            dropUnsent(transport)

    def _sendBufferOverflowed(self) -> None:
        self.cutConnection(
            SEND_BUFFER, "more than {} bytes unsent".format(
                self._limits.maxSendBuffer))

    # Frames left unfinished.

    def partialFrameBytes(self) -> int:
        """
        How many bytes of a frame begun but not finished the protocol
        holds.  Each protocol says it; this default holds none.
        """
        return 0

    def dropPartialFrame(self) -> None:
        """
        Forget the unfinished frame the protocol holds (the connection is
        gone).  Each protocol with a frame buffer clears it; this default
        holds none.
        """

    def framePending(self) -> bool:
        """
        Whether the protocol holds a frame begun but not finished.
        """
        return self.partialFrameBytes() > 0

    def _readStarted(self) -> None:
        # What the previous reads left is what this one starts from: if
        # nothing, no frame has been unfinished since now.
        clock = self.factory.sessions.clock
        now = clock.seconds()
        if not self.framePending():
            self._frameClean = now
        if self._frameCheck is None:
            self._frameCheck = clock.callLater(
                max(0, self._frameClean + self._limits.frameSeconds - now),
                self._checkFrame)

    def _checkFrame(self) -> None:
        self._frameCheck = None
        if self.transport.disconnecting or self._resume is not None:
            # Closing, or not being read (resuming rearms the check).
            return
        clock = self.factory.sessions.clock
        now = clock.seconds()
        if not self.framePending():
            self._frameClean = now
            return
        seconds = self._limits.frameSeconds
        if now - self._frameClean >= seconds:
            self.cutConnection(FRAME_SECONDS, "a frame unfinished for "
                               "{:g}s".format(seconds))
        else:
            self._frameCheck = clock.callLater(
                self._frameClean + seconds - now, self._checkFrame)

    # Request rate.

    def countRequest(self) -> None:
        """
        One frame received: take its token.  A connection out of tokens
        stops being read until it has them back; one past its overdraft is
        closed (and the rest of what it sent is not handled).
        """
        bucket = self._bucket
        if bucket is None or self.transport.disconnecting:
            return
        if bucket.take():
            if self._gate is not None:
                self._gate.flooded(self._host, bucket)
            self.cutConnection(REQUEST_RATE, "over {:g} frames a second"
                               .format(bucket.rate))
        elif bucket.tokens < 0 and self._resume is None:
            THROTTLED_CONNECTIONS.inc()
            # A bucket is given only once prepareConnection made the
            # control.
            assert self.control is not None
            self.control.pauseReading(RATE)
            self._resume = self.factory.sessions.clock.callLater(
                bucket.wait(), self._resumeReading)

    def _resumeReading(self) -> None:
        self._resume = None
        if self.transport.disconnecting:
            return
        clock = self.factory.sessions.clock
        # Only a connection with a bucket (and its control) waits.
        assert self._bucket is not None and self.control is not None
        wait = self._bucket.wait()
        if wait > 0:
            self._resume = clock.callLater(wait, self._resumeReading)
            return
        self.control.resumeReading(RATE)
        # The time spent unread is not the peer's.
        self._frameClean = clock.seconds()
        if self._limits.frameSeconds and self._frameCheck is None:
            self._frameCheck = clock.callLater(self._limits.frameSeconds,
                                               self._checkFrame)
