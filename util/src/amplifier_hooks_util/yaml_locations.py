"""Read a YAML document once and say on which line each key path sits.

:meth:`YamlDocument.parse` composes the text into PyYAML's node tree (which keeps positions)
and constructs the data from that same tree, so a config is read once and its errors can still
name lines: :meth:`YamlDocument.line_of` turns a key path such as ``("hooks", 1, "config")``
into the line of that value (or of its key), or of the nearest enclosing node that exists.
:meth:`YamlDocument.duplicate_keys` finds keys written twice in one mapping, which YAML would
silently collapse into the last one.

Hostile documents stay harmless: collections nested more than :data:`MAX_DEPTH` levels deep
are refused (within that, nothing here recurses per level); an alias that refers to its own
collection (``x: &x [*x]``) makes a cycle that every walk here follows at most once; a ``<<``
merge that merges a mapping into itself is an error; and constructing the data never rewrites
the node tree (so lines and duplicate keys are those of the text as written, merges or not).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final, cast

import yaml
from yaml.composer import ComposerError
from yaml.constructor import BaseConstructor, ConstructorError
from yaml.events import (
    AliasEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

__all__ = [
    "MAX_DEPTH",
    "DuplicateKey",
    "KeyPath",
    "YamlDocument",
    "describe_yaml_error",
]

KeyPath = Sequence[str | int]
"""Mapping keys (``str``) and list indexes (``int``), outermost first."""

#: Collections nested deeper than this are refused. Configs nest a dozen levels; PyYAML's
#: scanner slows down with every open level, and what reads the data may recurse over it.
MAX_DEPTH: Final = 200

_MERGE_TAG: Final = "tag:yaml.org,2002:merge"
_VALUE_TAG: Final = "tag:yaml.org,2002:value"
_STR_TAG: Final = "tag:yaml.org,2002:str"


@dataclass(frozen=True, slots=True)
class DuplicateKey:
    """A key written a second time in one mapping: where, and where it was first."""

    path: tuple[str | int, ...]
    line: int
    first_line: int

    @property
    def key(self) -> str:
        """The repeated key."""
        return str(self.path[-1])


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader with a composer that keeps no call stack per nesting level and a
    ``<<`` merge that reads the node tree instead of rewriting it."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self._flat: dict[int, MappingNode] = {}
        self._flattening: set[int] = set()

    # -- composing without recursion

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        """The next node of the event stream, its descendants composed with an explicit stack."""
        events: Any = self  # PyYAML's parser methods carry no type hints
        stack: list[list[Any]] = []  # [collection node, pending mapping key or None]
        while True:
            if stack and events.check_event(SequenceEndEvent, MappingEndEvent):
                end = events.get_event()
                done: Node = stack.pop()[0]
                done.end_mark = end.end_mark
                self.ascend_resolver()
            else:
                done_or_open = self._open_node(stack, parent, index)
                if done_or_open is None:
                    continue
                done = done_or_open
            if not stack:
                return done
            frame = stack[-1]
            if isinstance(frame[0], SequenceNode):
                frame[0].value.append(done)
            elif frame[1] is None:
                frame[1] = done
            else:
                frame[0].value.append((frame[1], done))
                frame[1] = None

    def _open_node(self, stack: list[list[Any]], parent: Node | None, index: Any) -> Node | None:
        """Compose a scalar or an alias (returned), or open a collection (pushed; ``None``)."""
        events: Any = self  # PyYAML's parser and resolver methods carry no type hints
        if events.check_event(AliasEvent):
            event = events.get_event()
            if event.anchor not in self.anchors:
                raise ComposerError(
                    None, None, f"found undefined alias {event.anchor!r}", event.start_mark
                )
            node: Node = self.anchors[event.anchor]
            return node
        event = events.peek_event()
        anchor = event.anchor
        if anchor is not None and anchor in self.anchors:
            raise ComposerError(
                f"found duplicate anchor {anchor!r}; first occurrence",
                self.anchors[anchor].start_mark,
                "second occurrence",
                event.start_mark,
            )
        if stack:
            top = stack[-1]
            parent = top[0]
            index = len(top[0].value) if isinstance(top[0], SequenceNode) else top[1]
        self.descend_resolver(parent, index)
        if events.check_event(ScalarEvent):
            node = self.compose_scalar_node(anchor)
            self.ascend_resolver()
            return node
        start = events.get_event()
        tag, mark = start.tag, start.start_mark
        if isinstance(start, SequenceStartEvent):
            if tag is None or tag == "!":
                tag = events.resolve(SequenceNode, None, start.implicit)
            node = SequenceNode(tag, [], mark, None, flow_style=start.flow_style)
        elif isinstance(start, MappingStartEvent):
            if tag is None or tag == "!":
                tag = events.resolve(MappingNode, None, start.implicit)
            node = MappingNode(tag, [], mark, None, flow_style=start.flow_style)
        else:  # pragma: no cover - the parser sends no other event here
            raise ComposerError(None, None, f"unexpected {type(start).__name__}", start.start_mark)
        if len(stack) >= MAX_DEPTH:
            raise ComposerError(
                None, None, f"found collections nested more than {MAX_DEPTH} levels deep", mark
            )
        if anchor is not None:
            self.anchors[anchor] = node
        stack.append([node, None])
        return None

    # -- merging without rewriting the tree

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, MappingNode):
            node = self._flattened(node)
        return BaseConstructor.construct_mapping(self, node, deep=deep)

    def _flattened(self, node: MappingNode) -> MappingNode:
        """``node`` with its ``<<`` merges resolved, as a new node (the tree is left alone)."""
        if not any(key.tag in (_MERGE_TAG, _VALUE_TAG) for key, _ in node.value):
            return node
        cached = self._flat.get(id(node))
        if cached is not None:
            return cached
        if id(node) in self._flattening:
            raise ConstructorError(
                "while constructing a mapping",
                node.start_mark,
                "found a '<<' merge that merges this mapping into itself",
                node.start_mark,
            )
        self._flattening.add(id(node))
        try:
            merged: list[tuple[Node, Node]] = []
            seen: set[str] = set()
            own: list[tuple[Node, Node]] = []
            for key, value in node.value:
                if key.tag == _MERGE_TAG:
                    for source in self._merge_sources(node, value):
                        for pair in self._flattened(source).value:
                            name = pair[0].value if isinstance(pair[0], ScalarNode) else None
                            if name is None or name not in seen:
                                merged.append(pair)
                                if name is not None:
                                    seen.add(name)
                elif key.tag == _VALUE_TAG:
                    text = ScalarNode(_STR_TAG, key.value, key.start_mark, key.end_mark)
                    own.append((text, value))
                else:
                    own.append((key, value))
        finally:
            self._flattening.discard(id(node))
        flat = MappingNode(
            node.tag, merged + own, node.start_mark, node.end_mark, flow_style=node.flow_style
        )
        self._flat[id(node)] = flat
        return flat

    @staticmethod
    def _merge_sources(node: MappingNode, value: Node) -> list[MappingNode]:
        if isinstance(value, MappingNode):
            return [value]
        if isinstance(value, SequenceNode):
            for item in value.value:
                if not isinstance(item, MappingNode):
                    raise ConstructorError(
                        "while constructing a mapping",
                        node.start_mark,
                        f"expected a mapping for merging, but found {cast(Any, item).id}",
                        item.start_mark,
                    )
            return list(value.value)
        raise ConstructorError(
            "while constructing a mapping",
            node.start_mark,
            f"expected a mapping or list of mappings for merging, but found {cast(Any, value).id}",
            value.start_mark,
        )


def _pairs(node: MappingNode) -> Iterator[tuple[str | None, Node, Node]]:
    for key, value in node.value:
        yield (key.value if isinstance(key, ScalarNode) else None), key, value


def _line(node: Node | None) -> int | None:
    return None if node is None else node.start_mark.line + 1


class YamlDocument:
    """One YAML document: its data, and the node tree that says where each part was written.

    Build it with :meth:`parse` (YAML) or :meth:`positions` (positions only, for example of
    JSON text whose data was read by a JSON parser).
    """

    __slots__ = ("data", "root")

    def __init__(self, root: Node | None, data: Any = None) -> None:
        self.root = root
        self.data = data

    @classmethod
    def parse(cls, text: str) -> YamlDocument:
        """Compose ``text`` and construct its data with the safe loader.

        :raises yaml.YAMLError: the text is not one valid YAML document; a
            :class:`yaml.MarkedYAMLError` (see :func:`describe_yaml_error`) when the position
            of the mistake is known.
        """
        loader = _Loader(text)
        try:
            root = loader.get_single_node()
            data = loader.construct_document(root) if root is not None else None
        except RecursionError as err:  # a merge chain thousands of levels deep
            raise yaml.YAMLError("the document nests '<<' merges too deeply to be read") from err
        finally:
            loader.dispose()
        return cls(root, data)

    @classmethod
    def positions(cls, text: str) -> YamlDocument:
        """Only the node tree of ``text`` (``data`` stays ``None``).

        :raises yaml.YAMLError: as :meth:`parse`.
        """
        loader = _Loader(text)
        try:
            return cls(loader.get_single_node())
        finally:
            loader.dispose()

    def node_at(self, path: KeyPath, *, key: bool = False) -> Node | None:
        """The node at ``path``, or the deepest node along it that exists; with ``key``, the
        key node of the last step (when that step exists in a mapping)."""
        node = self.root
        for index, part in enumerate(path):
            last = index == len(path) - 1
            if isinstance(node, MappingNode):
                wanted = str(part)
                found = next(((k, v) for name, k, v in _pairs(node) if name == wanted), None)
                if found is None:
                    return node
                node = found[0] if key and last else found[1]
            elif isinstance(node, SequenceNode) and isinstance(part, int) and part >= 0:
                if part >= len(node.value):
                    return node
                node = node.value[part]
            else:
                return node
        return node

    def line_of(self, path: KeyPath, *, key: bool = False) -> int | None:
        """The 1-based line of :meth:`node_at` ``(path, key=key)``; ``None`` without a document."""
        return _line(self.node_at(path, key=key))

    def duplicate_keys(self) -> list[DuplicateKey]:
        """Every key written twice in one mapping (``<<`` merges aside), in document order.

        Each node is visited once, so a document whose aliases form a cycle is walked in full.
        """
        found: list[DuplicateKey] = []
        seen_nodes: set[int] = set()
        stack: list[tuple[Node, tuple[str | int, ...]]] = (
            [(self.root, ())] if self.root is not None else []
        )
        while stack:
            node, path = stack.pop()
            if id(node) in seen_nodes:
                continue
            seen_nodes.add(id(node))
            children: list[tuple[Node, tuple[str | int, ...]]] = []
            if isinstance(node, MappingNode):
                first: dict[str, Node] = {}
                for name, key_node, value in _pairs(node):
                    if name is not None and key_node.tag != _MERGE_TAG:
                        if name in first:
                            found.append(
                                DuplicateKey(
                                    (*path, name),
                                    key_node.start_mark.line + 1,
                                    first[name].start_mark.line + 1,
                                )
                            )
                        else:
                            first[name] = key_node
                    children.append((value, (*path, name if name is not None else "?")))
            elif isinstance(node, SequenceNode):
                children = [(item, (*path, i)) for i, item in enumerate(node.value)]
            stack.extend(reversed(children))
        found.sort(key=lambda dup: dup.line)
        return found


def describe_yaml_error(err: yaml.YAMLError) -> tuple[str, int | None, int | None]:
    """``(message, line, column)`` of a YAML error, 1-based; the message reads like
    ``expected ',' or '}', but got '<scalar>' (while parsing a flow mapping at line 3)``."""
    if not isinstance(err, yaml.MarkedYAMLError):
        return str(err), None, None
    mark = err.problem_mark or err.context_mark
    problem, context = err.problem, err.context
    if problem and context and context.startswith("expected"):
        message = f"{context}, {problem}"
    elif problem and context:
        message = f"{problem} ({context}"
        if err.context_mark is not None and err.context_mark is not mark:
            message += f" at line {err.context_mark.line + 1}"
        message += ")"
    else:
        message = problem or context or "syntax error"
    if mark is None:
        return message, None, None
    return message, mark.line + 1, mark.column + 1
