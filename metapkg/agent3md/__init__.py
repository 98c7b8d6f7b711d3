"""agent.3md: one-file agents (a 3md document of an identity plane and skill planes).

The contract, from the bottom up:

``parse(text) -> Document``
    The 3md 1.0 base parser (all 43 public conformance vectors pass); raises
    :class:`ParseError` whose ``code`` is the vectors' error kind. ``links(document)``
    gives the ``[[z=N|text]]`` cross-plane links.

``validate(text) -> Report``
    The agent3md/1 validator with the reference's rule ids (``ERROR_RULES``,
    ``WARNING_RULES``) and verdicts; each :class:`Finding` has the plane's ``z`` and its
    source line.

``find_document(folder) -> Path | None`` and ``load_agent(folder, display, folder_name)``
    A folder holding ``<folder name>.3md`` or ``agent.3md`` is an agent package.
    ``metapkg.packages.load`` calls these, so ``load_package`` returns a plain ``Agent``
    (kind ``"agent"``, ``source`` = the folder) whose dependencies come from
    ``dependencies.skills`` / ``dependencies.mcps``. ``check_document(path, display)``
    checks a lone .3md file.

``provision(text, filename) -> Provisioned``
    What hosts get, as bytes, with no filesystem access and byte-stable output:
    ``agent_file`` (frontmatter ``name`` + ``description``, then the identity plane),
    which provisioning renders into each host's agent file as it does an AGENTS.md
    (``.claude/agents/<name>.md``, ...); and ``skills`` = ``{skill name: {relative path: bytes}}``
    (today one ``SKILL.md`` each) for ``.claude/skills/<skill>/`` and
    ``.agents/skills/<skill>/``. Raises ``PackageError`` (with diagnostics) for a file
    that is not a valid agent. ``Provisioned.name`` equals the loaded ``Agent.name``.

A host provisioner that holds a loaded ``Agent`` does::

    document = find_document(agent.source)
    if document is not None:  # a .3md agent
        out = provision(document.read_text(encoding="utf-8"), document.name)
"""

from __future__ import annotations

from metapkg.agent3md.document import Document, ParseError, Plane
from metapkg.agent3md.links import CrossPlaneLink, links
from metapkg.agent3md.package import check_document, find_document, load_agent
from metapkg.agent3md.parser import parse
from metapkg.agent3md.provision import Provisioned, provision
from metapkg.agent3md.validator import (
    ERROR_RULES,
    WARNING_RULES,
    Finding,
    Report,
    validate,
    validate_document,
)

__all__ = [
    "ERROR_RULES",
    "WARNING_RULES",
    "CrossPlaneLink",
    "Document",
    "Finding",
    "ParseError",
    "Plane",
    "Provisioned",
    "Report",
    "check_document",
    "find_document",
    "links",
    "load_agent",
    "parse",
    "provision",
    "validate",
    "validate_document",
]
