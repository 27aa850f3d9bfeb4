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

/**
 * A scope pattern as the API takes it (docs/auth.md "Scopes"): a process name, a prefix of one
 * and a trailing `*`, or `*` alone.
 */
export const SCOPE_PATTERN = /^(?:\*|[a-z0-9][a-z0-9_.-]{0,127}\*?)$/;

export interface ScopeMap {
  roleScopes: Readonly<Record<string, readonly string[]>>;
  userScopes: Readonly<Record<string, readonly string[]>>;
}

/**
 * The person's scope patterns, unioned exactly as permissions are (`user_scopes[subject]` ∪
 * `role_scopes[g]` for each group ∪ `role_scopes["*"]`); null when no entry names the person
 * or any of their groups: no scopes, every process, what a person was before scopes existed.
 */
export function scopesFor(identity: Identity, map: ScopeMap): string[] | null {
  const out = new Set<string>();
  let named = false;
  const add = (list: readonly string[] | undefined) => {
    named = true;
    for (const p of list ?? []) out.add(p);
  };
  if (Object.hasOwn(map.userScopes, identity.subject)) add(map.userScopes[identity.subject]);
  for (const group of identity.groups) if (Object.hasOwn(map.roleScopes, group)) add(map.roleScopes[group]);
  if (Object.hasOwn(map.roleScopes, "*")) add(map.roleScopes["*"]);
  return named ? [...out] : null;
}
