#!/usr/bin/env node
// utf8conf encoder adapter for Node's UTF-8 encoders (protocol utf8conf/2, encode mode).
//
// Encoder, by the first argument:
//   textencoder  (default) `new TextEncoder().encode(string)` (WHATWG Encoding: a lone
//                surrogate is written as U+FFFD)
//   buffer       `Buffer.from(string, 'utf8')`
//
// Input: UTF-16 code units (`"encode": "utf16"`), made into a JavaScript string unit by
// unit with `String.fromCharCode`, so lone and reversed surrogates stay as they are (a
// JavaScript string is a sequence of UTF-16 code units). Neither API refuses anything,
// so every answer is `ok` with its bytes.
//
// Protocol (docs/PROTOCOL.md, "Encode mode"): a hello line, then for each frame (4-byte
// little-endian length N, then N bytes: N/2 code units, little-endian) one JSON line;
// exit 0 at end of input.
'use strict';

const MODES = ['textencoder', 'buffer'];
const mode = process.argv[2] || 'textencoder';
if (!MODES.includes(mode)) {
  process.stderr.write(`node_encode.js: mode must be one of ${MODES.join(', ')}\n`);
  process.exit(2);
}
const encoder = new TextEncoder();
const encode = mode === 'buffer' ? (s) => Buffer.from(s, 'utf8') : (s) => encoder.encode(s);

// Writes are queued by Node in order; `process.stdout.write` on a pipe is asynchronous,
// so the exit waits for them (the 'end' handler below exits only once they drained).
function write(line) {
  process.stdout.write(line + '\n');
}

write(JSON.stringify({
  protocol: 'utf8conf/2',
  name: `node-${mode}`,
  version: process.versions.node,
  encode: 'utf16',
}));

function toString(body) {
  const parts = [];
  const CHUNK = 8192;
  for (let start = 0; start + 1 < body.length; start += 2 * CHUNK) {
    const end = Math.min(body.length - (body.length % 2), start + 2 * CHUNK);
    const units = [];
    for (let i = start; i < end; i += 2) units.push(body[i] | (body[i + 1] << 8));
    parts.push(String.fromCharCode.apply(null, units));
  }
  return parts.join('');
}

let pending = Buffer.alloc(0);
let seq = 0;
process.stdin.on('data', (chunk) => {
  pending = Buffer.concat([pending, chunk]);
  for (;;) {
    if (pending.length < 4) return;
    const n = pending.readUInt32LE(0);
    if (pending.length < 4 + n) return;
    const body = pending.subarray(4, 4 + n);
    pending = pending.subarray(4 + n);
    let answer;
    if (n % 2) {
      answer = { seq, ok: false, error: 'odd frame length for UTF-16' };
    } else {
      answer = { seq, ok: true, bytes: Array.from(encode(toString(body))) };
    }
    write(JSON.stringify(answer));
    seq += 1;
  }
});
process.stdin.on('end', () => {
  process.stdout.end();
});
