// Vite bundles CSS imports; tsc only needs to know they are modules.
declare module "*.css";
