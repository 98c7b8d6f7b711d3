"""metapkg: a package manager for AI-agent packages (agents, skills, MCP configs)."""

__version__ = "0.1.0"
