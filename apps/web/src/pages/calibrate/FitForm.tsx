/**
 * The fit form of the Calibrate page: which items, the method (Auto, or one forced), where candidates are compared
 * (cross-fitting inside the fit split, or a separate split), where the result is reported, the escalation target.
 */

import type { Calibration, FitRequest, ItemSpec, RunSummary, Split } from "@decision-workbench/api/shapes";
import { type FormEvent, useEffect, useMemo, useRef, useState } from "react";
import { useFitCalibration } from "../../api/calibrations";
import { Field, FormErrors } from "../../components/Field";
import { focusFirstInvalid } from "../../components/focusInvalid";
import { ErrorState, TechnicalDetails } from "../../components/States";
import { fieldProblems, type ProblemRule } from "../../transforms/apiErrors";
import { METHOD_LABELS, type MethodName, methodChoices } from "../../transforms/calibrate";

/** The fields the API may refuse, by its names, as the form labels them. */
const FIT_FIELDS = {
  item: "Items",
  method: "Method",
  selectionSplit: "Compare candidates on",
  evalSplit: "Report on",
  targetRisk: "Target risk",
  select: "Compare by",
} as const;
type FitField = keyof typeof FIT_FIELDS;

/** The API takes the target risk as a share; the form as a percentage. */
const FIT_RULES: ProblemRule[] = [
  {
    pattern: /^body\.targetRisk /,
    field: "targetRisk",
    rewrite: () => "Target risk must be a percentage above 0 and below 100",
  },
];

/** The split a fit uses by default: calibration when the run has it, else its first split. */
function fitSplitOf(run: RunSummary): Split {
  return run.splits.includes("calibration") ? "calibration" : run.splits[0];
}

export function FitForm({
  run,
  items,
  onFitted,
}: {
  run: RunSummary;
  items: ItemSpec[];
  onFitted: (c: Calibration) => void;
}) {
  const fit = useFitCalibration(run.id);
  const fitSplit = fitSplitOf(run);
  const others = run.splits.filter((s) => s !== fitSplit);
  const [item, setItem] = useState("");
  const [method, setMethod] = useState<MethodName | "auto">("auto");
  const [selectOn, setSelectOn] = useState<"crossfit" | Split>("crossfit");
  const [evalSplit, setEvalSplit] = useState<Split | "crossfit">(
    others.includes("test") ? "test" : (others[0] ?? "crossfit"),
  );
  const [targetRisk, setTargetRisk] = useState("5");
  const [conservative, setConservative] = useState(false);
  const [select, setSelect] = useState<"nll" | "brier">("nll");
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);
  const refused = useMemo(
    () => fieldProblems(fit.error, Object.keys(FIT_FIELDS), FIT_FIELDS, FIT_RULES),
    [fit.error],
  );
  const apiError = (f: FitField) => refused.byField[f];
  const onFields = Object.keys(refused.byField).length > 0;
  // a refused submit, here or by the API, focuses the first invalid field
  useEffect(() => {
    if (attempt > 0 || fit.error) focusFirstInvalid(formRef.current);
  }, [attempt, fit.error]);
  const chosenItems = item ? items.filter((i) => i.name === item) : items;
  const choices = methodChoices(chosenItems.map((i) => i.kind));
  const selectionSplits = others.filter((s) => s !== evalSplit);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setAttempt((n) => n + 1);
    const risk = Number(targetRisk);
    if (!Number.isFinite(risk) || risk <= 0 || risk >= 100) {
      setError(`Target risk must be a percentage above 0 and below 100, such as 5; got “${targetRisk}”.`);
      return;
    }
    setError(null);
    const input: FitRequest = {
      fitSplit,
      evalSplit,
      method,
      targetRisk: risk / 100,
      conservative,
      select,
    };
    if (method === "auto" && selectOn !== "crossfit" && selectionSplits.includes(selectOn)) {
      input.selectionSplit = selectOn;
    }
    if (item) input.item = item;
    fit.mutate(input, { onSuccess: onFitted });
  };
  return (
    <form ref={formRef} className="form" onSubmit={submit} aria-label="Fit a calibration" noValidate>
      <div className="form-grid">
        <Field label="Items" error={apiError("item")}>
          {(a) => (
            <select
              {...a}
              value={item}
              onChange={(e) => {
                const next = e.target.value;
                setItem(next);
                const kinds = (next ? items.filter((i) => i.name === next) : items).map((i) => i.kind);
                if (method !== "auto" && !methodChoices(kinds).includes(method)) setMethod("auto");
              }}
            >
              <option value="">All items</option>
              {items.map((i) => (
                <option key={i.name} value={i.name}>
                  {i.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field
          label="Method"
          error={apiError("method")}
          hint={
            method === "auto"
              ? "Auto keeps the simplest method unless a more flexible one is clearly better on held-out fit data."
              : "Forced: fitted as you chose, no selection; the comparison is still shown as advice."
          }
        >
          {(a) => (
            <select {...a} value={method} onChange={(e) => setMethod(e.target.value as MethodName | "auto")}>
              <option value="auto">Auto (chosen by cross-fitting)</option>
              {choices.map((m) => (
                <option key={m} value={m}>
                  {METHOD_LABELS[m]}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field
          label="Compare candidates on"
          error={apiError("selectionSplit")}
          hint={`Never on the split the results are reported on. Fitted on ${fitSplit}.`}
        >
          {(a) => (
            <select
              {...a}
              value={method === "auto" ? selectOn : "crossfit"}
              disabled={method !== "auto"}
              onChange={(e) => setSelectOn(e.target.value as "crossfit" | Split)}
            >
              <option value="crossfit">5-fold cross-fits of {fitSplit}</option>
              {selectionSplits.map((s) => (
                <option key={s} value={s}>
                  the separate {s} split
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field
          label="Report on"
          error={apiError("evalSplit")}
          hint={
            evalSplit === "crossfit"
              ? `Cross-fit estimates on ${fitSplit}: not untouched held-out data, so somewhat optimistic.`
              : `Evaluated once on ${evalSplit}, which selection never reads.`
          }
        >
          {(a) => (
            <select
              {...a}
              value={evalSplit}
              onChange={(e) => {
                const v = e.target.value as Split | "crossfit";
                setEvalSplit(v);
                if (v === selectOn) setSelectOn("crossfit");
              }}
            >
              {others.map((s) => (
                <option key={s} value={s}>
                  {s} split
                </option>
              ))}
              <option value="crossfit">cross-fit estimates on {fitSplit}</option>
            </select>
          )}
        </Field>
        <Field
          label="Target risk (%)"
          error={error ?? apiError("targetRisk")}
          hint="The escalation threshold keeps the answered-alone error under this."
        >
          {(a) => (
            <input
              {...a}
              inputMode="decimal"
              value={targetRisk}
              onChange={(e) => setTargetRisk(e.target.value)}
            />
          )}
        </Field>
        <Field
          label="Compare by"
          error={apiError("select")}
          hint="The held-out score candidates are compared on."
        >
          {(a) => (
            <select {...a} value={select} onChange={(e) => setSelect(e.target.value as "nll" | "brier")}>
              <option value="nll">NLL</option>
              <option value="brier">Brier score</option>
            </select>
          )}
        </Field>
        <label className="check">
          <input type="checkbox" checked={conservative} onChange={(e) => setConservative(e.target.checked)} />
          Conservative threshold{" "}
          <span className="muted small">— use the upper confidence bound of the error</span>
        </label>
      </div>
      {others.length === 0 && (
        <p className="banner banner-info" role="note">
          This run has only the {fitSplit} split: the calibrator is fitted on it and the after-metrics are
          cross-fit estimates on the same rows, not untouched held-out data.
        </p>
      )}
      {fit.error && !onFields && <ErrorState error={fit.error} title="The calibration could not be fitted" />}
      {onFields && (
        <FormErrors errors={[...Object.values(refused.byField), ...refused.rest]}>
          <TechnicalDetails error={fit.error} />
        </FormErrors>
      )}
      <div className="form-actions">
        <button type="submit" className="button primary" disabled={fit.isPending}>
          {fit.isPending ? "Fitting…" : "Fit calibration"}
        </button>
        <span className="muted small">Nothing calls the server: the stored answers are used.</span>
      </div>
    </form>
  );
}
