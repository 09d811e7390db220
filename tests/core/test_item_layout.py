"""The C path of `digest --jsonl` reads its failure records (fjcs_item) in one pass over their
bytes: the layout it reads is asked of cffi (offsetof, sizeof), so it follows the header when a
field moves. A hand-written struct string ("@iiNPNNNN48x", as before issue 25) would not."""

from __future__ import annotations

import struct

import pytest

cffi = pytest.importorskip("cffi")

#: The values written into each record, per field of ITEM_FIELDS (distinct, so a field read from
#: the wrong place shows).
VALUES = [(7, 3, 11 + k, 1000 + k, 50 + k, 9 + k, 4000 + k) for k in range(3)]


def _fill(ffi, ctype, values):
    from fastjcs.core.native_backend import ITEM_FIELDS

    items = ffi.new(f"{ctype}[]", len(values))
    for item, row in zip(items, values):
        for path, value in zip(ITEM_FIELDS, row):
            target = item
            for name in path[:-1]:
                target = getattr(target, name)
            setattr(target, path[-1], value)
    return items


def test_the_records_of_the_built_core_read_back(native):
    """Values written field by field through cffi into fjcs_item records are what the reader of
    the JSON Lines path gives back, in ITEM_FIELDS' order."""
    items = _fill(native.ffi, "fjcs_item", VALUES)
    assert list(native._read_items(native.ffi.buffer(items)[:])) == VALUES


# A layout where every field the reader reads has moved: the error record after the position
# fields, `start` after `len`, narrower and signed types, padding and the digest in between.
MOVED = """
typedef enum { E_OK = 0, E_LAST = 40 } code_t;
typedef struct { short pad; code_t code; unsigned char expected; long long offset; const char *message; } err_t;
typedef struct {
    unsigned char digest[13];
    unsigned int len;
    size_t out_at;
    err_t err;
    unsigned short index;
    unsigned long long start;
} moved_item;
"""


def test_a_moved_field_is_read_where_it_moved(native):
    """The reader built from a layout where the fields moved reads each from its new place; the
    old hand-written struct string reads something else from the same bytes (what it would have
    done after such a change to fastjcs.h)."""
    moved = cffi.FFI()
    moved.cdef(MOVED)
    items = _fill(moved, "moved_item", VALUES)
    data = moved.buffer(items)[:]
    assert list(native.item_reader(moved, "moved_item")(data)) == VALUES
    old = struct.Struct("@iiNPNNNN48x")
    try:
        by_hand = [r[:3] + r[4:] for r in old.iter_unpack(data)]
    except struct.error:  # not even a whole number of the old records
        by_hand = None
    assert by_hand != VALUES
    # the real header's reader is built by the same function
    assert list(native.item_reader(native.ffi)(native.ffi.buffer(_fill(native.ffi, "fjcs_item", VALUES))[:])) == VALUES
