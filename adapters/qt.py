#!/usr/bin/env python3
"""utf8conf adapter for Qt's UTF-8 codec through PyQt5 (protocol utf8conf/1).

Decoder: QTextCodec.codecForName("UTF-8") (Qt 5's QUtf8 converter, the one behind
QString::fromUtf8), reached through PyQt5. Debian packages PyQt5 for its own
/usr/bin/python3 (python3-pyqt5), which need not be the python3 first on PATH;
adapters/qt.sh picks an interpreter that can import PyQt5.

Fields:
  scalars  codec.toUnicode(data) without a converter state: the lossy decode, U+FFFD
           where Qt substituted (an incomplete sequence at the end included). Qt
           drops a leading byte order mark unless told not to; that is what Qt users
           get, and the harness classifies it as BOM stripping.
  valid    the same bytes decoded with a ConverterState whose flag is
           ConvertInvalidToNull, under which Qt writes U+0000 instead of U+FFFD for
           what it rejects and holds back an incomplete sequence at the end: the
           input is valid exactly when that decode equals the plain one (a U+0000
           or U+FFFD already in the input is the same in both).

Cannot report: valid_up_to and error_len (PyQt5 does not expose the converter
state's invalidChars/remainingChars, and Qt reports no positions).

Protocol: a hello line, then for each frame (4-byte little-endian length N, then N
bytes) exactly one JSON line, flushed; exit 0 at end of input.
"""

import json
import sys

from PyQt5.QtCore import PYQT_VERSION_STR, QT_VERSION_STR, QTextCodec


def answer(codec, data):
    """One protocol answer for `data`."""
    plain = codec.toUnicode(data)
    flagged = codec.toUnicode(data, QTextCodec.ConverterState(QTextCodec.ConvertInvalidToNull))
    return {"valid": flagged == plain, "scalars": [ord(ch) for ch in plain]}


def main(argv):
    if len(argv) > 1:
        sys.stderr.write("usage: qt.py\n")
        return 2
    codec = QTextCodec.codecForName(b"UTF-8")
    if codec is None:
        sys.stderr.write("qt.py: Qt has no UTF-8 codec\n")
        return 2
    stdin = sys.stdin.buffer
    stdout = sys.stdout
    hello = {
        "protocol": "utf8conf/1",
        "name": "qt",
        "version": f"Qt {QT_VERSION_STR} PyQt5 {PYQT_VERSION_STR}",
    }
    stdout.write(json.dumps(hello) + "\n")
    stdout.flush()
    while True:
        header = stdin.read(4)
        if not header:
            return 0
        if len(header) != 4:
            sys.stderr.write("qt.py: end of input inside a frame header\n")
            return 2
        length = int.from_bytes(header, "little")
        data = stdin.read(length)
        if len(data) != length:
            sys.stderr.write("qt.py: end of input inside a frame body\n")
            return 2
        stdout.write(json.dumps(answer(codec, data), separators=(",", ":")) + "\n")
        stdout.flush()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
