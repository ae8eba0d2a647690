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

/** A figure with a target: `limit` on one side, the value in `unit` (a ratio is unit "×"). */
type Targeted = (name: string, value: number | null, unit: string, limit: number, note?: string) => Figure;

export const atMost = targeted("≤", (value, limit) => value <= limit);
export const atLeast = targeted("≥", (value, limit) => value >= limit);

function targeted(sign: string, meets: (value: number, limit: number) => boolean): Targeted {
  return (name, value, unit, limit, note) => {
    const target = `${sign} ${limit}${unit && unit !== "×" ? ` ${unit}` : ""}`;
    const met = value === null ? false : meets(value, limit);
    return { name, value, unit, target, met, ...(note ? { note } : {}) };
  };
}

/** Stands in for the figures of a measurement that could not run, so the report says so. */
export function failed(name: string, error: unknown): Figure {
  const message = error instanceof Error ? error.message : String(error);
  return { name, value: null, unit: "", target: null, met: false, note: `failed: ${message}` };
}
