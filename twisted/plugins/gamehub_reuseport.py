"""
The C{reuseport:} endpoint string parser (L{hub.cluster.reuseport}),
imported only when such an endpoint is used.
"""

from zope.interface import implementer

from twisted.internet.interfaces import IStreamServerEndpointStringParser
from twisted.plugin import IPlugin


@implementer(IPlugin, IStreamServerEndpointStringParser)
class ReusePortParser:
    prefix = "reuseport"

    def parseStreamServer(self, reactor, *args, **kwargs):
        from hub.cluster.reuseport import parse
        return parse(reactor, *args, **kwargs)


reusePortParser = ReusePortParser()
