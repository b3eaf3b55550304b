"""
The systemd unit shipped in C{deploy/} (see C{docs/deploy.md}): checked
by C{systemd-analyze verify} where systemd is installed (always on CI),
and its gamehub options parse.
"""

import os
import shlex
import shutil
import subprocess
import tempfile

from twisted.trial.unittest import SkipTest, SynchronousTestCase

from hub import tap
from tests.endtoend import twistdCommand

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UNIT = os.path.join(TOP, "deploy", "gamehub.service")
INSTALLED_TWISTD = "/opt/gamehub/venv/bin/twistd"


def unitText():
    with open(UNIT, encoding="utf-8") as f:
        return f.read()


def directives(text):
    """
    The unit's C{Key=value} lines, continuations joined: C{[(key,
    value)]}.
    """
    lines = []
    for line in text.replace("\\\n", " ").splitlines():
        line = line.strip()
        if line and not line.startswith(("#", ";", "[")) and "=" in line:
            key, _, value = line.partition("=")
            lines.append((key.strip(), value.strip()))
    return lines


class UnitTests(SynchronousTestCase):
    """
    C{deploy/gamehub.service}.
    """

    def test_confinement(self):
        """
        The unit runs twistd in the foreground without a pid file, as a
        dedicated user, without new privileges, with the file system
        read-only but for the database's folder.
        """
        found = dict(directives(unitText()))
        self.assertTrue(found["ExecStart"].startswith(
            INSTALLED_TWISTD + " -n --pidfile= gamehub "))
        self.assertEqual(found["User"], "gamehub")
        self.assertEqual(found["NoNewPrivileges"], "yes")
        self.assertEqual(found["ProtectSystem"], "strict")
        self.assertEqual(found["ReadWritePaths"], "/var/lib/gamehub")
        self.assertIn("sqlite:/var/lib/gamehub/", found["ExecStart"])
        self.assertEqual(found["KillSignal"], "SIGTERM")

    def test_optionsParse(self):
        """
        The gamehub options of C{ExecStart} are valid, and the stop
        timeout leaves the drain and the records' flush their time.
        """
        found = dict(directives(unitText()))
        argv = shlex.split(found["ExecStart"])
        options = tap.Options()
        options.parseOptions(argv[argv.index("gamehub") + 1:])
        self.assertGreater(options["drain-seconds"], 0)
        self.assertEqual(options["log-format"], "json")
        self.assertGreaterEqual(int(found["TimeoutStopSec"]),
                                options["drain-seconds"] + 10 + 5)

    def test_systemdAnalyzeVerify(self):
        """
        C{systemd-analyze verify} finds nothing to say about the unit
        (with the twistd of this Python in place of the installed one,
        which verify requires to exist).
        """
        analyze = shutil.which("systemd-analyze")
        if analyze is None:
            if os.environ.get("CI") == "true":
                raise AssertionError("CI must provide systemd-analyze")
            raise SkipTest("systemd-analyze is not installed")
        twistd = twistdCommand()
        if len(twistd) != 1:
            raise SkipTest("no twistd script beside this Python")
        text = unitText()
        self.assertIn(INSTALLED_TWISTD, text)
        folder = tempfile.mkdtemp(prefix="gamehub-unit-")
        self.addCleanup(shutil.rmtree, folder, True)
        path = os.path.join(folder, "gamehub.service")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace(INSTALLED_TWISTD, twistd[0]))
        result = subprocess.run([analyze, "verify", "--man=no", path],
                                capture_output=True, text=True, timeout=60)
        self.assertEqual((result.returncode, result.stderr.strip()),
                         (0, ""), result.stdout)

    def test_verifyCatchesMistakes(self):
        """
        The check is not empty: a misspelt directive makes verify speak.
        """
        analyze = shutil.which("systemd-analyze")
        if analyze is None:
            raise SkipTest("systemd-analyze is not installed")
        folder = tempfile.mkdtemp(prefix="gamehub-unit-")
        self.addCleanup(shutil.rmtree, folder, True)
        path = os.path.join(folder, "gamehub.service")
        text = unitText().replace(INSTALLED_TWISTD, "/bin/true").replace(
            "NoNewPrivileges=yes", "NoNewPrivilege=yes")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        result = subprocess.run([analyze, "verify", "--man=no", path],
                                capture_output=True, text=True, timeout=60)
        self.assertIn("NoNewPrivilege", result.stderr)


#: The mounts of the unit's hardening, as systemd makes them for the
#: service (run as root in a private mount namespace), then the command
#: as the unprivileged user: C{ProtectSystem=strict} (the system's
#: folders read-only), C{PrivateTmp=yes}, C{ProtectHome=yes}; and, when
#: asked, C{ProtectKernelTunables=yes} (C{/proc/sys} read-only) or
#: C{ProtectKernelLogs=yes} (C{/proc/kmsg} covered).
UNIT_MOUNTS = """
set -e
# The hub's own file, opened as the hub opens it: before the unit's
# mounts hide a source tree under /tmp (a clone's, in CI).
exec 4<"$HELPER"
mount --make-rprivate /
for d in /usr /etc /var /opt /srv; do
    if [ -d $d ]; then mount --bind $d $d; mount -o remount,bind,ro $d; fi
done
mount -t tmpfs -o mode=1777 tmpfs /tmp
for d in /home /root /run/user; do
    if [ -d $d ]; then mount -t tmpfs -o mode=0755 tmpfs $d; fi
done
case "$1" in
    tunables) mount --bind /proc/sys /proc/sys
              mount -o remount,bind,ro /proc/sys ;;
    logs) mount --bind /dev/null /proc/kmsg ;;
esac
shift
exec setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
"""


class SandboxUnderTheUnitTests(SynchronousTestCase):
    """
    The engine sandbox under the unit's hardening (docs/deploy.md): the
    unit allows what bwrap needs, and the two settings it turns off
    would stop every engine.
    """

    def test_settings(self):
        """
        bwrap's namespaces and netlink are allowed, /proc is left whole,
        and the rest of the hardening stays.
        """
        found = dict(directives(unitText()))
        self.assertEqual(set(found["RestrictNamespaces"].split()),
                         {"user", "mnt", "pid", "net", "ipc", "uts"})
        self.assertIn("AF_NETLINK", found["RestrictAddressFamilies"])
        self.assertEqual((found["ProtectKernelTunables"],
                          found["ProtectKernelLogs"]), ("no", "no"))
        for kept in ("NoNewPrivileges", "ProtectHome", "PrivateTmp",
                     "PrivateDevices", "ProtectKernelModules",
                     "ProtectControlGroups", "ProtectClock",
                     "ProtectHostname", "RestrictSUIDSGID",
                     "LockPersonality"):
            self.assertEqual(found[kept], "yes", kept)
        self.assertEqual(found["CapabilityBoundingSet"], "")
        self.assertNotIn("engine-sandbox", found["ExecStart"])

    def sandboxed(self, hardening):
        """
        The hub's own bwrap command line (an unprivileged hub's, with
        Debian's Python) run as nobody under the unit's mounts.
        """
        from hub.sandbox import confine
        args = confine.bwrapArguments(
            confine.Confinement(["python3", "-c", "print('sandboxed')"]),
            shutil.which("bwrap"), "/usr/bin/python3", [], False,
            helperFD=4)
        env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp",
               "HELPER": confine.helperPath()}
        return subprocess.run(
            ["unshare", "-m", "sh", "-c", UNIT_MOUNTS, "sh", hardening]
            + args, env=env, capture_output=True, text=True, timeout=60)

    def test_underTheUnit(self):
        """
        Under the unit's mounts, an engine starts in its sandbox; with
        C{ProtectKernelTunables=yes} or C{ProtectKernelLogs=yes} bwrap
        cannot mount the sandbox's /proc, and nothing starts.
        """
        self.assertEqual(os.geteuid(), 0, "the tests run as root")
        result = self.sandboxed("none")
        self.assertEqual((result.returncode, result.stdout),
                         (0, "sandboxed\n"), result.stderr)
        for hardening in ("tunables", "logs"):
            result = self.sandboxed(hardening)
            self.assertNotEqual(result.returncode, 0, hardening)
            self.assertIn("Can't mount proc", result.stderr, hardening)
