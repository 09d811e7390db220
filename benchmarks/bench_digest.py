"""Batch digest benchmark: fastjcs.digest_many against rfc8785.dumps + pycryptodome SHA-256.

A plain script (not collected by pytest). Both sides digest the same EAB-size objects in the same
run; the outputs are compared before any figure is printed, and the ratio is the peer's time over
fastjcs's (higher is better for fastjcs). Best of --repeat runs each.

    PYTHONPATH=src python benchmarks/bench_digest.py                 # 100k objects
    PYTHONPATH=src python benchmarks/bench_digest.py -n 20000 --repeat 5
    FASTJCS_BACKEND=python PYTHONPATH=src python benchmarks/bench_digest.py
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any, Callable

import rfc8785
from Crypto.Hash import SHA256

import fastjcs


def eab_objects(n: int) -> list[dict[str, Any]]:
    """n distinct Execution Action Binding v1 pre-image objects (about 200 bytes of JCS each)."""
    return [
        {
            "domain": "cmcp.execution-action-binding",
            "version": 1,
            "agent_id": f"spiffe://agent.example/payments/prod-{i % 97}",
            "action_type": ("transfer", "refund", "read")[i % 3],
            "action_scope": f"account:merchant-{i}",
            "action_timestamp": f"2026-09-10T16:{i // 60 % 60:02d}:{i % 60:02d}Z",
        }
        for i in range(n)
    ]


def peer(objs: list[dict[str, Any]]) -> list[str]:
    """The obvious loop a user writes today: rfc8785 then pycryptodome's one-shot SHA-256."""
    oneshot = getattr(SHA256, "digest", None) or (lambda data: SHA256.new(data).digest())
    return ["sha256:" + oneshot(rfc8785.dumps(obj)).hex() for obj in objs]


def ours(objs: list[dict[str, Any]]) -> list[str]:
    return fastjcs.digest_many(objs)


def best_of(fn: Callable[[list[dict[str, Any]]], list[str]], objs, repeat: int):
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn(objs)
        best = min(best, time.perf_counter() - start)
    return best, result


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=100_000, help="objects per batch (100000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per side, best kept (3)")
    parser.add_argument("--json", action="store_true", help="print one JSON line instead")
    args = parser.parse_args(argv)

    objs = eab_objects(args.n)
    peer_time, peer_out = best_of(peer, objs, args.repeat)
    our_time, our_out = best_of(ours, objs, args.repeat)
    correct = our_out == peer_out
    row = {
        "backend": fastjcs.backend(),
        "objects": args.n,
        "peer_s": round(peer_time, 4),
        "fastjcs_s": round(our_time, 4),
        "ratio": round(peer_time / our_time, 2),
        "correct": correct,
    }
    if args.json:
        print(json.dumps(row))
    else:
        print(f"digest_many, {args.n} EAB-size objects, backend={fastjcs.backend()}, best of {args.repeat}")
        print(f"  rfc8785.dumps + pycryptodome SHA-256  {peer_time:8.3f} s  {peer_time / args.n * 1e6:6.2f} us/object")
        print(f"  fastjcs.digest_many                   {our_time:8.3f} s  {our_time / args.n * 1e6:6.2f} us/object")
        print(f"  ratio {row['ratio']}x   output identical: {correct}")
    return 0 if correct else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
