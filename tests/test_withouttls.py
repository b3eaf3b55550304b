"""
L{hub.withouttls}: the processes that never speak TLS (a bot worker,
the network bot player) load Twisted without pyOpenSSL, and Twisted does
without it; a process that has pyOpenSSL already keeps it.  Each case
runs in a Python of its own: the test process needs its TLS.
"""

import importlib.util
import os
import subprocess
import sys

from twisted.trial.unittest import SynchronousTestCase

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def python(*args):
    """
    Run this Python with C{args} (from the tree's folder), and return
    its standard output and standard error; a failure shows the error.
    """
    done = subprocess.run(
        (sys.executable,) + args, cwd=ROOT, stdin=subprocess.DEVNULL,
        capture_output=True, text=True, timeout=60)
    if done.returncode:
        raise AssertionError("exit {}: {}".format(done.returncode,
                                                  done.stderr))
    return done.stdout, done.stderr


class WithoutTLSTests(SynchronousTestCase):
    """
    L{hub.withouttls.withoutTLS} and the programs that call it.
    """

    def setUp(self):
        # What the checks below look for is installed here (ampoule
        # requires Twisted's tls extra), so they are not empty.
        for name in ("OpenSSL", "cryptography"):
            self.assertIsNotNone(importlib.util.find_spec(name), name)

    def test_twistedWithout(self):
        """
        After L{withoutTLS}, pyOpenSSL cannot be imported, and AMP, the
        endpoints and TCP load without TLS: AMP has no StartTLS and the
        endpoints no TLS factory; nothing of cryptography is loaded.
        """
        out, _ = python("-c", "\n".join([
            "import sys",
            "from hub.withouttls import withoutTLS",
            "withoutTLS()",
            "from twisted.protocols import amp",
            "from twisted.internet import endpoints, reactor, tcp",
            "try:",
            "    import OpenSSL",
            "except ImportError:",
            "    print('no OpenSSL')",
            "print(amp.ssl, endpoints.TLSMemoryBIOFactory)",
            "print(sorted(name for name in sys.modules",
            "             if name.split('.')[0] == 'cryptography'))",
        ]))
        self.assertEqual(out.splitlines(), ["no OpenSSL", "None None", "[]"])

    def test_alreadyImported(self):
        """
        In a process that has imported pyOpenSSL, L{withoutTLS} changes
        nothing.
        """
        out, _ = python("-c", "\n".join([
            "import OpenSSL",
            "from hub.withouttls import withoutTLS",
            "withoutTLS()",
            "from twisted.protocols import amp",
            "import OpenSSL.SSL",
            "print(amp.ssl is not None)",
        ]))
        self.assertEqual(out.splitlines(), ["True"])

    def test_botPlayer(self):
        """
        C{python -m hub.bots} (so every engine started from it) runs
        without pyOpenSSL or cryptography loaded.
        """
        out, _ = python("-c", "\n".join([
            "import runpy, sys",
            "sys.argv = ['bots', '--help']",
            "try:",
            "    runpy.run_module('hub.bots', run_name='__main__',",
            "                     alter_sys=True)",
            "except SystemExit as e:",
            "    print('exit', e.code)",
            "print('hub.client.botplayer' in sys.modules)",
            "print(sorted(name for name, module in sys.modules.items()",
            "             if module is not None and name.split('.')[0]",
            "             in ('OpenSSL', 'cryptography')))",
        ]))
        lines = out.splitlines()
        self.assertIn("usage:", out)
        self.assertEqual(lines[-3:], ["exit 0", "True", "[]"])
