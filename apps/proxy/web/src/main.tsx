import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app.js";
import { watchScrollers } from "./scroll-focus.js";
import "./styles.css";
import "./operator.css";
import "./look.css";

const root = document.getElementById("root")!;
watchScrollers(root);
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
