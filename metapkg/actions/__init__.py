"""What metapkg's commands do, as plain functions; the cli/ modules only parse and print."""
