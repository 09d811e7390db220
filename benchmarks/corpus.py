"""The benchmark corpora, built from fixed seeds so every run measures the same bytes.

Each corpus is a list of documents, given both as Python objects and as JSON text (UTF-8 bytes,
not canonical: unsorted members, with spaces). Most corpora are one large document; `eab` is 10,000
small ones, because its use is one call per small object.

    records   1,000 records with nested objects, floats, and some non-ASCII text
    floats    10,000 floats across every magnitude (subnormals to 1e308), in one list
    strings   string-heavy: escapes, control characters, non-ASCII, astral characters
    eab       10,000 objects shaped like the Execution Action Binding v1 preimage (~200 bytes)
    deep      5,000 levels of nesting (arrays and objects alternating)

`python benchmarks/corpus.py` prints each corpus's size.
"""

from __future__ import annotations

import json
import random
import string
import struct
from dataclasses import dataclass
from functools import cache
from typing import Any, Callable

SEED = 8785


@dataclass(frozen=True)
class Corpus:
    name: str
    description: str
    objects: list[Any]  # the documents as Python values
    texts: list[bytes]  # the same documents as (non-canonical) JSON text

    @property
    def text_bytes(self) -> int:
        return sum(len(t) for t in self.texts)


_WORDS = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliett",
    "kilo",
    "lima",
    "mike",
    "november",
    "oscar",
    "papa",
]
_NON_ASCII = [
    "Zürich",
    "São Paulo",
    "Kraków",
    "Malmö",
    "東京",
    "Москва",
    "Αθήνα",
    "québécois",
    "naïve café",
    "€ 12,50",
    "Đà Nẵng",
    "İstanbul",
]


def _record(rng: random.Random, i: int) -> dict[str, Any]:
    city = rng.choice(_NON_ASCII) if rng.random() < 0.3 else rng.choice(_WORDS).title()
    return {
        "id": i,
        "uuid": f"{rng.getrandbits(128):032x}",
        "name": f"{rng.choice(_WORDS).title()} {rng.choice(_WORDS).title()}",
        "email": f"{rng.choice(_WORDS)}.{i}@example.org",
        "active": rng.random() < 0.5,
        "balance": round(rng.uniform(-1000, 100000), 2),
        "score": rng.random(),
        "tags": rng.sample(_WORDS, rng.randint(0, 5)),
        "address": {
            "street": f"{rng.randint(1, 999)} {rng.choice(_WORDS).title()} Street",
            "city": city,
            "zip": f"{rng.randint(0, 99999):05d}",
            "geo": {"lat": rng.uniform(-90, 90), "lon": rng.uniform(-180, 180)},
        },
        "history": [
            {
                "ts": 1_700_000_000 + rng.randint(0, 10**7),
                "event": rng.choice(_WORDS),
                "amount": rng.randint(-(10**6), 10**6) / 100,
            }
            for _ in range(rng.randint(0, 4))
        ],
        "note": None if rng.random() < 0.5 else rng.choice(_NON_ASCII + _WORDS),
    }


def _records(rng: random.Random) -> list[Any]:
    return [[_record(rng, i) for i in range(1000)]]


def _floats(rng: random.Random) -> list[Any]:
    out: list[float] = []
    while len(out) < 10_000:
        kind = rng.random()
        if kind < 0.6:  # every exponent: a random bit pattern, finite only
            x = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
            if x != x or x in (float("inf"), float("-inf")):
                continue
        elif kind < 0.8:  # human-scale decimals
            x = round(rng.uniform(-1e6, 1e6), rng.randint(0, 6))
        elif kind < 0.9:  # subnormals
            x = struct.unpack("<d", rng.getrandbits(52).to_bytes(8, "little"))[0]
        else:  # integral values, plain and past 1e21
            x = float(rng.randint(-(10 ** rng.randint(1, 25)), 10 ** rng.randint(1, 25)))
        out.append(x)
    return [out]


_SPECIALS = [
    '"',
    "\\",
    "/",
    "\b",
    "\f",
    "\n",
    "\r",
    "\t",
    "\x00",
    "\x1f",
    "\x7f",
    "\u2028",
    "é",
    "ß",
    "€",
    "\ufb33",
    "\U0001f600",
    "\U0001f602",
    "中文",
]


def _strings(rng: random.Random) -> list[Any]:
    def one() -> str:
        parts = []
        for _ in range(rng.randint(1, 12)):
            if rng.random() < 0.6:
                parts.append("".join(rng.choice(string.ascii_letters + " ") for _ in range(rng.randint(1, 24))))
            else:
                parts.append(rng.choice(_SPECIALS + _NON_ASCII))
        return "".join(parts)

    return [{f"k{i}-{one()}": [one() for _ in range(rng.randint(1, 6))] for i in range(2000)}]


def _eab(rng: random.Random) -> list[Any]:
    docs = []
    for i in range(10_000):
        docs.append(
            {
                "domain": "cmcp.execution-action-binding",
                "version": 1,
                "agent_id": f"agent-{rng.getrandbits(64):016x}",
                "action_type": rng.choice(["tools/call", "resources/read", "prompts/get", "sampling"]),
                "action_scope": f"{rng.choice(_WORDS)}:{rng.choice(_WORDS)}/{i}",
                "action_timestamp": f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T"
                f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:"
                f"{rng.randint(0, 59):02d}.{rng.randint(0, 999):03d}Z",
            }
        )
    return docs


DEEP_LEVELS = 5000


def _deep(rng: random.Random) -> list[Any]:
    value: Any = {"leaf": [1, 2.5, "x"]}
    for level in range(DEEP_LEVELS - 1):
        value = [value] if level % 2 == 0 else {"a": value, "b": level}
    return [value]


def _deep_text() -> bytes:
    # json.dumps recurses on the C stack and stops at the recursion limit: write the text by hand.
    head: list[str] = []
    tail: list[str] = []
    for level in reversed(range(DEEP_LEVELS - 1)):
        if level % 2 == 0:
            head.append("[")
            tail.append("]")
        else:
            head.append('{"a": ')
            tail.append(f', "b": {level}}}')
    return ("".join(head) + '{"leaf": [1, 2.5, "x"]}' + "".join(reversed(tail))).encode()


_BUILDERS: dict[str, tuple[str, Callable[[random.Random], list[Any]]]] = {
    "records": ("1k records, nested objects, some non-ASCII", _records),
    "floats": ("10k floats across magnitudes, one list", _floats),
    "strings": ("string-heavy: escapes, controls, non-ASCII, astral", _strings),
    "eab": ("10k EAB-preimage-sized objects, one call each", _eab),
    "deep": (f"{DEEP_LEVELS} levels of nesting", _deep),
}

NAMES = list(_BUILDERS)


@cache
def load(name: str) -> Corpus:
    description, build = _BUILDERS[name]
    objects = build(random.Random(f"{SEED}-{name}"))
    if name == "deep":
        texts = [_deep_text()]
    else:
        texts = [json.dumps(o, ensure_ascii=False).encode("utf-8") for o in objects]
    return Corpus(name, description, objects, texts)


if __name__ == "__main__":
    for name in NAMES:
        c = load(name)
        print(f"{name:8} {len(c.objects):6} docs {c.text_bytes:10,} bytes  {c.description}")
