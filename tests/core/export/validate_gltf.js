// Runs the Khronos glTF validator on GLB/glTF files and prints one JSON array of reports:
//   node validate_gltf.js <validator install dir> <file>...
// Each report: {file, numErrors, numWarnings, numInfos, numHints, messages: [{code, severity,
// message, pointer}]}. Exit status 0 when every file was validated (whatever the findings),
// 2 when the validator is missing or cannot read a file, so the C++ test can tell the two apart.
'use strict';
const fs = require('fs');
const path = require('path');

const [dir, ...files] = process.argv.slice(2);
let validator;
try {
  validator = require(path.join(dir, 'node_modules', 'gltf-validator'));
} catch (e) {
  console.error(`gltf-validator is not installed in ${dir}: run packaging/install-gltf-validator.sh ${dir}`);
  process.exit(2);
}

(async () => {
  const reports = [];
  for (const file of files) {
    const bytes = new Uint8Array(fs.readFileSync(file));
    const r = await validator.validateBytes(bytes, {uri: path.basename(file), maxIssues: 200});
    reports.push({
      file,
      numErrors: r.issues.numErrors,
      numWarnings: r.issues.numWarnings,
      numInfos: r.issues.numInfos,
      numHints: r.issues.numHints,
      messages: r.issues.messages.map((m) => ({code: m.code, severity: m.severity, message: m.message,
                                               pointer: m.pointer || ''})),
    });
  }
  console.log(JSON.stringify(reports));
})().catch((e) => {
  console.error(`validation failed: ${e}`);
  process.exit(2);
});
