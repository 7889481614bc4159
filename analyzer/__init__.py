"""txscan: static analysis of database transactions in web application code.

The package is laid out as the pipeline it runs:
front ends (`analyzer.django`, and the node-based ts-plugin bridged by `analyzer.typeorm`)
emit IR (`analyzer.ir`), the core (`analyzer.core`) decides verdicts, the store
(`analyzer.store`) keeps them in SQLite, and `analyzer.output` renders them.
"""

__version__ = "0.1.0"
