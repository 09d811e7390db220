"""One argument order for the CPB digest functions (docs/cpb.md, "Digests and preimages"): the value
(or values) first, then keyword-only `algorithm`, then keyword-only `exclusion_set`."""

from __future__ import annotations

import inspect

import pytest
import rfc8785
from Crypto.Hash import SHA256

from fastjcs import cpb

VALUE = {"id": "x-1", "b": 1, "a": None}
TEXT = b'{"id": "x-1", "b": 1, "a": null}'

# name -> (the function, its leading positional arguments, the keyword-only names it must start with)
FUNCTIONS = {
    "canonical_digest": (cpb.canonical_digest, (VALUE,), ["algorithm", "exclusion_set"]),
    "canonical_digest_text": (cpb.canonical_digest_text, (TEXT,), ["algorithm", "exclusion_set"]),
    "preimage": (cpb.preimage, (VALUE,), ["algorithm", "exclusion_set"]),
    "preimage_text": (cpb.preimage_text, (TEXT,), ["algorithm", "exclusion_set"]),
    "artifact_digest": (cpb.artifact_digest, (VALUE,), ["algorithm", "exclusion_set"]),
    "derived_identifier": (cpb.derived_identifier, (VALUE,), ["algorithm", "exclusion_set"]),
    "verify_derived_identifier": (cpb.verify_derived_identifier, (VALUE, "0" * 64), ["algorithm", "exclusion_set"]),
    "normalize": (cpb.normalize, (VALUE,), ["exclusion_set"]),
    "ContextConstraints.check_value": (cpb.ContextConstraints().check_value, (VALUE,), ["exclusion_set"]),
}


def sha(b: bytes) -> str:
    return SHA256.new(b).hexdigest()


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_algorithm_and_exclusion_set_are_keyword_only_after_the_values(name):
    fn, values, keywords = FUNCTIONS[name]
    params = list(inspect.signature(fn).parameters.values())
    positional = [p for p in params if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD]
    keyword_only = [p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY]
    assert len(positional) == len(values)
    assert all(p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY) for p in params)
    assert keyword_only[: len(keywords)] == keywords  # same names, same order, right after the values
    for extra in ("jcs", ["id"]):  # an algorithm, then an exclusion set, by position
        with pytest.raises(TypeError, match="positional argument"):
            fn(*values, extra)


def test_the_value_parameters_are_named_alike():
    names = {
        name: [p for p in inspect.signature(fn).parameters if p not in ("algorithm", "exclusion_set")][: len(v)]
        for name, (fn, v, _) in FUNCTIONS.items()
    }
    assert names["canonical_digest"] == names["preimage"] == names["normalize"] == ["value"]
    assert names["canonical_digest_text"] == names["preimage_text"] == ["data"]
    assert names["derived_identifier"] == ["payload"]
    assert names["verify_derived_identifier"] == ["payload", "carried"]
    assert names["artifact_digest"] == ["artifact"]


def test_no_public_cpb_function_takes_algorithm_or_exclusion_set_by_position():
    """Anything public in fastjcs.cpb (functions, and methods of its classes) that has an `algorithm` or
    `exclusion_set` parameter has it keyword-only; constructors of records are not calls of this kind."""
    seen = []
    for name in cpb.__all__:
        obj = getattr(cpb, name)
        members = (
            [(name, obj)]
            if inspect.isfunction(obj)
            else [(f"{name}.{m}", f) for m, f in vars(obj).items() if not m.startswith("_") and inspect.isfunction(f)]
            if inspect.isclass(obj)
            else []
        )
        for qual, fn in members:
            for p in inspect.signature(fn).parameters.values():
                if p.name in ("algorithm", "exclusion_set"):
                    seen.append(qual)
                    assert p.kind is inspect.Parameter.KEYWORD_ONLY, (qual, p.name)
    assert {"canonical_digest", "derived_identifier", "normalize", "ContextConstraints.check_value"} <= set(seen)


def test_keywords_keep_their_meaning():
    """The values come from rfc8785 and SHA-256, not from the code under test."""
    rest = {"b": 1}  # jcs-n also drops the null member
    kept = {"b": 1, "a": None}  # jcs (the default since draft -06) keeps it
    assert cpb.preimage(VALUE, algorithm="jcs", exclusion_set=["id"]) == rfc8785.dumps(kept)
    assert cpb.preimage_text(TEXT, exclusion_set=["id"]) == rfc8785.dumps(kept)
    assert cpb.historical_preimage_text(TEXT, algorithm="jcs-n", exclusion_set=["id"]) == rfc8785.dumps(rest)
    assert cpb.canonical_digest(VALUE, exclusion_set=["id"]) == sha(rfc8785.dumps(kept))
    assert cpb.canonical_digest_text(TEXT, algorithm="jcs") == sha(rfc8785.dumps(VALUE))
    assert cpb.artifact_digest(TEXT, algorithm="jcs-n", exclusion_set=["id"]) == sha(rfc8785.dumps(rest))
    want = sha(rfc8785.dumps({"b": 1, "a": None}))
    assert cpb.derived_identifier(VALUE, algorithm="jcs", exclusion_set=["id"]) == want
    assert cpb.verify_derived_identifier(VALUE, want, algorithm="jcs", exclusion_set=["id"]) == want
    assert cpb.normalize(VALUE, exclusion_set=["id"]) == rest
