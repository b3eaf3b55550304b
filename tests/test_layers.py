"""
The layers of the design: nothing under C{hub/} imports the desktop
client (C{client_pyglet}) or pyglet.
"""

import os
import pkgutil
import subprocess
import sys

from twisted.trial.unittest import SynchronousTestCase

import hub

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GUI = ("client_pyglet", "pyglet")

#: Imports one module in a fresh interpreter and prints the GUI modules
#: it brought in.
PROBE = """
import importlib, sys
importlib.import_module(sys.argv[1])
print(" ".join(sorted(m for m in sys.modules
                      if m.split(".")[0] in {gui!r})))
""".format(gui=GUI)


def hubModules():
    """
    The names of every module and package under C{hub/}.
    """
    names = ["hub"]
    for info in pkgutil.walk_packages(hub.__path__, "hub."):
        names.append(info.name)
    return sorted(names)


class LayerTests(SynchronousTestCase):
    """
    Every module under C{hub/}, imported alone, leaves C{client_pyglet}
    and C{pyglet} out of C{sys.modules}.
    """

    def test_someModules(self):
        """
        The walk finds the layers (a sanity check of the test itself).
        """
        names = hubModules()
        for name in ("hub.net", "hub.client.session", "hub.client.botplayer",
                     "hub.bots.__main__", "hub.protocols.gomoku"):
            self.assertIn(name, names)

    def test_noGUI(self):
        """
        No module under C{hub/} imports C{client_pyglet} or C{pyglet}.
        """
        env = dict(os.environ)
        env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
        failures = []
        for name in hubModules():
            result = subprocess.run(
                [sys.executable, "-c", PROBE, name], cwd=ROOT, env=env,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                timeout=120)
            if result.returncode:
                failures.append("%s: import failed: %s" % (
                    name, result.stderr.decode()[-500:]))
            elif result.stdout.strip():
                failures.append("%s imports %s" % (
                    name, result.stdout.decode().strip()))
        self.assertEqual(failures, [])
