/** The run headline (accuracy, ECE over every item): the analysis module's `headlineMetrics`. */

export { headlineMetrics } from "../analysis/headline.js";
