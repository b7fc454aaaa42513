/** An example's state: text as text, a mapping as a list of fields, anything else as JSON. */

/** The view. */
export function StateView({ state }: { state: unknown }) {
  if (typeof state === "string") return <pre className="state-text">{state}</pre>;
  if (state && typeof state === "object" && !Array.isArray(state)) {
    return (
      <dl className="kv">
        {Object.entries(state as Record<string, unknown>).map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{typeof v === "string" ? v : JSON.stringify(v)}</dd>
          </div>
        ))}
      </dl>
    );
  }
  return <pre className="state-text">{JSON.stringify(state, null, 2)}</pre>;
}
