"""A deliberately wrong canonicalizer for `fastjcs crosscheck` tests (the canon protocol).

JSON text on stdin, "canonical" bytes on stdout: json.loads, then json.dumps with sorted keys and
compact separators, the construction docs/contract.md ("What is not JCS") names. It sorts by code point (not UTF-16
code units), writes Python's float repr (1e-07, 1e+16, 1.0, -0.0) and keeps big integers exact.
With --ascii it also escapes every non-ASCII character (\\u00e9), as ensure_ascii=True does.
"""

import json
import sys

if __name__ == "__main__":
    ascii_only = "--ascii" in sys.argv[1:]
    value = json.loads(sys.stdin.buffer.read())
    sys.stdout.buffer.write(
        json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=ascii_only).encode("utf-8")
    )
