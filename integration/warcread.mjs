// warcread.mjs FILE... reads WARC files with warcio (webrecorder's reader,
// independent of ours) and prints one JSON object a record: its type,
// target URI, id, WARC-Concurrent-To, the digests it declares and the
// SHA-1 (base 32) and SHA-256 (hex) of the payload as warcio returns it
// (readFully(false): for HTTP records the body after the headers, as
// sent). integration/warc_test.go installs warcio@2.4.11 beside a copy of
// this file and checks the output.
import fs from "node:fs";
import crypto from "node:crypto";
import { WARCParser } from "warcio";

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

// base32 is RFC 4648 base 32 with padding, the form of WARC digests.
function base32(buf) {
  let bits = 0, value = 0, out = "";
  for (const b of buf) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  while (out.length % 8) out += "=";
  return out;
}

for (const file of process.argv.slice(2)) {
  for await (const record of WARCParser.iterRecords(fs.createReadStream(file))) {
    const payload = Buffer.from(await record.readFully(false));
    console.log(JSON.stringify({
      file,
      type: record.warcType,
      uri: record.warcTargetURI || "",
      id: record.warcHeader("WARC-Record-ID") || "",
      concurrentTo: record.warcHeader("WARC-Concurrent-To") || "",
      ip: record.warcHeader("WARC-IP-Address") || "",
      contentType: record.warcHeader("Content-Type") || "",
      declaredPayload: record.warcPayloadDigest || "",
      declaredBlock: record.warcHeader("WARC-Block-Digest") || "",
      sha1: "sha1:" + base32(crypto.createHash("sha1").update(payload).digest()),
      sha256: crypto.createHash("sha256").update(payload).digest("hex"),
      length: payload.length,
      text: payload.length < 4096 ? payload.toString("latin1") : "",
    }));
  }
}
