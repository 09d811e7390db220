"""What every CPB vector handler stands on: the `Handler` base class and the helpers the handlers
share (pinned preimage bytes and digests, the expected refusal of a MUST-FAIL vector, the Ed25519
signature and the `cpb-refs` COSE header entry of a signed statement). The handlers are in
`cpb_handlers_text` and `cpb_handlers_refs`; their claim order (`HANDLERS`) is in `cpb_handlers`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Callable

from ..core.hashing import hex_digest
from ..cpb import cose
from .cpb_cases import _WIRE_CODES, Implementation, Vector, failure_meaning
from .reader import Members, Token, read, rewrite
from .results import VectorOutcome


def _lossless_under_json_loads(text: bytes) -> bool:
    """Whether json.loads keeps what jcs-n judges: no duplicate names, no `-0` (json.loads reads it
    as the int 0). Where it loses something, only the text path can see the defect."""
    lost = False

    def leaf(v: Any) -> Any:
        nonlocal lost
        if isinstance(v, Token) and v == "-0":
            lost = True
        return v

    def pairs(p: Members) -> Members:
        nonlocal lost
        if len({k for k, _ in p}) != len(p):
            lost = True
        return p

    rewrite(read(text), leaf, pairs)
    return not lost


def _must_fail(doc: Mapping[str, Any]) -> bool:
    return doc.get("must_fail") is True


def _pinned_bytes(
    out: VectorOutcome,
    what: str,
    got: bytes,
    doc: Mapping[str, Any],
    text_key: str = "pre_image",
    hex_key: str = "pre_image_bytes_hex",
    digest_keys: Sequence[str] = ("digest",),
) -> None:
    """Compare a preimage with every pinned form of it in `doc`, and its digest."""
    pinned = False
    if isinstance(doc.get(text_key), str):
        pinned = out.eq(f"{what} preimage", got, doc[text_key].encode("utf-8")) or True
    if isinstance(doc.get(hex_key), str):
        pinned = out.eq(f"{what} preimage bytes", got.hex(), doc[hex_key]) or True
    for key in digest_keys:
        if isinstance(doc.get(key), str):
            pinned = out.eq(f"{what} {key}", hex_digest(got), doc[key]) or True
    if not pinned:
        out.true(f"{what}: a preimage was computed", isinstance(got, bytes) and len(got) > 0)


def _expect_refusal(out: VectorOutcome, reason: str | None, what: str, call: Callable[[], Any], prefix: str) -> None:
    expected = failure_meaning(reason)
    if not (isinstance(expected, type) and issubclass(expected, BaseException)):
        out.fail(f"failure_reason {reason!r} is not mapped to an exception")
        return
    exc = out.refuses(what, call, expected)
    if exc is not None:
        code = getattr(exc, "code", None) or _WIRE_CODES.get(expected, expected.__name__)
        out.fired.add(f"{prefix}:{code}")


class Handler:
    name = "?"
    payload_key: str | None = None  # the member holding the payload text, for generators

    def claims(self, v: Vector) -> bool:
        raise NotImplementedError

    def run(self, v: Vector, impl: Implementation, out: VectorOutcome) -> None:
        raise NotImplementedError

    def payload(self, v: Vector) -> bytes:
        assert self.payload_key is not None
        return v.text(self.payload_key)

    def with_payload(self, v: Vector, text: bytes, category: str, doc: dict[str, Any]) -> Vector:
        assert self.payload_key is not None
        return v.mutant(category, doc, **{self.payload_key: text})


def _check_signature(doc: Mapping[str, Any], msg: cose.COSESign1, tbs: bytes, out: VectorOutcome) -> None:
    """The fixture's Ed25519 signature, pinned and verified over the Sig_structure (other algorithms: not checked)."""
    sig = doc.get("signature", {})
    if sig.get("algorithm") == "EdDSA" and sig.get("curve") == "Ed25519":
        from Crypto.Signature import eddsa

        key = eddsa.import_public_key(bytes.fromhex(sig["public_key_hex"]))
        out.eq("signature", msg.signature.hex(), sig.get("signature_hex"))
        try:
            eddsa.new(key, "rfc8032").verify(tbs, msg.signature)
            out.true("the Ed25519 signature verifies over the Sig_structure", True)
        except ValueError:
            out.fail("the Ed25519 signature does not verify over the Sig_structure")


def _check_cpb_refs(doc: Mapping[str, Any], protected: Mapping[Any, Any], out: VectorOutcome) -> None:
    """The `cpb-refs` entry decoded from the protected header is the vector's map entry and typed reference."""
    label, index = doc["protected_header"].get("cpb_refs_label"), doc["protected_header"].get("entry_index", 0)
    entries = protected.get(label)
    if isinstance(entries, list):
        entry = _cpb_refs_entry(entries[index])
        out.eq("the cpb-refs entry decoded", entry, _cpb_refs_entry(doc["cbor_map_entry"]))
        out.eq("the cpb-refs entry is the typed reference", entry, doc["typed_reference"])
    else:
        out.fail(f"the cpb-refs parameter ({label}) is not a list in the protected header")


#: The members of a `cpb-refs` COSE header entry (drafts -03 to -05, section 8.2), by label.
CPB_REFS_LABELS = {"1": "type", "2": "purpose", "3": "digest_alg", "4": "digest"}


def _cpb_refs_entry(entry: Mapping[Any, Any]) -> dict[str, Any]:
    """A `cpb-refs` entry (labels as in the vector's JSON, or ints as decoded from CBOR) as a typed reference."""
    out = {}
    for label, value in entry.items():
        name = CPB_REFS_LABELS.get(str(label))
        out[name if name is not None else f"label {label}"] = value
    return out
