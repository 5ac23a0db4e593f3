"""Concurrency benchmark: 64 independent calls to a fake model that answers in 200 ms.

Runs them through the real ``openai`` backend (SDK, managed wrapper, budget ledger) once
sequentially and once at concurrency 8, prints both wall times and their ratio, and exits
non-zero when the concurrent run takes more than 1/6 of the sequential time.

    .venv/bin/python benchmarks/bench_backend_concurrency.py [--calls 64] [--concurrency 8]
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from skillopt_core.backends import CompletionRequest
from skillopt_core.backends.runtime import open_roles
from skillopt_core.testing import FakeModelServer, Reply

TARGET_RATIO = 1 / 6


def run(base_url: str, calls: int, concurrency: int) -> float:
    options = {"base_url": base_url, "api_key": "bench", "concurrency": concurrency}
    roles = open_roles("openai:bench-model", "openai:bench-model", options)
    requests = [CompletionRequest.of(f"independent task {i}", max_tokens=64) for i in range(calls)]
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        replies = list(pool.map(roles.target.complete, requests))
    elapsed = time.perf_counter() - started
    assert len(replies) == calls and all(r.text == "done" for r in replies)
    assert roles.ledger.totals.calls == calls
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=64)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--latency", type=float, default=0.2, help="fake model latency, seconds")
    args = parser.parse_args()
    with FakeModelServer(lambda body: Reply("done", delay_s=args.latency)) as fake:
        run(fake.openai_base_url, 2, 2)  # warm-up: SDK import, connection pool
        sequential = run(fake.openai_base_url, args.calls, 1)
        concurrent = run(fake.openai_base_url, args.calls, args.concurrency)
    ratio = concurrent / sequential
    verdict = "PASS" if ratio <= TARGET_RATIO else "FAIL"
    print(f"{args.calls} calls, fake latency {args.latency * 1000:.0f} ms")
    print(f"sequential:      {sequential:7.2f} s")
    print(f"concurrency {args.concurrency:<3} {concurrent:7.2f} s")
    print(f"ratio:           {ratio:7.3f}  (target <= {TARGET_RATIO:.3f})  {verdict}")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    raise SystemExit(main())
