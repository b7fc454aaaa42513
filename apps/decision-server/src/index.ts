/** The reference decision service: real classical models, the wire format, validation and fault injection. */

/** The environment variable that moves the checkpoint cache. */
export { CACHE_DIR_ENV } from "./bayes/cache.js";
/** The checkpoint versions, the alias name and its default target. */
export { DEFAULT_LATEST, LATEST_ALIAS, VERSIONS } from "./bayes/versions.js";
/** Command-line flags read with node:util's parseArgs, and the one error a bad command line raises. */
export { type FlagSpec, parseFlags, UsageError } from "./cli/flags.js";
/** Fault plan types. */
export type { Fault, FaultPlan, FaultRule } from "./faults/plan.js";
/** Checks a fault plan object / parses a fault plan file's text (throws FaultPlanError). */
export { FAULT_KINDS, FaultPlanError, parseFaultPlan, validateFaultPlan } from "./faults/plan.js";
/** Rate limits: the option's type, its text form's parser and its error. */
export { parseRateLimit, type RateLimit, RateLimitError } from "./http/rateLimit.js";
/** Options, the running handle, and one received request. */
export type { DecisionServerHandle, DecisionServerOptions, ReceivedRequest } from "./server.js";
/** Starts the server; resolves once it listens. */
export { startDecisionServer } from "./server.js";
