// Deployable settings of a winner: the `vllm serve` command line of each pool and a Kubernetes
// manifest with one Deployment per pool (co-located, or prefill and decode). The manifest is
// built as objects and written with the yaml package, then parsed back as a check.

import { parseAllDocuments, stringify } from "yaml";
import type { CandidateRow } from "./candidateRows.js";

export interface DeployInput {
  /** The Hugging Face repository to serve (the model name when none is known). */
  hfRepo: string;
  row: CandidateRow;
  gpuMemoryUtilization: number;
  blockSize: number;
  maxModelLen: number;
}

export interface Pool {
  role: "serve" | "prefill" | "decode";
  replicas: number;
  args: string[];
}

/** NIXL moves the KV cache between prefill and decode engines in vLLM's disaggregated serving. */
const KV_TRANSFER = (role: string): string => JSON.stringify({ kv_connector: "NixlConnector", kv_role: role });

export function vllmPools(d: DeployInput): Pool[] {
  const r = d.row;
  const args = [
    "--tensor-parallel-size",
    String(r.tp),
    "--max-num-seqs",
    String(r.max_num_seqs),
    "--max-num-batched-tokens",
    String(r.max_num_batched_tokens),
    "--gpu-memory-utilization",
    String(d.gpuMemoryUtilization),
    "--block-size",
    String(d.blockSize),
    "--enable-chunked-prefill",
    ...(d.maxModelLen > 0 ? ["--max-model-len", String(d.maxModelLen)] : []),
  ];
  if (r.pd === "none") return [{ role: "serve", replicas: r.replicas!, args }];
  return [
    {
      role: "prefill",
      replicas: r.prefill_replicas!,
      args: [...args, "--kv-transfer-config", KV_TRANSFER("kv_producer")],
    },
    {
      role: "decode",
      replicas: r.decode_replicas!,
      args: [...args, "--kv-transfer-config", KV_TRANSFER("kv_consumer")],
    },
  ];
}

function shellQuote(a: string): string {
  return /^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'"'"'`)}'`;
}

/** One `vllm serve` line per pool, with its replica count. */
export function vllmCommands(d: DeployInput): string {
  return (
    vllmPools(d)
      .map(
        (p) =>
          `# ${p.role}: ${p.replicas} replica(s), ${d.row.tp} x ${d.row.gpu} each\nvllm serve ${d.hfRepo} ${p.args.map(shellQuote).join(" ")}`,
      )
      .join("\n") + "\n"
  );
}

function deployment(d: DeployInput, p: Pool): Record<string, unknown> {
  const base = d.hfRepo
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 40);
  const name = `${base}-${p.role}`;
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, labels: { app: base, role: p.role } },
    spec: {
      replicas: p.replicas,
      selector: { matchLabels: { app: base, role: p.role } },
      template: {
        metadata: { labels: { app: base, role: p.role } },
        spec: {
          nodeSelector: { "nvidia.com/gpu.product": d.row.gpu },
          containers: [
            {
              name: "vllm",
              image: "vllm/vllm-openai:latest",
              command: ["vllm", "serve", d.hfRepo, ...p.args],
              ports: [{ containerPort: 8000 }],
              resources: { limits: { "nvidia.com/gpu": d.row.tp } },
            },
          ],
        },
      },
    },
  };
}

/** The manifest (one Deployment per pool), checked to parse back into as many documents. */
export function kubernetesManifest(d: DeployInput): string {
  const pools = vllmPools(d);
  const text =
    "# Deployments planned by blis plan. nodeSelector names the GPU as the planner does: map it to\n" +
    "# your cluster's nvidia.com/gpu.product label value.\n" +
    pools.map((p) => stringify(deployment(d, p))).join("---\n");
  const docs = parseAllDocuments(text);
  const list = Array.isArray(docs) ? docs : [docs];
  if (list.length !== pools.length || list.some((doc) => doc.errors.length > 0)) {
    throw new Error("plan: the Kubernetes manifest does not parse back");
  }
  return text;
}
