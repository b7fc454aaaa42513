/**
 * What a server check found, in sentences (the models listed, the test question), the server's own words in a
 * collapsed "Details"; with `onPick`, the listed models as checkboxes that fill the form's Models field.
 */

import type { ServerCheck } from "@decision-workbench/api/shapes";
import { checkSummary, toggleModel } from "../transforms/serverForm";

/** The panel; `chosen` are the models the form holds now, `onPick` gets them after a tick or untick. */
export function ServerCheckPanel({
  check,
  chosen,
  onPick,
}: {
  check: ServerCheck;
  chosen?: string[];
  onPick?: (models: string[]) => void;
}) {
  const s = checkSummary(check, onPick !== undefined);
  const picked = new Set(chosen ?? []);
  return (
    <div className={`check-result ${s.ok ? "ok" : "fail"}`} role="status">
      <strong>{s.ok ? "✓ The server answered." : "✗ The check found a problem."}</strong>
      <p className="check-line">{s.modelsSentence}</p>
      {s.models.length > 0 &&
        (onPick ? (
          <fieldset className="model-picks">
            <legend>Models the server lists</legend>
            {s.models.map((m) => (
              <label key={m.name} className="model-pick">
                <input
                  type="checkbox"
                  checked={picked.has(m.name)}
                  onChange={(e) => onPick(toggleModel(chosen ?? [], m.name, e.target.checked))}
                />
                <span className="model-pick-text">
                  <code>{m.name}</code>
                  {m.description && <span className="hint">{m.description}</span>}
                </span>
              </label>
            ))}
          </fieldset>
        ) : (
          <ul className="inline-list" aria-label="Models the server lists">
            {s.models.map((m) => (
              <li key={m.name} title={m.description}>
                <code>{m.name}</code>
              </li>
            ))}
          </ul>
        ))}
      <p className="check-line">{s.probeSentence}</p>
      {s.details.length > 0 && (
        <details>
          <summary>Details</summary>
          <ul>
            {s.details.map((d) => (
              <li key={d}>{d}</li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}
