#!/usr/bin/env node
// utf8conf adapter for Node.js's WHATWG TextDecoder (protocol utf8conf/1).
//
// Decoder: `new TextDecoder('utf-8', options)` as built into Node.js (the WHATWG
// Encoding Standard API; Node implements it over ICU or simdutf depending on build
// and version, which is why the hello line names both Node's and ICU's versions).
//
// Modes (first argument):
//   fatal    `new TextDecoder('utf-8', { fatal: true })`
//              valid        decode() returned instead of throwing
//              scalars      only when valid: the code points of the returned string
//              error        the thrown error's message
//              valid_up_to, error_len: ABSENT. The fatal decoder throws a TypeError
//              that carries no position or length, and this adapter does not
//              compute one itself.
//   replace  `new TextDecoder('utf-8')` (the default, fatal: false)
//              scalars      the code points of the returned string (U+FFFD where the
//              decoder substituted)
//              valid        from a fatal decoder on the same bytes (the replacing
//              decoder does not say whether it substituted)
//              valid_up_to, error_len: ABSENT, as above.
//
// BOM: both decoders are constructed with the default `ignoreBOM: false`, so a
// leading EF BB BF is stripped from the output ("BOM sniffing" in the Encoding
// Standard's decode). That is the behaviour people get from TextDecoder, so the
// adapter reports it as is; the harness classifies it as a BOM-stripping wrapper
// policy rather than a decoding error.
//
// Protocol: a hello line, then for each frame (4-byte little-endian length N, then
// N bytes) exactly one JSON line; exit 0 at end of input. Lines are written with
// fs.writeSync, so each is out of the process before the next frame is read.
'use strict';

const fs = require('fs');

const MODES = ['fatal', 'replace'];
const mode = process.argv[2] === undefined ? 'fatal' : process.argv[2];
if (!MODES.includes(mode) || process.argv.length > 3) {
  process.stderr.write('usage: node.js [fatal|replace]\n');
  process.exit(2);
}

const fatalDecoder = new TextDecoder('utf-8', { fatal: true });
const replacingDecoder = new TextDecoder('utf-8');

// Writes one line to stdout synchronously. If the harness handed us a non-blocking
// pipe, writeSync can fail with EAGAIN while the pipe is full: retry the rest.
function writeLine(value) {
  const line = Buffer.from(JSON.stringify(value) + '\n', 'utf8');
  let written = 0;
  while (written < line.length) {
    try {
      written += fs.writeSync(1, line, written, line.length - written);
    } catch (failure) {
      if (failure.code !== 'EAGAIN') {
        throw failure;
      }
    }
  }
}

// The code points of a string. TextDecoder output is always well-formed UTF-16,
// so iterating by code point yields exactly the decoded scalar values.
function scalarsOf(text) {
  const scalars = [];
  for (const ch of text) {
    scalars.push(ch.codePointAt(0));
  }
  return scalars;
}

function answer(bytes) {
  let text;
  try {
    text = fatalDecoder.decode(bytes);
  } catch (failure) {
    if (mode === 'fatal') {
      return { valid: false, error: String(failure && failure.message) };
    }
    return { valid: false, scalars: scalarsOf(replacingDecoder.decode(bytes)) };
  }
  if (mode === 'fatal') {
    return { valid: true, scalars: scalarsOf(text) };
  }
  return { valid: true, scalars: scalarsOf(replacingDecoder.decode(bytes)) };
}

writeLine({
  protocol: 'utf8conf/1',
  name: 'node-' + mode,
  version: 'node ' + process.versions.node + ' icu ' + (process.versions.icu || 'none'),
});

// Frames arrive in arbitrary chunks; keep the unconsumed bytes and cut whole frames.
let pending = Buffer.alloc(0);
process.stdin.on('data', (chunk) => {
  pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
  let start = 0;
  while (pending.length - start >= 4) {
    const length = pending.readUInt32LE(start);
    if (pending.length - start - 4 < length) {
      break;
    }
    const body = pending.subarray(start + 4, start + 4 + length);
    writeLine(answer(body));
    start += 4 + length;
  }
  pending = pending.subarray(start);
});
process.stdin.on('end', () => {
  if (pending.length !== 0) {
    process.stderr.write('node.js: end of input inside a frame\n');
    process.exit(2);
  }
  process.exit(0);
});
