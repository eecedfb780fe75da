// The referee of the JSONata corpus test (crates/jsonata/tests/jsonata_referee.rs): npm
// `jsonata`, the reference implementation, evaluates each case as rics' engine must.
//
// Usage: node scripts/jsonata_referee.js <path of the jsonata package>
// Reads a JSON array of {expression, input} on standard input; writes a JSON object
// {version, answers}, one answer per case in order: {result} (absent when the result is
// undefined) or {error: <JSONata error code>}.
"use strict";

const path = require("path");
const packageDir = path.resolve(process.argv[2]);
const jsonata = require(packageDir);
const { version } = require(path.join(packageDir, "package.json"));

async function judge(testCase) {
  try {
    const result = await jsonata(testCase.expression).evaluate(testCase.input);
    // JSON.stringify drops undefined members and functions as JSON output does.
    return result === undefined ? {} : { result: JSON.parse(JSON.stringify(result)) };
  } catch (error) {
    return { error: error.code || String(error) };
  }
}

async function main() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const cases = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const answers = [];
  for (const testCase of cases) answers.push(await judge(testCase));
  process.stdout.write(JSON.stringify({ version, answers }));
}

main().catch((error) => {
  process.stderr.write(String(error.stack || error) + "\n");
  process.exit(1);
});
