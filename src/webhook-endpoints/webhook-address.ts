import { lookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses a webhook may be sent to. Only ordinary public unicast addresses: loopback,
 * private, link-local, multicast, unspecified, carrier-grade NAT, reserved and the IPv6 ranges
 * that embed or translate IPv4 (6to4, Teredo, NAT64) are refused, so a URL cannot reach the
 * service's own network (SSRF). IPv4-mapped IPv6 addresses are judged as the IPv4 they carry.
 * The ranges are ipaddr.js's, not a list of our own.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) parsed = v6.toIPv4Address();
    else if (isIPv4Compatible(v6)) parsed = embeddedIPv4(v6);
  }
  return parsed.range() === 'unicast';
}

/**
 * `::a.b.c.d` (IPv4-compatible, deprecated but still routed to the IPv4 by some stacks): the
 * first 96 bits zero. ipaddr.js calls `::7f00:1` ordinary unicast, so it is judged here as the
 * IPv4 it carries (127.0.0.1), like a mapped address.
 */
function isIPv4Compatible(address: ipaddr.IPv6): boolean {
  return address.parts.slice(0, 6).every((part) => part === 0);
}

function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 {
  const [high = 0, low = 0] = address.parts.slice(6);
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/** A host name of a URL without the brackets of an IPv6 literal. */
export function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

/** Every address the system resolver gives for a name (what a connection would try). */
export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    const options: LookupAllOptions = { all: true, verbatim: true };
    lookup(hostname, options, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });

export class RefusedAddressError extends Error {
  constructor(readonly host: string) {
    super(`${host} resolves to an address webhooks may not be sent to (loopback, private, link-local or similar).`);
    this.name = 'RefusedAddressError';
  }
}

/**
 * The addresses to connect to for `hostname`, every one of them public unless private ones are
 * allowed; throws RefusedAddressError otherwise (one refused address refuses the name, so a name
 * cannot mix a public address with an internal one).
 */
export async function allowedAddresses(
  hostname: string,
  allowPrivate: boolean,
  resolve: Resolver,
): Promise<LookupAddress[]> {
  const host = bareHost(hostname);
  const addresses = ipaddr.isValid(host)
    ? [{ address: host, family: host.includes(':') ? 6 : 4 }]
    : await resolve(host);
  if (addresses.length === 0) throw new RefusedAddressError(host);
  if (!allowPrivate && addresses.some((a) => !isPublicAddress(a.address))) throw new RefusedAddressError(host);
  return addresses;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls connections that resolves with `resolve` and refuses what
 * `allowedAddresses` refuses: the check happens at connect time, on the addresses really used,
 * so a name that changes its answer after the endpoint was saved (DNS rebinding) is still refused.
 */
export function guardedLookup(allowPrivate: boolean, resolve: Resolver) {
  return (hostname: string, options: { all?: boolean } | number | undefined, callback: LookupCallback): void => {
    allowedAddresses(hostname, allowPrivate, resolve).then(
      (addresses) => {
        const all = typeof options === 'object' && options.all === true;
        const [first] = addresses;
        if (all) callback(null, addresses);
        else callback(null, first?.address ?? '', first?.family ?? 4);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, ''),
    );
  };
}
