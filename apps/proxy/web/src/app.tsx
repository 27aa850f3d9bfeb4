import { useCallback, useEffect, useState } from "react";
import { setUnauthenticatedHandler } from "./api.js";
import { fetchSession, logout } from "./auth.js";
import { Link } from "./components/link.js";
import { TimeZoneSwitch } from "./components/time-text.js";
import { ChannelsPage } from "./pages/channels.js";
import { SchedulesPage } from "./pages/schedules.js";
import { EventsPage } from "./pages/events.js";
import { ComparePage } from "./pages/compare.js";
import { DefinitionsPage } from "./pages/definitions.js";
import { ExternalTasksPage } from "./pages/external-tasks.js";
import { TaskPage } from "./pages/task.js";
import { InstancePage } from "./pages/instance.js";
import { InstancesPage } from "./pages/instances.js";
import { ProcessPage } from "./pages/process.js";
import { SignInPage } from "./pages/sign-in.js";
import { TokensPage } from "./pages/tokens.js";
import { VersionPage } from "./pages/version.js";
import { can } from "./permissions.js";
import type { Route } from "./route.js";
import { afterUnauthenticated, needsSignIn, type Session } from "./session.js";
import { useRoute } from "./use-route.js";
import { useFocusHeading, useShortcuts } from "./keyboard.js";
import { routeHash } from "./route.js";

const NAV: { label: string; to: Route; pages: Route["page"][] }[] = [
  { label: "Instances", to: { page: "instances", search: "" }, pages: ["instances", "instance"] },
  { label: "External tasks", to: { page: "external" }, pages: ["external", "task"] },
  { label: "Definitions", to: { page: "definitions" }, pages: ["definitions", "process", "version", "compare"] },
  { label: "Channels", to: { page: "channels" }, pages: ["channels"] },
  { label: "Schedules", to: { page: "schedules" }, pages: ["schedules"] },
  { label: "Events", to: { page: "events" }, pages: ["events"] },
  { label: "Tokens", to: { page: "tokens" }, pages: ["tokens"] },
];

function Page({ route, session }: { route: Route; session: Session }) {
  const permissions = session.permissions;
  switch (route.page) {
    case "instances":
      return <InstancesPage search={route.search} permissions={permissions} />;
    case "instance":
      return (
        <InstancePage id={route.id} search={route.search ?? ""} permissions={permissions} traceUrl={session.traceUrl} />
      );
    case "definitions":
      return <DefinitionsPage />;
    case "process":
      return <ProcessPage name={route.name} permissions={permissions} />;
    case "version":
      return <VersionPage name={route.name} version={route.version} />;
    case "compare":
      return <ComparePage name={route.name} from={route.from} to={route.to} />;
    case "channels":
      return <ChannelsPage permissions={permissions} />;
    case "schedules":
      return <SchedulesPage permissions={permissions} />;
    case "events":
      return <EventsPage permissions={permissions} />;
    case "external":
      return <ExternalTasksPage search={route.search} />;
    case "task":
      return <TaskPage instance={route.instance} permissions={permissions} />;
    case "tokens":
      return <TokensPage permissions={permissions} />;
    case "not-found":
      return (
        <section>
          <h1>Not found</h1>
          <p>
            Nothing lives at <code>{route.hash}</code>.{" "}
            <Link to={{ page: "instances", search: "" }}>Back to the instances</Link>.
          </p>
        </section>
      );
  }
}

/** The document title of a route: "<what> · Baton", so tabs and history entries can be told apart. */
export function routeTitle(route: Route): string {
  const what = (() => {
    switch (route.page) {
      case "instances":
        return "Instances";
      case "instance":
        return `Instance ${route.id}`;
      case "definitions":
        return "Definitions";
      case "process":
        return `Process ${route.name}`;
      case "version":
        return `${route.name} v${route.version}`;
      case "compare":
        return `Compare ${route.name} v${route.from} and v${route.to}`;
      case "channels":
        return "Channels";
      case "schedules":
        return "Schedules";
      case "events":
        return "Events";
      case "external":
        return "External tasks";
      case "task":
        return `Task of ${route.instance}`;
      case "tokens":
        return "API tokens";
      case "not-found":
        return "Not found";
    }
  })();
  return `${what} · Baton`;
}

export function App() {
  const route = useRoute();
  // A page, not its query: applying a filter keeps focus where it is.
  useFocusHeading(routeHash(route).split("?")[0]!);
  useShortcuts();
  useEffect(() => {
    document.title = routeTitle(route);
  }, [route]);
  const [session, setSession] = useState<Session | undefined>(undefined);
  const [failure, setFailure] = useState<string | null>(null);

  const refresh = useCallback(() => {
    fetchSession().then(
      (s) => {
        setSession(s);
        setFailure(null);
      },
      (error: unknown) => setFailure(error instanceof Error ? error.message : String(error)),
    );
  }, []);

  useEffect(() => {
    refresh();
    // An API 401 means the session ended (or never began): ask the proxy again, which shows sign-in.
    setUnauthenticatedHandler(() => setSession((s) => (s ? afterUnauthenticated(s) : s)));
  }, [refresh]);

  if (failure) {
    return (
      <main className="sign-in">
        <h1>Baton</h1>
        <p role="alert" className="error">
          Cannot read the session: {failure}
        </p>
        <button type="button" onClick={refresh}>
          Try again
        </button>
      </main>
    );
  }
  if (!session) return <p className="loading">Loading…</p>;
  if (needsSignIn(session)) return <SignInPage session={session} route={route} onSignedIn={refresh} />;

  const nav = NAV.filter((item) => item.to.page !== "tokens" || can(session.permissions, "admin"));
  return (
    <>
      {/* A button, not <a href="#main">: the hash is the route. */}
      <button type="button" className="skip-link" onClick={() => document.getElementById("main")?.focus()}>
        Skip to content
      </button>
      <header className="top">
        <a className="brand" href="#/instances">
          Baton
        </a>
        <nav aria-label="Main">
          <ul className="nav-list">
            {nav.map((item) => (
              <li key={item.label}>
                <Link to={item.to} className={item.pages.includes(route.page) ? "active" : undefined}>
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <TimeZoneSwitch />
        {session.login && (
          <div className="who">
            <span>{session.subject}</span>
            {session.scopes !== null && (
              <span className="scopes" title="The processes you can reach (docs: Scopes)">
                {session.scopes.length > 0 ? `scopes: ${session.scopes.join(", ")}` : "no processes"}
              </span>
            )}
            <button type="button" onClick={() => logout().then(refresh, refresh)}>
              Sign out
            </button>
          </div>
        )}
      </header>
      <main id="main" tabIndex={-1}>
        <Page route={route} session={session} />
      </main>
    </>
  );
}
