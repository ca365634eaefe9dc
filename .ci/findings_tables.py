#!/usr/bin/env python3
"""The per-adapter finding tables of docs/FINDINGS.md ("Real decoders"), from a matrix.

Usage: findings_tables.py MATRIX_DIR DECODER...

Prints, for each DECODER checked in MATRIX_DIR (`utf8conf check --all --out MATRIX_DIR`),
its heading and one row per finding of its report: the title, the categories, the
witness and the distinct departures filed under it (`occurrences`: departures of one signature count once). The tables in
docs/FINDINGS.md are this script's output, pasted; regenerate them after a change to
the diagnosis.
"""

import json
import pathlib
import sys


def table(report):
    rows = ["| Finding | Categories | Witness | Departures |", "|---|---|---|---|"]
    for finding in report["findings"]:
        title = finding["title"].replace("|", "\\|")
        categories = ", ".join(finding["categories"])
        rows.append(
            f"| {title} | {categories} | `{finding['witness_hex']}` | {finding['occurrences']:,} |"
        )
    return "\n".join(rows)


def main():
    matrix = pathlib.Path(sys.argv[1])
    for decoder in sys.argv[2:]:
        path = matrix / decoder / "conformance.json"
        if not path.is_file():
            print(f"{decoder}: no report in {matrix}", file=sys.stderr)
            return 1
        report = json.loads(path.read_text(encoding="utf-8"))
        print(f"### {decoder}\n\n{table(report)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
