"""One word per idea (docs/cpb.md, "Older names"): every older public name of fastjcs.cpb still
imports, as the very object its new name is, and both are in __all__."""

from __future__ import annotations

import pytest

from fastjcs import cpb

#: older name -> name, as docs/cpb.md lists them
OLDER_NAMES = {
    "pre_image": "preimage",
    "pre_image_text": "preimage_text",
    "historical_pre_image": "historical_preimage",
    "historical_pre_image_text": "historical_preimage_text",
    "RegistryFormatError": "SnapshotFormatError",
}


@pytest.mark.parametrize("old", sorted(OLDER_NAMES))
def test_an_older_name_is_the_same_object_as_its_new_name(old):
    new = OLDER_NAMES[old]
    assert getattr(cpb, old) is getattr(cpb, new)
    assert old in cpb.__all__ and new in cpb.__all__


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
