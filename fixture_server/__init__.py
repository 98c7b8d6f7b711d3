"""A loopback imitation of the GitHub endpoints metapkg uses (the REST API, the web host's
git smart HTTP and archive links, the archive host), for tests, the demo and benchmarks.
Standard library only (plus ruamel.yaml to read fixture repo.yaml files); git clients'
fetches are served by the `git` binary (`gitstore.py`)."""

from fixture_server.loader import RepoSpec, load_root
from fixture_server.server import FixtureGitHub, RequestRecord

__all__ = ["FixtureGitHub", "RepoSpec", "RequestRecord", "load_root"]
