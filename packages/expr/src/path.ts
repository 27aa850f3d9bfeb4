const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `base.key`, or `base["odd key"]` when the key is not a plain name. */
export function joinKey(base: string, key: string): string {
  if (IDENTIFIER.test(key)) return base ? `${base}.${key}` : key;
  return `${base}[${JSON.stringify(key)}]`;
}

export function joinIndex(base: string, index: number): string {
  return `${base}[${index}]`;
}
