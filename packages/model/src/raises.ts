import type { Definition } from "./definition.js";

/** Every code an instance of `def` can end `raised` with: `raises` keys plus authored raise codes of switch and on_error, sorted. */
export function declaredRaises(def: Definition): string[] {
  const codes = new Set<string>();
  for (const task of def.tasks) {
    for (const code of Object.keys(task.raises ?? {})) codes.add(code);
    for (const c of task.switch) if (c.raise !== undefined) codes.add(c.raise.code);
    for (const r of task.on_error) if (r.raise !== undefined) codes.add(r.raise.code);
  }
  return [...codes].sort();
}

/** Where each authored code is raised and panicked (`tasks[i].switch[j].raise` …), for the "both raised and panicked" rule. */
export function authoredCodeSites(def: Definition): { raised: Map<string, string[]>; panicked: Map<string, string[]> } {
  const raised = new Map<string, string[]>();
  const panicked = new Map<string, string[]>();
  const note = (m: Map<string, string[]>, code: string, at: string) => {
    const sites = m.get(code);
    if (sites === undefined) m.set(code, [at]);
    else sites.push(at);
  };
  def.tasks.forEach((task, i) => {
    for (const code of Object.keys(task.raises ?? {})) note(raised, code, `tasks[${i}].raises`);
    task.switch.forEach((c, j) => {
      if (c.raise !== undefined) note(raised, c.raise.code, `tasks[${i}].switch[${j}].raise`);
      if (c.panic !== undefined) note(panicked, c.panic.code, `tasks[${i}].switch[${j}].panic`);
    });
    task.on_error.forEach((r, j) => {
      if (r.raise !== undefined) note(raised, r.raise.code, `tasks[${i}].on_error[${j}].raise`);
      if (r.panic !== undefined) note(panicked, r.panic.code, `tasks[${i}].on_error[${j}].panic`);
    });
  });
  return { raised, panicked };
}
