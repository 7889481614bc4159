"""Renderers of analysis results: the JSON contract and the terminal summary."""
