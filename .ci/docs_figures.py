#!/usr/bin/env python3
"""The docs check: every figure the docs quote that `utf8conf doc-figures` determines
(the number of check inputs, of taxonomy categories, of planted-bug decoders) must equal
it. `--check` lists each disagreement as FILE:LINE and exits 1; `--write` rewrites the
docs from the figures. The figures come on standard input, one `name value` per line.

Each figure is recognised by the words around it (the patterns below), so a doc that
quotes one must use those words: "351,716 check inputs", "10 of 18 categories",
"18 taxonomy categories", "25 decoders with planted bugs".
"""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = [
    "README.md",
    "adapters/README.md",
    "benches/README.md",
    "examples/crate-author/README.md",
    "fuzz/README.md",
    "vectors/README.md",
    *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md")),
]
PATTERNS = {
    "check-inputs": [r"(?P<v>\d{1,3}(?:,\d{3})+)\s+(?:`check`\s+|check\s+)inputs"],
    "categories": [r"\bof\s+(?P<v>\d+)\s+categories\b", r"\b(?P<v>\d+)\s+taxonomy\s+categories\b"],
    "planted-decoders": [r"\b(?P<v>\d+)\s+decoders\s+with\s+planted\s+bugs\b"],
}


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else "--check"
    figures = dict(line.split(None, 1) for line in sys.stdin.read().splitlines() if line.strip())
    figures = {name: value.strip() for name, value in figures.items()}
    missing = set(PATTERNS) - set(figures)
    if missing:
        sys.exit(f"docs-figures: utf8conf doc-figures did not print {', '.join(sorted(missing))}")
    wrong = []
    quoted = 0
    for name in DOCS:
        path = ROOT / name
        if not path.exists():
            continue
        text = path.read_text(encoding="utf-8")
        new = text
        for figure, patterns in PATTERNS.items():
            expected = figures[figure]
            for pattern in patterns:
                for match in re.finditer(pattern, text):
                    quoted += 1
                    if match.group("v") != expected:
                        line = text.count("\n", 0, match.start()) + 1
                        wrong.append(f"{name}:{line}: {figure} is {expected}, the doc says {match.group('v')}")

                def fix(match, expected=expected):
                    start, end = match.span("v")
                    whole = match.group(0)
                    offset = match.start()
                    return whole[: start - offset] + expected + whole[end - offset :]

                new = re.sub(pattern, fix, new)
        if mode == "--write" and new != text:
            path.write_text(new, encoding="utf-8")
    if mode == "--write":
        print(f"docs-figures: {quoted} quoted figures, {len(wrong)} rewritten")
        return
    for line in wrong:
        print(line)
    if wrong:
        print("docs-figures: the docs disagree with the code; run .ci/docs-figures.sh --write")
        sys.exit(1)
    print(f"docs-figures: {quoted} quoted figures agree with utf8conf doc-figures")


main()
