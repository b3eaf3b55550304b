"""
L{hub.web.masker}: a short frame's mask, as autobahn applies it.
"""

import os
import random

from autobahn.websocket.xormasker import create_xor_masker
from twisted.trial.unittest import SynchronousTestCase

from hub.web.masker import SHORT_FRAME, ShortMasker


class ShortMaskerTests(SynchronousTestCase):
    """
    L{ShortMasker} against autobahn's own masker.
    """

    def test_asAutobahn(self):
        """
        Frames of every length below L{SHORT_FRAME}, processed whole or in
        pieces, come out as autobahn's masker makes them, and the pointer
        counts the bytes processed.
        """
        chance = random.Random(7)
        for length in list(range(0, 70)) + [SHORT_FRAME - 1]:
            mask, data = os.urandom(4), os.urandom(length)
            theirs = create_xor_masker(mask, length)
            ours = ShortMasker(mask)
            expected, got = [], []
            start = end = 0
            while not expected or end < length:
                start, end = end, min(length, end + chance.randint(0, 9))
                expected.append(theirs.process(data[start:end]))
                got.append(ours.process(data[start:end]))
                self.assertEqual(ours.pointer(), end)
            self.assertEqual(got, expected, length)

    def test_involution(self):
        """
        Masking twice gives the bytes back (the mask is its own inverse).
        """
        mask, data = b"\x01\x80\xff\x7f", b'{"type":"act","action":[7,7]}'
        masked = ShortMasker(mask).process(data)
        self.assertNotEqual(masked, data)
        self.assertEqual(ShortMasker(mask).process(masked), data)

    def test_reset(self):
        """
        C{reset} starts the mask again from its first byte.
        """
        masker = ShortMasker(b"\x01\x02\x03\x04")
        self.assertEqual(masker.process(b"\x00\x00\x00"), b"\x01\x02\x03")
        masker.reset()
        self.assertEqual(masker.pointer(), 0)
        self.assertEqual(masker.process(b"\x00\x00"), b"\x01\x02")
