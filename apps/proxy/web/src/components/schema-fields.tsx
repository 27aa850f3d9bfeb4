import { type FieldInput, type FormField, fieldLabel } from "../schema-form.js";

/** The id of a field's input (`idPrefix` is the form's), which a form focuses to show a problem. */
export const fieldInputId = (idPrefix: string, label: string): string => `${idPrefix}-${label}`;

/**
 * One input per field of a generated form (src/schema-form.ts); the owner keeps the inputs.
 * `problems` (by label) are written beside their field, which is marked invalid and described by them.
 */
export function SchemaFields({
  fields,
  inputs,
  onChange,
  idPrefix,
  problems = {},
}: {
  fields: FormField[];
  inputs: Record<string, FieldInput>;
  onChange: (label: string, value: FieldInput) => void;
  idPrefix: string;
  problems?: Record<string, string>;
}) {
  return (
    <>
      {fields.map((field) => {
        const label = fieldLabel(field);
        const id = fieldInputId(idPrefix, label);
        const problem = problems[label];
        const invalid = problem ? true : undefined;
        const describedBy = problem ? `${id}-help ${id}-error` : `${id}-help`;
        const problemText = problem ? (
          <span className="field-error" id={`${id}-error`}>
            {problem}
          </span>
        ) : null;
        const value = inputs[label];
        const text = typeof value === "string" ? value : "";
        const hint = [
          field.kind === "json" ? "JSON" : field.kind === "enum" ? "one of the listed values" : field.kind,
          field.required ? "required" : "optional",
          field.minimum !== undefined ? `at least ${field.minimum}` : "",
          field.maximum !== undefined ? `at most ${field.maximum}` : "",
          field.minLength !== undefined ? `${field.minLength}+ characters` : "",
          field.maxLength !== undefined ? `up to ${field.maxLength} characters` : "",
        ]
          .filter(Boolean)
          .join(", ");
        const help = (
          <span className="field-help" id={`${id}-help`}>
            {hint}
            {field.description ? ` — ${field.description}` : ""}
          </span>
        );
        if (field.kind === "boolean" && field.required)
          return (
            <label key={label} className="check">
              <input
                id={id}
                type="checkbox"
                checked={value === true}
                onChange={(e) => onChange(label, e.target.checked)}
                aria-describedby={describedBy}
                aria-invalid={invalid}
              />
              {label} {help}
              {problemText}
            </label>
          );
        return (
          <label key={label} htmlFor={id}>
            {label}
            {field.kind === "boolean" ? (
              <select
                id={id}
                value={text}
                onChange={(e) => onChange(label, e.target.value)}
                aria-describedby={describedBy}
                aria-invalid={invalid}
              >
                <option value="">not set</option>
                <option value="true">true</option>
                <option value="false">false</option>
              </select>
            ) : field.kind === "enum" ? (
              <select
                id={id}
                value={text}
                onChange={(e) => onChange(label, e.target.value)}
                aria-describedby={describedBy}
                aria-invalid={invalid}
              >
                <option value="">{field.required ? "choose one" : "not set"}</option>
                {field.options!.map((option, index) => (
                  <option key={JSON.stringify(option)} value={String(index)}>
                    {typeof option === "string" ? option : JSON.stringify(option)}
                  </option>
                ))}
              </select>
            ) : field.kind === "json" ? (
              <textarea
                id={id}
                value={text}
                onChange={(e) => onChange(label, e.target.value)}
                aria-describedby={describedBy}
                aria-invalid={invalid}
              />
            ) : (
              <input
                id={id}
                value={text}
                inputMode={field.kind === "text" ? undefined : "decimal"}
                maxLength={field.kind === "text" ? field.maxLength : undefined}
                onChange={(e) => onChange(label, e.target.value)}
                aria-describedby={describedBy}
                aria-invalid={invalid}
              />
            )}
            {help}
            {problemText}
          </label>
        );
      })}
    </>
  );
}
