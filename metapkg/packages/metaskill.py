"""metaSKILL programs (``SKILL.star``): locate and judge them, never run them here.

Rules from specs/metaskills.txt section 3: the program path is relative and stays inside
the skill folder, the file is UTF-8 without frontmatter, no larger than 64 KiB, and the
language is ``starlark``. The language's runtime then checks the program statically: it
must parse (``metaskill-syntax``) and define ``run(input)`` at the top level
(``metaskill-run``). Nothing is evaluated; name errors inside functions show at run time.
"""

from __future__ import annotations

import posixpath
from pathlib import Path

from metapkg.diagnostics import Diagnostic, error, warning
from metapkg.metaskills import runtimes
from metapkg.packages.frontmatter import Frontmatter
from metapkg.packages.models import Metaskill
from metapkg.safefile import read_regular

DEFAULT_FILE = "SKILL.star"
LANGUAGES = runtimes.LANGUAGES
MAX_BYTES = 64 * 1024
MAX_READ_BYTES = 16 * MAX_BYTES  # past the limit it is only a warning, but reading stops here


def check(fm: Frontmatter, folder: Path, path: str) -> tuple[Metaskill | None, list[Diagnostic]]:
    declared = fm.fields.get("metaskill")
    language = fm.fields.get("metaskill_language", "starlark")
    line = fm.line("metaskill")
    if declared is None:
        if "metaskill_language" in fm.fields and not (folder / DEFAULT_FILE).is_file():
            return None, [
                error(
                    "metaskill-path",
                    path,
                    f"metaskill_language is set but there is no {DEFAULT_FILE} and no "
                    f"'metaskill' path",
                    fm.line("metaskill_language"),
                )
            ]
        if not (folder / DEFAULT_FILE).is_file():
            return None, []
        declared = DEFAULT_FILE
    diags: list[Diagnostic] = []
    if not isinstance(declared, str) or not declared.strip():
        return None, [error("metaskill-path", path, "'metaskill' must be a relative path", line)]
    relative = declared.replace("\\", "/")
    normal = posixpath.normpath(relative)
    if relative.startswith("/") or (len(relative) > 1 and relative[1] == ":"):
        diags.append(
            error("metaskill-path", path, f"metaskill {declared!r} must be a relative path", line)
        )
    elif normal == ".." or normal.startswith("../"):
        diags.append(
            error(
                "metaskill-path",
                path,
                f"metaskill {declared!r} points outside the skill folder; keep the program "
                f"inside it (e.g. {DEFAULT_FILE})",
                line,
            )
        )
    if not isinstance(language, str) or language not in LANGUAGES:
        diags.append(
            error(
                "metaskill-language",
                path,
                f"metaskill_language {language!r} is not supported; this version defines "
                f"'starlark'",
                fm.line("metaskill_language"),
            )
        )
    if diags:
        return None, diags
    diags.extend(_check_file(folder, normal, path, str(language)))
    return Metaskill(normal, str(language)), diags


def _check_file(folder: Path, relative: str, path: str, language: str) -> list[Diagnostic]:
    program = folder / relative
    shown = f"{path.rsplit('/', 1)[0]}/{relative}" if "/" in path else relative
    try:
        if program.is_symlink() or not program.resolve().is_relative_to(folder.resolve()):
            return [
                error(
                    "metaskill-path",
                    shown,
                    "the program must be a regular file inside the skill folder, not a link",
                )
            ]
        data = read_regular(program, cap=MAX_READ_BYTES, follow=False)
    except FileNotFoundError:
        return [error("metaskill-file", path, f"the metaskill program {relative!r} does not exist")]
    except OSError as exc:
        return [error("metaskill-file", shown, f"cannot read the program: {exc.strerror}")]
    diags = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return [error("metaskill-file", shown, "the program must be UTF-8 text")]
    if len(data) > MAX_BYTES:
        diags.append(
            warning(
                "metaskill-file",
                shown,
                f"the program is {len(data)} bytes; keep it under 64 KiB ({MAX_BYTES} bytes)",
            )
        )
    if text.removeprefix("\ufeff").lstrip().startswith("---"):
        diags.append(
            error(
                "metaskill-file",
                shown,
                "the program must not have frontmatter; metadata belongs in SKILL.md",
                1,
            )
        )
    if not any(d.severity == "error" for d in diags):
        diags.extend(_check_program(text, relative, shown, language))
    return diags


def _check_program(text: str, relative: str, shown: str, language: str) -> list[Diagnostic]:
    runtime = runtimes.get(language)
    if runtime is None:
        return []
    return [
        error(f"metaskill-{problem.kind}", shown, problem.message, problem.line)
        for problem in runtime.check(text, posixpath.basename(relative))
    ]
