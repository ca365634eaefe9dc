#!/usr/bin/env node
// utf8conf adapter for Node.js's WHATWG TextDecoder (protocol utf8conf/2; streaming in
// replace mode).
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
// Streaming mode (replace mode only; docs/PROTOCOL.md): an input sent as chunk frames
// goes through one `new TextDecoder('utf-8')` per input: each chunk is fed with
// `decode(chunk, { stream: true })`, the end mark calls `decode()` (end of stream);
// what each call returned is the chunk's `emitted` list and the `flush`. `valid` comes
// from a `{ fatal: true }` TextDecoder fed the same chunks the same way: false when any
// of its calls threw (the replacing decoder reports errors only by substituting).
// Fatal mode does not offer streaming: a throwing decode returns nothing, so there is
// no per-chunk output to report.
//
// Protocol: a hello line, then for each frame (4-byte little-endian length N, then
// N bytes) exactly one JSON line with its `seq`; exit 0 at end of input. A header with
// the top bit set is a chunk of a streamed input, 0xFFFFFFFF its end mark. Lines are
// written with fs.writeSync, so each is out of the process before the next frame is
// read.
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

// One streamed input: a replacing and a fatal TextDecoder fed the same chunks.
class Stream {
  constructor() {
    this.replacing = new TextDecoder('utf-8');
    this.fatal = new TextDecoder('utf-8', { fatal: true });
    this.valid = true;
    this.emitted = [];
  }

  // Runs the fatal decoder's call; after its first throw it is not fed again.
  checkFatal(call) {
    if (!this.valid) {
      return;
    }
    try {
      call(this.fatal);
    } catch (failure) {
      this.valid = false;
    }
  }

  // `decode(chunk, { stream: true })`: what it returned is the chunk's list.
  feed(chunk) {
    this.emitted.push(scalarsOf(this.replacing.decode(chunk, { stream: true })));
    this.checkFatal((decoder) => decoder.decode(chunk, { stream: true }));
  }

  // `decode()`, the end of the stream, and the answer.
  finish() {
    const flush = scalarsOf(this.replacing.decode());
    this.checkFatal((decoder) => decoder.decode());
    return { valid: this.valid, emitted: this.emitted, flush };
  }
}

// Streaming mode's frame headers (docs/PROTOCOL.md, "Streaming mode").
const CHUNK_FLAG = 0x80000000;
const END_MARK = 0xffffffff;
const streaming = mode === 'replace';

writeLine({
  protocol: 'utf8conf/2',
  name: 'node-' + mode,
  version: 'node ' + process.versions.node + ' icu ' + (process.versions.icu || 'none'),
  streaming,
});

let seq = 0;
let stream = null;

function reply(fields) {
  fields.seq = seq;
  seq += 1;
  writeLine(fields);
}

// Frames arrive in arbitrary pieces; keep the unconsumed bytes and cut whole frames.
let pending = Buffer.alloc(0);
process.stdin.on('data', (piece) => {
  pending = pending.length === 0 ? piece : Buffer.concat([pending, piece]);
  let start = 0;
  while (pending.length - start >= 4) {
    const header = pending.readUInt32LE(start);
    if (header === END_MARK && streaming) {
      reply((stream || new Stream()).finish());
      stream = null;
      start += 4;
      continue;
    }
    const chunked = streaming && (header & CHUNK_FLAG) !== 0;
    const length = chunked ? header - CHUNK_FLAG : header;
    if (pending.length - start - 4 < length) {
      break;
    }
    const body = pending.subarray(start + 4, start + 4 + length);
    if (chunked) {
      stream = stream || new Stream();
      stream.feed(body);
    } else {
      reply(answer(body));
    }
    start += 4 + length;
  }
  pending = pending.subarray(start);
});
process.stdin.on('end', () => {
  if (pending.length !== 0 || stream !== null) {
    process.stderr.write('node.js: end of input inside a frame or a streamed input\n');
    process.exit(2);
  }
  process.exit(0);
});
