/**
 * Where the push listener binds (config `push.listen`). Given: an IP address as it is, or the name of one of this
 * machine's interfaces (`eth0`: its IPv4 address, else an IPv6 one, link-local last). Not given: `push.address`
 * when it is one of this machine's own addresses, so the listener is reachable only where the devices call it;
 * otherwise (the bridge behind a port mapping: Docker's bridge network, NAT, or `push.address` a host name) every
 * address, since the address the devices call is then not one a socket here can bind.
 */
import { isIP } from 'node:net';
import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';

export interface ListenChoice {
  host: string;
  /** Why this address, for the log line that says where the listener is. */
  why: string;
}

type Interfaces = NodeJS.Dict<NetworkInterfaceInfo[]>;

export function listenAddress(listen: string | undefined, pushAddress: string, interfaces: Interfaces = networkInterfaces()): ListenChoice {
  const named = (name: string) => {
    const addrs = interfaces[name] ?? [];
    const a = addrs.find((x) => x.family === 'IPv4') ?? addrs.find((x) => !/^fe80:/i.test(x.address)) ?? addrs[0];
    // A link-local IPv6 address binds only with its interface named.
    return a && /^fe80:/i.test(a.address) ? `${a.address}%${name}` : a?.address;
  };
  if (listen !== undefined) {
    if (isIP(listen)) return { host: listen, why: 'push.listen' };
    const host = named(listen);
    if (host) return { host, why: `push.listen: interface ${listen}` };
    const names = Object.keys(interfaces).join(', ');
    throw new Error(`push.listen: "${listen}" is neither an IP address nor an interface of this machine (interfaces: ${names})`);
  }
  const own = Object.values(interfaces).some((addrs) => addrs?.some((a) => a.address === pushAddress));
  return own
    ? { host: pushAddress, why: 'push.address, one of this machine' }
    : { host: '0.0.0.0', why: `every address: push.address ${pushAddress} is not one of this machine (port mapping, NAT)` };
}
