"""Survey and application reports from a store: HTML with plots, Markdown, CSV and JSON."""

from importlib.util import find_spec

# jinja2 and matplotlib come with the `report` extra; only this package imports them.
_MISSING = [name for name in ("jinja2", "matplotlib") if find_spec(name) is None]
if _MISSING:
    raise ImportError(f"txscan report needs {' and '.join(_MISSING)}; install them with: "
                      "pip install 'txscan[report]'")
