"""Which mirrors an install tries first, and which locked packages they may hold.

``METAPKG_MIRROR`` (a comma-separated list of ``oci://REGISTRY/NAMESPACE``; ``off`` for
none) replaces the configured mirrors; otherwise metapkg.yaml's ``mirrors:`` come first,
then the user config's (``<config dir>/config.yaml``, ``mirrors: [...]``).
"""

from __future__ import annotations

import os
from pathlib import Path

from metapkg import settings
from metapkg.diagnostics import ManifestError, error
from metapkg.fetch.sources import Mirrored
from metapkg.lock import format as lockfmt
from metapkg.manifest import Manifest
from metapkg.origins import OriginSyntaxError, parse_origin

ENV = "METAPKG_MIRROR"
USER_CONFIG = "config.yaml"


def configured(manifest: Manifest | None) -> tuple[str, ...]:
    """The mirrors, in the order they are tried (no repeats)."""
    from metapkg.fetch.oci.reference import BadReference, parse_namespace

    found: list[str] = []
    text = os.environ.get(ENV, "").strip()
    if text:
        if text.lower() in ("off", "none", "direct"):
            return ()
        for item in (part.strip() for part in text.split(",")):
            try:
                found.append(str(parse_namespace(item)))
            except BadReference as exc:
                raise ManifestError([error("mirror", ENV, str(exc))]) from None
    else:
        found += manifest.mirrors if manifest is not None else ()
        found += user_mirrors()
    return tuple(dict.fromkeys(found))


def user_mirrors() -> list[str]:
    """The ``mirrors:`` of the user's config file, checked like metapkg.yaml's."""
    from metapkg import yamlsafe
    from metapkg.fetch.oci.reference import BadReference, parse_namespace

    path = settings.config_dir() / USER_CONFIG
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as exc:
        raise ManifestError([error("mirror", str(path), f"cannot read it ({exc})")]) from None
    try:
        data = yamlsafe.load(text).value
    except yamlsafe.YamlProblem as exc:
        raise ManifestError([error("mirror", str(path), exc.message, exc.line)]) from None
    items = data.get("mirrors", []) if isinstance(data, dict) else []
    if not isinstance(items, list):
        raise ManifestError([error("mirror", str(path), "'mirrors' must be a list of oci:// URLs")])
    found = []
    for item in items:
        try:
            found.append(str(parse_namespace(str(item))))
        except BadReference as exc:
            raise ManifestError([error("mirror", str(path), str(exc))]) from None
    return found


def mirrored(lock: lockfmt.Lockfile, base: Path) -> tuple[Mirrored, ...]:
    """The lock's packages a mirror may hold: those pinned to a commit of a remote
    origin, with every path their origin may be read as (the pins settle which)."""
    found = []
    for package in lock.packages:
        if package.commit is None:
            continue
        try:
            origin = parse_origin(package.origin, base)
        except OriginSyntaxError:
            continue
        splits = getattr(origin, "splits", None)
        if origin.is_local or splits is None:
            continue
        paths = tuple(dict.fromkeys(path for _, path in splits()))
        found.append(Mirrored(package.kind, package.fqn, package.integrity, package.commit, paths))
    return tuple(found)
