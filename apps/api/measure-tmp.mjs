import { decodeBatch, inferSchemas, definitionHash, canonicalJson, compareDefinitions, declaredRaises } from "@baton/model";
function chainedDefinition(n) {
  const tasks = Array.from({ length: n }, (_, i) => ({
    id: `t${i}`,
    action: { type: "fetch", url: `https://svc.example.com/step/${i}?prev=\${outputs.t${Math.max(0, i - 1)}.n ?? 0}`, body: { i, prev: i > 0 ? `$: outputs.t${i - 1}` : null } },
    output: { n: i > 0 ? `$: outputs.t${i - 1}.n + 1` : 0 },
    on_error: [{ code: ["pre.%", "http.5%"], retry: 2 }, ...(i + 1 < n ? [{ code: "http.4%", goto: `$t${n - 1}` }] : [])],
  }));
  return { name: `bench_validate_${n}`, tasks, output: { last: `$: outputs.t${n - 1}.n` } };
}
for (const n of [200, 10000]) {
  const raw = chainedDefinition(n);
  let t = performance.now();
  const d = decodeBatch([raw], {});
  const def = d.definitions[0];
  console.log(n, "decode", (performance.now() - t).toFixed(0)); t = performance.now();
  inferSchemas(def, 1); console.log(n, "infer", (performance.now() - t).toFixed(0)); t = performance.now();
  definitionHash(def); canonicalJson(def); declaredRaises(def); console.log(n, "hash+canon", (performance.now() - t).toFixed(0)); t = performance.now();
  compareDefinitions(def, def, 1, 2); console.log(n, "compare", (performance.now() - t).toFixed(0)); t = performance.now();
  structuredClone(def); console.log(n, "clone", (performance.now() - t).toFixed(0));
}
