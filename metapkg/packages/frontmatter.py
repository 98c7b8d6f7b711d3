"""Split an AGENTS.md / SKILL.md into YAML frontmatter and Markdown body.

The file must open with a ``---`` line; the next ``---`` line closes the frontmatter. A
UTF-8 byte-order mark and CRLF line endings are tolerated (editors on Windows write them).
Line numbers in diagnostics are lines of the file, not of the frontmatter.
"""

from __future__ import annotations

from dataclasses import dataclass

from metapkg import limits, yamlsafe


class FrontmatterProblem(ValueError):
    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


@dataclass(frozen=True)
class Frontmatter:
    data: yamlsafe.Located  # .value is a dict
    body: str
    body_line: int  # 1-based line where the body starts

    @property
    def fields(self) -> dict[str, object]:
        value: dict[str, object] = self.data.value
        return value

    def line(self, *key: str | int) -> int | None:
        return self.data.line(*key)


def opens_frontmatter(text: str) -> bool:
    """Whether the file starts with the ``---`` line that opens frontmatter."""
    first = text.removeprefix("\ufeff").split("\n", 1)[0]
    return first.rstrip() == "---"


def split(text: str) -> tuple[str, str, int]:
    """Return (frontmatter text, body, body line) or raise :class:`FrontmatterProblem`."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        raise FrontmatterProblem(
            "the file must start with a '---' line that opens the YAML frontmatter", 1
        )
    for index in range(1, len(lines)):
        if lines[index].rstrip() == "---":
            front = "\n".join(lines[1:index]) + "\n"
            body = "\n".join(lines[index + 1 :])
            return front, body, index + 2
    raise FrontmatterProblem(
        "the frontmatter opened on line 1 is never closed; add a '---' line after it", 1
    )


def parse(text: str) -> Frontmatter:
    front, body, body_line = split(text)
    if (found := limits.size(front)) > limits.FRONTMATTER_BYTES:
        message = limits.over("the frontmatter", found, limits.FRONTMATTER_BYTES)
        raise FrontmatterProblem(f"{message}; keep long text in the body", 1)
    try:
        data = yamlsafe.load(front, line_offset=1)
    except yamlsafe.YamlProblem as exc:
        raise FrontmatterProblem(exc.message, exc.line) from None
    if data.value is None:
        raise FrontmatterProblem(
            "the frontmatter is empty; it needs at least name, description and version", 1
        )
    if not isinstance(data.value, dict):
        raise FrontmatterProblem(
            f"the frontmatter must be a YAML mapping (key: value lines), "
            f"not a {type(data.value).__name__}",
            2,
        )
    return Frontmatter(data, body, body_line)
