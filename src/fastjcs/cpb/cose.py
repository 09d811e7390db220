"""as-transmitted over COSE_Sign1: the RFC 9052 §4.4 Sig_structure (ToBeSigned) octets, and their digest;
the Hash Envelope's payload-preimage-encoding header (`verify_content_binding`).

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
    _, alg = _hash_envelope_header(msg)
    if msg.payload is None:
        raise COSEError("the payload is detached: compare the supplied raw digest instead")
    want = raw_digest(bytes(preimage), COSE_HASHES[alg])
    if msg.payload != want:
        hint = " (it is the hex text of the digest)" if msg.payload == want.hex().encode("ascii") else ""
        raise COSEError(f"the payload is not the raw {COSE_HASHES[alg]} digest of the preimage{hint}")
    return msg


def _hash_envelope_header(msg: COSESign1, *also_protected_only: int) -> tuple[Mapping[Any, Any], int]:
    """The protected header of a Hash Envelope and its payload-hash-alg, after RFC 9995's rules:
    258-260 (and `also_protected_only`) never unprotected, content_type (3) in neither header,
    259 present, 258 a hash known here. COSEError names the first rule broken."""
    protected = msg.protected_header()
    for label in (PAYLOAD_HASH_ALG, PAYLOAD_LOCATION, PREIMAGE_CONTENT_TYPE, *also_protected_only):
        if label in msg.unprotected:
            raise COSEError(f"label {label} must not appear in the unprotected header (RFC 9995)")
    if CONTENT_TYPE in protected or CONTENT_TYPE in msg.unprotected:
        raise COSEError("content_type (label 3) must not appear in Hash Envelope Mode")
    if PREIMAGE_CONTENT_TYPE not in protected:
        raise COSEError("the protected header lacks preimage-content-type (label 259)")
    alg = protected.get(PAYLOAD_HASH_ALG)
    if alg not in COSE_HASHES:
        raise COSEError(f"payload-hash-alg (label 258) {alg!r} is not a COSE hash algorithm known here")
    return protected, alg


def check_selector(selector: Mapping[str, Any]) -> None:
    """A declared byte-boundary selector must be the one this module implements (COSEError if not)."""
    got = (selector.get("normative_reference"), selector.get("named_production"), selector.get("context"))
    if got != SELECTOR:
        raise COSEError(f"byte-boundary selector {got} is not {SELECTOR}")


# ---- payload-preimage-encoding (draft-mih-sokolov-cose-payload-preimage-encoding-01) ---------
#
# action-state-group/scitt-payload-binding, spec/cose/draft-mih-sokolov-cose-payload-preimage-encoding-01.md
# @b7e519f (2026-09-23; not submitted to the datatracker). The label is TBD: 271 is the value the
# draft suggests ("the lowest unassigned integer ... as of 2026-09-22"), so it is a parameter here.

#: The suggested label of payload-preimage-encoding (TBD in the draft).
PAYLOAD_PREIMAGE_ENCODING = 271
#: The COSE Deterministic Encodings registry, initial contents: Value -> Name.
PREIMAGE_ENCODINGS = {1: "cde", 2: "jcs"}
#: Applicable content types of each encoding, by family ("CBOR content types, such as
#: application/cbor"; "JSON content types, such as application/json"): the media type itself or a
#: structured-syntax suffix; a CoAP Content-Format number (RFC 7252 12.3: 50 JSON, 60 CBOR).
_FAMILY = {"cde": ("application/cbor", "+cbor", 60), "jcs": ("application/json", "+json", 50)}

VERIFIED, UNVERIFIED, FAILED = "verified", "unverified", "failed"


@dataclass(frozen=True)
class ContentBinding:
    """The content binding of a Hash Envelope, as the draft asks a verifier to report it.

    `status`: "verified" (recomputed under the named encoding and equal), "failed" (recomputed and
    not equal), or "unverified" (the verifier lacked what it needs to recompute: the parameter is
    absent, its value is not registered, or the content is beyond this module's encoder); never
    "verified" without a recomputation. Signature validity is a separate question.
    """

    status: str
    encoding: str | None  # the registry Name, when the value is registered
    reason: str
    preimage: bytes | None = None  # the recomputed preimage octets

    @property
    def verified(self) -> bool:
        return self.status == VERIFIED


def verify_content_binding(
    data: bytes, content: Any, *, label: int = PAYLOAD_PREIMAGE_ENCODING, detached_payload: bytes | None = None
) -> ContentBinding:
    """Check the payload-preimage-encoding of a Hash Envelope COSE_Sign1 and, when it names a
    registered encoding, recompute the preimage from `content` and its digest under label 258.

    `content` is the structured content: for jcs a Python value or JSON text (bytes, canonicalized
    with integers outside +/-(2^53-1) refused, as the draft's jcs entry requires); for cde a Python
    value of ints, strs, bytes, lists, dicts, bools and None (floats and tags: "unverified",
    beyond this encoder). Never infers the encoding from the content type (259) or the content.

    COSEError (rejected) for what the draft makes a malformed or inconsistent envelope: the
    parameter in the unprotected header, a value that is not an int, an encoding paired with a
    content type outside its family, and the Hash Envelope rules of `check_hash_envelope`'s
    protected header (258 known, 259 present, 258-260 never unprotected, no content_type).
    """
    msg = decode_sign1(data)
    protected, alg = _hash_envelope_header(msg, label)
    if label not in protected:
        return ContentBinding(UNVERIFIED, None, f"payload-preimage-encoding (label {label}) is absent")
    value = protected[label]
    if type(value) is not int:
        raise COSEError(f"payload-preimage-encoding (label {label}) must be an int, not {value!r}")
    name = PREIMAGE_ENCODINGS.get(value)
    if name is None:
        return ContentBinding(UNVERIFIED, None, f"payload-preimage-encoding {value} is not a registered encoding")
    content_type = protected[PREIMAGE_CONTENT_TYPE]
    if not _in_family(content_type, name):
        raise COSEError(f"payload-preimage-encoding {name} is inconsistent with preimage-content-type {content_type!r}")
    try:
        preimage = _encode(name, content)
    except _Beyond as exc:
        return ContentBinding(UNVERIFIED, name, str(exc))
    payload = msg.payload if msg.payload is not None else detached_payload
    if payload is None:
        raise COSEError("the payload is detached: pass detached_payload (the raw digest octets)")
    want = raw_digest(preimage, COSE_HASHES[alg])
    if bytes(payload) != want:
        hint = " (the payload is the hex text of the digest)" if bytes(payload) == want.hex().encode("ascii") else ""
        return ContentBinding(
            FAILED, name, f"the payload is not {COSE_HASHES[alg]} of the {name} preimage{hint}", preimage
        )
    return ContentBinding(VERIFIED, name, f"{COSE_HASHES[alg]} of the {name} preimage", preimage)


def _in_family(content_type: Any, name: str) -> bool:
    media, suffix, coap = _FAMILY[name]
    if type(content_type) is int:
        return content_type == coap
    if not isinstance(content_type, str):
        return False
    base = content_type.split(";", 1)[0].strip().lower()
    return base == media or (base.startswith("application/") and base.endswith(suffix))


class _Beyond(Exception):
    """Content this module cannot encode under the named encoding (the binding is unverified)."""


def _encode(name: str, content: Any) -> bytes:
    from ..core.api import canonicalize, dumps
    from ..core.errors import FastJCSError

    if name == "jcs":
        try:
            if isinstance(content, (bytes, bytearray, memoryview)):
                return canonicalize(bytes(content), strict_integers=True)
            return dumps(content)
        except FastJCSError as exc:
            raise _Beyond(f"the content has no jcs form this verifier can trust: {exc}") from None
    return _cde(content)


def _cde(value: Any) -> bytes:
    """RFC 8949 4.2.1 core deterministic encoding: shortest heads, definite lengths, map keys in
    bytewise order of their encodings. Ints, strs, bytes, lists, dicts, bools, None only."""
    if value is None:
        return b"\xf6"
    if value is True or value is False:
        return b"\xf5" if value else b"\xf4"
    if type(value) is int:
        if not -(2**64) <= value < 2**64:
            raise _Beyond("an integer beyond 64 bits needs a bignum tag: not encoded here")
        return _head(0, value) if value >= 0 else _head(1, -1 - value)
    if isinstance(value, bytes):
        return _head(2, len(value)) + value
    if isinstance(value, str):
        raw = value.encode("utf-8")
        return _head(3, len(raw)) + raw
    if isinstance(value, (list, tuple)):
        return _head(4, len(value)) + b"".join(_cde(v) for v in value)
    if isinstance(value, Mapping):
        items = sorted((_cde(k), _cde(v)) for k, v in value.items())
        return _head(5, len(items)) + b"".join(k + v for k, v in items)
    raise _Beyond(f"a {type(value).__name__} is beyond this cde encoder (ints, text, bytes, arrays, maps)")


def _head(major: int, n: int) -> bytes:
    if n < 24:
        return bytes([major << 5 | n])
    for extra, size in ((24, 1), (25, 2), (26, 4), (27, 8)):
        if n < 1 << (8 * size):
            return bytes([major << 5 | extra]) + n.to_bytes(size, "big")
    raise _Beyond("a length beyond 64 bits")  # pragma: no cover - bounded above


__all__ = [
    "COSEError",
    "ContentBinding",
    "PAYLOAD_PREIMAGE_ENCODING",
    "PREIMAGE_ENCODINGS",
    "verify_content_binding",
    "COSESign1",
    "SELECTOR",
    "decode_sign1",
    "sig_structure",
    "as_transmitted_digest",
    "verify_as_transmitted",
    "check_hash_envelope",
    "check_selector",
]
