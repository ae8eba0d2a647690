// Protocol versions this build speaks. Within a version, changes are additive only:
// new optional fields or new frame types that an older peer can safely ignore.
export const PROTOCOL_VERSIONS = [1] as const;
export const CURRENT_PROTOCOL_VERSION = 1;

/** Highest version both sides speak, or undefined when they share none. */
export function negotiateVersion(
  offered: readonly number[],
  supported: readonly number[] = PROTOCOL_VERSIONS,
) {
  const common = offered.filter((v) => supported.includes(v));
  return common.length > 0 ? Math.max(...common) : undefined;
}
