/** The validated shape of one POST /v1/decision request. */

/** One option of a choice or score question (noul questions have none). */
export interface OptionSpec {
  name: string;
  description: string | null;
}

/** A validated question: `options` holds the choice criteria or score levels in request order. */
export interface Question {
  id: string;
  type: "choice" | "noul" | "score";
  instructions: string;
  options: OptionSpec[];
  /** noul only: what "true" (yes) and "false" (no) mean, when the request says. */
  yes?: string | null;
  no?: string | null;
}

/** The server options of the wire format (`options` in the body). */
export interface ServerOptions {
  think: boolean;
  maxThink: number | null;
  nothinkThreshold: number | null;
  returnReasoning: boolean;
}

/** A validated request. */
export interface DecisionRequest {
  model: string;
  state: unknown;
  questions: Question[];
  options: ServerOptions;
}
