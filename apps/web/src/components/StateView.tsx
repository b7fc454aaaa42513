/** An example's state: text as text, a mapping as a list of fields, anything else as JSON. */
import { useScrollFocus } from "./ScrollRegion";

/** Text in a box that scrolls when it is long, and then takes focus so keys scroll it. */
function StateText({ text }: { text: string }) {
  const { ref, props } = useScrollFocus<HTMLPreElement>("State");
  return (
    <pre ref={ref} className="state-text" {...props}>
      {text}
    </pre>
  );
}

/** The view. */
export function StateView({ state }: { state: unknown }) {
  if (typeof state === "string") return <StateText text={state} />;
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
  return <StateText text={JSON.stringify(state, null, 2)} />;
}
