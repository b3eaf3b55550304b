"""
The XOR mask of a short WebSocket frame (RFC 6455, section 5.3) applied
with Python's integers.

autobahn makes a masker for each masked frame it reads (a browser masks
every frame it sends).  Its own maskers are C code behind cffi, and most
of their cost is being made: for a move of about 40 bytes, making and
using one costs about 3 us, against about 0.6 us here.  From about 1 KiB
on, autobahn's is faster, so longer frames keep it (L{SHORT_FRAME}).
L{hub.twistedinternals.maskShortFrames} puts this one in autobahn's place.
"""

#: Frames of fewer bytes than this are unmasked by L{ShortMasker}.
SHORT_FRAME = 1024


class ShortMasker:
    """
    What autobahn asks of a masker: C{process} the frame's bytes in one
    piece or several, each going on from where the last stopped;
    C{pointer}, how many were processed; C{reset}, to start again.
    """

    __slots__ = ("_mask", "_processed")

    def __init__(self, mask: bytes) -> None:
        self._mask = mask
        self._processed = 0

    def pointer(self) -> int:
        return self._processed

    def reset(self) -> None:
        self._processed = 0

    def process(self, data: bytes) -> bytes:
        length = len(data)
        start = self._processed & 3
        mask = (self._mask * ((start + length) // 4 + 1))[
            start:start + length]
        self._processed += length
        return (int.from_bytes(data, "little")
                ^ int.from_bytes(mask, "little")).to_bytes(length, "little")
