"""The rule registry: one table, code -> rule. Codes are never reused; a renamed rule keeps its code.

Each rule lives in rules/<name with underscores>.py and carries its documentation
(docs/rules/<name>.md and the SARIF rule help are generated from it).
"""

from __future__ import annotations

from ..model import Rule
from . import (
    blocking_call_in_transaction,
    cache_call_in_transaction,
    cda_mismatch,
    database_error_caught_in_atomic,
    dependent_key,
    email_in_transaction,
    empty_transaction,
    full_scan,
    http_call_in_transaction,
    lost_update,
    missing_await,
    on_commit_in_savepoint,
    query_runner_not_released,
    range_or_pattern,
    select_for_update_not_evaluated,
    select_for_update_outside_transaction,
    statement_outside_transaction_manager,
    storage_call_in_transaction,
    task_enqueued_in_transaction,
    unused_suppression,
    write_in_loop,
)

_MODULES = (
    # TX1xx interactivity: what the transaction waits on.
    http_call_in_transaction, email_in_transaction, task_enqueued_in_transaction, storage_call_in_transaction,
    cache_call_in_transaction, blocking_call_in_transaction, lost_update, write_in_loop,
    # TX2xx inferability: read/write sets (for deterministic databases).
    cda_mismatch, dependent_key, range_or_pattern, full_scan,
    # TX3xx hygiene: transaction code that does not do what it says.
    select_for_update_outside_transaction, select_for_update_not_evaluated, database_error_caught_in_atomic,
    on_commit_in_savepoint,
    statement_outside_transaction_manager, missing_await, query_runner_not_released, empty_transaction,
    # TX9xx about txscan's own comments.
    unused_suppression,
)

REGISTRY: dict[str, Rule] = {module.RULE.code: module.RULE for module in _MODULES}
UNUSED_SUPPRESSION = unused_suppression.RULE.code


def by_name(name: str) -> Rule | None:
    return next((r for r in REGISTRY.values() if r.name == name), None)
