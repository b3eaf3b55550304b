"""
L{hub.cluster.channel.ModerationChannel} without Redis: what a node
publishes, and which messages it hands to its moderation.
"""

import json

from twisted.internet import defer
from twisted.internet.testing import MemoryReactorClock
from twisted.trial.unittest import SynchronousTestCase

from hub.cluster.channel import ModerationChannel, channelName


class PublishingRedis:
    def __init__(self):
        self.published = []

    def publish(self, channel, message):
        self.published.append((channel, message))
        return defer.succeed(1)


class ChannelTests(SynchronousTestCase):

    def setUp(self):
        self.redis = PublishingRedis()
        self.channel = ModerationChannel(MemoryReactorClock(), self.redis,
                                         "127.0.0.1", 6379, "p1:", "a")
        self.handled = []
        self.channel.listen(self.handled.append)

    def test_publish(self):
        """
        A message goes to the cluster's channel (its key prefix keeps
        clusters apart) with the sender's node name.
        """
        self.channel.publish({"action": "kick", "id": 7})
        ((channel, raw),) = self.redis.published
        self.assertEqual(channel, channelName("p1:"))
        self.assertEqual(channel, "p1:moderation")
        self.assertEqual(json.loads(raw),
                         {"action": "kick", "id": 7, "node": "a"})

    def test_heard(self):
        """
        Another node's message goes to the handler (without its sender);
        the node's own, and what is not a message, do not.
        """
        self.channel.heard(json.dumps({"action": "ban", "node": "b"}))
        self.channel.heard(json.dumps({"action": "ban", "node": "a"}))
        self.channel.heard("not json")
        self.channel.heard(json.dumps(["a", "list"]))
        self.channel.heard(json.dumps({"action": "ban"}))
        self.assertEqual(self.handled, [{"action": "ban"}])
        self.assertEqual(self.channel.heardCount, 1)
        self.assertEqual(len(self.flushLoggedErrors()), 0)

    def test_handlerFailure(self):
        """
        A handler that fails is logged; the channel goes on.
        """
        def failing(message):
            raise RuntimeError("boom")
        self.channel.listen(failing)
        self.channel.heard(json.dumps({"action": "ban", "node": "b"}))
        self.assertEqual(len(self.flushLoggedErrors(RuntimeError)), 1)
        self.channel.listen(self.handled.append)
        self.channel.heard(json.dumps({"action": "unban", "node": "b"}))
        self.assertEqual(self.handled, [{"action": "unban"}])
