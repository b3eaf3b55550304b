"""
Trees of L{twisted.web.template} flattened once but for their slots: a
page polled often (C{/account}, every page's shell) is mostly the same
bytes at every request, which flattening again costs hundreds of steps.

L{freeze} flattens a tree whose varying parts are slots (C{slot("csrf")})
to the bytes between them; L{Frozen.filled} gives the slots their values
for one page (L{Filled}), and L{flattened} writes those alone (a text
escaped as the flattener does, a tree flattened) between the frozen
bytes: byte for byte the tree flattened with its slots filled.  A slot
in an attribute's value takes a text.  The values are written at every
page, never kept: a frozen tree holds nobody's secret (a name, a CSRF
token), only what is the same for everybody.
"""

from __future__ import annotations

import re
import secrets
from typing import Any, Dict, List, Sequence, Set, Tuple

import attr
from zope.interface import implementer

from twisted.internet.defer import (
    Deferred, FirstError, gatherResults, succeed)
from twisted.python.failure import Failure
from twisted.web.iweb import IRenderable
from twisted.web.template import Comment, Tag, flatten, slot

#: A slot's mark: a comment, which the flattener writes as it is in a
#: tag's content and escaped in an attribute's value.  In a tag's content
#: no text can forge it (a text's C{<} is escaped): the marks between a
#: page's values (L{flattened}).  A frozen tree's marks (L{freeze}) name
#: a number drawn for it, which no text of the tree holds, since in an
#: attribute a text is escaped as a mark is.
_MARK = "frozen slot "
_MARKS = re.compile(rb"<!--frozen slot ([A-Za-z0-9_]+)-->")


def _marked(name: str, drawn: str = "") -> Comment:
    return Comment(_MARK + drawn + name)


def _joined(flat: List[bytes]) -> bytes:
    return b"".join(flat)


def _split(flat: bytes) -> Tuple[Tuple[bytes, ...], Tuple[str, ...]]:
    # The pieces between the marks, and the marks' names in order.
    parts = _MARKS.split(flat)
    return tuple(parts[0::2]), tuple(
        name.decode("ascii") for name in parts[1::2])


def contentText(text: str) -> bytes:
    """
    C{text} as the flattener writes a text in a tag's content.
    """
    return text.encode("utf-8").replace(b"&", b"&amp;").replace(
        b"<", b"&lt;").replace(b">", b"&gt;")


def attributeText(text: str) -> bytes:
    """
    C{text} as the flattener writes a text in an attribute's value.
    """
    return contentText(text).replace(b'"', b"&quot;")


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
    @ivar inAttributes: whether each of C{slots} is in an attribute's
        value (else in a tag's content).
    """

    tree: Any
    pieces: Tuple[bytes, ...]
    slots: Tuple[str, ...]
    inAttributes: Tuple[bool, ...]

    def filled(self, **values: Any) -> Filled:
        """
        This tree with each of its slots filled with C{values[name]}:
        every slot, none other; a text (L{str}), or in a tag's content
        only, a tree or a L{Filled}.
        """
        if set(values) != set(self.slots):
            raise ValueError("slots %s to fill, values given for %s" % (
                sorted(set(self.slots)), sorted(values)))
        for name, inAttribute in zip(self.slots, self.inAttributes):
            if inAttribute and not isinstance(values[name], str):
                raise ValueError("slot %s is in an attribute: its value is "
                                 "a text, not %r" % (name, values[name]))
        return Filled(self, values)


def freeze(tree: Any, names: Sequence[str]) -> Frozen:
    """
    Flatten C{tree}, whose slots are C{names}, to a L{Frozen}.

    @raise ValueError: the tree waits for something (a L{Deferred}: a
        frozen tree is made now), or one of C{names} is not in its tags
        (or only within a renderer's, which is not looked into).
    @raise twisted.web.error.FlattenerError: the tree has another slot.
    """
    flat: List[bytes] = []
    done: List[Any] = []
    drawn = secrets.token_hex(16) + " "
    flatten(None, Tag("")(tree).fillSlots(
        **{name: _marked(name, drawn) for name in names}),
        flat.append).addBoth(done.append)
    if not done:
        raise ValueError("a frozen tree waits for nothing")
    if isinstance(done[0], Failure):
        done[0].raiseException()
    mark = re.escape((_MARK + drawn).encode("ascii"))
    parts = re.split(b"<!--" + mark + b"([A-Za-z0-9_]+)-->|&lt;!--" + mark +
                     b"([A-Za-z0-9_]+)--&gt;", b"".join(flat))
    # Each mark: the piece before it, its name in content or in an
    # attribute (one of the two is None).
    slots = [(content or inAttribute).decode("ascii")
             for content, inAttribute in zip(parts[1::3], parts[2::3])]
    inAttributes = [content is None for content in parts[1::3]]
    if set(slots) != set(names) or {
            name for name, attribute in zip(slots, inAttributes)
            if attribute} != _attributeSlots(tree) & set(names):
        raise ValueError("slots %s are not all in the tree's tags" % (
            sorted(names),))
    return Frozen(tree, tuple(parts[0::3]), tuple(slots),
                  tuple(inAttributes))


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
    around its values: a text escaped as the flattener does where it is
    (L{contentText}, L{attributeText}), a L{Filled} value written the
    same way, and the other values (trees) flattened, all in one pass.
    """
    if not isinstance(root, Filled):
        flat: List[bytes] = []
        return flatten(request, root, flat.append).addCallback(
            lambda _: _joined(flat))
    written: Dict[str, bytes] = {}
    nested: List[str] = []
    trees: List[str] = []
    for name, value in root.values.items():
        if isinstance(value, str):
            written[name] = contentText(value)
        elif isinstance(value, Filled):
            nested.append(name)
        elif isinstance(value, list) and not value:
            written[name] = b""
        else:
            trees.append(name)
    # The trees in one pass, a mark before each, split again.
    marked: List[Any] = []
    for name in trees:
        marked.extend([_marked(name), root.values[name]])
    waited = [flattened(request, value) for value in
              [marked] + [root.values[name] for name in nested]]

    def joined(results: List[bytes]) -> bytes:
        pieces, found = _split(results[0])
        if list(found) != trees or pieces[0]:
            raise ValueError("a slot's value holds a frozen slot's mark")
        written.update(zip(trees, pieces[1:]))
        written.update(zip(nested, results[1:]))
        frozen = root.frozen
        out = [frozen.pieces[0]]
        for name, inAttribute, piece in zip(
                frozen.slots, frozen.inAttributes, frozen.pieces[1:]):
            out += [attributeText(root.values[name]) if inAttribute
                    else written[name], piece]
        return b"".join(out)
    if not trees and not nested:
        return succeed(joined([b""]))
    if not nested:
        return waited[0].addCallback(lambda flat: joined([flat]))
    return gatherResults(waited, consumeErrors=True).addCallbacks(
        joined, _firstFailure)


def _firstFailure(failure: Failure) -> Failure:
    # The failure of a value, not gatherResults' wrapping of it.
    if failure.check(FirstError):
        return failure.value.subFailure  # type: ignore[no-any-return]
    return failure
