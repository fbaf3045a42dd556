/**
 * CIDR ranges in `no_proxy` (`10.0.0.0/8`, `fd00::/8`), as curl reads them since 7.86: an entry
 * with a prefix length matches a host given as an IP address inside the range. A host name is
 * never resolved to match one.
 */

/** The IPv4 address `text` as a number, or null when it is not one (four decimal octets). */
function ipv4(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return null;
    n = n * 256 + Number(p);
  }
  return n;
}

/** The IPv6 address `text` (without brackets or zone) as a 128-bit number, or null. */
function ipv6(text: string): bigint | null {
  if (!text.includes(":")) return null;
  let s = text;
  // A trailing IPv4 part (`::ffff:10.0.0.1`) becomes two groups.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (v4) {
    const n = ipv4(v4[1]);
    if (n === null) return null;
    s = s.slice(0, v4.index) + `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] === "" ? [] : halves[0].split(":");
  const tail = halves.length === 2 && halves[1] !== "" ? halves[1].split(":") : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  let n = 0n;
  for (const g of groups) {
    if (!/^[0-9a-f]{1,4}$/i.test(g)) return null;
    n = (n << 16n) | BigInt(parseInt(g, 16));
  }
  return n;
}

/**
 * True when `entry` is a CIDR range (`address/bits`) and `host` an IP address of the same family
 * inside it; false otherwise (a host name, another family, a malformed range).
 */
export function cidrMatches(entry: string, host: string): boolean {
  const slash = entry.indexOf("/");
  if (slash < 0) return false;
  const base = entry.slice(0, slash).replace(/^\[(.*)\]$/, "$1");
  const bitsText = entry.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bitsText)) return false;
  const bits = Number(bitsText);
  const a4 = ipv4(base);
  if (a4 !== null) {
    const h = ipv4(host);
    if (h === null || bits > 32) return false;
    if (bits === 0) return true;
    const shift = 32 - bits;
    return Math.floor(a4 / 2 ** shift) === Math.floor(h / 2 ** shift);
  }
  const a6 = ipv6(base);
  const h6 = ipv6(host.replace(/%.*$/, ""));
  if (a6 === null || h6 === null || bits > 128) return false;
  const shift = BigInt(128 - bits);
  return (a6 >> shift) === (h6 >> shift);
}
