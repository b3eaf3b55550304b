"""
L{hub.thinkers.shares.BotShares}: how many bots one address or account
may have playing.
"""

from twisted.trial.unittest import SynchronousTestCase

from hub.thinkers.shares import BotShares, TooManyBots


class BotSharesTests(SynchronousTestCase):

    def setUp(self):
        self.shares = BotShares(seats=4, strong=2)

    def refusal(self, playing, address, account, levels):
        try:
            self.shares.check(playing, address, account, levels)
        except TooManyBots as e:
            return (e.strong, e.limit)
        return None

    def test_withinShare(self):
        """
        Up to the seats, of which up to the strong ones of level 3, from
        one address: allowed.
        """
        playing = [("a", None, 2), ("a", None, 3)]
        self.assertIsNone(self.refusal(playing, "a", None, [3, 1]))

    def test_tooMany(self):
        """
        One more bot than the seats, at any level: refused, saying the
        share.
        """
        playing = [("a", None, 1)] * 3
        self.assertEqual(self.refusal(playing, "a", None, [1, 1]),
                         (False, 4))

    def test_tooManyStrong(self):
        """
        One more level-3 bot than the strong share: refused, though there
        are seats; lower levels still fit.
        """
        playing = [("a", None, 3), ("a", None, 3)]
        self.assertEqual(self.refusal(playing, "a", None, [3]), (True, 2))
        self.assertIsNone(self.refusal(playing, "a", None, [2, 2]))

    def test_othersDoNotCount(self):
        """
        Other addresses' and other accounts' bots do not count.
        """
        playing = [("b", "bob", 3)] * 4
        self.assertIsNone(self.refusal(playing, "a", "ann", [3, 3]))

    def test_perAccount(self):
        """
        An account's bots count together from every address it plays
        from; a guest (no account) counts by address only.
        """
        playing = [("a", "ann", 1), ("b", "ann", 1), ("c", "ann", 3),
                   ("d", "ann", 3)]
        self.assertEqual(self.refusal(playing, "e", "ann", [1]),
                         (False, 4))
        self.assertIsNone(self.refusal(playing, "e", None, [1]))

    def test_noLimit(self):
        """
        0 is no limit.
        """
        self.shares = BotShares(0, 0)
        self.assertIsNone(self.refusal([("a", None, 3)] * 50, "a", None,
                                       [3] * 10))

    def test_text(self):
        """
        A refusal says its share in words.
        """
        self.assertEqual(str(TooManyBots(False, 8)),
                         "at most 8 bots play for one player at once")
        self.assertEqual(str(TooManyBots(True, 3)),
                         "at most 3 level-3 bots play for one player at once")
