"""Launch, capacity and topology rules (SW0xx, SW1xx, SW2xx): each fixture, through the real adapters, fires exactly
these findings. ``unknown.yaml`` fixtures hold a value the rule needs that the manifest does not state (from a
ConfigMap or the downward API): the rule says it cannot decide. ``malformed.yaml`` ones are input errors that
name the file and line.
"""

import pathlib

import pytest
from shardwise.rules.adapters import load_inputs
from shardwise.rules.checks.registry import ALL_RULES, rule_by_code
from shardwise.rules.engine import LintConfig, run_rules
from shardwise.rules.model.errors import InputError

FIXTURES = pathlib.Path(__file__).parent / "fixtures" / "rules"

# (line, subject, message, suppression reason) of the rule's own findings, per fixture
EXPECTED = {
    ('SW001', 'fail'): [
        (8, 'Deployment serving/llama8b-tp2-unexplained', 'suppression of SW104 on llama8b-tp2-unexplained gives no reason; write it as "SW104: <reason>"', None),
    ],
    ('SW001', 'pass'): [
    ],
    ('SW002', 'fail'): [
        (17, 'Deployment serving/qwen-scripted', "cannot check this workload: container 'vllm' runs the vLLM image vllm/vllm-openai:v0.11.0 but its command (/bin/bash /opt/launch/start-vllm.sh) does not start a vLLM server shardwise can read; start it as `vllm serve MODEL [flags]` (or `python3 -m vllm.entrypoints.openai.api_server --model MODEL`), directly or in a `sh -c` script", None),
    ],
    ('SW002', 'pass'): [
        (40, 'Deployment serving/qwen-vendor-launcher', "cannot check this workload: container 'vllm' runs the vLLM image registry.example.com/ml/vllm-openai:v0.11.0-patched but its command (/usr/local/bin/launcher) does not start a vLLM server shardwise can read; start it as `vllm serve MODEL [flags]` (or `python3 -m vllm.entrypoints.openai.api_server --model MODEL`), directly or in a `sh -c` script", 'the vendor launcher is checked by its own CI'),
    ],
    ('SW003', 'fail'): [
        (18, 'Deployment serving/llama8b-serve-serve', "container 'vllm': the command reads as `vllm serve serve meta-llama/Llama-3.1-8B-Instruct`: the image's entrypoint already runs `vllm serve`, so vLLM takes `serve` as the model name and exits; remove `serve` from args", None),
    ],
    ('SW003', 'pass'): [
    ],
    ('SW004', 'fail'): [
        (18, 'Deployment serving/support-bot', "shardwise does not know the model: 'acme/support-bot-v7' is not in the catalog. SW101, SW102, SW104, SW106, SW203 could not run on it; teach it one of three ways: the annotation shardwise.dev/base-model naming the catalog model it is a copy of or the repository path of its config.json; a models directory (config key model_dirs, <dir>/<org>/<name>/config.json); or its config.json in the local Hugging Face cache (HF_HOME; `shardwise lint --fetch-configs` downloads it)", None),
        (38, 'Deployment serving/qwen-from-volume', "the model '/models/Qwen2.5-7B-Instruct' is a path; shardwise sized it as the catalog model Qwen/Qwen2.5-7B-Instruct, which its name matches. Confirm it with the annotation shardwise.dev/base-model: Qwen/Qwen2.5-7B-Instruct (or the path of its config.json)", None),
    ],
    ('SW004', 'pass'): [
    ],
    ('SW101', 'advisory'): [
        (18, 'Deployment serving/qwen32b-tight-util', "Qwen/Qwen2.5-32B-Instruct in bf16 needs 61.0 GiB (±1.5) of weights per GPU at TP1×PP1, but gpu_memory_utilization 0.78 × 79.2 GiB (H100-SXM-80GB) allows 61.8 GiB: within the estimate's error, so vLLM may fail at start-up (vLLM 0.11.0 from the image tag); the weights vLLM logs at start-up ('Model loading took') settle it", None),
        (38, 'Deployment serving/gpt-oss-20b-util-095-v011', "openai/gpt-oss-20b at TP1×PP1 on H100-SXM-80GB (vLLM 0.11.0 from the image tag): after the KV cache takes the budget, the 3.96 GiB outside it (1 − 0.95) must hold the CUDA context (0.50 GiB), CUDA graphs captured after sizing (0.40 GiB) and the sampler warm-up over 1,024 sequences × 201,088 tokens (3.07 GiB): 3.97 GiB (vLLM: CUDA out of memory occurred when warming up sampler with 1024 dummy requests); within the estimate's error, so vLLM may fail at start-up; a lower --gpu-memory-utilization or --max-num-seqs leaves room", None),
        (60, 'Deployment serving/gpt-oss-20b-util-095', 'openai/gpt-oss-20b at TP1×PP1 on H100-SXM-80GB (vLLM 0.14.1 from the image tag): after the KV cache takes the budget, the 3.96 GiB outside it (1 − 0.95) must hold the CUDA context (0.50 GiB), CUDA graphs captured after sizing (0.40 GiB) and the sampler warm-up over 1,024 sequences × 201,088 tokens (7.48 GiB): 8.38 GiB (vLLM: CUDA out of memory occurred when warming up sampler with 1024 dummy requests); vLLM is likely to fail at start-up; a lower --gpu-memory-utilization or --max-num-seqs leaves room', None),
    ],
    ('SW005', 'fail'): [
        (11, 'ModelDeployment serving/chat', 'not read: it mentions vLLM (the vLLM image vllm/vllm-openai:v0.11.0) but shardwise found no pod spec in it whose container starts a vLLM server it can read (no `containers` list or container with image and command at any depth); the operator builds the pod from fields shardwise does not know', None),
    ],
    ('SW005', 'pass'): [
    ],
    ('SW101', 'fail'): [
        (17, 'Deployment serving/llama70b-tp1', 'meta-llama/Llama-3.1-70B-Instruct in bf16 needs 131.4 GiB (±2.9) of weights per GPU at TP1×PP1, but gpu_memory_utilization 0.9 × 79.2 GiB (H100-SXM-80GB) allows 71.3 GiB; vLLM will fail at start-up (vLLM 0.11.0 from the image tag)', None),
    ],
    ('SW101', 'pass'): [
    ],
    ('SW102', 'advisory'): [
        (18, 'Deployment serving/llama8b-l4-32k', "meta-llama/Llama-3.1-8B-Instruct at TP1×PP1 on L4 (vLLM 0.11.0 from the image tag): one request of 32,768 tokens needs 4.00 GiB of KV cache per GPU; about 4.18 GiB (±0.9) is left after 15.0 GiB of weights and 0.5 GiB of activations; within the estimate's error, so vLLM may refuse to start; --max-model-len 26624 fits; cheapest change keeping max_model_len 32,768: --kv-cache-dtype fp8", None),
    ],
    ('SW102', 'fail'): [
        (17, 'Deployment serving/llama8b-l4-default-len', 'meta-llama/Llama-3.1-8B-Instruct at TP1×PP1 on L4 (vLLM 0.11.0 from the image tag): one request of 131,072 tokens needs 16.00 GiB of KV cache per GPU; about 4.18 GiB (±0.9) is left after 15.0 GiB of weights and 0.5 GiB of activations; vLLM will refuse to start; --max-model-len 26624 fits', None),
        (38, 'Deployment serving/llama8b-len-above-model', 'meta-llama/Llama-3.1-8B-Instruct at TP1×PP1 on H100-SXM-80GB (vLLM 0.11.0 from the image tag): max_model_len 200,000 is above the 131,072 tokens meta-llama/Llama-3.1-8B-Instruct allows (vLLM refuses it unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1); vLLM will refuse to start', None),
        (59, 'Deployment serving/llama8b-l4-fixed-kv', 'meta-llama/Llama-3.1-8B-Instruct at TP1×PP1 on L4 (vLLM 0.11.0 from the image tag): one request of 32,768 tokens needs 4.00 GiB of KV cache per GPU; --kv-cache-memory-bytes gives it 2.00 GiB; vLLM will refuse to start; --max-model-len 16384 fits; cheapest change keeping max_model_len 32,768: --kv-cache-dtype fp8', None),
    ],
    ('SW102', 'pass'): [
    ],
    ('SW103', 'advisory'): [
        (20, 'Deployment serving/llama70b-target-only', 'the declared load of 96 sequences (annotation shardwise.dev/target-concurrency) × 8,192 tokens (max_model_len; no p95 context declared) needs 60.0 GiB of KV cache per GPU, but meta-llama/Llama-3.1-70B-Instruct at TP4×PP1 on H100-SXM-80GB (vLLM 0.11.0 from the image tag) holds about 36.1 GiB (±2.9): 57 such sequences per replica; vLLM queues and preempts beyond that; declare the p95 context (annotation shardwise.dev/p95-context-tokens) to make this finding sure', None),
        (44, 'Deployment serving/llama70b-tight', "the declared load of 62 sequences (annotation shardwise.dev/target-concurrency) × 8,192 tokens (p95 context) needs 38.8 GiB of KV cache per GPU, but meta-llama/Llama-3.1-70B-Instruct at TP4×PP1 on H100-SXM-80GB (vLLM 0.11.0 from the image tag) holds about 36.1 GiB (±2.9): 57 such sequences per replica; vLLM queues and preempts beyond that (within the estimate's error band)", None),
    ],
    ('SW103', 'fail'): [
        (21, 'Deployment serving/llama70b-wide-batch', 'the declared load of 256 sequences (annotation shardwise.dev/target-concurrency) × 8,192 tokens (p95 context) needs 160.0 GiB of KV cache per GPU, but meta-llama/Llama-3.1-70B-Instruct at TP4×PP1 on H100-SXM-80GB (vLLM 0.11.0 from the image tag) holds about 37.5 GiB (±2.9): 59 such sequences per replica; vLLM queues and preempts beyond that', None),
        (45, 'Deployment serving/llama70b-two-replicas', 'the declared load of 256 sequences (annotation shardwise.dev/target-concurrency) over 2 replicas: 128 per replica × 8,192 tokens (p95 context) needs 80.0 GiB of KV cache per GPU, but meta-llama/Llama-3.1-70B-Instruct at TP4×PP1 on H100-SXM-80GB (vLLM 0.11.0 from the image tag) holds about 36.1 GiB (±2.9): 57 such sequences per replica; vLLM queues and preempts beyond that', None),
    ],
    ('SW103', 'pass'): [
    ],
    ('SW104', 'advisory'): [
        (19, 'Deployment serving/llama8b-tp2-default-batch', 'meta-llama/Llama-3.1-8B-Instruct is sharded over 2 GPUs per replica (TP2×PP1) on H100-SXM-80GB; TP1×PP1 starts with 15.0 GiB of weights and 54.1 GiB (±2.9) of KV cache per GPU, but 2 replicas × TP1×PP1 on the same 2 GPUs would hold 108 sequences of 8,192 tokens (max_model_len; no p95 context declared) together where TP2×PP1 holds 123: replicas run without the all-reduce but hold fewer sequences; declare the load (annotation shardwise.dev/target-concurrency) to have it judged (vLLM 0.11.0 from the image tag)', None),
        (43, 'Deployment serving/llama8b-tp2-tpot', 'meta-llama/Llama-3.1-8B-Instruct is sharded over 2 GPUs per replica (TP2×PP1) on H100-SXM-80GB, but TP1×PP1 starts with 15.0 GiB of weights and 55.3 GiB (±2.9) of KV cache per GPU: 2 replicas × TP1×PP1 on the same 2 GPUs hold 110 sequences of 8,192 tokens (max_model_len; no p95 context declared) together, at least the 64 one replica must hold (64 by annotation shardwise.dev/target-concurrency; TP2×PP1 holds 126); replicate instead: 2 replicas × TP1×PP1 on the same 2 GPUs (vLLM 0.11.0 from the image tag); shardwise.dev/tpot-target-ms declares a per-token latency target of 15 ms, which the sharding may be there to meet: benchmark the replicas against it', None),
        (66, 'Deployment serving/llama8b-tp2-tight', "meta-llama/Llama-3.1-8B-Instruct is sharded over 2 GPUs per replica (TP2×PP1) on H100-SXM-80GB, but TP1×PP1 starts with 15.0 GiB of weights and 55.3 GiB (±2.9) of KV cache per GPU: 2 replicas × TP1×PP1 on the same 2 GPUs hold about 110 sequences of 8,192 tokens (max_model_len; no p95 context declared) together, at least the 108 one replica must hold (108 by annotation shardwise.dev/target-concurrency; TP2×PP1 holds 126): within the estimate's error band, so the KV cache vLLM logs at start-up settles it; replicate instead: 2 replicas × TP1×PP1 on the same 2 GPUs (vLLM 0.11.0 from the image tag)", None),
    ],
    ('SW104', 'fail'): [
        (21, 'Deployment serving/llama8b-tp2', 'meta-llama/Llama-3.1-8B-Instruct is sharded over 2 GPUs per replica (TP2×PP1) on H100-SXM-80GB, but TP1×PP1 starts with 15.0 GiB of weights and 55.3 GiB (±2.9) of KV cache per GPU: 2 replicas × TP1×PP1 on the same 2 GPUs hold 110 sequences of 8,192 tokens (max_model_len; no p95 context declared) together, at least the 64 one replica must hold (128 by annotation shardwise.dev/target-concurrency over 2 replicas; TP2×PP1 holds 126); replicate instead: 2 replicas × TP1×PP1 on the same 2 GPUs (vLLM 0.11.0 from the image tag)', None),
        (46, 'StatefulSet serving/llama70b-tp4-pp2', 'meta-llama/Llama-3.1-70B-Instruct is sharded over 8 GPUs per replica (TP4×PP2) on H100-SXM-80GB, but TP4×PP1 starts with 32.9 GiB of weights and 37.5 GiB (±2.9) of KV cache per GPU: 2 replicas × TP4×PP1 on the same 8 GPUs hold 118 sequences of 8,192 tokens (max_model_len; no p95 context declared) together, at least the 64 one replica must hold (64 by annotation shardwise.dev/target-concurrency; TP4×PP2 holds 172); replicate instead: 2 replicas × TP4×PP1 on the same 8 GPUs (vLLM 0.11.0 from the image tag)', None),
    ],
    ('SW104', 'pass'): [
        (45, 'Deployment serving/llama8b-tp2-benchmarked', 'meta-llama/Llama-3.1-8B-Instruct is sharded over 2 GPUs per replica (TP2×PP1) on H100-SXM-80GB, but TP1×PP1 starts with 15.0 GiB of weights and 55.3 GiB (±2.9) of KV cache per GPU: 2 replicas × TP1×PP1 on the same 2 GPUs hold 110 sequences of 8,192 tokens (max_model_len; no p95 context declared) together, at least the 64 one replica must hold (64 by annotation shardwise.dev/target-concurrency; TP2×PP1 holds 126); replicate instead: 2 replicas × TP1×PP1 on the same 2 GPUs (vLLM 0.11.0 from the image tag)', 'benchmarked TP2 TPOT p95 18 ms vs 31 ms at TP1'),
    ],
    ('SW105', 'fail'): [
        (17, 'Deployment serving/llama8b-util-high', "gpu_memory_utilization is 0.98, above 0.95: no headroom for the CUDA context, NCCL buffers, CUDA graphs, the sampler warm-up and fragmentation (vLLM 0.11.0's default is 0.9)", None),
        (36, 'Deployment serving/llama8b-util-low', "gpu_memory_utilization is 0.3, below 0.5: most of each GPU's memory is left unused by the KV cache (vLLM 0.11.0's default is 0.9)", None),
        (56, 'Deployment serving/llama8b-util-high-020', "gpu_memory_utilization is 0.97, above 0.95: no headroom for the CUDA context, NCCL buffers, the sampler warm-up and fragmentation (vLLM 0.20.0's default is 0.92)", None),
    ],
    ('SW105', 'pass'): [
    ],
    ('SW106', 'fail'): [
        (20, 'Deployment serving/llama70b-bf16-tp4', 'meta-llama/Llama-3.1-70B-Instruct is sharded over 4 GPUs in bf16; a 4-bit AWQ/GPTQ variant (39.8 GB of weights) would run on one H100-SXM-80GB: it starts with 37.1 GiB of weights and 32.4 GiB (±2.9) of KV cache, room for 12 sequences of 8,192 tokens (max_model_len; no p95 context declared); 4 such replicas on the same 4 GPUs hold 48 together, at least the 32 one replica must hold (32 by annotation shardwise.dev/target-concurrency; TP4×PP1 holds 59) (vLLM 0.11.0 from the image tag)', None),
    ],
    ('SW106', 'pass'): [
    ],
    ('SW201', 'advisory'): [
        (17, 'Deployment serving/llama405b-tp16', "pool `instance-type=p5.48xlarge` has 8 GPUs per node but tensor_parallel_size is 16; the TP group would span 2 nodes without a shared NVLink domain: over EFA it works but is slower: every layer's all-reduce crosses the network; vllm-project/vllm#17006 measured DeepSeek-R1 on two 8-GPU nodes over InfiniBand: TP16 with RDMA came within about 100 ms of TP8×PP2's time to first token, and ran far slower over TCP without RDMA; --tensor-parallel-size 8 --pipeline-parallel-size 2 keeps the all-reduces inside each node", None),
        (38, 'Deployment serving/llama405b-tp16-fabric-unknown', "pool `gpu.product=NVIDIA-H100-80GB-HBM3,gpu.count=8` has 8 GPUs per node but tensor_parallel_size is 16; the TP group would span 2 nodes without a shared NVLink domain; whether the nodes share EFA or InfiniBand is not known (an instance type, or the label shardwise.dev/efa or shardwise.dev/fabric, would say): without one NCCL runs every layer's all-reduce over TCP; --tensor-parallel-size 8 --pipeline-parallel-size 2 keeps the all-reduces inside each node", None),
    ],
    ('SW201', 'fail'): [
        (19, 'Deployment serving/llama405b-tp16-no-fabric', "pool `gpu.product=NVIDIA-H100-80GB-HBM3,gpu.count=8,efa=false` has 8 GPUs per node but tensor_parallel_size is 16; the TP group would span 2 nodes without a shared NVLink domain or an RDMA fabric: NCCL's all-reduces run over TCP sockets on every layer; --tensor-parallel-size 8 --pipeline-parallel-size 2 keeps the all-reduces inside each node", None),
        (41, 'Deployment serving/qwen3-235b-tp16-no-fabric', "pool `gpu.product=NVIDIA-H100-80GB-HBM3,gpu.count=8,efa=false` has 8 GPUs per node but tensor_parallel_size is 16; the TP group would span 2 nodes without a shared NVLink domain or an RDMA fabric: NCCL's all-reduces run over TCP sockets on every layer; --tensor-parallel-size 8 --data-parallel-size 2 --enable-expert-parallel keeps attention inside each node and sends only the experts' all-to-all across", None),
        (61, 'Deployment serving/llama405b-tp16-efa-unused', "pool `instance-type=p5.48xlarge` has 8 GPUs per node but tensor_parallel_size is 16; the TP group would span 2 nodes without a shared NVLink domain (the pool has EFA but the pods request no vpc.amazonaws.com/efa devices): NCCL's all-reduces run over TCP sockets on every layer; --tensor-parallel-size 8 --pipeline-parallel-size 2 keeps the all-reduces inside each node", None),
    ],
    ('SW201', 'pass'): [
    ],
    ('SW202', 'advisory'): [
        (21, 'Deployment serving/llama8b-a10g-tp2-wide', "tensor_parallel_size 2 on pool `instance-type=g5.12xlarge` (A10G, joined only by PCIe) runs every layer's all-reduce over PCIe, which carries a fraction of NVLink's bandwidth. The sharding is not avoidable on this pool: at TP1×PP1 meta-llama/Llama-3.1-8B-Instruct in bf16 holds about 4 sequences of 8,192 tokens (max_model_len; no p95 context declared) where each of 2 replicas needs 8; alternatives: pipeline parallelism (--tensor-parallel-size 1 --pipeline-parallel-size 2), which sends only activations over PCIe; a pool whose GPUs share NVLink or NVSwitch; a 4-bit AWQ/GPTQ checkpoint, which runs at TP1×PP1 here (vLLM 0.11.0 from the image tag)", None),
        (42, 'Deployment serving/llama70b-l40s-tp4', "tensor_parallel_size 4 on pool `instance-type=g6e.12xlarge` (L40S, joined only by PCIe) runs every layer's all-reduce over PCIe, which carries a fraction of NVLink's bandwidth. The sharding is not avoidable on this pool: at TP1×PP1 meta-llama/Llama-3.1-70B-Instruct in bf16 would not start: no memory is left for the KV cache (vLLM: No available memory for the cache blocks); alternatives: pipeline parallelism (--tensor-parallel-size 1 --pipeline-parallel-size 4), which sends only activations over PCIe; a pool whose GPUs share NVLink or NVSwitch (vLLM 0.11.0 from the image tag)", None),
    ],
    ('SW202', 'fail'): [
        (20, 'Deployment serving/llama8b-a10g-tp2', "tensor_parallel_size 2 on pool `instance-type=g5.12xlarge` (A10G, joined only by PCIe) runs every layer's all-reduce over PCIe, and the sharding is avoidable: TP1×PP1 starts with 15.0 GiB of weights and 4.5 GiB (±0.8) of KV cache per GPU: 2 replicas × TP1×PP1 on the same 2 GPUs hold 8 sequences of 8,192 tokens (max_model_len; no p95 context declared) together, at least the 4 one replica must hold (4 by annotation shardwise.dev/target-concurrency; TP2×PP1 holds 23); run 2 replicas × TP1×PP1 instead (vLLM 0.11.0 from the image tag)", None),
        (44, 'Deployment serving/llama70b-h100nvl-tp4', "tensor_parallel_size 4 on pool `gpu.product=NVIDIA-H100-NVL,gpu.count=4` (H100-NVL-94GB, NVLink joins them in groups of 2 only, PCIe between the groups) runs every layer's all-reduce over PCIe, and the sharding is avoidable: TP2×PP1 starts with 65.7 GiB of weights and 17.2 GiB (±3.4) of KV cache per GPU: 2 replicas × TP2×PP1 on the same 4 GPUs hold 26 sequences of 8,192 tokens (max_model_len; no p95 context declared) together, at least the 16 one replica must hold (16 by annotation shardwise.dev/target-concurrency; TP4×PP1 holds 80); run 2 replicas × TP2×PP1 instead (vLLM 0.11.0 from the image tag)", None),
    ],
    ('SW202', 'pass'): [
    ],
    ('SW203', 'advisory'): [
        (18, 'Deployment serving/qwen3-235b-2507-fp8-tp8', "at tensor_parallel_size 8 each rank holds 192 columns of each expert's gate/up projection of acme/Qwen3-235B-A22B-Instruct-2507-FP8, not a multiple of block_n 128; vLLM refuses to load the weights if the checkpoint stores 128x128 FP8 blocks (its quantization_config would say); --enable-expert-parallel keeps each expert whole on one rank", None),
    ],
    ('SW203', 'fail'): [
        (17, 'Deployment serving/qwen7b-tp8', 'Qwen/Qwen2.5-7B-Instruct has 28 attention heads, not divisible by tensor_parallel_size 8', None),
        (38, 'Deployment serving/qwen3-235b-fp8-tp8', "at tensor_parallel_size 8 each rank holds 192 columns of each expert's gate/up projection of Qwen/Qwen3-235B-A22B-FP8, not a multiple of block_n 128 (128x128 FP8 blocks); vLLM refuses to load the weights; --enable-expert-parallel keeps each expert whole on one rank", None),
        (59, 'Deployment serving/qwen3-30b-fp8-tp4', "at tensor_parallel_size 4 each rank holds 192 columns of each expert's gate/up projection of Qwen/Qwen3-30B-A3B-FP8, not a multiple of block_n 128 (128x128 FP8 blocks); vLLM refuses to load the weights; --enable-expert-parallel keeps each expert whole on one rank", None),
    ],
    ('SW203', 'pass'): [
    ],
    ('SW207', 'fail'): [
        (17, 'Deployment serving/llama8b-ep', '--enable-expert-parallel is set but meta-llama/Llama-3.1-8B-Instruct is a dense model with no experts', None),
    ],
    ('SW207', 'pass'): [
    ],
}


@pytest.mark.parametrize("code,kind", sorted(EXPECTED))
def test_fixture_fires_exactly(code, kind):
    inv = load_inputs([str(FIXTURES / code / f"{kind}.yaml")])
    got = [
        (f.location.line, f.subject, f.message, f.suppression_reason)
        for f in run_rules(ALL_RULES, inv)
        if f.code == code
    ]
    assert got == EXPECTED[(code, kind)]


@pytest.mark.parametrize("code,kind", sorted(EXPECTED))
def test_pass_fixtures_have_no_blocking_finding_of_their_rule(code, kind):
    inv = load_inputs([str(FIXTURES / code / f"{kind}.yaml")])
    found = [f for f in run_rules(ALL_RULES, inv) if f.code == code and not f.suppressed]
    # fail.yaml has findings, pass.yaml none; advisory.yaml has findings, none of them blocking
    assert (len(found) > 0) == (kind in ("fail", "advisory"))
    if kind == "advisory":
        assert not any(f.blocking for f in found)


# (line, subject, level, message) of the rule's own findings on its unknown.yaml: one undecided finding,
# mandatory unless the rule is advisory or may skip an unknown input (meta.safe_to_skip_unknown)
UNDECIDED = {
    'SW004': (21, 'Deployment serving/model-from-configmap', 'advisory', 'shardwise does not know the model: it is $(MODEL_ID), set from a Secret, ConfigMap or the downward API, so shardwise cannot see which model it is. SW101, SW102, SW104, SW106, SW203 could not run on it; teach it one of three ways: the annotation shardwise.dev/base-model naming the catalog model it is a copy of or the repository path of its config.json; a models directory (config key model_dirs, <dir>/<org>/<name>/config.json); or its config.json in the local Hugging Face cache (HF_HOME; `shardwise lint --fetch-configs` downloads it)'),
    'SW101': (18, 'Deployment serving/llama70b-tp1-util-from-configmap', 'advisory', 'cannot decide: gpu_memory_utilization is not known (a computed value or an unresolved reference)'),
    'SW102': (18, 'Deployment serving/llama8b-l4-len-from-configmap', 'advisory', 'cannot decide: max_model_len is not known (a computed value or an unresolved reference)'),
    'SW103': (21, 'Deployment serving/llama70b-batch-from-configmap', 'advisory', 'cannot decide: max_num_seqs is not known (a computed value or an unresolved reference)'),
    'SW104': (18, 'Deployment serving/llama70b-tp-unknown', 'advisory', 'cannot decide: tensor_parallel_size is not known (a computed value or an unresolved reference)'),
    'SW105': (17, 'Deployment serving/llama8b-util-from-configmap', 'advisory', 'cannot decide: gpu_memory_utilization is not known (a computed value or an unresolved reference)'),
    'SW106': (17, 'Deployment serving/llama70b-bf16-pp-from-configmap', 'advisory', 'cannot decide: pipeline_parallel_size is not known (a computed value or an unresolved reference)'),
    'SW201': (20, 'Deployment serving/llama405b-tp-from-annotation', 'advisory', 'cannot decide: tensor_parallel_size is not known (a computed value or an unresolved reference)'),
    'SW202': (18, 'Deployment serving/llama8b-a10g-tp-from-configmap', 'advisory', 'cannot decide: tensor_parallel_size is not known (a computed value or an unresolved reference)'),
    'SW207': (20, 'Deployment serving/llama8b-ep-from-configmap', 'advisory', 'cannot decide: enable_expert_parallel is not known (a computed value or an unresolved reference)'),
}

# (line, message) of the InputError each malformed.yaml raises; its file is the fixture
INPUT_ERRORS = {
    'SW001': (9, "shardwise.dev/ignore: 'SW1O4: benchmarked TP2 TPOT p95 18 ms vs 31 ms at TP1' does not start with a rule code (SWnnn)"),
    'SW002': (15, "container 'vllm': command[1]: expected a string, found a mapping"),
    'SW003': (18, "--max-model-len: 'eight-k' is not an integer (e.g. 8192 or 32k)"),
    'SW005': (8, "shardwise.dev/ignore: 'SWOO5: the engine is a test double' does not start with a rule code (SWnnn)"),
    'SW203': (21, "--tensor-parallel-size: 'auto' is not an integer"),
    'SW207': (20, "--enable-expert-parallel: 'yes-please' is not true or false"),
}


@pytest.mark.parametrize("code", sorted(UNDECIDED))
def test_unknown_fixture_makes_its_rule_say_it_cannot_decide(code):
    inv = load_inputs([str(FIXTURES / code / "unknown.yaml")])
    got = [
        (f.location.line, f.subject, f.level, f.message, f.undecided, f.suppressed)
        for f in run_rules(ALL_RULES, inv)
        if f.code == code
    ]
    assert got == [(*UNDECIDED[code], True, False)]


@pytest.mark.parametrize("code", sorted(UNDECIDED))
def test_undecided_level_follows_the_rule_metadata(code):
    meta = rule_by_code(code).meta
    # capacity and topology rules that cannot decide are advisory unless the config says unknown = "fail"
    skip = meta.enforcement == "advisory" or meta.safe_to_skip_unknown or meta.decides_capacity_or_topology
    assert UNDECIDED[code][2] == ("advisory" if skip else "mandatory")


@pytest.mark.parametrize("code", sorted(INPUT_ERRORS))
def test_malformed_fixture_is_an_input_error_with_file_and_line(code):
    path = str(FIXTURES / code / "malformed.yaml")
    with pytest.raises(InputError) as e:
        load_inputs([path])
    line, message = INPUT_ERRORS[code]
    assert (e.value.file, e.value.line, e.value.message, str(e.value)) == (path, line, message, f"{path}:{line}: {message}")


def test_every_fixture_of_these_rules_is_asserted_here():
    codes = {c for c, _ in EXPECTED} | set(UNDECIDED) | set(INPUT_ERRORS)
    on_disk = {(p.parent.name, p.name) for c in codes for p in (FIXTURES / c).iterdir()}
    asserted = ({(c, f"{kind}.yaml") for c, kind in EXPECTED} | {(c, "unknown.yaml") for c in UNDECIDED}
                | {(c, "malformed.yaml") for c in INPUT_ERRORS})
    assert on_disk == asserted


def test_unknown_tp_makes_every_rule_that_needs_it_say_so():
    inv = load_inputs([str(FIXTURES / "SW104" / "unknown.yaml")])
    undecided = {(f.code, f.level) for f in run_rules(ALL_RULES, inv) if f.undecided and f.code < "SW3"}
    # by default an undecided capacity or topology finding is advisory (it says which value is missing)
    assert undecided == {(code, "advisory") for code in (
        "SW101", "SW102", "SW104", "SW106", "SW201", "SW202", "SW203", "SW204", "SW208")}
    # no load is declared there: SW103 has nothing to judge, so it does not need TP
    # unknown = "fail" in the configuration keeps each rule's own level
    strict = LintConfig(unknown_is_failure=True, unknown_configured=True)
    assert {(f.code, f.level) for f in run_rules(ALL_RULES, inv, strict) if f.undecided and f.code < "SW3"} == {
        ("SW101", "mandatory"), ("SW102", "mandatory"), ("SW104", "mandatory"),
        ("SW106", "advisory"), ("SW201", "mandatory"), ("SW202", "mandatory"), ("SW203", "mandatory"),
        ("SW204", "mandatory"), ("SW208", "advisory"),
    }
    msg = next(f.message for f in run_rules(ALL_RULES, inv) if f.code == "SW104")
    assert msg == (
        "cannot decide: tensor_parallel_size is not known (a computed value or an unresolved reference)"
    )


def test_unknown_is_advisory_when_configured_to_warn():
    from shardwise.rules.engine import LintConfig

    inv = load_inputs([str(FIXTURES / "SW104" / "unknown.yaml")])
    levels = {f.level for f in run_rules(ALL_RULES, inv, LintConfig(unknown_is_failure=False)) if f.undecided}
    assert levels == {"advisory"}


def test_a_crashing_rule_becomes_a_mandatory_diagnostic():
    from shardwise.rules.engine import Rule

    class Broken(Rule):
        meta = rule_by_code("SW101").meta

        def check(self, inv, config):
            raise ZeroDivisionError("boom")

    inv = load_inputs([str(FIXTURES / "SW101" / "fail.yaml")])
    [f] = run_rules([Broken()], inv)
    assert (f.code, f.level, f.message) == (
        "SW101", "mandatory", "internal error in rule weights-exceed-gpu-memory: ZeroDivisionError: boom"
    )


def test_unknown_dtype_or_quantization_is_undecided_not_a_crash():
    from shardwise.rules.model import UNKNOWN

    for field in ("dtype", "quantization", "kv_cache_dtype", "block_size", "enforce_eager"):
        inv = load_inputs([str(FIXTURES / "SW104" / "fail.yaml")])
        setattr(inv.groups[0].engine, field, UNKNOWN)
        found = {f.code: f for f in run_rules(ALL_RULES, inv) if f.subject == "Deployment serving/llama8b-tp2"}
        assert not any(f.internal for f in found.values()), field
        assert found["SW101"].message == (
            f"cannot decide: {field} is not known (a computed value or an unresolved reference)"
        )
        assert (found["SW101"].level, found["SW101"].undecided) == ("advisory", True)


def test_a_rule_crashing_on_one_group_still_checks_the_others():
    from shardwise.rules.engine import GroupRule, hit

    class CrashesOnTp2(GroupRule):
        meta = rule_by_code("SW101").meta

        def check_group(self, g, inv, config):
            if g.name == "llama8b-tp2":
                raise KeyError("boom")
            yield hit(g, f"checked {g.name}")

    inv = load_inputs([str(FIXTURES / "SW104" / "fail.yaml")])
    got = [(f.subject, f.level, f.internal, f.message) for f in run_rules([CrashesOnTp2()], inv)]
    assert got == [
        ("Deployment serving/llama8b-tp2", "mandatory", True,
         "internal error in rule weights-exceed-gpu-memory: KeyError: 'boom'"),
        ("StatefulSet serving/llama70b-tp4-pp2", "advisory", False, "checked llama70b-tp4-pp2"),
    ]


@pytest.mark.parametrize("applies", [True, False])
def test_the_runner_skips_plans_for_a_rule_that_does_not_apply_to_them(applies):
    from dataclasses import replace

    from shardwise.rules.engine import GroupRule, Rule, hit

    meta = replace(rule_by_code("SW101").meta, applies_to_plans=applies)

    class Checks(GroupRule):
        def check_group(self, g, inv, config):
            yield hit(g, f"checked {g.name}")

    class ChecksByHand(Rule):
        def check(self, inv, config):
            for g in self.groups(inv):
                yield hit(g, f"checked {g.name}")

    Checks.meta = ChecksByHand.meta = meta
    inv = load_inputs([str(FIXTURES / "SW104" / "fail.yaml")])
    inv.groups[0].kind = "plan"
    names = [g.name for g in inv.groups if applies or g.kind != "plan"]
    for rule in (Checks(), ChecksByHand()):
        assert sorted(f.message for f in run_rules([rule], inv)) == sorted(f"checked {n}" for n in names)


def test_an_image_not_known_yet_sizes_for_the_current_release_and_says_so():
    from shardwise.rules.model import UNKNOWN
    from shardwise.rules.vllm.versions import CURRENT_RELEASE

    inv = load_inputs([str(FIXTURES / "SW102" / "fail.yaml")])
    inv.groups[0].containers[0].image = UNKNOWN  # a computed image at `pulumi preview`
    [f] = [f for f in run_rules(ALL_RULES, inv) if f.code == "SW102" and f.subject.endswith("default-len")]
    assert (f.level, f.undecided) == ("mandatory", False)
    assert f"(vLLM {CURRENT_RELEASE}, assumed: the image is not known yet)" in f.message


@pytest.mark.parametrize("code", ["SW101", "SW102", "SW103", "SW104", "SW202"])
def test_capacity_fail_fixtures_block_and_advisory_ones_do_not(code):
    levels = {kind: [f.level for f in run_rules(ALL_RULES, load_inputs([str(FIXTURES / code / f"{kind}.yaml")]))
                     if f.code == code]
              for kind in ("fail", "advisory")}
    assert levels["fail"] and set(levels["fail"]) == {"mandatory"}
    assert levels["advisory"] and set(levels["advisory"]) == {"advisory"}
