import type { ReactNode } from "react";
import { type Route, routeHash } from "../route.js";

export function Link({ to, children, className }: { to: Route; children: ReactNode; className?: string }) {
  return (
    <a href={routeHash(to)} className={className}>
      {children}
    </a>
  );
}
