import { jsonText } from "../json-text.js";

/** A JSON value, pretty-printed; `label` names it for screen readers (and tests). */
export function JsonBlock({ value, label }: { value: unknown; label: string }) {
  return (
    <figure className="json-figure">
      <figcaption className="sr-only">{label}</figcaption>
      <pre className="json">{jsonText(value)}</pre>
    </figure>
  );
}
