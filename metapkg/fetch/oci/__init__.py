"""OCI registries (the CNCF distribution API) as a store of packages: references,
credentials, the artifact format, a small registry client, and the mirror installs try
before a package's origin. See README, "Mirrors and OCI registries"."""
