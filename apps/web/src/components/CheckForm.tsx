/** Check a run against a calibration: pick an imported or fitted calibration and the split to measure. */
import { type FormEvent, useEffect, useRef, useState } from "react";
import type { CalibrationGroup } from "../transforms/check";
import { checkFormProblems } from "../transforms/checkForm";
import { Field, FormErrors } from "./Field";
import { focusFirstInvalid } from "./focusInvalid";
import { Empty, TechnicalDetails } from "./States";

/** What a check is run with. */
export interface CheckChoice {
  calibrationId: string;
  split: string;
}

/**
 * The form; `preferred` (e.g. a file just imported) is picked whenever it changes. The API's refusal of a check
 * (`error`) goes on the field it concerns, which gets the focus; what no field is for is left to the page.
 */
export function CheckForm({
  groups,
  splits,
  preferred,
  onCheck,
  checking,
  error,
}: {
  groups: CalibrationGroup[];
  /** The run's splits; "all" is offered too. */
  splits: string[];
  preferred?: Partial<CheckChoice>;
  onCheck: (choice: CheckChoice) => void;
  checking?: boolean;
  /** The last check's error. */
  error?: unknown;
}) {
  const first = groups[0]?.options[0]?.id ?? "";
  const [calibrationId, setCalibrationId] = useState(preferred?.calibrationId ?? first);
  const [split, setSplit] = useState(preferred?.split ?? (splits.includes("test") ? "test" : "all"));
  const known = groups.some((g) => g.options.some((o) => o.id === calibrationId));
  useEffect(() => {
    if (preferred?.calibrationId) setCalibrationId(preferred.calibrationId);
  }, [preferred?.calibrationId]);
  useEffect(() => {
    if (preferred?.split) setSplit(preferred.split);
  }, [preferred?.split]);
  const formRef = useRef<HTMLFormElement>(null);
  const refused = checkFormProblems(error);
  const onFields = Object.keys(refused.byField).length > 0;
  useEffect(() => {
    if (error) focusFirstInvalid(formRef.current);
  }, [error]);
  if (groups.length === 0)
    return (
      <Empty title="No calibration of this dataset to check against">
        Fit one above, or import a calibration file.
      </Empty>
    );
  const chosen = known ? calibrationId : first;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onCheck({ calibrationId: chosen, split });
  };
  return (
    <form ref={formRef} className="form" onSubmit={submit} aria-label="Check against a calibration">
      {onFields && (
        <FormErrors errors={[...Object.values(refused.byField), ...refused.rest]}>
          <TechnicalDetails error={error} />
        </FormErrors>
      )}
      <div className="form-grid check-grid">
        <Field
          label="Calibration"
          error={refused.byField.calibrationId}
          hint="Imported files and calibrations fitted on runs of this dataset."
        >
          {(a) => (
            <select {...a} value={chosen} onChange={(e) => setCalibrationId(e.target.value)}>
              {groups.map((g) => (
                <optgroup key={g.label} label={g.label}>
                  {g.options.map((o) => (
                    <option key={o.id} value={o.id}>
                      {o.label}
                    </option>
                  ))}
                </optgroup>
              ))}
            </select>
          )}
        </Field>
        <Field
          label="Check on"
          error={refused.byField.split}
          hint="The run's answers measured under the file's calibration."
        >
          {(a) => (
            <select {...a} value={split} onChange={(e) => setSplit(e.target.value)}>
              {[...splits, "all"].map((s) => (
                <option key={s} value={s}>
                  {s === "all" ? "all splits" : `${s} split`}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <div className="form-actions">
        <button type="submit" className="button primary" disabled={checking}>
          {checking ? "Checking…" : "Check"}
        </button>
        <span className="muted small">
          Fails when the served model changed, or when a question's calibrated ECE or answered-alone error
          rose above the interval the file recorded. Nothing calls the server.
        </span>
      </div>
    </form>
  );
}
