"""Reading and judging packages: agents, skills and MCP configs."""
