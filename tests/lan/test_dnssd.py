"""
Tests for L{hub.wire.dnssd}: a hub's TXT properties both ways.
"""

from twisted.trial.unittest import SynchronousTestCase

from hub.wire.dnssd import HubRecord, decodeProperties, encodeProperties


class PropertiesTests(SynchronousTestCase):
    """
    L{encodeProperties} and L{decodeProperties}.
    """

    def test_encode(self):
        """
        The games in order, a key per game, the web port if any.
        """
        self.assertEqual(
            encodeProperties({"splendor": 13204, "checkers": 16666}, 8080),
            {"txtvers": "1", "games": "checkers,splendor",
             "checkers": "16666", "splendor": "13204", "web": "8080"})
        self.assertEqual(encodeProperties({"gomoku": 1}),
                         {"txtvers": "1", "games": "gomoku",
                          "gomoku": "1"})

    def test_encodeRefuses(self):
        """
        Unknown games and ports out of range are refused.
        """
        self.assertRaises(ValueError, encodeProperties, {"chess": 1})
        self.assertRaises(ValueError, encodeProperties, {"gomoku": 0})
        self.assertRaises(ValueError, encodeProperties, {"gomoku": 70000})
        self.assertRaises(ValueError, encodeProperties, {"gomoku": 1}, -1)

    def test_roundTrip(self):
        """
        Encoded properties, as zeroconf hands them back (bytes), decode
        to the same ports.
        """
        properties = encodeProperties(
            {"checkers": 16666, "gomoku": 11011, "splendor": 13204}, 8080)
        asBytes = {k.encode(): v.encode() for k, v in properties.items()}
        self.assertEqual(decodeProperties(asBytes), HubRecord(
            {"checkers": 16666, "gomoku": 11011, "splendor": 13204}, 8080))

    def test_decodeForgiving(self):
        """
        Unlisted games, bad ports and unknown keys are left out; a
        missing web port is None.
        """
        self.assertEqual(decodeProperties({
            b"games": b"checkers,gomoku,chess", b"checkers": b"12",
            b"gomoku": b"x", b"splendor": b"5", b"chess": b"7",
            b"web": b"99999", b"other": None}),
            HubRecord({"checkers": 12}, None))
        self.assertEqual(decodeProperties({}), HubRecord({}, None))
