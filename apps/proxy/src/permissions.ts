/** The permission names the API knows (docs/auth.md "Permissions"); a flat set, `admin` admits everything. */
export const PERMISSIONS = ["worker", "read", "operate", "deploy", "admin"] as const;
export type Permission = (typeof PERMISSIONS)[number];

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}

/** Who is asking, as the session knows it. */
export interface Identity {
  subject: string;
  groups: readonly string[];
}

export interface PermissionMap {
  roles: Readonly<Record<string, readonly string[]>>;
  users: Readonly<Record<string, readonly string[]>>;
}

/**
 * `users[subject]` ∪ `roles[g]` for each group g ∪ `roles["*"]`, in first-seen order without
 * duplicates. A group literally named `*` is not special: `roles["*"]` applies to everyone anyway.
 */
export function permissionsFor(identity: Identity, map: PermissionMap): string[] {
  const out = new Set<string>();
  const add = (list: readonly string[] | undefined) => {
    for (const p of list ?? []) out.add(p);
  };
  if (Object.hasOwn(map.users, identity.subject)) add(map.users[identity.subject]);
  for (const group of identity.groups) if (Object.hasOwn(map.roles, group)) add(map.roles[group]);
  if (Object.hasOwn(map.roles, "*")) add(map.roles["*"]);
  return [...out];
}
