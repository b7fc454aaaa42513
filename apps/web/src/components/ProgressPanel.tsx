/** Live run progress: bar, decision counts, latency, usage and cost; "Preparing N examples" before the first answer. */
import type { Progress, RunStatus } from "@decision-workbench/api/shapes";
import { budgetText } from "../transforms/cost";
import { count, duration, pct, usd } from "../transforms/format";
import { progressView } from "../transforms/progress";

/**
 * The panel; `live` tells whether updates are streaming. The remaining time shows only while the run is running;
 * before its first answer the panel says it is preparing the run's examples (the server may take seconds to load).
 */
export function ProgressPanel({
  progress,
  status,
  live,
}: {
  progress: Progress;
  status: RunStatus;
  live: boolean;
}) {
  const v = progressView(progress, status);
  const budget = budgetText(progress);
  return (
    <section className="panel progress-panel" aria-label="Run progress">
      <div className="progress-head">
        <strong>{v.doneText} examples</strong>
        <span className="muted" data-testid="progress-pace">
          {live ? "live" : "last known"}
          {v.phase !== "preparing" && progress.examplesPerSecond > 0
            ? ` · ${progress.examplesPerSecond.toFixed(1)} examples/s`
            : ""}
          {v.etaSeconds !== null && v.etaSeconds > 0 ? ` · about ${duration(v.etaSeconds * 1000)} left` : ""}
        </span>
      </div>
      {v.preparingText && (
        <p className="preparing" role="status" data-testid="run-preparing">
          <span className="preparing-spinner" aria-hidden="true" />
          <strong>{v.preparingText}</strong>{" "}
          <span className="muted small">
            {status === "queued"
              ? "The run waits for a worker."
              : "Sending the first requests; the server may take a few seconds to load its model before it answers."}
          </span>
        </p>
      )}
      <progress
        className="progress-bar"
        max={100}
        value={v.percent}
        aria-label={`${v.percent.toFixed(0)}% done`}
      />
      {v.rateLimitText && (
        <p className="banner banner-info" role="status">
          {v.rateLimitText}
        </p>
      )}
      {budget && (
        <p className="muted small" data-testid="run-budget">
          Budget: {budget}. The run stops before a request would go past a cap; resume it with a higher one.
        </p>
      )}
      <p className="muted small">One decision per example and item.</p>
      <dl className="stats">
        <div>
          <dt>Answered decisions</dt>
          <dd>
            {count(progress.answered)} <span className="muted">({pct(v.answeredShare, 0)})</span>
          </dd>
        </div>
        <div>
          <dt>Not stated (Unknown)</dt>
          <dd>
            {count(progress.unknown)} <span className="muted">({pct(v.unknownShare, 0)})</span>
          </dd>
        </div>
        <div>
          <dt>Escalated</dt>
          <dd>
            {count(progress.escalated)} <span className="muted">({pct(v.escalatedShare, 0)})</span>
          </dd>
        </div>
        <div>
          <dt>Errors</dt>
          <dd>{count(progress.errors)}</dd>
        </div>
        <div>
          <dt>Latency p50 / p90 / p99</dt>
          <dd>
            {duration(progress.latency.p50)} / {duration(progress.latency.p90)} /{" "}
            {duration(progress.latency.p99)}
          </dd>
        </div>
        <div>
          <dt>Tokens in / out / reasoning</dt>
          <dd>
            {count(progress.usage.input_tokens)} / {count(progress.usage.output_tokens)} /{" "}
            {count(progress.usage.reasoning_tokens)}
          </dd>
        </div>
        <div>
          <dt>Cost</dt>
          <dd>{usd(progress.cost)}</dd>
        </div>
      </dl>
    </section>
  );
}
