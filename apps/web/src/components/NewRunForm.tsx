/** The new-run form wired to the API: loads datasets and servers, starts the run, opens it. */
import { useNavigate } from "react-router";
import { useDatasets } from "../api/datasets";
import { useStartRun } from "../api/runs";
import { useServers } from "../api/servers";
import { defaultRunForm, type RunFormValues } from "../transforms/runForm";
import { RunEstimateLine } from "./RunEstimateLine";
import { RunForm } from "./RunForm";
import { Empty, ErrorState, Loading } from "./States";

/** The form with its data; `prefill` comes from the URL or a call to action. */
export function NewRunForm({
  prefill,
  submitLabel,
}: {
  prefill?: Partial<Pick<RunFormValues, "dataset" | "serverId" | "model">>;
  submitLabel?: string;
}) {
  const datasets = useDatasets();
  const servers = useServers();
  const start = useStartRun();
  const navigate = useNavigate();
  if (datasets.error)
    return (
      <ErrorState
        error={datasets.error}
        title="Datasets could not be loaded"
        retry={() => datasets.refetch()}
      />
    );
  if (servers.error)
    return (
      <ErrorState error={servers.error} title="Servers could not be loaded" retry={() => servers.refetch()} />
    );
  if (!datasets.data || !servers.data) return <Loading label="Loading datasets and servers…" />;
  if (servers.data.length === 0)
    return (
      <Empty title="No decision server yet">
        Add one on the Servers page, then come back to start a run.
      </Empty>
    );
  const initial = defaultRunForm(datasets.data, servers.data, prefill);
  return (
    <RunForm
      key={`${initial.dataset}|${initial.serverId}`}
      datasets={datasets.data}
      servers={servers.data}
      initial={initial}
      submitting={start.isPending}
      error={start.error ?? undefined}
      submitLabel={submitLabel}
      estimate={(input) => <RunEstimateLine input={input} />}
      onSubmit={(input) => start.mutate(input, { onSuccess: (run) => navigate(`/runs/${run.id}`) })}
    />
  );
}
