"""The rule ids of the MetaAgents dialect, including those reported at install time.

Ids are a public interface (scripts filter on them, READMEs cite them): once shipped, an
id is never renamed; a rule that goes away keeps its entry.
"""

from __future__ import annotations

from metapkg.diagnostics import Severity
from metapkg.profiles.base import Rule

P = "metaagents"


def _check(id: str, summary: str, hint: str, severity: Severity = "error") -> Rule:
    return Rule(id, P, severity, summary, hint)


def _install(id: str, summary: str, hint: str, severity: Severity = "error") -> Rule:
    return Rule(id, P, severity, summary, hint, when="install")


RULES: tuple[Rule, ...] = (
    # -- AGENTS.md / SKILL.md ---------------------------------------------------------------
    _check(
        "frontmatter",
        "AGENTS.md / SKILL.md opens with YAML frontmatter that parses as a mapping",
        "start the file with a '---' line, write 'key: value' lines, close with '---'",
    ),
    _check(
        "name",
        "name is kebab-case ([a-z0-9]+ joined by single hyphens), at most 64 characters",
        "write name: my-skill; put the scope in its own 'scope' field",
    ),
    _check(
        "name-dir",
        "name equals the package's folder name (a warning at install)",
        "rename the folder or the name so they are equal",
    ),
    _check(
        "scope",
        "scope is lowercase kebab-case segments joined by dots, at most 64 characters",
        "write scope: acme or scope: io.example",
    ),
    _check(
        "description",
        "description is a non-empty string of at most 1024 characters",
        "write one short sentence saying what the package does and when to use it",
    ),
    _check(
        "version",
        "version is 3-segment semver (MAJOR.MINOR.PATCH)",
        'write version: 1.0.0 (quote it, "1.0", if YAML would read a number)',
    ),
    _check(
        "prereqs",
        "a skill's prereqs is a string (a YAML literal block)",
        "write 'prereqs: |' and indent the lines below it",
    ),
    _check(
        "prereqs-agent",
        "agents do not declare prereqs",
        "move setup steps into a '## Setup' section of the agent's body",
    ),
    _check(
        "dependencies",
        "dependencies is a mapping of 'skills' and 'mcps' arrays of origins",
        "write dependencies: {skills: [<origin>], mcps: [<origin>]} in block style",
    ),
    _check(
        "origin",
        "every origin is https://github.com/<owner>/<repo>/tree/<ref>[/path] or file:<path>",
        "copy the folder's URL from GitHub's tree view (…/tree/<ref>/<path>)",
    ),
    _check(
        "origin-object",
        "a published package writes dependencies as origin strings, not {origin: ...}",
        "write the origin as a string; put a version range in its fragment (...#^1.2)",
        "warning",
    ),
    _check(
        "file-origin",
        "a package's file: origin only works on its author's machine",
        "publish with a https://github.com/... origin",
        "warning",
    ),
    _check(
        "changelog-missing",
        "a CHANGELOG.md sits next to every published AGENTS.md / SKILL.md",
        "add CHANGELOG.md with a '## X.Y.Z (YYYY-MM-DD)' entry for the current version",
    ),
    _check(
        "changelog-header",
        "CHANGELOG.md version headers read '## X.Y.Z (YYYY-MM-DD)' with a real date",
        "rewrite the header as '## 1.2.0 (2026-04-17)'",
    ),
    _check(
        "changelog-version",
        "the newest CHANGELOG.md entry equals the frontmatter version",
        "add an entry for the new version at the top, or fix the version",
    ),
    _check(
        "changelog-order",
        "CHANGELOG.md lists versions newest first, each strictly lower than the one above",
        "reorder the entries and remove duplicates",
    ),
    _check(
        "layout",
        "packages sit where metapkg looks: agents/<name>/, skills/<name>/, mcps/<file>.json",
        "move the entry into the right bucket, or out of the catalog",
    ),
    _check(
        "link",
        "packages hold regular files and folders only: no links, devices or pipes",
        "replace the link with the file it points to",
    ),
    _check(
        "hidden-unicode",
        "no invisible or bidirectional control characters in AGENTS.md / SKILL.md",
        "delete the characters so reviewers see what the model reads",
        "warning",
    ),
    _check(
        "fqn-unique",
        "fully-qualified names are unique per kind within a catalog",
        "rename one of the packages (or give it another scope)",
    ),
    # -- metaSKILLs ------------------------------------------------------------------------
    _check(
        "metaskill-path",
        "the metaskill program is a relative path inside the skill folder",
        "keep the program inside the skill folder, e.g. SKILL.star",
    ),
    _check(
        "metaskill-language",
        "metaskill_language is a supported language (starlark)",
        "write metaskill_language: starlark or remove the field",
    ),
    _check(
        "metaskill-file",
        "the metaskill program exists, is UTF-8, has no frontmatter, stays under 64 KiB",
        "fix the program file the 'metaskill' field names",
    ),
    _check(
        "metaskill-syntax",
        "the metaskill program parses as Starlark",
        "fix the syntax error at the line the message names (`metapkg run` runs it)",
    ),
    _check(
        "metaskill-run",
        "the metaskill program defines a top-level def run(input)",
        "add def run(input): ... returning a string or a dict with 'answer'",
    ),
    _check(
        "body-length",
        "a SKILL.md body stays under 20,000 characters (hosts load it whole)",
        "move long reference material into references/ files the body points to",
        "warning",
    ),
    # -- MCP server configs ----------------------------------------------------------------
    _check(
        "mcp-json",
        "an MCP config is one UTF-8 JSON object without duplicate keys",
        "fix the JSON syntax (no trailing commas, no comments, no repeated keys)",
    ),
    _check(
        "mcp-name",
        "_meta.name is '<namespace>/<name>' as the MCP registry spells server names",
        'add "_meta": {"name": "io.example/server"}',
    ),
    _check(
        "mcp-filename",
        "an MCP config's file name is its _meta.name with '/' replaced by '_'",
        "rename the file to <namespace>_<short>.json",
    ),
    _check(
        "mcp-format",
        "the file is JSON indented by 2 spaces per level, with a trailing newline",
        "reformat with 2-space indentation (python -m json.tool --indent 2 or Prettier)",
    ),
    _check(
        "mcp-command",
        "command is a bare executable name: no path, shell, wrapper or Windows-only shim",
        "use npx, node, python or uvx and let PATH find it on every OS",
    ),
    _check(
        "server-json",
        "an MCP Registry server.json names a package metapkg can run (npm, pypi or oci "
        "with stdio) or a remote, with every required argument given",
        "publish a runnable package or a remote; give required arguments a default",
    ),
    _check(
        "mcp-args",
        "args are literal strings: no $VAR, %VAR% or ~/",
        "use ${workspaceDir} or ${sharedDir} for paths and 'env' for settings",
    ),
    _check(
        "mcp-env",
        "env is a map of variable names to literal strings: no $VAR, %VAR% or ~/",
        'write "env": {"NAME": "value"}; use ${workspaceDir} or ${sharedDir} for paths',
    ),
    _check(
        "mcp-control-char",
        "MCP strings hold no control characters, escape sequences or bidi overrides",
        "delete the characters: reviewers read these strings in a terminal",
    ),
    _check(
        "mcp-leaf",
        "MCP configs declare no dependencies",
        "declare the dependency on the skill or agent that uses the server",
    ),
    _check(
        "placeholder",
        "every '${' is exactly ${workspaceDir} or ${sharedDir}",
        "fix the spelling and the braces; hosts substitute only these two",
    ),
    # -- install: plain packages -------------------------------------------------------------
    _install(
        "not-metaagents",
        "a plain Agent Skills / agents.md package installs as a leaf without MetaAgents fields",
        "nothing to do as a user; its author can add version, CHANGELOG.md and scope",
        "warning",
    ),
    _install(
        "template-placeholder",
        "a package is not a template with {{placeholders}} in its name or description "
        "(a warning at install, an error with --strict)",
        "nothing to do as a user: it installs under its folder name; its author can fill "
        "the placeholders in, or keep templates out of the catalog",
        "warning",
    ),
    # -- resolution, fetching, lock, provisioning ----------------------------------------------
    _install(
        "manifest",
        "metapkg.yaml is readable and well-formed",
        "fix the field the message names; `metapkg init` writes a starter file",
    ),
    _install(
        "missing",
        "every dependency origin exists (repository, ref and path)",
        "check the URL in a browser; fix the ref or path",
    ),
    _install(
        "cycle",
        "dependencies form no cycle",
        "remove one of the dependencies the message lists",
    ),
    _install(
        "conflict",
        "one fully-qualified name resolves to one origin in the whole graph",
        "point every dependant at the same origin, or add an override in metapkg.yaml",
    ),
    _install(
        "constraint",
        "some version of the package is in every range that asks for it",
        "widen a range, ask for a release, or settle it with overrides in metapkg.yaml",
    ),
    _install(
        "kind",
        "a dependency listed under skills/mcps/agents holds a package of that kind",
        "move the origin to the list of the kind it holds",
    ),
    _install(
        "untrusted-metaskill",
        "metaskill programs run only from packages the manifest trusts (others install as "
        "instructions only)",
        "add the package (or its scope/*) to trust.metaskills in metapkg.yaml",
        "warning",
    ),
    _install(
        "integrity",
        "fetched content matches the lock's integrity hash",
        "review the change, then run `metapkg lock`; or `metapkg cache clean`",
    ),
    _install(
        "lock",
        "metapkg.lock matches the manifest and what was fetched",
        "run `metapkg lock` (or `metapkg install`) and commit metapkg.lock",
    ),
    _install(
        "name-collision",
        "provisioned names do not collide with each other or with the user's files",
        "rename or remove the entry the message names",
    ),
    _install(
        "provision",
        "provisioned files can be written",
        "fix the permission or path problem the message names, then install again",
    ),
    _install(
        "archive",
        "downloaded archives are well-formed and hold only safe entries",
        "report it to the repository's owner; retry if the download was cut short",
    ),
    _install(
        "fetch",
        "origins can be downloaded",
        "check the network and the URL, then try again",
    ),
    _install(
        "mcp-registry",
        "the MCP Registry answers with the server.json asked for",
        "check METAPKG_MCP_REGISTRY_URL and the server's name and version, then try again",
    ),
    _install(
        "offline",
        "--offline finds everything it needs in the cache",
        "run once without --offline to fill the cache",
    ),
    _install(
        "oci",
        "an OCI registry answers as the distribution API says",
        "check the oci:// URL and that the registry is up (HTTPS, or loopback over HTTP)",
    ),
    _install(
        "marketplace",
        "a plugin marketplace.json is an object whose 'plugins' lists {name, source} entries",
        "fix the marketplace's file (its publisher), or add the plugin by its own source",
    ),
    _install(
        "mirror",
        "a configured mirror holds the locked packages, each as the lock pins it",
        "run `metapkg mirror oci://REGISTRY/NAMESPACE` again, or fix the mirror's credentials",
        "warning",
    ),
    _install(
        "rate-limit",
        "GitHub's API rate limit is not exhausted",
        "set GITHUB_TOKEN (or run `metapkg auth login`) for a higher limit",
    ),
    _install(
        "auth",
        "the GitHub token can be stored, read and used",
        "set GITHUB_TOKEN, or run `metapkg auth login` again",
    ),
    _install(
        "cache",
        "the download cache is usable",
        "run `metapkg cache clean`",
    ),
    _install(
        "git",
        "git revisions named on the command line exist",
        "name a commit, branch or tag that exists in this repository",
    ),
    _install(
        "usage",
        "the command line is valid (exit code 2)",
        "see `metapkg <command> --help`",
    ),
    _install(
        "duplicate-name",
        "add --all: one name is declared by one package of a repository (else each is skipped)",
        "add the one you want by its tree URL: `metapkg add URL`",
        "warning",
    ),
    _install(
        "skipped",
        "`add --all` adds every package of the source (one that does not load is left out)",
        "only its publisher can fix it; to use it now, copy its folder into the project, fix "
        "it and add that folder",
        "warning",
    ),
    _install(
        "unsafe",
        "`add --all` finds nothing unsafe in the source's packages (links, MCP commands...)",
        "the package is refused and the rest added; tell its publisher",
    ),
    _install(
        "unprovisioned",
        "the active targets take every kind of package the project needs",
        "add a target (host) that reads that kind; `metapkg hosts` lists them",
        "warning",
    ),
    _install(
        "agent-format",
        "an agent can be written in each active host's agent file format",
        "the host would lose what the message names; adjust the agent or leave the host out",
        "warning",
    ),
    _install(
        "mcp-option",
        "every MCP server option can be written in each active host's config format",
        "the host would drop that option: configure it there by hand, or leave the host out",
        "warning",
    ),
    _install(
        "user-scope",
        "a --global install can give every target what a project install would",
        "install that host's packages into a project, or leave the host out of --global",
        "warning",
    ),
    _install(
        "mcp-toml",
        "a host's TOML MCP config (.codex/config.toml) is valid TOML",
        "fix the line the message names, or move the file away; metapkg changed nothing",
    ),
    _install(
        "tag-version",
        "a version tag names the version its package declares (else it is no candidate); "
        "check: the tag at a local git checkout's HEAD too",
        "retag the release, or fix the package's version and tag it again",
        "warning",
    ),
    _install(
        "tag-limit",
        "at most 20 tags of a package in a range turn out unusable (another version than "
        "the tag names, or no package there) before resolution stops",
        "fix the tags or the version field, narrow the range, or name the tag as the ref",
    ),
    _install(
        "tag-ignored",
        "a tag of a package's own form (<name>@..., <name>/...) names a version",
        "rename or delete the tag; it is ignored and hides none of the version tags",
        "warning",
    ),
    _install(
        "tag-duplicate",
        "one version of a package is tagged once (v1.0.0 and 1.0.0 at different commits "
        "are two releases): the form most of its tags use counts, v on a tie",
        "delete or move the tag that does not count",
        "warning",
    ),
    _install(
        "lock-merge",
        "a metapkg.lock with merge conflicts is merged from both sides (what was kept)",
        "check the note, then commit the clean lock install wrote",
        "warning",
    ),
    _install(
        "repo-renamed",
        "a GitHub repository is named as GitHub names it now (not through a redirect)",
        "replace the old owner/name with the new one in metapkg.yaml (or the package)",
        "warning",
    ),
    _install(
        "journal",
        "an interrupted install's journal names only paths metapkg writes, through no link",
        "delete .metapkg/ (local state only) if it is not yours, then install again",
    ),
    _install(
        "state",
        ".metapkg is a real folder of metapkg's local state",
        "remove the .metapkg link or file, then run metapkg again",
    ),
    _install(
        "output",
        "the file given with -o can be written",
        "choose a path in a folder you can write",
    ),
    # -- plugins (metapkg/packages/plugin.py, metapkg/provision/plugins.py) -----------------
    _install(
        "plugin-json",
        "a plugin's plugin.json (and its MCP file) is one JSON object in UTF-8",
        "fix the JSON the message names",
    ),
    _install(
        "plugin-name",
        "a plugin's plugin.json names it in kebab-case, at most 64 characters",
        'give plugin.json a "name" such as "my-plugin"',
    ),
    _install(
        "plugin-mcp",
        "each MCP server of a plugin has a command or url, a plain name, and no environment "
        "references other than ${CLAUDE_PLUGIN_ROOT} (a warning: the server is left out)",
        "fix the server entry, or configure that server in your host by hand",
        "warning",
    ),
    _install(
        "plugin-trust",
        "a plugin's hooks and executables (hooks/, hooks.json, bin/) install only when "
        "trust.plugins names the plugin",
        "read the plugin's hooks and bin/, then add its name to trust.plugins in metapkg.yaml",
        "warning",
    ),
    _install(
        "plugin-root",
        "an MCP server of a plugin that uses ${CLAUDE_PLUGIN_ROOT} can be given the plugin's "
        "files (not in a --global install)",
        "install the plugin into a project",
        "warning",
    ),
    # -- the audit at install (metapkg/audit; `metapkg audit` shows each finding's line) --
    _install(
        "fetch-and-run",
        "no line of a new or changed package downloads and runs code (curl ... | sh)",
        "read the line `metapkg audit` names; remove the package if you did not expect it",
        "warning",
    ),
    _install(
        "hooks",
        "a new or changed package ships no hooks (code a host runs without asking)",
        "read the hook files `metapkg audit` lists before trusting the package",
        "warning",
    ),
    _install(
        "executable",
        "a new or changed package ships no executable or script",
        "read the scripts `metapkg audit` lists; forbid them with policy: forbid: [executables]",
        "warning",
    ),
    _install(
        "metaskill",
        "a new or changed package ships no metaskill program",
        "read its SKILL.star; metaskills run only when trusted (trust.metaskills)",
        "warning",
    ),
    _install(
        "mcp-unpinned",
        "a new or changed MCP server runs a package at a pinned version",
        "ask the publisher to pin it (npx pkg@1.2.3, uvx pkg==1.2.3, image@sha256:...)",
        "warning",
    ),
    _install(
        "mcp-remote-http",
        "a new or changed remote MCP server is reached over https",
        "use the server's https URL",
        "warning",
    ),
    _install(
        "policy",
        "a policy (policy: in metapkg.yaml, --policy, METAPKG_POLICY) is well formed",
        "fix the field the message names (see the README's 'Auditing and policy')",
    ),
    _install(
        "policy-origin",
        "every package comes from an origin the policy allows and does not deny",
        "remove the package, or ask whoever owns the policy to allow its repository",
    ),
    _install(
        "policy-pinning",
        "every package follows a tag or commit (and no range) when the policy says so",
        "point the origin at a version tag or a commit",
    ),
    _install(
        "policy-content",
        "no package holds content the policy forbids (executables, hooks, metaskills, remote MCP)",
        "remove the package or ask for the policy to change",
    ),
    _install(
        "policy-mcp-command",
        "every MCP server runs a program the policy's mcp-commands allow",
        "use a server that runs an allowed program",
    ),
    _install(
        "policy-max-alert",
        "no audit finding is above the policy's max-alert level",
        "read the finding with `metapkg audit`; remove the package or ask for an exception",
    ),
    # -- agent.3md (metapkg/agent3md): the reference validator's ids, kept as they are -----
    _check(
        "parse",
        "a .3md file parses as 3md 1.0 (frontmatter, @plane directives, unique z)",
        "fix the line the message names; 3md is not YAML (one key: value per line)",
    ),
    _check(
        "identity",
        "a .3md agent has an identity plane (kind=identity, else the first plane)",
        "add '@plane z=0 kind=identity' before the agent's own instructions",
    ),
    _check(
        "missing-label",
        "every skill plane of a .3md agent has a label",
        'add label="..." to the skill\'s @plane line',
    ),
    _check(
        "unique-skill",
        "skill plane labels are unique within a .3md agent",
        "rename one of the skills",
    ),
    _check(
        "dead-link",
        "every [[z=N]] link of a .3md agent points at an existing plane",
        "fix the link's z or add the plane it names",
    ),
    _check(
        "entry",
        "the .3md agent's entry plane exists",
        "set 'entry' in the frontmatter to the z of an existing plane",
    ),
    _check(
        "dup-input",
        "a skill plane declares each input once",
        "remove the repeated input",
    ),
    _check(
        "input-type",
        "every skill input has a known type (string, number, boolean, path, ...)",
        "use one of the types the message lists",
    ),
    _check(
        "tool-input",
        "a skill's tool template only uses inputs the skill declares",
        "declare the input or remove it from the template",
    ),
    _check(
        "triggers",
        "a skill plane says when to use it (triggers)",
        'add triggers="..." to the skill\'s @plane line',
        "warning",
    ),
    _check(
        "tool",
        "a skill plane's tool template is well formed",
        "fix the template the message names",
        "warning",
    ),
    _check(
        "unused-input",
        "every declared input is used by the skill's tool template",
        "use the input in the template or remove it",
        "warning",
    ),
    _check(
        "undeclared-tool",
        "a tool template's command is declared in the agent's tools",
        "add the command to the frontmatter's tools",
        "warning",
    ),
    _check(
        "skill-name",
        "skill plane labels give distinct kebab-case skill folder names",
        "rename the labels so their kebab-case forms differ",
    ),
)
