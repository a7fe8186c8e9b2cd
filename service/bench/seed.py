"""Seeds one account with N assets through the public API (standard library only)."""
import json
import sys
import urllib.request
from concurrent.futures import ThreadPoolExecutor

base, account, token, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])


def create(i: int) -> int:
    body = json.dumps({
        "externalId": f"asset-{i:05d}",
        "name": f"Vehicle {i}",
        "tier": 1 + i % 2,
        "telemetryRules": {"speedLimit": 90, "fuelLevelLowThreshold": 12.5},
    }).encode()
    request = urllib.request.Request(
        f"{base}/v1/accounts/{account}/assets", data=body, method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request) as response:
        return response.status


with ThreadPoolExecutor(max_workers=8) as pool:
    statuses = list(pool.map(create, range(count)))
assert all(s == 201 for s in statuses), set(statuses)
print(f"seeded {count} assets")
