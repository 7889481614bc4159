"""Surveys: many applications from a manifest, scanned in parallel into one store."""
