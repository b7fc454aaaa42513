/** Chart colours (Okabe-Ito, colour-blind safe) with enough contrast on white. */
export const COLORS = {
  point: "#0072B2",
  sparse: "#9ca3af",
  diagonal: "#4b5563",
  over: "#D55E00",
  under: "#0072B2",
  right: "#0072B2",
  wrong: "#D55E00",
  precision: "#0072B2",
  recall: "#009E73",
  f1: "#CC79A7",
  grid: "#e5e7eb",
  axis: "#374151",
  count: "#6b7280",
  marker: "#111827",
} as const;

/** Axis tick style. */
export const TICK = { fill: "#374151", fontSize: 12 } as const;
/** Axis label style. */
export const AXIS_LABEL = { fill: "#111827", fontSize: 12, fontWeight: 600 } as const;
