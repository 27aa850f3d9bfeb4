import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

// An OTLP/HTTP trace receiver on loopback (docs/tracing.md "Checking it"): it decodes what the
// server's exporter sends, in both protocols — http/json, and http/protobuf read with the
// minimal protobuf wire reader below (the OTLP trace messages' fields, by number) — into one
// flat list of spans.

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string }>;
  status?: { code?: number };
  service: string;
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  /** Every body as received (protobuf bodies as latin1 text), for "never contains" checks. */
  payloads: string[];
  /** The authorization header of every export. */
  headers: string[];
  /** The content type of every export. */
  contentTypes: string[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const payloads: string[] = [];
  const headers: string[] = [];
  const contentTypes: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const type = String(req.headers["content-type"] ?? "");
      contentTypes.push(type);
      headers.push(String(req.headers.authorization ?? ""));
      if (type.includes("json")) {
        payloads.push(body.toString("utf8"));
        spans.push(...fromJson(JSON.parse(body.toString("utf8"))));
      } else {
        payloads.push(body.toString("latin1"));
        spans.push(...fromProtobuf(body));
      }
      res.writeHead(200, { "content-type": type.includes("json") ? "application/json" : "application/x-protobuf" });
      res.end(type.includes("json") ? "{}" : "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    payloads,
    headers,
    contentTypes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type JsonKeyValue = { key: string; value: Record<string, unknown> };

function fromJson(body: {
  resourceSpans?: Array<{ resource?: { attributes?: JsonKeyValue[] }; scopeSpans?: Array<{ spans?: any[] }> }>;
}): ReceivedSpan[] {
  const value = (v: Record<string, unknown>): unknown =>
    v.stringValue ?? (v.intValue === undefined ? undefined : Number(v.intValue)) ?? v.boolValue ?? v.doubleValue;
  const attrs = (list: JsonKeyValue[] = []) => Object.fromEntries(list.map((a) => [a.key, value(a.value)]));
  return (body.resourceSpans ?? []).flatMap((rs) => {
    const service = String(attrs(rs.resource?.attributes)["service.name"]);
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId || undefined,
        name: s.name,
        kind: s.kind,
        attributes: attrs(s.attributes),
        links: (s.links ?? []).map((l: { traceId: string; spanId: string }) => ({
          traceId: l.traceId,
          spanId: l.spanId,
        })),
        status: s.status,
        service,
      })),
    );
  });
}

/** The fields of one protobuf message: field number → its values, in order (length-delimited ones as bytes). */
function fields(buffer: Buffer): Map<number, Array<bigint | Buffer>> {
  const out = new Map<number, Array<bigint | Buffer>>();
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = buffer[at++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (at < buffer.length) {
    const tag = Number(varint());
    const [field, wire] = [tag >>> 3, tag & 7];
    let value: bigint | Buffer;
    if (wire === 0) value = varint();
    else if (wire === 1) {
      value = buffer.readBigUInt64LE(at);
      at += 8;
    } else if (wire === 2) {
      const length = Number(varint());
      value = buffer.subarray(at, at + length);
      at += length;
    } else if (wire === 5) {
      value = BigInt(buffer.readUInt32LE(at));
      at += 4;
    } else throw new Error(`protobuf wire type ${wire} is not one OTLP traces use`);
    out.set(field, [...(out.get(field) ?? []), value]);
  }
  return out;
}

const bytes = (m: Map<number, Array<bigint | Buffer>>, field: number) => m.get(field)?.[0] as Buffer | undefined;
const all = (m: Map<number, Array<bigint | Buffer>>, field: number) => (m.get(field) ?? []) as Buffer[];
const text = (m: Map<number, Array<bigint | Buffer>>, field: number) => bytes(m, field)?.toString("utf8");

/** KeyValue {1 key, 2 AnyValue {1 string, 2 bool, 3 int, 4 double}}. */
function protoAttributes(list: Buffer[]): Record<string, unknown> {
  return Object.fromEntries(
    list.map((kv) => {
      const f = fields(kv);
      const v = fields(bytes(f, 2) ?? Buffer.alloc(0));
      const value =
        text(v, 1) ??
        (v.has(2) ? v.get(2)![0] === 1n : undefined) ??
        (v.has(3) ? Number(BigInt.asIntN(64, v.get(3)![0] as bigint)) : undefined) ??
        (v.has(4) ? Buffer.from(new BigUint64Array([v.get(4)![0] as bigint]).buffer).readDoubleLE(0) : undefined);
      return [text(f, 1) ?? "", value];
    }),
  );
}

/** ExportTraceServiceRequest {1 ResourceSpans {1 Resource {1 attributes}, 2 ScopeSpans {2 Span}}}. */
function fromProtobuf(body: Buffer): ReceivedSpan[] {
  return all(fields(body), 1).flatMap((resourceSpans) => {
    const rs = fields(resourceSpans);
    const resource = fields(bytes(rs, 1) ?? Buffer.alloc(0));
    const service = String(protoAttributes(all(resource, 1))["service.name"]);
    return all(rs, 2).flatMap((scopeSpans) =>
      all(fields(scopeSpans), 2).map((encoded) => {
        // Span {1 trace_id, 2 span_id, 4 parent_span_id, 5 name, 6 kind, 9 attributes, 13 links, 15 status {3 code}}
        const s = fields(encoded);
        const parent = bytes(s, 4);
        const status = fields(bytes(s, 15) ?? Buffer.alloc(0));
        return {
          traceId: bytes(s, 1)!.toString("hex"),
          spanId: bytes(s, 2)!.toString("hex"),
          parentSpanId: parent !== undefined && parent.length > 0 ? parent.toString("hex") : undefined,
          name: text(s, 5) ?? "",
          kind: Number(s.get(6)?.[0] ?? 0n),
          attributes: protoAttributes(all(s, 9)),
          links: all(s, 13).map((link) => {
            const l = fields(link);
            return { traceId: bytes(l, 1)!.toString("hex"), spanId: bytes(l, 2)!.toString("hex") };
          }),
          status: { code: Number(status.get(3)?.[0] ?? 0n) },
          service,
        };
      }),
    );
  });
}
