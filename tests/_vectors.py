"""Loading the data files under vectors/ (their schema is in vectors/README.md)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import VECTORS


def load(relpath: str) -> dict[str, Any]:
    with open(VECTORS / relpath, encoding="utf-8") as f:
        return json.load(f)


def cases(directory: str) -> list[Any]:
    """Every vector of every file in vectors/<directory>/, as pytest params with readable ids."""
    params = []
    for path in sorted((VECTORS / directory).glob("*.json")):
        for v in load(f"{directory}/{path.name}")["vectors"]:
            params.append(pytest.param(v, id=f"{path.stem}: {v['name']}"))
    assert params, f"no vectors in {directory}"
    return params


def _parts(parts: list[list[Any]]) -> str:
    return "".join(text * count for text, count in parts)


def input_of(v: dict[str, Any]) -> bytes | str:
    """The text to canonicalize: bytes, except for `input_str` vectors (passed as a str)."""
    if "input_hex" in v:
        return bytes.fromhex(v["input_hex"])
    if "input_str" in v:
        return v["input_str"]
    if "input_parts" in v:
        return _parts(v["input_parts"]).encode("utf-8")
    return v["input"].encode("utf-8")


def output_of(v: dict[str, Any]) -> bytes:
    if "output_parts" in v:
        return _parts(v["output_parts"]).encode("utf-8")
    return v["output"].encode("utf-8")
