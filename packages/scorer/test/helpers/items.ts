/** Small items the tests against scripted and reference servers ask about. */

import type { Item } from "../../src/index.js";

/** A yes/no item (its question is q0 of a request that asks only it). */
export const urgent: Item = { name: "urgent", kind: "yesno", question: "Is it urgent?" };

/** A choice of two teams. */
export const team: Item = {
  name: "team",
  kind: "choice",
  question: "Which team?",
  options: ["billing", "shipping"],
};
