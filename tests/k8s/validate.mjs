// Validates Kubernetes manifests against the API's own JSON schemas (kubernetes-models, generated
// from the Kubernetes OpenAPI spec): every document of each file must be a kind listed below, with
// every field of the right type and value. Usage: node validate.mjs FILE.yaml...
// Exit 0 when every document is valid; 1 with "file: document N (Kind name): reason" otherwise.
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";
import { Job } from "kubernetes-models/batch/v1";
import { PersistentVolumeClaim, ConfigMap, Service } from "kubernetes-models/v1";
import { Deployment } from "kubernetes-models/apps/v1";

const models = { Job, PersistentVolumeClaim, ConfigMap, Service, Deployment };
let failed = 0;
for (const file of process.argv.slice(2)) {
  const docs = parseAllDocuments(readFileSync(file, "utf8"));
  docs.forEach((doc, i) => {
    const where = `${file}: document ${i + 1}`;
    if (doc.errors.length) {
      console.error(`${where}: not YAML: ${doc.errors[0].message}`);
      failed++;
      return;
    }
    const obj = doc.toJS();
    const Model = models[obj?.kind];
    if (!Model) {
      console.error(`${where}: kind ${obj?.kind} is not one this check knows (${Object.keys(models).join(", ")})`);
      failed++;
      return;
    }
    try {
      new Model(obj).validate();
      console.log(`${where} (${obj.kind} ${obj.metadata?.name}): valid`);
    } catch (e) {
      const reasons = (e.errors ?? [{ message: e.message }]).map((x) => `${x.instancePath ?? ""} ${x.message}`.trim());
      console.error(`${where} (${obj.kind} ${obj.metadata?.name}): ${reasons.join("; ")}`);
      failed++;
    }
  });
}
process.exit(failed ? 1 : 0);
