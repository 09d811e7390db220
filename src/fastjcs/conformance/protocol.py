"""fastjcs's answers over the vector protocol (`fastjcs serve-vector`, and what `crosscheck`
compares another implementation with).

The protocol (docs/cli.md, "crosscheck and serve-vector"): one vector JSON on stdin; the implementation prints
`{"pre_image": "...", "digest": "<hex>"}` on stdout and exits 0, or exits non-zero when it refuses
the vector (a MUST-FAIL vector must be refused); empty output with exit 0 means "skipped".

What fastjcs computes for each kind of vector (the kind is decided by the handlers of
`fastjcs.conformance.cpb_vectors`, so serve-vector and `fastjcs vectors` read a file the same way):

- jcs / jcs-n known answers (`input`, `algorithm`, `exclusion_set`): the preimage of the raw
  input text; contrast vectors get the conforming preimage (what the vector pins as correct);
- jcs vs jcs-n (`action`): the jcs-n side, CPB's algorithm, the one the vector can refuse;
- derived identifiers: the preimage of the payload minus the exclusion set; a `carried_id` that
  is not the recomputed one is refused;
- stream reassembly and assembled preimages: the preimage of what is reassembled or assembled;
  an incomplete stream or an undeclared member mapping is refused;
- cpb-check records: exit 0 with `{"verdict": "verified"}` or exit 1 with the violations, on
  stdout as `{"verdict": "non-conforming", "violations": [...]}` (a negative verdict refuses);
- Execution Action Binding vectors (`preimage`): the JCS bytes, the digest as bare hex and the
  `binding` as `<alg>:<hex>` under the vector's `algorithm` (sha256 when it names none); a
  preimage that is not v1 or an unsupported algorithm is refused;
- typed references, registry look-ups and snapshots, profile independence: skipped. Their answer
  is a verifier's verdict against a registry, which the protocol has no field for.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import eab
from ..core.errors import FastJCSError
from ..core.hashing import hex_digest, raw_digest
from ..cpb import Vintage, assemble_preimage, check, reassemble_stream, verify_derived_identifier

# it answers vectors (records), jcs-n included: no withdrawal warning
from ..cpb import historical_pre_image as pre_image
from ..cpb import historical_pre_image_text as pre_image_text
from .cpb_vectors import Vector, claim
from .reader import NotAnObjectError, member_texts, read_document

OK, FAIL, SKIP = "ok", "fail", "skip"


@dataclass(frozen=True)
class Answer:
    status: str  # ok | fail | skip
    pre_image: bytes | None = None
    digest: str | None = None  # bare lowercase hex
    extra: dict[str, Any] = field(default_factory=dict)
    reason: str = ""  # why it was refused or skipped

    def render(self) -> tuple[bytes, int]:
        """(stdout bytes, exit status) under the protocol."""
        if self.status == SKIP:
            return b"", 0
        body: dict[str, Any] = {}
        if self.pre_image is not None:
            body["pre_image"] = self.pre_image.decode("utf-8")
            body["digest"] = self.digest
        body.update(self.extra)
        text = (json.dumps(body, ensure_ascii=False) + "\n").encode("utf-8") if body else b""
        return text, (0 if self.status == OK else 1)


def _digest(pre_image: bytes, **extra: Any) -> Answer:
    return Answer(OK, pre_image, hex_digest(pre_image), extra)


class VectorError(Exception):
    """The input is not a vector fastjcs can read (exit 2)."""


def answer(raw: bytes) -> Answer:
    """fastjcs's answer to one vector, given as the bytes of its JSON text."""
    try:
        doc = read_document(raw)
    except NotAnObjectError:
        raise VectorError("a vector is a JSON object") from None
    except ValueError as exc:
        raise VectorError(f"not a vector: {exc}") from exc
    try:
        if "preimage" in doc or "preimage_utf8" in doc:
            return _eab(doc)
        members = member_texts(raw)
        v = Vector(str(doc.get("id", "<stdin>")), Path("<stdin>"), doc, members)
        handler = claim(v)
        kind = handler.name if handler is not None else None
        try:
            if kind not in _KINDS:
                return Answer(SKIP, reason=f"{kind or 'unknown'} vectors are not answered")
            return _KINDS[kind](v)
        except FastJCSError as exc:
            return Answer(FAIL, reason=f"{type(exc).__name__}: {exc}")
    except (KeyError, TypeError, AttributeError, IndexError) as exc:
        raise VectorError(f"the vector lacks what its kind needs: {type(exc).__name__}: {exc}") from exc


def _kat(v: Any) -> Answer:
    doc = v.doc
    return _digest(
        pre_image_text(
            v.text("input"), algorithm=doc.get("algorithm", "jcs-n"), exclusion_set=doc.get("exclusion_set", [])
        )
    )


def _divergence(v: Any) -> Answer:
    return _digest(pre_image_text(v.text("action"), algorithm="jcs-n"))


def _derived_id(v: Any) -> Answer:
    doc = v.doc
    algorithm, exclusion = doc.get("algorithm", "jcs-n"), doc.get("exclusion_set", [])
    key = "sd_encoded_payload" if "sd_encoded_payload" in doc else "full_payload"
    if "carried_id" in doc:
        # the protocol answers bytes (the upstream harness of drafts -00/-01); vintage is not its question
        verify_derived_identifier(
            doc[key],
            doc["carried_id"],
            algorithm=algorithm,
            exclusion_set=exclusion,
            vintage=Vintage.pre_withdrawal_draft(),
        )
        return _digest(pre_image(doc[key], algorithm=algorithm, exclusion_set=exclusion))
    return _digest(pre_image_text(v.text(key), algorithm=algorithm, exclusion_set=exclusion))


def _stream(v: Any) -> Answer:
    doc = v.doc
    text = reassemble_stream(doc["source"])
    return _digest(
        pre_image_text(text, algorithm=doc.get("algorithm", "jcs-n"), exclusion_set=doc.get("exclusion_set", []))
    )


def _assembled(v: Any) -> Answer:
    doc = v.doc
    ctx = doc["declared_digest_context"]
    assembled = assemble_preimage(doc["source_object"], ctx.get("member_mapping"))
    algorithm = ctx.get("canonicalization_algorithm", doc.get("algorithm", "jcs-n"))
    return _digest(pre_image(assembled, algorithm=algorithm, exclusion_set=ctx.get("exclusion_set", [])))


def _checker(v: Any) -> Answer:
    payload = v.doc["record_raw"].encode("utf-8") if "record_raw" in v.doc else v.text("record")
    result = check(payload)
    body = {"verdict": result.verdict, "violations": [{"path": x.path, "rule": x.rule} for x in result.violations]}
    if result.violations:
        return Answer(FAIL, extra=body, reason="non-conforming")
    return Answer(OK, extra={"verdict": result.verdict})


def _eab(doc: dict[str, Any]) -> Answer:
    data: Any = doc["preimage_utf8"].encode("utf-8") if "preimage_utf8" in doc else doc["preimage"]
    algorithm = doc.get("algorithm", "sha256")
    disposition = eab.classify(data, algorithm)
    if disposition is not eab.Disposition.ACCEPT:
        return Answer(FAIL, reason=disposition.value)
    pre = eab.preimage(*eab.parse_preimage(data))
    return Answer(
        OK,
        pre,
        raw_digest(pre, algorithm).hex(),
        {"binding": eab.binding(*eab.parse_preimage(data), algorithm=algorithm)},
    )


_KINDS = {
    "jcs-n-kat": _kat,
    "jcs-vs-jcs-n": _divergence,
    "derived-id": _derived_id,
    "domain-transform": _stream,
    "assembled-preimage": _assembled,
    "cpb-check": _checker,
}
