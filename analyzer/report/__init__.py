"""Survey and application reports from a store: HTML with plots, Markdown, CSV and JSON."""
