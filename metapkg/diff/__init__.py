"""``metapkg diff``: what changed between two lockfiles, for reviewers and bots."""
