#!/usr/bin/env python3
"""Prints a Markdown summary of utf8conf's junit.xml files (for $GITHUB_STEP_SUMMARY):
totals, then one row per failed test case with its message, and each failure's details
(witness, reference explanation, reproduce command) folded.

Usage: junit_summary.py FILE... (standard library only: it runs on any runner).
Exit 0; 2 when a file cannot be read or is not JUnit XML (one line on stderr)."""

import sys
import xml.etree.ElementTree as ET

LIMIT = 50  # failed cases listed per file; the rest are counted


def cell(text):
    """Text made safe for one Markdown table cell."""
    return " ".join((text or "").split()).replace("|", "\\|").replace("<", "&lt;")[:300]


def summarise(path):
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    cases = [case for suite in suites for case in suite.findall("testcase")]
    failed = [case for case in cases if case.find("failure") is not None or case.find("error") is not None]
    skipped = [case for case in cases if case.find("skipped") is not None]
    lines = [
        f"### utf8conf: {path}",
        "",
        f"{len(cases)} test cases: {len(cases) - len(failed) - len(skipped)} passed, "
        f"{len(failed)} failed, {len(skipped)} skipped",
        "",
    ]
    if failed:
        lines += ["| decoder | case | finding |", "| --- | --- | --- |"]
        for case in failed[:LIMIT]:
            problem = case.find("failure")
            if problem is None:
                problem = case.find("error")
            lines.append(f"| {cell(case.get('classname'))} | {cell(case.get('name'))} | {cell(problem.get('message'))} |")
        if len(failed) > LIMIT:
            lines.append(f"| | | and {len(failed) - LIMIT} more |")
        lines += ["", "<details><summary>Witnesses and reproduction commands</summary>", "", "```"]
        for case in failed[:LIMIT]:
            problem = case.find("failure")
            if problem is None:
                problem = case.find("error")
            lines.append(f"{case.get('classname')} / {case.get('name')}:")
            lines.append((problem.text or "").replace("```", "'''").rstrip())
        lines += ["```", "", "</details>", ""]
    return "\n".join(lines)


def main(paths):
    if not paths:
        sys.stderr.write("usage: junit_summary.py FILE...\n")
        return 2
    for path in paths:
        try:
            print(summarise(path))
        except (OSError, ET.ParseError) as error:
            sys.stderr.write(f"junit_summary: {path}: {error}\n")
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
