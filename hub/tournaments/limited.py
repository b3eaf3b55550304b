"""
C{python -m hub.tournaments.limited --cpu SECONDS --as BYTES -- ARGV...}:
run C{ARGV} under a CPU and a memory limit, in a session of its own.

L{twisted.internet.interfaces.IReactorProcess.spawnProcess} has no
C{preexec_fn}, so the engine runner (L{hub.tournaments.engines}) starts
an engine through this wrapper: it sets C{RLIMIT_CPU} (soft C{SECONDS},
hard one more, so that a process that ignores C{SIGXCPU} is killed a
second later) and C{RLIMIT_AS} (C{BYTES}), makes itself the leader of a
new session and process group (so that the runner can kill the engine
and whatever it forks with one C{killpg}), then replaces itself with
C{ARGV} (C{os.execvp}: the C{PATH} is searched, no shell).  A command
that cannot be run is one line on standard error and exit status
L{CANNOT_RUN}.
"""

import argparse
import os
import resource
import sys

#: The exit status of a command that could not be run (as a shell's).
CANNOT_RUN = 127


def makeParser():
    """
    The argument parser of the wrapper.
    """
    p = argparse.ArgumentParser(
        prog="python -m hub.tournaments.limited",
        description="Run a command under CPU and memory limits.")
    p.add_argument("--cpu", type=int, required=True,
                   help="seconds of CPU time (RLIMIT_CPU); 0 for none")
    p.add_argument("--as", dest="addressSpace", type=int, required=True,
                   help="bytes of address space (RLIMIT_AS); 0 for none")
    p.add_argument("argv", nargs=argparse.REMAINDER,
                   help="-- then the command and its arguments")
    return p


def applyLimits(cpuSeconds, addressSpace):
    """
    Set this process's C{RLIMIT_CPU} and C{RLIMIT_AS} (a 0 leaves that
    limit as it is).  Both are inherited across C{exec}.
    """
    if cpuSeconds:
        resource.setrlimit(resource.RLIMIT_CPU,
                           (cpuSeconds, cpuSeconds + 1))
    if addressSpace:
        resource.setrlimit(resource.RLIMIT_AS,
                           (addressSpace, addressSpace))


def main(argv):
    """
    Parse C{argv}, apply the limits, start a new session and C{exec}
    the command.  Returns only if the command cannot be run: then the
    exit status.
    """
    options = makeParser().parse_args(argv)
    command = list(options.argv)
    if command[:1] == ["--"]:
        command = command[1:]
    if not command:
        print("python -m hub.tournaments.limited: no command",
              file=sys.stderr)
        return 2
    if options.cpu < 0 or options.addressSpace < 0:
        print("python -m hub.tournaments.limited: limits must not be "
              "negative", file=sys.stderr)
        return 2
    try:
        os.setsid()
    except OSError:
        # Already a session leader.
        pass
    applyLimits(options.cpu, options.addressSpace)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execvp(command[0], command)
    except OSError as e:
        print("cannot run {!r}: {}".format(command[0], e.strerror or e),
              file=sys.stderr)
        return CANNOT_RUN


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
