/** The service's reasoning as text blocks, whatever shape the reply gave it. */

/** One block: an optional label (the option, for multi-label items) and its text. */
export interface ReasoningBlock {
  label?: string;
  text: string;
  /** Reasoning tokens the service reported, when it did. */
  tokens?: number;
}

function block(value: unknown, label?: string): ReasoningBlock | null {
  if (typeof value === "string") return value.trim() ? { label, text: value } : null;
  if (value && typeof value === "object" && typeof (value as { text?: unknown }).text === "string") {
    const v = value as { text: string; tokens?: unknown };
    return {
      label,
      text: v.text,
      tokens: typeof v.tokens === "number" && v.tokens > 0 ? v.tokens : undefined,
    };
  }
  return null;
}

/**
 * Text blocks of a decision's reasoning: a string, a `{text, tokens, thought}` object, or (multi-label) one of
 * those per option. Anything else is shown as JSON rather than dropped.
 */
export function reasoningBlocks(reasoning: unknown): ReasoningBlock[] {
  if (reasoning === null || reasoning === undefined) return [];
  if (typeof reasoning === "string") return reasoning.trim() ? [{ text: reasoning }] : [];
  const one = block(reasoning);
  if (one) return [one];
  if (typeof reasoning === "object" && !Array.isArray(reasoning)) {
    const out: ReasoningBlock[] = [];
    for (const [k, v] of Object.entries(reasoning as Record<string, unknown>)) {
      const b = block(v, k);
      if (b) out.push(b);
    }
    if (out.length) return out;
  }
  return [{ text: JSON.stringify(reasoning, null, 2) }];
}
