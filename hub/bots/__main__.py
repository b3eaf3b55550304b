"""
C{python -m hub.bots URL [options]}: the network bot player, the
C{bots} program of the distribution (L{hub.programs}), which lives in
L{hub.client.botplayer}: this package holds strategies only and imports
nothing above them.  It connects over plain TCP only, and loads Twisted
without TLS (L{hub.withouttls}).
"""

import sys

from hub.withouttls import withoutTLS

if __name__ == "__main__":
    withoutTLS()
    from twisted.internet import task

    from hub.programs import program
    task.react(program("bots"), sys.argv[1:])
