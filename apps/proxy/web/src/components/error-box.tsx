import { errorLines } from "../api.js";

/** The API's error sentence and field paths, announced to screen readers. */
export function ErrorBox({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  const [first, ...fields] = errorLines(error);
  return (
    <div className="error" role="alert">
      <p>{first}</p>
      {fields.length > 0 && (
        <ul>
          {fields.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
