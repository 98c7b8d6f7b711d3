"""Safe YAML loading that keeps line numbers.

Frontmatter, the manifest and the lockfile are untrusted or hand-edited text. They are
*composed* into a node tree by ruamel.yaml's safe parser (its C parser when installed) and
turned into plain Python values here, so that:

* nothing is ever constructed from a tag: only the core schema (str, int, float, bool,
  null, sequences, mappings) is accepted and any other tag is an error;
* duplicate keys and aliases are errors instead of silent last-one-wins surprises;
* every value keeps the line it came from, for diagnostics;
* hostile shapes fail as diagnostics, not crashes: nesting deeper than ``MAX_DEPTH``
  (libyaml's composer recurses in C and overflows the stack near 30,000 levels) and
  numbers Python refuses to convert (over 4,300 digits).

Round-trip loading (comments kept) is only used to edit the manifest; see manifest.py.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from metapkg import limits

MAX_DEPTH = 64  # collections inside collections; real files stay under 10
# Below this many nesting indicators a document cannot nest deep enough to hurt the
# composer, so the separate depth pass (about 60% of a parse) is skipped.
_CHEAP = 10_000
_CORE = "tag:yaml.org,2002:"
_STR = _CORE + "str"
_SCALAR_TAGS = {_CORE + t for t in ("str", "int", "float", "bool", "null", "timestamp")}


class YamlProblem(ValueError):
    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line  # 1-based, relative to the text that was parsed


Key = tuple[str | int, ...]


@dataclass(frozen=True)
class Located:
    """A parsed YAML document plus where each value came from."""

    value: Any
    lines: Mapping[Key, int] = field(default_factory=dict)
    quoted: frozenset[Key] = frozenset()

    def line(self, *key: str | int) -> int | None:
        """1-based line of the value at ``key`` (or of its nearest parent)."""
        while key:
            if key in self.lines:
                return self.lines[key]
            key = key[:-1]
        return self.lines.get((), None)


_compose: Any = None


def _composer() -> Any:
    """A function text -> node tree, through libyaml (ruamel's C parser) when installed.

    ruamel.yaml.cyaml.CSafeLoader pairs the C parser with the static YAML 1.2 resolver.
    ``YAML(typ="safe").compose`` would build a new loader class and version-aware
    resolver tables on every call: about 4x slower, which matters when checking a
    thousand packages.
    """
    global _compose
    if _compose is None:
        try:
            from ruamel.yaml.cyaml import CSafeLoader
        except ImportError:  # no C extension: the pure-Python parser, same results
            from ruamel.yaml import YAML

            _compose = YAML(typ="safe", pure=True).compose
            return _compose

        def compose(text: str) -> Any:
            loader = CSafeLoader(text)
            try:
                return loader.get_single_node()
            finally:
                loader.dispose()

        _compose = compose
    return _compose


def load(text: str, line_offset: int = 0, anchors: bool = True) -> Located:
    """Parse one YAML document; raise :class:`YamlProblem` with a 1-based line on error.

    ``line_offset`` is added to every line so frontmatter lines are reported as lines of
    the file they sit in. ``anchors=False`` refuses anchors even with no alias using
    them (the lockfile spec's rule: they have no place in a generated file). The plainest
    documents (never with an anchor) are read by yamlfast.py (same results, without
    importing ruamel.yaml); any other by :func:`load_with_ruamel`.
    """
    from metapkg.yamlfast import parse

    fast = parse(text, line_offset)
    if fast is None:
        return load_with_ruamel(text, line_offset, anchors)
    value, lines, quoted = fast
    return Located(value, lines, frozenset(quoted))


def load_with_ruamel(text: str, line_offset: int = 0, anchors: bool = True) -> Located:
    """:func:`load` through ruamel.yaml's safe parser, for any document."""
    from ruamel.yaml.error import MarkedYAMLError, YAMLError
    from ruamel.yaml.reader import ReaderError

    compose = _composer()
    try:
        if (not anchors and "&" in text) or sum(text.count(c) for c in "[{-:?") >= _CHEAP:
            _check_events(text, line_offset, anchors)
        node = compose(text)
    except MarkedYAMLError as exc:
        raise _problem(exc, line_offset) from None
    except ReaderError as exc:
        raise _unreadable_character(text, exc, line_offset) from None
    except YAMLError as exc:
        raise YamlProblem(f"invalid YAML: {exc}".replace("\n", " "), None) from None
    if node is None:
        return Located(None, {(): 1 + line_offset})
    builder = _Builder(line_offset)
    value = builder.build(node, ())
    return Located(value, builder.lines, frozenset(builder.quoted))


def _check_events(text: str, line_offset: int, anchors: bool) -> None:
    """Walk the parser's events (libyaml keeps its own stack: no recursion) and stop at
    the first collection nested deeper than MAX_DEPTH, or the first anchor when
    ``anchors`` is False (the C composer's nodes do not keep their anchors)."""
    from ruamel.yaml.events import CollectionEndEvent, CollectionStartEvent

    depth = 0
    for event in _events(text):
        if not anchors and getattr(event, "anchor", None) is not None:
            line = event.start_mark.line + 1 + line_offset
            raise YamlProblem("YAML anchors (&name) are not allowed here; remove it", line)
        if isinstance(event, CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise YamlProblem(_too_deep(), event.start_mark.line + 1 + line_offset)
        elif isinstance(event, CollectionEndEvent):
            depth -= 1


def _events(text: str) -> Iterator[Any]:
    """The parser's events, from libyaml when installed (same results either way)."""
    try:
        from ruamel.yaml.cyaml import CSafeLoader
    except ImportError:
        from ruamel.yaml import YAML

        yield from YAML(typ="safe", pure=True).parse(text)
        return
    loader = CSafeLoader(text)
    try:
        while loader.check_event():
            yield loader.get_event()
    finally:
        loader.dispose()


def _too_deep() -> str:
    return f"the YAML is nested more than {MAX_DEPTH} levels deep; flatten it"


class _Builder:
    def __init__(self, line_offset: int) -> None:
        from ruamel.yaml.error import YAMLError

        self.constructor = _constructor()
        # What a scalar's constructor raises for text its tag cannot hold.
        self.unreadable = (ValueError, OverflowError, LookupError, YAMLError)
        self.offset = line_offset
        self.lines: dict[Key, int] = {}
        self.quoted: set[Key] = set()
        self.seen: set[int] = set()

    def build(self, node: Any, key: Key) -> Any:
        line = node.start_mark.line + 1 + self.offset
        self.lines[key] = line
        if len(key) > MAX_DEPTH:
            raise YamlProblem(_too_deep(), line)
        if id(node) in self.seen:
            raise YamlProblem(
                "YAML anchors (&name) and aliases (*name) are not supported here; write the "
                "value out in full",
                line,
            )
        self.seen.add(id(node))
        kind = node.id
        tag = node.tag  # ruamel builds this string on every access: read it once
        if kind == "scalar":
            if tag not in _SCALAR_TAGS:
                raise YamlProblem(_tag_message(tag), line)
            if node.style in ('"', "'", "|", ">"):
                self.quoted.add(key)
            if tag == _STR:
                return node.value  # most scalars: no need for the constructor's machinery
            try:
                # The tag's own constructor: construct_object would also remember every
                # node in the shared constructor for the life of the process.
                return self.constructor.yaml_constructors[tag](self.constructor, node)
            except self.unreadable as exc:  # 5,000 digits, "!!int ''", "!!bool maybe", ...
                raise YamlProblem(_unreadable(node.value, tag, exc), line) from None
        if kind == "sequence":
            if tag != _CORE + "seq":
                raise YamlProblem(_tag_message(tag), line)
            return [self.build(item, (*key, i)) for i, item in enumerate(node.value)]
        if tag != _CORE + "map":
            raise YamlProblem(_tag_message(tag), line)
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            if key_node.id != "scalar" or key_node.tag not in _SCALAR_TAGS:
                raise YamlProblem(
                    "mapping keys must be plain strings", key_node.start_mark.line + 1 + self.offset
                )
            name = key_node.value  # keys are names: `1.0: x` means the text "1.0"
            if name in result:
                raise YamlProblem(
                    f"duplicate key {name!r} (first on line {self.lines[(*key, name)]}); keep one",
                    key_node.start_mark.line + 1 + self.offset,
                )
            result[name] = self.build(value_node, (*key, name))
            self.lines[(*key, name)] = key_node.start_mark.line + 1 + self.offset
        return result


_safe_constructor: Any = None


def _constructor() -> Any:
    """One SafeConstructor for scalars (it keeps no state between scalar nodes)."""
    global _safe_constructor
    if _safe_constructor is None:
        from ruamel.yaml import YAML
        from ruamel.yaml.constructor import SafeConstructor

        _safe_constructor = SafeConstructor(loader=YAML(typ="safe", pure=True))
    return _safe_constructor


def _problem(exc: Any, line_offset: int) -> YamlProblem:
    """Name the place the parser was reading, not only where it gave up."""
    mark = exc.problem_mark or exc.context_mark
    line = mark.line + 1 + line_offset if mark is not None else None
    message = f"invalid YAML: {exc.problem or exc.context}"
    if exc.context and exc.context_mark is not None and exc.problem:
        context_line = exc.context_mark.line + 1 + line_offset
        message += f" ({exc.context} that starts on line {context_line})"
    return YamlProblem(message, line)


def _unreadable_character(text: str, exc: Any, line_offset: int) -> YamlProblem:
    """A character YAML does not allow (a control character). The parser reports an
    offset (in bytes or characters, depending on the parser): find the character."""
    character = chr(exc.character) if isinstance(exc.character, int) else str(exc.character)
    index = text.find(character)
    line = text.count("\n", 0, index) + 1 + line_offset if index >= 0 else None
    code = f"{ord(character[:1] or ' '):04x}"
    return YamlProblem(
        f"invalid YAML: {exc.reason} (U+{code.upper()} here); remove it, or write it as "
        f"\\u{code} in a double-quoted string",
        line,
    )


def _unreadable(value: str, tag: str, exc: Exception) -> str:
    shown = tag.replace(_CORE, "!!")
    why = f": {limits.unreadable_value(exc)}" if isinstance(exc, ValueError | OverflowError) else ""
    return f"cannot read the value {value[:40]!r} as {shown}{why}"


def _tag_message(tag: str) -> str:
    shown = tag.replace(_CORE, "!!")
    return f"YAML tag {shown} is not allowed; write plain strings, numbers, lists and mappings"
