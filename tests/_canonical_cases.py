"""Texts in canonical form and texts that only look so, for the tests of the canonical check
(csrc/canonical.c): tests/c/test_canonical_lines.py (the check itself, and the JSON Lines batch
that uses it) and tests/core/test_canonical_texts.py (the single-text calls that use it).
"""

from __future__ import annotations

#: Lines in canonical form (each is rfc8785's output for itself, checked below): the check takes them.
CANONICAL = [
    b"{}",
    b"[]",
    b"0",
    b"-1",
    b"123456789012345",  # 15 digits: exact in a double, written as it is
    b"-0.5",
    b"27059.92",
    b"0.000001",  # ECMAScript's last fixed-notation small number
    b"0.30000000000000004",  # 17 significant digits, the double's shortest
    b"0.9863040428527252",  # 16
    b"-170.378431705384",
    b"true",
    b"false",
    b"null",
    b'""',
    b'"\\"\\\\\\b\\f\\n\\r\\t"',  # the short escapes, as the canonical writer writes them
    b'"\\u0000\\u001f\\u000b"',  # controls without one: \\u00xx, lowercase
    b'"\x7f caf\xc3\xa9 \xe5\xb7\xa5 \xf0\x9f\x98\x80"',  # DEL and UTF-8 as they are
    b'{"":0,"a":1,"aa":2,"b":[1,{"x":null}]}',
    b'{"\xf0\x9f\x98\x80":2,"\xee\x80\x80":1}',  # U+1F600 (surrogates D83D DE00) before U+E000
    b'{"a":{"b":{"c":[[],{}]}},"b":"x"}',
    b'[{"b":1,"c":2},{"a":3}]',  # each object's names in order; the next object starts afresh
    b'{"action_scope":"alpha:bravo/1","agent_id":"agent-1","domain":"x","version":1}',
]

#: (line, the wrong check that would take it): near-canonical lines the check must refuse.
NEAR = [
    (b'{"b":1,"a":2}', "names not compared"),
    (b'{"a":1,"a":1}', "a name equal to the one before it taken (a duplicate: an error)"),
    (b'{"a":{"c":1,"b":2}}', "names compared at the top level only"),
    (b'{"b":{"a":1},"a":2}', "the name before a nested object lost when it closes"),
    (b'{"\xee\x80\x80":1,"\xf0\x9f\x98\x80":2}', "names in UTF-8 byte order (memcmp), not UTF-16"),
    (b'{"a":1,"B":2}', "names compared without case"),
    (b'{"\\u0061":1}', "an escape in a name (its unescaped form is another name)"),
    (b'{"a":1,"\\u0062":2,"b":3}', "a name's escaped bytes compared"),
    (b"1.50", "a trailing zero after the point"),
    (b"1.0", "an integral decimal (ECMAScript writes 1)"),
    (b"-0", "negative zero (written 0)"),
    (b"-0.0", "negative zero with a point"),
    (b"0.0000001", "six zeros after the point (ECMAScript writes 1e-7)"),
    (b"1e2", "an exponent (ECMAScript writes 100)"),
    (b"1E+21", "a capital exponent"),
    (b"0.10000000000000001", "17 digits that are not the shortest (0.1)"),
    (b"0.30000000000000005", "17 digits of a double whose shortest are other digits"),
    (b"1234567890123456", "16 digits of an integer taken as they are"),
    (b"12345678901234567890", "a long integer (written 12345678901234567000)"),
    (b"01", "a leading zero (an error)"),
    (b'"\\/"', "an escaped solidus (written /)"),
    (b'"\\u0041"', "an escape of a plain character (written A)"),
    (b'"\\u001F"', "a capital hex digit in \\u00xx"),
    (b'"\\u000a"', "\\u000a for a control with a short escape (written \\n)"),
    (b'"\\u0022"', '\\u0022 for a quote (written \\")'),
    (b'"\\ud83d\\ude00"', "an escaped surrogate pair (written as UTF-8)"),
    (b'"a\x01"', "a raw control (an error)"),
    (b'"\xc3"', "a cut UTF-8 sequence (an error)"),
    (b'"\xed\xa0\x80"', "an encoded surrogate (an error)"),
    (b'"\xc0\xaf"', "an overlong sequence (an error)"),
    (b'{"a":1} ', "a trailing space"),
    (b' {"a":1}', "a leading space"),
    (b'{"a":1}\r', "a CR before the newline (CRLF lines)"),
    (b'{"a": 1}', "a space after the colon"),
    (b'{"a":1, "b":2}', "a space after the comma"),
    (b"[1,2 ]", "a space before the bracket"),
    (b"[1,]", "a trailing comma (an error)"),
    (b'{"a":1,}', "a trailing comma in an object (an error)"),
    (b'{"a"}', "a name without a value (an error)"),
    (b"[1", "an unclosed array (an error)"),
    (b'{"a":1}]', "a closing bracket too many (an error)"),
    (b"[1}", "a bracket of the other kind (an error)"),
    (b"tru", "a cut literal (an error)"),
    (b"nul", "a cut literal (an error)"),
    (b"[]1", "two values (an error)"),
    (b"", "no value (an error)"),
]
