"""Schemathesis hooks for .ci/schemathesis.sh (loaded through SCHEMATHESIS_HOOKS).

The seed's interface fixes the string form of skip, take, speedLimit and engineSpeedLimit as
^-?(?:0|[1-9]\\d*)$. JSON Schema applies minimum/maximum to numbers only, so a string such as
"-1", "0" (take) or "99999999999" (beyond int32/uint32) is schema-valid while the number it
denotes is out of range, and the service answers it 400 as the spec states. Only that case is
excused from positive_data_acceptance; every other rejection of valid data still fails.
"""

import re

import schemathesis
from schemathesis.openapi.checks import RejectedPositiveData

SEED_INTEGER = re.compile(r"^-?(?:0|[1-9]\d*)$")
UINT32 = (0, 4294967295)
# The spec's minimum/maximum of each parameter or field with the seed's pattern.
QUERY_BOUNDS = {"skip": (0, 999999999), "take": (1, 500)}
TELEMETRY_RULE_BOUNDS = {"speedLimit": UINT32, "engineSpeedLimit": UINT32}


def _beyond_bounds(value, bounds):
    if not isinstance(value, str) or not SEED_INTEGER.match(value):
        return False
    low, high = bounds
    return not low <= int(value) <= high


def _numeric_string_beyond_bounds(case):
    query = case.query or {}
    if any(_beyond_bounds(query.get(name), b) for name, b in QUERY_BOUNDS.items()):
        return True
    body = case.body if isinstance(case.body, dict) else {}
    rules = body.get("telemetryRules")
    if isinstance(rules, dict):
        return any(_beyond_bounds(rules.get(n), b) for n, b in TELEMETRY_RULE_BOUNDS.items())
    return False


@schemathesis.hook
def filter_failure(context, failure, case, response):
    excused = (
        isinstance(failure, RejectedPositiveData)
        and response.status_code == 400
        and _numeric_string_beyond_bounds(case)
    )
    return not excused
