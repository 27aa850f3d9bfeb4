import { type FieldInput, type FormField, fieldLabel } from "../schema-form.js";

/** One input per field of a generated form (src/schema-form.ts); the owner keeps the inputs. */
export function SchemaFields({
  fields,
  inputs,
  onChange,
  idPrefix,
}: {
  fields: FormField[];
  inputs: Record<string, FieldInput>;
  onChange: (label: string, value: FieldInput) => void;
  idPrefix: string;
}) {
  return (
    <>
      {fields.map((field) => {
        const label = fieldLabel(field);
        const id = `${idPrefix}-${label}`;
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
                type="checkbox"
                checked={value === true}
                onChange={(e) => onChange(label, e.target.checked)}
                aria-describedby={`${id}-help`}
              />
              {label} {help}
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
                aria-describedby={`${id}-help`}
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
                aria-describedby={`${id}-help`}
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
                value={text}
                onChange={(e) => onChange(label, e.target.value)}
                aria-describedby={`${id}-help`}
              />
            ) : (
              <input
                id={id}
                value={text}
                inputMode={field.kind === "text" ? undefined : "decimal"}
                maxLength={field.kind === "text" ? field.maxLength : undefined}
                onChange={(e) => onChange(label, e.target.value)}
                aria-describedby={`${id}-help`}
              />
            )}
            {help}
          </label>
        );
      })}
    </>
  );
}
