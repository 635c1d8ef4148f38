// The Kubernetes manifests against the API's OpenAPI schemas, as the
// kubernetes-models package compiled them (enums, formats such as
// quantities, required fields, types), for what deploycheck's strict
// decoding into Go types does not see. CI runs it from the folder where
// it installed the packages:
//   node schema.mjs FILE.yaml...
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";

let problems = 0;
let checked = 0;
for (const file of process.argv.slice(2)) {
  for (const [i, doc] of parseAllDocuments(readFileSync(file, "utf8")).entries()) {
    const obj = doc.toJS();
    if (obj === null) continue;
    if (doc.errors.length > 0) {
      console.log(`${file}: document ${i + 1}: ${doc.errors.join("; ")}`);
      problems++;
      continue;
    }
    const { apiVersion, kind } = obj;
    let model;
    try {
      model = (await import(`kubernetes-models/${apiVersion}/${kind}`))[kind];
    } catch {
      console.log(`${file}: document ${i + 1}: ${apiVersion} ${kind} is no kind the schemas know`);
      problems++;
      continue;
    }
    try {
      new model(obj).validate();
      checked++;
    } catch (e) {
      console.log(`${file}: document ${i + 1} (${kind} ${obj.metadata?.name}): ${e.message}`);
      problems++;
    }
  }
}
if (problems > 0 || checked === 0) {
  console.log(`schema.mjs: ${problems} problems, ${checked} documents valid`);
  process.exit(1);
}
console.log(`schema.mjs: ${checked} documents valid against the Kubernetes OpenAPI schemas`);
