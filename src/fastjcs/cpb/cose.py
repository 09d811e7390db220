"""as-transmitted over COSE_Sign1: the RFC 9052 §4.4 Sig_structure (ToBeSigned) octets, and their digest.

Needs the `cose` extra (`pip install '.[cose]'` from a checkout: cbor2). The byte-boundary selector is the named
production "RFC 9052 Section 4.4, Sig_structure (ToBeSigned)" with context "Signature1":

    Sig_structure = ["Signature1", body_protected, external_aad, payload]

where body_protected is the protected header bstr exactly as transmitted (never re-encoded),
external_aad the application's bytes (empty by default) and payload the attached payload (or the
detached one the caller supplies). The array is encoded as RFC 9052 says (definite lengths, the
shortest heads: what cbor2 writes for a list of text and byte strings). No canonicalization is
applied to anything: the digest is SHA-256 over those octets, never over their hex text.

    >>> sign1 = bytes.fromhex("d28443a10127a045ff004350425840" + "00" * 64)   # payload ff 00 "CPB"
    >>> sig_structure(sign1).hex()
    '846a5369676e61747572653143a101274045ff00435042'
    >>> as_transmitted_digest(sign1)
    '12dfd0e052395cfe91d00136371028348507a072963ad16764366f51503b8657'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core.hashing import hex_digest, raw_digest
from .errors import CanonicalizationUsageError, CPBError, IdentifierMismatchError


class COSEError(CPBError):
    """Bytes that are not a COSE_Sign1 this module can select from, or the cose extra is missing."""


#: The only byte-boundary selector this module implements.
SELECTOR = ("RFC 9052 Section 4.4", "Sig_structure (ToBeSigned)", "Signature1")
COSE_SIGN1_TAG = 18


def _cbor2() -> Any:
    try:
        import cbor2
    except ImportError:  # pragma: no cover - the extra is in the test extra too
        raise COSEError(
            "COSE_Sign1 needs the cose extra (cbor2): pip install '.[cose]' from a fastjcs checkout"
        ) from None
    return cbor2


@dataclass(frozen=True)
class COSESign1:
    """A decoded COSE_Sign1: the protected header bstr as transmitted, and the other members."""

    protected: bytes
    unprotected: Mapping[Any, Any]
    payload: bytes | None  # None: detached
    signature: bytes
    tagged: bool

    def protected_header(self) -> Mapping[Any, Any]:
        """The protected header map (an empty bstr is the empty map, RFC 9052 §3)."""
        if self.protected == b"":
            return {}
        header = _loads(self.protected, "the protected header")
        if not isinstance(header, Mapping):
            raise COSEError("the protected header is not a CBOR map")
        return header


def _loads(data: bytes, what: str) -> Any:
    cbor2 = _cbor2()
    try:
        return cbor2.loads(data)
    except Exception as exc:  # cbor2 raises CBORDecodeError (a ValueError) and others
        raise COSEError(f"{what} is not well-formed CBOR: {exc}") from None


def decode_sign1(data: bytes) -> COSESign1:
    """Decode a COSE_Sign1 (tagged 18 or untagged). Raises COSEError for anything else."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise CanonicalizationUsageError("a COSE_Sign1 is bytes as transmitted")
    cbor2 = _cbor2()
    item = _loads(bytes(data), "the COSE_Sign1")
    tagged = isinstance(item, cbor2.CBORTag)
    if tagged:
        if item.tag != COSE_SIGN1_TAG:
            raise COSEError(f"CBOR tag {item.tag} is not COSE_Sign1 ({COSE_SIGN1_TAG})")
        item = item.value
    if not isinstance(item, (list, tuple)) or len(item) != 4:
        raise COSEError("a COSE_Sign1 is an array of four members")
    protected, unprotected, payload, signature = item
    if not isinstance(protected, bytes) or not isinstance(unprotected, Mapping):
        raise COSEError("COSE_Sign1: the protected header must be a bstr and the unprotected header a map")
    if payload is not None and not isinstance(payload, bytes):
        raise COSEError("COSE_Sign1: the payload must be a bstr or nil")
    if not isinstance(signature, bytes):
        raise COSEError("COSE_Sign1: the signature must be a bstr")
    return COSESign1(protected, unprotected, payload, signature, tagged)


def sig_structure(data: bytes, *, external_aad: bytes = b"", detached_payload: bytes | None = None) -> bytes:
    """The Sig_structure (ToBeSigned) octets of a COSE_Sign1, RFC 9052 §4.4."""
    msg = decode_sign1(data)
    payload = msg.payload
    if payload is None:
        if detached_payload is None:
            raise COSEError("the COSE_Sign1 payload is detached: pass detached_payload")
        payload = bytes(detached_payload)
    elif detached_payload is not None:
        raise COSEError("the COSE_Sign1 payload is attached: detached_payload does not apply")
    return bytes(_cbor2().dumps(["Signature1", msg.protected, bytes(external_aad), payload]))


def as_transmitted_digest(data: bytes, *, external_aad: bytes = b"", detached_payload: bytes | None = None) -> str:
    """CANONICAL-DIGEST(as-transmitted, Sig_structure): SHA-256 over the selected octets, bare hex."""
    return hex_digest(sig_structure(data, external_aad=external_aad, detached_payload=detached_payload), "sha256")


def verify_as_transmitted(
    data: bytes, carried: Any, *, external_aad: bytes = b"", detached_payload: bytes | None = None
) -> str:
    """Recompute the as-transmitted digest of a COSE_Sign1 and compare a carried one exactly; return
    it. IdentifierMismatchError when they differ (a digest of the Sig_structure's hex text is one)."""
    recomputed = as_transmitted_digest(data, external_aad=external_aad, detached_payload=detached_payload)
    if type(carried) is not str or carried != recomputed:
        raise IdentifierMismatchError(carried, recomputed)
    return recomputed


#: COSE hash algorithm ids (IANA COSE Algorithms) this module can apply for RFC 9995 label 258.
COSE_HASHES = {-16: "sha256", -43: "sha384"}
PAYLOAD_HASH_ALG, PREIMAGE_CONTENT_TYPE, PAYLOAD_LOCATION, CONTENT_TYPE = 258, 259, 260, 3


def check_hash_envelope(data: bytes, preimage: bytes) -> COSESign1:
    """RFC 9995 Hash Envelope Mode as draft -06 §6.2 states it: labels 258 (payload-hash-alg) and 259
    (preimage-content-type) in the protected header, 258-260 never unprotected, content_type (3) in
    neither, and the payload the RAW digest octets of `preimage` under label 258's hash (never their
    hex text). Returns the decoded message; COSEError names the first rule broken."""
    msg = decode_sign1(data)
    protected = msg.protected_header()
    for label in (PAYLOAD_HASH_ALG, PAYLOAD_LOCATION, PREIMAGE_CONTENT_TYPE):
        if label in msg.unprotected:
            raise COSEError(f"label {label} must not appear in the unprotected header (RFC 9995)")
    if CONTENT_TYPE in protected or CONTENT_TYPE in msg.unprotected:
        raise COSEError("content_type (label 3) must not appear in Hash Envelope Mode")
    if PREIMAGE_CONTENT_TYPE not in protected:
        raise COSEError("the protected header lacks preimage-content-type (label 259)")
    alg = protected.get(PAYLOAD_HASH_ALG)
    if alg not in COSE_HASHES:
        raise COSEError(f"payload-hash-alg (label 258) {alg!r} is not a COSE hash algorithm known here")
    if msg.payload is None:
        raise COSEError("the payload is detached: compare the supplied raw digest instead")
    want = raw_digest(bytes(preimage), COSE_HASHES[alg])
    if msg.payload != want:
        hint = " (it is the hex text of the digest)" if msg.payload == want.hex().encode("ascii") else ""
        raise COSEError(f"the payload is not the raw {COSE_HASHES[alg]} digest of the preimage{hint}")
    return msg


def check_selector(selector: Mapping[str, Any]) -> None:
    """A declared byte-boundary selector must be the one this module implements (COSEError if not)."""
    got = (selector.get("normative_reference"), selector.get("named_production"), selector.get("context"))
    if got != SELECTOR:
        raise COSEError(f"byte-boundary selector {got} is not {SELECTOR}")


__all__ = [
    "COSEError",
    "COSESign1",
    "SELECTOR",
    "decode_sign1",
    "sig_structure",
    "as_transmitted_digest",
    "verify_as_transmitted",
    "check_hash_envelope",
    "check_selector",
]
