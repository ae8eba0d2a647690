// One reported number. `target` is what it should be (human-readable) and `met` whether it is;
// both null when the figure is context for another one (e.g. the raw ws baseline).

export interface Figure {
  name: string;
  value: number | null;
  unit: string;
  target: string | null;
  met: boolean | null;
  /** Conditions that matter for reading the value (configured timeouts, counts reached, errors). */
  note?: string;
}

export function info(name: string, value: number | null, unit: string, note?: string): Figure {
  return { name, value, unit, target: null, met: null, ...(note ? { note } : {}) };
}

export function atMost(
  name: string,
  value: number | null,
  unit: string,
  limit: number,
  note?: string,
): Figure {
  return bounded(name, value, unit, note, "≤", limit, (v) => v <= limit);
}

export function atLeast(
  name: string,
  value: number | null,
  unit: string,
  limit: number,
  note?: string,
): Figure {
  return bounded(name, value, unit, note, "≥", limit, (v) => v >= limit);
}

function bounded(
  name: string,
  value: number | null,
  unit: string,
  note: string | undefined,
  sign: string,
  limit: number,
  meets: (value: number) => boolean,
): Figure {
  const target = `${sign} ${limit}${unit && unit !== "×" ? ` ${unit}` : ""}`;
  const met = value === null ? false : meets(value);
  return { name, value, unit, target, met, ...(note ? { note } : {}) };
}

/** Stands in for the figures of a measurement that could not run, so the report says so. */
export function failed(name: string, error: unknown): Figure {
  const message = error instanceof Error ? error.message : String(error);
  return { name, value: null, unit: "", target: null, met: false, note: `failed: ${message}` };
}
