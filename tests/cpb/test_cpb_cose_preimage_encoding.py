"""The COSE payload-preimage-encoding header (issue 34 item 5), on vectors built from the draft's text:
draft-mih-sokolov-cose-payload-preimage-encoding-01 @b7e519f (../shared/upstream/cpb-current/spec/cose/).

The draft's own example: the preimage {"b": 2, "a": 1} under cde (RFC 8949 4.2.1) is the 7 octets
a2616101616202, whose SHA-256 is a0d3af9e...c893b5e3; protected {1: -7, 258: -16, 259:
"application/cbor", TBD: 1}. Upstream publishes no vectors for it. Messages are built with cbor2,
digests with pycryptodome; the label is the suggested 271.
"""

from __future__ import annotations

import cbor2
import pytest
import rfc8785
from Crypto.Hash import SHA256, SHA384

from fastjcs.cpb import cose
from fastjcs.cpb.cose import COSEError, verify_content_binding

CONTENT = {"b": 2, "a": 1}
CDE_PREIMAGE = bytes.fromhex("a2616101616202")  # the draft's Examples section
CDE_DIGEST = "a0d3af9e86e5517f729bad0657e2c6f3b7d03899894c8d6b33759074c893b5e3"  # the draft's


def envelope(protected: dict, payload: bytes | None, unprotected: dict | None = None) -> bytes:
    return cbor2.dumps(cbor2.CBORTag(18, [cbor2.dumps(protected), unprotected or {}, payload, b"\0" * 64]))


def header(**extra) -> dict:
    h = {1: -7, 258: -16, 259: "application/cbor", 271: 1}
    h.update({int(k[1:]): v for k, v in extra.items()})
    return h


def test_the_drafts_example_verifies():
    assert SHA256.new(CDE_PREIMAGE).hexdigest() == CDE_DIGEST
    assert cose.PAYLOAD_PREIMAGE_ENCODING == 271 and cose.PREIMAGE_ENCODINGS == {1: "cde", 2: "jcs"}
    result = verify_content_binding(envelope(header(), bytes.fromhex(CDE_DIGEST)), CONTENT)
    assert (result.status, result.encoding, result.preimage) == ("verified", "cde", CDE_PREIMAGE)
    assert result.verified


def test_jcs_over_json_content():
    jcs = rfc8785.dumps(CONTENT)
    msg = envelope(header(_259="application/json", _271=2), SHA256.new(jcs).digest())
    assert verify_content_binding(msg, CONTENT).verified
    assert verify_content_binding(msg, b'{ "b": 2, "a": 1 }').verified  # JSON text, canonicalized
    suffix = envelope(header(_259="application/vnd.cyclonedx+json", _271=2), SHA256.new(jcs).digest())
    assert verify_content_binding(suffix, CONTENT).verified  # a JSON content type by its +json suffix
    sha384 = envelope(header(_258=-43, _259="application/json", _271=2), SHA384.new(jcs).digest())
    assert verify_content_binding(sha384, CONTENT).verified


@pytest.mark.parametrize(
    ("protected", "why"),
    [
        ({1: -7, 258: -16, 259: "application/cbor"}, "absent"),  # sealed before the parameter: not a defect
        (header(_271=3), "not a registered"),
        (header(_271=0), "not a registered"),
        (header(_271=-1), "not a registered"),
    ],
)
def test_absent_or_unregistered_is_unverified_never_verified_nor_failed(protected, why):
    result = verify_content_binding(envelope(protected, bytes.fromhex(CDE_DIGEST)), CONTENT)
    assert (result.status, result.verified) == ("unverified", False) and why in result.reason


def test_a_recomputation_that_differs_is_failed():
    result = verify_content_binding(envelope(header(), bytes.fromhex(CDE_DIGEST)), {"b": 2, "a": 2})
    assert result.status == "failed" and not result.verified
    hexed = envelope(header(), CDE_DIGEST.encode("ascii"))  # the digest's hex text is not the payload
    result = verify_content_binding(hexed, CONTENT)
    assert result.status == "failed" and "hex text" in result.reason


@pytest.mark.parametrize(
    ("message", "match"),
    [
        (envelope(header(_259="application/json"), b""), "inconsistent"),  # cde with a JSON type: reject
        (envelope(header(_259="application/cbor", _271=2), b""), "inconsistent"),  # jcs with CBOR
        (envelope(header(_259="text/plain", _271=2), b""), "inconsistent"),
        (envelope(header(_271="cde"), b""), "must be an int"),  # the value is the Value, never the Name
        (envelope(header(_271=True), b""), "must be an int"),
        (envelope({1: -7, 258: -16, 259: "application/cbor"}, b"", {271: 1}), "unprotected"),
        (envelope({1: -7, 258: -16, 271: 1}, b""), "259"),
    ],
)
def test_malformed_or_inconsistent_envelopes_are_rejected(message, match):
    with pytest.raises(COSEError, match=match):
        verify_content_binding(message, CONTENT)


def test_the_coap_content_formats_and_parameters():
    digest = bytes.fromhex(CDE_DIGEST)
    assert verify_content_binding(envelope(header(_259=60), digest), CONTENT).verified  # application/cbor
    assert verify_content_binding(envelope(header(_259="Application/CBOR; x=1"), digest), CONTENT).verified
    with pytest.raises(COSEError):
        verify_content_binding(envelope(header(_259=50), digest), CONTENT)  # application/json with cde


def test_content_beyond_the_encoders_is_unverified():
    msg = envelope(header(), bytes.fromhex(CDE_DIGEST))
    assert verify_content_binding(msg, {"a": 1.5}).status == "unverified"  # a float: beyond this cde
    jcs = envelope(header(_259="application/json", _271=2), b"\0" * 32)
    result = verify_content_binding(jcs, b'{"n":9007199254740993}')  # beyond +/-(2^53-1): the jcs entry's rule
    assert result.status == "unverified" and result.encoding == "jcs"


def test_cde_key_order_is_bytewise_over_the_encoded_keys():
    # RFC 8949 4.2.1: "b" (61 62) after "a" (61 61); a longer key sorts by its longer head, 10 after "z"
    got = cose._cde({"z": 0, 10: 0, "a": [True, None, b"\x01", -1, 24, 256]})
    assert got == cbor2.dumps({10: 0, "a": [True, None, b"\x01", -1, 24, 256], "z": 0})
