/** A row of radio buttons under a legend (`fieldset.segmented`): one choice of a few, each with its own text. */
import type { ReactNode } from "react";

export function Segmented<T extends string>({
  legend,
  name,
  options,
  value,
  text,
  onChange,
}: {
  legend: string;
  /** The radio group's name. */
  name: string;
  options: readonly T[];
  value: T | undefined;
  text: (option: T) => ReactNode;
  onChange: (option: T) => void;
}) {
  return (
    <fieldset className="segmented">
      <legend>{legend}</legend>
      {options.map((o) => (
        <label key={o}>
          <input type="radio" name={name} value={o} checked={value === o} onChange={() => onChange(o)} />
          {text(o)}
        </label>
      ))}
    </fieldset>
  );
}
