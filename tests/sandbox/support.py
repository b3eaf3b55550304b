"""
Running real programs in a real sandbox from a trial test: the
program's output, how it ended, and what the host sees of it.
"""

import json
import os
import shutil
import signal
import tempfile
import textwrap

from twisted.internet import defer, reactor
from twisted.internet.protocol import ProcessProtocol

from hub.sandbox.confine import Confinement
from hub.sandbox.process import BwrapSandbox, NoSandbox

#: A bounded wait for real processes (the machine may be busy).
WAIT = 90
MB = 1024 * 1024
#: Debian's own Python: what a hub that is not root runs in the tests'
#: unprivileged sandbox (the tests' Python may be in root's home).
SYSTEM_PYTHON = "/usr/bin/python3"


def folder(case, mode=0o700):
    """
    A fresh temporary folder, removed after C{case}.
    """
    path = tempfile.mkdtemp(prefix="gamehub-sandbox-")
    os.chmod(path, mode)
    case.addCleanup(shutil.rmtree, path, True)
    return path


def python(code, *args, interpreter="python"):
    """
    The argv of C{python -c code} (C{python}: the hub's, first on the
    sandbox's C{PATH}).
    """
    return [interpreter, "-c", textwrap.dedent(code)] + list(args)


class Program(ProcessProtocol):
    """
    Collects a program's output; L{ended} fires with C{(how, output)}.

    @ivar lines: the output's lines so far.
    """

    def __init__(self):
        self.output = b""
        self.ended = defer.Deferred()
        self._waiting = []

    def childDataReceived(self, fd, data):
        self.output += data
        waiting, self._waiting = self._waiting, []
        for text, d in waiting:
            if text in self.output:
                d.callback(self.output)
            else:
                self._waiting.append((text, d))

    def seen(self, text):
        """
        A Deferred firing once the output holds C{text}.
        """
        if text in self.output:
            return defer.succeed(self.output)
        d = defer.Deferred()
        self._waiting.append((text, d))
        return d

    def processEnded(self, reason):
        how, failed = self.transport.endText(reason)
        self.ended.callback((how, self.output))


def bounded(d, seconds=WAIT):
    """
    C{d}, failing with a timeout after C{seconds} of real time.
    """
    return d.addTimeout(seconds, reactor)


def run(case, sandbox, argv, **kwargs):
    """
    Run C{argv} confined (C{kwargs} go to L{Confinement}); killed, if
    it still runs, after C{case}.

    @return: C{(program, handle)}.
    """
    program = Program()
    handle = sandbox.spawn(program, Confinement(argv, **kwargs))

    def kill():
        if program.ended.called:
            return None
        handle.signal(signal.SIGKILL)
        return bounded(program.ended)
    case.addCleanup(kill)
    return program, handle


@defer.inlineCallbacks
def report(case, sandbox, code, *args, **kwargs):
    """
    Run C{code} (Python printing one JSON line last) confined.

    @return: a Deferred of C{(how it ended, the JSON's value)}.
    """
    program, _ = run(case, sandbox, python(code, *args), **kwargs)
    how, output = yield bounded(program.ended)
    lines = output.decode("utf-8", "replace").strip().splitlines()
    try:
        value = json.loads(lines[-1])
    except (IndexError, ValueError):
        raise AssertionError("no report: {} {}".format(how, output))
    return how, value


def processes():
    """
    The host's processes: pid -> its command line's words.
    """
    found = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % (name,), "rb") as f:
                found[int(name)] = [word.decode("utf-8", "replace") for word
                                    in f.read().split(b"\0")[:-1]]
        except OSError:
            pass
    return found


def alive(pid):
    """
    Whether process C{pid} runs (a zombie does not).
    """
    try:
        with open("/proc/%d/stat" % (pid,)) as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def marked(marker, program="python"):
    """
    The pids of the host's live processes of C{program} (the start of
    the first word's file name) that have C{marker} as a word (not
    bwrap's, whose command line holds its program's).
    """
    return sorted(
        pid for pid, words in processes().items()
        if words and os.path.basename(words[0]).startswith(program)
        and marker in words and alive(pid) and pid != os.getpid())


def status(pid):
    """
    The fields of C{/proc/PID/status}.
    """
    with open("/proc/%d/status" % (pid,)) as f:
        return dict(line.rstrip("\n").split(":\t", 1) for line in f
                    if ":\t" in line)


def waitFor(condition, seconds=WAIT, interval=0.1):
    """
    A Deferred firing once C{condition()} is true, asked every
    C{interval} seconds of real time (the host's processes change on
    their own time), failing after C{seconds}.
    """
    d = defer.Deferred()

    def check():
        if d.called:
            return
        if condition():
            d.callback(None)
        else:
            reactor.callLater(interval, check)
    check()
    return bounded(d, seconds)


def sandbox(case, **kwargs):
    """
    A L{BwrapSandbox} of the tests' hub (the runner's user: root here
    and in CI), its socket folder removed after C{case}.
    """
    box = BwrapSandbox(reactor, folder(case), **kwargs)
    return box


def unprivilegedSandbox(case):
    """
    A L{BwrapSandbox} as a hub that is not root has it: bwrap runs as
    nobody and makes the user namespace itself, with Debian's Python.
    """
    run = folder(case)
    os.chown(run, 65534, 65534)
    return BwrapSandbox(reactor, run, python=SYSTEM_PYTHON, readOnly=[],
                        runAs=(65534, 65534))


def noSandbox(case):
    """
    A L{NoSandbox} working in a temporary folder.
    """
    return NoSandbox(reactor, os.path.join(folder(case), "work"))


