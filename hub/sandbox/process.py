"""
Confined programs started from the reactor: L{BwrapSandbox} (the
default, C{--engine-sandbox bwrap}) and L{NoSandbox} (C{none}, limits
only).  Each gives a program one listener of the hub's to reach
(L{Sandbox.listen}), or none, and runs it (L{Sandbox.spawn}) under a
caller's C{ProcessProtocol}, which sees its standard streams (stdin
open, for programs that talk over it) and its end; the returned
L{SandboxedProcess} signals its whole tree (C{SIGTERM}, C{SIGKILL},
C{SIGSTOP}/C{SIGCONT}).
"""

import itertools
import json
import os
import shutil
import signal
import sys
import tempfile
from typing import (
    Any, Callable, Iterable, List, Optional, Sequence, Tuple, Union,
    cast)

import attr
from twisted.internet import defer, endpoints, error
from twisted.internet.interfaces import IProtocolFactory
from twisted.internet.protocol import ProcessProtocol
from twisted.logger import Logger
from twisted.python.failure import Failure
from zope.interface import implementer

from hub.sandbox import confine
from hub.sandbox.interfaces import ISandbox
from hub.twistedinternals import childStdinWriter

#: The descriptor bwrap writes its information (the sandbox's pid) to.
INFO_FD = 3
#: The descriptor bwrap reads L{hub.sandbox.inside} from.
HELPER_FD = 4
#: Bytes of bwrap's information read at most.
INFO_CAP = 4096
#: The one line of a hub whose engines need bwrap and that has none.
MISSING = ("the engine sandbox needs bubblewrap: apt-get install "
           "bubblewrap, or run the hub with --engine-sandbox none (engines "
           "then run with the hub's own rights)")
#: The line of a hub whose bwrap does not work.
BROKEN = ("bwrap cannot confine engines here ({}): see docs/deploy.md, or "
          "run the hub with --engine-sandbox none")
#: Seconds the probe of a sandbox may take.
PROBE_SECONDS = 30.0
#: The choices of C{--engine-sandbox}.
CHOICES = ("bwrap", "none")


def endText(reason: Failure,
            statusSignals: bool = False) -> Tuple[str, bool]:
    """
    How a process ended, from the failure C{processEnded} got.

    @param statusSignals: an exit status above 128 is a signal (bwrap
        reports its program's signal so).
    @return: C{(text, failed)}: failed for a non-zero status or a
        signal.
    """
    value = reason.value
    signum = getattr(value, "signal", None)
    code = getattr(value, "exitCode", None)
    if signum is None and statusSignals and code and 128 < code < 128 + 65:
        signum = code - 128
    if signum is not None:
        try:
            name = signal.Signals(signum).name
        except ValueError:
            name = str(signum)
        return "killed by {}".format(name), True
    if code:
        return "exited with status {}".format(code), True
    return "exited with status 0", False


class TreeTransport:
    """
    The transport a confined program's protocol gets: the process's
    own (write to its stdin, close a descriptor, pause reading...),
    but C{signalProcess} reaches the program's whole tree, and
    C{endText} says how it ended.
    """

    def __init__(self, transport: Any, tree: "SandboxedProcess") -> None:
        self._transport = transport
        self._tree = tree
        self._direct = True

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)

    def write(self, data: bytes) -> None:
        """
        Write C{data} to the program's standard input: at once, one
        system call, while nothing of it waits in the reactor's buffer
        (a command each turn costs no turn of the reactor); once
        something had to wait (a full pipe), always after it.
        """
        if self._direct:
            writer = childStdinWriter(self._transport)
            if writer is not None:
                try:
                    written = os.write(writer.fileno(), data)
                except OSError:
                    # Full (EAGAIN) or gone: the reactor's write finds out.
                    written = 0
                if written == len(data):
                    return
                data = data[written:]
            self._direct = False
        self._transport.write(data)

    def signalProcess(self, signalID: Union[str, int]) -> None:
        """
        Signal the program's tree: C{"TERM"}, C{"KILL"}, C{"STOP"}... or
        a number.

        @raise ProcessExitedAlready: nothing is left to signal.
        """
        if isinstance(signalID, str):
            signalID = cast(int, getattr(signal, "SIG" + signalID))
        if not self._tree.signal(signalID):
            raise error.ProcessExitedAlready()

    def endText(self, reason: Failure) -> Tuple[str, bool]:
        return self._tree.endText(reason)


class SandboxedProcess(ProcessProtocol):
    """
    One confined program: passes its standard streams and its end to
    C{protocol} (whose C{transport} is a L{TreeTransport}), and signals
    its whole tree.

    @ivar pid: the pid of what the hub started (bwrap, or the helper).
    @ivar group: the process group of the program's tree once known
        (bwrap: its sandbox's first process; none: its session).
    @ivar cleanups: functions called once it has ended.
    """

    def __init__(self, protocol: ProcessProtocol, sandboxed: bool) -> None:
        self.protocol = protocol
        self.sandboxed = sandboxed
        self.pid: Optional[int] = None
        self.group: Optional[int] = None
        self.exited = False
        self.cleanups: List[Callable[[], object]] = []
        self._info = b""

    def makeConnection(self, transport: Any) -> None:
        self.transport = transport
        self.pid = transport.pid
        if not self.sandboxed:
            self.group = self.pid
        self.protocol.makeConnection(TreeTransport(transport, self))

    def childDataReceived(self, fd: int, data: bytes) -> None:
        if fd == INFO_FD and self.sandboxed:
            self._readInfo(data)
        else:
            self.protocol.childDataReceived(fd, data)

    def _readInfo(self, data: bytes) -> None:
        if self.group is not None or len(self._info) > INFO_CAP:
            return
        self._info += data
        try:
            info = json.loads(self._info)
        except ValueError:
            return
        pid = info.get("child-pid") if isinstance(info, dict) else None
        if isinstance(pid, int) and pid > 1:
            self.group = pid

    def childConnectionLost(self, fd: int) -> None:
        if fd != INFO_FD or not self.sandboxed:
            self.protocol.childConnectionLost(fd)

    def processExited(self, reason: Failure) -> None:
        self.exited = True
        if not self.sandboxed:
            # What it forked and left behind in its session goes with
            # it (it may hold the output pipes).
            self.signal(signal.SIGKILL)
        else:
            # What is left in bwrap's group: a child bwrap died before
            # letting go on, which would wait for it for ever (holding
            # the output pipes).  The group is gone once it is empty.
            try:
                os.killpg(cast(int, self.pid), signal.SIGKILL)
            except OSError:
                pass
        self.protocol.processExited(reason)

    def processEnded(self, reason: Failure) -> None:
        self.exited = True
        for cleanup in self.cleanups:
            cleanup()
        del self.cleanups[:]
        self.protocol.processEnded(reason)

    def endText(self, reason: Failure) -> Tuple[str, bool]:
        """
        L{endText} of C{reason}, this sandbox's way.
        """
        return endText(reason, self.sandboxed)

    def signal(self, signum: int) -> bool:
        """
        Send C{signum} to the program's whole tree.  Under bwrap, before
        the sandbox's pid is known and for C{SIGKILL}, bwrap itself gets
        it too (its sandbox then dies with it); a C{SIGKILL} goes to
        bwrap's group and its children too, so the sandbox's first
        process with them: until bwrap has set it up, it has no process
        group of its own (bwrap tells its pid before that), and would
        wait for the killed bwrap for ever.

        @return: whether anything was signalled.
        """
        if self.sandboxed and self.exited:
            return False   # the sandbox and all in it are gone
        sent = False
        if self.group is not None:
            try:
                os.killpg(self.group, signum)
                sent = True
            except OSError:
                pass
        if self.sandboxed and not self.exited and (
                self.group is None or signum == signal.SIGKILL):
            # Set by makeConnection, in spawnProcess.
            pid = cast(int, self.pid)
            setUp = childrenOf(pid) if signum == signal.SIGKILL else []
            if signum == signal.SIGKILL:
                # bwrap leads a group of its own (BwrapSandbox.spawn),
                # which its child is in until bwrap lets it go on: one
                # kill reaches both, and a child being cloned as it
                # comes (the kernel then fails the clone).
                try:
                    os.killpg(pid, signum)
                    sent = True
                except OSError:
                    pass
            for each in [pid] + setUp:
                try:
                    os.kill(each, signum)
                    sent = True
                except OSError:
                    pass
        if not sent and not self.exited and self.transport is not None:
            try:
                self.transport.signalProcess(
                    "KILL" if signum == signal.SIGKILL else signum)
                sent = True
            except (error.ProcessExitedAlready, OSError):
                pass
        return sent


@attr.s
class Listener:
    """
    A listener of the hub's that one program reaches.

    @ivar listening: its L{twisted.internet.interfaces.IListeningPort}.
    @ivar port: the port the program connects to on 127.0.0.1.
    @ivar forward: the L{confine.Forward} that carries it (bwrap), or
        None (the port is the hub's own).
    """

    listening = attr.ib()
    port = attr.ib()
    forward = attr.ib(default=None)

    def stopListening(self) -> "defer.Deferred[Any]":
        d = defer.maybeDeferred(self.listening.stopListening)

        def unlink(result: object) -> object:
            if self.forward is not None:
                try:
                    os.unlink(self.forward.socket)
                except OSError:
                    pass
            return result
        return d.addBoth(unlink)


@implementer(ISandbox)
class NoSandbox:
    """
    C{--engine-sandbox none}: a program runs as the hub's user, with
    the limits and the clean environment only, in a working folder of
    its own on disk (under C{workRoot}, removed once it has ended),
    reaching a TCP listener of the hub's on 127.0.0.1.
    """

    name = "none"
    confines = False

    def __init__(self, reactor: Any, workRoot: str,
                 python: str = sys.executable) -> None:
        self.reactor = reactor
        self.workRoot = workRoot
        self.python = python
        self._numbers = itertools.count(1)

    def problem(self) -> Optional[str]:
        return None

    def probe(self) -> "defer.Deferred[Optional[str]]":
        return defer.succeed(None)

    def cleanUp(self) -> None:
        """
        Nothing to remove: each working folder goes with its program.
        """

    def describe(self) -> str:
        return "none (engines run with the hub's rights)"

    def listen(self, factory: IProtocolFactory,
               port: int) -> "defer.Deferred[Listener]":
        """
        A listener for one program: TCP, on a free loopback port.
        """
        endpoint = endpoints.TCP4ServerEndpoint(self.reactor, 0,
                                                interface="127.0.0.1")
        d = endpoint.listen(factory)
        return d.addCallback(lambda listening: Listener(
            listening, listening.getHost().port))

    def spawn(self, protocol: ProcessProtocol,
              confinement: confine.Confinement) -> SandboxedProcess:
        """
        Run C{confinement} under C{protocol}.

        @return: its L{SandboxedProcess}.
        """
        os.makedirs(self.workRoot, mode=0o700, exist_ok=True)
        work = tempfile.mkdtemp(prefix="%d-" % (next(self._numbers),),
                                dir=self.workRoot)
        env = confine.cleanEnvironment(
            confinement.environment, confine.searchPath(self.python), work)
        env["TMPDIR"] = work
        settings = {"setsid": True,
                    "limits": confinement.limits.rlimits()}
        argv = confine.helperArguments(self.python, settings,
                                       confinement.argv)
        handle = SandboxedProcess(protocol, False)
        handle.cleanups.append(
            lambda: shutil.rmtree(work, ignore_errors=True))
        try:
            self.reactor.spawnProcess(
                handle, argv[0], argv, env=env,
                path=confinement.folder or work,
                childFDs={0: "w", 1: "r", 2: "r"})
        except Exception:
            shutil.rmtree(work, ignore_errors=True)
            raise
        return handle


@implementer(ISandbox)
class BwrapSandbox:
    """
    C{--engine-sandbox bwrap}: a program runs under bubblewrap, as
    docs/deploy.md describes, reaching one Unix socket of the hub's
    (in C{runFolder}: by default a private temporary folder made at the
    first listener and removed by L{cleanUp}) as 127.0.0.1:PORT, or
    nothing.

    @param hidden: paths of the hub's never shown (its database, its
        working directory); no folder holding one is bound.
    @param closed: folders of the hub's nothing of which is shown (its
        engine logs).
    @param python: the interpreter of L{hub.sandbox.inside} (and of
        C{python} inside): the hub's.
    @param bwrap: bwrap's path (default: found on C{PATH}).
    @param readOnly: the folders of the hub's Python (default
        L{confine.pythonFolders}).
    @param runAs: C{(uid, gid)} to run bwrap as, from a root hub (the
        tests' way to try an unprivileged hub's sandbox), or None.
    """

    name = "bwrap"
    confines = True
    log = Logger()

    def __init__(self, reactor: Any, runFolder: Optional[str] = None,
                 hidden: Iterable[str] = (), closed: Iterable[str] = (),
                 python: str = sys.executable, bwrap: Optional[str] = None,
                 readOnly: Optional[Iterable[str]] = None,
                 runAs: Optional[Tuple[int, int]] = None) -> None:
        self.reactor = reactor
        self.runFolder = runFolder
        self._ownFolder = runFolder is None
        self.hidden = tuple(hidden)
        self.closed = tuple(closed)
        self.python = python
        self.bwrap = bwrap
        self.readOnly = (confine.pythonFolders() if readOnly is None
                         else list(readOnly))
        self.runAs = runAs
        self.broken: Optional[str] = None
        self._system: Optional[List[str]] = None
        self._numbers = itertools.count(1)

    def command(self) -> Optional[str]:
        """
        bwrap's path, or None when it is not installed.
        """
        if self.bwrap is not None:
            return self.bwrap if os.access(self.bwrap, os.X_OK) else None
        return shutil.which("bwrap")

    def problem(self) -> Optional[str]:
        """
        Why no program can be confined now (one line), or None.
        """
        if self.command() is None:
            return MISSING
        try:
            confine.checkBinds(self.readOnly, self.hidden, self.closed)
        except confine.NotAllowed as e:
            return "the hub's Python cannot be shown to engines: {}".format(
                e)
        return self.broken

    def describe(self) -> str:
        return "bwrap ({})".format(self.command() or "not installed")

    def probe(self) -> "defer.Deferred[Optional[str]]":
        """
        Run C{true} in a sandbox once, to find out whether bwrap works
        here; a failure is kept as L{problem}.  First kill the sandboxes
        an earlier hub, killed outright, left waiting
        (L{sweepStranded}).

        @return: a Deferred firing with L{problem}.  Cancelled (the hub
            stops while bwrap runs), it kills bwrap and fails with
            C{CancelledError} once bwrap is gone.
        """
        if self.problem() is not None:
            return defer.succeed(self.problem())
        swept = sweepStranded()
        if swept:
            self.log.warn(
                "killed {count} engine sandbox process(es) left waiting by "
                "a hub killed outright (docs/deploy.md, \"A killed hub\")",
                count=swept)
        ending: defer.Deferred[Tuple[int, bytes]] = defer.Deferred()
        try:
            handle = self.spawn(_Collector(ending),
                                confine.Confinement(["true"]))
        except Exception as e:
            self.broken = BROKEN.format(e)
            return defer.succeed(self.broken)
        # A bwrap that hangs is killed (and counts as broken).
        timer = self.reactor.callLater(PROBE_SECONDS, handle.signal,
                                       signal.SIGKILL)
        gone: defer.Deferred[Optional[str]] = defer.Deferred()
        killed = False

        def cancel(probing: "defer.Deferred[Optional[str]]") -> None:
            nonlocal killed
            if timer.active():
                timer.cancel()
            handle.signal(signal.SIGKILL)
            killed = True
            probing.callback(None)

        probing: defer.Deferred[Optional[str]] = defer.Deferred(cancel)
        # Killed, it waits for bwrap's end.
        probing.addCallback(lambda problem: gone if killed else problem)

        def ended(result: Tuple[int, bytes]) -> None:
            if timer.active():
                timer.cancel()
            if killed:
                gone.errback(defer.CancelledError())
                return
            status, output = result
            if status != 0:
                lines = output.decode("utf-8", "replace").strip()
                self.broken = BROKEN.format(
                    lines.splitlines()[-1] if lines else
                    "exit status {}".format(status))
            probing.callback(self.problem())
        ending.addCallback(ended)
        return probing

    def cleanUp(self) -> None:
        """
        Remove the private folder of the listeners (once they are
        closed).
        """
        if self._ownFolder and self.runFolder is not None:
            shutil.rmtree(self.runFolder, ignore_errors=True)
            self.runFolder = None

    def listen(self, factory: IProtocolFactory,
               port: int) -> "defer.Deferred[Listener]":
        """
        A listener for one program: a Unix socket in L{runFolder} that
        the program reaches as 127.0.0.1:C{port}.
        """
        if self.runFolder is None:
            self.runFolder = tempfile.mkdtemp(prefix="gamehub-sockets-")
        os.makedirs(self.runFolder, mode=0o700, exist_ok=True)
        path = os.path.join(self.runFolder, "%d.sock" % (
            next(self._numbers),))
        # The folder is the hub's alone; the program, another user
        # under a root hub, connects through its bind mount.
        endpoint = endpoints.UNIXServerEndpoint(self.reactor, path,
                                                mode=0o666)
        d = endpoint.listen(factory)
        return d.addCallback(lambda listening: Listener(
            listening, port, confine.Forward(port, path)))

    def spawn(self, protocol: ProcessProtocol,
              confinement: confine.Confinement) -> SandboxedProcess:
        """
        Run C{confinement} under C{protocol}.

        @return: its L{SandboxedProcess}.
        @raise confine.NotAllowed: its folder would show the hub's data.
        @raise OSError: bwrap is missing.
        """
        bwrap = self.command()
        if bwrap is None:
            raise OSError(MISSING)
        folders = list(self.readOnly)
        if confinement.folder:
            folders.append(confinement.folder)
        confine.checkBinds(folders, self.hidden, self.closed + (
            (self.runFolder,) if self.runFolder else ()))
        if self._system is None:
            self._system = confine.systemArguments()
        args = confine.bwrapArguments(
            confinement, bwrap, self.python, self.readOnly,
            self.runAs is None and os.geteuid() == 0, INFO_FD,
            self._system, HELPER_FD)
        env = confine.cleanEnvironment(
            confinement.environment, confine.searchPath(self.python),
            confine.WORK)
        handle = SandboxedProcess(protocol, True)
        uid, gid = self.runAs or (None, None)
        # bwrap in a session of its own: SandboxedProcess.signal's group.
        leader = shutil.which("setsid")
        if leader is not None:
            args = [leader] + args
        helper = _dataPipe(confine.helperSource())
        try:
            self.reactor.spawnProcess(
                handle, args[0], args, env=env, path="/", uid=uid, gid=gid,
                childFDs={0: "w", 1: "r", 2: "r", INFO_FD: "r",
                          HELPER_FD: helper})
        finally:
            os.close(helper)
        return handle


def strandedSandboxes(helper: str = confine.HELPER) -> List[int]:
    """
    The pids of sandboxes that a hub killed outright left waiting for ever
    (docs/deploy.md, "A killed hub"): bwrap processes given C{helper}
    whose session, the one the hub's C{setsid} made for their outer
    bwrap, has lost its leader (that bwrap) and whose parent is not a
    bwrap.  A live sandbox's outer bwrap leads its session until the
    sandbox ends.
    """
    stranded = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        pid = int(name)
        words = _commandLine(pid)
        if not _isBwrap(words) or os.fsencode(helper) not in words:
            continue
        try:
            with open("/proc/%d/stat" % (pid,)) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # After the name: state, ppid, pgrp, session.
        parent, group, session = (int(word) for word in fields[1:4])
        if (group != session or session == pid
                or os.path.exists("/proc/%d" % (session,))
                or _isBwrap(_commandLine(parent))):
            continue
        stranded.append(pid)
    return stranded


def sweepStranded(helper: str = confine.HELPER) -> int:
    """
    Kill the L{strandedSandboxes} of C{helper}.

    @return: how many were killed.
    """
    killed = 0
    for pid in strandedSandboxes(helper):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            continue
        killed += 1
    return killed


def _commandLine(pid: int) -> List[bytes]:
    """
    The words of process C{pid}'s command line, or none when it is gone.
    """
    try:
        with open("/proc/%d/cmdline" % (pid,), "rb") as f:
            return f.read().split(b"\0")
    except OSError:
        return []


def _isBwrap(words: Sequence[bytes]) -> bool:
    return bool(words) and os.path.basename(words[0]) == b"bwrap"


def childrenOf(pid: int) -> List[int]:
    """
    The pids of the children of process C{pid}'s main thread (Linux's
    C{/proc/PID/task/PID/children}), or none when it is gone.
    """
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(word) for word in f.read().split()]
    except (OSError, ValueError):
        return []


def _dataPipe(data: bytes) -> int:
    """
    The reading end of a pipe that holds C{data} (less than a pipe's
    buffer) and then its end.
    """
    if len(data) >= 65536:
        raise ValueError("too much for a pipe's buffer")
    reading, writing = os.pipe()
    try:
        os.write(writing, data)
    finally:
        os.close(writing)
    return reading


class _Collector(ProcessProtocol):
    """
    Keeps a process's output (a little of it) and fires C{done} with
    C{(status, output)} at its end.
    """

    def __init__(self, done: "defer.Deferred[Tuple[int, bytes]]") -> None:
        self.done = done
        self.output = b""

    def childDataReceived(self, fd: int, data: bytes) -> None:
        self.output = (self.output + data)[-4096:]

    def processEnded(self, reason: Failure) -> None:
        self.done.callback((getattr(reason.value, "exitCode", None) or 0
                            if getattr(reason.value, "signal", None) is None
                            else -1, self.output))


def sandboxFor(choice: str, reactor: Any, workRoot: str,
               hidden: Iterable[str] = (), closed: Iterable[str] = (),
               ) -> Union[NoSandbox, "BwrapSandbox"]:
    """
    The sandbox of C{--engine-sandbox CHOICE}.

    @param workRoot: the folder of the working folders under C{none}.
    """
    if choice == "none":
        return NoSandbox(reactor, workRoot)
    if choice == "bwrap":
        return BwrapSandbox(reactor, None, hidden, closed)
    raise ValueError("--engine-sandbox is one of {}, not {!r}".format(
        ", ".join(CHOICES), choice))
