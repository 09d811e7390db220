"""One word per idea (docs/cpb.md, "Older names"): every older public name of fastjcs.cpb still
imports, as the very object its new name is, and both are in __all__."""

from __future__ import annotations

import importlib

import pytest

from fastjcs import cpb

#: older name -> name, as docs/cpb.md lists them
OLDER_NAMES = {
    "pre_image": "preimage",
    "pre_image_text": "preimage_text",
    "historical_pre_image": "historical_preimage",
    "historical_pre_image_text": "historical_preimage_text",
    "RegistryFormatError": "SnapshotFormatError",
    "ALGORITHMS": "CANONICALIZATIONS",
    "DEFAULT_ALGORITHM": "DEFAULT_CANONICALIZATION",
    "Algorithm": "Canonicalization",
    "get_algorithm": "get_canonicalization",
    "AlgorithmEntry": "CanonicalizationEntry",
    "UnknownAlgorithmError": "UnknownCanonicalizationError",
    "WithdrawnAlgorithmError": "WithdrawnCanonicalizationError",
    "AlgorithmUsageError": "CanonicalizationUsageError",
    "WithdrawnAlgorithmWarning": "WithdrawnCanonicalizationWarning",
}


@pytest.mark.parametrize("old", sorted(OLDER_NAMES))
def test_an_older_name_is_the_same_object_as_its_new_name(old):
    new = OLDER_NAMES[old]
    assert getattr(cpb, old) is getattr(cpb, new)
    assert old in cpb.__all__ and new in cpb.__all__


@pytest.mark.parametrize(
    ("module", "old", "new"),
    [
        ("fastjcs.cpb.errors", "UnknownAlgorithmError", "UnknownCanonicalizationError"),
        ("fastjcs.cpb.errors", "WithdrawnAlgorithmError", "WithdrawnCanonicalizationError"),
        ("fastjcs.cpb.errors", "AlgorithmUsageError", "CanonicalizationUsageError"),
        ("fastjcs.cpb.errors", "WithdrawnAlgorithmWarning", "WithdrawnCanonicalizationWarning"),
        ("fastjcs.cpb.errors", "RegistryFormatError", "SnapshotFormatError"),
        ("fastjcs.cpb.registry", "AlgorithmEntry", "CanonicalizationEntry"),
    ],
)
def test_the_public_modules_keep_their_older_names_too(module, old, new):
    mod = importlib.import_module(module)
    assert getattr(mod, old) is getattr(mod, new) is getattr(cpb, new)


def test_one_word_per_idea_algorithm_is_a_hash_canonicalization_is_cpbs():
    """`fastjcs.ALGORITHMS` (hashes) and `fastjcs.cpb.CANONICALIZATIONS` (jcs, jcs-n, ...) name
    different things with different words; the old `cpb.ALGORITHMS` is only an alias."""
    import fastjcs

    assert set(fastjcs.ALGORITHMS) == {"sha256", "sha384"}
    assert set(cpb.CANONICALIZATIONS) == {"jcs", "jcs-n", "as-transmitted", "cde-n"}
    assert all(isinstance(c, cpb.Canonicalization) for c in cpb.CANONICALIZATIONS.values())
    assert cpb.get_canonicalization(cpb.DEFAULT_CANONICALIZATION).name == "jcs"
    with pytest.raises(cpb.UnknownCanonicalizationError, match="unknown canonicalization"):
        cpb.get_canonicalization("sha256")


def test_docs_list_every_older_name():
    from conftest import REPO

    doc = (REPO / "docs" / "cpb.md").read_text(encoding="utf-8")
    section = doc.split("## Older names", 1)[1]
    listed = {
        cells[0].strip("` "): cells[1].strip(" ").split("`")[1]
        for line in section.splitlines()
        if line.startswith("| `") and len(cells := line.strip("|").split("|")) == 2
    }
    assert listed == OLDER_NAMES


def test_the_two_registry_format_errors_are_two_names_now():
    """cpb's snapshot error and eab's execution-registry error were both `RegistryFormatError`:
    unrelated classes, so `from fastjcs.eab import *` then `from fastjcs.cpb import *` swapped one
    for the other. cpb's has its own name; `except eab.RegistryFormatError` does not catch it."""
    from fastjcs import eab

    assert cpb.SnapshotFormatError is not eab.RegistryFormatError
    assert not issubclass(cpb.SnapshotFormatError, eab.RegistryError)
    assert "SnapshotFormatError" not in eab.__all__
    with pytest.raises(cpb.SnapshotFormatError, match="upstream format|registry"):
        cpb.Registry.from_json(b"[]")
