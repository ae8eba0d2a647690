// The programs `phonework` runs, by the names the command line, the doctor and the service units use.

export const APPS = ["router", "host", "standalone"] as const;
export type AppName = (typeof APPS)[number];
