// ROUTER_URL as the address to dial: host (IPv6 without brackets), port (the scheme's default when
// none is given), and whether it is TLS.

export interface RouterAddress {
  url: string;
  host: string;
  port: number;
  secure: boolean;
}

export function routerAddress(url: string): RouterAddress {
  const parsed = new URL(url);
  const secure = parsed.protocol === "wss:";
  return {
    url,
    host: parsed.hostname.replace(/^\[|\]$/g, ""),
    port: parsed.port ? Number(parsed.port) : secure ? 443 : 80,
    secure,
  };
}

export const hostPort = (address: { host: string; port: number }) =>
  address.host.includes(":") ? `[${address.host}]:${address.port}` : `${address.host}:${address.port}`;
