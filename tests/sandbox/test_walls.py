"""
Each wall of the engine sandbox (docs/deploy.md), tried from inside a
real program under real bwrap: who it is, what files it sees, what it
sees of other sandboxes, what it may start and what survives it, its
environment, and what it can reach.
"""

import errno
import hashlib
import os
import select
import signal
import socket
import sqlite3
import subprocess
import sys
import threading

from twisted.internet import defer, reactor
from twisted.internet.protocol import Factory, ProcessProtocol, Protocol
from twisted.trial.unittest import SynchronousTestCase, TestCase

from hub.sandbox import confine, inside
from hub.sandbox.confine import (
    Confinement, Forward, Limits, NotAllowed, checkBinds, cleanEnvironment)
from hub.sandbox.process import (
    INFO_FD, MISSING, BwrapSandbox, SandboxedProcess, strandedSandboxes,
    sweepStranded)
from tests.sandbox.support import (
    MB, SYSTEM_PYTHON, WAIT, Program, alive, bounded, folder, marked, noSandbox,
    processes, python, report, run, sandbox, status, unprivilegedSandbox,
    waitFor)


class IdentityTests(TestCase):
    """
    Its own user namespace, mapped to an unprivileged user; no
    capabilities; no new user namespace; it dies with bwrap.
    """

    timeout = 3 * WAIT

    @defer.inlineCallbacks
    def outside(self, box, interpreter="python"):
        """
        Start a program in C{box} that says who it is inside and waits;
        return that, and what the host says of its process.
        """
        self.count = getattr(self, "count", 0) + 1
        marker = "identity-%d-%d" % (id(self), self.count)
        self.marker = marker
        program, handle = run(self, box, [interpreter, "-c", (
            "import os, time; print(os.getuid(), os.getgid(), "
            "open('/proc/self/status').read().split('CapEff:')[1].split()[0]"
            ", flush=True); time.sleep(600)"), marker])
        yield bounded(program.seen(b"\n"))
        pid, = marked(marker)
        inside = program.output.decode().split()
        host = status(pid)
        user = os.readlink("/proc/%d/ns/user" % (pid,))
        return inside, host, user, program, handle

    def checkIdentity(self, inside, host, user, outsideUid):
        self.assertEqual(inside, ["1000", "1000", "0000000000000000"])
        self.assertEqual(host["Uid"].split(), [str(outsideUid)] * 4)
        self.assertEqual(host["Gid"].split(), [str(outsideUid)] * 4)
        for caps in ("CapInh", "CapPrm", "CapEff", "CapAmb"):
            self.assertEqual(int(host[caps], 16), 0, caps)
        self.assertNotEqual(user, os.readlink("/proc/self/ns/user"))

    @defer.inlineCallbacks
    def test_rootHub(self):
        """
        Under a hub running as root (these tests'), the program is uid
        1000 in a user namespace of its own, and nobody (65534) outside,
        with no capability.
        """
        self.assertEqual(os.geteuid(), 0, "the tests run as root")
        inside, host, user, _, _ = yield self.outside(sandbox(self))
        self.checkIdentity(inside, host, user, 65534)

    @defer.inlineCallbacks
    def test_unprivilegedHub(self):
        """
        Under a hub that is not root (bwrap run as nobody, making the
        user namespace itself, as under the systemd unit), the same.
        """
        self.assertTrue(os.path.exists(SYSTEM_PYTHON))
        inside, host, user, _, _ = yield self.outside(
            unprivilegedSandbox(self), "python3")
        self.checkIdentity(inside, host, user, 65534)

    @defer.inlineCallbacks
    def test_twoSandboxesTwoNamespaces(self):
        """
        Two programs have two user namespaces.
        """
        box = sandbox(self)
        first = yield self.outside(box)
        second = yield self.outside(box)
        self.assertNotEqual(first[2], second[2])

    NEW_USER_NAMESPACE = """
        import ctypes, json, subprocess
        libc = ctypes.CDLL(None, use_errno=True)
        unshare = libc.unshare(0x10000000), ctypes.get_errno()
        tool = subprocess.run(["unshare", "--user", "true"],
                              capture_output=True).returncode
        print(json.dumps({"unshare": unshare, "tool": tool}))
    """

    @defer.inlineCallbacks
    def test_noNewUserNamespace(self):
        """
        A program cannot make a user namespace (where it would have
        capabilities): C{unshare(CLONE_NEWUSER)} fails with EPERM, and
        so does the C{unshare} tool; in both kinds of hub.
        """
        for box, interpreter in ((sandbox(self), "python"),
                                 (unprivilegedSandbox(self), "python3")):
            program, _ = run(self, box, python(self.NEW_USER_NAMESPACE,
                                         interpreter=interpreter))
            how, output = yield bounded(program.ended)
            self.assertEqual(how, "exited with status 0", output)
            self.assertIn(b'"unshare": [-1, %d]' % (errno.EPERM,), output)
            self.assertNotIn(b'"tool": 0', output)

    @defer.inlineCallbacks
    def test_diesWithBwrap(self):
        """
        bwrap killed (as when the hub dies: --die-with-parent), the
        program dies too.
        """
        _, _, _, program, handle = yield self.outside(sandbox(self))
        pid, = marked(self.marker)
        os.kill(handle.pid, signal.SIGKILL)
        yield waitFor(lambda: not alive(pid))
        how, _ = yield bounded(program.ended)
        self.assertEqual(how, "killed by SIGKILL")


class FileTests(TestCase):
    """
    The system read-only, a private size-capped working folder gone
    after the program, its own files read-only, nothing of the hub's.
    """

    timeout = 3 * WAIT

    @defer.inlineCallbacks
    def test_systemReadOnly(self):
        """
        Nothing of the system can be written; the working folder, C{/tmp}
        (C{HOME}), can.
        """
        how, tried = yield report(self, sandbox(self), """
            import json, os, sys
            tried = {}
            for path in ("/usr/x", "/etc/x", "/x", "/bin/x", "/dev/x",
                         "/dev/shm/x", os.path.dirname(sys.executable)
                         + "/x", "/tmp/x"):
                try:
                    open(path, "w").close()
                    tried[path] = "written"
                except OSError as e:
                    tried[path] = "refused"
            print(json.dumps(tried))
        """)
        written = sorted(p for p, what in tried.items() if what == "written")
        self.assertEqual(written, ["/tmp/x"])
        self.assertEqual(len(tried), 8)

    @defer.inlineCallbacks
    def test_workFolderCapped(self):
        """
        The working folder holds at most its size: a program that writes
        twice that is stopped at it (and, one file, at C{RLIMIT_FSIZE}).
        """
        limits = Limits(fileBytes=64 * MB, workBytes=4 * MB)
        how, result = yield report(self, sandbox(self), """
            import errno, json, signal
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            written, error = 0, None
            with open("/tmp/fill", "wb") as f:
                try:
                    for i in range(8 * 4):
                        f.write(b"x" * 262144)
                        f.flush()
                        written += 262144
                except OSError as e:
                    error = errno.errorcode[e.errno]
            print(json.dumps([written, error]))
        """, limits=limits)
        written, error = result
        self.assertEqual(error, "ENOSPC")
        self.assertLessEqual(written, 4 * MB)
        limits = Limits(fileBytes=1 * MB, workBytes=8 * MB)
        how, result = yield report(self, sandbox(self), """
            import errno, json, signal
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            try:
                with open("/tmp/big", "wb") as f:
                    f.write(b"x" * 2 * 1024 * 1024)
                error = None
            except OSError as e:
                error = errno.errorcode[e.errno]
            print(json.dumps(error))
        """, limits=limits)
        self.assertEqual(result, "EFBIG")

    @defer.inlineCallbacks
    def test_workFolderGone(self):
        """
        What a program wrote in its working folder is not there for the
        next program, nor anywhere on the host's disk.
        """
        box = sandbox(self)
        how, _ = yield report(self, box, """
            import json
            open("/tmp/secret-book", "w").write("e4 e5")
            print(json.dumps(None))
        """)
        how, listing = yield report(self, box, """
            import json, os
            print(json.dumps(os.listdir("/tmp")))
        """)
        self.assertNotIn("secret-book", listing)
        self.assertEqual(os.listdir(box.runFolder), [])

    @defer.inlineCallbacks
    def test_ownFolderReadOnly(self):
        """
        A program's own files are there, read-only, and it starts among
        them.
        """
        own = folder(self, 0o755)
        with open(os.path.join(own, "book.txt"), "w") as f:
            f.write("opening book")
        os.chmod(os.path.join(own, "book.txt"), 0o644)
        how, result = yield report(self, sandbox(self), """
            import json, os
            try:
                open("book.txt", "a").close()
                wrote = True
            except OSError:
                wrote = False
            print(json.dumps([os.getcwd(), open("book.txt").read(),
                              wrote]))
        """, folder=own)
        self.assertEqual(result, [own, "opening book", False])

    def hubFiles(self):
        """
        A hub's data folder: its SQLite database (a table in it), its
        engines' logs, its working directory with a configuration file.
        """
        data = folder(self, 0o755)
        database = os.path.join(data, "hub.sqlite")
        connection = sqlite3.connect(database)
        connection.execute("CREATE TABLE accounts (name TEXT, role TEXT)")
        connection.execute("INSERT INTO accounts VALUES ('alice', 'admin')")
        connection.commit()
        connection.close()
        os.chmod(database, 0o666)
        logs = os.path.join(data, "engines", "logs")
        os.makedirs(logs)
        with open(os.path.join(logs, "1.log"), "w") as f:
            f.write("another engine's log")
        config = os.path.join(data, "gamehub.conf")
        with open(config, "w") as f:
            f.write("postgresql://gamehub:secret@db/gamehub")
        return data, database, logs, config

    @defer.inlineCallbacks
    def test_hubDataUnreachable(self):
        """
        The hub's database can be opened from inside for reading nor for
        writing (nor its logs, nor its configuration), even named by its
        path; no folder that holds them may be given as an engine's.
        """
        data, database, logs, config = self.hubFiles()
        box = sandbox(self, hidden=[database, data],
                      closed=[os.path.dirname(logs)])
        how, result = yield report(self, box, """
            import json, os, sqlite3, sys
            database, logs, config = sys.argv[1:4]
            found = {}
            try:
                c = sqlite3.connect("file:%s?mode=ro" % database, uri=True)
                found["read"] = c.execute(
                    "SELECT name FROM accounts").fetchall()
            except sqlite3.Error as e:
                found["read"] = "refused: %s" % e
            try:
                c = sqlite3.connect(database)
                c.execute("UPDATE accounts SET role = 'admin'")
                c.commit()
                found["write"] = "written"
            except sqlite3.Error as e:
                found["write"] = "refused: %s" % e
            for name, path in (("logs", logs), ("config", config)):
                try:
                    found[name] = os.listdir(path) if name == "logs" \\
                        else open(path).read()
                except OSError as e:
                    found[name] = "refused: %s" % e.strerror
            print(json.dumps(found))
        """, database, logs, config)
        self.assertEqual(how, "exited with status 0")
        self.assertEqual(result["read"],
                         "refused: unable to open database file")
        self.assertEqual(result["write"],
                         "refused: unable to open database file")
        self.assertEqual(result["logs"], "refused: No such file or directory")
        self.assertEqual(result["config"],
                         "refused: No such file or directory")
        self.assertFalse(os.path.exists(os.path.join(data, "hub.sqlite-wal")))
        for own in (data, os.path.dirname(data), logs):
            self.assertRaises(NotAllowed, run, self, box, ["true"], folder=own)


class OtherProgramsTests(TestCase):
    """
    A program sees nothing of another sandbox's processes, environment,
    files or key.
    """

    timeout = 3 * WAIT

    @defer.inlineCallbacks
    def test_noSightOfOthers(self):
        """
        Beside a victim holding a key in its environment and a file in
        its working folder, a snooper lists and signals every process it
        can and reads their environments: it finds its own only.
        """
        box = sandbox(self)
        victim, handle = run(self, box, [
            "python", "-c", "import time; open('/tmp/victim-file', 'w'); "
            "print('ready', flush=True); time.sleep(600)"],
            environment={"GAMEHUB_KEY": "Victim0key"})
        yield bounded(victim.seen(b"ready"))
        how, seen = yield report(self, box, """
            import json, os
            found = {"pids": sorted(int(p) for p in os.listdir("/proc")
                                    if p.isdigit()),
                     "environ": "", "signalled": [], "files":
                     os.listdir("/tmp")}
            for pid in found["pids"]:
                try:
                    found["environ"] += open(
                        "/proc/%d/environ" % pid).read()
                except OSError:
                    pass
            for pid in range(1, 32768):
                try:
                    os.kill(pid, 0)
                    found["signalled"].append(pid)
                except OSError:
                    pass
            print(json.dumps(found))
        """, environment={"GAMEHUB_KEY": "Snooper0key"})
        self.assertNotIn("Victim0key", seen["environ"])
        self.assertIn("Snooper0key", seen["environ"])
        # Only the way to the hub's own Python, when that is under /tmp
        # (a clone's and its virtualenv's, in CI), is there.
        self.assertEqual(sorted(seen["files"]), sorted(
            {os.path.relpath(folder, "/tmp").split(os.sep)[0]
             for folder in confine.pythonFolders()
             if confine.within(folder, "/tmp")}))
        # Its sandbox's first process (bwrap's, root's under this hub:
        # not its to signal) and itself, no more.
        self.assertEqual(seen["pids"], [1, 2])
        self.assertEqual(seen["signalled"], [2])
        self.assertTrue(handle.group and alive(handle.group))


class ProcessTests(TestCase):
    """
    Its own pid namespace, so that its whole tree dies with it; its
    rlimits.
    """

    timeout = 3 * WAIT

    ESCAPE = """
        import os, sys, time
        marker = sys.argv[1]
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execvp("sleep", [marker, "600"])
            os._exit(0)
        os.wait()
        print("escaped", flush=True)
        time.sleep(float(sys.argv[2]))
    """

    @defer.inlineCallbacks
    def test_treeDiesWithProgram(self):
        """
        A program that starts a sleeper in a session of its own through
        a double fork, then exits: the sleeper dies with it.
        """
        marker = "escape-%d" % (id(self),)
        program, _ = run(self, sandbox(self),
                         python(self.ESCAPE, marker, "1"))
        yield bounded(program.seen(b"escaped"))
        yield waitFor(lambda: len(marked(marker, marker)) == 1)
        how, _ = yield bounded(program.ended)
        self.assertEqual(how, "exited with status 0")
        yield waitFor(lambda: not marked(marker, marker))

    @defer.inlineCallbacks
    def test_treeDiesWhenStopped(self):
        """
        The same tree, stopped by the hub (SIGTERM to the program): the
        sleeper dies too.
        """
        marker = "escape-%d" % (id(self),)
        program, handle = run(self, sandbox(self),
                              python(self.ESCAPE, marker, "600"))
        yield bounded(program.seen(b"escaped"))
        yield waitFor(lambda: len(marked(marker, marker)) == 1)
        handle.signal(signal.SIGTERM)
        how, _ = yield bounded(program.ended)
        self.assertEqual(how, "killed by SIGTERM")
        yield waitFor(lambda: not marked(marker, marker))

    @defer.inlineCallbacks
    def test_limits(self):
        """
        The program runs under every rlimit: its CPU and memory, its
        processes, files, file size, and no core file.
        """
        limits = Limits(cpuSeconds=7, memoryBytes=900 * MB, processes=33,
                        files=99, fileBytes=5 * MB)
        how, found = yield report(self, sandbox(self), """
            import json, resource as r
            print(json.dumps({name: r.getrlimit(getattr(r, name))
                              for name in ("RLIMIT_CPU", "RLIMIT_AS",
                                           "RLIMIT_NPROC", "RLIMIT_NOFILE",
                                           "RLIMIT_FSIZE", "RLIMIT_CORE")}))
        """, limits=limits)
        self.assertEqual(found, {
            "RLIMIT_CPU": [7, 8], "RLIMIT_AS": [900 * MB] * 2,
            "RLIMIT_NPROC": [33, 33], "RLIMIT_NOFILE": [99, 99],
            "RLIMIT_FSIZE": [5 * MB] * 2, "RLIMIT_CORE": [0, 0]})

    @defer.inlineCallbacks
    def test_memory(self):
        """
        A program that allocates past its memory fails to.
        """
        how, found = yield report(self, sandbox(self), """
            import json
            try:
                block = bytearray(400 * 1024 * 1024)
                found = "allocated"
            except MemoryError:
                found = "MemoryError"
            print(json.dumps(found))
        """, limits=Limits(memoryBytes=200 * MB))
        self.assertEqual(found, "MemoryError")

    @defer.inlineCallbacks
    def test_cpu(self):
        """
        A program that spins is killed by its CPU limit.
        """
        program, _ = run(self, sandbox(self),
                         ["python", "-c", "while True: pass"],
                         limits=Limits(cpuSeconds=1))
        how, _ = yield bounded(program.ended)
        self.assertEqual(how, "killed by SIGXCPU")

    BOMB = """
        import os, sys, time
        children = 0
        for i in range(10000):
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:
                time.sleep(600)
                os._exit(0)
            children += 1
        print("children", children, flush=True)
        time.sleep(600)
    """

    @defer.inlineCallbacks
    def test_forkBombBounded(self):
        """
        A fork bomb stops at its process limit, and the limit is its
        sandbox's own: another program beside it still starts processes.
        """
        box = sandbox(self)
        bomb, handle = run(self, box, python(self.BOMB),
                           limits=Limits(processes=20))
        yield bounded(bomb.seen(b"children"))
        count = int(bomb.output.split()[-1])
        # With the relay and itself, under 20 processes.
        self.assertLess(count, 20)
        self.assertGreater(count, 10)
        how, forked = yield report(self, box, """
            import json, os
            pids = [os.fork() or os._exit(0) for i in range(10)]
            print(json.dumps(len(pids)))
        """, limits=Limits(processes=20))
        self.assertEqual(forked, 10)
        handle.signal(signal.SIGKILL)
        how, _ = yield bounded(bomb.ended)
        self.assertEqual(how, "killed by SIGKILL")


class EnvironmentTests(TestCase):
    """
    A clean environment: C{PATH}, C{HOME} (the working folder) and the
    C{GAMEHUB_*} values given, nothing of the hub's.
    """

    timeout = 2 * WAIT

    @defer.inlineCallbacks
    def test_clean(self):
        """
        The hub's own variables (its C{PYTHONPATH}, a password file)
        never reach the program.
        """
        os.environ["PGPASSFILE"] = "/etc/gamehub/pgpass"
        self.addCleanup(os.environ.pop, "PGPASSFILE", None)
        how, env = yield report(self, sandbox(self), """
            import json, os
            print(json.dumps([dict(os.environ), os.getcwd()]))
        """, environment={"GAMEHUB_KEY": "k", "GAMEHUB_ROOM": "1-2-3"})
        env, cwd = env
        # bwrap says where it started (PWD); Python may add LC_CTYPE.
        self.assertEqual(set(env) - {"PWD", "LC_CTYPE"},
                         {"PATH", "HOME", "GAMEHUB_KEY", "GAMEHUB_ROOM"})
        self.assertEqual((env["HOME"], cwd), ("/tmp", "/tmp"))
        self.assertEqual(env["GAMEHUB_ROOM"], "1-2-3")
        self.assertTrue(env["PATH"].startswith(
            os.path.dirname(os.path.abspath(os.sys.executable))))

    def test_onlyGamehubVariables(self):
        """
        Only C{GAMEHUB_*} values may be given.
        """
        self.assertEqual(cleanEnvironment({"GAMEHUB_X": "1"}, "/bin", "/t"),
                         {"GAMEHUB_X": "1", "PATH": "/bin", "HOME": "/t"})
        self.assertRaises(ValueError, cleanEnvironment,
                          {"LD_PRELOAD": "/x.so"}, "/bin", "/t")

    @defer.inlineCallbacks
    def test_hubBotsInside(self):
        """
        The hub's own bot client, the documented engine, runs inside:
        the hub's Python and its site-packages are there, read-only.
        """
        program, _ = run(self, sandbox(self),
                         ["python", "-m", "hub.bots", "--help"])
        how, output = yield bounded(program.ended)
        self.assertEqual(how, "exited with status 0", output)
        self.assertIn(b"gomoku://", output)


class Echo(Protocol):
    def dataReceived(self, data):
        self.transport.write(b"hub heard " + data)


class NetworkTests(TestCase):
    """
    The program reaches its own listener and nothing else: no other
    port on loopback (the web face, another game's listener), no other
    address.
    """

    timeout = 3 * WAIT

    @defer.inlineCallbacks
    def test_onlyItsListener(self):
        """
        Through 127.0.0.1:PORT it talks to the hub's listener; the web
        face's port and another game's listener on the host's loopback,
        another game's socket and other addresses are unreachable.
        """
        box = sandbox(self)
        factory = Factory.forProtocol(Echo)
        own = yield box.listen(factory, 11011)
        other = yield box.listen(factory, 11011)
        self.addCleanup(own.stopListening)
        self.addCleanup(other.stopListening)
        web = reactor.listenTCP(0, factory, interface="127.0.0.1")
        self.addCleanup(web.stopListening)
        game = reactor.listenTCP(0, factory, interface="127.0.0.1")
        self.addCleanup(game.stopListening)
        how, found = yield report(self, box, """
            import json, socket, sys
            own, web, game, path = sys.argv[1:5]
            found = {}
            def attempt(name, family, address):
                s = socket.socket(family, socket.SOCK_STREAM)
                s.settimeout(10)
                try:
                    s.connect(address)
                    s.sendall(b"hello")
                    found[name] = s.recv(100).decode()
                except OSError as e:
                    found[name] = e.__class__.__name__
                s.close()
            attempt("own", socket.AF_INET, ("127.0.0.1", int(own)))
            attempt("web", socket.AF_INET, ("127.0.0.1", int(web)))
            attempt("game", socket.AF_INET, ("127.0.0.1", int(game)))
            attempt("socket", socket.AF_UNIX, path)
            attempt("internet", socket.AF_INET, ("1.1.1.1", 53))
            attempt("lan", socket.AF_INET, ("10.0.0.1", 80))
            attempt("ipv6", socket.AF_INET6, ("::1", int(web)))
            print(json.dumps(found))
        """, "11011", str(web.getHost().port), str(game.getHost().port),
            other.forward.socket, forward=own.forward)
        self.assertEqual(found["own"], "hub heard hello")
        self.assertEqual(found["web"], "ConnectionRefusedError")
        self.assertEqual(found["game"], "ConnectionRefusedError")
        self.assertEqual(found["socket"], "FileNotFoundError")
        self.assertIn(found["internet"], ("OSError",))
        self.assertIn(found["lan"], ("OSError",))
        self.assertEqual(found["ipv6"], "ConnectionRefusedError")

    @defer.inlineCallbacks
    def test_noNetworkWithoutListener(self):
        """
        Given no listener, a program reaches nothing at all.
        """
        how, found = yield report(self, sandbox(self), """
            import json, socket
            s = socket.socket()
            try:
                s.connect(("127.0.0.1", 11011))
                found = "connected"
            except OSError as e:
                found = e.__class__.__name__
            print(json.dumps(found))
        """)
        self.assertEqual(found, "ConnectionRefusedError")


class Lines(Program):
    """
    A program's output as lines, each handed to a waiting Deferred.
    """

    def line(self):
        return self.seen(b"\n").addCallback(self._take)

    def _take(self, output):
        line, _, self.output = output.partition(b"\n")
        return line


class StdioTests(TestCase):
    """
    A program that talks over its standard input and output, with no
    network at all, stopped and continued whole between its turns: what
    engines that live for an event need of the sandbox.
    """

    timeout = 2 * WAIT

    @defer.inlineCallbacks
    def test_talkStopContinue(self):
        """
        Lines written to the program's stdin are answered on its stdout;
        C{signalProcess("STOP")} stops its tree (the host sees its
        processes stopped), C{"CONT"} lets it run and answer again.
        """
        program = Lines()
        handle = sandbox(self).spawn(program, Confinement(python("""
            import os, socket, sys
            try:
                socket.create_connection(("127.0.0.1", 11011), timeout=5)
                net = "network"
            except OSError:
                net = "no network"
            print(net, os.getpid(), flush=True)
            for line in sys.stdin:
                print(line.strip().upper(), flush=True)
        """)))
        self.addCleanup(lambda: None if program.ended.called else (
            handle.signal(signal.SIGKILL), bounded(program.ended))[1])
        first = yield bounded(program.line())
        self.assertEqual(first.split()[:2], [b"no", b"network"])
        program.transport.write(b"h8\n")
        answer = yield bounded(program.line())
        self.assertEqual(answer, b"H8")
        tree = [handle.group] + childrenOf(handle.group)
        program.transport.signalProcess("STOP")
        yield waitFor(lambda: all(state(p) == "T" for p in tree))
        program.transport.write(b"i9\n")
        pending = program.line()
        program.transport.signalProcess("CONT")
        yield waitFor(lambda: not any(state(p) == "T" for p in tree))
        answer = yield bounded(pending)
        self.assertEqual(answer, b"I9")
        program.transport.closeStdin()
        how, _ = yield bounded(program.ended)
        self.assertEqual(how, "exited with status 0")

    @defer.inlineCallbacks
    def test_writeFullPipe(self):
        """
        What the hub writes to a program's stdin arrives whole and in
        order, written at once while the pipe takes it and through the
        reactor once it is full (the program stopped, not reading):
        350 KB of numbered chunks, past the pipe's 64 KB.
        """
        program = Lines()
        handle = sandbox(self).spawn(program, Confinement(python("""
            import hashlib, sys
            print("ready", flush=True)
            data = sys.stdin.buffer.read()
            print(len(data), hashlib.sha256(data).hexdigest(), flush=True)
        """)))
        self.addCleanup(lambda: None if program.ended.called else (
            handle.signal(signal.SIGKILL), bounded(program.ended))[1])
        first = yield bounded(program.line())
        self.assertEqual(first, b"ready")
        program.transport.signalProcess("STOP")
        chunks = [b"%d:" % (i,) + b"x" * (i % 700) + b"\n"
                  for i in range(1200)]
        data = b"".join(chunks)
        self.assertGreater(len(data), 350000)
        for chunk in chunks:
            program.transport.write(chunk)
        program.transport.signalProcess("CONT")
        program.transport.closeStdin()
        answer = yield bounded(program.line())
        self.assertEqual(answer, b"%d %s" % (
            len(data), hashlib.sha256(data).hexdigest().encode()))


def childrenOf(pid):
    """
    The host's processes whose parent is C{pid}.
    """
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/%s/stat" % (name,)) as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        found.append(int(name))
            except OSError:
                pass
    return found


def state(pid):
    """
    The state letter of process C{pid} (C{T}: stopped).
    """
    with open("/proc/%d/stat" % (pid,)) as f:
        return f.read().rsplit(")", 1)[1].split()[0]


class NoSandboxTests(TestCase):
    """
    C{--engine-sandbox none}: the limits, the clean environment and a
    working folder of its own, removed after it; its tree in a session
    of its own, killed with it.
    """

    timeout = 2 * WAIT

    @defer.inlineCallbacks
    def test_limitsAndEnvironment(self):
        box = noSandbox(self)
        how, found = yield report(self, box, """
            import json, os, resource
            open("book.txt", "w").write("x")
            print(json.dumps([sorted(os.environ), os.environ["HOME"],
                              os.getcwd(), os.getsid(0) == os.getpid(),
                              resource.getrlimit(resource.RLIMIT_NPROC)]))
        """, environment={"GAMEHUB_KEY": "k"}, limits=Limits(processes=50))
        names, home, cwd, leader, nproc = found
        self.assertEqual(set(names) - {"LC_CTYPE"},
                         {"GAMEHUB_KEY", "HOME", "PATH", "TMPDIR"})
        self.assertEqual(home, cwd)
        self.assertTrue(cwd.startswith(box.workRoot))
        self.assertTrue(leader)
        self.assertEqual(nproc, [50, 50])
        self.assertEqual(os.listdir(box.workRoot), [])

    @defer.inlineCallbacks
    def test_treeKilled(self):
        marker = "none-%d" % (id(self),)
        program, handle = run(self, noSandbox(self), python(
            ProcessTests.ESCAPE.replace("os.setsid()", "pass"), marker,
            "600"))
        yield bounded(program.seen(b"escaped"))
        handle.signal(signal.SIGTERM)
        yield bounded(program.ended)
        yield waitFor(lambda: not marked(marker, marker))


def fakeBwrap(case, body):
    """
    The path of a fake bwrap (a Python script: C{import os, time}, then
    C{body}) in C{case}'s folder; every process of it left at the end
    of C{case} is killed.
    """
    path = os.path.join(folder(case), "bwrap")
    with open(path, "w") as f:
        f.write("#!/usr/bin/python3\nimport os, time\n" + body)
    os.chmod(path, 0o755)
    case.addCleanup(lambda: [os.kill(pid, signal.SIGKILL)
                             for pid in marked(path, "python3")])
    return path


def startedBwrap(path, processes):
    """
    Wait for C{processes} processes of the fake bwrap at C{path}: the
    pid of the one this process started.
    """
    yield waitFor(lambda: len(marked(path, "python3")) == processes)
    [bwrap] = [pid for pid in marked(path, "python3")
               if int(status(pid)["PPid"]) == os.getpid()]
    return bwrap


def stranded(case, helper, leaderLives=False):
    """
    A process as the host sees a sandbox's first process that a hub
    killed outright left waiting (docs/deploy.md, "A killed hub"): named
    bwrap, given C{helper}, in a session of its own whose leader has
    exited (or, with C{leaderLives}, runs on); its pid, once it is so
    named.  It is killed at the end of C{case}.
    """
    script = (
        "import os, sys, time\n"
        "child = os.fork()\n"
        "if not child:\n"
        "    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)\n"
        "    os.execv(sys.executable, ['bwrap', '-c',\n"
        "             'import time; time.sleep(600)', sys.argv[1]])\n"
        "print(child, flush=True)\n"
        "os.close(1)\n"
        "if sys.argv[2] == 'lives':\n"
        "    time.sleep(600)\n")
    leader = subprocess.Popen(
        [sys.executable, "-c", script, helper,
         "lives" if leaderLives else "exits"],
        stdout=subprocess.PIPE, start_new_session=True)
    case.addCleanup(leader.wait)
    case.addCleanup(lambda: leader.poll() is None and leader.kill())
    readable, _, _ = select.select([leader.stdout], [], [], WAIT)
    pid = int(leader.stdout.readline() if readable else b"0")
    leader.stdout.close()
    case.addCleanup(lambda: alive(pid) and os.kill(pid, signal.SIGKILL))
    if not leaderLives:
        leader.wait(WAIT)
    yield waitFor(lambda: helper in processes().get(pid, ()))
    return pid


class StrandedTests(TestCase):
    """
    The sandboxes a hub killed outright left waiting are found
    (L{strandedSandboxes}) and killed (L{sweepStranded}); a live one is
    not.
    """

    timeout = 3 * WAIT

    def setUp(self):
        # A helper of this test's own: no other test's sweep finds its
        # processes.
        self.helper = "/run/gamehub-test-%d/inside.py" % (id(self),)

    @defer.inlineCallbacks
    def test_swept(self):
        """
        A sandbox process whose session's leader is gone is found, and
        killed.
        """
        pid = yield from stranded(self, self.helper)
        self.assertEqual(strandedSandboxes(self.helper), [pid])
        self.assertEqual(sweepStranded(self.helper), 1)
        yield waitFor(lambda: not alive(pid))
        self.assertEqual(strandedSandboxes(self.helper), [])

    @defer.inlineCallbacks
    def test_liveKept(self):
        """
        A sandbox process whose session's leader (a live sandbox's outer
        bwrap) runs is left alone.
        """
        pid = yield from stranded(self, self.helper, leaderLives=True)
        self.assertEqual(strandedSandboxes(self.helper), [])
        self.assertEqual(sweepStranded(self.helper), 0)
        self.assertTrue(alive(pid))

    @defer.inlineCallbacks
    def test_probeSweeps(self):
        """
        A hub's start-up probe kills what an earlier hub, killed
        outright, left waiting.
        """
        pid = yield from stranded(self, confine.HELPER)
        problem = yield bounded(sandbox(self).probe())
        self.assertIsNone(problem)
        yield waitFor(lambda: not alive(pid))


class ProbeTests(TestCase):
    """
    L{BwrapSandbox.probe}, cancelled.
    """

    timeout = 3 * WAIT

    @defer.inlineCallbacks
    def test_cancelKills(self):
        """
        A probe cancelled while its bwrap sets the sandbox up (a hub
        stopped during its start-up) kills that bwrap and the sandbox's
        first process, which waits for bwrap (as bwrap's child does
        until bwrap has written its user maps: killed alone, bwrap left
        it waiting for ever), and fails once bwrap is gone (the hub's
        stop waits for it).
        """
        path = fakeBwrap(self, "os.fork()\ntime.sleep(600)\n")
        probing = sandbox(self, bwrap=path).probe()
        bwrap = yield from startedBwrap(path, 2)
        probing.cancel()
        yield bounded(self.assertFailure(probing, defer.CancelledError))
        self.assertNotIn(bwrap, marked(path, "python3"))
        yield waitFor(lambda: not marked(path, "python3"))

    @defer.inlineCallbacks
    def test_groupKilled(self):
        """
        bwrap leads a process group of its own, and a cancelled probe's
        C{SIGKILL} reaches all of it at once: a process in it that is
        not bwrap's child (as one bwrap clones while the kill comes,
        that its children do not show yet) goes too.
        """
        path = fakeBwrap(self, "if not os.fork():\n"
                               "    os.fork()\n"
                               "time.sleep(600)\n")
        probing = sandbox(self, bwrap=path).probe()
        bwrap = yield from startedBwrap(path, 3)
        self.assertEqual(
            {os.getpgid(pid) for pid in marked(path, "python3")}, {bwrap})
        probing.cancel()
        yield bounded(self.assertFailure(probing, defer.CancelledError))
        yield waitFor(lambda: not marked(path, "python3"))

    @defer.inlineCallbacks
    def test_diedBeforeLettingGo(self):
        """
        A bwrap that dies before it lets its child go on (whatever
        kills it) takes that child with it: the child, still in bwrap's
        process group, is killed once bwrap has exited, and the probe
        ends (the child held its output pipes, and waited for ever).
        """
        path = fakeBwrap(self, "if not os.fork():\n"
                               "    time.sleep(600)\n"
                               "os._exit(1)\n")
        problem = yield bounded(sandbox(self, bwrap=path).probe())
        self.assertIsNotNone(problem)
        yield waitFor(lambda: not marked(path, "python3"))

    @defer.inlineCallbacks
    def test_killTold(self):
        """
        A C{SIGKILL} after bwrap has told the sandbox's pid, but before
        the sandbox's first process has a process group of its own (it
        takes one once bwrap lets it go on), kills that process too:
        the group's kill misses it, and killed alone, bwrap left it
        waiting for ever.
        """
        tell = "os.write(3, b'{\"child-pid\": %d}' % child)"
        path = fakeBwrap(self, "child = os.fork()\n"
                               "if child:\n"
                               "    " + tell + "\n"
                               "time.sleep(600)\n")
        ended = defer.Deferred()

        class Ends(ProcessProtocol):
            def processEnded(self, reason):
                ended.callback(None)
        tree = SandboxedProcess(Ends(), sandboxed=True)
        reactor.spawnProcess(tree, path, [path], env={},
                             childFDs={0: "w", 1: "r", 2: "r", INFO_FD: "r"})
        yield waitFor(lambda: tree.group is not None)
        self.assertTrue(alive(tree.group))
        tree.signal(signal.SIGKILL)
        yield bounded(ended)
        yield waitFor(lambda: not alive(tree.group))


class HelperTests(SynchronousTestCase):
    """
    What runs first inside (L{hub.sandbox.inside}) and the refusals of
    the binds (L{checkBinds}).
    """

    def test_filterForThisMachine(self):
        """
        This machine has a seccomp program (x86_64 or aarch64): whole
        instructions, ending in a refusal for other ABIs.
        """
        program = inside.userNamespaceFilter()
        self.assertIsNotNone(program)
        self.assertEqual(len(program) % 8, 0)
        self.assertIsNone(inside.userNamespaceFilter("sparc"))

    def test_binds(self):
        """
        A folder that holds the database or the working directory, or
        is in or holds the engines' folder, or is the whole file system,
        is refused; a folder beside them is not.
        """
        hidden = ["/var/lib/gamehub/hub.sqlite", "/var/lib/gamehub"]
        closed = ["/var/lib/gamehub/engines"]
        for refused in ("/", "/var", "/var/lib/gamehub",
                        "/var/lib/gamehub/engines/logs/1"):
            self.assertRaises(NotAllowed, checkBinds, [refused], hidden,
                              closed)
        checkBinds(["/opt/engines/pela", "/var/lib/gamehub-brains"],
                   hidden, closed)

    def test_missingBwrap(self):
        """
        Without bwrap, the sandbox's problem is the one line that says
        how to install it or opt out.
        """
        box = BwrapSandbox(reactor, bwrap="/nonexistent/bwrap")
        self.assertEqual(box.problem(), MISSING)
        self.assertIn("apt-get install bubblewrap", MISSING)
        self.assertIn("--engine-sandbox none", MISSING)
        self.assertRaises(OSError, box.spawn, None,
                          confine.Confinement(["true"]))

    def test_forwardArguments(self):
        """
        The forwarded socket is bound read-only at one place, and the
        helper told to relay the program's port to it.
        """
        args = confine.bwrapArguments(
            confine.Confinement(["engine"], forward=Forward(
                11011, "/run/x/1.sock")), "bwrap", "/py", [], False,
            system=[])
        self.assertIn("--ro-bind", args)
        at = args.index("/run/x/1.sock")
        self.assertEqual(args[at - 1:at + 2],
                         ["--ro-bind", "/run/x/1.sock", confine.SOCKET])
        self.assertIn('"forward":[11011,"%s"]' % (confine.SOCKET,),
                      args[args.index("--") + 5])
        self.assertEqual(args[-2:], ["--", "engine"])

    def test_relayWithoutNagle(self):
        """
        The relay in the sandbox turns Nagle's algorithm off on the
        program's connection, as the hub does on its own connections: a
        second small write to a program that has nothing to answer yet (a
        turn's lines to the seats not playing) would otherwise wait for
        the program's delayed acknowledgement, up to 40 ms on Linux, and
        a checkers game of three engines took seconds.
        """
        path = os.path.join(folder(self), "engine.sock")
        hub = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.addCleanup(hub.close)
        hub.bind(path)
        hub.listen(1)
        hub.settimeout(WAIT)
        listener = inside.listen(0)
        self.addCleanup(listener.close)
        program = socket.create_connection(listener.getsockname(), WAIT)
        self.addCleanup(program.close)
        connection, _ = listener.accept()
        self.assertFalse(connection.getsockopt(socket.IPPROTO_TCP,
                                               socket.TCP_NODELAY))
        slots = threading.BoundedSemaphore(1)
        slots.acquire()
        carrying = threading.Thread(target=inside._carry,
                                    args=(connection, path, slots),
                                    daemon=True)
        carrying.start()
        upstream, _ = hub.accept()
        self.addCleanup(upstream.close)
        upstream.settimeout(WAIT)
        program.sendall(b"move")
        self.assertEqual(upstream.recv(100), b"move")
        upstream.sendall(b"turn")
        self.assertEqual(program.recv(100), b"turn")
        self.assertTrue(connection.getsockopt(socket.IPPROTO_TCP,
                                              socket.TCP_NODELAY))
        program.close()
        upstream.close()
        carrying.join(WAIT)
        self.assertFalse(carrying.is_alive())
