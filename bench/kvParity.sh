#!/usr/bin/env bash
# Records the stdout of KV-heavy runs into DIR, so two builds can be compared byte for byte:
#   bench/kvParity.sh /tmp/before; (change, build); bench/kvParity.sh /tmp/after; diff -r /tmp/before /tmp/after
set -euo pipefail
out=${1:?usage: kvParity.sh DIR}
mkdir -p "$out"
cd "$(dirname "$0")/.."
M=(run --model meta-llama/llama-3.1-8b-instruct)
r() { local name=$1; shift; node dist/src/cli/bin.js "${M[@]}" "$@" >"$out/$name.out" 2>/dev/null; }
r default20k --num-requests 20000
r affinity8 --num-instances 8 --routing-policy weighted --routing-scorers prefix-affinity:3,queue-depth:2 --num-requests 20000
r multiturn --workload-spec examples/multiturn-chat-demo.yaml
r multiturn4 --workload-spec examples/multiturn-chat-demo.yaml --num-instances 4 --total-kv-blocks 3000
r prefixdemo --workload-spec examples/prefix-affinity-demo.yaml --num-instances 4
r cpuoffload --kv-cpu-blocks 2000 --total-kv-blocks 1500 --kv-offload-threshold 0.5 --num-requests 3000
r cpuoffload8 --kv-cpu-blocks 5000 --total-kv-blocks 2000 --num-instances 4 --routing-policy weighted --num-requests 5000
r cpumulti --workload-spec examples/multiturn-chat-demo.yaml --kv-cpu-blocks 3000 --total-kv-blocks 200 --kv-offload-threshold 0.3
r cpumulti2 --workload-spec examples/prefix-affinity-demo.yaml --num-instances 2 --kv-cpu-blocks 4000 --total-kv-blocks 300 --kv-transfer-base-latency 5 --results-path "$out/cpumulti2.json"
r preempt --total-kv-blocks 400 --num-requests 3000
r preempt2 --total-kv-blocks 150 --block-size-in-tokens 8 --num-requests 2000
r pd --prefill-instances 1 --decode-instances 1 --num-instances 2 --num-requests 5000
r pdsmall --prefill-instances 1 --decode-instances 1 --num-instances 2 --total-kv-blocks 800 --num-requests 3000
for f in "$out"/*.out; do [ -s "$f" ] || { echo "empty: $f" >&2; exit 1; }; done
echo "recorded $(ls "$out" | wc -l) runs in $out"
