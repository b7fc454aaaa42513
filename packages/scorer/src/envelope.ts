import { errorText } from "./errorText.js";

type Doc = Record<string, unknown>;

/** What a 200's JSON object holds: the reply to read, or the error a gateway put in it. */
export type Unwrapped = { reply: Doc; error?: undefined } | { error: string; reply?: undefined };

/**
 * A 200 body read as the reply, or as the error it carries instead:
 * - with an `answers` member it is the reply;
 * - a gateway error (`{"error": {"message", "metadata": {"raw", "provider_name"}}}` or a string `error`) gives
 *   its error text (the wire format's rules, `errorText`);
 * - an envelope `{result, success, errors, messages}` gives its `result` when `success` is true and `result`
 *   is an object, else the messages of `errors` (`message (code N)`, joined by "; ").
 * Anything else is the reply (and escalates as invalid output when it has no answers).
 */
export function unwrapReply(doc: Doc, text: string): Unwrapped {
  if (typeof doc.answers === "object" && doc.answers !== null) return { reply: doc };
  if ((typeof doc.error === "object" && doc.error !== null) || typeof doc.error === "string") {
    return { error: errorText(text) };
  }
  if (typeof doc.success === "boolean" && ("result" in doc || "errors" in doc)) {
    const result = doc.result;
    if (doc.success && typeof result === "object" && result !== null && !Array.isArray(result)) {
      return { reply: result as Doc };
    }
    return { error: envelopeErrors(doc) };
  }
  return { reply: doc };
}

function envelopeErrors(doc: Doc): string {
  const errors = Array.isArray(doc.errors) ? doc.errors : [];
  const said: string[] = [];
  for (const e of errors) {
    if (typeof e === "string") said.push(e);
    else if (typeof e === "object" && e !== null) {
      const { message, code } = e as { message?: unknown; code?: unknown };
      const text = typeof message === "string" ? message : JSON.stringify(e);
      said.push(code === undefined ? text : `${text} (code ${String(code)})`);
    }
  }
  const text = said.length
    ? said.join("; ")
    : doc.success
      ? "the envelope's result is not a reply object"
      : "success is false and no error message was given";
  return errorText(JSON.stringify({ error: text }));
}
