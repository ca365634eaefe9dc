#!/usr/bin/env python3
"""The README's table of findings per shipped adapter against a `check --all` matrix.

Usage: adapter_findings.py MATRIX_DIR [README]

Each row of the table under "On the shipped adapters" names one or more decoders
(`perl-strict` / `perl-lax`, or `python*` for every decoder whose name starts so, or
"every built-in decoder") and, in its second cell, their finding counts in the same order
("10 / 8"; one number applies to all of them; an empty cell quotes no count). Every
decoder the matrix checked and the README quotes a count for must have exactly that many
findings in its report; a decoder the matrix skipped (its toolchain is missing) is named
and passed over. Exits 1, listing each disagreement, otherwise 0.
"""

import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
HEADING = "On the shipped adapters"


def table_rows(readme):
    text = readme.read_text(encoding="utf-8")
    start = text.index(HEADING)
    rows = []
    for line in text[start:].splitlines()[1:]:
        if rows and not line.startswith("|"):
            break
        if not line.startswith("|") or line.startswith("|---") or line.startswith("| adapter"):
            continue
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows.append((cells[0], cells[1]))
    return rows


def main():
    matrix_dir = pathlib.Path(sys.argv[1])
    readme = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT / "README.md"
    matrix = json.loads((matrix_dir / "matrix.json").read_text(encoding="utf-8"))
    counts, kinds = {}, {}
    for row in matrix["decoders"]:
        report = matrix_dir / row["report"]  # an absolute path replaces matrix_dir
        if report.is_dir():
            report = report / "conformance.json"
        counts[row["name"]] = len(json.loads(report.read_text(encoding="utf-8"))["findings"])
        kinds[row["name"]] = row["kind"]
    skipped = {entry["name"] for entry in matrix.get("skipped", [])}

    wrong, compared = [], 0
    for names_cell, count_cell in table_rows(readme):
        if not count_cell:
            continue
        numbers = [int(n) for n in re.findall(r"\d+", count_cell)]
        names = re.findall(r"`([^`]+)`", names_cell)
        if "every built-in decoder" in names_cell:
            names.append("<built-in>")
        if len(numbers) == 1:
            numbers = numbers * len(names)
        if len(numbers) != len(names):
            wrong.append(f"README row '{names_cell}': {len(names)} names, {len(numbers)} counts")
            continue
        for name, expected in zip(names, numbers):
            if name == "<built-in>":
                matched = [n for n, kind in kinds.items() if kind == "builtin"]
            elif name.endswith("*"):
                matched = [n for n in counts if n.startswith(name[:-1])]
            else:
                matched = [name] if name in counts else []
            if not matched:
                if name in skipped or name.endswith("*") or name == "<built-in>":
                    print(f"adapter findings: {name} was not checked here (skipped), not compared")
                    continue
                wrong.append(f"README names `{name}`, which the matrix has not checked")
                continue
            for decoder in matched:
                compared += 1
                if counts[decoder] != expected:
                    wrong.append(f"{decoder}: README says {expected} findings, the check gives {counts[decoder]}")
    for line in wrong:
        print(line)
    if wrong:
        print(f"adapter findings: {len(wrong)} disagreement(s) between README.md and {matrix_dir}/matrix.json")
        return 1
    print(f"adapter findings: {compared} decoders, each as many findings as README.md says")
    return 0


if __name__ == "__main__":
    sys.exit(main())
