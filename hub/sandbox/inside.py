"""
What runs first in a sandbox, before the program: C{python -I -S -c
SOURCE SETTINGS -- ARGV...}, with the standard library only (it runs
with no site-packages, before anything of the program's).

SETTINGS is a JSON object: C{user} (C{[outUid, outGid, inUid, inGid]}:
become C{out*} and enter a user namespace of its own as C{in*}, when
bwrap ran as root), C{setsid}, C{limits} (L{LIMITS} names to values),
C{forward} (C{[port, socket]}: listen on 127.0.0.1:port and relay each
connection to the Unix socket), C{seccomp}.  Then it sets
C{PR_SET_NO_NEW_PRIVS}, denies new user namespaces (a seccomp filter),
applies the limits, forks the relay and executes ARGV (C{PATH}
searched, no shell).  A setup failure is one line on standard error and
status L{CANNOT_SET_UP}; a program that cannot be run, L{CANNOT_RUN}.
"""

import ctypes
import json
import os
import platform
import resource
import socket
import struct
import sys
import threading
from typing import Any, List, Mapping, Optional, Sequence, Tuple

CANNOT_SET_UP = 125
CANNOT_RUN = 127

#: The settings' limit names and their rlimits.
LIMITS = {
    "cpu": resource.RLIMIT_CPU,
    "as": resource.RLIMIT_AS,
    "nproc": resource.RLIMIT_NPROC,
    "nofile": resource.RLIMIT_NOFILE,
    "fsize": resource.RLIMIT_FSIZE,
    "core": resource.RLIMIT_CORE,
}
#: Connections the relay carries at once.
MOST_CONNECTIONS = 8

_CLONE_NEWUSER = 0x10000000
_PR_SET_DUMPABLE = 4
_PR_SET_SECCOMP = 22
_PR_SET_NO_NEW_PRIVS = 38
_SECCOMP_MODE_FILTER = 2
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_EPERM, _ENOSYS = 1, 38
#: Audit architecture -> (unshare, clone, clone3, x32 bit or 0).
_SYSCALLS = {
    "x86_64": [(0xC000003E, 272, 56, 435, 0x40000000),
               (0x40000003, 310, 120, 435, 0)],
    "aarch64": [(0xC00000B7, 97, 220, 435, 0),
                (0x40000028, 337, 120, 435, 0)],
}


def _libc() -> Any:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int] + [ctypes.c_ulong] * 4
    libc.unshare.argtypes = [ctypes.c_int]
    return libc


def _check(result: int, what: str) -> None:
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, "{}: {}".format(what, os.strerror(error)))


def becomeUser(outUid: int, outGid: int, inUid: int, inGid: int) -> None:
    """
    Drop to C{outUid}/C{outGid} (no groups), then enter a new user
    namespace in which they are C{inUid}/C{inGid} (bwrap ran as root:
    the namespace is made here, as that unprivileged user).
    """
    libc = _libc()
    os.setgroups([])
    os.setresgid(outGid, outGid, outGid)
    os.setresuid(outUid, outUid, outUid)
    # /proc/self/*_map belong to a dumpable process only.
    _check(libc.prctl(_PR_SET_DUMPABLE, 1, 0, 0, 0), "prctl")
    _check(libc.unshare(_CLONE_NEWUSER), "unshare")
    for name, text in (("setgroups", "deny"),
                       ("uid_map", "%d %d 1" % (inUid, outUid)),
                       ("gid_map", "%d %d 1" % (inGid, outGid))):
        with open("/proc/self/" + name, "w") as f:
            f.write(text)


def userNamespaceFilter(machine: Optional[str] = None) -> Optional[bytes]:
    """
    The seccomp program (classic BPF, as bytes) that fails C{unshare}
    and C{clone} with C{CLONE_NEWUSER} (EPERM) and C{clone3} (ENOSYS:
    the C library falls back to C{clone}), for each ABI of this
    machine; other ABIs get ENOSYS.  None for a machine it does not
    know.
    """
    abis = _SYSCALLS.get(machine or platform.machine())
    if abis is None:
        return None
    code: List[Tuple[int, int, int, int]] = []
    for arch, unshare, clone, clone3, x32 in abis:
        block: List[Optional[Tuple[int, int, int, int]]] = [
            (0x20, 0, 0, 0),                  # A = nr
            (0x45, 0, 1, x32) if x32 else None,  # x32 ABI
            (0x06, 0, 0, _ERRNO | _ENOSYS) if x32 else None,
            (0x15, 0, 1, clone3),
            (0x06, 0, 0, _ERRNO | _ENOSYS),
            (0x15, 1, 0, unshare),
            (0x15, 0, 3, clone),
            (0x20, 0, 0, 16),                 # A = low word of args[0]
            (0x45, 0, 1, _CLONE_NEWUSER),
            (0x06, 0, 0, _ERRNO | _EPERM),
            (0x06, 0, 0, _ALLOW),
        ]
        kept = [i for i in block if i is not None]
        code.append((0x20, 0, 0, 4))          # A = arch
        code.append((0x15, 0, len(kept), arch))
        code.extend(kept)
    code.append((0x06, 0, 0, _ERRNO | _ENOSYS))
    return b"".join(struct.pack("HBBI", *i) for i in code)


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def denyUserNamespaces() -> bool:
    """
    Set C{PR_SET_NO_NEW_PRIVS} and install L{userNamespaceFilter}.

    @return: False if this machine has no filter (nothing installed).
    """
    libc = _libc()
    _check(libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    program = userNamespaceFilter()
    if program is None:
        return False
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _Program(len(program) // 8, ctypes.addressof(buffer))
    _check(libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER,
                      ctypes.addressof(fprog), 0, 0), "seccomp")
    return True


def applyLimits(limits: Mapping[str, Any]) -> None:
    """
    Set each rlimit of C{limits} (a dict of L{LIMITS} names; soft and
    hard alike, but the CPU's hard limit is a second more, so that a
    program that ignores C{SIGXCPU} is killed a second later).
    """
    for name, value in sorted(limits.items()):
        value = int(value)
        hard = value + 1 if name == "cpu" else value
        resource.setrlimit(LIMITS[name], (value, hard))


def _pump(source: socket.socket, sink: socket.socket) -> None:
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
    for s, how in ((sink, socket.SHUT_WR), (source, socket.SHUT_RD)):
        try:
            s.shutdown(how)
        except OSError:
            pass


def _carry(connection: socket.socket, path: str,
           slots: threading.BoundedSemaphore) -> None:
    try:
        # Nagle off, as on the hub's own connections: a program with
        # nothing to answer yet delays its acknowledgements, and each
        # small write after the first would wait for one (up to 40 ms).
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            upstream.connect(path)
        except OSError:
            upstream.close()
            return
        back = threading.Thread(target=_pump, args=(upstream, connection),
                                daemon=True)
        back.start()
        _pump(connection, upstream)
        back.join()
        upstream.close()
    finally:
        connection.close()
        slots.release()


def relay(listener: socket.socket, path: str,
          most: int = MOST_CONNECTIONS) -> None:
    """
    Accept on C{listener} forever; carry each connection to the Unix
    socket C{path} and back, byte for byte, at most C{most} at once.
    """
    threading.stack_size(256 * 1024)
    slots = threading.BoundedSemaphore(most)
    while True:
        slots.acquire()
        try:
            connection, _ = listener.accept()
        except OSError:
            slots.release()
            continue
        try:
            threading.Thread(target=_carry, args=(connection, path, slots),
                             daemon=True).start()
        except RuntimeError:
            connection.close()
            slots.release()


def listen(port: int) -> socket.socket:
    """
    A socket listening on 127.0.0.1:C{port}.
    """
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(16)
    return listener


def startRelay(port: int, path: str) -> None:
    """
    Fork the relay of 127.0.0.1:C{port} to C{path}; the listening
    socket exists before this returns, so the program's first connect
    finds it.
    """
    listener = listen(port)
    if os.fork() == 0:
        try:
            os.setsid()
        except OSError:
            pass
        try:
            relay(listener, path)
        finally:
            os._exit(0)
    listener.close()


def main(argv: Sequence[str]) -> int:
    """
    Set up as C{argv[0]} (the settings) says and execute the rest.
    Returns only on a failure: the exit status.
    """
    try:
        settings = json.loads(argv[0])
    except (IndexError, ValueError):
        print("sandbox: no settings", file=sys.stderr)
        return CANNOT_SET_UP
    command = list(argv[1:])
    if command[:1] == ["--"]:
        command = command[1:]
    if not command:
        print("sandbox: no command", file=sys.stderr)
        return CANNOT_SET_UP
    try:
        if settings.get("setsid"):
            os.setsid()
        if settings.get("user"):
            becomeUser(*settings["user"])
        if settings.get("seccomp", True) and not denyUserNamespaces():
            print("sandbox: new user namespaces are not denied on " +
                  platform.machine(), file=sys.stderr)
        applyLimits(settings.get("limits") or {})
        if settings.get("forward"):
            startRelay(*settings["forward"])
    except (OSError, ValueError, TypeError) as e:
        print("sandbox: cannot set up: {}".format(e), file=sys.stderr)
        return CANNOT_SET_UP
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
