// A JavaScript JCS peer behind the fastjcs canon batch protocol (v1).
//
// Usage: node adapter.mjs PACKAGE   (canonicalize | json-canonicalize | @truestamp/canonify)
// stdin: one base64 document per line; stdout: "ok <base64 canonical bytes>" or "error <text>" per
// line, in order. A document is decoded as a Node user would: Buffer -> toString('utf8') (invalid
// UTF-8 becomes U+FFFD, a BOM stays and JSON.parse refuses it) -> JSON.parse -> the package's
// function; the returned string is written back as UTF-8.
import { createInterface } from 'node:readline';

const ENTRY = {
  canonicalize: (m) => m.default,
  'json-canonicalize': (m) => m.canonicalize,
  '@truestamp/canonify': (m) => m.canonify,
};

const name = process.argv[2];
if (!(name in ENTRY)) {
  process.stderr.write(`usage: adapter.mjs ${Object.keys(ENTRY).join('|')}\n`);
  process.exit(2);
}
const canonicalize = ENTRY[name](await import(name));

function answer(line) {
  try {
    const text = Buffer.from(line, 'base64').toString('utf8');
    const out = canonicalize(JSON.parse(text));
    if (typeof out !== 'string') return `error ${name} returned ${typeof out}`;
    return `ok ${Buffer.from(out, 'utf8').toString('base64')}`;
  } catch (e) {
    return `error ${String(e && e.message !== undefined ? e.message : e).replace(/\s+/g, ' ')}`;
  }
}

// Writes to a pipe are synchronous on Linux, so every answer leaves before the next line is read.
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  process.stdout.write(answer(line) + '\n');
}
