#!/usr/bin/env python3
"""Validates utf8conf's CI formats with independent readers (for .ci/ci-formats.sh):

- a SARIF log against the SARIF 2.1.0 JSON Schema (schemas/sarif-schema-2.1.0.json, the
  OASIS schema, draft-04) with the `jsonschema` package, plus what code scanning needs:
  every result's ruleId among the driver's rules (and ruleIndex pointing at it), a
  partialFingerprints id, and a location;
- a JUnit file read with `junitparser`;
- the report schemas in schemas/ against the meta-schema of the draft each declares
  (`jsonschema`'s `check_schema`): the Rust tests validate reports with a validator of
  the keywords the schemas use, and this checks that the schemas are JSON Schema at all.

Usage:
  validate_formats.py schemas [FILE]...   (default: every schemas/*.json)
  validate_formats.py sarif FILE [--rule RULE]...  [--min-results N]
  validate_formats.py junit FILE [--failed CLASSNAME/NAME]... [--passed CLASSNAME]... [--min-failures N]
Exit 0 when valid and every expectation holds, 1 otherwise (reasons on stderr)."""

import argparse
import json
import pathlib
import sys

SCHEMA = pathlib.Path(__file__).resolve().parent.parent / "schemas" / "sarif-schema-2.1.0.json"


def check_sarif(args):
    import jsonschema

    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    log = json.loads(pathlib.Path(args.file).read_text(encoding="utf-8"))
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())
    problems = [f"schema: {error.message} at /{'/'.join(map(str, error.absolute_path))}"
                for error in validator.iter_errors(log)]
    results = []
    for run in log.get("runs", []):
        rules = [rule["id"] for rule in run["tool"]["driver"].get("rules", [])]
        for result in run.get("results", []):
            results.append(result)
            rule = result.get("ruleId")
            if rule not in rules:
                problems.append(f"result ruleId {rule!r} is not among the driver's rules")
            elif result.get("ruleIndex") is not None and rules[result["ruleIndex"]] != rule:
                problems.append(f"result ruleIndex {result['ruleIndex']} is not rule {rule!r}")
            if not result.get("partialFingerprints"):
                problems.append(f"result {rule!r} has no partialFingerprints")
            if not result.get("locations"):
                problems.append(f"result {rule!r} has no location")
    if len(results) < args.min_results:
        problems.append(f"{len(results)} results, expected at least {args.min_results}")
    found = {result.get("ruleId") for result in results}
    problems += [f"no result under rule {rule}" for rule in args.rule if rule not in found]
    return problems, f"{len(results)} results, rules {sorted(found)}"


def check_schemas(args):
    import jsonschema

    files = args.files or sorted(SCHEMA.parent.glob("*.json"))
    problems = []
    for path in files:
        schema = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
        validator = jsonschema.validators.validator_for(schema)
        try:
            validator.check_schema(schema)
        except jsonschema.SchemaError as error:
            problems.append(f"{path}: {error.message} at /{'/'.join(map(str, error.absolute_path))}")
    return problems, f"{len(files)} schemas"


def check_junit(args):
    from junitparser import Error, Failure, JUnitXml, Skipped

    xml = JUnitXml.fromfile(args.file)
    suites = [xml] if xml._tag == "testsuite" else list(xml)
    outcome = {}
    for suite in suites:
        for case in suite:
            kinds = {type(result) for result in case.result}
            state = "failed" if kinds & {Failure, Error} else "skipped" if Skipped in kinds else "passed"
            outcome[(case.classname, case.name)] = state
    problems = []
    failed = [key for key, state in outcome.items() if state == "failed"]
    if not outcome:
        problems.append("no test case")
    if len(failed) < args.min_failures:
        problems.append(f"{len(failed)} failed cases, expected at least {args.min_failures}")
    for wanted in args.failed:
        classname, _, name = wanted.partition("/")
        if outcome.get((classname, name)) != "failed":
            problems.append(f"{wanted} is {outcome.get((classname, name), 'missing')}, expected failed")
    for classname in args.passed:
        bad = [name for (c, name), state in outcome.items() if c == classname and state == "failed"]
        if not any(c == classname for c, _ in outcome):
            problems.append(f"no test case for {classname}")
        if bad:
            problems.append(f"{classname} fails {bad}, expected none")
    return problems, f"{len(outcome)} test cases, {len(failed)} failed"


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="kind", required=True)
    sarif = sub.add_parser("sarif")
    sarif.add_argument("file")
    sarif.add_argument("--rule", action="append", default=[])
    sarif.add_argument("--min-results", type=int, default=0)
    junit = sub.add_parser("junit")
    junit.add_argument("file")
    junit.add_argument("--failed", action="append", default=[])
    junit.add_argument("--passed", action="append", default=[])
    junit.add_argument("--min-failures", type=int, default=0)
    schemas = sub.add_parser("schemas")
    schemas.add_argument("files", nargs="*")
    args = parser.parse_args()
    if args.kind == "schemas":
        args.file = "schemas"
    check = {"sarif": check_sarif, "junit": check_junit, "schemas": check_schemas}[args.kind]
    try:
        problems, summary = check(args)
    except Exception as error:  # unreadable or malformed file: one line, exit 1
        problems, summary = [f"{type(error).__name__}: {error}"], ""
    for problem in problems:
        sys.stderr.write(f"{args.file}: {problem}\n")
    if not problems:
        print(f"{args.file}: valid {args.kind} ({summary})")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
