/** The self-signed TLS setup the transport tests share. */

/**
 * A self-signed CA and a server certificate for 127.0.0.1 signed by it, made once with openssl
 * (TLS libraries refuse a CA certificate used as the server's own).
 */
let tlsPair: { cert: string; key: string; ca: string } | null = null;
export async function selfSigned(): Promise<{ cert: string; key: string; ca: string }> {
  if (tlsPair) return tlsPair;
  const dir = await Deno.makeTempDir();
  const openssl = async (...args: string[]) => {
    const out = await new Deno.Command("openssl", { args, stdout: "null", stderr: "piped" })
      .output();
    if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  };
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  await openssl(
    "req",
    "-x509",
    ...ec,
    "-days",
    "2",
    "-subj",
    "/CN=reprise test CA",
    "-keyout",
    `${dir}/ca.key`,
    "-out",
    `${dir}/ca.pem`,
  );
  await openssl(
    "req",
    "-x509",
    ...ec,
    "-days",
    "2",
    "-subj",
    "/CN=127.0.0.1",
    "-CA",
    `${dir}/ca.pem`,
    "-CAkey",
    `${dir}/ca.key`,
    "-addext",
    "subjectAltName=IP:127.0.0.1,DNS:localhost",
    "-addext",
    "basicConstraints=critical,CA:FALSE",
    "-keyout",
    `${dir}/key.pem`,
    "-out",
    `${dir}/cert.pem`,
  );
  tlsPair = {
    cert: await Deno.readTextFile(`${dir}/cert.pem`),
    key: await Deno.readTextFile(`${dir}/key.pem`),
    ca: await Deno.readTextFile(`${dir}/ca.pem`),
  };
  await Deno.remove(dir, { recursive: true });
  return tlsPair;
}
