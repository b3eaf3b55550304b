"""
C{python -m hub.bots URL [options]}: the network bot player, the
C{bots} program of the distribution (L{hub.programs}), which lives in
L{hub.client.botplayer}: this package holds strategies only and imports
nothing above them.
"""

import sys

from twisted.internet import task

from hub.programs import program

if __name__ == "__main__":
    task.react(program("bots"), sys.argv[1:])
