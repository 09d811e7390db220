"""Generate fastjcs's own Execution Action Binding v1 vectors (src/fastjcs/conformance/suites/eab/*.json).

The expected values are computed WITHOUT fastjcs: canonical bytes by the `rfc8785` package (0.1.4,
the reference this project is held to), digests by pycryptodome. Only the inputs and the verdicts
are written by hand, below. Run from anywhere:

    python vectors/gen_eab.py          # rewrite the files
    python vectors/gen_eab.py --check  # exit 1 if the files differ from what it generates

tests/test_eab_vectors.py runs `build()` and compares, so an edited file or a drifted generator
fails the suite.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import rfc8785
from Crypto.Hash import SHA256, SHA384

OUT = Path(__file__).resolve().parents[1] / "src" / "fastjcs" / "conformance" / "suites" / "eab"
DOMAIN = "cmcp.execution-action-binding"
HASHES = {"sha256": SHA256, "sha384": SHA384}

BASE = {
    "agent_id": "spiffe://agent.example/payments/prod",
    "action_type": "transfer",
    "action_scope": "account:merchant-7",
    "action_timestamp": "2026-09-10T16:30:00Z",
}


def v1(**fields: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {"domain": DOMAIN, "version": 1}
    obj.update(BASE)
    obj.update(fields)
    return obj


def without(member: str, **fields: Any) -> dict[str, Any]:
    obj = v1(**fields)
    del obj[member]
    return obj


def renamed(old: str, new: str) -> dict[str, Any]:
    return {(new if k == old else k): v for k, v in v1().items()}


def bindings(preimage: Any) -> dict[str, Any] | None:
    """JCS bytes and both digests, or None when rfc8785 refuses the value."""
    try:
        jcs = rfc8785.dumps(preimage)
    except rfc8785.CanonicalizationError:
        return None
    return {
        "jcs_utf8": jcs.decode("utf-8"),
        "bindings": {alg: alg + ":" + mod.new(jcs).hexdigest() for alg, mod in HASHES.items()},
    }


LONG = 4096  # characters per field in the long-fields vector (no limit is imposed; see vectors/eab.md)

ACCEPT: list[dict[str, Any]] = [
    {
        "id": "FJ-EAB-A01-nonbmp-scope",
        "description": "characters beyond the BMP (UTF-8 4-byte sequences, UTF-16 surrogate pairs) "
        "in the scope, written as raw UTF-8 by JCS",
        "preimage": v1(action_scope="\U0001f602\U0001f004 \U0001d11e/merchant-7"),
    },
    {
        "id": "FJ-EAB-A02-nonbmp-all-fields",
        "description": "non-BMP and non-ASCII characters in all four fields",
        "preimage": v1(
            agent_id="spiffe://\U00010348.example/\u5de5\u5177",
            action_type="\U0001f4b8transfer",
            action_scope="\U0001f602/\ufb33/\u20ac",
            action_timestamp="2026-09-10T16:30:00Z\U0001f552",
        ),
    },
    {
        "id": "FJ-EAB-A03-escapes",
        "description": "quote, backslash and C0 controls are escaped (short forms and \\u00xx); "
        "'/', U+007F, U+2028 and non-ASCII are written as is",
        "preimage": v1(action_scope='a"b\\c/d\u0000\u0007\b\t\n\f\r\u001f\u007f\u2028\u00e9'),
    },
    {
        "id": "FJ-EAB-A04-one-character-fields",
        "description": "the shortest fields allowed: one character each",
        "preimage": v1(agent_id="a", action_type="t", action_scope="s", action_timestamp="0"),
    },
    {
        "id": "FJ-EAB-A05-long-fields",
        "description": f"{LONG}-character fields (fastjcs imposes no length limit; this pins that "
        "long fields are hashed whole)",
        "preimage": v1(
            agent_id="spiffe://" + "a" * (LONG - 10) + "\U0001f602",
            action_type="t" * (LONG - 1) + "\u00e9",
            action_scope="s" * (LONG - 1) + "\U0001d11e",
            action_timestamp="9" * LONG,
        ),
    },
    {
        "id": "FJ-EAB-A06-version-written-1.0",
        "description": "version given as the JSON number 1.0 in the source object: JCS writes 1, "
        "the bytes are those of EAB-001 and the binding is the v1 binding",
        "preimage": {**v1(), "version": 1.0},
    },
]

REJECT: list[dict[str, Any]] = [
    # -- the action fields --
    {"id": "FJ-EAB-R01-empty-agent-id", "reason": "empty_field", "field": "agent_id", "preimage": v1(agent_id="")},
    {
        "id": "FJ-EAB-R02-empty-timestamp",
        "reason": "empty_field",
        "field": "action_timestamp",
        "preimage": v1(action_timestamp=""),
    },
    {
        "id": "FJ-EAB-R03-lone-high-surrogate-scope",
        "reason": "lone_surrogate",
        "field": "action_scope",
        "preimage": v1(action_scope="merchant-\ud800"),
    },
    {
        "id": "FJ-EAB-R04-lone-low-surrogate-agent",
        "reason": "lone_surrogate",
        "field": "agent_id",
        "preimage": v1(agent_id="\udc00agent"),
    },
    {"id": "FJ-EAB-R05-agent-id-number", "reason": "wrong_type", "field": "agent_id", "preimage": v1(agent_id=7)},
    {
        "id": "FJ-EAB-R06-action-type-null",
        "reason": "wrong_type",
        "field": "action_type",
        "preimage": v1(action_type=None),
    },
    {
        "id": "FJ-EAB-R07-scope-array",
        "reason": "wrong_type",
        "field": "action_scope",
        "preimage": v1(action_scope=["account:merchant-7"]),
    },
    {
        "id": "FJ-EAB-R08-timestamp-number",
        "reason": "wrong_type",
        "field": "action_timestamp",
        "preimage": v1(action_timestamp=1789057800),
    },
    # -- the members --
    {"id": "FJ-EAB-R09-extra-member", "reason": "extra_member", "field": "nonce", "preimage": v1(nonce="n-1")},
    {
        "id": "FJ-EAB-R10-missing-timestamp",
        "reason": "missing_member",
        "field": "action_timestamp",
        "preimage": without("action_timestamp"),
    },
    {"id": "FJ-EAB-R11-missing-domain", "reason": "missing_member", "field": "domain", "preimage": without("domain")},
    {
        "id": "FJ-EAB-R12-missing-version",
        "reason": "missing_member",
        "field": "version",
        "preimage": without("version"),
    },
    {
        "id": "FJ-EAB-R13-renamed-agent-id",
        "reason": "renamed_member",
        "field": "agent_id",
        "preimage": renamed("agent_id", "agent"),
    },
    {
        "id": "FJ-EAB-R14-renamed-scope-camel-case",
        "reason": "renamed_member",
        "field": "action_scope",
        "preimage": renamed("action_scope", "actionScope"),
    },
    # -- domain and version --
    {
        "id": "FJ-EAB-R15-other-domain",
        "reason": "other_domain",
        "field": "domain",
        "preimage": v1(domain="cmcp.other-binding"),
    },
    {
        "id": "FJ-EAB-R16-domain-uppercase",
        "reason": "other_domain",
        "field": "domain",
        "preimage": v1(domain="CMCP.execution-action-binding"),
    },
    {
        "id": "FJ-EAB-R17-domain-trailing-space",
        "reason": "other_domain",
        "field": "domain",
        "preimage": v1(domain=DOMAIN + " "),
    },
    {"id": "FJ-EAB-R18-version-2", "reason": "other_version", "field": "version", "preimage": v1(version=2)},
    {"id": "FJ-EAB-R19-version-string", "reason": "other_version", "field": "version", "preimage": v1(version="1")},
    {"id": "FJ-EAB-R20-version-true", "reason": "other_version", "field": "version", "preimage": v1(version=True)},
    {"id": "FJ-EAB-R21-version-0", "reason": "other_version", "field": "version", "preimage": v1(version=0)},
    # -- pre-image bytes that are not the canonical form of a v1 object --
    {
        "id": "FJ-EAB-R22-bytes-with-whitespace",
        "reason": "non_canonical_bytes",
        "preimage_utf8": json.dumps(v1(), sort_keys=True),
    },
    {
        "id": "FJ-EAB-R23-bytes-version-1.0",
        "reason": "non_canonical_bytes",
        "preimage_utf8": rfc8785.dumps(v1()).decode().replace('"version":1}', '"version":1.0}'),
    },
    {
        "id": "FJ-EAB-R24-bytes-members-unsorted",
        "reason": "non_canonical_bytes",
        "preimage_utf8": json.dumps(v1(), separators=(",", ":")),
    },
]

ALGORITHMS_REFUSED = [
    ("sha512", "sha512"),
    ("SHA256", "SHA256-uppercase"),
    ("sha-256", "sha-256-dash"),
    ("Sha384", "Sha384-capital"),
    ("sha3-256", "sha3-256"),
    ("md5", "md5"),
    ("sha1", "sha1"),
    ("", "empty"),
    ("sha256 ", "sha256-trailing-space"),
]

for number, (algorithm, slug) in enumerate(ALGORITHMS_REFUSED, start=len(REJECT) + 1):
    REJECT.append(
        {
            "id": f"FJ-EAB-R{number:02d}-algorithm-{slug}",
            "reason": "unsupported_algorithm",
            "preimage": v1(),
            "algorithm": algorithm,
        }
    )

_DISPOSITION = {"unsupported_algorithm": "reject_unsupported_algorithm"}


def _accept(vector: dict[str, Any]) -> dict[str, Any]:
    out = dict(vector)
    computed = bindings(vector["preimage"])
    assert computed is not None, vector["id"]
    out.update(computed)
    out["expected"] = "accept"
    return out


def _reject(vector: dict[str, Any]) -> dict[str, Any]:
    out = dict(vector)
    if "preimage" in vector and vector["reason"] != "unsupported_algorithm":
        # What an implementation that skipped the check would hash (absent where rfc8785 refuses).
        computed = bindings(vector["preimage"])
        if computed is not None:
            out["unchecked_jcs_utf8"] = computed["jcs_utf8"]
            out["unchecked_bindings"] = computed["bindings"]
    out["expected"] = _DISPOSITION.get(vector["reason"], "reject_as_v1_execution_action_binding")
    return out


def build() -> dict[str, str]:
    """File name -> file text."""
    files = {
        "eab-accept.json": {
            "profile": "fastjcs.eab-vectors/1",
            "generator": "vectors/gen_eab.py: rfc8785 + pycryptodome, fastjcs not used",
            "vectors": [_accept(v) for v in ACCEPT],
        },
        "eab-reject.json": {
            "profile": "fastjcs.eab-vectors/1",
            "generator": "vectors/gen_eab.py: rfc8785 + pycryptodome, fastjcs not used",
            "vectors": [_reject(v) for v in REJECT],
        },
    }
    # ensure_ascii: lone surrogates survive as \\udxxx escapes, and every file is plain ASCII.
    return {name: json.dumps(doc, indent=2, ensure_ascii=True) + "\n" for name, doc in files.items()}


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for name, text in build().items():
        path = OUT / name
        if check:
            if not path.exists() or path.read_text(encoding="ascii") != text:
                stale.append(name)
        else:
            path.write_text(text, encoding="ascii")
    if stale:
        print("stale:", ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
