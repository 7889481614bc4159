"""Marks the project root."""
