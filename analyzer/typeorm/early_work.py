"""What a TypeORM scan does with each of ts-plugin's records as it arrives, while node walks on.

ts-plugin prints the explicit transactions before its autocommit walks (0.7-0.9 s of vendure's
core, on one core): the scan encodes each record's IR line, works out the core's per-transaction
share (core.prepare: flat steps, interactivity, CDA inputs) and, at the first explicit
transaction, starts the node process that checks TypeScript rewrites (its start-up is most of
the rewrites' wall time). What it finds is only taken for these very records (by identity), so a
scan that decodes them again, or reuses an earlier scan's verdicts, does the work as before.
"""

from __future__ import annotations

from .. import ir


class EarlyWork:
    """`arriving(record)` for bridge.Run.records; `lines` and `core_shared` for the scan."""

    def __init__(self, prepare_core: bool, start_rewrite_checks: bool) -> None:
        #: id(record) -> (record, its IR line), as ir.dumps takes them (`known`)
        self.lines: dict[int, tuple[dict, str]] = {}
        #: what core.analyze's `shared` holds of the records prepared (None: not prepared)
        self.core_shared: dict | None = {} if prepare_core else None
        self._start_rewrite_checks = start_rewrite_checks
        self._frontend = "django"  # as core.analyze reads it from the meta record

    def arriving(self, record: dict) -> None:
        if record["type"] == "meta":
            self._frontend = record.get("frontend", "django")
            return  # (its line is encoded after the scan names the root in it)
        # encoded before the core sees the record, as ir.dumps does it before the core
        self.lines[id(record)] = (record, ir.line(record))
        if record["type"] != "transaction":
            return
        if self.core_shared is not None:
            from ..core import prepare

            prepare(record, self.core_shared, self._frontend)
        if self._start_rewrite_checks and record["boundary"] != "autocommit":
            # TypeScript rewrites are planned only for explicit transactions
            self._start_rewrite_checks = False
            from ..rewrite import typescript_syntax

            typescript_syntax.start_checker()
