import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// `vite` (dev server) and `vite preview` forward what the UI calls to a running baton-api or
// baton-proxy: BATON_SERVER, default the API's local address. `/auth` goes along so that
// pointed at a baton-proxy with a login, sign-in works; a bare API answers 404 there, which the
// UI takes as "no login".
const target = process.env.BATON_SERVER || "http://127.0.0.1:8449";
const proxy = Object.fromEntries(["/api", "/public", "/healthz", "/auth"].map((path) => [path, target]));

export default defineConfig({
  plugins: [react()],
  build: { outDir: "dist", emptyOutDir: true },
  server: { proxy },
  preview: { proxy },
});
