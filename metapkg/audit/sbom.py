"""The locked graph as a CycloneDX SBOM, built with CycloneDX's own library.

Every package is a component with its origin (a VCS reference), commit, integrity and
kind; its dependencies are the SBOM's dependency graph; an MCP server's component holds
the package its command runs (npm, PyPI or an OCI image) as a sub-component with a purl,
so the SBOM names what actually executes. Imported by ``audit --format cyclonedx`` alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from metapkg import __version__
from metapkg.audit.findings import Item, unpinned_package
from metapkg.lock import format as lockfmt


def render(lock: lockfmt.Lockfile, items: Sequence[Item]) -> str:
    from cyclonedx.model.bom import Bom
    from cyclonedx.model.component import Component
    from cyclonedx.output import make_outputter
    from cyclonedx.schema import OutputFormat, SchemaVersion

    bom = Bom()
    tool = Component(name="metapkg", version=__version__)
    bom.metadata.tools.components.add(tool)
    components: dict[str, Component] = {}
    for item in items:
        components[item.label] = _component(item)
        bom.components.add(components[item.label])
    for package in lock.packages:
        component = components.get(package.label)
        if component is None:
            continue
        needs = [
            components[f"{k} {f}"] for k, f in package.dependencies if f"{k} {f}" in components
        ]
        bom.register_dependency(component, needs)
    outputter = make_outputter(bom, OutputFormat.JSON, SchemaVersion.V1_6)
    text: str = outputter.output_as_string(indent=2)
    return text + "\n"


def _component(item: Item) -> Any:
    from cyclonedx.model import ExternalReference, ExternalReferenceType, Property, XsUri
    from cyclonedx.model.component import Component, ComponentType

    properties = [Property(name="metapkg:kind", value=item.kind)]
    if item.commit:
        properties.append(Property(name="metapkg:commit", value=item.commit))
    if item.integrity:
        properties.append(Property(name="metapkg:integrity", value=item.integrity))
    if item.metaskill:
        properties.append(Property(name="metapkg:metaskill", value=item.metaskill))
    component = Component(
        name=item.fqn,
        version=item.version or (item.commit[:12] if item.commit else None),
        type=ComponentType.APPLICATION if item.kind == "mcp" else ComponentType.DATA,
        bom_ref=item.label,
        properties=properties,
    )
    if item.origin.startswith("https://"):
        reference = ExternalReference(type=ExternalReferenceType.VCS, url=XsUri(item.origin))
        component.external_references.add(reference)
    if item.server is not None:
        _server(component, item, item.server)
    return component


def _server(component: Any, item: Item, server: Mapping[str, Any]) -> None:
    from cyclonedx.model import Property
    from cyclonedx.model.component import Component, ComponentType

    command, args = server.get("command"), server.get("args") or []
    if isinstance(command, str):
        runs = " ".join([command, *map(str, args)])
        component.properties.add(Property(name="metapkg:mcp:command", value=runs))
        purl = _purl(command, [str(a) for a in args])
        if purl is not None:
            name, version, url = purl
            sub = Component(
                name=name,
                version=version,
                type=ComponentType.APPLICATION,
                bom_ref=f"{item.label} runs {name}",
                purl=url,
            )
            component.components.add(sub)
    if isinstance(server.get("url"), str):
        component.properties.add(Property(name="metapkg:mcp:url", value=server["url"]))


def _purl(command: str, args: list[str]) -> tuple[str, str | None, Any] | None:
    """(name, version, PackageURL) of the package an MCP launcher runs, or None."""
    from packageurl import PackageURL

    from metapkg.audit.findings import launcher_spec

    program = command.rsplit("/", 1)[-1]
    spec = launcher_spec(program, args)
    if spec is None:
        return None
    kinds = {"npx": "npm", "bunx": "npm", "pnpm": "npm", "yarn": "npm", "uvx": "pypi",
             "pipx": "pypi", "uv": "pypi", "docker": "docker", "podman": "docker"}  # fmt: skip
    kind = kinds.get(program)
    if kind is None:
        return None
    name, version = _split(kind, spec)
    namespace = None
    if kind == "npm" and name.startswith("@") and "/" in name:
        namespace, name = name.split("/", 1)
    pinned = unpinned_package(command, args) is None
    url = PackageURL(type=kind, namespace=namespace, name=name, version=version if pinned else None)
    return (f"{namespace}/{name}" if namespace else name), version, url


def _split(kind: str, spec: str) -> tuple[str, str | None]:
    if kind == "pypi":
        name, _, version = spec.partition("==")
        if not version and "@" in spec:
            name, _, version = spec.partition("@")
        return name, version or None
    if kind == "docker":
        if "@" in spec:
            name, _, digest = spec.partition("@")
            return name, digest
        head, _, tag = spec.rpartition(":")
        return (head, tag) if head and "/" not in tag else (spec, None)
    scoped = spec.startswith("@")
    name, _, version = spec[1:].partition("@") if scoped else spec.partition("@")
    return ("@" + name if scoped else name), version or None
