/**
 * deploy/kubernetes against the Kubernetes API schemas, offline: each object is validated by
 * `kubernetes-models` (the API's OpenAPI schemas compiled into validators: types, enums,
 * required fields, quantities), and the objects are checked to fit together (the Service selects
 * the Job's pods, the names the commands use are the ones the objects define).
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { parse, parseAllDocuments } from "yaml";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { Service } from "kubernetes-models/v1/Service";
import { Job } from "kubernetes-models/batch/v1/Job";

const DIR = new URL("../../deploy/kubernetes/", import.meta.url).pathname;

// deno-lint-ignore no-explicit-any
type Doc = Record<string, any>;

const MODELS: Record<string, (d: Doc) => { validate(): void }> = {
  "v1/ConfigMap": (d) => new ConfigMap(d),
  "v1/Service": (d) => new Service(d),
  "batch/v1/Job": (d) => new Job(d),
};

/** Validates one object with the schema of its apiVersion and kind. */
function validate(doc: Doc, where: string): void {
  const model = MODELS[`${doc.apiVersion}/${doc.kind}`];
  assert.ok(model, `${where}: no schema for ${doc.apiVersion} ${doc.kind}`);
  model(doc).validate();
}

async function objects(): Promise<Map<string, Doc>> {
  const kustomization = parse(await Deno.readTextFile(join(DIR, "kustomization.yaml")));
  const out = new Map<string, Doc>();
  for (const file of kustomization.resources as string[]) {
    for (const d of parseAllDocuments(await Deno.readTextFile(join(DIR, file)))) {
      const doc = d.toJS() as Doc;
      out.set(`${doc.kind}/${doc.metadata.name}`, doc);
    }
  }
  return out;
}

Deno.test("every manifest is valid against the Kubernetes schemas and listed by the kustomization", async () => {
  const kustomization = parse(await Deno.readTextFile(join(DIR, "kustomization.yaml")));
  const files = [...Deno.readDirSync(DIR)].map((e) => e.name).filter((n) =>
    n.endsWith(".yaml") && n !== "kustomization.yaml"
  );
  assert.deepEqual([...kustomization.resources].sort(), files.sort());
  const all = await objects();
  for (const [name, doc] of all) validate(doc, name);
  assert.deepEqual([...all.keys()].sort(), [
    "ConfigMap/reprise-config",
    "Job/reprise",
    "Job/reprise-merge",
    "Service/reprise-shards",
  ]);
});

Deno.test("the schema validation catches what a manifest typo breaks", async () => {
  const job = (await objects()).get("Job/reprise")!;
  const broken = structuredClone(job);
  broken.spec.parallelism = "four";
  assert.throws(() => validate(broken, "job"), /parallelism must be integer/);
  const badMode = structuredClone(job);
  badMode.spec.completionMode = "indexed";
  assert.throws(() => validate(badMode, "job"), /completionMode/);
  const badMemory = structuredClone(job);
  badMemory.spec.template.spec.containers[0].resources.limits.memory = "2 GB";
  assert.throws(() => validate(badMemory, "job"), /memory/);
});

Deno.test("the objects fit together: Service, pod names, shard count, Prometheus, ConfigMap", async () => {
  const all = await objects();
  const job = all.get("Job/reprise")!;
  const merge = all.get("Job/reprise-merge")!;
  const svc = all.get("Service/reprise-shards")!;
  const cm = all.get("ConfigMap/reprise-config")!;
  const pod = job.spec.template;
  const args: string[] = pod.spec.containers[0].args;
  const after = (flag: string) => args[args.indexOf(flag) + 1];
  const n = job.spec.completions;
  assert.equal(job.spec.completionMode, "Indexed");
  assert.equal(job.spec.parallelism, n);
  assert.equal(Number(after("--shards")), n);
  // The headless Service selects the shard pods, and names them <job>-<index>.<service>.
  assert.equal(svc.spec.clusterIP, "None");
  for (const [k, v] of Object.entries(svc.spec.selector)) assert.equal(pod.metadata.labels[k], v);
  assert.equal(pod.spec.subdomain, svc.metadata.name);
  const port = svc.spec.ports[0];
  assert.equal(
    pod.spec.containers[0].ports.find((p: Doc) => p.name === port.targetPort).containerPort,
    port.port,
  );
  assert.equal(Number(after("--api-port")), port.port);
  const host = (i: number) => `http://${job.metadata.name}-${i}.${svc.metadata.name}:${port.port}`;
  assert.equal(after("--clock-reference"), host(0));
  const urls = merge.spec.template.spec.containers[0].args.filter((a: string) =>
    a.startsWith("http://")
  );
  assert.deepEqual(urls, Array.from({ length: n }, (_, i) => host(i)));
  // Every shard pod is scraped at its API's /metrics.
  const ann = pod.metadata.annotations;
  assert.equal(ann["prometheus.io/scrape"], "true");
  assert.equal(Number(ann["prometheus.io/port"]), port.port);
  assert.equal(ann["prometheus.io/path"], "/metrics");
  // The config and dataset the command reads are the ConfigMap's.
  const mount = pod.spec.containers[0].volumeMounts.find((m: Doc) => m.name === "config").mountPath;
  assert.equal(
    pod.spec.volumes.find((v: Doc) => v.name === "config").configMap.name,
    cm.metadata.name,
  );
  assert.ok(after("--config").startsWith(`${mount}/`));
  assert.ok(after("--config").slice(mount.length + 1) in cm.data);
  const config = parse(cm.data["profile.yaml"]);
  assert.ok(config.benchmark.dataset.path.slice(mount.length + 1) in cm.data);
  assert.ok(Number.isInteger(config.random_seed), "every shard needs the same seed");
});

Deno.test("docs/kubernetes.md shows the manifests the tests run, byte for byte", async () => {
  const doc = await Deno.readTextFile(new URL("../../docs/kubernetes.md", import.meta.url));
  for (const file of ["job.yaml", "service.yaml", "merge-job.yaml"]) {
    const text = await Deno.readTextFile(join(DIR, file));
    assert.ok(doc.includes("```yaml\n" + text + "```"), `${file} is not shown as it is`);
  }
});

const kubectl = (() => {
  try {
    return new Deno.Command("kubectl", {
      args: ["version", "--client"],
      stdout: "null",
      stderr: "null",
    })
      .outputSync().success;
  } catch {
    return false;
  }
})();

Deno.test({
  name: "kubectl kustomize builds the folder into the same objects (where kubectl is installed)",
  ignore: !kubectl,
  fn: async () => {
    const out = await new Deno.Command("kubectl", { args: ["kustomize", DIR], stderr: "piped" })
      .output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    const built = parseAllDocuments(new TextDecoder().decode(out.stdout)).map((d) =>
      d.toJS() as Doc
    );
    const all = await objects();
    assert.equal(built.length, all.size);
    for (const doc of built) validate(doc, `${doc.kind}/${doc.metadata.name}`);
  },
});
