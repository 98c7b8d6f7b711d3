"""A loopback imitation of the GitHub REST endpoints metapkg uses, for tests, the demo and
benchmarks. Standard library only (plus ruamel.yaml to read fixture repo.yaml files)."""

from fixture_server.loader import RepoSpec, load_root
from fixture_server.server import FixtureGitHub, RequestRecord

__all__ = ["FixtureGitHub", "RepoSpec", "RequestRecord", "load_root"]
