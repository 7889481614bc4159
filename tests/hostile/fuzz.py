"""Budget of the property-based tests (tests/hostile/test_fuzz_*.py).

Profiles: `ci` (the default: a fixed, derandomized set of examples, so CI is reproducible and
bounded) and `explore` (`HYPOTHESIS_PROFILE=explore`: random, many more examples, for a
local hunt). TXSCAN_FUZZ_EXAMPLES scales the per-test counts of either profile.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from hypothesis import HealthCheck, settings

from analyzer.config import Config
from analyzer.output import json_contract
from analyzer.scan import scan

settings.register_profile("ci", deadline=None, derandomize=True, database=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                 HealthCheck.function_scoped_fixture])
settings.register_profile("explore", deadline=None, database=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                 HealthCheck.function_scoped_fixture])
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
settings.load_profile(PROFILE)
SCALE = float(os.environ.get("TXSCAN_FUZZ_EXAMPLES", "1")) * (20 if PROFILE == "explore" else 1)


def examples(count: int) -> int:
    return max(1, int(count * SCALE))


def scan_twice(root: Path) -> str:
    """The JSON contract of a whole scan (both CDA modes) and its IR, run twice: byte-identical."""
    outputs = []
    for _ in range(2):
        result = scan(root, Config())
        documents = [json_contract.dumps(json_contract.document(result.analyses[mode], root.name, result.lines,
                                                                len(result.files))) for mode in ("pk", "auto")]
        for document in documents:
            json.loads(document)
        outputs.append("".join(documents) + result.ir_text)
    assert outputs[0] == outputs[1], "same input, different output"
    return outputs[0]
