"""Bridge to the TypeScript front end (ts-plugin/, run in node)."""
