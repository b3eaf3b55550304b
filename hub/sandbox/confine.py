"""
What a sandboxed program gets, as bwrap's command line: the limits, the
clean environment, the read-only system and Python, the private
working folder and the one forwarded port (no Twisted here; the walls
are described in docs/deploy.md).
"""

import importlib.resources
import json
import os
import sys
from typing import Any, Dict, Iterable, List, Mapping, Optional, Set

import attr

#: The program's user and group inside its user namespace.
INSIDE_UID = INSIDE_GID = 1000
#: Who the program is outside when the hub runs as root.
NOBODY = 65534
#: The private working folder (a size-capped tmpfs), also its HOME.
WORK = "/tmp"
#: Where the hub's listener is bound inside.
SOCKET = "/run/gamehub/listener.sock"
#: Where L{hub.sandbox.inside} is written inside.
HELPER = "/run/gamehub/inside.py"
#: The system's folders bound read-only (a symlink stays a symlink).
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: What of /etc a program may need: the dynamic linker's cache, time
#: zones, name resolution of localhost, certificates; never the rest
#: (the hub's configuration may live there).
ETC = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime",
       "alternatives", "nsswitch.conf", "hosts", "host.conf", "protocols",
       "services", "ssl", "ca-certificates", "mime.types")
#: The variables the program may have: these and L{GAMEHUB} ones.
ENVIRONMENT = ("PATH", "HOME")
GAMEHUB = "GAMEHUB_"

MB = 1024 * 1024


@attr.s(frozen=True)
class Limits:
    """
    A sandboxed program's limits, each per process but L{processes}
    (the sandbox's own processes) and L{workBytes} (its working
    folder).
    """

    cpuSeconds = attr.ib(default=600)
    memoryBytes = attr.ib(default=1024 * MB)
    processes = attr.ib(default=64)
    files = attr.ib(default=256)
    fileBytes = attr.ib(default=64 * MB)
    workBytes = attr.ib(default=64 * MB)

    def rlimits(self) -> Dict[str, int]:
        """
        The rlimits of L{hub.sandbox.inside} (0 for CPU or memory: none).
        """
        limits = {"nproc": self.processes, "nofile": self.files,
                  "fsize": self.fileBytes, "core": 0}
        if self.cpuSeconds:
            limits["cpu"] = self.cpuSeconds
        if self.memoryBytes:
            limits["as"] = self.memoryBytes
        return limits

    def describe(self) -> str:
        """
        The limits in words, for a log.
        """
        return ("RLIMIT_CPU {}s, RLIMIT_AS {} bytes, RLIMIT_NPROC {}, "
                "RLIMIT_NOFILE {}, RLIMIT_FSIZE {}, RLIMIT_CORE 0".format(
                    self.cpuSeconds or "no", self.memoryBytes or "no",
                    self.processes, self.files, self.fileBytes))


@attr.s(frozen=True)
class Forward:
    """
    The program reaches 127.0.0.1:C{port}, carried to the hub's Unix
    socket C{socket}.
    """

    port = attr.ib()
    socket = attr.ib()


@attr.s(frozen=True)
class Confinement:
    """
    One program to run confined.

    @ivar argv: its command line (the first word searched in C{PATH}).
    @ivar environment: its C{GAMEHUB_*} variables (L{cleanEnvironment}
        adds C{PATH} and C{HOME}).
    @ivar folder: its own files, bound read-only at the same path, and
        where it starts; or None (it starts in L{WORK}).
    @ivar forward: a L{Forward}, or None for no network at all.
    """

    argv = attr.ib(converter=list)
    environment = attr.ib(factory=dict)
    limits = attr.ib(factory=Limits)
    folder = attr.ib(default=None)
    forward = attr.ib(default=None)


class NotAllowed(ValueError):
    """
    A folder may not be bound into a sandbox: it holds the hub's own
    data (the text says which).
    """


def cleanEnvironment(environment: Mapping[str, str], path: str,
                     home: str) -> Dict[str, str]:
    """
    A program's whole environment: C{PATH}, C{HOME} and the C{GAMEHUB_*}
    values of C{environment}, nothing else.

    @raise ValueError: C{environment} has another variable.
    """
    for name in environment:
        if not name.startswith(GAMEHUB):
            raise ValueError("not a GAMEHUB_ variable: {!r}".format(name))
    clean = dict(environment)
    clean.update(PATH=path, HOME=home)
    return clean


def searchPath(python: str = sys.executable) -> str:
    """
    The C{PATH} of a sandboxed program: the hub's Python first (so that
    C{python -m hub.bots} is the hub's), then the system's.
    """
    first = os.path.dirname(os.path.abspath(python))
    return os.pathsep.join(dict.fromkeys(
        [first, "/usr/local/bin", "/usr/bin", "/bin"]))


def hubPackage() -> str:
    """
    The folder of the C{hub} package (the source tree's, for an
    editable install).
    """
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def pythonFolders() -> List[str]:
    """
    The folders of the hub's Python: its installation, its virtualenv
    and the C{hub} package, each once, outermost only.
    """
    return outermost([sys.base_prefix, sys.base_exec_prefix, sys.prefix,
                      sys.exec_prefix, hubPackage()])


def outermost(paths: Iterable[str]) -> List[str]:
    """
    C{paths} made absolute, without those inside another of them.
    """
    found: List[str] = []
    for path in sorted({os.path.abspath(p) for p in paths if p}):
        if not any(within(path, other) for other in found):
            found.append(path)
    return found


def within(path: str, folder: str) -> bool:
    """
    Whether C{path} is C{folder} or inside it (as written; both
    absolute).
    """
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def checkBinds(folders: Iterable[str], hidden: Iterable[str] = (),
               closed: Iterable[str] = ()) -> None:
    """
    Refuse to bind a folder that would show one of the hub's own
    paths: one that is or holds a C{hidden} path (its database, its
    working directory) or is, holds or is inside a C{closed} folder
    (its engine logs, its sockets); compared through real paths.

    @raise NotAllowed: for the first such folder.
    """
    hiddenPaths = [(p, os.path.realpath(p)) for p in hidden if p]
    closedPaths = [(p, os.path.realpath(p)) for p in closed if p]
    for folder in folders:
        mine = os.path.realpath(folder)
        if mine == "/":
            raise NotAllowed("{} is the whole file system".format(folder))
        for path, theirs in hiddenPaths + closedPaths:
            if within(theirs, mine) or (
                    (path, theirs) in closedPaths and within(mine, theirs)):
                raise NotAllowed("{} would show the hub's {}".format(
                    folder, path))


def _ancestors(path: str) -> List[str]:
    parts = path.strip("/").split("/")[:-1]
    return ["/" + "/".join(parts[:i]) for i in range(1, len(parts) + 1)]


class _Tree:
    """
    The bwrap arguments that make folders, each once, readable by all.
    """

    def __init__(self) -> None:
        self.made: Set[str] = set()
        self.args: List[str] = []

    def parents(self, path: str) -> None:
        for folder in _ancestors(path):
            if folder not in self.made:
                self.made.add(folder)
                self.args += ["--perms", "0755", "--dir", folder]

    def bind(self, option: str, source: str, target: str) -> None:
        self.parents(target)
        self.args += [option, source, target]


def systemArguments(root: str = "/") -> List[str]:
    """
    The bwrap arguments of the read-only system (L{SYSTEM}, L{ETC}),
    as this machine has it.
    """
    tree = _Tree()
    for path in SYSTEM:
        host = os.path.join(root, path.lstrip("/"))
        if os.path.islink(host):
            tree.args += ["--symlink", os.readlink(host), path]
        elif os.path.isdir(host):
            tree.bind("--ro-bind", path, path)
    tree.args += ["--perms", "0755", "--dir", "/etc"]
    for name in ETC:
        if os.path.exists(os.path.join(root, "etc", name)):
            tree.args += ["--ro-bind", "/etc/" + name, "/etc/" + name]
    return tree.args


def bwrapArguments(confinement: Confinement, bwrap: str, python: str,
                   readOnly: Iterable[str], asRoot: bool,
                   infoFD: Optional[int] = None,
                   system: Optional[Iterable[str]] = None,
                   helperFD: Optional[int] = None) -> List[str]:
    """
    bwrap's whole command line for C{confinement}.

    @param python: the interpreter that runs L{hub.sandbox.inside}.
    @param readOnly: more folders bound read-only at their own paths
        (the hub's Python, L{pythonFolders}); the program's own folder
        is added.
    @param asRoot: bwrap runs as root: it makes no user namespace, the
        helper becomes L{NOBODY} in one of its own; else bwrap makes it
        (L{INSIDE_UID} is the caller's uid outside).
    @param infoFD: the descriptor bwrap writes its JSON information to.
    @param helperFD: a descriptor bwrap reads L{helperSource} from, to
        write it at L{HELPER}; None: the helper is given with C{-c}.
    """
    args = [bwrap, "--unshare-pid", "--unshare-net", "--unshare-ipc",
            "--unshare-uts", "--die-with-parent", "--new-session"]
    if asRoot:
        # Only what the helper needs to become nobody.
        args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID",
                 "--cap-add", "CAP_SETGID"]
    else:
        args += ["--unshare-user", "--disable-userns", "--uid",
                 str(INSIDE_UID), "--gid", str(INSIDE_GID)]
    args += systemArguments() if system is None else list(system)
    limits = confinement.limits
    args += ["--dev", "/dev", "--proc", "/proc",
             "--size", str(limits.workBytes), "--perms", "1777",
             "--tmpfs", WORK]
    tree = _Tree()
    tree.made.update(["/etc", "/tmp"])
    folders = list(readOnly)
    if confinement.folder:
        folders.append(confinement.folder)
    for folder in outermost(folders):
        tree.bind("--ro-bind", folder, folder)
    settings: Dict[str, Any] = {"limits": limits.rlimits()}
    if confinement.forward is not None:
        tree.bind("--ro-bind", confinement.forward.socket, SOCKET)
        settings["forward"] = [confinement.forward.port, SOCKET]
    if helperFD is not None:
        tree.parents(HELPER)
        tree.args += ["--perms", "0644", "--ro-bind-data", str(helperFD),
                      HELPER]
    args += tree.args
    args += ["--chdir", confinement.folder or WORK]
    if infoFD is not None:
        args += ["--info-fd", str(infoFD)]
    if asRoot:
        settings["user"] = [NOBODY, NOBODY, INSIDE_UID, INSIDE_GID]
    return args + ["--"] + helperArguments(
        python, settings, confinement.argv,
        None if helperFD is None else HELPER)


def helperArguments(python: str, settings: Dict[str, Any],
                    argv: Iterable[str],
                    helper: Optional[str] = None) -> List[str]:
    """
    The command line of L{hub.sandbox.inside} (the file C{helper}, or by
    default this package's) running C{argv}.
    """
    if helper is None:
        helper = helperPath()
    return [python, "-I", "-S", helper, _dumps(settings), "--"] + list(argv)


def helperPath() -> str:
    """
    The file of L{hub.sandbox.inside}.
    """
    return os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "inside.py")


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


_source: List[bytes] = []


def helperSource() -> bytes:
    """
    The bytes of L{hub.sandbox.inside} (read once).
    """
    if not _source:
        _source.append(importlib.resources.files("hub.sandbox").joinpath(
            "inside.py").read_bytes())
    return _source[0]
