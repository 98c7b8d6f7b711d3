"""``metapkg audit``: what the locked graph (or a folder) holds that runs code or reaches
out, as findings with rule ids; a tighten-only policy; SARIF and CycloneDX output."""
