import type { ReactNode } from "react";

/**
 * A labelled choice among a process's versions (`v{n}` options). The first option has the value ""
 * and the text `blank`, which says what choosing nothing means ("choose", or the version used
 * then). The label wraps the select, so the label's text is the select's accessible name.
 */
export function VersionSelect({
  label,
  blank,
  versions,
  value,
  onChange,
  required,
}: {
  label: ReactNode;
  blank: string;
  versions: readonly number[];
  /** The chosen version, or "" for the blank option. */
  value: number | string;
  onChange: (value: string) => void;
  required?: boolean;
}) {
  return (
    <label>
      {label}
      <select required={required} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">{blank}</option>
        {versions.map((v) => (
          <option key={v} value={v}>
            v{v}
          </option>
        ))}
      </select>
    </label>
  );
}
