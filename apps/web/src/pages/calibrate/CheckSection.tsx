/** The calibrate page's check: pick a calibration, check the run against it, show the verdict (state in the URL). */

import type { RunSummary } from "@decision-workbench/api/shapes";
import { useEffect, useRef } from "react";
import { useSearchParams } from "react-router";
import { useAllCalibrations, useRunCheck } from "../../api/calibrations";
import { CheckForm } from "../../components/CheckForm";
import { CheckVerdict } from "../../components/CheckVerdict";
import { ErrorState, Loading } from "../../components/States";
import { calibrationGroups } from "../../transforms/check";
import { checkFormProblems } from "../../transforms/checkForm";
import { readSplit } from "../../transforms/urlState";
import { useSearchPatch } from "../useSearchPatch";

/** `?check=<calibration id>&checkSplit=` checks the run; `preferred` (a file just imported) is picked in the form. */
export function CheckSection({ run, preferred }: { run: RunSummary; preferred?: string }) {
  const [sp] = useSearchParams();
  const patch = useSearchPatch();
  const all = useAllCalibrations();
  const calibrationId = sp.get("check") ?? undefined;
  const split = readSplit(sp.get("checkSplit"));
  const check = useRunCheck(run.id, { calibrationId, split });
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    if (window.location.hash === "#check") ref.current?.scrollIntoView();
  }, []);
  const checked = all.data?.find((c) => c.id === calibrationId);
  // a refusal the form puts on its fields is shown there, not again here
  const checkOnField = Object.keys(checkFormProblems(check.error).byField).length > 0;
  return (
    <section className="panel" id="check" ref={ref} aria-labelledby="check-heading">
      <h2 id="check-heading">Check this run against a calibration</h2>
      <p className="muted">
        Before applying a calibration to new answers, check that it still describes the service: the same
        model versions served the run, and under the file's calibrator each question's ECE and answered-alone
        error stay inside the intervals the file recorded.
      </p>
      {all.error && !all.data ? (
        <ErrorState
          error={all.error}
          title="The calibrations could not be listed"
          retry={() => all.refetch()}
        />
      ) : !all.data ? (
        <Loading label="Loading the calibrations…" />
      ) : (
        <CheckForm
          groups={calibrationGroups(all.data, run)}
          splits={run.splits}
          preferred={{ calibrationId: preferred ?? calibrationId, split }}
          checking={check.isFetching}
          error={check.error ?? undefined}
          onCheck={(c) => {
            if (c.calibrationId === calibrationId && c.split === split) check.refetch();
            else patch({ check: c.calibrationId, checkSplit: c.split }, { push: true });
          }}
        />
      )}
      {check.error && !checkOnField && (
        <ErrorState error={check.error} title="The run could not be checked" />
      )}
      {calibrationId && !check.data && !check.error && <Loading label="Checking the run…" />}
      {calibrationId && check.data && (
        <CheckVerdict report={check.data} calibrationId={calibrationId} file={checked?.file} />
      )}
    </section>
  );
}
