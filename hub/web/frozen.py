"""
Trees of L{twisted.web.template} flattened once but for their slots: a
page polled often (C{/account}, every page's shell) is mostly the same
bytes at every request, which flattening again costs hundreds of steps.

L{freeze} flattens a tree whose varying parts are slots (C{slot("csrf")})
to the bytes between them; L{Frozen.filled} gives the slots their values
for one page (L{Filled}), and L{flattened} flattens those alone, joined
with the frozen bytes: byte for byte the tree flattened with its slots
filled, the values escaped as there (a slot in an attribute's value is
refused).  A slot's value is flattened at every page, never kept: a
frozen tree holds nobody's secret, only what is the same for everybody.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Sequence, Set, Tuple

import attr
from zope.interface import implementer

from twisted.internet.defer import Deferred, FirstError, gatherResults
from twisted.python.failure import Failure
from twisted.web.iweb import IRenderable
from twisted.web.template import Comment, Tag, flatten, slot

#: A slot's mark in the bytes of a frozen tree: a comment, which the
#: flattener writes as it is in a tag's content only (in an attribute, its
#: C{<} is escaped, so the mark is not found there), and which no text can
#: forge (a text's C{<} is always escaped).
_MARK = "frozen slot "
_MARKS = re.compile(rb"<!--frozen slot ([A-Za-z0-9_]+)-->")


def _marked(name: str) -> Comment:
    return Comment(_MARK + name)


def _joined(flat: List[bytes]) -> bytes:
    return b"".join(flat)


def _split(flat: bytes) -> Tuple[Tuple[bytes, ...], Tuple[str, ...]]:
    # The pieces between the marks, and the marks' names in order.
    parts = _MARKS.split(flat)
    return tuple(parts[0::2]), tuple(
        name.decode("ascii") for name in parts[1::2])


def _attributeSlots(root: Any, inAttribute: bool = False) -> Set[str]:
    # The names of the slots in the attributes' values of the tags of the
    # tree root (a tree of tags, lists and texts).
    if isinstance(root, slot):
        return {root.name} if inAttribute else set()
    found: Set[str] = set()
    if isinstance(root, Tag):
        for value in root.attributes.values():
            found |= _attributeSlots(value, True)
        root = root.children
    if isinstance(root, (list, tuple)):
        for child in root:
            found |= _attributeSlots(child, inAttribute)
    return found


@attr.s(frozen=True, auto_attribs=True)
class Frozen:
    """
    A tree flattened but for its slots.

    @ivar tree: the tree (its slots unfilled).
    @ivar pieces: its bytes between the slots: one more than C{slots}.
    @ivar slots: the names of its slots in the order they come (a name
        used twice comes twice).
    """

    tree: Any
    pieces: Tuple[bytes, ...]
    slots: Tuple[str, ...]

    def filled(self, **values: Any) -> Filled:
        """
        This tree with each of its slots filled with C{values[name]} (a
        tree, a text, or a L{Filled}), every slot, none other.
        """
        if set(values) != set(self.slots):
            raise ValueError("slots %s to fill, values given for %s" % (
                sorted(set(self.slots)), sorted(values)))
        return Filled(self, values)


def freeze(tree: Any, names: Sequence[str]) -> Frozen:
    """
    Flatten C{tree}, whose slots are C{names}, to a L{Frozen}.

    @raise ValueError: the tree waits for something (a L{Deferred}: a
        frozen tree is made now), or one of C{names} is used in an
        attribute's value (only a tag's content may be a slot here), or
        is not in the tree (or only within a renderer's, which is not
        looked into).
    @raise twisted.web.error.FlattenerError: the tree has another slot.
    """
    inAttributes = _attributeSlots(tree) & set(names)
    if inAttributes:
        raise ValueError("slots %s are in attributes' values" % (
            sorted(inAttributes),))
    flat: List[bytes] = []
    done: List[Any] = []
    flatten(None, Tag("")(tree).fillSlots(
        **{name: _marked(name) for name in names}),
        flat.append).addBoth(done.append)
    if not done:
        raise ValueError("a frozen tree waits for nothing")
    if isinstance(done[0], Failure):
        done[0].raiseException()
    pieces, slots = _split(b"".join(flat))
    if set(slots) != set(names):
        raise ValueError("slots %s are not in the tree's tags" % (
            sorted(set(names) - set(slots)),))
    return Frozen(tree, pieces, slots)


@implementer(IRenderable)
@attr.s(frozen=True, auto_attribs=True)
class Filled:
    """
    A L{Frozen} tree with its slots' values for one page: written out
    with L{flattened}; elsewhere in a tree (an L{IRenderable}), flattened
    as the tree with its slots filled.
    """

    frozen: Frozen
    values: Dict[str, Any]

    def render(self, request: Any) -> Any:
        return Tag("")(self.frozen.tree).fillSlots(**self.values)

    def lookupRenderMethod(self, name: str) -> Any:
        raise ValueError("a frozen tree has no renderer %r" % (name,))


def flattened(request: Any, root: Any) -> Deferred[bytes]:
    """
    A Deferred of the bytes of C{root} (a tree, or a L{Filled} one whose
    values may be L{Filled} too): a L{Filled} tree's frozen bytes joined
    around its values, each of which is flattened (all in one pass of
    the flattener, but for those that are L{Filled}, each in its own).
    """
    if not isinstance(root, Filled):
        flat: List[bytes] = []
        return flatten(request, root, flat.append).addCallback(
            lambda _: _joined(flat))
    names = list(root.values)
    nested = [name for name in names
              if isinstance(root.values[name], Filled)]
    plain = [name for name in names if name not in nested]
    # The plain values in one pass, a mark before each, split again.
    marked: List[Any] = []
    for name in plain:
        marked.extend([_marked(name), root.values[name]])
    waited = [flattened(request, marked)] + [
        flattened(request, root.values[name]) for name in nested]

    def joined(results: List[bytes]) -> bytes:
        pieces, found = _split(results[0])
        if list(found) != plain or pieces[0]:
            raise ValueError("a slot's value holds a frozen slot's mark")
        written = dict(zip(plain, pieces[1:]))
        written.update(zip(nested, results[1:]))
        frozen = root.frozen
        out = [frozen.pieces[0]]
        for name, piece in zip(frozen.slots, frozen.pieces[1:]):
            out += [written[name], piece]
        return b"".join(out)
    if not nested:
        return waited[0].addCallback(lambda flat: joined([flat]))
    return gatherResults(waited, consumeErrors=True).addCallbacks(
        joined, _firstFailure)


def _firstFailure(failure: Failure) -> Failure:
    # The failure of a value, not gatherResults' wrapping of it.
    if failure.check(FirstError):
        return failure.value.subFailure  # type: ignore[no-any-return]
    return failure

